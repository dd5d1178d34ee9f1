//! OBJ import: each `o`/`g` object becomes a part (an "OBJ assembly"), polygons are
//! triangulated (fans, or ears when concave: `triangulate`), MTL diffuse colours are kept.
//! What cannot make a surface (faces of fewer than three vertices, `l` and `p` elements,
//! free-form curves and surfaces, unknown statements) is skipped with one warning per kind.
//!
//! The geometry parser is our own so that every error names its line and long imports
//! report progress (tobj reports neither); material libraries are read with tobj.

pub use crate::mesh_file::ImportOptions;
use crate::mesh_file::{Welder, map_on_all_cores, quality_warnings};
use crate::source::{FileSystem, Source};
use crate::triangulate::{fan, triangulate};
use glam::DVec3;
use mockup_ccd::{Mesh, MeshError};
use std::borrow::Cow;
use std::collections::HashMap;
use std::num::IntErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ObjError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}: {message}", path.display())]
    Syntax { path: PathBuf, line: usize, message: String },
    /// No face that makes a surface; `skipped` lists what was skipped instead, if anything.
    #[error("{}: {}", path.display(), if skipped.is_empty() { "no faces at all".into() } else { format!("no faces that make a surface; {}", skipped.join("; ")) })]
    NoFaces { path: PathBuf, skipped: Vec<String> },
    #[error("{}:{line}: part {part:?}: {source}", path.display())]
    Mesh { path: PathBuf, part: String, line: usize, source: MeshError },
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

/// The whole file as one mesh, in any format Mockup reads (by extension): kept for the CLI's
/// `toi`, which calls it by this name; the same as [`crate::mesh_file::load_merged`].
pub fn load_merged(path: &Path) -> Result<(Mesh, Vec<String>), crate::mesh_file::ImportError> {
    crate::mesh_file::load_merged(path)
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

/// The kind under which faces of fewer than three vertices are counted.
const SHORT_FACE: &str = "f<3";

/// Statements of one kind that were skipped.
struct Skipped {
    /// The keyword, or [`SHORT_FACE`].
    kind: String,
    count: usize,
    first_line: usize,
}

impl Skipped {
    /// What they are and why they are skipped: "line elements (`l`): 3 skipped (only faces
    /// make parts)".
    fn describe(&self) -> String {
        let k = self.kind.as_str();
        let (what, why) = match k {
            SHORT_FACE => ("faces with fewer than 3 vertices".to_string(), "they have no surface"),
            "l" => ("line elements (`l`)".into(), "only faces make parts"),
            "p" => ("point elements (`p`)".into(), "only faces make parts"),
            "vp" | "cstype" | "deg" | "bmat" | "step" | "curv" | "curv2" | "surf" | "parm" | "trim" | "hole"
            | "scrv" | "sp" | "end" | "con" | "bsp" | "bzp" | "cdc" | "cdp" | "res" => {
                (format!("free-form geometry statements (`{k}`)"), "only polygonal faces make parts")
            }
            "mg" | "lod" | "bevel" | "c_interp" | "d_interp" | "usemap" | "maplib" | "shadow_obj" | "trace_obj"
            | "ctech" | "stech" => (format!("display attributes (`{k}`)"), "they do not change the geometry"),
            _ => (format!("unknown statements (`{k}`)"), "not OBJ statements Mockup knows"),
        };
        format!("{what}: {} skipped ({why})", self.count)
    }
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
    /// What was skipped, one entry per kind, in order of first appearance.
    skipped: Vec<Skipped>,
    polygon: Vec<u32>,
    crossed_polygon_warned: bool,
}

/// Parses OBJ text; `path` names it in messages and locates material libraries in `source`.
///
/// Two passes: pieces of the text are read on all cores (numbers and vertex references, the
/// bulk of the time), then their statements are replayed in order (objects, materials, faces
/// resolved against the vertices read before them), so that the parts, the warnings and the
/// first error are those of a reading from the top.
pub fn parse(
    bytes: &[u8],
    path: &Path,
    source: &dyn Source,
    options: &ImportOptions,
    progress: &mut dyn FnMut(f32),
) -> Result<ObjAssembly, ObjError> {
    parse_in_pieces(bytes, path, source, options, progress, PIECE)
}

/// [`parse`], reading pieces of about `piece` bytes in the first pass.
fn parse_in_pieces(
    bytes: &[u8],
    path: &Path,
    source: &dyn Source,
    options: &ImportOptions,
    progress: &mut dyn FnMut(f32),
    piece: usize,
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
        skipped: Vec::new(),
        polygon: Vec::new(),
        crossed_polygon_warned: false,
    };
    progress(0.0);
    let read = map_on_all_cores(pieces(bytes, piece), |r| r.len(), |_: &mut (), r| read_piece(&bytes[r]));
    let total = bytes.len().max(1);
    let (mut first_line, mut done) = (0, 0);
    for piece in read {
        p.replay(&piece, first_line)?;
        first_line += piece.lines;
        done += piece.len;
        progress(done as f32 / total as f32);
    }
    progress(1.0);
    p.finish()
}

