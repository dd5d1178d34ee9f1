//! The mouse becomes a target pose. Left click selects a part (highlighted); left drag moves
//! a movable part in the plane parallel to the screen through the grab point; right drag
//! (or Ctrl + left) turns it, trackball style, about the grab point; the wheel while
//! dragging pushes it along the view direction; X, Y or Z held constrains the move to that
//! axis. Escape deselects. Each drag is one undo step (history.rs). Every target goes to the solver, which stops the part at contact.

use crate::scene::{Assembly, Part};
use crate::simulation::Simulation;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use glam::{DQuat, DVec3};
use mockup_ccd::Pose;

pub struct ManipulationPlugin;

/// Systems that turn input into gestures; the camera and the solver run after them.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gestures;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Move,
    Turn,
}

/// A drag in progress.
#[derive(Clone, Copy, Debug)]
pub struct Drag {
    pub part: usize,
    pub mode: Mode,
    /// The part's pose when the drag began.
    pub start: Pose,
    /// The grabbed point (world) when the drag began.
    pub grab: DVec3,
    /// Along the view direction, from the wheel.
    pub push: f64,
    /// The turn so far (Turn mode).
    pub turn: DQuat,
}

/// The selected part and the drag in progress.
#[derive(Resource, Default, Debug)]
pub struct Grab {
    pub selected: Option<usize>,
    pub drag: Option<Drag>,
}

impl Grab {
    pub fn active(&self) -> bool {
        self.drag.is_some()
    }
}

impl Plugin for ManipulationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Grab>().add_systems(Update, (press, drag, highlight).chain().in_set(Gestures));
    }
}

/// A ray from the camera through the cursor, in f64.
fn cursor_ray(window: &Window, camera: &Camera, camera_transform: &GlobalTransform) -> Option<(DVec3, DVec3)> {
    let cursor = window.cursor_position()?;
    let ray = camera.viewport_to_world(camera_transform, cursor).ok()?;
    Some((ray.origin.as_dvec3(), Vec3::from(ray.direction).as_dvec3()))
}

/// The nearest part the ray hits (Möller–Trumbore on every triangle, in the part's frame):
/// (part, distance along the ray).
pub fn pick(assembly: &Assembly, poses: &[Pose], origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in assembly.loaded.colliders.iter().enumerate() {
        if !assembly.loaded.document.parts[i].visible {
            continue;
        }
        let inv = poses[i].inverse();
        let (o, d) = (inv.transform_point(origin), inv.transform_vector(dir));
        let m = c.mesh();
        for t in 0..m.triangles().len() as u32 {
            let [a, b, cc] = m.triangle_points(t);
            let (e1, e2) = (b - a, cc - a);
            let p = d.cross(e2);
            let det = e1.dot(p);
            if det.abs() < 1e-300 {
                continue;
            }
            let s = o - a;
            let u = s.dot(p) / det;
            if !(0.0..=1.0).contains(&u) {
                continue;
            }
            let q = s.cross(e1);
            let v = d.dot(q) / det;
            if v < 0.0 || u + v > 1.0 {
                continue;
            }
            let dist = e2.dot(q) / det;
            if dist > 0.0 && best.is_none_or(|(_, b)| dist < b) {
                best = Some((i, dist));
            }
        }
    }
    best
}

#[allow(clippy::too_many_arguments)]
fn press(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
    mut grab: ResMut<Grab>,
    over_ui: Res<crate::status::PointerOverUi>,
    mut history: ResMut<crate::history::History>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        *grab = Grab::default();
        return;
    }
    let left = buttons.just_pressed(MouseButton::Left);
    let right = buttons.just_pressed(MouseButton::Right);
    if over_ui.0 || !(left || right) {
        return;
    }
    let Some((origin, dir)) = cursor_ray(&window, camera.0, camera.1) else { return };
    let poses: Vec<Pose> = sim.world.bodies().iter().map(|b| b.pose).collect();
    let hit = pick(&assembly, &poses, origin, dir);
    if left {
        grab.selected = hit.map(|(i, _)| i);
    }
    let Some((part, dist)) = hit else { return };
    if assembly.loaded.document.parts[part].fixed || sim.world.body(part).is_none_or(|b| b.fixed) {
        return;
    }
    let ctrl = keys.pressed(KeyCode::ControlLeft) || keys.pressed(KeyCode::ControlRight);
    let mode = if right || ctrl { Mode::Turn } else { Mode::Move };
    grab.selected = Some(part);
    history.record(poses.clone());
    grab.drag =
        Some(Drag { part, mode, start: poses[part], grab: origin + dir * dist, push: 0.0, turn: DQuat::IDENTITY });
}

