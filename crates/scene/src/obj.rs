//! OBJ import: each `o`/`g` object becomes a part (an "OBJ assembly"), polygons are
//! triangulated (fans, or ears when concave: `triangulate`), MTL diffuse colours are kept.
//!
//! The geometry parser is our own so that every error names its line and long imports
//! report progress (tobj reports neither); material libraries are read with tobj.

use crate::source::{FileSystem, Source};
use crate::triangulate::{fan, triangulate};
use glam::DVec3;
use mockup_ccd::{Mesh, MeshError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ObjError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}: {message}", path.display())]
    Syntax { path: PathBuf, line: usize, message: String },
    #[error("{}: no faces at all", path.display())]
    NoFaces { path: PathBuf },
    #[error("{}:{line}: part {part:?}: {source}", path.display())]
    Mesh { path: PathBuf, part: String, line: usize, source: MeshError },
}

/// How a file becomes parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Each `o`/`g` object its own part (true), or the whole file one part.
    pub split_objects: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { split_objects: true }
    }
}

/// One part of an OBJ file.
#[derive(Clone, Debug)]
pub struct ObjPart {
    /// The `o`/`g` name (the file's stem when the file is one part).
    pub name: String,
    pub mesh: Mesh,
    /// Diffuse colour of the material of its first face.
    pub color: Option<[f32; 3]>,
    /// Line of its first face.
    pub line: usize,
}

/// The parts of a file, and what was wrong but not fatal.
#[derive(Clone, Debug)]
pub struct ObjAssembly {
    pub parts: Vec<ObjPart>,
    pub warnings: Vec<String>,
}

impl ObjAssembly {
    pub fn part(&self, name: &str) -> Option<&ObjPart> {
        self.parts.iter().find(|p| p.name == name)
    }
}

/// Reads an OBJ file from disk.
pub fn load(path: &Path, options: &ImportOptions, progress: &mut dyn FnMut(f32)) -> Result<ObjAssembly, ObjError> {
    let bytes = std::fs::read(path).map_err(|source| ObjError::Io { path: path.to_path_buf(), source })?;
    parse(&bytes, path, &FileSystem, options, progress)
}

/// Every object and group of the file as one mesh (the CLI's `toi`).
pub fn load_merged(path: &Path) -> Result<(Mesh, Vec<String>), ObjError> {
    let mut a = load(path, &ImportOptions { split_objects: false }, &mut |_| {})?;
    let part = a.parts.remove(0);
    Ok((part.mesh, a.warnings))
}

struct PartBuilder {
    name: String,
    /// Global position indices, three per triangle.
    corners: Vec<u32>,
    /// The line of each triangle's face, to point at bad ones.
    face_lines: Vec<usize>,
    color: Option<[f32; 3]>,
    line: usize,
}

struct Parser<'a> {
    path: &'a Path,
    source: &'a dyn Source,
    split: bool,
    positions: Vec<DVec3>,
    parts: Vec<PartBuilder>,
    by_name: HashMap<String, usize>,
    current: Option<usize>,
    current_name: String,
    materials: HashMap<String, [f32; 3]>,
    material: Option<[f32; 3]>,
    warnings: Vec<String>,
    /// Keywords warned about once.
    ignored: Vec<String>,
    polygon: Vec<u32>,
    crossed_polygon_warned: bool,
}

/// Parses OBJ text; `path` names it in messages and locates material libraries in `source`.
pub fn parse(
    bytes: &[u8],
    path: &Path,
    source: &dyn Source,
    options: &ImportOptions,
    progress: &mut dyn FnMut(f32),
) -> Result<ObjAssembly, ObjError> {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "part".into());
    let mut p = Parser {
        path,
        source,
        split: options.split_objects,
        positions: Vec::new(),
        parts: Vec::new(),
        by_name: HashMap::new(),
        current: None,
        current_name: stem,
        materials: HashMap::new(),
        material: None,
        warnings: Vec::new(),
        ignored: Vec::new(),
        polygon: Vec::new(),
        crossed_polygon_warned: false,
    };
    let total = bytes.len().max(1);
    let mut next_report = 0;
    let mut offset = 0;
    // A line ending in a backslash continues on the next (the OBJ format allows it); the
    // joined line is reported by the number of its first.
    let mut joined: Vec<u8> = Vec::new();
    let mut joined_from = 0;
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = index + 1;
        if offset >= next_report {
            progress(offset as f32 / total as f32);
            next_report = offset + (1 << 20);
        }
        offset += raw.len() + 1;
        if let Some(head) = raw.trim_ascii_end().strip_suffix(b"\\") {
            if joined.is_empty() {
                joined_from = line;
            }
            joined.extend_from_slice(head);
            joined.push(b' ');
        } else if joined.is_empty() {
            p.line(raw, line)?;
        } else {
            joined.extend_from_slice(raw);
            p.line(&joined, joined_from)?;
            joined.clear();
        }
    }
    if !joined.is_empty() {
        p.line(&joined, joined_from)?;
    }
    progress(1.0);
    p.finish()
}

