//! Command-line parsing: `--name value` options after a subcommand. Every error names the
//! argument at fault.

use glam::{DQuat, DVec3};
use mockup_ccd::Pose;
use std::collections::HashMap;

/// A user error: reported on stderr with exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug)]
pub struct Options {
    values: HashMap<String, String>,
    flags: Vec<String>,
}

impl Options {
    /// Parses `--key value` pairs, accepting only `allowed` keys.
    pub fn parse(args: &[String], allowed: &[&str]) -> Result<Options, UsageError> {
        Options::parse_with_flags(args, allowed, &[])
    }

    /// Parses `--key value` pairs of `allowed` keys and bare `--flag`s of `flags`.
    pub fn parse_with_flags(args: &[String], allowed: &[&str], flags: &[&str]) -> Result<Options, UsageError> {
        let mut values = HashMap::new();
        let mut set = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(key) = arg.strip_prefix("--") else {
                return Err(UsageError(format!("unexpected argument {arg:?}")));
            };
            if flags.contains(&key) {
                if set.iter().any(|f| f == key) {
                    return Err(UsageError(format!("--{key} given twice")));
                }
                set.push(key.to_string());
                continue;
            }
            if !allowed.contains(&key) {
                let known: Vec<&str> = allowed.iter().chain(flags).copied().collect();
                return Err(UsageError(format!("unknown option --{key} (expected one of: --{})", known.join(", --"))));
            }
            let Some(value) = it.next() else {
                return Err(UsageError(format!("--{key} needs a value")));
            };
            if values.insert(key.to_string(), value.clone()).is_some() {
                return Err(UsageError(format!("--{key} given twice")));
            }
        }
        Ok(Options { values, flags: set })
    }

    /// Whether the bare `--flag` was given.
    pub fn flag(&self, key: &str) -> bool {
        self.flags.iter().any(|f| f == key)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    pub fn required(&self, key: &str) -> Result<&str, UsageError> {
        self.get(key).ok_or_else(|| UsageError(format!("missing --{key}")))
    }

    pub fn pose(&self, key: &str) -> Result<Option<Pose>, UsageError> {
        self.get(key).map(|v| parse_pose(v).map_err(|e| UsageError(format!("--{key} {v:?}: {e}")))).transpose()
    }
}

/// `tx,ty,tz,qx,qy,qz,qw`: a translation then a quaternion (normalized here).
pub fn parse_pose(text: &str) -> Result<Pose, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 7 {
        return Err(format!("expected 7 comma-separated numbers tx,ty,tz,qx,qy,qz,qw, got {}", parts.len()));
    }
    let mut v = [0.0; 7];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p.parse::<f64>().map_err(|_| format!("{p:?} is not a number"))?;
        if !v[i].is_finite() {
            return Err(format!("{p:?} is not finite"));
        }
        if i < 3 && v[i].abs() > mockup_ccd::mesh::MAX_COORDINATE {
            return Err(format!("{p:?} is too large (the limit is ±1e50)"));
        }
    }
    let q = DQuat::from_xyzw(v[3], v[4], v[5], v[6]);
    let len = q.length();
    if !(len > 1e-12) {
        return Err("the quaternion is zero".into());
    }
    Ok(Pose::new(q / len, DVec3::new(v[0], v[1], v[2])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses() {
        let p = parse_pose("1, 2, 3, 0, 0, 0, 2").unwrap();
        assert_eq!(p.translation, DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(p.rotation, DQuat::IDENTITY);
        assert!(parse_pose("1,2,3").unwrap_err().contains("7"));
        assert!(parse_pose("1,2,x,0,0,0,1").unwrap_err().contains("\"x\""));
        assert!(parse_pose("1,2,3,0,0,0,0").unwrap_err().contains("zero"));
        assert!(parse_pose("1,2e300,3,0,0,0,1").unwrap_err().contains("too large"));
        assert!(parse_pose("1,2,inf,0,0,0,1").unwrap_err().contains("finite"));
    }

    #[test]
    fn options() {
        let args: Vec<String> = ["--a", "1", "--b", "2"].iter().map(|s| s.to_string()).collect();
        let o = Options::parse(&args, &["a", "b"]).unwrap();
        assert_eq!(o.get("a"), Some("1"));
        assert!(Options::parse(&args, &["a"]).unwrap_err().0.contains("--b"));
        assert!(Options::parse(&args[..1], &["a"]).unwrap_err().0.contains("needs a value"));
    }
}
