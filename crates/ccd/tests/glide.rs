//! The glide screen (seed 002, `mockup_ccd::glide`) against testing every feature pair, against
//! the exact `first_contact` where the two in-between motions coincide (pure translations and
//! rotations), on the shared cases, and on the paper's interlocked tori.

mod common;

use common::*;
use glam::{DQuat, DVec3};
use mockup_ccd::glide::{
    GlideBody, GlideCollision, GlideOptions, GlideReport, Resolution, glide_collisions, glide_collisions_all_pairs,
    glide_collisions_between,
};
use mockup_ccd::{Collider, Mesh, MeshBuilder, Motion, Pose, QueryOptions, first_contact};
use proptest::prelude::*;

/// Closed meshes only: the screen works on polyhedra, whose outside is where the normals point.
fn arb_solid() -> impl Strategy<Value = Mesh> {
    prop_oneof![arb_cuboid(), arb_torus(), arb_sphere()]
}

/// Also parts several times larger than the others (a plate, a wide ring), so that long steps
/// also go through the broad phase that keeps only faces near the other body's sphere.
fn arb_solid_or_large() -> impl Strategy<Value = Mesh> {
    prop_oneof![
        2 => arb_solid(),
        1 => (1.0..4.0f64, 1.0..4.0f64, 0.05..0.4f64)
            .prop_map(|(x, y, z)| MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(x, y, z)).build().unwrap()),
        1 => (1.5..3.0f64, 0.15..0.5f64, 10u32..18, 3u32..6)
            .prop_map(|(r, s, n, m)| MeshBuilder::new().torus(Pose::IDENTITY, r, s, n, m).build().unwrap()),
    ]
}

/// Proper collisions as comparable events: time and point to 1e-6. (Which features name an
/// event can differ when several resolve it equally well, e.g. a vertex exactly on an edge.)
fn proper_keys(r: &GlideReport) -> Vec<[i64; 4]> {
    let q = |x: f64| (x * 1e6).round() as i64;
    let mut k: Vec<_> = r
        .collisions
        .iter()
        .filter(|c| c.properness >= -1e-9)
        .map(|c| [q(c.contact.time), q(c.contact.point.x), q(c.contact.point.y), q(c.contact.point.z)])
        .collect();
    k.sort();
    k.dedup();
    k
}

