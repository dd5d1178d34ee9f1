//! STL import, binary and ASCII: one part per file. STL repeats every corner per facet;
//! corners at exactly equal positions are welded, so the part has edges shared by faces (the
//! collision code needs that adjacency, and a closed part is then a solid).
//!
//! The parser is our own, not `stl_io`: its errors carry no line numbers, and ours name the
//! line (ASCII) or the facet and its byte offset (binary). The facets' stated normals are
//! ignored (exporters often write zeros or NaN there); a facet faces the way its corners wind,
//! counter-clockwise seen from outside, as STL says.

use crate::mesh_file::{Welder, quality_warnings, stem};
use crate::triangulate::triangulate;
use glam::DVec3;
use mockup_ccd::{Mesh, MeshError};
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum StlError {
    #[error("{}:{line}: {message}", path.display())]
    Syntax { path: PathBuf, line: usize, message: String },
    #[error("{}: binary STL: {message}", path.display())]
    Binary { path: PathBuf, message: String },
    #[error("{}: no facets at all", path.display())]
    NoFacets { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Mesh { path: PathBuf, source: MeshError },
}

/// An STL file's mesh, and what was wrong but not fatal.
#[derive(Clone, Debug)]
pub struct StlMesh {
    pub mesh: Mesh,
    pub warnings: Vec<String>,
}

/// The size of a binary STL's header (80 bytes of text, then the facet count).
const HEADER: usize = 84;
/// A binary facet: normal, three corners (twelve little-endian f32), two attribute bytes.
const FACET: usize = 50;

/// Parses STL bytes; `path` names the file in messages and the part after its stem.
pub fn parse(bytes: &[u8], path: &Path) -> Result<StlMesh, StlError> {
    // A binary file's size is fixed by its facet count; that decides, since many binary
    // files begin their header with "solid" too.
    let count = bytes.get(80..HEADER).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    let binary_size = count.and_then(|n| n.checked_mul(FACET)).and_then(|b| b.checked_add(HEADER));
    let facets = if binary_size == Some(bytes.len()) {
        binary(bytes, count.unwrap_or(0), path)?
    } else if looks_ascii(bytes) {
        Facets::from_ascii(bytes, path)?
    } else {
        let message = match (count, binary_size) {
            (Some(n), Some(size)) => format!(
                "the header says {n} facets, which take {size} bytes (84 + 50 × {n}), but the file has {} bytes \
                 (truncated, or not an STL file)",
                bytes.len()
            ),
            (Some(n), None) => format!("the header says {n} facets, more than any file can hold"),
            (None, _) => format!(
                "the file has {} bytes: too short for a binary STL (an 84-byte header), and it does not start \
                 with `solid` (ASCII STL)",
                bytes.len()
            ),
        };
        return Err(StlError::Binary { path: path.to_path_buf(), message });
    };
    facets.into_mesh(path)
}

/// ASCII STL starts with `solid`; a binary header that starts so is told apart by the NUL
/// bytes a binary file has near its start (padding, small counts, zero coordinates).
fn looks_ascii(bytes: &[u8]) -> bool {
    let text = bytes.trim_ascii_start();
    text.len() >= 5 && text[..5].eq_ignore_ascii_case(b"solid") && !bytes[..bytes.len().min(512)].contains(&0)
}

/// Corners of triangles, three per triangle, and where each triangle was read.
struct Facets {
    corners: Vec<DVec3>,
    /// Per triangle: its line (ASCII) or facet number (binary).
    origin: Vec<usize>,
    binary: bool,
    warnings: Vec<String>,
}

fn binary(bytes: &[u8], count: usize, path: &Path) -> Result<Facets, StlError> {
    let mut corners = Vec::with_capacity(3 * count);
    for facet in 0..count {
        let at = HEADER + FACET * facet;
        for corner in 0..3 {
            let start = at + 12 + 12 * corner;
            let p = DVec3::from_array(std::array::from_fn(|k| {
                let b = &bytes[start + 4 * k..start + 4 * k + 4];
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }));
            if !p.is_finite() {
                let message = format!(
                    "facet {facet} (byte offset {at}): corner {} is not finite ({}, {}, {})",
                    corner + 1,
                    p.x,
                    p.y,
                    p.z
                );
                return Err(StlError::Binary { path: path.to_path_buf(), message });
            }
            corners.push(p);
        }
    }
    Ok(Facets { corners, origin: (0..count).collect(), binary: true, warnings: Vec::new() })
}

/// Where the ASCII parser is.
#[derive(Clone, Copy, PartialEq)]
enum State {
    /// Before `solid` (or after `endsolid`).
    Outside,
    /// In a solid, between facets.
    Solid,
    /// After `facet normal …`, before `outer loop`.
    Facet { line: usize },
    /// In `outer loop`, reading `vertex` lines (`line`: the facet's).
    Loop { line: usize },
    /// After `endloop`, before `endfacet` (`line`: the facet's).
    Closed { line: usize },
}

impl Facets {
    fn from_ascii(bytes: &[u8], path: &Path) -> Result<Facets, StlError> {
        let error = |line: usize, message: String| StlError::Syntax { path: path.to_path_buf(), line, message };
        let mut out = Facets { corners: Vec::new(), origin: Vec::new(), binary: false, warnings: Vec::new() };
        let mut state = State::Outside;
        let mut polygon: Vec<DVec3> = Vec::new();
        let mut polygons_warned = false;
        let mut last = 0;
        for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = index + 1;
            if raw.contains(&0) {
                return Err(error(line, "binary data (a NUL byte) in an ASCII STL".into()));
            }
            let text = std::str::from_utf8(raw).map_err(|_| error(line, "not UTF-8 text".into()))?;
            let mut tokens = text.split_ascii_whitespace();
            let Some(keyword) = tokens.next() else { continue };
            last = line;
            let is = |k: &str| keyword.eq_ignore_ascii_case(k);
            // What each state accepts; anything else names what was expected.
            state = match state {
                State::Outside if is("solid") => State::Solid,
                State::Outside => return Err(error(line, format!("expected `solid`, found `{keyword}`"))),
                State::Solid if is("facet") => State::Facet { line },
                State::Solid if is("endsolid") => State::Outside,
                State::Solid => return Err(error(line, format!("expected `facet` or `endsolid`, found `{keyword}`"))),
                State::Facet { line: begun }
                    if is("outer") && tokens.next().is_some_and(|t| t.eq_ignore_ascii_case("loop")) =>
                {
                    polygon.clear();
                    State::Loop { line: begun }
                }
                State::Facet { .. } => {
                    return Err(error(line, format!("expected `outer loop`, found `{}`", text.trim())));
                }
                State::Loop { .. } if is("vertex") => {
                    polygon.push(vertex(tokens, line, path)?);
                    state
                }
                State::Loop { line: opened } if is("endloop") => {
                    if polygon.len() < 3 {
                        let found = polygon.len();
                        return Err(error(
                            line,
                            format!("a facet needs 3 vertices, found {found} (facet begun on line {opened})"),
                        ));
                    }
                    if polygon.len() == 3 {
                        out.corners.extend_from_slice(&polygon);
                        out.origin.push(opened);
                    } else {
                        // Not STL, but some exporters write polygons: cut them as OBJ faces are.
                        if !polygons_warned {
                            polygons_warned = true;
                            out.warnings.push(format!(
                                "{}:{opened}: a facet with {} vertices is split into triangles (later ones not reported)",
                                path.display(),
                                polygon.len()
                            ));
                        }
                        let triangles = triangulate(&polygon).unwrap_or_else(|| crate::triangulate::fan(polygon.len()));
                        for [a, b, c] in triangles {
                            out.corners.extend([polygon[a], polygon[b], polygon[c]]);
                            out.origin.push(opened);
                        }
                    }
                    State::Closed { line: opened }
                }
                State::Loop { .. } => {
                    return Err(error(line, format!("expected `vertex` or `endloop`, found `{keyword}`")));
                }
                State::Closed { .. } if is("endfacet") => State::Solid,
                State::Closed { .. } => return Err(error(line, format!("expected `endfacet`, found `{keyword}`"))),
            };
        }
        match state {
            State::Outside => {}
            State::Solid => out
                .warnings
                .push(format!("{}:{last}: the file ends without `endsolid` (it may be truncated)", path.display())),
            State::Facet { line } | State::Loop { line } | State::Closed { line } => {
                return Err(error(
                    last.max(1),
                    format!("the file ends inside the facet begun on line {line} (truncated?)"),
                ));
            }
        }
        Ok(out)
    }

    fn into_mesh(self, path: &Path) -> Result<StlMesh, StlError> {
        if self.corners.is_empty() {
            return Err(StlError::NoFacets { path: path.to_path_buf() });
        }
        let mut welder = Welder::default();
        let triangles: Vec<[u32; 3]> = self
            .corners
            .chunks_exact(3)
            .map(|t| [welder.index(t[0]), welder.index(t[1]), welder.index(t[2])])
            .collect();
        let mesh = Mesh::new(welder.vertices, triangles)
            .map_err(|source| StlError::Mesh { path: path.to_path_buf(), source })?;
        let mut warnings = self.warnings;
        let name = stem(path);
        let file = path.display();
        let (origin, binary) = (&self.origin, self.binary);
        quality_warnings(
            &mesh,
            &format!("{file}: part {name:?}"),
            |first, count| {
                let at = origin[first];
                if binary {
                    let offset = HEADER + FACET * at;
                    format!(
                        "{file}: facet {at} (byte offset {offset}): {count} zero-area triangles are ignored (the first is this facet)"
                    )
                } else {
                    format!(
                        "{file}:{at}: {count} zero-area triangles are ignored (the first is the facet on this line)"
                    )
                }
            },
            &mut warnings,
        );
        Ok(StlMesh { mesh, warnings })
    }
}

