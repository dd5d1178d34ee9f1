//! Headless tests of what the user sees and the keys: the parts on screen and the selection's
//! glow, the ghost of a held-back drag, the contact markers (their colour for pairs in contact
//! from the start) and their toggle, the status's minimum distance and what the selection
//! interferes with or is in contact with from the start, the camera (fit all, fit selection,
//! view presets, orbit, pan, zoom), the keyboard shortcuts, and a load behind a progress bar
//! while frames go on. The windowed plugins run under `MinimalPlugins` with in-memory assets;
//! keys and mouse motion are written into the input resources the windowed app's input
//! plugin would fill.

mod common;

use bevy::ecs::system::RunSystemOnce;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use common::*;
use mockup::camera::{CameraPlugin, FitView, Orbit};
use mockup::contacts::{ShowContacts, markers};
use mockup::files::FileCommand;
use mockup::files::Origin;
use mockup::files::chooser::{Chooser, NativeDialogs, Purpose};
use mockup::files::job::FileJob;
use mockup::files::prompt::Prompt;
use mockup::history::Edit;
use mockup::input::UiFocus;
use mockup::manipulation::Selection;
use mockup::part::PartId;
use mockup::scene::SceneInfo;
use mockup::shortcuts::ShortcutsPlugin;
use mockup::solver::{DragBudget, Solver};
use mockup::status::PartStatus;
use mockup::visuals::{Ghost, PartMaterial, VisualsPlugin};
use mockup_scene::LoadedScene;

/// The headless core plus the parts on screen, the camera and the shortcuts.
fn app_with_views(scene: LoadedScene) -> App {
    let mut app = mockup::headless();
    app.add_plugins(AssetPlugin::default())
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<ButtonInput<MouseButton>>()
        .init_resource::<AccumulatedMouseMotion>()
        .init_resource::<AccumulatedMouseScroll>()
        .add_plugins((VisualsPlugin, CameraPlugin, ShortcutsPlugin));
    open_in(app, scene)
}

fn selected(app: &App) -> Option<usize> {
    app.world().resource::<Selection>().0
}

/// Presses `keys` together for one frame, then releases them.
fn keys(app: &mut App, keys: &[KeyCode]) {
    let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    for &k in keys {
        input.press(k);
    }
    app.update();
    let mut input = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    input.release_all();
    input.clear();
}

/// A click (press and release, no motion) through (x, y).
fn click(app: &mut App, x: f64, y: f64) {
    frame(app, pointer(x, y, PRESS));
    frame(app, pointer(x, y, UP));
}

fn part_entity(app: &mut App, part: usize) -> Entity {
    let mut q = app.world_mut().query::<(Entity, &PartId)>();
    q.iter(app.world()).find(|p| p.1.0 == part).map(|p| p.0).expect("no such part")
}

fn emissive(app: &mut App, part: usize) -> LinearRgba {
    let e = part_entity(app, part);
    let handle = app.world().get::<PartMaterial>(e).unwrap().0.clone();
    app.world().resource::<Assets<StandardMaterial>>().get(&handle).unwrap().emissive
}

fn visibility(app: &mut App, part: usize) -> Visibility {
    let e = part_entity(app, part);
    *app.world().get::<Visibility>(e).unwrap()
}

fn ghost(app: &mut App) -> Option<(Vec3, Visibility)> {
    let mut q = app.world_mut().query_filtered::<(&Transform, &Visibility), With<Ghost>>();
    let all: Vec<_> = q.iter(app.world()).map(|(t, v)| (t.translation, *v)).collect();
    assert!(all.len() <= 1, "more than one ghost: {all:?}");
    all.first().copied()
}

fn orbit(app: &mut App) -> Orbit {
    *app.world_mut().query::<&Orbit>().single(app.world()).unwrap()
}

fn set_orbit(app: &mut App, o: Orbit) {
    *app.world_mut().query::<&mut Orbit>().single_mut(app.world_mut()).unwrap() = o;
}

