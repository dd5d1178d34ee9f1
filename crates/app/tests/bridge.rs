//! Headless (MinimalPlugins) tests of the pointer → solver bridge, undo, files and drag
//! paths, with synthetic pointer events: no window, no GPU.

mod common;

use bevy::prelude::*;
use common::*;
use glam::{DQuat, DVec2, DVec3};
use mockup::drag_path::{DragPath, DragPathCommand, Player};
use mockup::files::chooser::{Chooser, FileChosen, NativeDialogs, Purpose};
use mockup::files::job::FileJob;
use mockup::files::prompt::{Answer, Prompt};
use mockup::files::{Errors, FileCommand, Origin, SceneFile, Unsaved};
use mockup::history::Edit;
use mockup::manipulation::{ButtonState, Selection};
use mockup::scene::SceneInfo;
use mockup::solver::{DragBudget, Solver, StepRequest, Target};
use mockup_ccd::Pose;
use std::path::PathBuf;

#[test]
fn a_drag_into_a_wall_stops_at_contact() {
    let mut app = app_with(cube_and_wall());
    drag(&mut app, &ramp((0.0, 0.0), (5.0, 0.0), 30));
    let p = cube_pose(&app).translation;
    let s = *app.world().resource::<Solver>().settings();
    // The cube's face (x + 0.5) stops within εb of the wall at x = 2.
    assert!(p.x + 0.5 < 2.0 && p.x + 0.5 > 2.0 - s.breaking, "stopped at {p:?}");
    assert!(p.y.abs() < 1e-6 && p.z.abs() < 1e-6, "{p:?}");
    assert!(!app.world().resource::<Solver>().contacts().is_empty());
    no_interpenetration(&app);
}

/// Drags the cube into the wall and then along it (the pointer asks for x = 5, y = 3): it
/// stays on the wall, within εb, and slides to y = 3.
fn slides_along_the_wall(app: &mut App) {
    let mut path = ramp((0.0, 0.0), (5.0, 0.0), 20);
    path.extend(ramp((5.0, 0.0), (5.0, 3.0), 30));
    drag(app, &path);
    let p = cube_pose(app).translation;
    let s = *app.world().resource::<Solver>().settings();
    assert!(p.x + 0.5 < 2.0 && p.x + 0.5 > 2.0 - s.breaking, "left the wall: {p:?}");
    assert!((p.y - 3.0).abs() < 1e-3, "did not slide to y = 3: {p:?}");
    no_interpenetration(app);
}

#[test]
fn sliding_follows_the_wall() {
    slides_along_the_wall(&mut app_with(cube_and_wall()));
}

#[test]
fn undo_restores_the_pose_and_redo_the_drag() {
    let mut app = app_with(cube_and_wall());
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 1.0), 10));
    let moved = cube_pose(&app);
    assert!((moved.translation - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-6, "{moved:?}");
    // A click that moves nothing adds no step.
    drag(&mut app, &[]);
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(cube_pose(&app), Pose::IDENTITY);
    app.world_mut().write_message(Edit::Redo);
    app.update();
    assert_eq!(cube_pose(&app), moved);
}

#[test]
fn properties_have_undo_and_a_fixed_part_does_not_move() {
    let mut app = app_with(cube_and_wall());
    app.world_mut().write_message(Edit::Fixed(0, true));
    app.world_mut().write_message(Edit::Color(0, [1.0, 0.0, 0.0]));
    app.update();
    // Two colour changes in a row are one step.
    app.world_mut().write_message(Edit::Color(0, [0.0, 1.0, 0.0]));
    app.update();
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 5));
    assert_eq!(cube_pose(&app), Pose::IDENTITY, "a fixed part was dragged");
    assert_eq!(app.world().resource::<Selection>().0, Some(0), "a fixed part can still be selected");
    assert_eq!(props(&mut app, 0), (true, [0.0, 1.0, 0.0], true));
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(props(&mut app, 0), (true, [0.5, 0.5, 0.5], true));
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(props(&mut app, 0), (true, [0.5, 0.5, 0.5], false));
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 5));
    assert!((cube_pose(&app).translation.x - 1.0).abs() < 1e-6);
}

