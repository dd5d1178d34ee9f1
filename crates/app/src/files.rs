//! Opening, importing and saving, with no lost work: loads run on a task behind a progress
//! bar, saves are atomic (`mockup-scene`), unsaved changes prompt before open or quit, and
//! every error goes to a dialog and the log. Paths come from the desktop's file dialog
//! (rfd, polled from a task, never blocking a frame) or from a typed path, which is always
//! available: a portal can accept a request and never answer.

use crate::history::{Snapshot, snapshot};
use crate::scene::{Assembly, PendingScene, SceneOpened};
use crate::simulation::Simulation;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use mockup_scene::save_as::{Meshes, save_as};
use mockup_scene::source::FileSystem;
use mockup_scene::{LoadedScene, SceneDocument};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct FilesPlugin;

/// Where the open scene came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// The built-in `car_door`, embedded in the binary.
    BuiltIn,
    /// A scene file: Save writes it back.
    Scene(PathBuf),
    /// An imported OBJ assembly: Save asks where to write a scene.
    Obj(PathBuf),
}

impl Origin {
    pub fn title(&self) -> String {
        match self {
            Origin::BuiltIn => "car_door (built in)".into(),
            Origin::Scene(p) | Origin::Obj(p) => p.display().to_string(),
        }
    }
}

/// What the user asked of the files, from the menu, a shortcut or a dialog.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum FileCommand {
    /// Ask for a scene file, then open it.
    Open,
    /// Ask for an OBJ file, then import it.
    Import,
    Save,
    SaveAs,
    Quit,
    OpenBuiltIn,
    OpenPath(PathBuf),
    ImportPath(PathBuf),
    SaveTo(PathBuf),
}

impl FileCommand {
    /// Commands that drop the open scene.
    fn discards(&self) -> bool {
        matches!(
            self,
            FileCommand::Open
                | FileCommand::Import
                | FileCommand::Quit
                | FileCommand::OpenBuiltIn
                | FileCommand::OpenPath(_)
                | FileCommand::ImportPath(_)
        )
    }
}

/// What a chosen path is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Open,
    Import,
    SaveAs,
    LoadPath,
    SavePath,
}

impl Purpose {
    pub fn verb(self) -> &'static str {
        match self {
            Purpose::Open => "Open scene",
            Purpose::Import => "Import OBJ assembly",
            Purpose::SaveAs => "Save scene as",
            Purpose::LoadPath => "Load drag path",
            Purpose::SavePath => "Save drag path",
        }
    }

    fn extension(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Purpose::Import => ("OBJ assembly", &["obj"]),
            Purpose::LoadPath | Purpose::SavePath => ("Drag path", &["ron"]),
            _ => ("Mockup scene", &["ron"]),
        }
    }

    fn saves(self) -> bool {
        matches!(self, Purpose::SaveAs | Purpose::SavePath)
    }
}

/// A path being chosen: the native dialog's task, and the typed path (shown when the user
/// asks for it, or at once when native dialogs are off or unavailable).
pub struct Chooser {
    pub purpose: Purpose,
    native: Option<(Task<Option<PathBuf>>, Instant)>,
    pub typed: Option<String>,
}

/// A path chosen for something other than a scene (drag paths).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct PathChosen(pub Purpose, pub PathBuf);

/// A load in progress.
pub struct Loading {
    pub what: String,
    origin: Origin,
    task: Task<Result<LoadedScene, String>>,
    progress: Arc<Mutex<(f32, String)>>,
}

