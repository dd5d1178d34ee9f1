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