#[test]
fn the_pointer_over_a_panel_grabs_nothing() {
    let mut app = app_with(cube_and_wall());
    let mut press = pointer(0.0, 0.0, PRESS);
    press.over_ui = true;
    frame(&mut app, press);
    for (x, y) in ramp((0.0, 0.0), (1.0, 0.0), 5) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    assert_eq!(cube_pose(&app), Pose::IDENTITY);
    assert!(app.world().resource::<Selection>().0.is_none());
}

#[test]
fn unsaved_changes_prompt_and_save_as_then_reopen_keeps_the_poses() {
    let dir = temp_dir("save");
    let mut app = mockup::headless();
    // Open the built-in scene on a task, as the app does.
    let budget = *app.world().resource::<DragBudget>();
    app.world_mut().resource_mut::<FileJob>().start_load(Origin::BuiltIn, budget);
    wait_loaded(&mut app);
    let door = part_named(&mut app, "door");
    assert!(!unsaved(&app));
    // Move the door outboard (+y), away from everything, directly through the solver.
    let start = app.world().resource::<Solver>().bodies()[door].pose;
    let target = Pose::new(start.rotation, start.translation + DVec3::new(0.0, 0.3, 0.0));
    app.world_mut().resource_mut::<StepRequest>().0 = Some(Target { part: door, pose: target });
    app.update();
    settle(&mut app);
    assert!(unsaved(&app));
    // Open and Quit wait for an answer.
    app.world_mut().write_message(FileCommand::OpenBuiltIn);
    app.update();
    assert_eq!(*app.world().resource::<Prompt>(), Prompt::Asking(FileCommand::OpenBuiltIn));
    answer(&mut app, Answer::Cancel);
    assert!(!app.world().resource::<FileJob>().busy());
    app.world_mut().write_message(FileCommand::Quit);
    app.update();
    assert_eq!(*app.world().resource::<Prompt>(), Prompt::Asking(FileCommand::Quit));
    answer(&mut app, Answer::Cancel);
    // Save (the built-in scene has no file: it asks where), typed path, on a task.
    let file = dir.join("door.ron");
    app.world_mut().write_message(FileChosen(Purpose::Open, PathBuf::new())); // not a drag path's: ignored
    app.world_mut().write_message(FileCommand::SaveTo(file.clone()));
    app.update();
    wait_loaded(&mut app);
    assert!(app.world().resource::<Errors>().0.is_empty(), "{:?}", app.world().resource::<Errors>().0);
    assert!(!unsaved(&app));
    assert_eq!(app.world().resource::<SceneFile>().origin, Origin::Scene(file.clone()));
    let moved = app.world().resource::<Solver>().bodies()[door].pose;
    // Reopen it: the door is where it was saved.
    app.world_mut().write_message(FileCommand::OpenPath(file.clone()));
    app.update();
    wait_loaded(&mut app);
    let again = app.world().resource::<Solver>().bodies()[door].pose;
    assert!((again.translation - moved.translation).length() < 1e-12, "{again:?} vs {moved:?}");
    assert!(again.rotation.dot(moved.rotation).abs() > 1.0 - 1e-12);
    let recent = &app.world().resource::<mockup::files::recent::RecentFiles>().list;
    assert!(recent.first().is_some_and(|p| p.ends_with("door.ron")));
}

fn unsaved(app: &App) -> bool {
    app.world().resource::<Unsaved>().0
}

fn answer(app: &mut App, a: Answer) {
    app.world_mut()
        .run_system_once(move |mut prompt: ResMut<Prompt>, mut w: MessageWriter<FileCommand>| prompt.answer(a, &mut w))
        .unwrap();
    app.update();
}

fn cancel_chooser(app: &mut App) {
    app.world_mut()
        .run_system_once(|mut chooser: ResMut<Chooser>, mut prompt: ResMut<Prompt>| chooser.cancel(&mut prompt))
        .unwrap();
}

use bevy::ecs::system::RunSystemOnce;

fn part_named(app: &mut App, name: &str) -> usize {
    let mut q = app.world_mut().query::<(&mockup::part::PartId, &Name)>();
    q.iter(app.world()).find(|p| p.1.as_str() == name).map(|p| p.0.0).expect("no such part")
}