fn camera_transform(app: &mut App) -> Transform {
    *app.world_mut().query_filtered::<&Transform, With<Orbit>>().single(app.world()).unwrap()
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

#[test]
fn every_part_is_on_screen_and_the_selection_glows_until_deselected() {
    let mut app = app_with_views(cube_and_wall());
    let mut parts = app.world_mut().query::<(&PartId, &Name, &Transform, &Mesh3d)>();
    let mut seen: Vec<(usize, String)> = parts.iter(app.world()).map(|p| (p.0.0, p.1.to_string())).collect();
    seen.sort();
    assert_eq!(seen, [(0, "cube".to_string()), (1, "wall".to_string())]);
    let unlit = LinearRgba::BLACK;
    assert_eq!((emissive(&mut app, 0), emissive(&mut app, 1)), (unlit, unlit));
    // The cube.
    click(&mut app, 0.0, 0.0);
    assert_eq!(selected(&app), Some(0));
    assert_ne!(emissive(&mut app, 0), unlit, "the selected cube does not glow");
    assert_eq!(emissive(&mut app, 1), unlit);
    // The wall, fixed, can be selected too.
    click(&mut app, 2.5, 0.0);
    assert_eq!(selected(&app), Some(1));
    assert_eq!(emissive(&mut app, 0), unlit);
    assert_ne!(emissive(&mut app, 1), unlit);
    // Empty space deselects, and so does Escape.
    click(&mut app, 1.2, 0.0);
    assert_eq!(selected(&app), None);
    assert_eq!((emissive(&mut app, 0), emissive(&mut app, 1)), (unlit, unlit));
    click(&mut app, 0.0, 0.0);
    let mut esc = pointer(0.0, 0.0, UP);
    esc.escape = true;
    frame(&mut app, esc);
    assert_eq!(selected(&app), None);
    assert_eq!(emissive(&mut app, 0), unlit);
}

#[test]
fn a_held_back_drag_shows_a_ghost_where_the_mouse_asks_the_part_to_be() {
    let mut app = app_with_views(cube_and_wall());
    frame(&mut app, pointer(0.0, 0.0, PRESS));
    for (x, y) in ramp((0.0, 0.0), (1.0, 0.0), 5) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    // Free so far: the part is where the mouse asks, no ghost shown.
    assert!(ghost(&mut app).is_none_or(|(_, v)| v == Visibility::Hidden));
    for (x, y) in ramp((1.0, 0.0), (5.0, 0.0), 10) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    let (at, v) = ghost(&mut app).expect("no ghost while the wall holds the cube back");
    assert_eq!(v, Visibility::Inherited);
    assert!(close(at, Vec3::new(5.0, 0.0, 0.0), 1e-5), "the ghost is at {at}");
    // The part itself is drawn where the solver left it, against the wall.
    let cube = part_entity(&mut app, 0);
    let drawn = app.world().get::<Transform>(cube).unwrap().translation;
    assert!(close(drawn, cube_pose(&app).translation.as_vec3(), 1e-6) && drawn.x < 1.5, "{drawn}");
    // Back where it is free: the ghost hides; released: it stays hidden.
    for (x, y) in ramp((5.0, 0.0), (1.0, 0.0), 4) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    assert_eq!(ghost(&mut app).map(|g| g.1), Some(Visibility::Hidden));
    frame(&mut app, pointer(5.0, 0.0, PRESS));
    frame(&mut app, pointer(5.0, 0.0, UP));
    assert_eq!(ghost(&mut app).map(|g| g.1), Some(Visibility::Hidden));
}

#[test]
fn contact_markers_follow_the_contacts_and_c_toggles_them() {
    let mut app = app_with_views(cube_and_wall());
    let shown = |app: &App| {
        let w = app.world();
        markers(w.resource::<ShowContacts>(), w.resource::<Solver>(), w.resource::<SceneInfo>())
    };
    assert!(shown(&app).is_empty(), "markers before any contact");
    drag(&mut app, &ramp((0.0, 0.0), (5.0, 0.0), 20));
    let contacts = app.world().resource::<Solver>().contacts().to_vec();
    let breaking = app.world().resource::<Solver>().settings().breaking as f32;
    assert!(!contacts.is_empty());
    let m = shown(&app);
    assert_eq!(m.len(), contacts.len());
    let size = app.world().resource::<SceneInfo>().size as f32;
    for (m, c) in m.iter().zip(&contacts) {
        // A pair that met during the drag: the ordinary colour.
        assert!(!m.from_start && m.color() == mockup::contacts::CONTACT_YELLOW, "{m:?}");
        // On the wall's face x = 2 (or the cube's, within εb of it), the normal along ±x.
        assert!(m.point.x <= 2.0 + 1e-5 && m.point.x >= 2.0 - breaking - 1e-5, "{m:?}");
        assert!(close(m.point, c.point_j.as_vec3(), 1e-6));
        let n = (m.tip - m.point) / (0.015 * size);
        assert!(close(n.abs(), Vec3::X, 1e-4), "{m:?}");
        assert!(m.radius > 0.0);
    }
    keys(&mut app, &[KeyCode::KeyC]);
    assert!(!app.world().resource::<ShowContacts>().0);
    assert!(shown(&app).is_empty());
    keys(&mut app, &[KeyCode::KeyC]);
    assert_eq!(shown(&app).len(), contacts.len());
    // Typing into a text field does not toggle them.
    app.world_mut().resource_mut::<UiFocus>().keyboard = true;
    keys(&mut app, &[KeyCode::KeyC]);
    assert!(app.world().resource::<ShowContacts>().0);
}

/// The status's answer for the selection, once its task has answered.
fn status(app: &mut App) -> (Option<(f64, usize)>, Vec<usize>, Vec<usize>) {
    wait_status(app);
    let s = app.world().resource::<PartStatus>();
    (s.answer.as_ref().and_then(|a| a.nearest), s.interferes.clone(), s.from_start())
}

#[test]
fn the_status_shows_the_selected_parts_distance_to_the_nearest_visible_part() {
    let mut app = app_with_views(cube_and_wall());
    assert_eq!(status(&mut app).0, None, "nothing selected");
    click(&mut app, 0.0, 0.0);
    let (d, to) = status(&mut app).0.unwrap();
    // The cube's face x = 0.5 is 1.5 from the wall's x = 2.
    assert!((d - 1.5).abs() < 1e-9 && to == 1, "{d} to {to}");
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 5));
    let (d, _) = status(&mut app).0.unwrap();
    assert!((d - 0.5).abs() < 1e-6, "{d}");
    // The wall hidden: nothing shown to measure to.
    app.world_mut().write_message(Edit::Visible(1, false));
    app.update();
    assert_eq!(status(&mut app).0, None);
    app.world_mut().write_message(Edit::Visible(1, true));
    app.update();
    assert!(status(&mut app).0.is_some());
    click(&mut app, 1.7, 0.0);
    assert_eq!(status(&mut app).0, None, "deselected");
}

