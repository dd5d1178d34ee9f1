//! The glide screen on the paper's examples (seed 002 Figure 2) and against testing every
//! feature pair.

use super::*;
use crate::MeshBuilder;
use glam::DQuat;

fn cube(half: f64) -> GlideBody {
    GlideBody::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(half)).build().unwrap())
}

fn translate(from: DVec3, to: DVec3) -> Motion {
    Motion::new(Pose::from_translation(from), Pose::from_translation(to))
}

fn still() -> Motion {
    Motion::stationary(Pose::IDENTITY)
}

/// Figure 2a in 3-D: B slides left onto A's right face; its four left corners land at once,
/// at the analytic time, all proper, and nothing is reported earlier. (Two corners lie on the
/// diagonal of A's triangulated face, where the same event may resolve to an edge/edge pair.)
#[test]
fn figure_2a_simultaneous_proper_corners() {
    let (a, b) = (cube(1.0), cube(0.5));
    let motion = translate(DVec3::new(4.0, 0.0, 0.0), DVec3::ZERO);
    let report = glide_collisions(&a, &still(), &b, &motion, &GlideOptions::default());
    let t = 2.5 / 4.0; // B's left face (x = −0.5) reaches A's right face (x = 1).
    assert!(!report.collisions.is_empty());
    assert!(report.collisions.iter().all(|c| c.contact.time >= t - 1e-9), "{:?}", report.collisions);
    let corners: Vec<_> = report
        .collisions
        .iter()
        .filter(|c| (c.contact.time - t).abs() < 1e-9 && c.properness >= -1e-12)
        .map(|c| c.contact.point)
        .collect();
    for y in [-0.5, 0.5] {
        for z in [-0.5, 0.5] {
            let p = DVec3::new(1.0, y, z);
            assert!(corners.iter().any(|c| (*c - p).length() < 1e-9), "corner {p} missing from {corners:?}");
        }
    }
}

/// Figure 2b in 3-D: B tilted about z; its leading left edge lands first (proper), the other
/// left edge later, slightly improper (−sin of the tilt), and both are reported.
#[test]
fn figure_2b_second_collision_slightly_improper() {
    let tilt = 0.05;
    let b_mesh = MeshBuilder::new()
        .cuboid(Pose::from_rotation(DQuat::from_rotation_z(tilt)), DVec3::splat(0.5))
        .build()
        .unwrap();
    let (a, b) = (cube(1.0), GlideBody::new(b_mesh));
    let motion = translate(DVec3::new(4.0, 0.0, 0.0), DVec3::ZERO);
    let report = glide_collisions(&a, &still(), &b, &motion, &GlideOptions::default());
    // Left corners after the tilt: x = −0.5 cos α ∓ 0.5 sin α for y = ±0.5.
    let first_x = -0.5 * tilt.cos() - 0.5 * tilt.sin();
    let second_x = -0.5 * tilt.cos() + 0.5 * tilt.sin();
    let (t1, t2) = ((3.0 + first_x) / 4.0, (3.0 + second_x) / 4.0);
    let fv_at = |t: f64| {
        report
            .collisions
            .iter()
            .filter(|c| c.contact.kind == ContactKind::FaceVertex && (c.contact.time - t).abs() < 1e-9)
            .map(|c| c.properness)
            .collect::<Vec<_>>()
    };
    let first = fv_at(t1);
    let second = fv_at(t2);
    assert_eq!(first.len(), 2, "{:?}", report.collisions);
    assert!(first.iter().all(|&p| p >= 0.0), "{first:?}");
    assert_eq!(second.len(), 2, "{:?}", report.collisions);
    assert!(second.iter().all(|&p| (p + tilt.sin()).abs() < 1e-9), "{second:?}");
    assert_eq!(report.first_proper().unwrap().contact.time, report.collisions[0].contact.time);
    assert!((report.collisions[0].contact.time - t1).abs() < 1e-9);
}