fn part_count(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&mockup::part::PartId>();
    q.iter(app.world()).count()
}

#[test]
fn a_missing_file_is_an_error_dialog_not_a_panic() {
    let mut app = app_with(cube_and_wall());
    app.world_mut().write_message(FileCommand::OpenPath(PathBuf::from("/no/such/scene.ron")));
    app.update();
    wait_loaded(&mut app);
    let errors = &app.world().resource::<Errors>().0;
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("/no/such/scene.ron"), "{}", errors[0]);
    // The open scene is still there.
    assert_eq!(app.world().resource::<Solver>().bodies().len(), 2);
    assert_eq!(part_count(&mut app), 2);
}

#[test]
fn a_recorded_path_replays_to_the_same_place_and_round_trips_through_a_file() {
    let mut app = app_with(cube_and_wall());
    app.world_mut().write_message(DragPathCommand::Record);
    app.update();
    let mut path = ramp((0.0, 0.0), (5.0, 0.0), 15);
    path.extend(ramp((5.0, 0.0), (5.0, -2.0), 15));
    drag(&mut app, &path);
    app.world_mut().write_message(DragPathCommand::Stop);
    app.update();
    let end = cube_pose(&app);
    let recorded = app.world().resource::<DragPath>().targets.clone();
    // The press frame asks for the start pose, then one target per frame.
    assert_eq!(recorded.len(), path.len() + 1);
    assert_eq!(recorded[0], Pose::IDENTITY);
    // Back to the start, then replay: the same targets through the same solver.
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(cube_pose(&app), Pose::IDENTITY);
    app.world_mut().write_message(DragPathCommand::Replay);
    for _ in 0..recorded.len() + 3 {
        app.update();
    }
    settle(&mut app);
    app.update();
    assert!(!app.world().resource::<Player>().replaying());
    let replayed = cube_pose(&app);
    assert!((replayed.translation - end.translation).length() < 1e-9, "{replayed:?} vs {end:?}");
    no_interpenetration(&app);
    // Save and load.
    let file = temp_dir("path").join("drag.ron");
    mockup::drag_path::save(&recorded, &file).unwrap();
    assert_eq!(mockup::drag_path::load(&file).unwrap(), recorded);
    std::fs::write(&file, "[(translation: (0, 0, 0), rotation: (0, 0, 0, 1)),\n (translation: (1, 2)").unwrap();
    let e = mockup::drag_path::load(&file).unwrap_err();
    assert!(e.contains("drag.ron:2:"), "{e}");
}

#[test]
fn save_chosen_in_the_prompt_saves_then_goes_on_and_a_cancelled_save_forgets_the_command() {
    let dir = temp_dir("prompt");
    let mut app = app_with(cube_and_wall());
    app.world_mut().resource_mut::<NativeDialogs>().0 = false;
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 5));
    assert!(unsaved(&app));
    // Quit → Save → (imported OBJ: where?) → cancelled: nothing quits, now or later.
    app.world_mut().write_message(FileCommand::Quit);
    app.update();
    answer(&mut app, Answer::Save);
    assert_eq!(app.world().resource::<Chooser>().purpose(), Some(Purpose::SaveAs));
    cancel_chooser(&mut app);
    let file = dir.join("cube.ron");
    app.world_mut().write_message(FileCommand::SaveTo(file.clone()));
    app.update();
    wait_loaded(&mut app);
    app.update();
    assert!(app.should_exit().is_none(), "a later save ran the cancelled Quit");
    assert!(!unsaved(&app));
    // Now with a file to save to: Quit → Save saves, then quits.
    drag(&mut app, &ramp((1.0, 0.0), (0.0, 0.0), 5));
    app.world_mut().write_message(FileCommand::Quit);
    app.update();
    answer(&mut app, Answer::Save);
    wait_loaded(&mut app);
    assert!(!unsaved(&app));
    assert!(app.should_exit().is_some(), "Save in the prompt did not go on to Quit");
    let saved = mockup_scene::document::read(&file).unwrap();
    assert_eq!(saved.parts[0].pose.translation, cube_pose(&app).translation.to_array());
}