/// Random cases per property: 192, or `PROPTEST_CASES` when set (an explicit `cases` would
/// otherwise override it), for longer hunts by hand; rejected cases (starting in contact)
/// are allowed in proportion.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(192);
    ProptestConfig { cases, max_global_rejects: cases.max(1024), ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Over random meshes and general motions (both bodies may move, rotations beyond π/2 are
    /// split): the screen finds every proper collision that testing all pairs finds, at the
    /// same time with the same features, and each reported collision is a real contact.
    #[test]
    fn screen_finds_what_all_pairs_find(a in arb_solid_or_large(), b in arb_solid(), case in arb_case()) {
        let (fixed, moving) = (GlideBody::new(a.clone()), GlideBody::new(b.clone()));
        // The case's motions, with A as the screen's stationary frame and B moving.
        let (motion_a, motion_b) = (case.motion_b, case.motion_a);
        prop_assume!(!mockup_ccd::intersects(
            &Collider::new(a.clone()), &motion_a.from, &Collider::new(b.clone()), &motion_b.from).value);
        prop_assume!(neither_inside(&a, &motion_a.from, &b, &motion_b.from));
        for res in [Resolution::Low, Resolution::High] {
            let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
            let screen = glide_collisions(&fixed, &motion_a, &moving, &motion_b, &opts);
            let all = glide_collisions_all_pairs(&fixed, &motion_a, &moving, &motion_b, &opts);
            prop_assert_eq!(proper_keys(&screen), proper_keys(&all), "{:?}", res);
            // The step screened in two stretches finds the same, at the whole step's times.
            let mut halves = glide_collisions_between(&fixed, &motion_a, &moving, &motion_b, &opts, (0.0, 0.37));
            let rest = glide_collisions_between(&fixed, &motion_a, &moving, &motion_b, &opts, (0.37, 1.0));
            halves.collisions.extend(rest.collisions);
            prop_assert_eq!(proper_keys(&halves), proper_keys(&all), "{:?}, in two stretches", res);
            for c in &screen.collisions {
                let gap = feature_gap(&a, &b, &screen, c);
                prop_assert!(gap <= 1e-7 * scale(&a, &b), "gap {} at {:?}", gap, c);
            }
            // Completeness against an independent test: once the bodies, placed along the
            // glide motion, interpenetrate, a collision must have been reported.
            let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
            let entered = (1..=60).map(|k| k as f64 / 60.0).find(|&t| {
                mockup_ccd::intersects(&ca, &screen.motion.pose_a_at(t), &cb, &screen.motion.pose_b_at(t)).value
            });
            if let Some(t) = entered {
                let first = screen.collisions.first().map(|c| c.contact.time);
                prop_assert!(first.is_some_and(|f| f <= t), "{:?}: intersecting at {} but first collision {:?}", res, t, first);
            }
            // Stopping after the first stretch with a collision finds the same first one.
            let first_only = GlideOptions { until_first: true, ..opts };
            let early = glide_collisions(&fixed, &motion_a, &moving, &motion_b, &first_only);
            let key = |r: &GlideReport| {
                r.collisions.first().map(|c| (c.contact.kind, c.contact.feature_a, c.contact.feature_b))
            };
            prop_assert_eq!(key(&early), key(&screen), "{:?}", res);
            if let (Some(x), Some(y)) = (early.collisions.first(), screen.collisions.first()) {
                let (tx, ty) = (x.contact.time, y.contact.time);
                prop_assert!((tx - ty).abs() <= 1e-9, "{} vs {}", tx, ty);
            }
            // A deadline already past stops the screen once 1/256 of the step is screened, at
            // the end of a stretch; what it found is every collision of the screen without it
            // up to there, and the first of them, if any, is the whole step's first.
            let hurried = GlideOptions { deadline: Some(std::time::Instant::now()), ..first_only };
            let cut = glide_collisions(&fixed, &motion_a, &moving, &motion_b, &hurried);
            prop_assert!(cut.screened_to >= 1.0 / 256.0 && cut.screened_to <= 1.0, "{}", cut.screened_to);
            // Every first stretch or piece is longer than that: the screen stopped after it.
            prop_assert_eq!(cut.counters.sub_steps, 1);
            prop_assert_eq!(early.screened_to >= cut.screened_to, true);
            let upto = |r: &GlideReport| GlideReport {
                collisions: r.collisions.iter().filter(|c| c.contact.time <= cut.screened_to).copied().collect(),
                ..r.clone()
            };
            prop_assert_eq!(proper_keys(&cut), proper_keys(&upto(&early)), "{:?}, cut at {}", res, cut.screened_to);
            if let Some(x) = cut.collisions.first() {
                prop_assert_eq!(key(&cut), key(&screen), "{:?}", res);
                prop_assert!((x.contact.time - screen.collisions[0].contact.time).abs() <= 1e-9);
            }
            if let Some(t) = entered.filter(|&t| t <= cut.screened_to) {
                let first = cut.collisions.first().map(|c| c.contact.time);
                prop_assert!(first.is_some_and(|f| f <= t), "{:?}: intersecting at {} but cut screen's first {:?}", res, t, first);
            }
        }
    }

    /// Any meshes the CCD accepts — open sheets, lone triangles, soups — and any motion: no
    /// panic, and every reported collision is a real contact. (Completeness needs an outside:
    /// on open meshes a face is met only from the side its normal points to.)
    #[test]
    fn open_meshes_and_soups_are_safe(case in arb_case()) {
        let (a, b) = (case.b.clone(), case.a.clone());
        let (motion_a, motion_b) = (case.motion_b, case.motion_a);
        let report = glide_collisions(
            &GlideBody::new(a.clone()), &motion_a, &GlideBody::new(b.clone()), &motion_b, &GlideOptions::default());
        for c in &report.collisions {
            let gap = feature_gap(&a, &b, &report, c);
            prop_assert!(gap <= 1e-7 * scale(&a, &b), "gap {} at {:?}", gap, c);
            prop_assert!(c.contact.time.is_finite() && (0.0..=1.0).contains(&c.contact.time));
            prop_assert!(c.properness.is_finite() && c.contact.normal.is_finite());
        }
    }

    /// Meshes with the flaws of real files (zero-area triangles, a non-manifold fin, turned
    /// faces, an unreferenced vertex): no panic, every reported collision a real contact.
    #[test]
    fn flawed_meshes_are_safe(case in arb_rough_case(), until_first in any::<bool>()) {
        let (a, b) = (case.b.clone(), case.a.clone());
        let (motion_a, motion_b) = (case.motion_b, case.motion_a);
        let opts = GlideOptions { until_first, ..GlideOptions::default() };
        let report = glide_collisions(&GlideBody::new(a.clone()), &motion_a, &GlideBody::new(b.clone()), &motion_b, &opts);
        for c in &report.collisions {
            let gap = feature_gap(&a, &b, &report, c);
            prop_assert!(gap <= 1e-7 * scale(&a, &b), "gap {} at {:?}", gap, c);
            prop_assert!(c.contact.time.is_finite() && (0.0..=1.0).contains(&c.contact.time));
            prop_assert!(c.properness.is_finite() && c.contact.normal.is_finite());
        }
    }

    /// On pure translations and pure rotations the glide flow is Redon's motion: the earliest
    /// collision the screen reports is `first_contact`'s, within the time resolution.
    #[test]
    fn earliest_collision_is_first_contact_on_pure_motions(
        a in arb_solid(),
        b in arb_solid(),
        start in arb_pose(2.0),
        toward in 0.3..1.6f64,
        dir in arb_vec(1.0),
        axis in arb_vec(1.0),
        through in arb_vec(1.0),
        angle in -2.5..2.5f64,
        rotate in any::<bool>(),
    ) {
        let step = if rotate {
            prop_assume!(axis.length() > 0.1);
            Pose::rotation_about(0.5 * start.translation + through, axis.normalize(), angle)
        } else {
            // Mostly toward A, so that most cases collide.
            Pose::from_translation(-toward * start.translation + 0.4 * dir)
        };
        let motion_b = Motion::new(start, step * start);
        let still = Motion::stationary(Pose::IDENTITY);
        let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
        prop_assume!(!mockup_ccd::intersects(&ca, &Pose::IDENTITY, &cb, &start).value);
        prop_assume!(neither_inside(&a, &Pose::IDENTITY, &b, &start));
        let exact = first_contact(&cb, &motion_b, &ca, &still, &QueryOptions::default()).value;
        let report = glide_collisions(&GlideBody::new(a), &still, &GlideBody::new(b), &motion_b, &GlideOptions::default());
        let earliest = report.collisions.first();
        match (exact, earliest) {
            (None, None) => {}
            (Some(e), Some(g)) => {
                let res = report.resolution.unwrap();
                prop_assert!((e.time - g.contact.time).abs() <= res.time, "exact {} glide {}", e.time, g.contact.time);
                prop_assert!(g.properness >= -1e-9, "first contact improper: {:?}", g);
            }
            (e, g) => prop_assert!(false, "exact {:?} glide {:?}", e, g),
        }
    }
}

/// The shared reference cases whose motion is a pure translation or a pure rotation (where
/// Buss' and Redon's in-between motions coincide): same hit, time within the resolution.
#[test]
fn shared_cases_with_pure_motions() {
    let text = std::fs::read_to_string(data("ccd-cases/cases.json")).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let parse = |s: &str| {
        let v: Vec<f64> = s.split(',').map(|x| x.trim().parse().unwrap()).collect();
        Pose::new(DQuat::from_xyzw(v[3], v[4], v[5], v[6]).normalize(), DVec3::new(v[0], v[1], v[2]))
    };
    let mut checked = 0;
    for case in cases.as_array().unwrap() {
        let (from, to) = (parse(case["from"].as_str().unwrap()), parse(case["to"].as_str().unwrap()));
        let screw = mockup_ccd::Screw::from_displacement(&(to * from.inverse()));
        let pure = screw.angle() < 1e-12 || screw.axial().abs() < 1e-12;
        if !pure {
            continue;
        }
        let mesh = |key: &str| load_obj(&data(&format!("ccd-cases/meshes/{}", case[key].as_str().unwrap())));
        let (fixed, moving) = (GlideBody::new(mesh("fixed")), GlideBody::new(mesh("moving")));
        let report = glide_collisions(
            &fixed,
            &Motion::stationary(Pose::IDENTITY),
            &moving,
            &Motion::new(from, to),
            &GlideOptions::default(),
        );
        let id = case["id"].as_str().unwrap();
        let expect = &case["expect"];
        match (expect["hit"].as_bool().unwrap(), report.collisions.first()) {
            (true, Some(c)) => {
                let want = expect["time"].as_f64().unwrap();
                let res = report.resolution.unwrap();
                assert!((c.contact.time - want).abs() <= res.time.max(1e-6), "{id}: {} vs {want}", c.contact.time);
            }
            (false, None) => {}
            (hit, got) => panic!("{id}: expected hit {hit}, got {got:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} pure cases");
}

/// Figure 13: a torus passing through another along a glide rotation. Every proper collision
/// that testing all pairs finds is reported, at each resolution, and each is a real contact.
#[test]
fn interlocked_tori_report_every_proper_collision() {
    let torus = |pose| MeshBuilder::new().torus(pose, 1.0, 0.3, 20, 15).build().unwrap();
    let (a, b) = (torus(Pose::IDENTITY), torus(Pose::IDENTITY));
    // B starts below A's ring, tilted upright, and screws up through A's hole and past it.
    let start = Pose::new(DQuat::from_rotation_x(1.4), DVec3::new(0.9, 0.0, -2.0));
    let end = Pose::new(DQuat::from_rotation_x(1.4) * DQuat::from_rotation_z(0.8), DVec3::new(0.5, 0.4, 2.0));
    let (still, moving) = (Motion::stationary(Pose::IDENTITY), Motion::new(start, end));
    let (fa, fb) = (GlideBody::new(a.clone()), GlideBody::new(b.clone()));
    let all = glide_collisions_all_pairs(&fa, &still, &fb, &moving, &GlideOptions::default());
    assert!(proper_keys(&all).len() >= 2, "{:?}", all.collisions);
    for res in [Resolution::Low, Resolution::Medium, Resolution::High] {
        let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
        let screen = glide_collisions(&fa, &still, &fb, &moving, &opts);
        assert_eq!(proper_keys(&screen), proper_keys(&all), "{res:?}");
        for c in &screen.collisions {
            assert!(feature_gap(&a, &b, &screen, c) < 1e-7 * scale(&a, &b));
        }
    }
}

/// Doppeling (seed §8): a bar through the glide axis turns and rises into a ring around the
/// axis, so one end of the bar sweeps across the `ϕ = ±π` seam for some start angles. The
/// screen must find both ends' collisions there as well as testing all pairs does.
#[test]
fn bar_turning_across_the_seam_into_a_ring() {
    let ring = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.25, 24, 7).build().unwrap();
    let bar = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.1, 0.05, 0.05)).build().unwrap();
    let (fa, fb) = (GlideBody::new(ring.clone()), GlideBody::new(bar.clone()));
    let still = Motion::stationary(Pose::IDENTITY);
    let mut seen = 0;
    for k in 0..24 {
        let start_angle = k as f64 * std::f64::consts::TAU / 24.0;
        let from = Pose::new(DQuat::from_rotation_z(start_angle), DVec3::new(0.0, 0.0, -0.8));
        let to = Pose::new(DQuat::from_rotation_z(start_angle + 1.3), DVec3::new(0.0, 0.0, 0.2));
        let moving = Motion::new(from, to);
        let all = glide_collisions_all_pairs(&fa, &still, &fb, &moving, &GlideOptions::default());
        let screen = glide_collisions(&fa, &still, &fb, &moving, &GlideOptions::default());
        assert_eq!(proper_keys(&screen), proper_keys(&all), "start angle {start_angle}");
        // Both ends of the bar hit the ring.
        let first = all.first_proper().expect("the bar meets the ring");
        let end_of = |c: &GlideCollision| {
            let along = all.motion.pose_b_at(c.contact.time).transform_vector(DVec3::X);
            c.contact.point.dot(along) > 0.0
        };
        let firsts: Vec<bool> = all
            .collisions
            .iter()
            .filter(|c| c.properness >= -1e-9 && c.contact.time <= first.contact.time + 1e-6)
            .map(end_of)
            .collect();
        assert!(firsts.contains(&true) && firsts.contains(&false), "start angle {start_angle}: {:?}", all.collisions);
        seen += proper_keys(&all).len();
    }
    assert!(seen > 0);
}