/// About how much text one piece of the first pass reads.
const PIECE: usize = 4 << 20;

/// Byte ranges of about `size` bytes that cover the text, each ending after a line that does
/// not continue on the next (with a backslash).
fn pieces(bytes: &[u8], size: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while bytes.len() - start > size {
        let mut at = start + size;
        loop {
            let Some(n) = bytes[at..].iter().position(|&b| b == b'\n') else {
                at = bytes.len();
                break;
            };
            let end = at + n;
            let line_start = bytes[..end].iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
            at = end + 1;
            if !bytes[line_start..end].trim_ascii_end().ends_with(b"\\") {
                break;
            }
        }
        out.push(start..at);
        start = at;
    }
    if start < bytes.len() || out.is_empty() {
        out.push(start..bytes.len());
    }
    out
}

/// What the first pass reads of a piece of text.
#[derive(Default)]
struct Piece<'a> {
    positions: Vec<DVec3>,
    /// The faces' vertex references as written: 1-based, or negative (relative).
    references: Vec<i64>,
    statements: Vec<Statement<'a>>,
    /// Its lines (newlines); the next piece's lines are numbered after them.
    lines: usize,
    /// Its bytes.
    len: usize,
}

/// A statement the first pass keeps for the second, with its line in the piece (from 1).
enum Statement<'a> {
    /// A face: its references are `references[start..end]`; the piece's first `vertices`
    /// vertices come before it.
    Face { line: usize, start: usize, end: usize, vertices: usize },
    /// A reference too large for 64 bits, out of range whatever the vertex count.
    HugeReference { line: usize, index: String, vertices: usize },
    /// Any other statement (objects, materials, what is skipped), replayed as written.
    Other { line: usize, text: Cow<'a, [u8]> },
    /// The piece's first error: nothing after it is read.
    Error { line: usize, message: String },
}

fn read_piece(bytes: &[u8]) -> Piece<'_> {
    let mut piece = Piece { len: bytes.len(), ..Piece::default() };
    // A line ending in a backslash continues on the next (the OBJ format allows it); the
    // joined line is reported by the number of its first.
    let mut joined: Vec<u8> = Vec::new();
    let mut joined_from = 0;
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = index + 1;
        piece.lines = index;
        let read = if let Some(head) = raw.trim_ascii_end().strip_suffix(b"\\") {
            if joined.is_empty() {
                joined_from = line;
            }
            joined.extend_from_slice(head);
            joined.push(b' ');
            true
        } else if joined.is_empty() {
            piece.statement(Cow::Borrowed(raw), line)
        } else {
            joined.extend_from_slice(raw);
            piece.statement(Cow::Owned(std::mem::take(&mut joined)), joined_from)
        };
        if !read {
            return piece;
        }
    }
    if !joined.is_empty() {
        piece.statement(Cow::Owned(joined), joined_from);
    }
    piece
}

