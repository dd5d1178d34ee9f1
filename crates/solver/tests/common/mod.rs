//! Scenes and random drags for the solver's tests.
#![allow(dead_code)]

#[path = "../../../ccd/benches/scenes.rs"]
mod ccd_scenes;
pub mod sides;

use glam::{DQuat, DVec3};
use mockup_ccd::{Collider, Mesh, MeshBuilder, Pose, intersects};
use mockup_solver::{BodyId, SolverSettings, StepReport, World};
use std::sync::Arc;

pub struct TestScene {
    pub world: World,
    pub dragged: BodyId,
    /// Where random targets are drawn around.
    pub center: DVec3,
    /// How far they spread.
    pub spread: f64,
}

fn world(size: f64) -> World {
    World::new(SolverSettings::for_scene_size(size)).unwrap()
}

fn collider(mesh: Mesh) -> Arc<Collider> {
    Arc::new(Collider::new(mesh))
}

/// A 32-facet peg of radius 0.25 above the bore (radius 0.26) of a tube: 0.01 clearance.
pub fn peg_in_hole() -> TestScene {
    let tube = MeshBuilder::new().tube(Pose::IDENTITY, 0.26, 0.6, 2.0, 32, 4).build().unwrap();
    let peg = MeshBuilder::new().cylinder(Pose::IDENTITY, 0.25, 1.0, 32, 2).build().unwrap();
    let mut w = world(2.5);
    w.add_body(collider(tube), Pose::IDENTITY, true);
    let dragged = w.add_body(collider(peg), Pose::from_translation(DVec3::new(0.0, 0.0, 1.8)), false);
    TestScene { world: w, dragged, center: DVec3::new(0.0, 0.0, 0.5), spread: 1.0 }
}

/// A 0.8 × 0.16 × 0.6 plate in front of a wall with a 1.0 × 0.2 slot.
pub fn plate_in_slot() -> TestScene {
    let slot = |x: f64, y: f64| x.abs() < 0.5 && y.abs() < 0.1;
    let wall =
        MeshBuilder::new().perforated_plate(Pose::IDENTITY, [2.0, 2.0], 0.1, [20, 20], 0.0, slot).build().unwrap();
    let plate = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.4, 0.08, 0.3)).build().unwrap();
    let mut w = world(2.0);
    w.add_body(collider(wall), Pose::IDENTITY, true);
    let dragged = w.add_body(collider(plate), Pose::from_translation(DVec3::new(0.0, 0.0, 0.6)), false);
    TestScene { world: w, dragged, center: DVec3::ZERO, spread: 0.8 }
}

/// Two interlocked tori of 300 triangles each (seed 002's example).
pub fn tori() -> TestScene {
    let torus = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 15, 10).build().unwrap();
    let mut w = world(4.0);
    w.add_body(collider(torus.clone()), Pose::IDENTITY, true);
    let start = Pose::new(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2), DVec3::new(1.0, 0.0, 0.0));
    let dragged = w.add_body(collider(torus), start, false);
    TestScene { world: w, dragged, center: DVec3::new(1.0, 0.0, 0.0), spread: 1.0 }
}

/// The door-like part (3,420 triangles) in front of its frame with a 0.005 clearance.
pub fn door_in_frame() -> TestScene {
    let mut w = world(2.0);
    w.add_body(collider(ccd_scenes::door_frame()), Pose::IDENTITY, true);
    let dragged =
        w.add_body(collider(ccd_scenes::door_part()), Pose::from_translation(DVec3::new(0.0, 0.0, 0.3)), false);
    TestScene { world: w, dragged, center: DVec3::new(0.0, 0.0, 0.0), spread: 0.3 }
}

/// A seeded generator, so a failure names its step.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    /// Uniform in [-1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    pub fn vec(&mut self) -> DVec3 {
        DVec3::new(self.next(), self.next(), self.next())
    }
    pub fn rotation(&mut self, max_angle: f64) -> DQuat {
        let axis = self.vec().try_normalize().unwrap_or(DVec3::Z);
        DQuat::from_axis_angle(axis, max_angle * self.next())
    }
}

/// A random target: mostly a short move from the current pose (hand motion), sometimes a
/// large fast drag across the scene, sometimes deep inside the fixed part.
pub fn random_target(rng: &mut Rng, scene: &TestScene, current: Pose) -> Pose {
    let roll = rng.next();
    if roll < 0.5 {
        let step = 0.05 * scene.spread;
        Pose::new(rng.rotation(0.05) * current.rotation, current.translation + rng.vec() * step)
    } else if roll < 0.8 {
        // Toward the centre of the scene with a small turn: pushes into contacts.
        let to_center = scene.center - current.translation;
        Pose::new(
            rng.rotation(0.1) * current.rotation,
            current.translation + 0.3 * to_center + rng.vec() * 0.02 * scene.spread,
        )
    } else if roll < 0.95 {
        Pose::new(rng.rotation(1.0) * current.rotation, scene.center + rng.vec() * scene.spread)
    } else {
        // Deep inside: the fixed part's centre.
        Pose::new(current.rotation, DVec3::ZERO)
    }
}