/// A scene that asks for the glide narrow phase gets it: the drag stops at the wall and
/// slides along it, with the glide screen doing the checking.
#[test]
fn the_glide_narrow_phase_stops_and_slides_too() {
    let mut scene = cube_and_wall();
    scene.document.solver.narrow_phase = mockup_scene::NarrowPhase::Glide;
    let mut app = app_with(scene);
    let narrow = app.world().resource::<Solver>().settings().narrow_phase;
    assert_eq!(narrow, mockup_solver::NarrowPhase::Glide);
    slides_along_the_wall(&mut app);
}

/// Right drag turns the part trackball style about the grab point (the cube's top centre):
/// mouse motion along screen x turns it about the camera's up axis, 0.008 rad per pixel; Ctrl
/// with the left button does the same. The cube is clear of the wall, so it gets there.
#[test]
fn right_drag_or_ctrl_left_turns_about_the_grab_point() {
    for ctrl in [false, true] {
        let mut app = app_with(cube_and_wall());
        let at = |pressed: ButtonState, motion: DVec2| {
            let mut p = pointer(0.0, 0.0, if ctrl { pressed } else { UP });
            if !ctrl {
                p.right_button = pressed;
            }
            p.ctrl = ctrl;
            p.motion = motion;
            p
        };
        frame(&mut app, at(PRESS, DVec2::ZERO));
        for _ in 0..5 {
            frame(&mut app, at(HOLD, DVec2::new(40.0, 0.0)));
        }
        frame(&mut app, at(UP, DVec2::ZERO));
        let turn = DQuat::from_rotation_y(5.0 * 40.0 * 0.008);
        let pivot = DVec3::new(0.0, 0.0, 0.5);
        let want = pivot + turn * (DVec3::ZERO - pivot);
        let got = cube_pose(&app);
        assert!((got.translation - want).length() < 1e-6, "ctrl {ctrl}: {got:?}, want {want}");
        assert!(got.rotation.angle_between(turn) < 1e-6, "ctrl {ctrl}: {got:?}");
        no_interpenetration(&app);
    }
}

/// The wheel while dragging pushes the part along the view direction (−z here), 1 % of the
/// scene per line.
#[test]
fn the_wheel_pushes_along_the_view_direction() {
    let mut app = app_with(cube_and_wall());
    frame(&mut app, pointer(0.0, 0.0, PRESS));
    let mut p = pointer(0.0, 0.0, HOLD);
    p.wheel = 10.0;
    frame(&mut app, p);
    frame(&mut app, pointer(0.0, 0.0, UP));
    let t = cube_pose(&app).translation;
    assert!((t - DVec3::new(0.0, 0.0, -1.0)).length() < 1e-6, "{t}");
}

/// X held: a diagonal drag moves the part along x only.
#[test]
fn an_axis_key_constrains_the_move() {
    let mut app = app_with(cube_and_wall());
    frame(&mut app, pointer(0.0, 0.0, PRESS));
    for (x, y) in ramp((0.0, 0.0), (1.0, 1.0), 10) {
        let mut p = pointer(x, y, HOLD);
        p.axis = Some(DVec3::X);
        frame(&mut app, p);
    }
    frame(&mut app, pointer(1.0, 1.0, UP));
    let t = cube_pose(&app).translation;
    assert!((t - DVec3::new(1.0, 0.0, 0.0)).length() < 1e-6, "{t}");
}

