//! The mouse becomes a target pose. Left click selects a part (highlighted); left drag moves
//! a movable part in the plane parallel to the screen through the grab point; right drag
//! (or Ctrl + left) turns it, trackball style, about the grab point; the wheel while
//! dragging pushes it along the view direction; X, Y or Z held constrains the move to that
//! axis. Escape deselects. Each drag is one undo step. Every target goes to the solver,
//! which stops the part at contact.
//!
//! The gestures read [`PointerInput`], which the windowed app fills from the mouse, the
//! keyboard and the camera ([`read_pointer`]) and tests fill with synthetic events.

use crate::history::{History, snapshot};
use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;
use glam::{DQuat, DVec2, DVec3};
use mockup_ccd::Pose;

pub struct ManipulationPlugin;

/// Systems that turn input into gestures; the camera and the solver run after them.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gestures;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ButtonState {
    pub pressed: bool,
    pub just_pressed: bool,
}

/// One frame of pointer input, in world terms.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PointerInput {
    /// The ray through the cursor (origin, unit direction); `None` outside the window.
    pub ray: Option<(DVec3, DVec3)>,
    /// The camera's forward, right and up directions.
    pub forward: DVec3,
    pub right: DVec3,
    pub up: DVec3,
    pub left: ButtonState,
    pub right_button: ButtonState,
    pub ctrl: bool,
    /// X, Y or Z held: the world axis moves are constrained to.
    pub axis: Option<DVec3>,
    /// Wheel lines this frame.
    pub wheel: f64,
    /// Mouse motion this frame, pixels.
    pub motion: DVec2,
    pub escape: bool,
    /// The pointer is over a UI panel: it selects and grabs nothing.
    pub over_ui: bool,
}

impl Default for PointerInput {
    fn default() -> Self {
        PointerInput {
            ray: None,
            forward: -DVec3::Z,
            right: DVec3::X,
            up: DVec3::Y,
            left: default(),
            right_button: default(),
            ctrl: false,
            axis: None,
            wheel: 0.0,
            motion: DVec2::ZERO,
            escape: false,
            over_ui: false,
        }
    }
}

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
    /// Gestures are ignored (a drag path is replaying).
    pub locked: bool,
}

impl Grab {
    pub fn active(&self) -> bool {
        self.drag.is_some()
    }
}

impl Plugin for ManipulationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Grab>()
            .init_resource::<PointerInput>()
            .add_systems(PreUpdate, crate::scene::reset_on_open::<Grab>.after(crate::scene::Install))
            .add_systems(Update, (press, drag).chain().in_set(Gestures));
    }
}

/// The nearest visible part the ray hits: down each part's OBB tree (boxes the ray enters
/// before the best hit so far), Möller–Trumbore at the leaves, in the part's frame:
/// (part, distance along the ray).
pub fn pick(assembly: &Assembly, poses: &[Pose], origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    let mut stack = Vec::new();
    for (i, c) in assembly.loaded.colliders.iter().enumerate() {
        if !assembly.parts()[i].visible {
            continue;
        }
        let inv = poses[i].inverse();
        let (o, d) = (inv.transform_point(origin), inv.transform_vector(dir));
        let (tree, m) = (c.tree(), c.mesh());
        stack.clear();
        stack.push(0u32);
        while let Some(n) = stack.pop() {
            let node = tree.node(n);
            if !ray_enters(o, d, &node.obb, best.map_or(f64::INFINITY, |b| b.1)) {
                continue;
            }
            if !node.is_leaf() {
                let (l, r) = tree.children(n);
                stack.extend([l, r]);
                continue;
            }
            for &t in tree.leaf_triangles(node) {
                if let Some(dist) = ray_triangle(o, d, m.triangle_points(t))
                    && best.is_none_or(|(_, b)| dist < b)
                {
                    best = Some((i, dist));
                }
            }
        }
    }
    best
}

/// Whether the ray `o + s d` (s ≥ 0) enters the box before `limit`: slabs along its axes,
/// widened by a hair so a triangle lying on a face is not missed.
fn ray_enters(o: DVec3, d: DVec3, b: &mockup_ccd::bvh::Obb, limit: f64) -> bool {
    let p = o - b.center;
    let (mut enter, mut leave) = (0.0f64, limit);
    for k in 0..3 {
        let (e, f) = (b.axes[k].dot(p), b.axes[k].dot(d));
        let h = b.half[k] * (1.0 + 1e-9) + 1e-12 * (b.center.length() + b.half.length());
        if f.abs() < 1e-300 {
            if e.abs() > h {
                return false;
            }
            continue;
        }
        let (s0, s1) = ((-h - e) / f, (h - e) / f);
        enter = enter.max(s0.min(s1));
        leave = leave.min(s0.max(s1));
        if enter > leave {
            return false;
        }
    }
    true
}

