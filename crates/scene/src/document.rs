//! The scene document (RON, version 1): what a user opens and saves. Saving is atomic.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The version this build writes.
pub const SCENE_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneDocument {
    pub version: u32,
    /// Width of the environment the solver's distances are scaled to; `None`: the largest
    /// side of the parts' bounding box when loaded.
    #[serde(default)]
    pub size: Option<f64>,
    pub parts: Vec<PartDocument>,
    #[serde(default)]
    pub solver: SolverDocument,
    #[serde(default)]
    pub camera: Option<CameraDocument>,
}

impl SceneDocument {
    /// This document with every part's pose and whether it is fixed as they stand now
    /// (`poses`, `fixed` by part, as a solver's world holds them): what a save writes.
    pub fn with_poses(mut self, poses: &[mockup_ccd::Pose], fixed: &[bool]) -> SceneDocument {
        for ((p, pose), &f) in self.parts.iter_mut().zip(poses).zip(fixed) {
            p.pose = PoseDocument::from_pose(pose);
            p.fixed = f;
        }
        self
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartDocument {
    pub name: String,
    /// Mesh file (OBJ, STL, glTF or GLB, by its extension), relative to the scene file.
    pub mesh: String,
    /// The object inside the mesh file (OBJ `o`/`g`, glTF node); `None`: the whole file.
    #[serde(default)]
    pub object: Option<String>,
    /// Scale of the mesh file's coordinates, applied before the pose (a file in millimetres in
    /// a scene in metres: 0.001; a mirrored link: `(1, -1, 1)`). 1 when absent, and written
    /// only when it is not 1, so older files and their saves are unchanged.
    #[serde(default, skip_serializing_if = "MeshScale::is_unit")]
    pub scale: MeshScale,
    pub pose: PoseDocument,
    pub fixed: bool,
    /// Linear RGB in [0, 1].
    pub color: [f32; 3],
    #[serde(default = "visible_default")]
    pub visible: bool,
}

fn visible_default() -> bool {
    true
}

/// A part's scale per axis of its mesh file, `diag(x, y, z)`: written as one number when the
/// three are equal (as every scene before per-axis scales wrote it), else as `(x, y, z)`. A
/// negative component mirrors (docs/scenes.md, "Mirroring").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshScale(pub [f64; 3]);

impl MeshScale {
    pub const UNIT: MeshScale = MeshScale([1.0; 3]);

    pub fn uniform(s: f64) -> MeshScale {
        MeshScale([s; 3])
    }

    pub fn is_unit(&self) -> bool {
        *self == MeshScale::UNIT
    }

    /// Whether it turns the mesh inside out (an odd number of negative components), so its
    /// triangles must be wound the other way.
    pub fn mirrors(&self) -> bool {
        self.0.iter().filter(|&&c| c < 0.0).count() % 2 == 1
    }

    /// What is wrong with it, if anything: each component must be finite and not zero.
    pub fn problem(&self) -> Option<String> {
        (!self.0.iter().all(|c| c.is_finite() && *c != 0.0))
            .then(|| format!("each scale component must be finite and not zero (got {self})"))
    }
}

impl Default for MeshScale {
    fn default() -> MeshScale {
        MeshScale::UNIT
    }
}

impl std::fmt::Display for MeshScale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.0;
        if x == y && y == z { write!(f, "{x:?}") } else { write!(f, "({x:?}, {y:?}, {z:?})") }
    }
}

impl Serialize for MeshScale {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [x, y, z] = self.0;
        if x == y && y == z { s.serialize_f64(x) } else { (x, y, z).serialize(s) }
    }
}

