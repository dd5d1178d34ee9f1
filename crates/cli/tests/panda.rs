//! pybullet's Franka Panda arm (`scenes/panda.ron`, written by `scripts/urdf-scene` from its
//! `panda.urdf`; needs `scripts/fetch-real-meshes`): real robot collision hulls, which overlap
//! at the joints deeper than εb with nothing of the crossing within εb. A finger of the closed
//! gripper pulled straight out of the hand comes out (docs/contact-from-start.md §3, "A second
//! opinion"), and nothing interferes anew on the way, against the hand alone, and with the whole
//! arm along the window's drag. Straight down with the whole arm it is held after 1.4 mm
//! (docs/contact-from-start.md §5).

#[path = "../../scene/tests/corpus/mod.rs"]
mod corpus;

use glam::DVec3;
use mockup_ccd::{Pose, intersects};
use mockup_scene::source::FileSystem;
use mockup_solver::World;
use std::path::Path;

/// `scenes/panda.ron`, or `None` where pybullet_data is not fetched.
fn panda() -> Option<mockup_scene::LoadedScene> {
    corpus::pybullet_data("panda")?;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/panda.ron");
    Some(mockup_scene::load(&path, &FileSystem, &mut |_| {}).unwrap())
}

#[test]
fn a_gripper_finger_pulled_out_of_the_closed_gripper_comes_out() {
    let Some(scene) = panda() else { return };
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
    // face; that hand edge is all but flat (its faces 0.24° apart) and not convex, and such an
    // edge is read as flat (docs/contact-from-start.md §3, "Nearly flat edges").
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

/// The drag the window makes (pointer steps of 5 px: targets 8.6 mm apart along the view
/// plane's diagonal, three frames each, the app's 12 ms budget), with the whole arm: the
/// finger comes out. With the hand's all but flat edges read as edges
/// (docs/contact-from-start.md §3, "Nearly flat edges"), the first solve turned the finger
/// 3.9° and every move was undone from the first target on, as in the window.
#[test]
fn dragged_as_the_window_drags_it_the_finger_comes_out() {
    let Some(scene) = panda() else { return };
    let parts = &scene.document.parts;
    let finger = parts.iter().position(|p| p.name == "panda_leftfinger").unwrap();
    let pose = |k: usize| parts[k].pose.to_pose();
    let start = pose(finger);
    let along = DVec3::new(0.023, -0.036, -0.078);
    let mut settings = scene.document.solver.settings(scene.size);
    settings.time_budget = Some(std::time::Duration::from_millis(12));
    let mut world = World::new(settings).unwrap();
    for k in 0..parts.len() {
        world.add_body(scene.colliders[k].clone(), pose(k), k != finger);
    }
    let at_start = world.intersecting_pairs_with(&[finger]);
    let mut last = None;
    for k in 1..=12 {
        let target = Pose::new(start.rotation, start.translation + along * (k as f64 / 12.0));
        for _ in 0..3 {
            last = Some(world.drag(finger, target).unwrap());
            let new: Vec<_> =
                world.intersecting_pairs_with(&[finger]).into_iter().filter(|p| !at_start.contains(p)).collect();
            assert!(new.is_empty(), "target {k}: new interference {new:?}");
        }
    }
    let at = world.body(finger).unwrap().pose;
    assert!(last.unwrap().reached, "the finger stays at {:?}", at.translation);
    assert!(world.intersecting_pairs_with(&[finger]).is_empty());
}
