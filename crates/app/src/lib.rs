//! `mockup`, the desktop app: drag parts with the mouse; they stop at contact and slide,
//! never interpenetrating. Thin: the mouse becomes a target pose, `mockup-solver` moves the
//! part, and the app draws what comes back. One plugin per concern; the ones that need no
//! window or GPU form [`CorePlugin`], which headless tests and the drag benchmark run.

pub mod camera;
pub mod contacts;
pub mod files;
pub mod history;
pub mod manipulation;
pub mod paths;
pub mod scene;
pub mod script;
pub mod shortcuts;
pub mod simulation;
pub mod status;
pub mod ui;

use bevy::prelude::*;

/// Scene state, the solver, the pointer → solver bridge, undo, files and drag paths: no
/// window, no rendering.
pub struct CorePlugin;

impl Plugin for CorePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            scene::ScenePlugin,
            simulation::SimulationPlugin,
            manipulation::ManipulationPlugin,
            history::HistoryPlugin,
            files::FilesPlugin,
            paths::PathsPlugin,
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

/// Installs a loaded scene now (tests and benchmarks; the app loads on a task).
pub fn install_now(app: &mut App, loaded: mockup_scene::LoadedScene, origin: files::Origin) {
    app.world_mut().resource_mut::<files::Files>().opened(origin);
    app.world_mut().resource_mut::<scene::PendingScene>().0 = Some(loaded);
    app.update();
}
