//! Analytic cases: stopping at contact, sliding to the target's projection, pushing a second
//! movable part, and errors.

mod common;

use glam::{DQuat, DVec3};
use mockup_ccd::{Collider, MeshBuilder, Pose};
use mockup_solver::{SolverError, SolverSettings, World};
use std::sync::Arc;

fn cube(half: f64) -> Arc<Collider> {
    Arc::new(Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(half)).build().unwrap()))
}

fn floor_world() -> (World, usize) {
    let mut w = World::new(SolverSettings::for_scene_size(10.0)).unwrap();
    let floor =
        Arc::new(Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap()));
    let f = w.add_body(floor, Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
    (w, f)
}

#[test]
fn a_box_pushed_into_the_floor_slides_to_the_target_projection() {
    let (mut w, _) = floor_world();
    let b = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(0.0, 0.0, 0.6)), false);
    let s = *w.settings();
    let target = Pose::from_translation(DVec3::new(2.0, 1.0, -3.0));
    let mut last = None;
    for _ in 0..3 {
        last = Some(w.drag(b, target).unwrap());
        assert!(w.intersecting_pairs().is_empty());
    }
    let r = last.unwrap();
    let p = r.pose.translation;
    assert!((p.x - 2.0).abs() < 1e-6 && (p.y - 1.0).abs() < 1e-6, "{p:?}");
    assert!(p.z >= 0.5 + s.repositioning && p.z <= 0.5 + s.security * 1.001, "height {} ({r:?})", p.z);
    assert!(r.pose.rotation.angle_between(DQuat::IDENTITY) < 1e-6);
    assert!(r.contacts > 0 && !r.reached);
    let d = r.min_distance.unwrap();
    assert!(d >= s.repositioning && d <= s.security * 1.001);
}

#[test]
fn a_free_drag_reaches_its_target_exactly() {
    let (mut w, _) = floor_world();
    let b = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(0.0, 0.0, 0.6)), false);
    let target = Pose::new(DQuat::from_rotation_z(0.8) * DQuat::from_rotation_x(0.3), DVec3::new(1.0, -2.0, 3.0));
    let r = w.drag(b, target).unwrap();
    assert!(r.reached && r.substeps == 1 && r.blocked_substeps == 0, "{r:?}");
    assert!((r.pose.translation - target.translation).length() < 1e-9);
    assert!(r.pose.rotation.angle_between(target.rotation) < 1e-9);
}

#[test]
fn the_peg_slides_down_the_bore_to_the_target_projection() {
    let mut scene = common::peg_in_hole();
    let s = *scene.world.settings();
    // Off the axis by 5 clearances, 0.8 down the bore: reachable by sliding on the bore wall.
    let target = Pose::from_translation(DVec3::new(0.05, 0.0, -0.3));
    let mut r = None;
    for _ in 0..40 {
        r = Some(scene.world.drag(scene.dragged, target).unwrap());
        assert!(scene.world.intersecting_pairs().is_empty());
    }
    let r = r.unwrap();
    let p = r.pose.translation;
    assert!((p.z - -0.3).abs() < 1e-6, "depth {p:?} ({r:?})");
    // Radially as far as the faceted clearance allows, less the security distance.
    assert!(p.x > 0.0 && p.x < 0.0101 && p.y.abs() < 1e-3, "{p:?}");
    assert!(p.x > 0.0099 - 2.0 * s.security, "{p:?}");
}

#[test]
fn a_second_movable_part_is_pushed_and_nothing_interpenetrates() {
    let (mut w, _) = floor_world();
    w.set_settings(SolverSettings { push_others: true, ..*w.settings() }).unwrap();
    let a = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(-2.0, 0.0, 0.52)), false);
    let b = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(0.0, 0.0, 0.52)), false);
    let b_start = w.body(b).unwrap().pose.translation;
    for k in 1..=30 {
        let target = Pose::from_translation(DVec3::new(-2.0 + 0.15 * k as f64, 0.0, 0.52));
        let r = w.drag(a, target).unwrap();
        assert!(w.intersecting_pairs().is_empty(), "step {k}: {r:?}");
        for c in w.contacts() {
            assert!(c.distance >= 0.5 * w.settings().repositioning, "step {k}: {c:?}");
        }
    }
    let pa = w.body(a).unwrap().pose.translation;
    let pb = w.body(b).unwrap().pose.translation;
    assert!(pa.x > 1.5, "the dragged part got through to {pa:?}");
    assert!(pb.x > b_start.x + 1.0, "the other part was pushed ahead: {pb:?}");
    assert!(pb.x - pa.x >= 1.0, "and stays ahead of it: {pa:?} {pb:?}");
}

