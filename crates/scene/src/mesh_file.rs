//! Mesh files of every format Mockup reads, behind one entry point: which parser a path takes
//! (by its extension, case-insensitive: `.obj`, `.stl`, `.gltf`, `.glb`) and the parts they
//! all return.

use crate::gltf::GltfError;
use crate::obj::ObjError;
use crate::source::{FileSystem, Source};
use crate::stl::StlError;
use glam::DVec3;
use mockup_ccd::{Mesh, Pose};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use thiserror::Error;

/// The extensions Mockup reads, for messages.
pub const EXTENSIONS: &str = ".obj, .stl, .gltf or .glb";

/// A mesh file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Obj,
    Stl,
    /// glTF 2.0, as JSON (`.gltf`) or binary (`.glb`); the content tells which.
    Gltf,
}

impl Format {
    /// The format a path's extension names, if Mockup reads it.
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(Format::Obj),
            "stl" => Some(Format::Stl),
            "gltf" | "glb" => Some(Format::Gltf),
            _ => None,
        }
    }
}

/// How a file becomes parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportOptions {
    /// Each object its own part (true): OBJ `o`/`g` objects, glTF mesh instances. Otherwise
    /// the whole file is one part. An STL file is always one part.
    pub split_objects: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { split_objects: true }
    }
}

/// One part of a mesh file.
#[derive(Clone, Debug)]
pub struct Part {
    /// The object's name (OBJ `o`/`g`, glTF node), or the file's stem for a whole file.
    pub name: String,
    pub mesh: Mesh,
    /// The file's colour for it (OBJ: the MTL diffuse of its first face; glTF: the base
    /// colour of its first primitive's material).
    pub color: Option<[f32; 3]>,
    /// Where the file places it: a glTF node's world rotation and translation (its scale is
    /// in the mesh); the identity for OBJ and STL, whose coordinates are already placed.
    pub pose: Pose,
}

/// The parts of a file, and what was wrong but not fatal.
#[derive(Clone, Debug)]
pub struct Assembly {
    pub parts: Vec<Part>,
    pub warnings: Vec<String>,
}

impl Assembly {
    pub fn part(&self, name: &str) -> Option<&Part> {
        self.parts.iter().find(|p| p.name == name)
    }
}

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a mesh file Mockup reads (expected {EXTENSIONS})", path.display())]
    UnknownFormat { path: PathBuf },
    #[error(transparent)]
    Obj(#[from] ObjError),
    #[error(transparent)]
    Stl(#[from] StlError),
    #[error(transparent)]
    Gltf(#[from] GltfError),
}

/// Parses a mesh file of the format its extension names; `path` names it in messages and
/// locates the files it refers to (material libraries, glTF buffers) in `source`.
pub fn parse(
    bytes: &[u8],
    path: &Path,
    source: &dyn Source,
    options: &ImportOptions,
    progress: &mut dyn FnMut(f32),
) -> Result<Assembly, ImportError> {
    let format = Format::of(path).ok_or_else(|| ImportError::UnknownFormat { path: path.to_path_buf() })?;
    parse_as(format, bytes, path, source, options, progress)
}

/// Parses a mesh file as `format`.
pub fn parse_as(
    format: Format,
    bytes: &[u8],
    path: &Path,
    source: &dyn Source,
    options: &ImportOptions,
    progress: &mut dyn FnMut(f32),
) -> Result<Assembly, ImportError> {
    let assembly = match format {
        Format::Obj => {
            let a = crate::obj::parse(bytes, path, source, options, progress)?;
            let parts = a
                .parts
                .into_iter()
                .map(|p| Part { name: p.name, mesh: p.mesh, color: p.color, pose: Pose::IDENTITY })
                .collect();
            Assembly { parts, warnings: a.warnings }
        }
        Format::Stl => {
            progress(0.0);
            let s = crate::stl::parse(bytes, path)?;
            progress(1.0);
            let part = Part { name: stem(path), mesh: s.mesh, color: None, pose: Pose::IDENTITY };
            Assembly { parts: vec![part], warnings: s.warnings }
        }
        Format::Gltf => {
            progress(0.0);
            let a = crate::gltf::parse(bytes, path, source, options)?;
            progress(1.0);
            a
        }
    };
    Ok(assembly)
}

/// Reads a mesh file from disk.
pub fn load(path: &Path, options: &ImportOptions, progress: &mut dyn FnMut(f32)) -> Result<Assembly, ImportError> {
    // The format first: a file Mockup cannot read is not worth reading.
    let format = Format::of(path).ok_or_else(|| ImportError::UnknownFormat { path: path.to_path_buf() })?;
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })?;
    parse_as(format, &bytes, path, &FileSystem, options, progress)
}