impl<'a> Piece<'a> {
    /// Reads one line; false at an error (recorded as the piece's last statement).
    fn statement(&mut self, text: Cow<'a, [u8]>, line: usize) -> bool {
        let error = |piece: &mut Piece, message: String| {
            piece.statements.push(Statement::Error { line, message });
            false
        };
        if text.contains(&0) {
            return error(self, "binary data (a NUL byte): not an OBJ text file".into());
        }
        // Comments first: what follows a `#` may be in any encoding.
        let body = text.iter().position(|&b| b == b'#').map_or(&text[..], |k| &text[..k]);
        let Ok(body) = std::str::from_utf8(body) else {
            return error(self, "not UTF-8 text: not an OBJ text file".into());
        };
        let mut tokens = body.split_ascii_whitespace();
        match tokens.next() {
            // Texture coordinates, normals and smoothing groups: nothing a collision needs.
            None | Some("vt" | "vn" | "s") => true,
            Some("v") => match vertex(tokens) {
                Ok(p) => {
                    self.positions.push(p);
                    true
                }
                Err(message) => error(self, message),
            },
            Some("f") => {
                let start = self.references.len();
                let vertices = self.positions.len();
                match references(tokens, &mut self.references) {
                    Ok(()) => {
                        let end = self.references.len();
                        self.statements.push(Statement::Face { line, start, end, vertices });
                        true
                    }
                    Err(Reference::Huge(index)) => {
                        self.statements.push(Statement::HugeReference { line, index, vertices });
                        false
                    }
                    Err(Reference::Bad(message)) => error(self, message),
                }
            }
            Some(_) => {
                self.statements.push(Statement::Other { line, text });
                true
            }
        }
    }
}

/// The three coordinates of a `v` line.
fn vertex<'t>(tokens: impl Iterator<Item = &'t str>) -> Result<DVec3, String> {
    let mut xyz = [0.0; 3];
    let mut n = 0;
    for tok in tokens.take(3) {
        let v: f64 = tok.parse().map_err(|_| format!("vertex coordinate {tok:?} is not a number"))?;
        if !v.is_finite() {
            return Err(format!("vertex coordinate {tok:?} is not a finite number"));
        }
        if v.abs() > mockup_ccd::mesh::MAX_COORDINATE {
            return Err(format!("vertex coordinate {tok:?} is too large (the limit is ±1e50)"));
        }
        xyz[n] = v;
        n += 1;
    }
    if n < 3 {
        return Err(format!("a vertex needs 3 coordinates, found {n}"));
    }
    Ok(DVec3::from_array(xyz))
}

/// Why a face's vertex reference cannot be read.
enum Reference {
    /// Beyond 64 bits (out of range, said with the vertex count in the second pass).
    Huge(String),
    Bad(String),
}

/// The position indices of an `f` line's references (`v`, `v/vt`, `v//vn`, `v/vt/vn`).
fn references<'t>(tokens: impl Iterator<Item = &'t str>, out: &mut Vec<i64>) -> Result<(), Reference> {
    for tok in tokens {
        let bytes = tok.as_bytes();
        if bytes.iter().filter(|&&b| b == b'/').count() > 2 {
            return Err(Reference::Bad(format!("{tok:?} is not a vertex reference")));
        }
        let index = bytes.iter().position(|&b| b == b'/').map_or(tok, |k| &tok[..k]);
        match index.parse::<i64>() {
            Ok(0) => return Err(Reference::Bad("vertex index 0: OBJ indices start at 1".into())),
            Ok(i) => out.push(i),
            Err(e) if matches!(e.kind(), IntErrorKind::PosOverflow | IntErrorKind::NegOverflow) => {
                return Err(Reference::Huge(index.to_string()));
            }
            Err(_) => return Err(Reference::Bad(format!("{tok:?} is not a vertex reference"))),
        }
    }
    Ok(())
}