#[allow(clippy::too_many_arguments)]
fn drag(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    assembly: Res<Assembly>,
    mut grab: ResMut<Grab>,
    mut sim: ResMut<Simulation>,
) {
    let Some(mut d) = grab.drag else { return };
    let held = match d.mode {
        Mode::Move => buttons.pressed(MouseButton::Left),
        Mode::Turn => buttons.pressed(MouseButton::Right) || buttons.pressed(MouseButton::Left),
    };
    if !held {
        grab.drag = None;
        return;
    }
    let (cam, cam_t) = (camera.0, camera.1);
    let forward = cam_t.forward().as_vec3().as_dvec3();
    if scroll.delta.y != 0.0 {
        d.push += scroll.delta.y as f64 * 0.01 * assembly.loaded.size;
    }
    let target = match d.mode {
        Mode::Move => {
            let Some((o, dir)) = cursor_ray(&window, cam, cam_t) else { return };
            // The plane through the grab point facing the camera.
            let denom = dir.dot(forward);
            if denom.abs() < 1e-9 {
                return;
            }
            let p = o + dir * ((d.grab - o).dot(forward) / denom);
            let mut delta = p - d.grab + forward * d.push;
            for (key, axis) in [(KeyCode::KeyX, DVec3::X), (KeyCode::KeyY, DVec3::Y), (KeyCode::KeyZ, DVec3::Z)] {
                if keys.pressed(key) {
                    delta = axis * delta.dot(axis);
                }
            }
            Pose::new(d.start.rotation, d.start.translation + delta)
        }
        Mode::Turn => {
            let m = motion.delta.as_dvec2();
            if m != glam::DVec2::ZERO {
                let (right, up) = (cam_t.right().as_vec3().as_dvec3(), cam_t.up().as_vec3().as_dvec3());
                let axis = (up * m.x + right * m.y).normalize_or_zero();
                d.turn = (DQuat::from_axis_angle(axis, m.length() * 0.008) * d.turn).normalize();
            }
            let rotation = (d.turn * d.start.rotation).normalize();
            let pivot = d.grab;
            let translation = pivot + d.turn * (d.start.translation - pivot) + forward * d.push;
            Pose::new(rotation, translation)
        }
    };
    grab.drag = Some(d);
    sim.request = Some((d.part, target));
}

/// The selected part glows a little.
fn highlight(
    grab: Res<Grab>,
    assembly: Res<Assembly>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    parts: Query<&Part>,
    mut last: Local<Option<usize>>,
) {
    if *last == grab.selected {
        return;
    }
    for part in &parts {
        let Some(mut m) = materials.get_mut(&assembly.materials[part.0]) else { continue };
        m.emissive = if Some(part.0) == grab.selected { LinearRgba::rgb(0.12, 0.1, 0.02) } else { LinearRgba::BLACK };
    }
    *last = grab.selected;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn car_door() -> Assembly {
        let (files, path) = mockup_scene::embedded::default_scene();
        let loaded = mockup_scene::load(&path, &files, &mut |_| {}).unwrap();
        Assembly { loaded, title: String::new(), entities: Vec::new(), materials: Vec::new() }
    }

    #[test]
    fn a_ray_picks_the_nearest_part() {
        let a = car_door();
        let poses: Vec<Pose> = a.loaded.document.parts.iter().map(|p| p.pose.to_pose()).collect();
        // From outboard, at the door's lower panel: the door (it starts 0.5 outboard), 0.5
        // before the body side.
        let origin = DVec3::new(1.85, 3.0, 0.6);
        let (part, dist) = pick(&a, &poses, origin, -DVec3::Y).unwrap();
        assert_eq!(a.loaded.document.parts[part].name, "door");
        assert!((dist - (3.0 - 1.35)).abs() < 0.02, "{dist}");
        // Beside the door, at the B pillar: the body.
        let (part, _) = pick(&a, &poses, DVec3::new(2.45, 3.0, 0.8), -DVec3::Y).unwrap();
        assert_eq!(a.loaded.document.parts[part].name, "body");
        // Through both rear door openings: nothing.
        assert!(pick(&a, &poses, DVec3::new(2.95, 3.0, 0.8), -DVec3::Y).is_none());
        // Above everything: nothing.
        assert!(pick(&a, &poses, DVec3::new(2.0, 3.0, 5.0), -DVec3::Y).is_none());
    }
}