/// Degenerate triangles have no edges (their `triangle_edges` are `NONE`, u32::MAX): preparing
/// a body used them as edge indices and panicked ("index out of bounds: … the index is
/// 4294967295", lego.obj onto the bunny with the glide narrow phase). A box with a zero-area
/// sliver on one face and a triangle with a repeated corner is prepared and screened.
#[test]
fn degenerate_triangles_are_left_out_of_the_screen() {
    let half = DVec3::new(0.5, 0.5, 0.5);
    let sliver = [DVec3::new(-0.5, -0.5, 0.5), DVec3::new(0.5, 0.5, 0.5), DVec3::new(0.0, 0.0, 0.5)];
    let mesh = MeshBuilder::new()
        .cuboid(Pose::IDENTITY, half)
        .raw(Pose::IDENTITY, &sliver, &[[0, 1, 2], [0, 0, 1]])
        .build()
        .unwrap();
    assert_eq!(mesh.stats().degenerate_triangles, 2);
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, half).build().unwrap();
    let (a, b) = (GlideBody::new(mesh.clone()), GlideBody::new(cube.clone()));
    // B comes down onto A's top face: both orders of the bodies.
    let fall = Motion::new(Pose::from_translation(DVec3::new(0.1, 0.2, 2.0)), Pose::from_translation(DVec3::ZERO));
    let still = Motion::stationary(Pose::IDENTITY);
    for (x, y, m) in [(&a, &b, &fall), (&b, &a, &fall)] {
        let r = glide_collisions(x, &still, y, m, &GlideOptions::default());
        let first = r.first_proper().expect("the boxes meet");
        assert!((first.contact.time - 0.5).abs() < 1e-6, "{first:?}");
    }
}