/// While the answer is computed the frame goes on without it ("…" in the status bar), and a
/// change of the selection's pose makes it stale: the next answer is for the new pose.
#[test]
fn the_status_answer_comes_from_a_task_and_follows_the_poses() {
    let mut app = app_with_views(cube_and_wall());
    click(&mut app, 0.0, 0.0);
    // The frame that saw the selection started the task and did not wait for it.
    let s = app.world().resource::<PartStatus>();
    assert!(s.running() || s.answer.is_some());
    let (d, _) = status(&mut app).0.unwrap();
    assert!((d - 1.5).abs() < 1e-9, "{d}");
    let work = app.world().resource::<PartStatus>().answer.as_ref().unwrap().counters.bv_tests;
    assert!(work > 0, "the task reports the box tests it ran");
    // Moved without the mouse (undo of nothing else: a drag, then undo).
    drag(&mut app, &ramp((0.0, 0.0), (1.2, 0.0), 6));
    assert!((status(&mut app).0.unwrap().0 - 0.3).abs() < 1e-6);
    app.world_mut().write_message(Edit::Undo);
    app.update();
    assert!((status(&mut app).0.unwrap().0 - 1.5).abs() < 1e-9);
}

/// The cube saved half inside the wall (x from 1.5 to 2.5 against the wall's 2 to 3). The
/// solver treats the pair as in contact from the start (the cube may come out, never go
/// deeper): the status lists it so, apart from new interference; once pulled out of the wall,
/// nothing is listed. With "strict", the same pair is
/// an obstacle like any other: listed in red as interfering.
#[test]
fn the_status_lists_pairs_in_contact_from_the_start_apart_from_interference() {
    let half_in = || {
        let mut scene = cube_and_wall();
        scene.document.parts[0].pose.translation = [2.0, 0.0, 0.0];
        scene
    };
    let mut app = app_with_views(half_in());
    // x = 1.7 is on the cube and in front of the wall.
    click(&mut app, 1.7, 0.0);
    assert_eq!(selected(&app), Some(0));
    let (nearest, interferes, from_start) = status(&mut app);
    assert_eq!((interferes, from_start), (vec![], vec![1]));
    assert_eq!(nearest.map(|n| n.1), Some(1));
    // Pulled out of the wall: nothing listed.
    frame(&mut app, pointer(1.7, 0.0, PRESS));
    frame(&mut app, pointer(1.6, 0.0, HOLD));
    for (x, y) in ramp((1.6, 0.0), (-0.5, 0.0), 8) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    frame(&mut app, pointer(-0.5, 0.0, UP));
    settle(&mut app);
    assert!(cube_pose(&app).translation.x < -0.1, "{:?}", cube_pose(&app));
    let (_, interferes, from_start) = status(&mut app);
    assert!(interferes.is_empty() && from_start.is_empty(), "{interferes:?} {from_start:?}");

    // Strict: the interfering pair is an obstacle, listed as interfering.
    let mut scene = half_in();
    scene.document.solver.strict = true;
    let mut app = app_with_views(scene);
    click(&mut app, 1.7, 0.0);
    let (_, interferes, from_start) = status(&mut app);
    assert_eq!((interferes, from_start), (vec![1], vec![]));

    // Another part pressed and dragged: the lists are of the new selection, never the last
    // one's (the wall, movable here, is not in contact with itself).
    let mut scene = half_in();
    scene.document.parts[1].fixed = false;
    let mut app = app_with_views(scene);
    click(&mut app, 1.7, 0.0);
    assert_eq!(status(&mut app).2, vec![1]);
    frame(&mut app, pointer(2.8, 0.0, PRESS));
    for (x, y) in ramp((2.8, 0.0), (2.8, 0.5), 4) {
        frame(&mut app, pointer(x, y, HOLD));
        assert_eq!(selected(&app), Some(1));
        let s = app.world().resource::<PartStatus>();
        assert!(!s.from_start().contains(&1) && !s.interferes.contains(&1), "{:?}", s.from_start());
    }
    frame(&mut app, pointer(2.8, 0.5, UP));
    assert!(!status(&mut app).2.contains(&1));

    // A hidden part is not measured.
    let mut app = app_with_views(half_in());
    app.world_mut().write_message(Edit::Visible(1, false));
    app.update();
    click(&mut app, 1.7, 0.0);
    assert_eq!(selected(&app), Some(0));
    let (nearest, interferes, from_start) = status(&mut app);
    assert!(nearest.is_none() && interferes.is_empty() && from_start.is_empty());
}

