//! pybullet's Franka Panda arm (`scenes/panda.ron`, written by `scripts/panda-scene` from its
//! `panda.urdf`; needs `scripts/fetch-real-meshes`): real robot collision hulls, which overlap
//! at the joints deeper than εb with nothing of the crossing within εb. A finger of the closed
//! gripper pulled straight out of the hand comes out (docs/contact-from-start.md §3, "A second
//! opinion"), and nothing interferes anew on the way. With the whole arm it stops after 5 mm
//! (docs/contact-from-start.md §5).

#[path = "../../scene/tests/corpus/mod.rs"]
mod corpus;

use glam::DVec3;
use mockup_ccd::{Pose, intersects};
use mockup_scene::source::FileSystem;
use mockup_solver::World;
use std::path::Path;

#[test]
fn a_gripper_finger_pulled_out_of_the_closed_gripper_comes_out() {
    if corpus::pybullet_data("panda").is_none() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/panda.ron");
    let scene = mockup_scene::load(&path, &FileSystem, &mut |_| {}).unwrap();
    let parts = &scene.document.parts;
    let id = |n: &str| parts.iter().position(|p| p.name == n).unwrap();
    let (finger, hand, other) = (id("panda_leftfinger"), id("panda_hand"), id("panda_rightfinger"));
    let pose = |k: usize| parts[k].pose.to_pose();
    let crosses = |k: usize, at: &Pose| intersects(&scene.colliders[finger], at, &scene.colliders[k], &pose(k)).value;
    // The finger overlaps the hand and the other finger; straight down (the gripper points
    // down) it is clear of both from 2 cm on.
    let start = pose(finger);
    let down = |d: f64| Pose::new(start.rotation, start.translation - DVec3::Z * d);
    assert!(crosses(hand, &start) && crosses(other, &start));
    assert!(!crosses(hand, &down(0.02)) && !crosses(other, &down(0.02)));
    // Against the hand alone, whose crossing is out of sight at εb.
    // The finger first: the pair's readings are taken from its first body. (The hand first,
    // an edge/edge reading of a hand edge's point 0.5 mm inside the finger, where it is a few
    // µm inside, still holds it: docs/contact-from-start.md §5.)
    for order in [[finger, hand]] {
        let mut world = World::new(scene.document.solver.settings(scene.size)).unwrap();
        for k in order {
            world.add_body(scene.colliders[k].clone(), pose(k), k == hand);
        }
        let moving = if order[0] == finger { 0 } else { 1 };
        for k in 1..=15 {
            // The mouse held at each target for up to four frames, as a user would: it
            // follows, each target reached.
            let mut last = None;
            for _ in 0..4 {
                let r = world.drag(moving, down(0.002 * k as f64)).unwrap();
                let new: Vec<_> = world
                    .intersecting_pairs_with(&[moving])
                    .into_iter()
                    .filter(|p| !r.seated_pairs.contains(p))
                    .collect();
                assert!(new.is_empty(), "step {k}: new interference {new:?}");
                let reached = r.reached;
                last = Some(r);
                if reached {
                    break;
                }
            }
            let r = last.unwrap();
            let at = world.body(moving).unwrap().pose;
            assert!(
                r.reached,
                "target {k}: the finger stays {:.4} m down ({r:?})",
                (start.translation - at.translation).z
            );
        }
        assert!(!crosses(hand, &world.body(moving).unwrap().pose));
    }
}
