//! `mockup`, the desktop app: drag parts with the mouse; they stop at contact and slide,
//! never interpenetrating. Thin: the mouse becomes a target pose, `mockup-solver` moves the
//! part, and the app draws what comes back.
//!
//! Where things live (docs/architecture.md, "The app's frame"):
//! - each part is an entity ([`part::PartId`], its name, [`part::Shown`], [`part::PartColor`],
//!   [`part::PartFile`]) and a body of the solver's world ([`solver::Solver`]), which alone owns
//!   its pose and whether it is fixed; the entity names its body by id;
//! - one frame runs the sets of [`MockupSet`] in order, configured here once;
//! - the plugins that need no window form [`CorePlugin`], which headless tests and the frame
//!   benchmark run; the windowed ones only read, draw and send commands.

pub mod camera;
pub mod contacts;
pub mod drag_path;
pub mod files;
pub mod history;
pub mod input;
pub mod manipulation;
pub mod part;
pub mod scene;
pub mod shortcuts;
pub mod solver;
pub mod status;
pub mod ui;
pub mod visuals;

use bevy::prelude::*;
use bevy::window::ExitCondition;

/// One frame, in this order (in `Update`).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MockupSet {
    /// A scene whose load finished replaces the open one: the solver's world, the part
    /// entities, and everything about the old scene reset.
    Install,
    /// Input becomes [`manipulation::PointerInput`] and commands (mouse, keys, window).
    Input,
    /// Pointer gestures: select, grab, move or turn → this frame's target for the solver.
    Gestures,
    /// Commands change the scene: edits and undo, files, drag paths (a replay sets targets).
    Edits,
    /// The solver moves the part toward this frame's target, or goes on toward the last one.
    Step,
    /// What shows the frame's result: part transforms and colours, the ghost, contacts, the
    /// status analysis, the camera, drag path recording, the window title.
    Present,
}

/// Scene state, the solver, the pointer → solver bridge, undo, files, drag paths and the
/// status analysis: no window, no rendering.
pub struct CorePlugin;

impl Plugin for CorePlugin {
    fn build(&self, app: &mut App) {
        use MockupSet::*;
        app.configure_sets(Update, (Install, Input, Gestures, Edits, Step, Present).chain()).add_plugins((
            scene::ScenePlugin,
            solver::SolverPlugin,
            input::InputPlugin,
            manipulation::ManipulationPlugin,
            history::HistoryPlugin,
            files::FilesPlugin,
            drag_path::DragPathPlugin,
            status::StatusPlugin,
        ));
    }
}

/// The plugins that draw and take the mouse, the keys and the window: on top of
/// [`CorePlugin`] and Bevy's `DefaultPlugins`.
pub struct WindowedPlugins;

impl Plugin for WindowedPlugins {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            visuals::VisualsPlugin,
            camera::CameraPlugin,
            contacts::ContactsPlugin,
            shortcuts::ShortcutsPlugin,
            ui::UiPlugin,
        ));
    }
}

/// The app without a window: what tests and benchmarks drive through
/// [`manipulation::PointerInput`] and the command messages.
pub fn headless() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, CorePlugin));
    app
}

/// The desktop app in a window, with nothing open yet and no source of pointer input: the
/// binary adds the mouse ([`input::read_pointer`]), the end-to-end test its script.
pub fn desktop() -> App {
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window { title: "Mockup".into(), ..default() }),
        // Closing asks about unsaved changes first (ui.rs).
        close_when_requested: false,
        exit_condition: ExitCondition::DontExit,
        ..default()
    }))
    .add_plugins(bevy_egui::EguiPlugin::default())
    .add_plugins((CorePlugin, WindowedPlugins));
    app
}

/// Installs a loaded scene now (tests and benchmarks; the app loads on a task).
pub fn install_now(app: &mut App, loaded: mockup_scene::LoadedScene, origin: files::Origin) {
    let budget = *app.world().resource::<solver::DragBudget>();
    let ready = scene::ReadyScene::prepare(loaded, budget);
    app.world_mut().resource_mut::<scene::PendingScene>().0 = Some((ready, origin));
    app.update();
}