/// A step with a large rotation about an axis through B: the screen finds the same proper
/// collisions as testing every pair, at the presets and at odd explicit resolutions (invalid,
/// absurdly fine — clamped —, coarse).
#[test]
fn screen_matches_all_pairs_on_a_turning_bar() {
    let bar = GlideBody::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(2.0, 0.2, 0.2)).build().unwrap());
    let post = GlideBody::new(
        MeshBuilder::new()
            .cuboid(Pose::from_translation(DVec3::new(0.0, 1.5, 0.0)), DVec3::splat(0.3))
            .build()
            .unwrap(),
    );
    let motion = Motion::new(Pose::IDENTITY, Pose::new(DQuat::from_rotation_z(1.2), DVec3::new(0.0, 0.0, 0.3)));
    let odd = [
        Resolution::Explicit { pixel: f64::NAN, time: 0.1 },
        Resolution::Explicit { pixel: 1e-300, time: 1e-300 },
        Resolution::Explicit { pixel: 0.5, time: 0.5 },
    ];
    for res in [Resolution::Low, Resolution::Medium, Resolution::High].into_iter().chain(odd) {
        let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
        let screen = glide_collisions(&post, &still(), &bar, &motion, &opts);
        let all = glide_collisions_all_pairs(&post, &still(), &bar, &motion, &opts);
        assert!(!all.collisions.is_empty());
        assert_same(&screen, &all);
    }
}

/// The same collisions (time, kind, features), proper ones at least.
pub fn assert_same(screen: &GlideReport, all: &GlideReport) {
    let key = |r: &GlideReport| {
        let mut k: Vec<_> = r
            .collisions
            .iter()
            .filter(|c| c.properness >= 0.0)
            .map(|c| {
                ((c.contact.time * 1e6).round() as i64, c.contact.kind.name(), c.contact.feature_a, c.contact.feature_b)
            })
            .collect();
        k.sort();
        k
    };
    assert_eq!(key(screen), key(all));
}

/// A closed mesh wound inward is the same solid: the screen turns its normals outward and
/// finds the same collisions.
#[test]
fn inward_wound_mesh_gives_the_same_collisions() {
    let outward = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.0, 0.6, 0.4)).build().unwrap();
    let flipped: Vec<[u32; 3]> = outward.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect();
    let inward = Mesh::new(outward.vertices().to_vec(), flipped).unwrap();
    let mover = cube(0.3);
    let motion = Motion::new(
        Pose::new(DQuat::from_rotation_z(0.2), DVec3::new(2.0, 0.3, 0.1)),
        Pose::new(DQuat::from_rotation_z(0.9), DVec3::new(0.2, 0.1, 0.0)),
    );
    let opts = GlideOptions::default();
    let keys = |r: &GlideReport| {
        r.collisions.iter().map(|c| ((c.contact.time * 1e9).round() as i64, c.properness >= 0.0)).collect::<Vec<_>>()
    };
    let out = glide_collisions(&GlideBody::new(outward), &still(), &mover, &motion, &opts);
    let inw = glide_collisions(&GlideBody::new(inward), &still(), &mover, &motion, &opts);
    assert!(out.first_proper().is_some());
    assert_eq!(keys(&out), keys(&inw));
}

mod cull {
    use super::super::screen;
    use super::*;
    use proptest::prelude::*;