/// The cube saved touching the wall (its face on the wall's, x = 2), dragged along it: the
/// pair is in contact from the start, its contacts are drawn violet, and after the drag the
/// status lists the pair (the solver's classification) though the two do not interfere.
#[test]
fn contacts_from_the_start_have_their_own_colour_and_are_listed() {
    let mut scene = cube_and_wall();
    scene.document.parts[0].pose.translation = [1.5, 0.0, 0.0];
    let mut app = app_with_views(scene);
    frame(&mut app, pointer(1.2, 0.0, PRESS));
    for (x, y) in ramp((1.2, 0.0), (1.2, 2.0), 5) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    let m = {
        let w = app.world();
        markers(w.resource::<ShowContacts>(), w.resource::<Solver>(), w.resource::<SceneInfo>())
    };
    assert!(!m.is_empty() && m.iter().all(|m| m.from_start), "{m:?}");
    assert!(m.iter().all(|m| m.color() == mockup::contacts::FROM_START_VIOLET));
    frame(&mut app, pointer(1.2, 2.0, UP));
    settle(&mut app);
    let t = cube_pose(&app).translation;
    assert!((t.y - 2.0).abs() < 1e-6 && t.x <= 1.5 + 1e-9, "slid along the wall: {t}");
    let (_, interferes, from_start) = status(&mut app);
    assert_eq!((interferes, from_start), (vec![], vec![1]));
    // Dragged away beyond εb, and back: an ordinary pair, drawn yellow.
    drag_from(&mut app, (1.2, 2.0), &ramp((1.2, 2.0), (0.5, 2.0), 5));
    drag_from(&mut app, (0.5, 2.0), &ramp((0.5, 2.0), (1.5, 2.0), 10));
    let m = {
        let w = app.world();
        markers(w.resource::<ShowContacts>(), w.resource::<Solver>(), w.resource::<SceneInfo>())
    };
    assert!(!m.is_empty() && m.iter().all(|m| !m.from_start), "{m:?}");
    let (_, _, from_start) = status(&mut app);
    assert!(from_start.is_empty(), "{from_start:?}");
}