impl Loading {
    /// The fraction done and the stage.
    pub fn progress(&self) -> (f32, String) {
        self.progress.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

#[derive(Resource)]
pub struct Files {
    pub origin: Origin,
    /// The state when the scene was opened or last saved.
    saved: Option<Snapshot>,
    /// A scene just started being installed: take its saved state once it is.
    take_saved: bool,
    pub recent: Vec<PathBuf>,
    pub loading: Option<Loading>,
    pub chooser: Option<Chooser>,
    /// Errors to show, oldest first.
    pub errors: Vec<String>,
    /// Unsaved changes: this command waits for Save / Discard / Cancel.
    pub confirm: Option<FileCommand>,
    /// Run after the next successful save (Save chosen in the prompt).
    after_save: Option<FileCommand>,
    /// The next discarding command skips the prompt (Discard chosen).
    discard_once: bool,
    /// Commands to run next frame (after a save that a prompt asked for).
    deferred: Vec<FileCommand>,
    /// Try the desktop's file dialog before the typed path.
    pub native_dialogs: bool,
    /// Where the recent-files list is kept; `None`: not kept.
    config_dir: Option<PathBuf>,
}

impl Default for Files {
    fn default() -> Self {
        let config_dir = std::env::var_os("MOCKUP_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("mockup")))
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/mockup")));
        let recent = config_dir.as_deref().map(read_recent).unwrap_or_default();
        Files {
            origin: Origin::BuiltIn,
            saved: None,
            take_saved: false,
            recent,
            loading: None,
            chooser: None,
            errors: Vec::new(),
            confirm: None,
            after_save: None,
            discard_once: false,
            deferred: Vec::new(),
            native_dialogs: std::env::var_os("MOCKUP_TYPED_PATHS").is_none(),
            config_dir,
        }
    }
}

impl Files {
    /// The scene being installed came from `origin` and is saved as it stands.
    pub fn opened(&mut self, origin: Origin) {
        self.origin = origin;
        self.take_saved = true;
    }

    /// Whether the scene differs from when it was opened or last saved.
    pub fn unsaved(&self, assembly: &Assembly, sim: &Simulation) -> bool {
        match &self.saved {
            Some(s) => *s != snapshot(assembly, sim),
            None => false,
        }
    }

    pub fn error(&mut self, message: String) {
        error!("{message}");
        self.errors.push(message);
    }

    /// Starts choosing a path.
    pub fn choose(&mut self, purpose: Purpose) {
        let native = self.native_dialogs && session_bus();
        let typed = (!native).then(String::new);
        let native = native.then(|| (native_dialog(purpose), Instant::now()));
        self.chooser = Some(Chooser { purpose, native, typed });
    }

    /// The chooser closed with nothing chosen: whatever waited on a save waits no more.
    pub fn cancel_choice(&mut self) {
        self.chooser = None;
        self.after_save = None;
    }

    /// The user wants to type the path (the native dialog, if any, is left to time out).
    pub fn type_path(&mut self) {
        if let Some(c) = &mut self.chooser {
            c.typed.get_or_insert_with(String::new);
        }
    }

    fn remember(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or(path.to_path_buf());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(8);
        if let Some(dir) = &self.config_dir
            && let Err(e) = write_recent(dir, &self.recent)
        {
            warn!("could not keep the recent files in {}: {e}", dir.display());
        }
    }
}

fn read_recent(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(dir.join("recent.ron"))
        .ok()
        .and_then(|t| ron::from_str::<Vec<PathBuf>>(&t).ok())
        .unwrap_or_default()
}

fn write_recent(dir: &Path, recent: &[PathBuf]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = ron::to_string(recent).map_err(std::io::Error::other)?;
    mockup_scene::document::write_atomic(&dir.join("recent.ron"), text.as_bytes())
}

/// The desktop's file dialog on a task.
fn native_dialog(purpose: Purpose) -> Task<Option<PathBuf>> {
    let (name, extensions) = purpose.extension();
    let dialog = rfd::AsyncFileDialog::new().set_title(purpose.verb()).add_filter(name, extensions);
    AsyncComputeTaskPool::get().spawn(async move {
        let file = if purpose.saves() { dialog.save_file().await } else { dialog.pick_file().await };
        file.map(|f| f.path().to_path_buf())
    })
}

/// A native dialog that answers "nothing chosen" this fast never showed: there is no portal.
const NO_PORTAL: Duration = Duration::from_millis(1500);

/// The desktop portal is reached over the D-Bus session bus: without one there is no dialog
/// to wait for (Xvfb, a bare X server, a container), and the path is typed at once.
fn session_bus() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty())
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).join("bus").exists())
}

impl Plugin for FilesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Files>()
            .add_message::<FileCommand>()
            .add_message::<PathChosen>()
            .add_systems(PreUpdate, take_saved_state.after(crate::simulation::Rebuild))
            .add_systems(Update, (commands, poll_chooser, poll_loading).chain().after(crate::simulation::Step));
    }
}