/// Found by `earliest_collision_is_first_contact_on_pure_motions` (2026-11-25): a box turning
/// about an axis off its centre meets a corner of a fixed box; the exact query and the
/// all-pairs glide test find vertex 7 of A on face 1 of B at t = 0.5076, the screen missed it.
/// Face 1's side along B's edge 2–6 is nearly tangent to the corner's flow cylinder there, so
/// its chord, within half a pixel of the curve, left the corner's row 2 pixels of h before the
/// curve did: rows now take each chord over the row widened by half a pixel (glide.md §15).
#[test]
fn a_turning_box_meets_a_fixed_corner() {
    let a = MeshBuilder::new()
        .cuboid(Pose::IDENTITY, DVec3::new(0.25094491443354655, 0.24317189171467632, 0.4485539032212203))
        .build()
        .unwrap();
    let b = MeshBuilder::new()
        .cuboid(Pose::IDENTITY, DVec3::new(0.8777059492969933, 0.575012708352626, 0.7525203909214127))
        .build()
        .unwrap();
    let start = Pose {
        rotation: DQuat::from_xyzw(0.1808946754948614, -0.31180729806988144, 0.6239248844692121, 0.693376567088944),
        translation: DVec3::new(1.8364489943885296, 0.4414040936905996, 1.5110884134418652),
    };
    let axis = DVec3::new(0.4808392267243549, 0.7041774401549434, -0.05442639034239664).normalize();
    let through = DVec3::new(-0.1916415607146041, 0.7396348894257467, 0.9125720141831704);
    let step = Pose::rotation_about(0.5 * start.translation + through, axis, 2.076213433311088);
    let motion_b = Motion::new(start, step * start);
    let still = Motion::stationary(Pose::IDENTITY);
    let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
    assert!(!mockup_ccd::intersects(&ca, &Pose::IDENTITY, &cb, &start).value);
    let exact = first_contact(&cb, &motion_b, &ca, &still, &QueryOptions::default()).value.expect("they meet");
    let (ga, gb) = (GlideBody::new(a), GlideBody::new(b));
    let all = glide_collisions_all_pairs(&ga, &still, &gb, &motion_b, &GlideOptions::default());
    assert!(all.collisions.first().is_some_and(|c| (c.contact.time - exact.time).abs() < 1e-9));
    let report = glide_collisions(&ga, &still, &gb, &motion_b, &GlideOptions::default());
    let g = report.collisions.first().expect("the screen finds the collision");
    assert!((exact.time - g.contact.time).abs() <= report.resolution.unwrap().time);
}

