//! pybullet's Franka Panda arm (`scenes/panda.ron`, written by `scripts/panda-scene` from its
//! `panda.urdf`; needs `scripts/fetch-real-meshes`): real robot collision hulls, which overlap
//! at the joints deeper than εb with nothing of the crossing within εb. A finger of the closed
//! gripper pulled straight out of the hand comes out (docs/contact-from-start.md §3, "A second
//! opinion"), and nothing interferes anew on the way, against the hand alone and with the whole
//! arm (which held it after 5 mm until stop 32: docs/contact-from-start.md §5).

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
    // Against the hand alone, whose crossing is out of sight at εb, in either order (the
    // pair's readings are taken from its first body). The hand first, an edge/edge reading
    // put a hand edge's point 0.5 mm inside the finger, where it is 3 µm behind the finger's
    // face: read as that point's depth behind the nearer face (docs/contact-from-start.md
    // §3, "A point read by an edge's side"), it no longer holds the finger.
    for order in [[finger, hand], [hand, finger]] {
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

/// The whole arm, every part but the finger fixed (as a drag moves only the grabbed part):
/// the finger pulled straight down out of the closed gripper follows every target, and
/// nothing interferes anew on the way.
#[test]
fn with_the_whole_arm_the_finger_comes_out_too() {
    if corpus::pybullet_data("panda").is_none() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/panda.ron");
    let scene = mockup_scene::load(&path, &FileSystem, &mut |_| {}).unwrap();
    let parts = &scene.document.parts;
    let finger = parts.iter().position(|p| p.name == "panda_leftfinger").unwrap();
    let pose = |k: usize| parts[k].pose.to_pose();
    let start = pose(finger);
    let down = |d: f64| Pose::new(start.rotation, start.translation - DVec3::Z * d);
    let mut world = World::new(scene.document.solver.settings(scene.size)).unwrap();
    for k in 0..parts.len() {
        world.add_body(scene.colliders[k].clone(), pose(k), k != finger);
    }
    let at_start = world.intersecting_pairs_with(&[finger]);
    assert!(!at_start.is_empty(), "the finger starts in contact");
    for k in 1..=15 {
        let mut last = None;
        for _ in 0..4 {
            let r = world.drag(finger, down(0.002 * k as f64)).unwrap();
            let new: Vec<_> =
                world.intersecting_pairs_with(&[finger]).into_iter().filter(|p| !at_start.contains(p)).collect();
            assert!(new.is_empty(), "target {k}: new interference {new:?}");
            let reached = r.reached;
            last = Some(r);
            if reached {
                break;
            }
        }
        let at = world.body(finger).unwrap().pose;
        assert!(
            last.unwrap().reached,
            "target {k}: the finger stays {:.4} m down",
            (start.translation - at.translation).z
        );
    }
    assert!(world.intersecting_pairs_with(&[finger]).is_empty());
}