impl Parser<'_> {
    fn error(&self, line: usize, message: impl Into<String>) -> ObjError {
        ObjError::Syntax { path: self.path.to_path_buf(), line, message: message.into() }
    }

    fn line(&mut self, raw: &[u8], line: usize) -> Result<(), ObjError> {
        if raw.contains(&0) {
            return Err(self.error(line, "binary data (a NUL byte): not an OBJ text file"));
        }
        let text = std::str::from_utf8(raw).map_err(|_| self.error(line, "not UTF-8 text: not an OBJ text file"))?;
        let text = text.split('#').next().unwrap_or("");
        let mut tokens = text.split_ascii_whitespace();
        let Some(keyword) = tokens.next() else { return Ok(()) };
        match keyword {
            "v" => self.vertex(tokens, line),
            "f" => self.face(tokens, line),
            "o" | "g" => {
                let name = tokens.collect::<Vec<_>>().join(" ");
                if self.split {
                    self.current_name = if name.is_empty() { format!("{keyword}@{line}") } else { name };
                    self.current = None;
                }
                Ok(())
            }
            "usemtl" => {
                let name = tokens.collect::<Vec<_>>().join(" ");
                self.material = self.materials.get(&name).copied();
                if self.material.is_none() {
                    self.warnings.push(format!("{}:{line}: material {name:?} is not defined", self.path.display()));
                }
                Ok(())
            }
            "mtllib" => {
                for file in tokens {
                    self.material_library(file, line);
                }
                Ok(())
            }
            "vt" | "vn" | "vp" | "s" => Ok(()),
            other => {
                if !self.ignored.iter().any(|k| k == other) {
                    self.ignored.push(other.to_string());
                    self.warnings.push(format!(
                        "{}:{line}: {other:?} statements are ignored (only faces make parts)",
                        self.path.display()
                    ));
                }
                Ok(())
            }
        }
    }

    fn vertex<'t>(&mut self, tokens: impl Iterator<Item = &'t str>, line: usize) -> Result<(), ObjError> {
        let mut xyz = [0.0; 3];
        let mut n = 0;
        for tok in tokens.take(3) {
            let v: f64 =
                tok.parse().map_err(|_| self.error(line, format!("vertex coordinate {tok:?} is not a number")))?;
            if !v.is_finite() {
                return Err(self.error(line, format!("vertex coordinate {tok:?} is not a finite number")));
            }
            if v.abs() > mockup_ccd::mesh::MAX_COORDINATE {
                return Err(self.error(line, format!("vertex coordinate {tok:?} is too large (the limit is ±1e50)")));
            }
            xyz[n] = v;
            n += 1;
        }
        if n < 3 {
            return Err(self.error(line, format!("a vertex needs 3 coordinates, found {n}")));
        }
        self.positions.push(DVec3::from_array(xyz));
        Ok(())
    }

    fn face<'t>(&mut self, tokens: impl Iterator<Item = &'t str>, line: usize) -> Result<(), ObjError> {
        let mut polygon = std::mem::take(&mut self.polygon);
        polygon.clear();
        let count = self.positions.len();
        for tok in tokens {
            // v, v/vt, v//vn or v/vt/vn: the position index comes first.
            if tok.matches('/').count() > 2 {
                return Err(self.error(line, format!("{tok:?} is not a vertex reference")));
            }
            let index = tok.split('/').next().unwrap_or("");
            let i: i64 = index.parse().map_err(|e: std::num::ParseIntError| {
                use std::num::IntErrorKind::*;
                match e.kind() {
                    PosOverflow | NegOverflow => {
                        self.error(line, format!("vertex index {index} is out of range: {count} vertices so far"))
                    }
                    _ => self.error(line, format!("{tok:?} is not a vertex reference")),
                }
            })?;
            let resolved = match i {
                0 => return Err(self.error(line, "vertex index 0: OBJ indices start at 1")),
                i if i > 0 => i - 1,
                i => count as i64 + i, // relative: -1 is the last vertex so far
            };
            if resolved < 0 || resolved >= count as i64 {
                return Err(self.error(line, format!("vertex index {i} is out of range: {count} vertices so far")));
            }
            if resolved > u32::MAX as i64 {
                return Err(self.error(line, "more than 2³² vertices"));
            }
            polygon.push(resolved as u32);
        }
        if polygon.len() < 3 {
            return Err(self.error(line, format!("a face needs at least 3 vertices, found {}", polygon.len())));
        }
        let part = self.current_part(line);
        let part = &mut self.parts[part];
        if part.color.is_none() {
            part.color = self.material;
        }
        // Triangles, the bulk of real files, skip the polygon work.
        let triangles = if polygon.len() == 3 {
            fan(3)
        } else {
            let points: Vec<DVec3> = polygon.iter().map(|&i| self.positions[i as usize]).collect();
            triangulate(&points).unwrap_or_else(|| {
                if !self.crossed_polygon_warned {
                    self.crossed_polygon_warned = true;
                    self.warnings.push(format!(
                        "{}:{line}: face crosses itself; split as a fan (later such faces not reported)",
                        self.path.display()
                    ));
                }
                fan(polygon.len())
            })
        };
        for [a, b, c] in triangles {
            part.corners.extend([polygon[a], polygon[b], polygon[c]]);
            part.face_lines.push(line);
        }
        self.polygon = polygon;
        Ok(())
    }

    fn current_part(&mut self, line: usize) -> usize {
        if let Some(c) = self.current {
            return c;
        }
        let name = self.current_name.clone();
        let index = *self.by_name.entry(name.clone()).or_insert_with(|| {
            self.parts.push(PartBuilder { name, corners: Vec::new(), face_lines: Vec::new(), color: None, line });
            self.parts.len() - 1
        });
        self.current = Some(index);
        index
    }

    fn material_library(&mut self, file: &str, line: usize) {
        let dir = self.path.parent().unwrap_or(Path::new(""));
        let mtl_path = dir.join(file);
        let warn = |w: &mut Vec<String>, what: String| w.push(format!("{}:{line}: {what}", self.path.display()));
        let bytes = match self.source.read(&mtl_path) {
            Err(e) => return warn(&mut self.warnings, format!("material library {file:?} not loaded: {e}")),
            Ok(bytes) => bytes,
        };
        let (text, problems) = usable_mtl_lines(&bytes);
        for (mtl_line, problem) in problems {
            self.warnings.push(format!("{}:{mtl_line}: {problem} (line ignored)", mtl_path.display()));
        }
        // tobj unwraps in places; whatever slipped past the filter must not take the app down.
        let parsed = std::panic::catch_unwind(|| tobj::load_mtl_buf(&mut std::io::BufReader::new(text.as_bytes())));
        match parsed {
            Err(_) => warn(&mut self.warnings, format!("material library {file:?} could not be read")),
            Ok(Err(e)) => warn(&mut self.warnings, format!("material library {file:?} is malformed: {e}")),
            Ok(Ok((materials, _))) => {
                for m in materials {
                    if let Some(texture) = &m.diffuse_texture
                        && self.source.read(&mtl_path.parent().unwrap_or(dir).join(texture)).is_err()
                    {
                        warn(&mut self.warnings, format!("texture {texture:?} of material {:?} not found", m.name));
                    }
                    if let Some(rgb) = m.diffuse {
                        // Colours are clamped to [0, 1], as renderers read them.
                        let c = rgb.map(|x| x.clamp(0.0, 1.0) as f32);
                        self.materials.insert(m.name.clone(), c);
                    }
                }
            }
        }
    }

    fn finish(mut self) -> Result<ObjAssembly, ObjError> {
        let mut parts = Vec::new();
        let mut referenced = vec![false; self.positions.len()];
        for b in &self.parts {
            for &c in &b.corners {
                referenced[c as usize] = true;
            }
        }
        let unreferenced = referenced.iter().filter(|r| !**r).count();
        if unreferenced > 0 {
            self.warnings.push(format!("{}: {unreferenced} unreferenced vertices dropped", self.path.display()));
        }
        for b in std::mem::take(&mut self.parts) {
            if b.corners.is_empty() {
                continue;
            }
            let (vertices, triangles) = compact(&self.positions, &b.corners);
            let mesh = Mesh::new(vertices, triangles).map_err(|source| ObjError::Mesh {
                path: self.path.to_path_buf(),
                part: b.name.clone(),
                line: b.line,
                source,
            })?;
            let stats = mesh.stats();
            let at = format!("{}:{}: part {:?}", self.path.display(), b.line, b.name);
            if stats.degenerate_triangles > 0 {
                let first = (0..mesh.triangles().len()).find(|&t| mesh.is_degenerate(t as u32)).unwrap_or(0);
                self.warnings.push(format!(
                    "{}:{}: part {:?}: {} zero-area triangles are ignored (the first is on this line)",
                    self.path.display(),
                    b.face_lines.get(first).copied().unwrap_or(b.line),
                    b.name,
                    stats.degenerate_triangles
                ));
            }
            if stats.boundary_edges > 0 {
                self.warnings.push(format!("{at} is open ({} boundary edges)", stats.boundary_edges));
            }
            if stats.non_manifold_edges > 0 {
                self.warnings.push(format!("{at} has {} non-manifold edges", stats.non_manifold_edges));
            }
            parts.push(ObjPart { name: b.name, mesh, color: b.color, line: b.line });
        }
        if parts.is_empty() {
            return Err(ObjError::NoFaces { path: self.path.to_path_buf() });
        }
        Ok(ObjAssembly { parts, warnings: self.warnings })
    }
}