    fn arb_body() -> impl Strategy<Value = GlideBody> {
        let build = |m: crate::MeshBuilder| GlideBody::new(m.build().unwrap());
        prop_oneof![
            (0.2..1.0f64, 0.2..1.0f64, 0.05..1.0f64)
                .prop_map(move |(x, y, z)| build(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(x, y, z)))),
            (0.4..1.0f64, 0.1..0.3f64, 5u32..14, 3u32..8)
                .prop_map(move |(r, s, n, m)| build(MeshBuilder::new().torus(Pose::IDENTITY, r, s, n, m))),
            (0.3..1.0f64, 3u32..8, 4u32..10).prop_map(move |(r, a, b)| build(MeshBuilder::new().sphere(
                Pose::IDENTITY,
                r,
                a,
                b
            ))),
        ]
    }

    fn arb_rotation(max: f64) -> impl Strategy<Value = DQuat> {
        (prop::array::uniform3(-1.0..1.0f64), -max..max).prop_map(|(axis, angle)| {
            let axis = DVec3::from(axis);
            if axis.length() > 1e-3 { DQuat::from_axis_angle(axis.normalize(), angle) } else { DQuat::IDENTITY }
        })
    }

    /// 256 random cases, or `PROPTEST_CASES` when set, for longer hunts by hand.
    fn config() -> ProptestConfig {
        let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256);
        ProptestConfig { cases, max_global_rejects: cases.max(1024), ..ProptestConfig::default() }
    }

    proptest! {
        #![proptest_config(config())]

        /// The tiles only skip work, and so does scanning the rows in two bands: the screen
        /// finds the same candidates, with the same time windows, as when every chord is
        /// rasterized (glide.md §11).
        #[test]
        fn culling_and_cutting_lose_no_candidate(
            a in arb_body(),
            b in arb_body(),
            start in (prop::array::uniform3(-2.0..2.0f64), arb_rotation(3.0)),
            turn in arb_rotation(1.5),
            shift in prop::array::uniform3(-1.0..1.0f64),
            toward in 0.3..1.5f64,
            cut in 0.0..1.0f64,
        ) {
            let b0 = Pose::new(start.1, DVec3::from(start.0));
            let b1 = Pose::new(turn * b0.rotation, (1.0 - toward) * b0.translation + 0.5 * DVec3::from(shift));
            let frame = GlideFrame::new(Pose::IDENTITY, Pose::IDENTITY, b0, b1, [a.centre, b.centre]);
            prop_assume!(frame.flow != Flow::Still);
            let (pa, pb) = (place(&a, frame.to_glide, None), place(&b, frame.b_start, None));
            let pieces = face_pieces(&frame, [(&a, &pa), (&b, &pb)], None);
            let spheres = [
                (frame.to_glide.transform_point(a.centre), a.radius),
                (frame.b_start.transform_point(b.centre), b.radius),
            ];
            for wanted in [Resolution::Low, Resolution::High] {
                let res = resolution(&frame, &pieces, &pa, &pb, wanted, spheres);
                let culled = screen::scan(&frame, &pieces, res);
                let full = screen::scan_unculled(&frame, &pieces, res);
                prop_assert!(culled.chords_rasterized <= full.chords_rasterized);
                prop_assert_eq!(&culled.candidates, &full.candidates, "{:?}", wanted);
                // Scanned in two bands of rows (on two threads), cut anywhere: the same
                // candidates and windows, records and chords (glide.md §11).
                for quantile in [0.0, cut, 0.5, 1.0] {
                    let two = screen::scan_cut_at(&frame, &pieces, res, quantile);
                    prop_assert_eq!(&two.candidates, &culled.candidates, "{:?} cut at {}", wanted, quantile);
                    prop_assert_eq!(
                        (two.records, two.chords, two.chords_rasterized),
                        (culled.records, culled.chords, culled.chords_rasterized)
                    );
                }
            }
        }

        /// What the screen's conservativeness rests on (glide.md §15): every point of a
        /// piece's true side, in screen coordinates, lies in its row within half a pixel (in h)
        /// of a run of the side's chords, and inside that run's t range.
        #[test]
        fn runs_hold_the_true_sides(
            a in arb_body(),
            b in arb_body(),
            start in (prop::array::uniform3(-2.0..2.0f64), arb_rotation(3.0)),
            turn in arb_rotation(1.5),
            shift in prop::array::uniform3(-1.0..1.0f64),
            toward in 0.3..1.5f64,
        ) {
            let b0 = Pose::new(start.1, DVec3::from(start.0));
            let b1 = Pose::new(turn * b0.rotation, (1.0 - toward) * b0.translation + 0.5 * DVec3::from(shift));
            let frame = GlideFrame::new(Pose::IDENTITY, Pose::IDENTITY, b0, b1, [a.centre, b.centre]);
            prop_assume!(frame.flow != Flow::Still);
            let (pa, pb) = (place(&a, frame.to_glide, None), place(&b, frame.b_start, None));
            let pieces = face_pieces(&frame, [(&a, &pa), (&b, &pb)], None);
            let spheres = [
                (frame.to_glide.transform_point(a.centre), a.radius),
                (frame.b_start.transform_point(b.centre), b.radius),
            ];
            for wanted in [Resolution::Low, Resolution::High] {
                let res = resolution(&frame, &pieces, &pa, &pb, wanted, spheres);
                let uncovered = screen::uncovered_side_points(&frame, &pieces, res, 64);
                prop_assert!(uncovered.is_empty(), "{:?} {:?}: {:?}", wanted, res, &uncovered[..uncovered.len().min(5)]);
            }
        }
    }
}

