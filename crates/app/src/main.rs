//! `mockup [SCENE.ron | MESHES.obj|.stl|.gltf|.glb]`: opens a scene, imports a mesh file, or
//! (no argument) the built-in `car_door`.

use bevy::prelude::*;
use mockup::files::Origin;
use mockup::files::job::FileJob;
use std::path::PathBuf;

const USAGE: &str = "usage: mockup [SCENE.ron | MESHES.obj|.stl|.gltf|.glb]   (no argument: the built-in car_door)";

fn main() -> AppExit {
    mockup_solver::memory::map_large_allocations();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let origin = match args.as_slice() {
        [] => Origin::BuiltIn,
        [flag] if flag == "--help" || flag == "-h" => {
            println!("{USAGE}");
            return AppExit::Success;
        }
        [path] if !path.starts_with('-') => match Origin::of_path(&PathBuf::from(path)) {
            Ok(origin) => origin,
            Err(e) => {
                eprintln!("mockup: {e}\n{USAGE}");
                return AppExit::error();
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return AppExit::error();
        }
    };
    let mut app = mockup::desktop();
    mockup::input::add_mouse(&mut app);
    let budget = *app.world().resource::<mockup::solver::DragBudget>();
    app.world_mut().resource_mut::<FileJob>().start_load(origin, budget);
    app.run()
}