fn take_saved_state(
    mut opened: MessageReader<SceneOpened>,
    mut files: ResMut<Files>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
) {
    if opened.read().count() > 0 && files.take_saved {
        files.take_saved = false;
        files.saved = Some(snapshot(&assembly, &sim));
    }
}

/// Starts loading `origin` on a task.
pub fn start_load(files: &mut Files, origin: Origin) {
    let progress = Arc::new(Mutex::new((0.0, "starting".to_string())));
    let p = progress.clone();
    let what = origin.title();
    let o = origin.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move {
        let mut report = |x: mockup_scene::Progress| {
            if let Ok(mut g) = p.lock() {
                *g = (x.fraction, x.stage);
            }
        };
        let result = match &o {
            Origin::BuiltIn => {
                let (source, path) = mockup_scene::embedded::default_scene();
                mockup_scene::load(&path, &source, &mut report)
            }
            Origin::Scene(path) => mockup_scene::load(path, &FileSystem, &mut report),
            Origin::Obj(path) => mockup_scene::import_obj(path, &Default::default(), &mut report),
        };
        result.map_err(|e| e.to_string())
    });
    files.loading = Some(Loading { what, origin, task, progress });
}

#[allow(clippy::too_many_arguments)]
fn commands(
    mut commands: MessageReader<FileCommand>,
    mut files: ResMut<Files>,
    mut assembly: ResMut<Assembly>,
    sim: Res<Simulation>,
    camera: Query<(&crate::camera::Orbit, &Projection)>,
    mut exit: MessageWriter<AppExit>,
) {
    let mut pending: Vec<FileCommand> = std::mem::take(&mut files.deferred);
    pending.extend(commands.read().cloned());
    for command in pending {
        if files.loading.is_some() && command != FileCommand::Quit {
            files.error("A scene is still loading; try again when it is open.".into());
            continue;
        }
        if command.discards() && files.unsaved(&assembly, &sim) && !std::mem::take(&mut files.discard_once) {
            files.confirm = Some(command);
            continue;
        }
        match command {
            FileCommand::Open => files.choose(Purpose::Open),
            FileCommand::Import => files.choose(Purpose::Import),
            FileCommand::SaveAs => files.choose(Purpose::SaveAs),
            FileCommand::Save => match files.origin.clone() {
                Origin::Scene(path) => save(&mut files, &mut assembly, &sim, &camera, &path),
                _ => files.choose(Purpose::SaveAs),
            },
            FileCommand::SaveTo(path) => save(&mut files, &mut assembly, &sim, &camera, &path),
            FileCommand::Quit => {
                exit.write(AppExit::Success);
            }
            FileCommand::OpenBuiltIn => start_load(&mut files, Origin::BuiltIn),
            FileCommand::OpenPath(p) => {
                files.remember(&p);
                start_load(&mut files, Origin::Scene(p));
            }
            FileCommand::ImportPath(p) => {
                files.remember(&p);
                start_load(&mut files, Origin::Obj(p));
            }
        }
    }
}