mod near {
    use super::*;
    use proptest::prelude::*;

    /// What `near_faces` lists, by the full descent: the faces of every leaf pair within
    /// `reach`.
    fn of_every_leaf_pair(a: &GlideBody, b: &GlideBody, a_in_b: Pose, reach: f64) -> [Vec<u32>; 2] {
        let mut near = [Vec::new(), Vec::new()];
        let mut counters = crate::Counters::default();
        crate::query::traversal::near_leaf_pairs(
            &a.collider,
            &a_in_b,
            &b.collider,
            reach,
            &mut counters,
            |la, lb, _| {
                near[0].extend_from_slice(la);
                near[1].extend_from_slice(lb);
                std::ops::ControlFlow::Continue(())
            },
        );
        for m in &mut near {
            m.sort_unstable();
            m.dedup();
        }
        near
    }

    /// The Stanford bunny (a real scan: open, 3,674 triangles), read once.
    fn bunny() -> &'static GlideBody {
        static BUNNY: std::sync::OnceLock<GlideBody> = std::sync::OnceLock::new();
        BUNNY.get_or_init(|| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ccd-cases/meshes/bunny.obj");
            let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
            let (models, _) = tobj::load_obj(path, &options).expect("the bunny is in the repository");
            let m = &models[0].mesh;
            let vertices = m.positions.chunks(3).map(|p| DVec3::new(p[0], p[1], p[2])).collect();
            let triangles = m.indices.chunks(3).map(|t| [t[0], t[1], t[2]]).collect();
            GlideBody::new(Mesh::new(vertices, triangles).expect("the bunny is a mesh"))
        })
    }

    fn arb_pose(spread: f64) -> impl Strategy<Value = Pose> {
        (prop::array::uniform3(-spread..spread), prop::array::uniform3(-1.0..1.0f64), -3.0..3.0f64).prop_map(
            |(t, axis, angle)| {
                let axis = DVec3::from(axis);
                let rotation = if axis.length() > 1e-3 {
                    DQuat::from_axis_angle(axis.normalize(), angle)
                } else {
                    DQuat::IDENTITY
                };
                Pose::new(rotation, DVec3::from(t))
            },
        )
    }

    fn body() -> impl Strategy<Value = GlideBody> {
        (0.3..1.0f64, 0.05..0.3f64, 8u32..40, 4u32..16).prop_map(|(r, s, n, m)| {
            GlideBody::new(MeshBuilder::new().torus(Pose::IDENTITY, r, s, n, m).build().unwrap())
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Skipping node pairs whose faces are all listed lists the same faces as visiting
        /// every leaf pair within `reach`: two tori, often interlocked or pressed together.
        #[test]
        fn near_faces_are_those_of_every_near_leaf_pair(
            a in body(),
            b in body(),
            pose in arb_pose(1.2),
            reach in prop_oneof![0.0..0.02f64, 0.0..0.5f64],
        ) {
            prop_assert_eq!(near_faces(&a, &b, pose, reach), of_every_leaf_pair(&a, &b, pose, reach));
        }

        /// A bunny on a copy of itself, turned and shifted a little: every face near many of
        /// the other's, the descent long enough for both threads to claim its pairs.
        #[test]
        fn near_faces_of_bunnies_pressed_together(pose in arb_pose(0.001), reach in 0.0005..0.002f64) {
            let b = bunny();
            let pose = Pose::new(DQuat::IDENTITY.slerp(pose.rotation, 0.005), pose.translation);
            let found = near_faces(b, b, pose, reach);
            let faces = b.mesh().triangles().len();
            prop_assert!(found[0].len() > faces / 2, "{} of {faces}", found[0].len());
            prop_assert_eq!(&found, &of_every_leaf_pair(b, b, pose, reach));
        }

        /// The same with two bunnies (about 0.15 across), from apart to overlapping.
        #[test]
        fn near_faces_of_two_bunnies(pose in arb_pose(0.1), reach in prop_oneof![0.0..0.002f64, 0.0..0.05f64]) {
            let b = bunny();
            let found = near_faces(b, b, pose, reach);
            prop_assert_eq!(&found, &of_every_leaf_pair(b, b, pose, reach));
        }
    }
}

/// With a deadline already past, a long step's screen stops after its first stretch, and
/// that stretch is at least the part that must be screened before a deadline may stop it
/// (1/256 of the step): one screen, not the three of 1/1024, 1/512 and 1/256 the doubling
/// began with. Its collisions are every one up to where it stopped: those of the call
/// without a deadline over the same stretch, none when the contact comes later.
#[test]
fn a_past_deadline_screens_one_stretch_of_the_least_length() {
    let (a, b) = (cube(1.0), cube(0.5));
    let hurried = GlideOptions { until_first: true, deadline: Some(Instant::now()), ..GlideOptions::default() };
    let calm = GlideOptions { until_first: false, ..GlideOptions::default() };
    let times = |r: &GlideReport| r.collisions.iter().map(|c| c.contact.time).collect::<Vec<_>>();
    // B slides left 192.64 over the step, its left face starting `gap` from A's right face:
    // it meets A at gap / 192.64 of the step, 0.0034 (after 1/512, before 1/256) or 0.0047.
    for (gap, meets) in [(0.65, true), (0.9, false)] {
        let start = 1.5 + gap;
        let motion = translate(DVec3::new(start, 0.0, 0.0), DVec3::new(start - 192.64, 0.0, 0.0));
        let report = glide_collisions_between(&a, &still(), &b, &motion, &hurried, (0.0, 1.0 / 32.0));
        assert_eq!(report.counters.sub_steps, 1, "gap {gap}: {:?}", report.counters);
        assert!((report.screened_to - DEADLINE_AFTER).abs() < 1e-15, "gap {gap}: {}", report.screened_to);
        let whole = glide_collisions_between(&a, &still(), &b, &motion, &calm, (0.0, DEADLINE_AFTER));
        assert_eq!(whole.collisions.is_empty(), !meets, "gap {gap}");
        assert_eq!(times(&report), times(&whole), "gap {gap}");
    }
}

/// A screen that may stop inside its stretch, called again and again with a deadline already
/// past until it is done, finds exactly what one call without a deadline finds: the same
/// collisions (times, points, features, properness) and the same candidates and exact tests.
/// Two plates pressed together (a large contact, the screens that cost more than a frame)
/// press, slide and turn; each case must stop inside the screen at least twice, so the bands
/// of rows and the pieces of exact tests are what is checked.
mod resumed {
    use super::*;
    use proptest::prelude::*;

    fn plate() -> &'static GlideBody {
        static PLATE: std::sync::OnceLock<GlideBody> = std::sync::OnceLock::new();
        PLATE.get_or_init(|| {
            let mesh = MeshBuilder::new()
                .tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.1), [36, 36, 2])
                .build()
                .unwrap();
            GlideBody::new(mesh)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        #[test]
        fn calls_stopped_by_the_deadline_find_what_one_call_finds(
            gap in 1e-4..2e-3f64,
            press in 3e-3..2e-2f64,
            slide in prop::array::uniform2(-0.05..0.05f64),
            turn in -0.05..0.05f64,
            until_first in any::<bool>(),
        ) {
            let plate = plate();
            let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.2 + gap));
            let end = Pose::new(
                DQuat::from_rotation_z(turn),
                DVec3::new(slide[0], slide[1], 0.2 + gap - press),
            );
            let motion = Motion::new(start, end);
            let calm = GlideOptions { until_first, ..GlideOptions::default() };
            let hurried = GlideOptions { deadline: Some(Instant::now()), ..calm };
            let (mut state, mut calls) = (None, 0);
            let last = loop {
                calls += 1;
                prop_assert!(calls < 1000, "the calls must end");
                match glide_collisions_resumable(plate, &still(), plate, &motion, &hurried, (0.0, 1.0), state) {
                    Ok(report) => break report,
                    Err(suspended) => state = Some(suspended),
                }
            };
            prop_assert!(calls >= 3, "stopped {} times only", calls - 1);
            // Past the deadline, no stretch starts after the first (the whole step, or the
            // first of a long step's doubling stretches with `until_first`): one call without a
            // deadline over that stretch screens it in one piece.
            prop_assert_eq!(last.counters.sub_steps, 1);
            let whole = glide_collisions_between(plate, &still(), plate, &motion, &calm, (0.0, last.screened_to));
            prop_assert_eq!(whole.counters.sub_steps, 1);
            prop_assert_eq!(last.screened_to, whole.screened_to);
            prop_assert_eq!(last.counters.candidates, whole.counters.candidates);
            prop_assert_eq!(last.counters.tests, whole.counters.tests);
            // The plates press further than their gap: without `until_first` the step meets.
            prop_assert!(until_first || !whole.collisions.is_empty());
            prop_assert_eq!(key(&last), key(&whole));
        }
    }
    /// One collision's bits: time, point, kind, features, properness.
    type CollisionBits = (u64, [u64; 3], &'static str, u32, u32, u64);

    /// The bits of a report's collisions.
    fn key(r: &GlideReport) -> Vec<CollisionBits> {
        r.collisions
            .iter()
            .map(|c| {
                let k = c.contact;
                (
                    k.time.to_bits(),
                    k.point.to_array().map(f64::to_bits),
                    k.kind.name(),
                    k.feature_a,
                    k.feature_b,
                    c.properness.to_bits(),
                )
            })
            .collect()
    }

    /// A long step (doubling stretches) of a plate sliding far over another while pressing
    /// onto it, with the deadline passing at each look at the clock in turn: a call resumed
    /// until it answers either screened past the stretch the call without a deadline found
    /// the first contact in, and found exactly its collisions, or stopped before it and found
    /// none. Where the deadline stops a stretch after the first, the call answers, screened
    /// up to where that stretch began (a stretch the call could have stopped before); some
    /// of the deadlines must do that, so that is what is checked.
    #[test]
    fn a_later_stretch_the_deadline_stops_inside_is_dropped_and_the_ones_before_stand() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let plate = {
            let mesh = MeshBuilder::new()
                .tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.1), [16, 16, 2])
                .build()
                .unwrap();
            GlideBody::new(mesh)
        };
        let mut dropped = 0;
        for (gap, press) in [(2e-3, 4e-3), (2e-3, 1e-3)] {
            let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.2 + gap));
            let end = Pose::new(DQuat::from_rotation_z(0.02), DVec3::new(0.4, 0.1, 0.2 + gap - press));
            let motion = Motion::new(start, end);
            // A deadline that never passes: the same stretches as under any deadline.
            let opts = GlideOptions {
                until_first: true,
                deadline: Some(Instant::now() + std::time::Duration::from_secs(3600)),
                ..GlideOptions::default()
            };
            let looks = AtomicUsize::new(0);
            let count = || {
                looks.fetch_add(1, Ordering::Relaxed);
                false
            };
            let whole = resumable_by(&plate, &still(), &plate, &motion, &opts, (0.0, 1.0), None, &count)
                .expect("a deadline that never passes never stops a call");
            assert!(whole.counters.sub_steps >= 3, "a long step: {:?}", whole.counters);
            // Pressing further than the gap, the plates meet; pressing less, they do not.
            assert_eq!(whole.collisions.is_empty(), press < gap, "{:?}", whole.counters);
            let all_looks = looks.load(Ordering::Relaxed);
            // About thirty budgets spread over all the looks, the last one never running out.
            let stride = (all_looks / 30).max(1);
            for k in (0..=all_looks).step_by(stride).chain([all_looks]) {
                let (mut state, mut calls) = (None, 0);
                let last = loop {
                    calls += 1;
                    assert!(calls < 1000, "the calls must end");
                    // Each call (a frame) has its own budget of `k` looks.
                    looks.store(0, Ordering::Relaxed);
                    let hurried = || looks.fetch_add(1, Ordering::Relaxed) >= k;
                    match resumable_by(&plate, &still(), &plate, &motion, &opts, (0.0, 1.0), state, &hurried) {
                        Ok(report) => break report,
                        Err(suspended) => state = Some(suspended),
                    }
                };
                dropped += last.counters.stretches_dropped;
                assert!(last.screened_to >= DEADLINE_AFTER, "k {k}: {}", last.screened_to);
                if last.screened_to >= whole.screened_to {
                    assert_eq!(last.screened_to, whole.screened_to, "k {k}");
                    assert_eq!(key(&last), key(&whole), "k {k}");
                } else {
                    assert!(last.collisions.is_empty(), "k {k}: found before {}", last.screened_to);
                }
            }
        }
        assert!(dropped > 0, "no deadline stopped a later stretch");
    }
}