/// Presses at `at`, drags through `to`, releases, and waits for the step to catch up.
fn drag_from(app: &mut App, at: (f64, f64), to: &[(f64, f64)]) {
    frame(app, pointer(at.0, at.1, PRESS));
    for &(x, y) in to {
        frame(app, pointer(x, y, HOLD));
    }
    let end = to.last().copied().unwrap_or(at);
    frame(app, pointer(end.0, end.1, UP));
    settle(app);
}

#[test]
fn delete_hides_the_selection_and_ctrl_z_ctrl_y_undo_and_redo_it() {
    let mut app = app_with_views(cube_and_wall());
    let visible = |app: &mut App| props(app, 0).0;
    // Nothing selected: Delete does nothing.
    keys(&mut app, &[KeyCode::Delete]);
    assert!(visible(&mut app));
    click(&mut app, 0.0, 0.0);
    keys(&mut app, &[KeyCode::Delete]);
    assert!(!visible(&mut app));
    app.update();
    assert_eq!(visibility(&mut app, 0), Visibility::Hidden);
    assert_eq!(visibility(&mut app, 1), Visibility::Inherited);
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    app.update();
    assert!(visible(&mut app));
    assert_eq!(visibility(&mut app, 0), Visibility::Inherited);
    keys(&mut app, &[KeyCode::ControlRight, KeyCode::KeyY]);
    assert!(!visible(&mut app));
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    assert!(visible(&mut app));
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::ShiftLeft, KeyCode::KeyZ]);
    assert!(!visible(&mut app), "Ctrl+Shift+Z is redo too");
    // A hidden part cannot be picked.
    click(&mut app, 0.0, 0.0);
    assert_eq!(selected(&app), None);
}

#[test]
fn file_shortcuts_open_the_path_chooser_for_what_they_ask_and_ctrl_q_quits() {
    let mut app = app_with_views(cube_and_wall());
    app.world_mut().resource_mut::<NativeDialogs>().0 = false;
    let chooser = |app: &mut App, chord: &[KeyCode]| {
        keys(app, chord);
        let purpose = app.world().resource::<Chooser>().purpose();
        app.world_mut().run_system_once(|mut c: ResMut<Chooser>, mut p: ResMut<Prompt>| c.cancel(&mut p)).unwrap();
        purpose
    };
    use KeyCode::{ControlLeft as Ctrl, KeyI, KeyO, KeyS, ShiftLeft as Shift};
    assert_eq!(chooser(&mut app, &[Ctrl, KeyO]), Some(Purpose::Open));
    assert_eq!(chooser(&mut app, &[Ctrl, KeyI]), Some(Purpose::Import));
    assert_eq!(chooser(&mut app, &[Ctrl, Shift, KeyS]), Some(Purpose::SaveAs));
    // An imported OBJ has no scene file yet: Save asks where.
    assert_eq!(chooser(&mut app, &[Ctrl, KeyS]), Some(Purpose::SaveAs));
    // O alone, or Ctrl+O while a text field has the keyboard, opens nothing.
    assert_eq!(chooser(&mut app, &[KeyO]), None);
    app.world_mut().resource_mut::<UiFocus>().keyboard = true;
    assert_eq!(chooser(&mut app, &[Ctrl, KeyO]), None);
    app.world_mut().resource_mut::<UiFocus>().keyboard = false;
    // Quit: with unsaved changes it asks first; without, it quits.
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 3));
    keys(&mut app, &[Ctrl, KeyCode::KeyQ]);
    assert_eq!(*app.world().resource::<Prompt>(), Prompt::Asking(FileCommand::Quit));
    assert!(app.should_exit().is_none());
    *app.world_mut().resource_mut::<Prompt>() = Prompt::Idle;
    app.world_mut().write_message(Edit::Undo);
    app.update();
    keys(&mut app, &[Ctrl, KeyCode::KeyQ]);
    app.update();
    assert!(app.should_exit().is_some(), "Ctrl+Q with nothing unsaved did not quit");
}

