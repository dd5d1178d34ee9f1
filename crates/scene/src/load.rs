//! A scene with its meshes and trees: what the solver and the app work on.

use crate::document::{
    self, MeshScale, PartDocument, PoseDocument, SCENE_VERSION, SceneDocument, SceneError, SolverDocument,
};
use crate::mesh_file::{self, Assembly, Format, ImportOptions};
use crate::source::{FileSystem, Source, normalize};
use glam::DVec3;
use mockup_ccd::broad::Aabb;
use mockup_ccd::{Collider, Mesh};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A loaded scene: the document and one collider per part, in the document's order.
#[derive(Clone, Debug)]
pub struct LoadedScene {
    pub document: SceneDocument,
    pub colliders: Vec<Arc<Collider>>,
    /// The environment's width the solver's distances scale with (docs/solver.md §2).
    pub size: f64,
    pub warnings: Vec<String>,
    pub parse_time: Duration,
    pub build_time: Duration,
}

impl LoadedScene {
    /// The solver distances `[εr, εs, εb]` the document sets, if it sets them (otherwise the
    /// seed's, scaled to `size`).
    pub fn explicit_distances(&self) -> Option<[f64; 3]> {
        self.document.solver.explicit_distances()
    }
}

/// What a long load is doing, for a progress bar: `fraction` of all the work in [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub fraction: f32,
    pub stage: String,
}

/// Loads a scene file and its meshes from `source`, building every part's tree and BM-cones
/// on all cores.
pub fn load(path: &Path, source: &dyn Source, progress: &mut dyn FnMut(Progress)) -> Result<LoadedScene, SceneError> {
    let bytes = source.read(path).map_err(|e| SceneError::Io { path: path.to_path_buf(), source: e })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| SceneError::Invalid { path: path.to_path_buf(), message: "not UTF-8 text".into() })?;
    let document = document::parse(&text, path)?;
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let clock = Instant::now();
    let mut warnings = Vec::new();
    // Each file once: split into objects when some part names one, whole otherwise.
    let mut files: HashMap<(PathBuf, bool), Assembly> = HashMap::new();
    let mut meshes = Vec::with_capacity(document.parts.len());
    let n = document.parts.len().max(1) as f32;
    for (i, part) in document.parts.iter().enumerate() {
        progress(Progress { fraction: 0.5 * i as f32 / n, stage: format!("reading {}", part.mesh) });
        let resolved = normalize(&dir.join(&part.mesh));
        let key = (resolved.clone(), part.object.is_some());
        if !files.contains_key(&key) {
            let bytes = source.read(&resolved).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => SceneError::MissingMesh {
                    path: path.to_path_buf(),
                    part: part.name.clone(),
                    written: part.mesh.clone(),
                    resolved: std::path::absolute(&resolved).unwrap_or(resolved.clone()),
                },
                std::io::ErrorKind::IsADirectory => SceneError::Invalid {
                    path: path.to_path_buf(),
                    message: format!("part {:?}: mesh {:?} is a folder, not a mesh file", part.name, part.mesh),
                },
                _ => SceneError::Io { path: resolved.clone(), source: e },
            })?;
            let format = Format::of(&resolved).ok_or_else(|| SceneError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "part {:?}: mesh {:?} is not a mesh file Mockup reads (expected {})",
                    part.name,
                    part.mesh,
                    mesh_file::EXTENSIONS
                ),
            })?;
            let options = ImportOptions { split_objects: part.object.is_some() };
            let assembly = mesh_file::parse_as(format, &bytes, &resolved, source, &options, &mut |_| {})?;
            warnings.extend(assembly.warnings.iter().cloned());
            files.insert(key.clone(), assembly);
        }
        let assembly = &files[&key];
        let mesh = match &part.object {
            None => assembly.parts[0].mesh.clone(),
            Some(object) => match assembly.part(object) {
                Some(p) => p.mesh.clone(),
                None => {
                    return Err(SceneError::MissingObject {
                        path: path.to_path_buf(),
                        part: part.name.clone(),
                        object: object.clone(),
                        mesh: part.mesh.clone(),
                        available: assembly.parts.iter().map(|p| p.name.clone()).collect(),
                    });
                }
            },
        };
        meshes.push(scaled(mesh, part.scale).map_err(|e| SceneError::Invalid {
            path: path.to_path_buf(),
            message: format!("part {:?}: scale {}: {e}", part.name, part.scale),
        })?);
    }
    let parse_time = clock.elapsed();
    let clock = Instant::now();
    let colliders = build_colliders(meshes, &mut |done, total| {
        progress(Progress { fraction: 0.5 + 0.5 * done as f32 / total.max(1) as f32, stage: "building trees".into() })
    });
    let build_time = clock.elapsed();
    let size = document.size.unwrap_or_else(|| scene_size(&colliders, &document.parts));
    progress(Progress { fraction: 1.0, stage: "done".into() });
    Ok(LoadedScene { document, colliders, size, warnings, parse_time, build_time })
}

/// The mesh with each coordinate multiplied by the part's `scale` on its axis, its triangles
/// wound the other way when the scale mirrors (docs/scenes.md, "Mirroring").
fn scaled(mesh: Mesh, scale: MeshScale) -> Result<Mesh, mockup_ccd::MeshError> {
    if scale.is_unit() {
        return Ok(mesh);
    }
    let by = DVec3::from_array(scale.0);
    let vertices = mesh.vertices().iter().map(|&v| v * by).collect();
    let triangles = match scale.mirrors() {
        true => mesh.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect(),
        false => mesh.triangles().to_vec(),
    };
    Mesh::new(vertices, triangles)
}

