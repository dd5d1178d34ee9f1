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