/// The cube spans [−0.5, 0.5]³, the wall [2, 3] × [−10, 10]².
#[test]
fn home_frames_everything_and_f_the_selected_part() {
    let mut app = app_with_views(cube_and_wall());
    let (lo, hi) = (Vec3::new(-0.5, -10.0, -10.0), Vec3::new(3.0, 10.0, 10.0));
    // A new scene without a saved camera is framed whole.
    assert!(close(orbit(&mut app).target, 0.5 * (lo + hi), 1e-5), "{:?}", orbit(&mut app));
    let away = Orbit { target: Vec3::new(40.0, 0.0, 0.0), distance: 3.0, ..orbit(&mut app) };
    set_orbit(&mut app, away);
    keys(&mut app, &[KeyCode::Home]);
    let o = orbit(&mut app);
    assert!(close(o.target, 0.5 * (lo + hi), 1e-5), "{o:?}");
    assert!((o.distance - 1.1 * (hi - lo).length()).abs() < 1e-3, "{o:?}");
    // The camera looks at the target from the orbit's eye.
    let t = camera_transform(&mut app);
    assert!(close(t.translation, o.eye(), 1e-4));
    assert!(close(*t.forward(), (o.target - o.eye()).normalize(), 1e-5));
    // F with the cube selected: the cube.
    click(&mut app, 0.0, 0.0);
    keys(&mut app, &[KeyCode::KeyF]);
    let o = orbit(&mut app);
    assert!(close(o.target, Vec3::ZERO, 1e-5), "{o:?}");
    assert!((o.distance - 1.1 * 3f32.sqrt()).abs() < 1e-4, "{o:?}");
    // Everything again, from the View menu's message.
    app.world_mut().write_message(FitView::All);
    app.update();
    assert!(close(orbit(&mut app).target, 0.5 * (lo + hi), 1e-5));
    // F with nothing selected: everything; with the wall hidden, only the cube is visible.
    click(&mut app, 1.2, 0.0);
    set_orbit(&mut app, away);
    app.world_mut().write_message(Edit::Visible(1, false));
    app.update();
    keys(&mut app, &[KeyCode::KeyF]);
    assert!(close(orbit(&mut app).target, Vec3::ZERO, 1e-5), "{:?}", orbit(&mut app));
}

#[test]
fn view_presets_look_from_the_front_the_right_and_the_top() {
    let mut app = app_with_views(cube_and_wall());
    // Front: from −y, looking along +y; right: from +x, along −x; top: from +z, down.
    for (key, forward) in [(KeyCode::Digit1, Vec3::Y), (KeyCode::Digit3, -Vec3::X), (KeyCode::Digit7, -Vec3::Z)] {
        let target = orbit(&mut app).target;
        keys(&mut app, &[key]);
        let t = camera_transform(&mut app);
        assert!(t.forward().dot(forward) > 0.999, "{key:?}: forward {:?}", t.forward());
        assert!(close(orbit(&mut app).target, target, 1e-6), "{key:?} moved the target");
    }
}

/// One frame of mouse motion and wheel with `buttons` held.
fn mouse(app: &mut App, buttons: &[MouseButton], held: &[KeyCode], motion: Vec2, wheel: f32) {
    let w = app.world_mut();
    let mut b = w.resource_mut::<ButtonInput<MouseButton>>();
    for &x in buttons {
        b.press(x);
    }
    let mut k = w.resource_mut::<ButtonInput<KeyCode>>();
    for &x in held {
        k.press(x);
    }
    w.resource_mut::<AccumulatedMouseMotion>().delta = motion;
    w.resource_mut::<AccumulatedMouseScroll>().delta = Vec2::new(0.0, wheel);
    app.update();
    let w = app.world_mut();
    w.resource_mut::<ButtonInput<MouseButton>>().release_all();
    w.resource_mut::<ButtonInput<MouseButton>>().clear();
    w.resource_mut::<ButtonInput<KeyCode>>().release_all();
    w.resource_mut::<ButtonInput<KeyCode>>().clear();
    w.resource_mut::<AccumulatedMouseMotion>().delta = Vec2::ZERO;
    w.resource_mut::<AccumulatedMouseScroll>().delta = Vec2::ZERO;
}