/// Found by `screen_finds_what_all_pairs_find` with the rows of a chord not yet widened (the
/// fix of `a_turning_box_meets_a_fixed_corner`): a coarse torus screwing onto a plate; at the
/// low resolution the screen missed the proper collision all pairs finds.
#[test]
fn a_coarse_torus_screws_onto_a_plate() {
    let plate = MeshBuilder::new()
        .cuboid(Pose::IDENTITY, DVec3::new(3.6853163994772506, 1.1786960850674275, 0.27439431972039907))
        .build()
        .unwrap();
    let torus = MeshBuilder::new().torus(Pose::IDENTITY, 0.6746080235666095, 0.2771054116185958, 5, 4).build().unwrap();
    let motion_b = Motion::new(
        Pose {
            rotation: DQuat::from_xyzw(
                -0.29889017927151346,
                0.509736992680538,
                -0.4887773400382684,
                0.6418173968452078,
            ),
            translation: DVec3::new(2.287139313087334, -2.5960382503037986, 2.6579610037127255),
        },
        Pose {
            rotation: DQuat::from_xyzw(
                -0.6115122348642668,
                -0.6141777748696706,
                -0.4618853753245067,
                -0.18841535905756082,
            ),
            translation: DVec3::new(0.9073065745340398, 0.7050499599864392, -0.574939480725039),
        },
    );
    let still = Motion::stationary(Pose::IDENTITY);
    let (fa, fb) = (GlideBody::new(plate), GlideBody::new(torus));
    for res in [Resolution::Low, Resolution::Medium, Resolution::High] {
        let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
        let all = glide_collisions_all_pairs(&fa, &still, &fb, &motion_b, &opts);
        assert!(!proper_keys(&all).is_empty(), "{res:?}: the torus meets the plate");
        let screen = glide_collisions(&fa, &still, &fb, &motion_b, &opts);
        assert_eq!(proper_keys(&screen), proper_keys(&all), "{res:?}");
    }
}

