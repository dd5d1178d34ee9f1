//! The mouse becomes a target pose. Left click selects a part (highlighted); left drag moves
//! a movable part in the plane parallel to the screen through the grab point; right drag
//! (or Ctrl + left) turns it, trackball style, about the grab point; the wheel while
//! dragging pushes it along the view direction; X, Y or Z held constrains the move to that
//! axis. Escape deselects. Each drag is one undo step. Every target goes to the solver,
//! which stops the part at contact.
//!
//! The gestures read [`PointerInput`], which the windowed app fills from the mouse, the
//! keyboard and the camera (`input::read_pointer`) and tests fill with synthetic events.
//! While a drag path replays, gestures are locked ([`crate::drag_path::Player`]).

use crate::MockupSet;
use crate::drag_path::Player;
use crate::history::{History, snapshot};
use crate::part::Parts;
use crate::scene::{SceneInfo, reset_on_open};
use crate::solver::{Solver, StepRequest, Target};
use bevy::prelude::*;
use glam::{DQuat, DVec2, DVec3};
use mockup_ccd::Pose;
use mockup_solver::World;

pub struct ManipulationPlugin;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ButtonState {
    pub pressed: bool,
    pub just_pressed: bool,
}

/// One frame of pointer input, in world terms.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct PointerInput {
    /// The ray through the cursor (origin, unit direction); `None` outside the 3-D view.
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
    /// The pointer is over the UI: it selects and grabs nothing.
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

/// The selected part.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection(pub Option<usize>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Move,
    Turn,
}

/// A drag gesture in progress.
#[derive(Clone, Copy, Debug)]
pub struct Gesture {
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

/// The drag gesture in progress, if any.
#[derive(Resource, Default, Debug)]
pub struct ActiveDrag(pub Option<Gesture>);

impl ActiveDrag {
    pub fn active(&self) -> bool {
        self.0.is_some()
    }

    pub fn part(&self) -> Option<usize> {
        self.0.map(|g| g.part)
    }
}

impl Plugin for ManipulationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Selection>()
            .init_resource::<ActiveDrag>()
            .add_systems(
                Update,
                (reset_on_open::<Selection>, reset_on_open::<ActiveDrag>)
                    .after(crate::scene::install)
                    .in_set(MockupSet::Install),
            )
            .add_systems(Update, (press, drag).chain().in_set(MockupSet::Gestures));
    }
}

/// The nearest shown part the ray `origin + t dir` (unit `dir`) meets, and `t`: a ray cast
/// (`mockup_ccd::ray_cast`, in f64) per shown part, each no farther than the best so far.
pub fn pick(world: &World, shown: &[bool], origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, body) in world.bodies().iter().enumerate() {
        if !shown.get(i).copied().unwrap_or(false) {
            continue;
        }
        let max = best.map_or(f64::INFINITY, |b| b.1);
        if let Some(hit) = mockup_ccd::ray_cast(&body.collider, &body.pose, origin, dir, max).value
            && best.is_none_or(|(_, b)| hit.t < b)
        {
            best = Some((i, hit.t));
        }
    }
    best
}

/// A ray from `eye` that reaches `part` before anything else (through one of a couple of
/// hundred of its triangles' centroids), for scripted drags.
pub fn ray_to_part(world: &World, shown: &[bool], eye: DVec3, part: usize) -> Option<(DVec3, DVec3)> {
    let body = world.body(part)?;
    let mesh = body.collider.mesh();
    let step = (mesh.triangles().len() / 200).max(1);
    (0..mesh.triangles().len() as u32).step_by(step).find_map(|t| {
        let [a, b, c] = mesh.triangle_points(t);
        let dir = (body.pose.transform_point((a + b + c) / 3.0) - eye).normalize();
        (pick(world, shown, eye, dir).map(|(p, _)| p) == Some(part)).then_some((eye, dir))
    })
}

#[allow(clippy::too_many_arguments)]
fn press(
    input: Res<PointerInput>,
    solver: Res<Solver>,
    parts: Parts,
    info: Res<SceneInfo>,
    player: Res<Player>,
    mut selection: ResMut<Selection>,
    mut active: ResMut<ActiveDrag>,
    mut history: ResMut<History>,
) {
    let locked = player.replaying();
    if input.escape && !locked {
        selection.0 = None;
        active.0 = None;
        return;
    }
    let (left, right) = (input.left.just_pressed, input.right_button.just_pressed);
    if locked || input.over_ui || !(left || right) || active.active() {
        return;
    }
    let Some((origin, dir)) = input.ray else { return };
    let n = solver.bodies().len();
    let hit = pick(&solver, &parts.shown(n), origin, dir);
    if left {
        selection.0 = hit.map(|(i, _)| i);
    }
    let Some((part, dist)) = hit else { return };
    let Some(body) = solver.body(part).filter(|b| !b.fixed) else { return };
    let mode = if right || input.ctrl { Mode::Turn } else { Mode::Move };
    selection.0 = Some(part);
    history.record(snapshot(&solver, &parts.props(n), &info.document.solver));
    active.0 =
        Some(Gesture { part, mode, start: body.pose, grab: origin + dir * dist, push: 0.0, turn: DQuat::IDENTITY });
}

