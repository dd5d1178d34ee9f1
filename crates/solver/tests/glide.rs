//! The glide screen as the solver's narrow phase (seed 002, docs/glide.md §10): the same
//! guarantee as with the exact CCD — random drags never interpenetrate — and the analytic
//! slide along a floor.

mod common;

use common::*;
use glam::DVec3;
use mockup_ccd::{Collider, MeshBuilder, Pose};
use mockup_solver::{NarrowPhase, SolverSettings, World};
use std::sync::Arc;

fn with_glide(mut scene: TestScene) -> TestScene {
    let mut s = *scene.world.settings();
    s.narrow_phase = NarrowPhase::Glide;
    scene.world.set_settings(s).unwrap();
    scene
}

fn run(mut scene: TestScene, seed: u64, steps: usize) {
    let (mut blocked, mut tests) = (0, 0);
    random_drags(&mut scene, seed, steps, |_, report| {
        blocked += report.blocked_substeps;
        tests += report.glide_tests;
    });
    assert!(tests > 0, "the glide screen must have run");
    assert!(blocked > steps as u32 / 20, "the drags must hit something often ({blocked} blocked sub-steps)");
}

#[test]
fn peg_in_hole_with_glide() {
    run(with_glide(peg_in_hole()), 11, 400);
}

#[test]
fn interlocked_tori_with_glide() {
    run(with_glide(tori()), 13, 400);
}

#[test]
fn plate_in_slot_with_glide() {
    run(with_glide(plate_in_slot()), 12, 400);
}