/// Found by `earliest_collision_is_first_contact_on_pure_motions`: a box turning by 2 rad
/// clips an edge of a coarse torus with one of its edges for about 1 % of the step
/// (t = 0.455 … 0.466), less than a sample cell of the edge/edge coplanarity function, whose
/// two roots the cell's samples did not see: neither the screen nor all pairs reported it
/// (glide.md §15).
#[test]
fn a_turning_box_clips_a_torus_edge() {
    let a = MeshBuilder::new().torus(Pose::IDENTITY, 0.40461122787278103, 0.1367998570347365, 7, 5).build().unwrap();
    let b = MeshBuilder::new()
        .cuboid(Pose::IDENTITY, DVec3::new(0.8065122240898327, 0.5055427310900656, 0.4008413785830637))
        .build()
        .unwrap();
    let start = Pose {
        rotation: DQuat::from_xyzw(0.6101912579925717, -0.3996580084841592, -0.6478452912533537, -0.21962828489239694),
        translation: DVec3::new(-0.5257559925068636, 0.38872551406571015, -1.3394340492611736),
    };
    let axis = DVec3::new(-0.573675120680792, 0.023780995691037213, 0.8328343698180619).normalize();
    let through = DVec3::new(-0.7061848837966415, -0.6316485636188639, -0.7944756921514158);
    let step = Pose::rotation_about(0.5 * start.translation + through, axis, -2.0135774598737695);
    let motion_b = Motion::new(start, step * start);
    let still = Motion::stationary(Pose::IDENTITY);
    let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
    assert!(!mockup_ccd::intersects(&ca, &Pose::IDENTITY, &cb, &start).value);
    let exact = first_contact(&cb, &motion_b, &ca, &still, &QueryOptions::default()).value.expect("they meet");
    let (ga, gb) = (GlideBody::new(a), GlideBody::new(b));
    for res in [Resolution::Low, Resolution::Medium, Resolution::High] {
        let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
        let all = glide_collisions_all_pairs(&ga, &still, &gb, &motion_b, &opts);
        let screen = glide_collisions(&ga, &still, &gb, &motion_b, &opts);
        assert_eq!(proper_keys(&screen), proper_keys(&all), "{res:?}");
        let first = screen.collisions.first().expect("the screen finds the clip");
        assert!((first.contact.time - exact.time).abs() <= screen.resolution.unwrap().time, "{res:?}: {first:?}");
        assert!(first.properness >= -1e-9, "{res:?}: {first:?}");
    }
}