/// The part's own vertices, in order of first use, with bit-identical positions welded
/// (exporters often repeat a vertex per face; welded, a closed part is a solid).
fn compact(positions: &[DVec3], corners: &[u32]) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut by_bits: HashMap<[u64; 3], u32> = HashMap::new();
    let mut by_index: HashMap<u32, u32> = HashMap::new();
    let mut vertices = Vec::new();
    let mut local = Vec::with_capacity(corners.len());
    for &c in corners {
        let v = *by_index.entry(c).or_insert_with(|| {
            let p = positions[c as usize];
            *by_bits.entry(p.to_array().map(f64::to_bits)).or_insert_with(|| {
                vertices.push(p);
                vertices.len() as u32 - 1
            })
        });
        local.push(v);
    }
    let triangles = local.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    (vertices, triangles)
}

/// The lines of an MTL file tobj can take, and the problems of the others (line number,
/// what is wrong). tobj panics on a colour with fewer than three numbers.
fn usable_mtl_lines(bytes: &[u8]) -> (String, Vec<(usize, String)>) {
    let text = String::from_utf8_lossy(bytes);
    let mut kept = String::with_capacity(text.len());
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if let Some(key @ ("Ka" | "Kd" | "Ks" | "Ke")) = words.next() {
            let numbers: Vec<Option<f64>> = words.take(3).map(|w| w.parse::<f64>().ok()).collect();
            if numbers.len() < 3 || numbers.iter().any(|x| !x.is_some_and(f64::is_finite)) {
                problems.push((i + 1, format!("{key} needs three finite numbers")));
                continue;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    (kept, problems)
}

/// A number as the OBJ writer prints it: at most six decimals, no trailing zeros, no `-0`.
pub fn format_number(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// A part to write.
pub struct WritePart<'a> {
    pub name: &'a str,
    pub mesh: &'a Mesh,
    /// Written as material `<name>_material` in `material_library`.
    pub color: Option<[f32; 3]>,
}

/// OBJ text for the parts (`o` per part, global indices), and MTL text for their colours;
/// deterministic, so generated assets are byte-identical run to run.
pub fn write(parts: &[WritePart], material_library: &str) -> (String, String) {
    use std::fmt::Write;
    let mut obj = String::from("# Written by Mockup\n");
    let mut mtl = String::from("# Written by Mockup\n");
    if parts.iter().any(|p| p.color.is_some()) {
        let _ = writeln!(obj, "mtllib {material_library}");
    }
    let mut base = 1;
    for p in parts {
        let _ = writeln!(obj, "o {}", p.name);
        if let Some([r, g, b]) = p.color {
            let material = format!("{}_material", p.name.replace(' ', "_"));
            let _ = writeln!(obj, "usemtl {material}");
            let _ = writeln!(
                mtl,
                "newmtl {material}\nKd {} {} {}\n",
                format_number(r as f64),
                format_number(g as f64),
                format_number(b as f64)
            );
        }
        // Only the vertices triangles use, numbered in order of first use (as `parse` does).
        let mut number = vec![0usize; p.mesh.vertices().len()];
        let mut used = Vec::new();
        for t in p.mesh.triangles() {
            for &v in t {
                if number[v as usize] == 0 {
                    used.push(v);
                    number[v as usize] = base + used.len() - 1;
                }
            }
        }
        for &v in &used {
            let v = p.mesh.vertex(v);
            let _ = writeln!(obj, "v {} {} {}", format_number(v.x), format_number(v.y), format_number(v.z));
        }
        for t in p.mesh.triangles() {
            let _ = writeln!(obj, "f {} {} {}", number[t[0] as usize], number[t[1] as usize], number[t[2] as usize]);
        }
        base += used.len();
    }
    (obj, mtl)
}