/// The whole file as one mesh (the CLI's `toi`): every object, at its place in the file.
pub fn load_merged(path: &Path) -> Result<(Mesh, Vec<String>), ImportError> {
    let mut a = load(path, &ImportOptions { split_objects: false }, &mut |_| {})?;
    let part = a.parts.remove(0);
    Ok((part.mesh, a.warnings))
}

/// The file's name without its extension: the name of a part that is the whole file.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "part".into())
}

/// Merges corners at exactly equal positions (−0.0 and 0.0 alike) into one vertex, numbered
/// in order of first use: STL and glTF repeat a position per facet or per normal, and the
/// collision code needs edges shared by faces.
#[derive(Default)]
pub(crate) struct Welder {
    ids: HashMap<[u64; 3], u32, BuildHasherDefault<CoordinateHasher>>,
    pub vertices: Vec<DVec3>,
}

impl Welder {
    pub fn index(&mut self, p: DVec3) -> u32 {
        let key = p.to_array().map(|c| if c == 0.0 { 0 } else { c.to_bits() });
        let vertices = &mut self.vertices;
        *self.ids.entry(key).or_insert_with(|| {
            vertices.push(p);
            vertices.len() as u32 - 1
        })
    }
}

/// A hash of coordinates' bits, several times faster than the default (SipHash) where a
/// large file welds millions of corners: each word is mixed in by a multiply (FxHash's), and
/// the result goes through murmur3's finaliser, so that regular grids of coordinates still
/// spread over every bit.
#[derive(Default)]
pub(crate) struct CoordinateHasher(u64);

impl Hasher for CoordinateHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// `f` applied to every item on all cores, costliest first (by `cost`), results in the
/// items' order. Each thread keeps one `S` for its items (scratch space).
pub(crate) fn map_on_all_cores<T: Send, R: Send, S: Default>(
    items: Vec<T>,
    cost: impl Fn(&T) -> usize,
    f: impl Fn(&mut S, T) -> R + Sync,
) -> Vec<R> {
    let n = items.len();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n);
    if threads <= 1 {
        let mut scratch = S::default();
        return items.into_iter().map(|item| f(&mut scratch, item)).collect();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    let items: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut scratch = S::default();
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let item = items[i].lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(item) = item {
                        let r = f(&mut scratch, item);
                        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every item was mapped"))
        .collect()
}

/// The quality warnings every format gives for a part: zero-area triangles (`degenerate`
/// words that warning from the first one's index and the count, so it can say where the first
/// is), open edges, non-manifold edges. `part_at` locates the part: `FILE:LINE: part "NAME"`
/// or `FILE: part "NAME"`.
pub(crate) fn quality_warnings(
    mesh: &Mesh,
    part_at: &str,
    degenerate: impl FnOnce(usize, usize) -> String,
    warnings: &mut Vec<String>,
) {
    let stats = mesh.stats();
    if stats.degenerate_triangles > 0 {
        let first = (0..mesh.triangles().len()).find(|&t| mesh.is_degenerate(t as u32)).unwrap_or(0);
        warnings.push(degenerate(first, stats.degenerate_triangles));
    }
    if stats.boundary_edges > 0 {
        warnings.push(format!("{part_at} is open ({} boundary edges)", stats.boundary_edges));
    }
    if stats.non_manifold_edges > 0 {
        warnings.push(format!("{part_at} has {} non-manifold edges", stats.non_manifold_edges));
    }
}