/// The prompt's answers.
pub fn answer_unsaved(files: &mut Files, answer: Answer, commands: &mut MessageWriter<FileCommand>) {
    let Some(command) = files.confirm.take() else { return };
    match answer {
        Answer::Save => {
            files.after_save = Some(command);
            commands.write(FileCommand::Save);
        }
        Answer::Discard => {
            files.discard_once = true;
            commands.write(command);
        }
        Answer::Cancel => {}
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Save,
    Discard,
    Cancel,
}

/// The document as it stands: poses from the solver, the camera as it looks.
pub fn current_document(
    assembly: &Assembly,
    sim: &Simulation,
    camera: Option<(&crate::camera::Orbit, &Projection)>,
) -> SceneDocument {
    let mut doc = assembly.loaded.document.clone();
    for (p, pose) in doc.parts.iter_mut().zip(sim.poses()) {
        p.pose = mockup_scene::PoseDocument::from_pose(&pose);
    }
    if let Some((orbit, projection)) = camera {
        let fov = match projection {
            Projection::Perspective(p) => p.fov.to_degrees() as f64,
            _ => 45.0,
        };
        let a = |v: Vec3| v.as_dvec3().to_array();
        doc.camera = Some(mockup_scene::CameraDocument {
            eye: a(orbit.eye()),
            target: a(orbit.target),
            up: a(orbit.up),
            fov_degrees: fov,
        });
    }
    doc
}

fn save(
    files: &mut Files,
    assembly: &mut Assembly,
    sim: &Simulation,
    camera: &Query<(&crate::camera::Orbit, &Projection)>,
    path: &Path,
) {
    let doc = current_document(assembly, sim, camera.iter().next());
    let result = match &files.origin {
        Origin::BuiltIn => {
            let (source, scene) = mockup_scene::embedded::default_scene();
            let from = scene.parent().unwrap_or(Path::new("")).to_path_buf();
            save_as(&doc, Meshes::Copy(&from, &source), path)
        }
        Origin::Scene(old) => save_as(&doc, Meshes::OnDisk(old.parent().unwrap_or(Path::new("."))), path),
        // Imported meshes have absolute paths.
        Origin::Obj(_) => save_as(&doc, Meshes::OnDisk(Path::new(".")), path),
    };
    match result {
        Ok(saved) => {
            info!("saved {}", path.display());
            // Mesh paths are now relative to the new file.
            for (p, s) in assembly.loaded.document.parts.iter_mut().zip(&saved.parts) {
                p.mesh = s.mesh.clone();
            }
            files.origin = Origin::Scene(path.to_path_buf());
            files.saved = Some(snapshot(assembly, sim));
            files.remember(path);
            if let Some(next) = files.after_save.take() {
                files.deferred.push(next);
            }
        }
        Err(e) => {
            files.after_save = None;
            files.error(format!("Could not save: {e}"));
        }
    }
}

fn poll_chooser(
    mut files: ResMut<Files>,
    mut commands: MessageWriter<FileCommand>,
    mut chosen: MessageWriter<PathChosen>,
) {
    let Some(chooser) = &mut files.chooser else { return };
    let Some((task, started)) = &mut chooser.native else { return };
    let Some(answer) = check_ready(task) else { return };
    let fast = started.elapsed() < NO_PORTAL;
    chooser.native = None;
    let purpose = chooser.purpose;
    match answer {
        Some(path) => {
            files.chooser = None;
            send_chosen(purpose, path, &mut commands, &mut chosen);
        }
        // Cancelled, unless it came back before any dialog could show: then type the path.
        None if fast && chooser.typed.is_none() => {
            info!("no desktop file dialog answered; type the path instead");
            chooser.typed = Some(String::new());
        }
        None if chooser.typed.is_none() => files.cancel_choice(),
        None => {}
    }
}

/// A typed path was confirmed (or a native one chosen).
pub fn send_chosen(
    purpose: Purpose,
    path: PathBuf,
    commands: &mut MessageWriter<FileCommand>,
    chosen: &mut MessageWriter<PathChosen>,
) {
    match purpose {
        Purpose::Open => {
            commands.write(FileCommand::OpenPath(path));
        }
        Purpose::Import => {
            commands.write(FileCommand::ImportPath(path));
        }
        Purpose::SaveAs => {
            let path = if path.extension().is_none() { path.with_extension("ron") } else { path };
            commands.write(FileCommand::SaveTo(path));
        }
        Purpose::LoadPath | Purpose::SavePath => {
            chosen.write(PathChosen(purpose, path));
        }
    }
}

fn poll_loading(mut files: ResMut<Files>, mut pending: ResMut<PendingScene>) {
    let Some(loading) = &mut files.loading else { return };
    let Some(result) = check_ready(&mut loading.task) else { return };
    let origin = loading.origin.clone();
    files.loading = None;
    match result {
        Ok(scene) => {
            for w in &scene.warnings {
                warn!("{w}");
            }
            info!(
                "opened {} ({} parts; parsed in {:.2} s, trees in {:.2} s)",
                origin.title(),
                scene.document.parts.len(),
                scene.parse_time.as_secs_f64(),
                scene.build_time.as_secs_f64()
            );
            files.opened(origin);
            pending.0 = Some(scene);
        }
        // The error names the file (and line) itself.
        Err(e) => files.error(format!("Could not open the scene: {e}")),
    }
}
