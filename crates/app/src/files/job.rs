//! Loads and saves on a task (`AsyncComputeTaskPool`), one at a time, with their progress:
//! a frame only starts them and takes their result.

use super::prompt::Prompt;
use super::recent::RecentFiles;
use super::{Errors, FileCommand, Origin, SceneFile};
use crate::camera::Orbit;
use crate::history::{Snapshot, snapshot};
use crate::part::{PartColor, PartFile, PartId, Shown};
use crate::scene::{PendingScene, ReadyScene, SceneInfo};
use crate::solver::{DragBudget, Solver};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use mockup_scene::save_as::{Meshes, save_as};
use mockup_scene::source::FileSystem;
use mockup_scene::{CameraDocument, PartDocument, PoseDocument, SceneDocument};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Work on a task, and how far it got.
pub struct Job<T> {
    /// What it is doing, for the progress dialog ("Opening x.ron").
    pub what: String,
    task: Task<Result<T, String>>,
    progress: Arc<Mutex<(f32, String)>>,
}

impl<T> Job<T> {
    /// The fraction done and the stage.
    pub fn progress(&self) -> (f32, String) {
        self.progress.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// The file work running, if any.
#[derive(Resource, Default)]
pub enum FileJob {
    #[default]
    Idle,
    /// A scene being read (or imported) and prepared for the solver.
    Loading { job: Job<ReadyScene>, origin: Origin },
    /// A scene being written; `state` is the scene's state it saves.
    Saving { job: Job<SceneDocument>, path: PathBuf, state: Snapshot },
}

impl FileJob {
    pub fn busy(&self) -> bool {
        !matches!(self, FileJob::Idle)
    }

    pub fn loading(&self) -> bool {
        matches!(self, FileJob::Loading { .. })
    }

    /// What is running, and its progress.
    pub fn status(&self) -> Option<(String, f32, String)> {
        match self {
            FileJob::Idle => None,
            FileJob::Loading { job, .. } => {
                let (f, s) = job.progress();
                Some((job.what.clone(), f, s))
            }
            FileJob::Saving { job, .. } => {
                let (f, s) = job.progress();
                Some((job.what.clone(), f, s))
            }
        }
    }

    pub fn what(&self) -> String {
        self.status().map_or_else(String::new, |s| s.0)
    }

    /// Starts loading `origin` on a task, and preparing the solver's world for it.
    pub fn start_load(&mut self, origin: Origin, budget: DragBudget) {
        let progress = Arc::new(Mutex::new((0.0, "starting".to_string())));
        let p = progress.clone();
        let what = format!("Opening {}", origin.title());
        let o = origin.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let mut report = |x: mockup_scene::Progress| {
                if let Ok(mut g) = p.lock() {
                    *g = (x.fraction, x.stage);
                }
            };
            let loaded = match &o {
                Origin::BuiltIn => {
                    let (source, path) = mockup_scene::embedded::default_scene();
                    mockup_scene::load(&path, &source, &mut report)
                }
                Origin::Scene(path) => mockup_scene::load(path, &FileSystem, &mut report),
                Origin::Import(path) => mockup_scene::import(path, &Default::default(), &mut report),
            }
            .map_err(|e| e.to_string())?;
            for w in &loaded.warnings {
                warn!("{w}");
            }
            info!(
                "read {} ({} parts; parsed in {:.2} s, trees in {:.2} s)",
                o.title(),
                loaded.document.parts.len(),
                loaded.parse_time.as_secs_f64(),
                loaded.build_time.as_secs_f64()
            );
            report(mockup_scene::Progress { fraction: 1.0, stage: "preparing the solver".into() });
            Ok(ReadyScene::prepare(loaded, budget))
        });
        *self = FileJob::Loading { job: Job { what, task, progress }, origin };
    }

    /// Starts saving the scene as it stands to `path`, on a task.
    pub fn start_save(&mut self, input: &SaveInput, origin: &Origin, path: PathBuf) {
        let doc = input.document();
        let state = input.snapshot();
        let progress = Arc::new(Mutex::new((0.0, "writing".to_string())));
        let what = format!("Saving {}", path.display());
        let (origin, to) = (origin.clone(), path.clone());
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let saved = match &origin {
                Origin::BuiltIn => {
                    let (source, scene) = mockup_scene::embedded::default_scene();
                    let from = scene.parent().unwrap_or(Path::new("")).to_path_buf();
                    save_as(&doc, Meshes::Copy(&from, &source), &to)
                }
                Origin::Scene(old) => save_as(&doc, Meshes::OnDisk(old.parent().unwrap_or(Path::new("."))), &to),
                // Imported meshes have absolute paths.
                Origin::Import(_) => save_as(&doc, Meshes::OnDisk(Path::new(".")), &to),
            };
            saved.map_err(|e| format!("Could not save: {e}"))
        });
        *self = FileJob::Saving { job: Job { what, task, progress }, path, state };
    }
}

