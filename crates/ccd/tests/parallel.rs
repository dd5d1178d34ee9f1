//! A traversal split over two threads gives the same answers as one thread.

#[path = "../benches/scenes.rs"]
mod scenes;

use mockup_ccd::{Motion, Pose, QueryOptions, contacts_within, first_contact};

fn key(c: &mockup_ccd::Contact) -> (u64, mockup_ccd::ContactKind, u32, u32) {
    (c.time.to_bits(), c.kind, c.feature_a, c.feature_b)
}

#[test]
fn split_traversals_find_the_same_contacts() {
    let serial = QueryOptions { parallel: false, ..Default::default() };
    let parallel = QueryOptions { parallel: true, ..Default::default() };
    let (mut splits, mut handovers) = (0, 0);
    let mut hits = 0;
    for (name, scene) in [("door", scenes::door_in_frame()), ("tori", scenes::tori()), ("peg", scenes::peg())] {
        let (moving, fixed) = scenes::colliders(&scene, mockup_ccd::DEFAULT_LEAF_SIZE);
        let still = Motion::stationary(Pose::IDENTITY);
        for (i, m) in scene.steps.iter().enumerate().step_by(3) {
            let one = first_contact(&moving, m, &fixed, &still, &serial);
            let two = first_contact(&moving, m, &fixed, &still, &parallel);
            splits += two.counters.parallel_splits;
            handovers += two.counters.handovers;
            hits += one.value.is_some() as u32;
            assert_eq!(one.value.as_ref().map(key), two.value.as_ref().map(key), "{name} step {i}");
            // And with culling off, where more pairs survive.
            let off = |o: QueryOptions| QueryOptions { bm_culling: false, ..o };
            let one = first_contact(&moving, m, &fixed, &still, &off(serial));
            let two = first_contact(&moving, m, &fixed, &still, &off(parallel));
            assert_eq!(one.value.as_ref().map(key), two.value.as_ref().map(key), "{name} step {i}, no culling");
        }
        // Every contact of a step, not only the first.
        for (i, m) in scene.steps.iter().enumerate().step_by(25) {
            let mut one: Vec<_> =
                contacts_within(&moving, m, &fixed, &still, 1.0, &serial).value.iter().map(key).collect();
            let within = contacts_within(&moving, m, &fixed, &still, 1.0, &parallel);
            splits += within.counters.parallel_splits;
            handovers += within.counters.handovers;
            let mut two: Vec<_> = within.value.iter().map(key).collect();
            one.sort();
            two.sort();
            assert_eq!(one, two, "{name} step {i}: contacts within the step");
        }
    }
    assert!(splits > 20, "the traversals must actually split ({splits} splits)");
    // A thread whose pairs ran out took half of the other's: the answers above hold for it.
    assert!(handovers > 0, "a thread must have taken over pairs ({handovers} handovers in {splits} splits)");
    assert!(hits > 20, "and hit ({hits} hits)");
    eprintln!("{splits} splits, {handovers} handovers");
}

/// Long candidate lists are split over two threads; the pairs are those of a fresh query.
#[test]
fn proximity_among_long_candidate_lists() {
    use mockup_ccd::{near_triangle_pairs, proximity, proximity_among};
    let scene = scenes::door_in_frame();
    let (moving, fixed) = scenes::colliders(&scene, mockup_ccd::DEFAULT_LEAF_SIZE);
    let (mut splits, mut near) = (0, 0);
    for m in scene.steps.iter().skip(60).step_by(40) {
        let pose = m.from;
        let candidates = near_triangle_pairs(&moving, &pose, &fixed, &Pose::IDENTITY, 0.02).value;
        let key = |p: &mockup_ccd::ProximityPair| (p.kind, p.feature_a, p.feature_b);
        let mut fresh: Vec<_> =
            proximity(&moving, &pose, &fixed, &Pose::IDENTITY, 0.01).value.iter().map(key).collect();
        let kept = proximity_among(&moving, &pose, &fixed, &Pose::IDENTITY, 0.01, &candidates);
        splits += kept.counters.parallel_splits;
        let mut kept: Vec<_> = kept.value.iter().map(key).collect();
        fresh.sort();
        kept.sort();
        near += !fresh.is_empty() as u32;
        assert_eq!(fresh, kept);
    }
    assert!(
        near >= 3 && splits > 0,
        "the door must be near the frame ({near}) with lists long enough to split ({splits})"
    );
}

