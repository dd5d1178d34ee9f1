//! `mockup [SCENE.ron | ASSEMBLY.obj]`: opens a scene, imports an OBJ assembly, or (no
//! argument) the built-in `car_door`. `mockup --e2e OUT.ppm` runs the end-to-end check
//! (script.rs).

use bevy::prelude::*;
use bevy::window::ExitCondition;
use mockup::files::{Files, Origin, start_load};
use mockup::manipulation::{Gestures, window_input::read_pointer};
use mockup::*;
use std::path::PathBuf;

const USAGE: &str = "usage: mockup [SCENE.ron | ASSEMBLY.obj]   (no argument: the built-in car_door)
       mockup --e2e OUT.ppm                 (end-to-end check: drag the door into contact, screenshot)";

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (origin, e2e) = match args.as_slice() {
        [] => (Origin::BuiltIn, None),
        [flag] if flag == "--help" || flag == "-h" => {
            println!("{USAGE}");
            return AppExit::Success;
        }
        [flag, out] if flag == "--e2e" => (Origin::BuiltIn, Some(PathBuf::from(out))),
        [path] if !path.starts_with('-') => {
            let p = PathBuf::from(path);
            if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj")) {
                (Origin::Obj(p), None)
            } else {
                (Origin::Scene(p), None)
            }
        }
        _ => {
            eprintln!("{USAGE}");
            return AppExit::error();
        }
    };
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window { title: "Mockup".into(), ..default() }),
        // Closing asks about unsaved changes first (ui.rs).
        close_when_requested: false,
        exit_condition: ExitCondition::DontExit,
        ..default()
    }))
    .add_plugins(bevy_egui::EguiPlugin::default())
    .add_plugins((
        CorePlugin,
        scene::SceneVisualsPlugin,
        camera::CameraPlugin,
        contacts::ContactsPlugin,
        status::StatusPlugin,
        shortcuts::ShortcutsPlugin,
        ui::UiPlugin,
    ));
    match e2e {
        Some(out) => {
            app.add_plugins(script::ScriptPlugin { out });
        }
        None => {
            app.add_systems(Update, read_pointer.before(Gestures));
        }
    }
    let mut files = app.world_mut().resource_mut::<Files>();
    start_load(&mut files, origin);
    app.run()
}