/// What saving reads: the scene, its parts and the camera.
#[derive(SystemParam)]
pub struct SaveInput<'w, 's> {
    pub solver: Res<'w, Solver>,
    pub info: Res<'w, SceneInfo>,
    parts: Query<'w, 's, (&'static PartId, &'static Name, &'static Shown, &'static PartColor, &'static PartFile)>,
    camera: Query<'w, 's, (&'static Orbit, &'static Projection)>,
}

impl SaveInput<'_, '_> {
    /// (shown, colour) by part id.
    fn props(&self) -> Vec<(bool, [f32; 3])> {
        let mut out = vec![(false, [0.0; 3]); self.solver.bodies().len()];
        for (id, _, shown, color, _) in &self.parts {
            if let Some(x) = out.get_mut(id.0) {
                *x = (shown.0, color.0);
            }
        }
        out
    }

    pub fn snapshot(&self) -> Snapshot {
        snapshot(&self.solver, &self.props(), &self.info.document.solver)
    }

    /// Whether the scene differs from its file now.
    pub fn differs(&self, file: &SceneFile) -> bool {
        file.differs_from(&self.snapshot())
    }

    /// The document as it stands: each part's entry from its entity, poses and `fixed` from
    /// the solver, the camera as it looks (windowed).
    pub fn document(&self) -> SceneDocument {
        let mut rows: Vec<_> = self.parts.iter().collect();
        rows.sort_by_key(|r| r.0.0);
        let mut doc = self.info.document.clone();
        doc.parts = rows
            .into_iter()
            .map(|(_, name, shown, color, file)| PartDocument {
                name: name.as_str().to_string(),
                mesh: file.mesh.clone(),
                object: file.object.clone(),
                scale: file.scale,
                pose: PoseDocument::default(),
                fixed: false,
                color: color.0,
                visible: shown.0,
            })
            .collect();
        if let Some((orbit, projection)) = self.camera.iter().next() {
            doc.camera = Some(camera_document(orbit, projection));
        }
        doc.with_poses(&self.solver.poses(), &self.solver.fixed())
    }
}

fn camera_document(orbit: &Orbit, projection: &Projection) -> CameraDocument {
    let fov = match projection {
        Projection::Perspective(p) => p.fov.to_degrees() as f64,
        _ => 45.0,
    };
    let a = |v: Vec3| v.as_dvec3().to_array();
    CameraDocument { eye: a(orbit.eye()), target: a(orbit.target), up: a(orbit.up), fov_degrees: fov }
}

/// Takes a finished job's result: a loaded scene goes to be installed, a saved one becomes
/// the scene's file.
#[allow(clippy::too_many_arguments)]
pub(super) fn poll(
    mut job: ResMut<FileJob>,
    mut pending: ResMut<PendingScene>,
    mut errors: ResMut<Errors>,
    mut file: ResMut<SceneFile>,
    mut recent: ResMut<RecentFiles>,
    mut prompt: ResMut<Prompt>,
    mut commands: MessageWriter<FileCommand>,
    mut files: Query<(&PartId, &mut PartFile)>,
) {
    match &mut *job {
        FileJob::Idle => {}
        FileJob::Loading { job: j, .. } => {
            let Some(result) = check_ready(&mut j.task) else { return };
            let FileJob::Loading { origin, .. } = std::mem::take(&mut *job) else { unreachable!() };
            match result {
                Ok(ready) => pending.0 = Some((ready, origin)),
                // The error names the file (and line) itself.
                Err(e) => errors.report(format!("Could not open the scene: {e}")),
            }
        }
        FileJob::Saving { job: j, .. } => {
            let Some(result) = check_ready(&mut j.task) else { return };
            let FileJob::Saving { path, state, .. } = std::mem::take(&mut *job) else { unreachable!() };
            match result {
                Ok(saved) => {
                    info!("saved {}", path.display());
                    // Mesh paths are now relative to the new file.
                    for (id, mut f) in &mut files {
                        if let Some(p) = saved.parts.get(id.0)
                            && f.mesh != p.mesh
                        {
                            f.mesh = p.mesh.clone();
                        }
                    }
                    file.saved_as(Origin::Scene(path.clone()), state);
                    recent.remember(&path);
                    prompt.saved(true, &mut commands);
                }
                Err(e) => {
                    prompt.saved(false, &mut commands);
                    errors.report(e);
                }
            }
        }
    }
}