/// `near_triangle_pairs` large enough to split over two threads: sorted, no pair twice, and
/// every triangle pair nearer than the distance (brute force over all pairs) is among them.
#[test]
fn near_triangle_pairs_split_over_two_threads_miss_nothing() {
    use mockup_ccd::geometry::triangle_distance;
    use mockup_ccd::{MeshBuilder, near_triangle_pairs};
    let mesh = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 40, 16).build().unwrap();
    let (a, b) = (mockup_ccd::Collider::new(mesh.clone()), mockup_ccd::Collider::new(mesh));
    let mut splits = 0;
    for (k, x) in [0.3, 0.9, 1.5].into_iter().enumerate() {
        let pose_a = Pose {
            rotation: glam::DQuat::from_rotation_x(0.4 * k as f64),
            translation: glam::DVec3::new(x, 0.1, 0.05),
        };
        let d = 0.05;
        let r = near_triangle_pairs(&a, &pose_a, &b, &Pose::IDENTITY, d);
        splits += r.counters.parallel_splits;
        let pairs = r.value;
        assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted, each pair once");
        let tri = |c: &mockup_ccd::Collider, pose: &Pose, t: u32| {
            c.mesh().triangle_points(t).map(|p| pose.transform_point(p))
        };
        let mut near = 0;
        for ta in 0..a.mesh().triangles().len() as u32 {
            let x = tri(&a, &pose_a, ta);
            for tb in 0..b.mesh().triangles().len() as u32 {
                if triangle_distance(&x, &tri(&b, &Pose::IDENTITY, tb)).distance < d {
                    near += 1;
                    assert!(pairs.binary_search(&(ta, tb)).is_ok(), "({ta}, {tb}) is near but not listed");
                }
            }
        }
        assert!(near > 0);
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        assert!(splits > 0, "no query split");
    }
}

/// `NearTrianglePairs` advanced a few node pairs at a time (on one thread and split over two)
/// finds the pairs of one whole traversal.
#[test]
fn near_triangle_pairs_a_part_at_a_time_find_the_whole_traversals_pairs() {
    use mockup_ccd::{Counters, MeshBuilder, NearTrianglePairs, near_triangle_pairs};
    let mesh = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 40, 16).build().unwrap();
    let (a, b) = (mockup_ccd::Collider::new(mesh.clone()), mockup_ccd::Collider::new(mesh));
    for (k, x) in [0.3, 0.9, 1.5, 2.7].into_iter().enumerate() {
        let pose_a = Pose {
            rotation: glam::DQuat::from_rotation_x(0.4 * k as f64),
            translation: glam::DVec3::new(x, 0.1, 0.05),
        };
        let whole = near_triangle_pairs(&a, &pose_a, &b, &Pose::IDENTITY, 0.05);
        for pops in [1, 7, 300, 5000] {
            let mut parts = NearTrianglePairs::new(&pose_a, &Pose::IDENTITY, 0.05);
            let mut counters = Counters::default();
            let mut calls = 0;
            while !parts.advance(&a, &b, pops, &mut counters) {
                calls += 1;
                assert!(calls < 10_000_000, "the traversal must end");
            }
            assert_eq!(counters.bv_tests, whole.counters.bv_tests, "x {x}, {pops} a call: the same node pairs");
            assert_eq!(parts.into_pairs(), whole.value, "x {x}, {pops} a call");
            if pops == 1 {
                assert_eq!(calls as u64 + 1, whole.counters.bv_tests, "one node pair a call");
            }
        }
    }
}
