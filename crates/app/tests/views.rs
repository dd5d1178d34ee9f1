//! Headless tests of what the user sees and the keys: the selection's glow, the ghost of a
//! held-back drag, the contact markers and their toggle, the minimum distance, the camera
//! (frame all, frame selection, view presets, orbit, pan, zoom), the keyboard shortcuts, and a
//! load behind a progress bar while frames go on. The windowed plugins run under
//! `MinimalPlugins` with in-memory assets; keys and mouse motion are written into the input
//! resources the windowed app's input plugin would fill.

mod common;

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use common::*;
use mockup::camera::{CameraPlugin, Orbit};
use mockup::contacts::{ShowContacts, markers};
use mockup::files::{FileCommand, Files, Origin, Purpose};
use mockup::history::Edit;
use mockup::manipulation::Grab;
use mockup::scene::{Assembly, Ghost, Part, PartVisuals, SceneVisualsPlugin};
use mockup::shortcuts::ShortcutsPlugin;
use mockup::simulation::Simulation;
use mockup::status::{Status, StatusPlugin};
use mockup::ui::UiFocus;
use mockup_scene::LoadedScene;

/// The headless core plus the parts on screen, the camera, the status and the shortcuts.
fn app_with_views(scene: LoadedScene) -> App {
    let mut app = mockup::headless();
    app.add_plugins(AssetPlugin::default())
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .init_resource::<ButtonInput<KeyCode>>()
        .init_resource::<ButtonInput<MouseButton>>()
        .init_resource::<AccumulatedMouseMotion>()
        .init_resource::<AccumulatedMouseScroll>()
        .add_plugins((SceneVisualsPlugin, CameraPlugin, StatusPlugin, ShortcutsPlugin));
    open_in(app, scene)
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

fn emissive(app: &App, part: usize) -> LinearRgba {
    let handle = &app.world().resource::<PartVisuals>().materials[part];
    app.world().resource::<Assets<StandardMaterial>>().get(handle).unwrap().emissive
}

fn part_entity(app: &App, part: usize) -> Entity {
    app.world().resource::<Assembly>().entities[part]
}

fn visibility(app: &App, part: usize) -> Visibility {
    *app.world().get::<Visibility>(part_entity(app, part)).unwrap()
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
    let mut parts = app.world_mut().query::<(&Part, &Transform, &Mesh3d)>();
    let mut seen: Vec<usize> = parts.iter(app.world()).map(|(p, _, _)| p.0).collect();
    seen.sort();
    assert_eq!(seen, [0, 1]);
    let unlit = LinearRgba::BLACK;
    assert_eq!((emissive(&app, 0), emissive(&app, 1)), (unlit, unlit));
    // The cube.
    click(&mut app, 0.0, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, Some(0));
    assert_ne!(emissive(&app, 0), unlit, "the selected cube does not glow");
    assert_eq!(emissive(&app, 1), unlit);
    // The wall, fixed, can be selected too.
    click(&mut app, 2.5, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, Some(1));
    assert_eq!(emissive(&app, 0), unlit);
    assert_ne!(emissive(&app, 1), unlit);
    // Empty space deselects, and so does Escape.
    click(&mut app, 1.2, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, None);
    assert_eq!((emissive(&app, 0), emissive(&app, 1)), (unlit, unlit));
    click(&mut app, 0.0, 0.0);
    let mut esc = pointer(0.0, 0.0, UP);
    esc.escape = true;
    frame(&mut app, esc);
    assert_eq!(app.world().resource::<Grab>().selected, None);
    assert_eq!(emissive(&app, 0), unlit);
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
    let drawn = app.world().get::<Transform>(part_entity(&app, 0)).unwrap().translation;
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
        markers(w.resource::<ShowContacts>(), w.resource::<Simulation>(), w.resource::<Assembly>())
    };
    assert!(shown(&app).is_empty(), "markers before any contact");
    drag(&mut app, &ramp((0.0, 0.0), (5.0, 0.0), 20));
    let contacts = app.world().resource::<Simulation>().world.contacts().to_vec();
    let breaking = app.world().resource::<Simulation>().world.settings().breaking as f32;
    assert!(!contacts.is_empty());
    let m = shown(&app);
    assert_eq!(m.len(), contacts.len());
    let size = app.world().resource::<Assembly>().size() as f32;
    for (m, c) in m.iter().zip(&contacts) {
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

#[test]
fn the_status_shows_the_selected_parts_distance_to_the_nearest_visible_part() {
    let mut app = app_with_views(cube_and_wall());
    let distance = |app: &App| app.world().resource::<Status>().min_distance;
    assert_eq!(distance(&app), None, "nothing selected");
    click(&mut app, 0.0, 0.0);
    let (d, to) = distance(&app).unwrap();
    // The cube's face x = 0.5 is 1.5 from the wall's x = 2.
    assert!((d - 1.5).abs() < 1e-9 && to == 1, "{d} to {to}");
    drag(&mut app, &ramp((0.0, 0.0), (1.0, 0.0), 5));
    let (d, _) = distance(&app).unwrap();
    assert!((d - 0.5).abs() < 1e-6, "{d}");
    // The wall hidden: nothing visible to measure to.
    app.world_mut().write_message(Edit::Visible(1, false));
    app.update();
    assert_eq!(distance(&app), None);
    app.world_mut().write_message(Edit::Visible(1, true));
    app.update();
    assert!(distance(&app).is_some());
    click(&mut app, 1.7, 0.0);
    assert_eq!(distance(&app), None, "deselected");
}

#[test]
fn the_status_names_the_parts_the_selection_interferes_with() {
    // The cube saved half inside the wall (x from 1.5 to 2.5 against the wall's 2 to 3).
    let mut scene = cube_and_wall();
    scene.document.parts[0].pose.translation = [2.0, 0.0, 0.0];
    let mut app = app_with_views(scene);
    let interferes = |app: &App| app.world().resource::<Status>().interferes.clone();
    // x = 1.7 is on the cube and in front of the wall.
    click(&mut app, 1.7, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, Some(0));
    assert_eq!(interferes(&app), [1]);
    // Pulled out of the wall it no longer does.
    frame(&mut app, pointer(1.7, 0.0, PRESS));
    for (x, y) in ramp((1.7, 0.0), (-0.5, 0.0), 8) {
        frame(&mut app, pointer(x, y, HOLD));
    }
    frame(&mut app, pointer(-0.5, 0.0, UP));
    app.update();
    assert!(cube_pose(&app).translation.x < -0.1, "{:?}", cube_pose(&app));
    assert!(interferes(&app).is_empty());
    // A hidden part is not measured.
    let mut scene = cube_and_wall();
    scene.document.parts[0].pose.translation = [2.0, 0.0, 0.0];
    let mut app = app_with_views(scene);
    app.world_mut().write_message(Edit::Visible(1, false));
    app.update();
    click(&mut app, 1.7, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, Some(0));
    assert!(interferes(&app).is_empty());
}

#[test]
fn delete_hides_the_selection_and_ctrl_z_ctrl_y_undo_and_redo_it() {
    let mut app = app_with_views(cube_and_wall());
    let visible = |app: &App| app.world().resource::<Assembly>().parts()[0].visible;
    // Nothing selected: Delete does nothing.
    keys(&mut app, &[KeyCode::Delete]);
    assert!(visible(&app));
    click(&mut app, 0.0, 0.0);
    keys(&mut app, &[KeyCode::Delete]);
    assert!(!visible(&app));
    app.update();
    assert_eq!(visibility(&app, 0), Visibility::Hidden);
    assert_eq!(visibility(&app, 1), Visibility::Inherited);
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    app.update();
    assert!(visible(&app));
    assert_eq!(visibility(&app, 0), Visibility::Inherited);
    keys(&mut app, &[KeyCode::ControlRight, KeyCode::KeyY]);
    assert!(!visible(&app));
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    assert!(visible(&app));
    keys(&mut app, &[KeyCode::ControlLeft, KeyCode::ShiftLeft, KeyCode::KeyZ]);
    assert!(!visible(&app), "Ctrl+Shift+Z is redo too");
    // A hidden part cannot be picked.
    click(&mut app, 0.0, 0.0);
    assert_eq!(app.world().resource::<Grab>().selected, None);
}

#[test]
fn file_shortcuts_open_the_path_chooser_for_what_they_ask_and_ctrl_q_quits() {
    let mut app = app_with_views(cube_and_wall());
    app.world_mut().resource_mut::<Files>().native_dialogs = false;
    let chooser = |app: &mut App, chord: &[KeyCode]| {
        keys(app, chord);
        let mut files = app.world_mut().resource_mut::<Files>();
        let purpose = files.chooser.as_ref().map(|c| c.purpose);
        files.cancel_choice();
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
    assert_eq!(app.world().resource::<Files>().confirm, Some(FileCommand::Quit));
    assert!(app.should_exit().is_none());
    app.world_mut().resource_mut::<Files>().confirm = None;
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
    app.world_mut().write_message(mockup::camera::Frame::All);
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
    mockup::files::start_load(&mut app.world_mut().resource_mut::<Files>(), Origin::Obj(file.clone()));
    let mut seen: Vec<(f32, String)> = Vec::new();
    let mut frames_while_loading = 0;
    for _ in 0..20_000 {
        app.update();
        let Some(loading) = &app.world().resource::<Files>().loading else { break };
        frames_while_loading += 1;
        assert!(loading.what.contains("sheets.obj"), "{}", loading.what);
        let p = loading.progress();
        if seen.last() != Some(&p) {
            seen.push(p);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.update();
    assert!(app.world().resource::<Files>().loading.is_none(), "the load did not finish");
    assert!(app.world().resource::<Files>().errors.is_empty(), "{:?}", app.world().resource::<Files>().errors);
    assert_eq!(app.world().resource::<Assembly>().parts().len(), 6);
    assert_eq!(app.world().resource::<Simulation>().world.bodies().len(), 6);
    // Frames ran while it loaded, and the bar moved forward through the stages.
    assert!(frames_while_loading >= 2, "{frames_while_loading} frames during the load");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "progress went back: {seen:?}");
    assert!(seen.iter().all(|(f, _)| (0.0..=1.0).contains(f)), "{seen:?}");
    assert!(seen.iter().any(|(_, stage)| stage == "reading OBJ" || stage == "building trees"), "{seen:?}");
    // The new scene replaced the old one on screen too.
    let mut parts = app.world_mut().query::<&Part>();
    assert_eq!(parts.iter(app.world()).count(), 6);
    assert!(app.world().resource::<Grab>().selected.is_none());
}
