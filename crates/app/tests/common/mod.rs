//! What the app's headless tests share: a cube and a wall, an app opened on them, synthetic
//! pointer frames and drags, waiting for tasks (a load or save, the status analysis, a drag
//! step the budget cut short).
#![allow(dead_code)] // each test file uses its own share

use bevy::prelude::*;
use glam::DVec3;
use mockup::files::Origin;
use mockup::files::job::FileJob;
use mockup::manipulation::{ButtonState, PointerInput};
use mockup::part::{PartColor, PartId, Shown};
use mockup::solver::{Solver, StepState};
use mockup::status::PartStatus;
use mockup_ccd::{Collider, MeshBuilder, Pose};
use mockup_scene::{LoadedScene, PartDocument, PoseDocument, SCENE_VERSION, SceneDocument};
use std::path::PathBuf;
use std::sync::Arc;

/// A unit cube (movable, at the origin) and a wall (fixed) filling 2 ≤ x ≤ 3.
pub fn cube_and_wall() -> LoadedScene {
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
    let wall = MeshBuilder::new()
        .cuboid(Pose::from_translation(DVec3::new(2.5, 0.0, 0.0)), DVec3::new(0.5, 10.0, 10.0))
        .build()
        .unwrap();
    let part = |name: &str, fixed| PartDocument {
        name: name.into(),
        mesh: format!("/nowhere/{name}.obj"),
        object: None,
        scale: Default::default(),
        pose: PoseDocument::default(),
        fixed,
        color: [0.5, 0.5, 0.5],
        visible: true,
    };
    LoadedScene {
        document: SceneDocument {
            version: SCENE_VERSION,
            size: Some(10.0),
            parts: vec![part("cube", false), part("wall", true)],
            solver: Default::default(),
            camera: None,
        },
        colliders: vec![Arc::new(Collider::new(cube)), Arc::new(Collider::new(wall))],
        size: 10.0,
        warnings: Vec::new(),
        parse_time: Default::default(),
        build_time: Default::default(),
    }
}

pub fn app_with(scene: LoadedScene) -> App {
    open_in(mockup::headless(), scene)
}

/// Opens `scene` in `app` (its plugins added), as if imported from an OBJ file.
pub fn open_in(mut app: App, scene: LoadedScene) -> App {
    // No recent-files list written into the user's configuration.
    unsafe {
        std::env::set_var("MOCKUP_CONFIG_DIR", std::env::temp_dir().join(format!("mockup-cfg-{}", std::process::id())))
    };
    mockup::install_now(&mut app, scene, Origin::Import(PathBuf::from("/nowhere/cube.obj")));
    app
}

/// The camera looks down −z; the pointer's ray comes straight down through (x, y).
pub fn pointer(x: f64, y: f64, left: ButtonState) -> PointerInput {
    PointerInput {
        ray: Some((DVec3::new(x, y, 10.0), -DVec3::Z)),
        forward: -DVec3::Z,
        right: DVec3::X,
        up: DVec3::Y,
        left,
        ..default()
    }
}

pub const PRESS: ButtonState = ButtonState { pressed: true, just_pressed: true };
pub const HOLD: ButtonState = ButtonState { pressed: true, just_pressed: false };
pub const UP: ButtonState = ButtonState { pressed: false, just_pressed: false };

pub fn frame(app: &mut App, input: PointerInput) {
    *app.world_mut().resource_mut::<PointerInput>() = input;
    app.update();
}

/// Presses on the cube's top at the origin and drags the pointer along `to` (frames), then
/// releases.
pub fn drag(app: &mut App, to: &[(f64, f64)]) {
    frame(app, pointer(0.0, 0.0, PRESS));
    for &(x, y) in to {
        frame(app, pointer(x, y, HOLD));
    }
    frame(app, pointer(to.last().map_or(0.0, |p| p.0), to.last().map_or(0.0, |p| p.1), UP));
    settle(app);
}

pub fn cube_pose(app: &App) -> Pose {
    app.world().resource::<Solver>().bodies()[0].pose
}

/// A part's (shown, colour, fixed).
pub fn props(app: &mut App, part: usize) -> (bool, [f32; 3], bool) {
    let fixed = app.world().resource::<Solver>().bodies()[part].fixed;
    let mut q = app.world_mut().query::<(&PartId, &Shown, &PartColor)>();
    let (_, s, c) = q.iter(app.world()).find(|p| p.0.0 == part).expect("no such part");
    (s.0, c.0, fixed)
}

pub fn ramp(from: (f64, f64), to: (f64, f64), n: usize) -> Vec<(f64, f64)> {
    (1..=n)
        .map(|k| {
            let t = k as f64 / n as f64;
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        })
        .collect()
}

pub fn no_interpenetration(app: &App) {
    assert!(app.world().resource::<Solver>().intersecting_pairs().is_empty());
}

pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mockup-app-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Updates until the file job (a load or a save, on another thread) is done.
pub fn wait_loaded(app: &mut App) {
    for _ in 0..4000 {
        app.update();
        if !app.world().resource::<FileJob>().busy() {
            app.update();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the file job did not finish");
}

/// Updates until the drag step has caught up with its target (the budget may cut a step
/// short; the next frames go on).
pub fn settle(app: &mut App) {
    for _ in 0..10_000 {
        if !app.world().resource::<StepState>().busy() {
            return;
        }
        app.update();
    }
    panic!("the drag step never caught up");
}

/// Updates until the status analysis of the selected part has answered (it runs on a task).
pub fn wait_status(app: &mut App) {
    for _ in 0..4000 {
        app.update();
        if !app.world().resource::<PartStatus>().running() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    panic!("the status analysis did not answer");
}