/// A box pushed down and sideways into a floor stops on it and slides to the target's
/// projection, as with the exact CCD.
#[test]
fn a_box_slides_on_the_floor_with_glide() {
    let mut s = SolverSettings::for_scene_size(10.0);
    s.narrow_phase = NarrowPhase::Glide;
    let mut w = World::new(s).unwrap();
    let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap();
    w.add_body(Arc::new(Collider::new(floor)), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
    let b = w.add_body(Arc::new(Collider::new(cube)), Pose::from_translation(DVec3::new(0.0, 0.0, 0.6)), false);
    let target = Pose::from_translation(DVec3::new(2.0, 1.0, -3.0));
    let (mut last, mut tests) = (None, 0);
    for _ in 0..3 {
        let r = w.drag(b, target).unwrap();
        tests += r.glide_tests;
        last = Some(r);
        assert!(w.intersecting_pairs().is_empty());
    }
    let r = last.unwrap();
    let p = r.pose.translation;
    assert!((p.x - 2.0).abs() < 1e-6 && (p.y - 1.0).abs() < 1e-6, "{p:?}");
    assert!(p.z >= 0.5 + s.repositioning && p.z <= 0.5 + s.security * 1.001, "height {} ({r:?})", p.z);
    assert!(tests > 0, "the glide screen must have run");
}

/// Under a time budget (a tiny one, so that every screen takes more than a third of it), the
/// glide screen checks each sub-step a stretch at a time (docs/solver.md §4): random drags
/// still never interpenetrate along their paths, every drag ends, and a target the
/// unbudgeted drag reaches is reached too, over as many frames as it takes.
#[test]
fn glide_stretches_under_a_time_budget_keep_the_guarantee() {
    let mut stretches = 0;
    for (make, seed) in [(peg_in_hole as fn() -> TestScene, 41), (tori, 42)] {
        let (mut free, mut tight) = (with_glide(make()), with_glide(make()));
        let s = *tight.world.settings();
        tight
            .world
            .set_settings(SolverSettings { time_budget: Some(std::time::Duration::from_micros(20)), ..s })
            .unwrap();
        let mut rng = Rng::new(seed);
        for step in 0..60 {
            let current = free.world.body(free.dragged).unwrap().pose;
            tight.world.set_pose(tight.dragged, current).unwrap();
            let target = random_target(&mut rng, &free, current);
            let plain = free.world.drag(free.dragged, target).unwrap();
            let mut frames = 0;
            let last = loop {
                let before: Vec<Pose> = tight.world.bodies().iter().map(|b| b.pose).collect();
                let r = tight.world.drag(tight.dragged, target).unwrap();
                check_path(&tight.world, before, &r, step);
                assert!(tight.world.intersecting_pairs().is_empty(), "step {step} frame {frames}");
                stretches += r.glide_stretches;
                frames += 1;
                if !r.out_of_time {
                    break r;
                }
                assert!(frames < 5000, "step {step}: the drag asks for frames forever");
            };
            if plain.reached {
                assert!(last.reached, "step {step}: reached unbudgeted, not in {frames} frames under the budget");
            }
        }
    }
    assert!(stretches > 0, "no sub-step was screened a stretch at a time");
}

/// The glide screen screens the faces that face the motion, which on a solid are the only ones
/// met first; an open surface can be met from behind. With the glide narrow phase, a cube
/// driven up into a one-sided sheet (two triangles, facing up: the cube meets its back) stops
/// under it, and so it does under a sheet facing down (met from the front) and from above the
/// sheet facing up: the sheet is open, so the sub-steps that meet it are checked by the exact
/// CCD. Before that rule, the cube went through the sheet met from behind (found on
/// example-robot-data's Alex humanoid, whose collision meshes are open: scripts/robot-corpus).
#[test]
fn an_open_sheet_stops_the_glide_narrow_phase_from_either_side() {
    use mockup_ccd::Mesh;
    for (facing_up, from_below) in [(true, true), (false, true), (true, false)] {
        let mut s = SolverSettings::for_scene_size(10.0);
        s.narrow_phase = NarrowPhase::Glide;
        let mut w = World::new(s).unwrap();
        let corners = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)].map(|(x, y)| DVec3::new(x, y, 0.0));
        let triangles = if facing_up { vec![[0, 1, 2], [0, 2, 3]] } else { vec![[0, 2, 1], [0, 3, 2]] };
        let sheet = Mesh::new(corners.to_vec(), triangles).unwrap();
        w.add_body(Arc::new(Collider::new(sheet)), Pose::IDENTITY, true);
        let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
        let side = if from_below { -1.0 } else { 1.0 };
        let start = Pose::from_translation(DVec3::new(0.2, -0.1, 1.5 * side));
        let b = w.add_body(Arc::new(Collider::new(cube)), start, false);
        let target = Pose::from_translation(DVec3::new(0.3, 0.1, -2.0 * side));
        let mut exact = 0;
        for frame in 0..3 {
            let r = w.drag(b, target).unwrap();
            exact += r.moves.iter().filter(|m| !m.screened()).count();
            let z = r.pose.translation.z;
            let case = format!(
                "sheet facing {}, cube from {}",
                if facing_up { "up" } else { "down" },
                if from_below { "below" } else { "above" }
            );
            assert!(
                w.intersecting_pairs().is_empty(),
                "{case}, frame {frame}: the cube went into the sheet at z = {z}"
            );
            assert!(side * z >= 0.5, "{case}, frame {frame}: the cube went through the sheet to z = {z}");
        }
        assert!(exact > 0, "the exact CCD must have checked the moves toward the sheet");
    }
}

