//! Choosing a file: the desktop's file dialog (rfd 0.17 `AsyncFileDialog` through the XDG
//! portal) on a task the app polls each frame, so a frame never waits for it; or a typed
//! path, which is always available, because a portal can accept a request and never answer.

use super::FileCommand;
use super::prompt::Prompt;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What a chosen file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Open,
    Import,
    SaveAs,
    LoadDragPath,
    SaveDragPath,
}

impl Purpose {
    pub fn verb(self) -> &'static str {
        match self {
            Purpose::Open => "Open scene",
            Purpose::Import => "Import meshes (OBJ, STL, glTF, GLB)",
            Purpose::SaveAs => "Save scene as",
            Purpose::LoadDragPath => "Load drag path",
            Purpose::SaveDragPath => "Save drag path",
        }
    }

    /// The dialog's filter: a name and the extensions (both cases: the portal's patterns
    /// are case-sensitive).
    fn filter(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Purpose::Import => {
                ("Meshes (OBJ, STL, glTF, GLB)", &["obj", "stl", "gltf", "glb", "OBJ", "STL", "GLTF", "GLB"])
            }
            Purpose::LoadDragPath | Purpose::SaveDragPath => ("Drag path", &["ron"]),
            _ => ("Mockup scene", &["ron"]),
        }
    }

    fn saves(self) -> bool {
        matches!(self, Purpose::SaveAs | Purpose::SaveDragPath)
    }
}

/// A file chosen for a drag path (scenes go through [`FileCommand`]).
#[derive(Message, Clone, Debug, PartialEq)]
pub struct FileChosen(pub Purpose, pub PathBuf);

/// A file being chosen: the native dialog's task, and the typed path (shown when the user
/// asks for it, or at once when native dialogs are off or unavailable).
pub struct Choosing {
    pub purpose: Purpose,
    native: Option<(Task<Option<PathBuf>>, Instant)>,
    pub typed: Option<String>,
}

/// The file being chosen, if any.
#[derive(Resource, Default)]
pub struct Chooser(pub Option<Choosing>);

/// Try the desktop's file dialog before the typed path (File menu; `MOCKUP_TYPED_PATHS`
/// turns it off).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct NativeDialogs(pub bool);

impl Default for NativeDialogs {
    fn default() -> Self {
        NativeDialogs(std::env::var_os("MOCKUP_TYPED_PATHS").is_none())
    }
}

impl Chooser {
    pub fn start(&mut self, purpose: Purpose, native_dialogs: bool) {
        let native = native_dialogs && session_bus();
        let typed = (!native).then(String::new);
        let native = native.then(|| (native_dialog(purpose), Instant::now()));
        self.0 = Some(Choosing { purpose, native, typed });
    }

    pub fn purpose(&self) -> Option<Purpose> {
        self.0.as_ref().map(|c| c.purpose)
    }

    /// Closed with nothing chosen.
    pub fn cancel(&mut self, prompt: &mut Prompt) {
        self.0 = None;
        prompt.choice_cancelled();
    }

    /// The user wants to type the path (the native dialog, if any, is left to time out).
    pub fn type_instead(&mut self) {
        if let Some(c) = &mut self.0 {
            c.typed.get_or_insert_with(String::new);
        }
    }
}

/// The desktop's file dialog on a task.
fn native_dialog(purpose: Purpose) -> Task<Option<PathBuf>> {
    let (name, extensions) = purpose.filter();
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

/// The native dialog's answer.
pub(super) fn poll(
    mut chooser: ResMut<Chooser>,
    mut prompt: ResMut<Prompt>,
    mut commands: MessageWriter<FileCommand>,
    mut chosen: MessageWriter<FileChosen>,
) {
    let Some(choosing) = &mut chooser.0 else { return };
    let Some((task, started)) = &mut choosing.native else { return };
    let Some(answer) = check_ready(task) else { return };
    let fast = started.elapsed() < NO_PORTAL;
    choosing.native = None;
    let purpose = choosing.purpose;
    match answer {
        Some(path) => {
            chooser.0 = None;
            send_chosen(purpose, path, &mut commands, &mut chosen);
        }
        // Cancelled, unless it came back before any dialog could show: then type the path.
        None if fast && choosing.typed.is_none() => {
            info!("no desktop file dialog answered; type the path instead");
            choosing.typed = Some(String::new());
        }
        None if choosing.typed.is_none() => chooser.cancel(&mut prompt),
        None => {}
    }
}

/// A file was chosen (typed or in the native dialog): what it was for.
pub fn send_chosen(
    purpose: Purpose,
    path: PathBuf,
    commands: &mut MessageWriter<FileCommand>,
    chosen: &mut MessageWriter<FileChosen>,
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
        Purpose::LoadDragPath | Purpose::SaveDragPath => {
            chosen.write(FileChosen(purpose, path));
        }
    }
}