/// By default only the grabbed part moves: a movable part in its way is an obstacle.
#[test]
fn without_pushing_a_second_movable_part_stops_the_dragged_one() {
    let (mut w, _) = floor_world();
    let a = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(-2.0, 0.0, 0.52)), false);
    let b = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(0.0, 0.0, 0.52)), false);
    let b_start = w.body(b).unwrap().pose;
    for k in 1..=30 {
        let target = Pose::from_translation(DVec3::new(-2.0 + 0.15 * k as f64, 0.0, 0.52));
        let r = w.drag(a, target).unwrap();
        assert!(w.intersecting_pairs().is_empty(), "step {k}: {r:?}");
        assert_eq!(r.movers, vec![a]);
    }
    assert_eq!(w.body(b).unwrap().pose, b_start);
    let pa = w.body(a).unwrap().pose.translation;
    let s = w.settings();
    assert!(pa.x < -1.0 - s.repositioning && pa.x > -1.0 - s.security * 1.001, "stopped at {pa:?}");
}

#[test]
fn bad_requests_are_errors() {
    let (mut w, floor) = floor_world();
    let b = w.add_body(cube(0.5), Pose::from_translation(DVec3::new(0.0, 0.0, 0.6)), false);
    assert_eq!(w.drag(floor, Pose::IDENTITY).unwrap_err(), SolverError::FixedBody(floor));
    assert_eq!(w.drag(7, Pose::IDENTITY).unwrap_err(), SolverError::UnknownBody(7));
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    assert_eq!(w.drag(b, nan).unwrap_err(), SolverError::NonFinitePose);
    let zero = Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO);
    assert_eq!(w.drag(b, zero).unwrap_err(), SolverError::NonFinitePose);
    let mut bad = SolverSettings::default();
    bad.security = bad.breaking * 2.0;
    assert!(matches!(World::new(bad), Err(SolverError::Settings(_))));
    assert!(w.set_settings(bad).is_err());
}

#[test]
fn distances_scale_with_the_scene() {
    let s = SolverSettings::for_scene_size(5.0);
    assert!((s.security - 0.001).abs() < 1e-15 && (s.repositioning - 0.00044).abs() < 1e-15);
    assert!((s.breaking - 0.0023).abs() < 1e-15);
    assert_eq!(SolverSettings::for_scene_size(f64::NAN), SolverSettings::default());
    // A scene file may give any positive size: the distances are valid at both extremes.
    for size in [f64::MIN_POSITIVE / 1e15, 5e-324, 1e-300, 1e300, f64::MAX] {
        assert!(SolverSettings::for_scene_size(size).validate().is_ok(), "size {size}");
    }
}

/// A cube dragged at a wall slides along it and, past the wall's end, goes on to the target,
/// all in one drag: a sub-step that slides the whole way the rows allow is solved again from
/// where it got, while that still moves it (the door of the windowed e2e test, pushed into the
/// body, slid along its flange and stopped clear of it with no contact).
#[test]
fn one_drag_slides_along_a_wall_and_on_past_its_end() {
    let mut w = World::new(SolverSettings::for_scene_size(10.0)).unwrap();
    // A wall in the plane x = 2, from y = −1 to y = 1.
    let wall =
        Arc::new(Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.1, 1.0, 1.0)).build().unwrap()));
    w.add_body(wall, Pose::from_translation(DVec3::new(2.1, 0.0, 0.0)), true);
    let b = w.add_body(cube(0.5), Pose::IDENTITY, false);
    let target = Pose::from_translation(DVec3::new(4.0, 3.0, 0.0));
    let r = w.drag(b, target).unwrap();
    assert!(r.blocked_substeps > 0, "the wall was in the way: {r:?}");
    assert!(r.reached, "one drag ended at {:?} ({} sub-steps)", r.pose.translation, r.substeps);
    assert!(w.intersecting_pairs().is_empty());
}
