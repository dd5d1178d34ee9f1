//! Where scene and mesh files come from: the file system, or files embedded in the binary
//! (the default scene).

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Reads files by path.
pub trait Source: Sync {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// The file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSystem;

impl Source for FileSystem {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

/// Files held in memory, by path (`/`-separated, relative, normalised).
#[derive(Clone, Debug, Default)]
pub struct Embedded {
    files: HashMap<PathBuf, &'static [u8]>,
}

impl Embedded {
    pub fn new(files: impl IntoIterator<Item = (&'static str, &'static [u8])>) -> Embedded {
        Embedded { files: files.into_iter().map(|(p, b)| (normalize(Path::new(p)), b)).collect() }
    }
}

impl Source for Embedded {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .get(&normalize(path))
            .map(|b| b.to_vec())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not among the embedded files"))
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            // Only a named folder is taken back: `..` at the start stays (`../../a` is not
            // `a`), and the root's parent is the root.
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    // "." (or "a/..") is the folder itself, not an empty path.
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalize;
    use std::path::Path;

    #[test]
    fn normalize_keeps_what_leaves_the_start() {
        for (path, want) in [
            ("a/./b/../c", "a/c"),
            ("a/..", "."),
            ("../a", "../a"),
            // Found with a scene opened from /tmp/panda whose meshes were under /work.
            ("../../a/b", "../../a/b"),
            ("a/../../b", "../b"),
            ("a/b/../../../c/../d", "../d"),
            ("/../a", "/a"),
            ("/x/../../a", "/a"),
        ] {
            assert_eq!(normalize(Path::new(path)), Path::new(want), "{path}");
        }
    }
}