impl<'de> Deserialize<'de> for MeshScale {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MeshScale, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = MeshScale;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or three numbers (x, y, z)")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<MeshScale, E> {
                Ok(MeshScale::uniform(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<MeshScale, E> {
                Ok(MeshScale::uniform(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<MeshScale, E> {
                Ok(MeshScale::uniform(v as f64))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<MeshScale, A::Error> {
                let mut c = [0.0; 3];
                for (k, slot) in c.iter_mut().enumerate() {
                    *slot = seq.next_element()?.ok_or_else(|| serde::de::Error::invalid_length(k, &self))?;
                }
                if seq.next_element::<f64>()?.is_some() {
                    return Err(serde::de::Error::invalid_length(4, &self));
                }
                Ok(MeshScale(c))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A translation and a unit quaternion `[x, y, z, w]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoseDocument {
    pub translation: [f64; 3],
    pub rotation: [f64; 4],
}

impl Default for PoseDocument {
    fn default() -> Self {
        PoseDocument { translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] }
    }
}

impl PoseDocument {
    pub fn to_pose(&self) -> mockup_ccd::Pose {
        let [x, y, z, w] = self.rotation;
        mockup_ccd::Pose::new(glam::DQuat::from_xyzw(x, y, z, w).normalize(), glam::DVec3::from_array(self.translation))
    }

    pub fn from_pose(p: &mockup_ccd::Pose) -> PoseDocument {
        PoseDocument { translation: p.translation.to_array(), rotation: p.rotation.to_array() }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverDocument {
    pub distances: Distances,
    pub bm_culling: bool,
    pub narrow_phase: NarrowPhase,
    pub max_substeps: u32,
    /// A drag pushes other movable parts (false: only the grabbed part moves). Written only
    /// when set, so older files and their saves are unchanged.
    #[serde(default, skip_serializing_if = "is_false")]
    pub push_others: bool,
    /// Every interfering pair is an obstacle, also those in contact from the start
    /// (docs/contact-from-start.md §1). Written only when set.
    #[serde(default, skip_serializing_if = "is_false")]
    pub strict: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for SolverDocument {
    fn default() -> Self {
        SolverDocument {
            distances: Distances::Scaled,
            bm_culling: true,
            narrow_phase: NarrowPhase::Exact,
            max_substeps: 8,
            push_others: false,
            strict: false,
        }
    }
}

impl SolverDocument {
    /// The solver settings this document asks for, in a scene `size` wide: its distances,
    /// or the seed's scaled to the scene (docs/solver.md §2).
    pub fn settings(&self, size: f64) -> mockup_solver::SolverSettings {
        let mut s = mockup_solver::SolverSettings::for_scene_size(size);
        if let Some([r, e, b]) = self.explicit_distances() {
            (s.repositioning, s.security, s.breaking) = (r, e, b);
        }
        s.query.bm_culling = self.bm_culling;
        s.max_substeps = self.max_substeps.max(1);
        s.narrow_phase = self.narrow_phase;
        s.push_others = self.push_others;
        s.strict = self.strict;
        s
    }

    /// `[εr, εs, εb]` when the document sets them (otherwise the seed's, scaled to the scene).
    pub fn explicit_distances(&self) -> Option<[f64; 3]> {
        match self.distances {
            Distances::Explicit { repositioning, security, breaking } => Some([repositioning, security, breaking]),
            Distances::Scaled => None,
        }
    }
}

/// The solver's εr, εs, εb.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Distances {
    /// The seed's values scaled from a 50-unit environment to the scene's size.
    Scaled,
    Explicit {
        repositioning: f64,
        security: f64,
        breaking: f64,
    },
}

pub use mockup_solver::NarrowPhase;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraDocument {
    pub eye: [f64; 3],
    pub target: [f64; 3],
    pub up: [f64; 3],
    pub fov_degrees: f64,
}

#[derive(Debug, Error)]
pub enum SceneError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}:{col}: {message}", path.display())]
    Parse { path: PathBuf, line: usize, col: usize, message: String },
    #[error("{}: scene version {found} is newer than this Mockup reads ({SCENE_VERSION}); update Mockup", path.display())]
    NewerVersion { path: PathBuf, found: u32 },
    #[error("{}: scene version {found} is not supported", path.display())]
    UnknownVersion { path: PathBuf, found: u32 },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: part {part:?}: mesh file {written:?} not found (resolved to {}){}", path.display(), resolved.display(), fetch_hint(resolved))]
    MissingMesh { path: PathBuf, part: String, written: String, resolved: PathBuf },
    #[error("{}: part {part:?}: no object {object:?} in {mesh:?} (it has: {})", path.display(), available.join(", "))]
    MissingObject { path: PathBuf, part: String, object: String, mesh: String, available: Vec<String> },
    #[error(transparent)]
    Obj(#[from] crate::obj::ObjError),
    #[error(transparent)]
    Import(crate::mesh_file::ImportError),
}

impl From<crate::mesh_file::ImportError> for SceneError {
    fn from(e: crate::mesh_file::ImportError) -> Self {
        match e {
            crate::mesh_file::ImportError::Obj(e) => SceneError::Obj(e),
            e => SceneError::Import(e),
        }
    }
}

/// Third-party meshes are not in the repository; a missing one says how to get them.
fn fetch_hint(resolved: &Path) -> &'static str {
    let parts: Vec<_> = resolved.components().map(|c| c.as_os_str()).collect();
    if parts.windows(2).any(|w| w[0] == "assets" && w[1] == "third_party") {
        "; third-party meshes are not committed: run scripts/fetch-real-meshes"
    } else {
        ""
    }
}

#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
}

fn parse_error(path: &Path, e: ron::error::SpannedError) -> SceneError {
    SceneError::Parse {
        path: path.to_path_buf(),
        line: e.span.start.line,
        col: e.span.start.col,
        message: e.code.to_string(),
    }
}

/// Parses and validates a scene document; `path` names it in messages.
pub fn parse(text: &str, path: &Path) -> Result<SceneDocument, SceneError> {
    let version = ron::from_str::<VersionOnly>(text).map_err(|e| parse_error(path, e))?.version;
    let doc = migrate(version, text, path)?;
    validate(&doc, text, path)?;
    Ok(doc)
}

/// The migration hook: every older version is turned into the current one here.
fn migrate(version: u32, text: &str, path: &Path) -> Result<SceneDocument, SceneError> {
    match version {
        SCENE_VERSION => ron::from_str(text).map_err(|e| parse_error(path, e)),
        v if v > SCENE_VERSION => Err(SceneError::NewerVersion { path: path.to_path_buf(), found: v }),
        v => Err(SceneError::UnknownVersion { path: path.to_path_buf(), found: v }),
    }
}

/// Checks what the format cannot: names unique, poses usable, colours, sizes, distances and
/// the camera in range. Errors point at the line of the part (or field) when it can be found
/// in `text`.
fn validate(doc: &SceneDocument, text: &str, path: &Path) -> Result<(), SceneError> {
    let invalid = |at, message| Err(invalid_at(path, at, message));
    for (i, p) in doc.parts.iter().enumerate() {
        // The part's name as a RON string literal; its k-th occurrence is this part's (for
        // the k-th part of that name).
        let k = doc.parts[..i].iter().filter(|q| q.name == p.name).count();
        let at = locate(text, &format!("{:?}", p.name), k);
        if k > 0 {
            return invalid(at, format!("two parts are named {:?}", p.name));
        }
        if p.mesh.trim().is_empty() {
            return invalid(at, format!("part {:?}: no mesh file given", p.name));
        }
        if let Some(problem) = pose_problem(&p.pose) {
            return invalid(at, format!("part {:?}: {problem}", p.name));
        }
        if !p.color.iter().all(|c| (0.0..=1.0).contains(c)) {
            return invalid(at, format!("part {:?}: colour components must be in [0, 1]", p.name));
        }
        if let Some(problem) = p.scale.problem() {
            return invalid(at, format!("part {:?}: {problem}", p.name));
        }
    }
    if let Some(s) = doc.size
        && !(s.is_finite() && s > 0.0)
    {
        return invalid(locate(text, "size", 0), format!("size must be positive (got {s:?})"));
    }
    if let Distances::Explicit { repositioning: r, security: s, breaking: b } = doc.solver.distances
        && !(r.is_finite() && s.is_finite() && b.is_finite() && 0.0 < r && r < s && s < b)
    {
        return invalid(
            locate(text, "repositioning", 0),
            format!("solver distances must satisfy 0 < repositioning < security < breaking (got {r:?}, {s:?}, {b:?})"),
        );
    }
    if let Some(c) = &doc.camera {
        // A saved view must give a usable projection: the app would draw nothing (or worse)
        // from a NaN eye or a zero field of view.
        if !c.eye.iter().chain(&c.target).chain(&c.up).all(|x| x.is_finite()) {
            return invalid(locate(text, "camera", 0), "camera: eye, target and up must be finite".into());
        }
        if !(c.fov_degrees > 0.0 && c.fov_degrees < 180.0) {
            return invalid(
                locate(text, "fov_degrees", 0),
                format!("camera: fov_degrees must be between 0 and 180 (got {:?})", c.fov_degrees),
            );
        }
    }
    Ok(())
}

/// An invalid value, at its line and column when known.
fn invalid_at(path: &Path, at: Option<(usize, usize)>, message: String) -> SceneError {
    match at {
        Some((line, col)) => SceneError::Parse { path: path.to_path_buf(), line, col, message },
        None => SceneError::Invalid { path: path.to_path_buf(), message },
    }
}

/// What makes a pose unusable, if anything.
fn pose_problem(p: &PoseDocument) -> Option<&'static str> {
    if !p.translation.iter().chain(&p.rotation).all(|x| x.is_finite()) {
        Some("the pose is not finite")
    } else if p.rotation.iter().map(|x| x * x).sum::<f64>() < 1e-12 {
        Some("the rotation quaternion is zero")
    } else if p.translation.iter().any(|x| x.abs() > mockup_ccd::mesh::MAX_COORDINATE) {
        // The same bound as mesh coordinates: products of six of them must not overflow.
        Some("the translation is beyond ±1e50")
    } else {
        None
    }
}

/// Line and column (1-based, as ron reports them) of the `k`-th occurrence of `needle`.
fn locate(text: &str, needle: &str, k: usize) -> Option<(usize, usize)> {
    let (offset, _) = text.match_indices(needle).nth(k)?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |n| n + 1)..].chars().count() + 1;
    Some((line, col))
}

/// Reads and parses a scene file from disk.
pub fn read(path: &Path) -> Result<SceneDocument, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
    parse(&text, path)
}

/// The document as RON text.
pub fn to_text(doc: &SceneDocument) -> String {
    let config = ron::ser::PrettyConfig::new().struct_names(false).indentor("    ");
    let mut text = ron::ser::to_string_pretty(doc, config).expect("scene documents always serialize");
    text.push('\n');
    text
}

/// Where a save can fail; the tests inject failures at each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SaveStage {
    Write,
    Sync,
    Backup,
    Rename,
}

/// Saves atomically: a temporary file in the same folder, fsync, the previous file copied to
/// `NAME.bak` (`scene.ron.bak`), then a rename over the target. A failure at any point leaves
/// the previous file as it was.
pub fn save(doc: &SceneDocument, path: &Path) -> Result<(), SceneError> {
    save_with(doc, path, &mut |_| Ok(()))
}

/// Writes a file atomically: a temporary file beside it, synced, then renamed over it. A
/// failure leaves the old file as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| std::io::Error::other("not a file name"))?.to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A list of poses in RON (a drag path: the targets `mockup-cli replay` and the app's path
/// replay send to the solver). Errors name the file, line and column, or the bad pose.
pub fn read_poses(path: &Path) -> Result<Vec<PoseDocument>, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError::Io { path: path.to_path_buf(), source: e })?;
    let poses: Vec<PoseDocument> = ron::from_str(&text).map_err(|e| parse_error(path, e))?;
    for (i, t) in poses.iter().enumerate() {
        if let Some(problem) = pose_problem(t) {
            return Err(invalid_at(path, locate(&text, "translation", i), format!("target {i}: {problem}")));
        }
    }
    Ok(poses)
}

/// Writes a list of poses in RON, atomically.
pub fn write_poses(poses: &[PoseDocument], path: &Path) -> Result<(), SceneError> {
    let io = |source| SceneError::Io { path: path.to_path_buf(), source };
    let text = ron::ser::to_string_pretty(poses, ron::ser::PrettyConfig::default())
        .map_err(std::io::Error::other)
        .map_err(io)?;
    write_atomic(path, (text + "\n").as_bytes()).map_err(io)
}

pub(crate) fn save_with(
    doc: &SceneDocument,
    path: &Path,
    fault: &mut dyn FnMut(SaveStage) -> std::io::Result<()>,
) -> Result<(), SceneError> {
    let io = |source| SceneError::Io { path: path.to_path_buf(), source };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name =
        path.file_name().ok_or_else(|| io(std::io::Error::other("not a file name")))?.to_string_lossy().into_owned();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        fault(SaveStage::Write)?;
        f.write_all(to_text(doc).as_bytes())?;
        fault(SaveStage::Sync)?;
        f.sync_all()?;
        drop(f);
        if path.exists() {
            fault(SaveStage::Backup)?;
            std::fs::copy(path, dir.join(format!("{name}.bak")))?;
        }
        fault(SaveStage::Rename)?;
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is synced (not possible everywhere).
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_poses_takes_each_parts_pose_and_fixed_and_keeps_the_rest() {
        let mut d = doc();
        d.parts.push(PartDocument { name: "Body".into(), ..d.parts[0].clone() });
        let moved = mockup_ccd::Pose::new(glam::DQuat::from_rotation_z(0.5), glam::DVec3::new(1.0, 2.0, 3.0));
        let out = d.clone().with_poses(&[moved, mockup_ccd::Pose::IDENTITY], &[false, true]);
        assert_eq!(out.parts[0].pose, PoseDocument::from_pose(&moved));
        assert_eq!(out.parts[1].pose, PoseDocument::from_pose(&mockup_ccd::Pose::IDENTITY));
        assert_eq!((out.parts[0].fixed, out.parts[1].fixed), (false, true));
        // Everything else is the document's.
        assert_eq!((out.parts[1].name.as_str(), out.parts[0].color), ("Body", d.parts[0].color));
        assert_eq!((out.size, out.solver.clone(), out.camera.clone()), (d.size, d.solver, d.camera));
    }

    fn doc() -> SceneDocument {
        SceneDocument {
            version: SCENE_VERSION,
            size: Some(5.0),
            parts: vec![PartDocument {
                name: "Door".into(),
                mesh: "../assets/car_door.obj".into(),
                object: Some("door".into()),
                scale: MeshScale::UNIT,
                pose: PoseDocument { translation: [1.0, 2.0, 3.0], rotation: [0.0, 0.0, 0.0, 1.0] },
                fixed: false,
                color: [0.5, 0.5, 0.5],
                visible: true,
            }],
            solver: SolverDocument::default(),
            camera: Some(CameraDocument {
                eye: [5.0, 5.0, 5.0],
                target: [0.0; 3],
                up: [0.0, 0.0, 1.0],
                fov_degrees: 45.0,
            }),
        }
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mockup-scene-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_failed_save_leaves_the_old_file_untouched() {
        let dir = temp_dir("fail");
        let path = dir.join("scene.ron");
        let old = doc();
        save(&old, &path).unwrap();
        let before = std::fs::read(&path).unwrap();
        let mut new = doc();
        new.parts[0].name = "Changed".into();
        for stage in [SaveStage::Write, SaveStage::Sync, SaveStage::Backup, SaveStage::Rename] {
            let e = save_with(&new, &path, &mut |s| {
                if s == stage { Err(std::io::Error::other("injected")) } else { Ok(()) }
            });
            assert!(e.is_err(), "{stage:?}");
            assert_eq!(std::fs::read(&path).unwrap(), before, "{stage:?}: the old file changed");
            let leftovers: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .filter(|n| n.to_string_lossy().contains(".tmp-"))
                .collect();
            assert!(leftovers.is_empty(), "{stage:?}: {leftovers:?}");
        }
        // A save that works keeps the previous file as .bak.
        save(&new, &path).unwrap();
        assert_eq!(std::fs::read(dir.join("scene.ron.bak")).unwrap(), before);
        assert_eq!(read(&path).unwrap(), new);
    }

    #[test]
    fn round_trip_and_errors_with_positions() {
        let d = doc();
        let text = to_text(&d);
        assert_eq!(parse(&text, Path::new("s.ron")).unwrap(), d);
        // A type error names line and column.
        let bad = text.replacen("fixed: false", "fixed: 3", 1);
        let e = parse(&bad, Path::new("s.ron")).unwrap_err().to_string();
        let line = bad.lines().position(|l| l.contains("fixed: 3")).unwrap() + 1;
        assert!(e.starts_with(&format!("s.ron:{line}:")), "{e}");
        assert!(e.to_lowercase().contains("bool"), "{e}");
        let e = parse("(version: 1, parts: [", Path::new("s.ron")).unwrap_err().to_string();
        assert!(e.starts_with("s.ron:1:"), "{e}");
        let newer = text.replacen("version: 1", "version: 7", 1);
        assert!(matches!(parse(&newer, Path::new("s.ron")), Err(SceneError::NewerVersion { found: 7, .. })));
        let zero = text.replacen("rotation: (0.0, 0.0, 0.0, 1.0)", "rotation: (0.0, 0.0, 0.0, 0.0)", 1);
        assert!(parse(&zero, Path::new("s.ron")).unwrap_err().to_string().contains("quaternion is zero"));
    }

    /// Values the format accepts but Mockup cannot use are errors that point at the part's
    /// line (or the field's).
    #[test]
    fn invalid_values_name_their_line() {
        let mut d = doc();
        let mut second = d.parts[0].clone();
        second.name = "Hinge".into();
        d.parts.push(second);
        let text = to_text(&d);
        let line_of = |s: &str, needle: &str| s.lines().position(|l| l.contains(needle)).unwrap() + 1;
        let check = |bad: String, needle: &str, words: &str| {
            let e = parse(&bad, Path::new("s.ron")).unwrap_err().to_string();
            let line = line_of(&bad, needle);
            assert!(e.starts_with(&format!("s.ron:{line}:")), "{e}");
            assert!(e.contains(words), "{e}");
        };
        // The second part's pose: the error is at the second part's name.
        let nan =
            text.replacen("translation: (1.0, 2.0, 3.0)", "#", 2).replacen('#', "translation: (1.0, 2.0, 3.0)", 1);
        check(nan.replacen('#', "translation: (1.0, NaN, 3.0)", 1), "\"Hinge\"", "pose is not finite");
        check(
            text.replacen("translation: (1.0, 2.0, 3.0)", "translation: (1.0, 2e60, 3.0)", 1),
            "\"Door\"",
            "beyond ±1e50",
        );
        check(text.replacen("size: Some(5.0)", "size: Some(-1.0)", 1), "size:", "size must be positive");
        check(text.replacen("fov_degrees: 45.0", "fov_degrees: 0.0", 1), "fov_degrees", "between 0 and 180");
        check(text.replacen("fov_degrees: 45.0", "fov_degrees: 180.0", 1), "fov_degrees", "between 0 and 180");
        check(text.replacen("eye: (5.0, 5.0, 5.0)", "eye: (5.0, inf, 5.0)", 1), "camera", "must be finite");
        // The duplicate is found at its second occurrence.
        let dup = text.replacen("\"Hinge\"", "\"Door\"", 1);
        let e = parse(&dup, Path::new("s.ron")).unwrap_err().to_string();
        let second_line = dup.lines().enumerate().filter(|(_, l)| l.contains("\"Door\"")).nth(1).unwrap().0 + 1;
        assert!(e.starts_with(&format!("s.ron:{second_line}:")), "{e}");
    }

    #[test]
    fn bad_targets_in_a_pose_list_name_their_line() {
        let dir = temp_dir("poses");
        let path = dir.join("path.ron");
        let good = PoseDocument { translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };
        let bad = [
            (PoseDocument { translation: [f64::NAN, 0.0, 0.0], ..good }, "not finite"),
            (PoseDocument { rotation: [0.0; 4], ..good }, "quaternion is zero"),
            (PoseDocument { translation: [0.0, -2e50, 0.0], ..good }, "beyond ±1e50"),
        ];
        for (pose, words) in bad {
            write_poses(&[good, good, pose], &path).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let line = text.lines().enumerate().filter(|(_, l)| l.contains("translation")).nth(2).unwrap().0 + 1;
            let e = read_poses(&path).unwrap_err().to_string();
            assert!(e.contains(&format!("path.ron:{line}:")) && e.contains("target 2") && e.contains(words), "{e}");
        }
        write_poses(&[good], &path).unwrap();
        assert_eq!(read_poses(&path).unwrap(), vec![good]);
    }

    #[test]
    fn old_optional_fields_take_defaults() {
        let text = "(version: 1, parts: [(name: \"a\", mesh: \"a.obj\", pose: (translation: (0, 0, 0), rotation: (0, 0, 0, 1)), fixed: true, color: (1, 1, 1))])";
        let d = parse(text, Path::new("s.ron")).unwrap();
        assert!(d.parts[0].visible && d.parts[0].object.is_none());
        assert_eq!(d.parts[0].scale, MeshScale::UNIT);
        assert_eq!(d.solver, SolverDocument::default());
        // A unit scale is not written, so files saved by this version read in older ones.
        assert!(!to_text(&d).contains("scale"));
    }

    #[test]
    fn a_part_scale_is_one_number_or_three_each_finite_and_not_zero() {
        let mut d = doc();
        d.parts[0].scale = MeshScale::uniform(0.001);
        let text = to_text(&d);
        assert!(text.contains("scale: 0.001,"), "{text}");
        assert_eq!(parse(&text, Path::new("s.ron")).unwrap(), d);
        // Integers read too; three components, mirrored or not, round-trip as three.
        let two = parse(&text.replace("scale: 0.001", "scale: 2"), Path::new("s.ron")).unwrap();
        assert_eq!(two.parts[0].scale, MeshScale::uniform(2.0));
        d.parts[0].scale = MeshScale([0.001, -0.001, 0.001]);
        let mirrored = to_text(&d);
        assert!(mirrored.contains("scale: (0.001, -0.001, 0.001),"), "{mirrored}");
        assert_eq!(parse(&mirrored, Path::new("s.ron")).unwrap(), d);
        assert!(d.parts[0].scale.mirrors() && !MeshScale([-1.0, -1.0, 2.0]).mirrors());
        let line = text.lines().position(|l| l.contains("\"Door\"")).unwrap() + 1;
        for bad in ["0.0", "NaN", "inf", "(1.0, 0.0, 1.0)", "(1.0, -inf, 1.0)"] {
            let e = parse(&text.replace("scale: 0.001", &format!("scale: {bad}")), Path::new("s.ron")).unwrap_err();
            let e = e.to_string();
            assert!(e.starts_with(&format!("s.ron:{line}:")) && e.contains("must be finite and not zero"), "{e}");
        }
        for bad in ["(1.0, 1.0)", "(1.0, 1.0, 1.0, 1.0)", "\"big\""] {
            let e = parse(&text.replace("scale: 0.001", &format!("scale: {bad}")), Path::new("s.ron")).unwrap_err();
            assert!(e.to_string().contains("a number or three numbers"), "{bad}: {e}");
        }
    }
}