/// Random drags with the glide narrow phase where the part meets a solid and an open mesh:
/// `plate_in_slot`'s plate, its slotted wall (a solid) and, under the wall, a one-sided sheet
/// facing down, so that a plate through the slot meets its back. Every step's moves are free
/// of interpenetration; the screen checks the sub-steps with the wall alone, the exact CCD
/// those with the sheet among their pairs.
#[test]
fn random_drags_with_glide_beside_an_open_sheet_never_interpenetrate() {
    use mockup_ccd::Mesh;
    let mut scene = with_glide(plate_in_slot());
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| DVec3::new(x, y, -0.45));
    let sheet = Mesh::new(corners.to_vec(), vec![[0, 2, 1], [0, 3, 2]]).unwrap();
    scene.world.add_body(Arc::new(Collider::new(sheet)), Pose::IDENTITY, true);
    // Moves checked by the screen and by the exact CCD.
    let (mut glide, mut exact, mut below) = (0, 0, 0);
    let mut count = |report: &mockup_solver::StepReport| {
        glide += report.moves.iter().filter(|m| m.screened()).count();
        exact += report.moves.iter().filter(|m| !m.screened()).count();
    };
    random_drags(&mut scene, 17, 300, |_, report| count(report));
    let mut rng = Rng::new(18);
    // Every fourth step put back over the slot, square to it, and pushed straight down
    // through it onto the sheet; random drags from where that left it in between.
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.6));
    for step in 0..60 {
        if step % 4 == 0 {
            scene.world.set_pose(scene.dragged, start).unwrap();
        }
        let current = scene.world.body(scene.dragged).unwrap().pose;
        let target = match step % 4 {
            0 => Pose::new(rng.rotation(0.02), DVec3::new(0.01 * rng.next(), 0.0, -1.5)),
            _ => random_target(&mut rng, &scene, current),
        };
        let before: Vec<Pose> = scene.world.bodies().iter().map(|b| b.pose).collect();
        let report = scene.world.drag(scene.dragged, target).unwrap();
        check_path(&scene.world, before, &report, step);
        assert!(scene.world.intersecting_pairs().is_empty(), "step {step}");
        below += usize::from(scene.world.body(scene.dragged).unwrap().pose.translation.z < -0.1);
        count(&report);
    }
    assert!(glide > 0 && exact > 0, "both checks must have run ({glide} moves screened, {exact} by the exact CCD)");
    assert!(below > 0, "the plate must have gone through the slot toward the sheet");
}

/// Meshes that are closed, consistently wound and of positive volume, yet no solid: a cube
/// wound inward beside a larger outward one, and an outward cube nested in another (a cavity
/// wound the wrong way). A part coming from outside, or from the cavity, meets their faces
/// from behind, which BM culling and the glide screen skip (docs/bm-culling.md §6): a cube
/// dragged through them went through with culling on and with the glide narrow phase (found
/// in review). Now it stops at them with either narrow phase, culling on.
#[test]
fn solids_with_a_wrong_shell_are_not_culled_or_screened() {
    let shells = |cubes: &[(DVec3, f64, bool)]| {
        let cube = |b: MeshBuilder, &(centre, half, flip): &(DVec3, f64, bool)| {
            let (pose, half) = (Pose::from_translation(centre), DVec3::splat(half));
            if flip { b.cuboid_inward(pose, half) } else { b.cuboid(pose, half) }
        };
        cubes.iter().fold(MeshBuilder::new(), cube).build().unwrap()
    };
    let cases = [
        // (name, obstacle, the cube's start and target x, the x its centre may not pass)
        (
            "inward cube beside an outward one",
            shells(&[(DVec3::new(-10.0, 0.0, 0.0), 2.0, false), (DVec3::ZERO, 1.0, true)]),
            3.0,
            -3.0,
            1.5,
        ),
        (
            "outward cube nested in another",
            shells(&[(DVec3::ZERO, 2.0, false), (DVec3::ZERO, 1.5, false)]),
            0.0,
            5.0,
            1.0,
        ),
    ];
    for (name, obstacle, from, to, wall) in cases {
        for narrow_phase in [NarrowPhase::Exact, NarrowPhase::Glide] {
            let mut s = SolverSettings::for_scene_size(10.0);
            s.narrow_phase = narrow_phase;
            assert!(s.query.bm_culling, "culling must be on: it is what skipped these faces");
            let mut w = World::new(s).unwrap();
            w.add_body(Arc::new(Collider::new(obstacle.clone())), Pose::IDENTITY, true);
            let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
            let start = Pose::from_translation(DVec3::new(from, 0.1, 0.05));
            let b = w.add_body(Arc::new(Collider::new(cube)), start, false);
            for frame in 0..3 {
                let before: Vec<Pose> = w.bodies().iter().map(|b| b.pose).collect();
                let r = w.drag(b, Pose::from_translation(DVec3::new(to, -0.1, 0.0))).unwrap();
                check_path(&w, before, &r, frame);
                assert!(w.intersecting_pairs().is_empty(), "{name}, {narrow_phase:?}, frame {frame}");
                let x = r.pose.translation.x;
                let short = if to > from { x <= wall } else { x >= wall };
                assert!(short, "{name}, {narrow_phase:?}, frame {frame}: the cube got to x = {x}");
            }
        }
    }
}