/// Möller–Trumbore: the distance along `d` at which the ray meets the triangle, if it does
/// (ahead of the origin).
fn ray_triangle(o: DVec3, d: DVec3, [a, b, c]: [DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-300 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let dist = e2.dot(q) / det;
    (dist > 0.0).then_some(dist)
}

/// A ray from `eye` that reaches `part` before anything else (through one of a couple of
/// hundred of its triangles' centroids), for scripted drags.
pub fn ray_to_part(assembly: &Assembly, poses: &[Pose], eye: DVec3, part: usize) -> Option<(DVec3, DVec3)> {
    let mesh = assembly.loaded.colliders.get(part)?.mesh();
    let step = (mesh.triangles().len() / 200).max(1);
    (0..mesh.triangles().len() as u32).step_by(step).find_map(|t| {
        let [a, b, c] = mesh.triangle_points(t);
        let dir = (poses[part].transform_point((a + b + c) / 3.0) - eye).normalize();
        (pick(assembly, poses, eye, dir).map(|(p, _)| p) == Some(part)).then_some((eye, dir))
    })
}

fn press(
    input: Res<PointerInput>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
    mut grab: ResMut<Grab>,
    mut history: ResMut<History>,
) {
    if input.escape && !grab.locked {
        grab.selected = None;
        grab.drag = None;
        return;
    }
    let (left, right) = (input.left.just_pressed, input.right_button.just_pressed);
    if grab.locked || input.over_ui || !(left || right) || grab.drag.is_some() {
        return;
    }
    let Some((origin, dir)) = input.ray else { return };
    let poses = sim.poses();
    let hit = pick(&assembly, &poses, origin, dir);
    if left {
        grab.selected = hit.map(|(i, _)| i);
    }
    let Some((part, dist)) = hit else { return };
    if sim.world.body(part).is_none_or(|b| b.fixed) {
        return;
    }
    let mode = if right || input.ctrl { Mode::Turn } else { Mode::Move };
    grab.selected = Some(part);
    history.record(snapshot(&assembly, &sim));
    grab.drag =
        Some(Drag { part, mode, start: poses[part], grab: origin + dir * dist, push: 0.0, turn: DQuat::IDENTITY });
}

fn drag(
    input: Res<PointerInput>,
    assembly: Res<Assembly>,
    mut grab: ResMut<Grab>,
    mut sim: ResMut<Simulation>,
    mut history: ResMut<History>,
) {
    let Some(mut d) = grab.drag else { return };
    let held = match d.mode {
        Mode::Move => input.left.pressed,
        Mode::Turn => input.right_button.pressed || input.left.pressed,
    };
    if !held {
        grab.drag = None;
        // A click that moved nothing is no undo step.
        history.forget_if_unchanged(&snapshot(&assembly, &sim));
        return;
    }
    let forward = input.forward;
    d.push += input.wheel * 0.01 * assembly.size();
    let target = match d.mode {
        Mode::Move => {
            let Some((o, dir)) = input.ray else { return };
            // The plane through the grab point facing the camera.
            let denom = dir.dot(forward);
            if denom.abs() < 1e-9 {
                return;
            }
            let p = o + dir * ((d.grab - o).dot(forward) / denom);
            let mut delta = p - d.grab + forward * d.push;
            if let Some(axis) = input.axis {
                delta = axis * delta.dot(axis);
            }
            Pose::new(d.start.rotation, d.start.translation + delta)
        }
        Mode::Turn => {
            let m = input.motion;
            if m != DVec2::ZERO {
                let axis = (input.up * m.x + input.right * m.y).normalize_or_zero();
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

/// Windowed: fills [`PointerInput`] from the mouse, the keyboard and the camera.
pub mod window_input {
    use super::*;
    use crate::ui::UiFocus;
    use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
    use bevy::window::PrimaryWindow;

    #[allow(clippy::too_many_arguments)]
    pub fn read_pointer(
        buttons: Res<ButtonInput<MouseButton>>,
        keys: Res<ButtonInput<KeyCode>>,
        motion: Res<AccumulatedMouseMotion>,
        scroll: Res<AccumulatedMouseScroll>,
        window: Single<&Window, With<PrimaryWindow>>,
        camera: Single<(&Camera, &GlobalTransform)>,
        focus: Res<UiFocus>,
        mut input: ResMut<PointerInput>,
    ) {
        let (cam, cam_t) = *camera;
        let ray = window
            .cursor_position()
            .and_then(|c| cam.viewport_to_world(cam_t, c).ok())
            .map(|r| (r.origin.as_dvec3(), Vec3::from(r.direction).as_dvec3()));
        let b = |m: MouseButton| ButtonState { pressed: buttons.pressed(m), just_pressed: buttons.just_pressed(m) };
        let typing = focus.keyboard;
        let key = |k: KeyCode| !typing && keys.pressed(k);
        let axis = [(KeyCode::KeyX, DVec3::X), (KeyCode::KeyY, DVec3::Y), (KeyCode::KeyZ, DVec3::Z)]
            .into_iter()
            .find(|&(k, _)| key(k))
            .map(|(_, a)| a);
        *input = PointerInput {
            ray,
            forward: cam_t.forward().as_vec3().as_dvec3(),
            right: cam_t.right().as_vec3().as_dvec3(),
            up: cam_t.up().as_vec3().as_dvec3(),
            left: b(MouseButton::Left),
            right_button: b(MouseButton::Right),
            ctrl: key(KeyCode::ControlLeft) || key(KeyCode::ControlRight),
            axis,
            wheel: scroll.delta.y as f64,
            motion: motion.delta.as_dvec2(),
            escape: !typing && keys.just_pressed(KeyCode::Escape),
            over_ui: focus.pointer,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn car_door() -> Assembly {
        let (files, path) = mockup_scene::embedded::default_scene();
        let loaded = mockup_scene::load(&path, &files, &mut |_| {}).unwrap();
        Assembly { loaded, entities: Vec::new(), generation: 1 }
    }

    /// Every triangle of every visible part: what the tree must agree with.
    fn pick_brute_force(a: &Assembly, poses: &[Pose], origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, c) in a.loaded.colliders.iter().enumerate() {
            let inv = poses[i].inverse();
            let (o, d) = (inv.transform_point(origin), inv.transform_vector(dir));
            for t in 0..c.mesh().triangles().len() as u32 {
                if let Some(dist) = ray_triangle(o, d, c.mesh().triangle_points(t))
                    && best.is_none_or(|(_, b)| dist < b)
                {
                    best = Some((i, dist));
                }
            }
        }
        best
    }

    /// Rays from random eyes around the car toward random points of its bounds: the tree's
    /// pick is the brute force's, part and distance, and most rays hit something.
    #[test]
    fn the_tree_picks_what_every_triangle_picks() {
        let a = car_door();
        let poses: Vec<Pose> = a.parts().iter().map(|p| p.pose.to_pose()).collect();
        let (lo, hi) = crate::camera::visible_bounds(&a, &poses).unwrap();
        let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut hits = 0;
        for _ in 0..300 {
            let at = |r: &mut dyn FnMut() -> f64| lo + (hi - lo) * DVec3::new(r(), r(), r());
            let target = at(&mut rnd);
            let eye = 0.5 * (lo + hi) + (hi - lo).length() * (DVec3::new(rnd(), rnd(), rnd()) - 0.5).normalize();
            let dir = (target - eye).normalize();
            let (tree, brute) = (pick(&a, &poses, eye, dir), pick_brute_force(&a, &poses, eye, dir));
            assert_eq!(tree.map(|h| h.0), brute.map(|h| h.0), "from {eye} along {dir}");
            if let (Some(x), Some(y)) = (tree, brute) {
                assert!((x.1 - y.1).abs() <= 1e-12 * y.1, "{x:?} vs {y:?}");
                hits += 1;
            }
        }
        assert!(hits > 150, "only {hits} of 300 rays hit");
    }

    #[test]
    fn a_ray_picks_the_nearest_part() {
        let a = car_door();
        let poses: Vec<Pose> = a.parts().iter().map(|p| p.pose.to_pose()).collect();
        // From outboard, at the door's lower panel: the door (it starts 0.5 outboard), 0.5
        // before the body side.
        let origin = DVec3::new(1.85, 3.0, 0.6);
        let (part, dist) = pick(&a, &poses, origin, -DVec3::Y).unwrap();
        assert_eq!(a.parts()[part].name, "door");
        assert!((dist - (3.0 - 1.35)).abs() < 0.02, "{dist}");
        // Beside the door, at the B pillar: the body.
        let (part, _) = pick(&a, &poses, DVec3::new(2.45, 3.0, 0.8), -DVec3::Y).unwrap();
        assert_eq!(a.parts()[part].name, "body");
        // Through both rear door openings: nothing.
        assert!(pick(&a, &poses, DVec3::new(2.95, 3.0, 0.8), -DVec3::Y).is_none());
        // Above everything: nothing.
        assert!(pick(&a, &poses, DVec3::new(2.0, 3.0, 5.0), -DVec3::Y).is_none());
    }
}
