//! Many parts: the broad phase finds what a step must test, so a drag through a crowd of
//! parts never interpenetrates any, and the interfering pairs are those all-pairs finds.

mod common;

use common::Rng;
use glam::DVec3;
use mockup_ccd::{Collider, MeshBuilder, Pose, intersects};
use mockup_solver::{SolverSettings, World};
use std::sync::Arc;

#[test]
fn a_drag_through_a_crowd_touches_nothing_and_interference_matches_all_pairs() {
    let mut rng = Rng::new(5);
    let cube = Arc::new(Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.1)).build().unwrap()));
    let mut w = World::new(SolverSettings::for_scene_size(6.0)).unwrap();
    // 300 cubes on a jittered grid, a few of them overlapping their neighbours.
    for i in 0..300 {
        let at = DVec3::new((i % 20) as f64 * 0.3, (i / 20) as f64 * 0.3, 0.0) + rng.vec() * 0.06;
        w.add_body(cube.clone(), Pose::new(rng.rotation(0.5), at), false);
    }
    let brute = |w: &World| {
        let b = w.bodies();
        let mut out = Vec::new();
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                if intersects(&b[i].collider, &b[i].pose, &b[j].collider, &b[j].pose).value {
                    out.push((i, j));
                }
            }
        }
        out
    };
    let start = brute(&w);
    assert_eq!(w.intersecting_pairs(), start);
    assert!(!start.is_empty(), "some cubes overlap at the start");
    // A free cube dragged across the crowd.
    let mover = w.add_body(cube.clone(), Pose::from_translation(DVec3::new(-0.5, 2.0, 0.0)), false);
    let mut blocked = 0;
    for k in 1..=40 {
        let target = Pose::from_translation(DVec3::new(-0.5 + 0.2 * k as f64, 2.0 + 0.1 * rng.next(), 0.0));
        let r = w.drag(mover, target).unwrap();
        assert_eq!(r.movers, vec![mover]);
        blocked += r.blocked_substeps;
        let now = w.intersecting_pairs();
        assert!(now.iter().all(|&(i, j)| i != mover && j != mover), "step {k}: {now:?}");
        assert_eq!(now, brute(&w), "step {k}");
        assert_eq!(w.intersecting_pairs_with(&[mover]), Vec::<(usize, usize)>::new());
    }
    assert!(blocked > 10, "the crowd must be in the way ({blocked} blocked sub-steps)");
}