impl Parser<'_> {
    fn error(&self, line: usize, message: impl Into<String>) -> ObjError {
        ObjError::Syntax { path: self.path.to_path_buf(), line, message: message.into() }
    }

    /// The second pass over a piece whose first line follows line `first_line`.
    fn replay(&mut self, piece: &Piece, first_line: usize) -> Result<(), ObjError> {
        let base = self.positions.len();
        self.positions.extend_from_slice(&piece.positions);
        for s in &piece.statements {
            match s {
                Statement::Face { line, start, end, vertices } => {
                    self.face(&piece.references[*start..*end], first_line + line, base + vertices)?
                }
                Statement::HugeReference { line, index, vertices } => {
                    let count = base + vertices;
                    return Err(self.error(
                        first_line + line,
                        format!("vertex index {index} is out of range: {count} vertices so far"),
                    ));
                }
                Statement::Other { line, text } => self.statement(text, first_line + line),
                Statement::Error { line, message } => return Err(self.error(first_line + line, message.clone())),
            }
        }
        Ok(())
    }

    /// A statement other than `v` and `f` (already checked as text by the first pass).
    fn statement(&mut self, raw: &[u8], line: usize) {
        let raw = raw.iter().position(|&b| b == b'#').map_or(raw, |k| &raw[..k]);
        let text = String::from_utf8_lossy(raw);
        let mut tokens = text.split_ascii_whitespace();
        let Some(keyword) = tokens.next() else { return };
        match keyword {
            "o" | "g" => {
                let name = tokens.collect::<Vec<_>>().join(" ");
                if self.split {
                    self.current_name = if name.is_empty() { format!("{keyword}@{line}") } else { name };
                    self.current = None;
                }
            }
            "usemtl" => {
                let name = tokens.collect::<Vec<_>>().join(" ");
                self.material = self.materials.get(&name).copied();
                if self.material.is_none() {
                    self.warnings.push(format!("{}:{line}: material {name:?} is not defined", self.path.display()));
                }
            }
            "mtllib" => {
                for file in tokens {
                    self.material_library(file, line);
                }
            }
            other => self.skip(other, line),
        }
    }

    /// Counts a statement that makes no surface; one warning per kind at the end.
    fn skip(&mut self, kind: &str, line: usize) {
        match self.skipped.iter_mut().find(|s| s.kind == kind) {
            Some(s) => s.count += 1,
            None => self.skipped.push(Skipped { kind: kind.to_string(), count: 1, first_line: line }),
        }
    }

    /// A face whose references were read, with `count` vertices before it.
    fn face(&mut self, references: &[i64], line: usize, count: usize) -> Result<(), ObjError> {
        let mut polygon = std::mem::take(&mut self.polygon);
        polygon.clear();
        for &i in references {
            // Index 0 was refused in the first pass; −1 is the last vertex so far.
            let resolved = if i > 0 { i - 1 } else { count as i64 + i };
            if resolved < 0 || resolved >= count as i64 {
                return Err(self.error(line, format!("vertex index {i} is out of range: {count} vertices so far")));
            }
            if resolved > u32::MAX as i64 {
                return Err(self.error(line, "more than 2³² vertices"));
            }
            polygon.push(resolved as u32);
        }
        if polygon.len() < 3 {
            // No surface (exporters write edges as two-vertex faces): skipped, not fatal.
            self.polygon = polygon;
            self.skip(SHORT_FACE, line);
            return Ok(());
        }
        let part = self.current_part(line);
        let part = &mut self.parts[part];
        if part.color.is_none() {
            part.color = self.material;
        }
        // Triangles, the bulk of real files, skip the polygon work.
        if polygon.len() == 3 {
            part.corners.extend_from_slice(&polygon);
            part.face_lines.push(line);
            self.polygon = polygon;
            return Ok(());
        }
        let points: Vec<DVec3> = polygon.iter().map(|&i| self.positions[i as usize]).collect();
        let triangles = triangulate(&points).unwrap_or_else(|| {
            if !self.crossed_polygon_warned {
                self.crossed_polygon_warned = true;
                self.warnings.push(format!(
                    "{}:{line}: face crosses itself; split as a fan (later such faces not reported)",
                    self.path.display()
                ));
            }
            fan(polygon.len())
        });
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
        let file = self.path.display().to_string();
        for k in &self.skipped {
            self.warnings.push(format!("{file}:{}: {}; the first is on this line", k.first_line, k.describe()));
        }
        let mut parts = Vec::new();
        let mut referenced = vec![false; self.positions.len()];
        for b in &self.parts {
            for &c in &b.corners {
                referenced[c as usize] = true;
            }
        }
        let unreferenced = referenced.iter().filter(|r| !**r).count();
        if unreferenced > 0 {
            self.warnings.push(format!("{file}: {unreferenced} unreferenced vertices dropped"));
        }
        // Each part's vertices and adjacency, on all cores (the bulk of a large file's time
        // after the text).
        let builders: Vec<PartBuilder> =
            std::mem::take(&mut self.parts).into_iter().filter(|b| !b.corners.is_empty()).collect();
        let positions = &self.positions;
        let path = self.path;
        let built = map_on_all_cores(
            builders,
            |b| b.corners.len(),
            |slots: &mut Vec<u32>, b| {
                let (vertices, triangles) = compact(positions, &b.corners, slots);
                let mesh = Mesh::new(vertices, triangles).map_err(|source| ObjError::Mesh {
                    path: path.to_path_buf(),
                    part: b.name.clone(),
                    line: b.line,
                    source,
                })?;
                let mut warnings = Vec::new();
                let at = format!("{file}:{}: part {:?}", b.line, b.name);
                quality_warnings(
                    &mesh,
                    &at,
                    |first, count| {
                        let line = b.face_lines.get(first).copied().unwrap_or(b.line);
                        format!(
                            "{file}:{line}: part {:?}: {count} zero-area triangles are ignored (the first is on this line)",
                            b.name
                        )
                    },
                    &mut warnings,
                );
                Ok((ObjPart { name: b.name, mesh, color: b.color, line: b.line }, warnings))
            },
        );
        for result in built {
            let (part, warnings) = result?;
            self.warnings.extend(warnings);
            parts.push(part);
        }
        if parts.is_empty() {
            let skipped = self.skipped.iter().map(Skipped::describe).collect();
            return Err(ObjError::NoFaces { path: self.path.to_path_buf(), skipped });
        }
        Ok(ObjAssembly { parts, warnings: self.warnings })
    }
}