/// Drags the scene's part to `steps` random targets, checking the guarantee after each with
/// a tolerance of half of εr (a contact may end a step below εr only when the repositioning
/// budget ran out, docs/solver.md §5). Calls `each` with the pose before the step and the
/// step's report.
pub fn random_drags(scene: &mut TestScene, seed: u64, steps: usize, mut each: impl FnMut(Pose, &StepReport)) {
    let mut rng = Rng::new(seed);
    let tolerance = 0.5 * scene.world.settings().repositioning;
    for step in 0..steps {
        let current = scene.world.body(scene.dragged).unwrap().pose;
        let before: Vec<Pose> = scene.world.bodies().iter().map(|b| b.pose).collect();
        let target = random_target(&mut rng, scene, current);
        let report = scene.world.drag(scene.dragged, target).unwrap();
        check_guarantee(&scene.world, &report, step, tolerance);
        check_path(&scene.world, before, &report, step);
        each(current, &report);
    }
}

/// The path between the poses, not only the poses: every move of the step, sampled at 8
/// points, never interpenetrates (a static test, independent of the CCD that allowed the
/// move), and the moves end where the bodies are.
pub fn check_path(world: &World, mut poses: Vec<Pose>, report: &StepReport, step: usize) {
    let bodies = world.bodies();
    for group in report.moves.chunk_by(|a, b| a.substep == b.substep) {
        for k in 1..=8 {
            let s = k as f64 / 8.0;
            let mut at = poses.clone();
            for m in group {
                at[m.body] = m.pose_at(s);
            }
            for m in group {
                for (other, body) in bodies.iter().enumerate().filter(|&(o, _)| o != m.body) {
                    let hit = intersects(&bodies[m.body].collider, &at[m.body], &body.collider, &at[other]).value;
                    assert!(!hit, "step {step}: move {m:?} passes through body {other} at {s}");
                }
            }
        }
        for m in group {
            poses[m.body] = m.pose_at(1.0);
        }
    }
    for (b, body) in bodies.iter().enumerate() {
        let (p, q) = (poses[b], body.pose);
        // Quaternion difference, not `angle_between`: acos loses half the digits near 1.
        let (a, b) = (p.rotation.normalize(), q.rotation);
        let apart = (p.translation - q.translation).length() + (a - b).length().min((a + b).length());
        assert!(apart < 1e-9, "step {step}: body {b} is {apart} from where its moves end");
    }
}

/// After a step: nothing interpenetrates, and every contact keeps at least
/// `εr − tolerance`.
pub fn check_guarantee(world: &World, report: &StepReport, step: usize, tolerance: f64) {
    let pairs = world.intersecting_pairs();
    assert!(pairs.is_empty(), "step {step}: bodies {pairs:?} interpenetrate ({report:?})");
    let er = world.settings().repositioning;
    for c in world.contacts() {
        assert!(
            c.distance >= er - tolerance,
            "step {step}: contact at {} < εr − tol = {} ({report:?})",
            c.distance,
            er - tolerance
        );
    }
}

/// A plate (half sizes 3.2, 0.6, 0.1) resting on the top faces (z = 0.4) of six fixed blocks
/// (half size 0.4, centred at x = −2.5 … 2.5): pairs in contact from the start, hundreds of
/// contacts. Added before the blocks or after them (a pair's readings are taken from its
/// first body). The world and the plate's id.
pub fn plate_on_blocks(plate_first: bool) -> (World, BodyId) {
    let mut w = world(10.0);
    let plate = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::new(3.2, 0.6, 0.1), [16, 4, 1]);
    let plate = collider(plate.build().unwrap());
    let at = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5));
    let first = plate_first.then(|| w.add_body(plate.clone(), at, false));
    for k in 0..6 {
        let block = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::splat(0.4), [3, 3, 3]);
        let at = Pose::from_translation(DVec3::new(-2.5 + k as f64, 0.0, 0.0));
        w.add_body(collider(block.build().unwrap()), at, true);
    }
    let p = first.unwrap_or_else(|| w.add_body(plate, at, false));
    (w, p)
}

/// How deep the plate of [`plate_on_blocks`] at `pose` is in the blocks, while it lies over
/// their tops: the deepest corner of a block inside the plate, or of the plate's underside
/// inside a block, measured along the other's top or bottom normal.
pub fn plate_depth_in_blocks(pose: &Pose) -> f64 {
    let mut depth: f64 = 0.0;
    for k in 0..6 {
        let cx = -2.5 + k as f64;
        for (sx, sy) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
            let l = pose.inverse().transform_point(DVec3::new(cx + 0.4 * sx, 0.4 * sy, 0.4));
            if l.x.abs() <= 3.2 && l.y.abs() <= 0.6 {
                depth = depth.max(l.z + 0.1);
            }
            let w = pose.transform_point(DVec3::new(3.2 * sx, 0.6 * sy, -0.1));
            if (w.x - cx).abs() <= 0.4 && w.y.abs() <= 0.4 {
                depth = depth.max(0.4 - w.z);
            }
        }
    }
    depth
}
