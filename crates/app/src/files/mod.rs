//! Opening, importing and saving, with no lost work: loads and saves run on tasks behind a
//! progress bar (`job.rs`), saves are atomic (`mockup-scene`), unsaved changes prompt before
//! open or quit (`prompt.rs`), and every error goes to a dialog and the log ([`Errors`]).
//! Paths come from the desktop's file dialog or a typed path (`chooser.rs`); the recent
//! files are kept in the user's configuration (`recent.rs`).

pub mod chooser;
pub mod job;
pub mod prompt;
pub mod recent;

use crate::MockupSet;
use crate::history::{Snapshot, snapshot};
use crate::part::Parts;
use crate::scene::{SceneInfo, SceneOpened};
use crate::solver::Solver;
use bevy::prelude::*;
use chooser::{Chooser, NativeDialogs, Purpose};
use job::FileJob;
use prompt::Prompt;
use recent::RecentFiles;
use std::path::{Path, PathBuf};

pub struct FilesPlugin;

/// Where the open scene came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// The built-in `car_door`, embedded in the binary.
    BuiltIn,
    /// A scene file: Save writes it back.
    Scene(PathBuf),
    /// An imported mesh file (OBJ, STL, glTF, GLB): Save asks where to write a scene.
    Import(PathBuf),
}

impl Origin {
    pub fn title(&self) -> String {
        match self {
            Origin::BuiltIn => "car_door (built in)".into(),
            Origin::Scene(p) | Origin::Import(p) => p.display().to_string(),
        }
    }

    /// A scene (`.ron`) or a mesh file to import, by the path's extension.
    pub fn of_path(path: &Path) -> Result<Origin, String> {
        let ron = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron"));
        if ron {
            Ok(Origin::Scene(path.to_path_buf()))
        } else if mockup_scene::Format::of(path).is_some() {
            Ok(Origin::Import(path.to_path_buf()))
        } else {
            Err(format!(
                "{}: not a scene (.ron) or a mesh file Mockup reads ({})",
                path.display(),
                mockup_scene::mesh_file::EXTENSIONS
            ))
        }
    }
}

/// What the user asked of the files, from the menu, a shortcut or a dialog.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum FileCommand {
    /// Ask for a scene file, then open it.
    Open,
    /// Ask for a mesh file, then import it.
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

/// The open scene's file: where it came from, and the scene's state when it was opened or
/// last saved.
#[derive(Resource)]
pub struct SceneFile {
    pub origin: Origin,
    saved: Option<Snapshot>,
}

impl SceneFile {
    /// Whether `now` differs from the scene's state when opened or last saved.
    pub fn differs_from(&self, now: &Snapshot) -> bool {
        self.saved.as_ref().is_some_and(|s| s != now)
    }

    /// The scene is now this file, in this state.
    pub fn saved_as(&mut self, origin: Origin, state: Snapshot) {
        *self = SceneFile { origin, saved: Some(state) };
    }
}

impl Default for SceneFile {
    fn default() -> Self {
        SceneFile { origin: Origin::BuiltIn, saved: None }
    }
}

/// Whether the scene differs from its file (poses, part properties, solver settings);
/// computed once a frame.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsaved(pub bool);

/// Errors to show, oldest first.
#[derive(Resource, Default, Debug)]
pub struct Errors(pub Vec<String>);

impl Errors {
    pub fn report(&mut self, message: String) {
        error!("{message}");
        self.0.push(message);
    }
}

impl Plugin for FilesPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SceneFile>()
            .init_resource::<Unsaved>()
            .init_resource::<Errors>()
            .init_resource::<FileJob>()
            .init_resource::<Prompt>()
            .init_resource::<Chooser>()
            .init_resource::<NativeDialogs>()
            .init_resource::<RecentFiles>()
            .add_message::<FileCommand>()
            .add_message::<chooser::FileChosen>()
            .add_systems(
                Update,
                (
                    job::poll.before(crate::scene::install).in_set(MockupSet::Install),
                    opened.after(crate::scene::install).in_set(MockupSet::Install),
                    (commands, chooser::poll).chain().in_set(MockupSet::Edits),
                    track_unsaved.in_set(MockupSet::Present),
                ),
            );
    }
}

/// A new scene is as its file says.
fn opened(
    mut opened: MessageReader<SceneOpened>,
    mut file: ResMut<SceneFile>,
    solver: Res<Solver>,
    parts: Parts,
    info: Res<SceneInfo>,
) {
    let Some(SceneOpened(origin)) = opened.read().last() else { return };
    let n = solver.bodies().len();
    file.saved_as(origin.clone(), snapshot(&solver, &parts.props(n), &info.document.solver));
}

fn track_unsaved(
    file: Res<SceneFile>,
    solver: Res<Solver>,
    parts: Parts,
    info: Res<SceneInfo>,
    mut unsaved: ResMut<Unsaved>,
) {
    let now = file.differs_from(&snapshot(&solver, &parts.props(solver.bodies().len()), &info.document.solver));
    if unsaved.0 != now {
        unsaved.0 = now;
    }
}

#[allow(clippy::too_many_arguments)]
fn commands(
    mut commands: MessageReader<FileCommand>,
    file: Res<SceneFile>,
    mut job: ResMut<FileJob>,
    mut prompt: ResMut<Prompt>,
    mut chooser: ResMut<Chooser>,
    native: Res<NativeDialogs>,
    mut errors: ResMut<Errors>,
    mut recent: ResMut<RecentFiles>,
    budget: Res<crate::solver::DragBudget>,
    save: job::SaveInput,
    mut exit: MessageWriter<AppExit>,
) {
    for command in commands.read().cloned() {
        if job.busy() && command != FileCommand::Quit {
            errors.report(format!("{} is still running; try again when it is done.", job.what()));
            continue;
        }
        if command.discards() && save.differs(&file) && !prompt.proceed(&command) {
            *prompt = Prompt::Asking(command);
            continue;
        }
        match command {
            FileCommand::Open => chooser.start(Purpose::Open, native.0),
            FileCommand::Import => chooser.start(Purpose::Import, native.0),
            FileCommand::SaveAs => chooser.start(Purpose::SaveAs, native.0),
            FileCommand::Save => match file.origin.clone() {
                Origin::Scene(path) => job.start_save(&save, &file.origin, path),
                _ => chooser.start(Purpose::SaveAs, native.0),
            },
            FileCommand::SaveTo(path) => job.start_save(&save, &file.origin, path),
            FileCommand::Quit => {
                exit.write(AppExit::Success);
            }
            FileCommand::OpenBuiltIn => job.start_load(Origin::BuiltIn, *budget),
            FileCommand::OpenPath(p) => {
                recent.remember(&p);
                // A mesh file chosen to open is imported.
                job.start_load(Origin::of_path(&p).unwrap_or(Origin::Scene(p)), *budget);
            }
            FileCommand::ImportPath(p) => {
                recent.remember(&p);
                job.start_load(Origin::Import(p), *budget);
            }
        }
    }
}