/// The part's own vertices, in order of first use, with positions at exactly equal
/// coordinates welded (exporters often repeat a vertex per face; welded, a closed part is a
/// solid). `slots` maps file vertices to the part's (`u32::MAX`: not yet seen); it is left
/// as it was found, for the next part.
fn compact(positions: &[DVec3], corners: &[u32], slots: &mut Vec<u32>) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    slots.resize(positions.len(), u32::MAX);
    let mut welder = Welder::default();
    let mut local = Vec::with_capacity(corners.len());
    for &c in corners {
        let slot = &mut slots[c as usize];
        if *slot == u32::MAX {
            *slot = welder.index(positions[c as usize]);
        }
        local.push(*slot);
    }
    for &c in corners {
        slots[c as usize] = u32::MAX;
    }
    let triangles = local.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    (welder.vertices, triangles)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Embedded;
    use proptest::prelude::*;

    /// Everything a parse gives, as text to compare.
    fn outcome(r: Result<ObjAssembly, ObjError>) -> String {
        match r {
            Err(e) => format!("error: {e}"),
            Ok(a) => {
                let mut s = format!("{:?}\n", a.warnings);
                for p in a.parts {
                    let points: Vec<_> =
                        (0..p.mesh.triangles().len() as u32).map(|t| p.mesh.triangle_points(t)).collect();
                    s += &format!("{} {} {:?} {:?}\n", p.name, p.line, p.color, points);
                }
                s
            }
        }
    }

    fn parse_with(text: &str, piece: usize) -> String {
        let options = ImportOptions::default();
        outcome(parse_in_pieces(
            text.as_bytes(),
            Path::new("p.obj"),
            &Embedded::default(),
            &options,
            &mut |_| {},
            piece,
        ))
    }

    #[test]
    fn pieces_end_after_lines_that_do_not_continue() {
        let text = b"v 0 0 0\nf 1 \\\n 2 3\nv 1 1 1\n";
        let ranges = pieces(text, 3);
        assert_eq!(ranges, [0..8, 8..19, 19..27]);
        assert_eq!(pieces(b"", 3), vec![Range { start: 0, end: 0 }]);
        assert_eq!(pieces(b"v 0 0 0", 3), vec![Range { start: 0, end: 7 }]);
    }

    proptest! {
        /// Read in pieces of any size, a file gives what it gives read whole: the same parts,
        /// warnings, and first error (line numbers, relative indices and joined lines across
        /// the pieces' ends).
        #[test]
        fn pieces_of_any_size_read_as_the_whole(
            lines in prop::collection::vec(prop_oneof![
                6 => prop::array::uniform3(-2i32..3).prop_map(|[x, y, z]| format!("v {x} {y} {z}")),
                6 => prop::collection::vec(prop_oneof![1i64..12, -6i64..0], 2..6)
                    .prop_map(|ix| format!("f {}", ix.iter().map(i64::to_string).collect::<Vec<_>>().join(" "))),
                1 => prop::sample::select(vec![
                    "o a", "o b", "g a", "usemtl m", "l 1 2", "p 1", "curv 0 1 1 2", "# comment", "",
                    "f 1 2 \\", "v 1 2 \\", "f 0 1 2", "v 1 x 2", "f 99999999999999999999 1 2", "s 1", "vt 0 0",
                ]).prop_map(str::to_string),
            ], 0..60),
            piece in 1usize..80,
        ) {
            let text = lines.join("\n");
            prop_assert_eq!(parse_with(&text, piece), parse_with(&text, usize::MAX));
        }
    }
}
