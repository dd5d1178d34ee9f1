//! `mockup`: drag parts with the mouse; they stop at contact and slide, never
//! interpenetrating. Thin: the mouse becomes a target pose, `mockup-solver` moves the part,
//! and the app draws what comes back. One plugin per concern.

mod camera;
mod contacts;
mod history;
mod manipulation;
mod scene;
mod simulation;
mod status;

use bevy::prelude::*;
use mockup_scene::source::FileSystem;
use mockup_scene::{LoadedScene, embedded};
use std::path::Path;

/// What to open: a scene, an OBJ assembly, or (no argument) the embedded `car_door`.
fn open(arg: Option<&str>) -> Result<LoadedScene, String> {
    match arg {
        None => {
            let (files, path) = embedded::default_scene();
            mockup_scene::load(&path, &files, &mut |_| {}).map_err(|e| e.to_string())
        }
        Some(p) if p.to_ascii_lowercase().ends_with(".obj") => {
            mockup_scene::import_obj(Path::new(p), &Default::default(), &mut |_| {}).map_err(|e| e.to_string())
        }
        Some(p) => mockup_scene::load(Path::new(p), &FileSystem, &mut |_| {}).map_err(|e| e.to_string()),
    }
}

fn main() -> AppExit {
    let arg = std::env::args().nth(1);
    let loaded = match open(arg.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mockup: {e}");
            std::process::exit(2);
        }
    };
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let title = format!("Mockup — {}", arg.as_deref().unwrap_or("car_door (built in)"));
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin { primary_window: Some(Window { title: title.clone(), ..default() }), ..default() }),
        )
        .add_plugins((
            scene::ScenePlugin { loaded, title },
            camera::CameraPlugin,
            simulation::SimulationPlugin,
            manipulation::ManipulationPlugin,
            contacts::ContactsPlugin,
            history::HistoryPlugin,
            status::StatusPlugin,
        ))
        .run()
}