fn drag(
    input: Res<PointerInput>,
    solver: Res<Solver>,
    parts: Parts,
    info: Res<SceneInfo>,
    mut active: ResMut<ActiveDrag>,
    mut request: ResMut<StepRequest>,
    mut history: ResMut<History>,
) {
    let Some(mut d) = active.0 else { return };
    let held = match d.mode {
        Mode::Move => input.left.pressed,
        Mode::Turn => input.right_button.pressed || input.left.pressed,
    };
    if !held {
        active.0 = None;
        // A click that moved nothing is no undo step.
        let n = solver.bodies().len();
        history.forget_if_unchanged(&snapshot(&solver, &parts.props(n), &info.document.solver));
        return;
    }
    let forward = input.forward;
    d.push += input.wheel * 0.01 * info.size;
    let pose = match d.mode {
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
    active.0 = Some(d);
    request.0 = Some(Target { part: d.part, pose });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn car_door() -> (World, Vec<String>) {
        let (files, path) = mockup_scene::embedded::default_scene();
        let loaded = mockup_scene::load(&path, &files, &mut |_| {}).unwrap();
        let names = loaded.document.parts.iter().map(|p| p.name.clone()).collect();
        let ready = crate::scene::ReadyScene::prepare(loaded, Default::default());
        (ready.world, names)
    }

    /// Every triangle of every shown part: what picking must agree with.
    fn pick_brute_force(w: &World, shown: &[bool], origin: DVec3, dir: DVec3) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for (i, b) in w.bodies().iter().enumerate().filter(|(i, _)| shown[*i]) {
            let inv = b.pose.inverse();
            let (o, d) = (inv.transform_point(origin), inv.transform_vector(dir));
            let m = b.collider.mesh();
            for t in 0..m.triangles().len() as u32 {
                if let Some(dist) = mockup_ccd::query::ray_triangle(o, d, m.triangle_points(t))
                    && best.is_none_or(|(_, b)| dist < b)
                {
                    best = Some((i, dist));
                }
            }
        }
        best
    }

    /// Rays from random eyes around the car toward random points of its bounds, with one part
    /// hidden or none: picking's part and distance are the brute force's, and most rays hit
    /// something.
    #[test]
    fn picking_picks_what_every_triangle_of_the_shown_parts_picks() {
        let (w, _) = car_door();
        let n = w.bodies().len();
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = -lo;
        for b in w.bodies() {
            let bx = mockup_ccd::broad::Aabb::of_mesh(b.collider.mesh(), &b.pose);
            (lo, hi) = (lo.min(bx.min), hi.max(bx.max));
        }
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut hits = 0;
        for k in 0..300 {
            let mut shown = vec![true; n];
            if k % 3 == 1 {
                shown[k % n] = false;
            }
            let at = |r: &mut dyn FnMut() -> f64| lo + (hi - lo) * DVec3::new(r(), r(), r());
            let target = at(&mut rnd);
            let eye = 0.5 * (lo + hi) + (hi - lo).length() * (DVec3::new(rnd(), rnd(), rnd()) - 0.5).normalize();
            let dir = (target - eye).normalize();
            let (fast, brute) = (pick(&w, &shown, eye, dir), pick_brute_force(&w, &shown, eye, dir));
            assert_eq!(fast.map(|h| h.0), brute.map(|h| h.0), "from {eye} along {dir}");
            if let (Some(x), Some(y)) = (fast, brute) {
                assert!((x.1 - y.1).abs() <= 1e-12 * y.1, "{x:?} vs {y:?}");
                hits += 1;
            }
        }
        assert!(hits > 150, "only {hits} of 300 rays hit");
    }

    #[test]
    fn a_ray_picks_the_nearest_part() {
        let (w, names) = car_door();
        let shown = vec![true; names.len()];
        // From outboard, at the door's lower panel: the door (it starts 0.5 outboard), 0.5
        // before the body side.
        let origin = DVec3::new(1.85, 3.0, 0.6);
        let (part, dist) = pick(&w, &shown, origin, -DVec3::Y).unwrap();
        assert_eq!(names[part], "door");
        assert!((dist - (3.0 - 1.35)).abs() < 0.02, "{dist}");
        // With the door hidden, the ray goes past it (through the door opening).
        let mut no_door = shown.clone();
        no_door[part] = false;
        assert!(pick(&w, &no_door, origin, -DVec3::Y).is_none_or(|(p, t)| p != part && t > dist));
        // Beside the door, at the B pillar: the body.
        let (part, _) = pick(&w, &shown, DVec3::new(2.45, 3.0, 0.8), -DVec3::Y).unwrap();
        assert_eq!(names[part], "body");
        // Through both rear door openings: nothing.
        assert!(pick(&w, &shown, DVec3::new(2.95, 3.0, 0.8), -DVec3::Y).is_none());
        // Above everything: nothing.
        assert!(pick(&w, &shown, DVec3::new(2.0, 3.0, 5.0), -DVec3::Y).is_none());
    }
}