/// Solver settings edits are undoable: consecutive edits (a value being dragged) are one
/// step, invalid ones are not applied, and they count as unsaved changes.
#[test]
fn settings_edits_undo_as_one_step_and_invalid_ones_are_refused() {
    use mockup_scene::{Distances, SolverDocument};
    let mut app = app_with(cube_and_wall());
    let original = app.world().resource::<SceneInfo>().document.solver.clone();
    let breaking = |app: &App| app.world().resource::<Solver>().settings().breaking;
    let before = breaking(&app);
    let edit = |app: &mut App, doc: SolverDocument| {
        app.world_mut().write_message(Edit::Solver(doc));
        app.update();
    };
    let explicit = |b: f64| SolverDocument {
        distances: Distances::Explicit { repositioning: 0.001, security: 0.002, breaking: b },
        ..original.clone()
    };
    edit(&mut app, explicit(0.01));
    edit(&mut app, explicit(0.02));
    assert_eq!(breaking(&app), 0.02);
    assert!(unsaved(&app));
    // Not 0 < εr < εs < εb: refused, nothing changes.
    edit(&mut app, explicit(0.0015));
    assert_eq!(breaking(&app), 0.02);
    assert_eq!(app.world().resource::<SceneInfo>().document.solver, explicit(0.02));
    // One undo goes back over both edits.
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(breaking(&app), before);
    assert_eq!(app.world().resource::<SceneInfo>().document.solver, original);
    assert!(!unsaved(&app));
    app.world_mut().write_message(Edit::Redo);
    app.update();
    assert_eq!(breaking(&app), 0.02);
    // A drag after a settings edit is a step of its own.
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 3));
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert_eq!(cube_pose(&app), Pose::IDENTITY);
    assert_eq!(breaking(&app), 0.02);
}

/// The Solver panel's "Push other parts" and "Strict: interfering pairs are obstacles" are
/// solver settings of the scene: the world follows them, consecutive edits are one undo
/// step, and a save writes them.
#[test]
fn push_others_and_strict_undo_and_are_saved_with_the_scene() {
    use mockup_scene::SolverDocument;
    let mut app = app_with(cube_and_wall());
    let original = app.world().resource::<SceneInfo>().document.solver.clone();
    assert!(!original.push_others && !original.strict);
    let settings = |app: &App| *app.world().resource::<Solver>().settings();
    app.world_mut().write_message(Edit::Solver(SolverDocument { push_others: true, ..original.clone() }));
    app.update();
    assert!(settings(&app).push_others && !settings(&app).strict);
    app.world_mut().write_message(Edit::Solver(SolverDocument { push_others: true, strict: true, ..original.clone() }));
    app.update();
    assert!(settings(&app).push_others && settings(&app).strict);
    assert!(unsaved(&app));
    // Saved with the scene.
    let file = temp_dir("push-strict").join("scene.ron");
    app.world_mut().write_message(FileCommand::SaveTo(file.clone()));
    app.update();
    wait_loaded(&mut app);
    let saved = mockup_scene::document::read(&file).unwrap();
    assert!(saved.solver.push_others && saved.solver.strict, "{:?}", saved.solver);
    // One undo goes back over both; redo brings both back.
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert!(!settings(&app).push_others && !settings(&app).strict);
    assert_eq!(app.world().resource::<SceneInfo>().document.solver, original);
    app.world_mut().write_message(Edit::Redo);
    app.update();
    assert!(settings(&app).push_others && settings(&app).strict);
}

/// A second movable cube between the first and the wall: a drag stops at it unless "Push
/// other parts" is on; then it pushes it along toward the wall.
#[test]
fn push_other_parts_moves_the_part_in_the_way_only_when_on() {
    use mockup_scene::SolverDocument;
    for push in [false, true] {
        let mut scene = cube_and_wall();
        let mut other = scene.document.parts[0].clone();
        other.name = "other".into();
        other.pose.translation = [1.25, 0.0, 0.0];
        scene.document.parts.push(other);
        scene.colliders.push(scene.colliders[0].clone());
        let mut app = app_with(scene);
        let doc = SolverDocument { push_others: push, ..app.world().resource::<SceneInfo>().document.solver.clone() };
        app.world_mut().write_message(Edit::Solver(doc));
        app.update();
        drag(&mut app, &ramp((0.0, 0.0), (0.6, 0.0), 12));
        let poses = app.world().resource::<Solver>().poses();
        if push {
            assert!(poses[2].translation.x > 1.25 + 0.2, "the other cube was not pushed: {poses:?}");
            assert!(poses[0].translation.x > 0.4, "{poses:?}");
        } else {
            assert_eq!(poses[2].translation.x, 1.25, "the other cube moved");
            // The cube stops within εb of the other (its face at 0.75).
            assert!(poses[0].translation.x + 0.5 < 0.75 && poses[0].translation.x > 0.2, "{poses:?}");
        }
        no_interpenetration(&app);
    }
}