#[test]
fn middle_drag_orbits_shift_pans_the_wheel_zooms_and_panels_keep_the_mouse() {
    let mut app = app_with_views(cube_and_wall());
    let start = orbit(&mut app);
    // Orbit: the yaw turns with the motion; target and distance stay.
    mouse(&mut app, &[MouseButton::Middle], &[], Vec2::new(50.0, 0.0), 0.0);
    let o = orbit(&mut app);
    assert!((o.yaw - (start.yaw - 50.0 * 0.006)).abs() < 1e-6, "{o:?}");
    assert_eq!((o.target, o.distance), (start.target, start.distance));
    // Right drag on empty space orbits too.
    mouse(&mut app, &[MouseButton::Right], &[], Vec2::new(0.0, 20.0), 0.0);
    assert!((orbit(&mut app).pitch - (o.pitch + 20.0 * 0.006)).abs() < 1e-6);
    // Shift + middle pans: the target moves across the view, the eye with it.
    let o = orbit(&mut app);
    let right = *camera_transform(&mut app).right();
    mouse(&mut app, &[MouseButton::Middle], &[KeyCode::ShiftLeft], Vec2::new(-100.0, 0.0), 0.0);
    let p = orbit(&mut app);
    let moved = p.target - o.target;
    assert!(close(moved, right * (100.0 * o.distance * 0.0015), 1e-4), "{moved} vs {right}");
    assert_eq!((p.yaw, p.pitch, p.distance), (o.yaw, o.pitch, o.distance));
    // The wheel zooms in (toward the target) and out.
    mouse(&mut app, &[], &[], Vec2::ZERO, 2.0);
    let z = orbit(&mut app);
    assert!((z.distance - p.distance * (-0.24f32).exp()).abs() < 1e-4 * p.distance, "{z:?}");
    assert_eq!(z.target, p.target);
    mouse(&mut app, &[], &[], Vec2::ZERO, -2.0);
    assert!((orbit(&mut app).distance - p.distance).abs() < 1e-4 * p.distance);
    // Over a panel, nothing moves the camera.
    app.world_mut().resource_mut::<UiFocus>().pointer = true;
    let before = orbit(&mut app);
    mouse(&mut app, &[MouseButton::Middle], &[], Vec2::new(50.0, 30.0), 3.0);
    let after = orbit(&mut app);
    assert_eq!(
        (after.yaw, after.pitch, after.distance, after.target),
        (before.yaw, before.pitch, before.distance, before.target)
    );
}

#[test]
fn the_wheel_while_dragging_pushes_the_part_and_does_not_zoom() {
    let mut app = app_with_views(cube_and_wall());
    let before = orbit(&mut app).distance;
    frame(&mut app, pointer(0.0, 0.0, PRESS));
    app.world_mut().resource_mut::<AccumulatedMouseScroll>().delta = Vec2::new(0.0, 5.0);
    let mut p = pointer(0.0, 0.0, HOLD);
    p.wheel = 5.0;
    frame(&mut app, p);
    app.world_mut().resource_mut::<AccumulatedMouseScroll>().delta = Vec2::ZERO;
    frame(&mut app, pointer(0.0, 0.0, UP));
    assert_eq!(orbit(&mut app).distance, before);
    assert!((cube_pose(&app).translation.z + 0.5).abs() < 1e-6, "{:?}", cube_pose(&app));
}