/// A plate slid and pressed along another (a large contact: one glide screen costs more than a
/// frame) under a tiny time budget: screens stop inside their stretch and the next drag goes on
/// with them (docs/solver.md §4). The drags still never interpenetrate along their paths, every
/// drag ends, and each ends where the unbudgeted drag does, over as many frames as it takes.
#[test]
fn glide_screens_cut_by_the_budget_go_on_in_the_next_drag() {
    let plates = || {
        let plate = MeshBuilder::new()
            .tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.1), [24, 24, 1])
            .build()
            .unwrap();
        let collider = Arc::new(Collider::new(plate));
        let mut s = SolverSettings::for_scene_size(2.0);
        s.narrow_phase = NarrowPhase::Glide;
        let mut w = World::new(s).unwrap();
        w.add_body(collider.clone(), Pose::IDENTITY, true);
        let top = w.add_body(collider, Pose::from_translation(DVec3::new(0.0, 0.0, 0.22)), false);
        (w, top)
    };
    let ((mut free, top), (mut tight, _)) = (plates(), plates());
    let s = *tight.settings();
    tight.set_settings(SolverSettings { time_budget: Some(std::time::Duration::from_micros(20)), ..s }).unwrap();
    let (mut cut, mut frames_in_all) = (0, 0);
    let mut rng = Rng::new(7);
    for step in 0..6 {
        let current = free.body(top).unwrap().pose;
        tight.set_pose(top, current).unwrap();
        // First down onto the plate below (it stops there), then sideways along it with a
        // small turn, at the height where it rests.
        let v = rng.vec();
        let down = if step == 0 { -0.03 } else { 0.0 };
        let target = Pose::new(
            glam::DQuat::from_rotation_z(0.02 * (rng.next() - 0.5)) * current.rotation,
            current.translation + DVec3::new(0.05 * v.x, 0.05 * v.y, down),
        );
        let plain = free.drag(top, target).unwrap();
        let mut frames = 0;
        let last = loop {
            let before: Vec<Pose> = tight.bodies().iter().map(|b| b.pose).collect();
            let r = tight.drag(top, target).unwrap();
            check_path(&tight, before, &r, step);
            assert!(tight.intersecting_pairs().is_empty(), "step {step} frame {frames}");
            cut += r.glide_screens_cut;
            frames += 1;
            if !r.out_of_time {
                break r;
            }
            assert!(frames < 5000, "step {step}: the drag asks for frames forever");
        };
        frames_in_all += frames;
        // Down, both stop on the plate; sideways, both get to the target (to rounding: the
        // solve of the contacts' rows leaves some 1e-10 of height).
        let (p, q) = (last.pose.translation, plain.pose.translation);
        let z = s.repositioning..=1.001 * s.security;
        assert!(z.contains(&(p.z - 0.2)) && z.contains(&(q.z - 0.2)), "step {step}: heights {p:?}, {q:?}");
        if step > 0 {
            let aim = target.translation;
            assert!((p - aim).length() < 1e-6 && (q - aim).length() < 1e-6, "step {step}: {p:?}, {q:?}, aim {aim:?}");
        }
    }
    assert!(cut > 0, "no screen was cut ({frames_in_all} frames)");
}