/// The coordinates of a `vertex` line.
fn vertex<'t>(tokens: impl Iterator<Item = &'t str>, line: usize, path: &Path) -> Result<DVec3, StlError> {
    let error = |message: String| StlError::Syntax { path: path.to_path_buf(), line, message };
    let mut xyz = [0.0; 3];
    let mut n = 0;
    for tok in tokens {
        if n == 3 {
            return Err(error(format!("a vertex has 3 coordinates, found more (`{tok}`)")));
        }
        let v: f64 = tok.parse().map_err(|_| error(format!("vertex coordinate {tok:?} is not a number")))?;
        if !v.is_finite() {
            return Err(error(format!("vertex coordinate {tok:?} is not a finite number")));
        }
        if v.abs() > mockup_ccd::mesh::MAX_COORDINATE {
            return Err(error(format!("vertex coordinate {tok:?} is too large (the limit is ±1e50)")));
        }
        xyz[n] = v;
        n += 1;
    }
    if n < 3 {
        return Err(error(format!("a vertex needs 3 coordinates, found {n}")));
    }
    Ok(DVec3::from_array(xyz))
}

/// Binary STL of triangles (the normal written as the unit normal of the winding, the
/// attribute bytes zero), for tests and tools.
pub fn write_binary(triangles: &[[DVec3; 3]], header: &str) -> Vec<u8> {
    let mut out = vec![b' '; 80];
    let h = header.as_bytes();
    out[..h.len().min(80)].copy_from_slice(&h[..h.len().min(80)]);
    out.extend((triangles.len() as u32).to_le_bytes());
    for t in triangles {
        let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        for p in std::iter::once(n).chain(t.iter().copied()) {
            for c in p.to_array() {
                out.extend((c as f32).to_le_bytes());
            }
        }
        out.extend([0, 0]);
    }
    out
}

/// ASCII STL of triangles, coordinates written exactly (Rust's shortest round-trip form).
pub fn write_ascii(triangles: &[[DVec3; 3]], name: &str) -> String {
    use std::fmt::Write;
    let mut s = format!("solid {name}\n");
    for t in triangles {
        let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        let _ = writeln!(s, "  facet normal {:?} {:?} {:?}\n    outer loop", n.x, n.y, n.z);
        for p in t {
            let _ = writeln!(s, "      vertex {:?} {:?} {:?}", p.x, p.y, p.z);
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    let _ = writeln!(s, "endsolid {name}");
    s
}