/// Trees and BM-cones of every mesh, largest first over all cores; `done(k, n)` after each.
pub fn build_colliders(meshes: Vec<Mesh>, done: &mut dyn FnMut(usize, usize)) -> Vec<Arc<Collider>> {
    let n = meshes.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(meshes[i].triangles().len()));
    let meshes: Vec<std::sync::Mutex<Option<Mesh>>> =
        meshes.into_iter().map(|m| std::sync::Mutex::new(Some(m))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Collider)>();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.max(1));
    let mut out: Vec<Option<Arc<Collider>>> = vec![None; n];
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (meshes, order, next) = (&meshes, &order, &next);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = order.get(k) else { break };
                    let mesh =
                        meshes[i].lock().unwrap_or_else(|e| e.into_inner()).take().expect("each mesh is built once");
                    if tx.send((i, Collider::new(mesh))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (count, (i, c)) in rx.iter().enumerate() {
            out[i] = Some(Arc::new(c));
            done(count + 1, n);
        }
    });
    out.into_iter().map(|c| c.expect("every mesh was built")).collect()
}

/// The largest side of the bounding box of every part at its pose.
pub fn scene_size(colliders: &[Arc<Collider>], parts: &[PartDocument]) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for (c, p) in colliders.iter().zip(parts) {
        let b = Aabb::of_mesh(c.mesh(), &p.pose.to_pose());
        lo = lo.min(b.min);
        hi = hi.max(b.max);
    }
    let size = (hi - lo).max_element();
    if size.is_finite() && size > 0.0 { size } else { 1.0 }
}

/// A new scene from a mesh file (OBJ, STL, glTF or GLB, by its extension): a part per
/// object (or the whole file), at the pose the file gives it (glTF nodes; the identity
/// otherwise), in its file colour or a palette's. No part is fixed: a drag moves only the part
/// it grabs, every other is an obstacle. Mesh paths are absolute until the scene is saved
/// (see [`relative_mesh_paths`]).
pub fn import(
    path: &Path,
    options: &ImportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<LoadedScene, SceneError> {
    let clock = Instant::now();
    let format = Format::of(path).ok_or_else(|| mesh_file::ImportError::UnknownFormat { path: path.to_path_buf() })?;
    let bytes = std::fs::read(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    let stage = format!("reading {}", path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()));
    let assembly = mesh_file::parse_as(format, &bytes, path, &FileSystem, options, &mut |f| {
        progress(Progress { fraction: 0.5 * f, stage: stage.clone() })
    })?;
    drop(bytes);
    let parse_time = clock.elapsed();
    let absolute = std::path::absolute(path).unwrap_or(path.to_path_buf());
    let parts = assembly
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| PartDocument {
            name: p.name.clone(),
            mesh: absolute.to_string_lossy().into_owned(),
            // An STL file is one part however it is imported.
            object: (options.split_objects && format != Format::Stl).then(|| p.name.clone()),
            scale: Default::default(),
            pose: PoseDocument::from_pose(&p.pose),
            fixed: false,
            color: p.color.unwrap_or(PALETTE[i % PALETTE.len()]),
            visible: true,
        })
        .collect();
    let document =
        SceneDocument { version: SCENE_VERSION, size: None, parts, solver: SolverDocument::default(), camera: None };
    let clock = Instant::now();
    let meshes = assembly.parts.into_iter().map(|p| p.mesh).collect();
    let colliders = build_colliders(meshes, &mut |done, total| {
        progress(Progress { fraction: 0.5 + 0.5 * done as f32 / total.max(1) as f32, stage: "building trees".into() })
    });
    let size = scene_size(&colliders, &document.parts);
    Ok(LoadedScene { document, colliders, size, warnings: assembly.warnings, parse_time, build_time: clock.elapsed() })
}

/// The same as [`import`] (any format), under the name the app calls.
pub fn import_obj(
    path: &Path,
    options: &ImportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<LoadedScene, SceneError> {
    import(path, options, progress)
}

/// Colours for parts whose file gives none.
pub const PALETTE: [[f32; 3]; 6] = [
    [0.62, 0.64, 0.68],
    [0.85, 0.45, 0.25],
    [0.25, 0.55, 0.85],
    [0.45, 0.75, 0.35],
    [0.8, 0.7, 0.25],
    [0.6, 0.4, 0.75],
];

/// Rewrites absolute mesh paths relative to `scene_dir` (where the scene is being saved), so
/// the scene and its meshes can move together.
pub fn relative_mesh_paths(doc: &mut SceneDocument, scene_dir: &Path) {
    let base = normalize(&std::path::absolute(scene_dir).unwrap_or(scene_dir.to_path_buf()));
    for p in &mut doc.parts {
        let mesh = Path::new(&p.mesh);
        if mesh.is_absolute() {
            p.mesh = relative_to(&normalize(mesh), &base).to_string_lossy().replace('\\', "/");
        }
    }
}

fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (p, b): (Vec<_>, Vec<_>) = (path.components().collect(), base.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return path.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}