/// An OBJ assembly of `n` parts, each a `k × k`-quad grid folded into a box-like sheet, well
/// apart: big enough that reading and building take many frames in a debug build.
fn write_obj(path: &std::path::Path, n: usize, k: usize) {
    use std::fmt::Write;
    let mut s = String::new();
    let mut base = 1;
    for part in 0..n {
        writeln!(s, "o sheet{part}").unwrap();
        let x0 = part as f64 * 3.0;
        for i in 0..=k {
            for j in 0..=k {
                let (u, v) = (i as f64 / k as f64, j as f64 / k as f64);
                writeln!(s, "v {} {} {}", x0 + u, v, 0.2 * (6.0 * u).sin() * (5.0 * v).cos()).unwrap();
            }
        }
        for i in 0..k {
            for j in 0..k {
                let a = base + i * (k + 1) + j;
                let (b, c, d) = (a + 1, a + k + 1, a + k + 2);
                writeln!(s, "f {a} {c} {d}\nf {a} {d} {b}").unwrap();
            }
        }
        base += (k + 1) * (k + 1);
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn an_obj_import_loads_on_a_task_behind_a_progress_bar_while_frames_go_on() {
    let dir = temp_dir("progress");
    let file = dir.join("sheets.obj");
    write_obj(&file, 6, 130);
    let mut app = app_with_views(cube_and_wall());
    let budget = *app.world().resource::<DragBudget>();
    app.world_mut().resource_mut::<FileJob>().start_load(Origin::Import(file.clone()), budget);
    let mut seen: Vec<(f32, String)> = Vec::new();
    let mut frames_while_loading = 0;
    for _ in 0..20_000 {
        app.update();
        let Some((what, fraction, stage)) = app.world().resource::<FileJob>().status() else { break };
        frames_while_loading += 1;
        assert!(what.contains("sheets.obj"), "{what}");
        if seen.last() != Some(&(fraction, stage.clone())) {
            seen.push((fraction, stage));
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.update();
    assert!(!app.world().resource::<FileJob>().busy(), "the load did not finish");
    let errors = &app.world().resource::<mockup::files::Errors>().0;
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(app.world().resource::<Solver>().bodies().len(), 6);
    // Frames ran while it loaded, and the bar moved forward through the stages.
    assert!(frames_while_loading >= 2, "{frames_while_loading} frames during the load");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "progress went back: {seen:?}");
    assert!(seen.iter().all(|(f, _)| (0.0..=1.0).contains(f)), "{seen:?}");
    assert!(seen.iter().any(|(_, stage)| stage == "reading OBJ" || stage == "building trees"), "{seen:?}");
    // The new scene replaced the old one, its parts on screen too: their meshes are built a
    // few per frame (at most about 4 ms of it a frame), so within a few frames.
    let mut with_mesh = app.world_mut().query::<(&PartId, &Mesh3d)>();
    let mut frames = 0;
    while with_mesh.iter(app.world()).count() < 6 {
        app.update();
        frames += 1;
        assert!(frames <= 6, "a part's mesh was not built within 6 frames");
    }
    let mut parts = app.world_mut().query::<&PartId>();
    assert_eq!(parts.iter(app.world()).count(), 6);
    assert!(selected(&app).is_none());
}

/// The status's frame time is the wall time between frames, also past the 250 ms at which
/// Bevy's virtual clock stops (a software-rendered frame of a large assembly takes seconds).
#[test]
fn the_frame_time_shown_is_the_wall_time_of_a_long_frame() {
    let mut app = app_with_views(cube_and_wall());
    // Slept here, between frames: a sleeping system would hold a thread of the task pool the
    // other tests of this process share.
    for _ in 0..6 {
        std::thread::sleep(std::time::Duration::from_millis(400));
        app.update();
    }
    let shown = app.world().resource::<mockup::status::FrameTime>().0;
    assert!(shown >= 0.38, "a 400 ms frame shown as {shown} s");
}

/// Under a renderer without a GPU (the adapter wgpu reports as a CPU), every camera draws
/// without multisampling; with a GPU, Bevy's default 4× stays.
#[test]
fn a_software_renderer_turns_multisampling_off() {
    use bevy::render::renderer::{RenderAdapterInfo, WgpuWrapper};
    for (device_type, expected) in
        [(wgpu_types::DeviceType::Cpu, Msaa::Off), (wgpu_types::DeviceType::DiscreteGpu, Msaa::Sample4)]
    {
        let mut app = app_with_views(cube_and_wall());
        app.insert_resource(RenderAdapterInfo(WgpuWrapper::new(wgpu_types::AdapterInfo {
            name: "test adapter".into(),
            vendor: 0,
            device: 0,
            device_type,
            device_pci_bus_id: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            backend: wgpu_types::Backend::Vulkan,
            subgroup_min_size: 4,
            subgroup_max_size: 64,
            transient_saves_memory: false,
        })));
        // Bevy's default, which the render plugins (not run headless) give every camera.
        let mut with_camera = app.world_mut().query_filtered::<Entity, With<Camera>>();
        let cameras: Vec<Entity> = with_camera.iter(app.world()).collect();
        for camera in cameras {
            app.world_mut().entity_mut(camera).insert(Msaa::Sample4);
        }
        app.update();
        let mut cameras = app.world_mut().query_filtered::<&Msaa, With<Camera>>();
        let all: Vec<Msaa> = cameras.iter(app.world()).copied().collect();
        assert!(!all.is_empty() && all.iter().all(|&m| m == expected), "{device_type:?}: {all:?}");
    }
}
