//! `query::distance` against brute force over every triangle pair, on random meshes of every
//! kind (closed, open, soups, with degenerate triangles, fins and turned faces), at poses
//! that are apart, near and intersecting; and on two large parallel grids (the case that
//! froze the app's status bar).

mod common;

use common::*;
use glam::{DQuat, DVec3};
use mockup_ccd::geometry::{closest_point_on_triangle, closest_points_segments};
use mockup_ccd::query::Feature;
use mockup_ccd::{ClosestPair, Collider, Mesh, MeshBuilder, Pose, distance};
use proptest::prelude::*;

/// Where the pair says its points are, they are (world coordinates, tolerance `tol`).
fn on_feature(m: &Mesh, pose: &Pose, f: Feature, triangle: u32, x: DVec3, tol: f64) -> bool {
    let on_triangle = |t: u32| {
        let [a, b, c] = m.triangle_points(t).map(|p| pose.transform_point(p));
        (x - closest_point_on_triangle(x, a, b, c)).length() <= tol
    };
    let feature = match f {
        Feature::Vertex(v) => {
            (pose.transform_point(m.vertex(v)) - x).length() <= tol && m.triangle(triangle).contains(&v)
        }
        Feature::Edge(e) => {
            let [p, q] = m.edge_points(e).map(|p| pose.transform_point(p));
            (closest_points_segments(x, x, p, q).3 - x).length() <= tol && m.triangle_edges(triangle).contains(&e)
        }
        Feature::Face(t) => t == triangle,
    };
    feature && on_triangle(triangle)
}

/// Everything a closest pair claims, checked against the meshes and brute force.
fn check(ma: &Mesh, pa: &Pose, mb: &Mesh, pb: &Pose, max: f64, got: Option<ClosestPair>) -> Result<(), TestCaseError> {
    let brute = brute_distance(ma, pa, mb, pb);
    let (a, b) = (Collider::new(ma.clone()), Collider::new(mb.clone()));
    let slack = 1e-8 * (a.tree().root().obb.radius() + b.tree().root().obb.radius());
    let Some(c) = got else {
        prop_assert!(brute >= max, "brute force {brute}, max {max}, got nothing");
        return Ok(());
    };
    prop_assert!(c.distance < max);
    prop_assert!(
        c.distance >= brute - 1e-12 && c.distance <= brute + slack + 1e-12,
        "got {} brute {brute}",
        c.distance
    );
    let tol = 1e-9 * (1.0 + pa.translation.length() + pb.translation.length());
    prop_assert!(((c.point_a - c.point_b).length() - c.distance).abs() <= tol);
    prop_assert!(on_feature(ma, pa, c.feature_a, c.triangle_a, c.point_a, tol), "{:?}", c);
    prop_assert!(on_feature(mb, pb, c.feature_b, c.triangle_b, c.point_b, tol), "{:?}", c);
    prop_assert!((c.normal.length() - 1.0).abs() < 1e-9);
    if c.distance > 0.0 {
        prop_assert!(c.normal.dot(c.point_a - c.point_b) > 0.0, "normal from B toward A");
    }
    prop_assert_eq!(c.crossing, c.kind().is_none());
    if c.crossing {
        prop_assert!(c.distance == 0.0 && brute < 1e-12);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Random meshes and poses, a third of them overlapping: the tree's answer is brute
    /// force's to within its slack, with points on the features it names.
    #[test]
    fn distance_matches_brute_force(
        ma in arb_rough_mesh(), mb in arb_rough_mesh(), pa in arb_pose(2.5), pb in arb_pose(0.5),
        max in prop_oneof![Just(f64::INFINITY), 0.0..2.0f64],
    ) {
        let (a, b) = (Collider::new(ma.clone()), Collider::new(mb.clone()));
        let got = distance(&a, &pa, &b, &pb, max);
        check(&ma, &pa, &mb, &pb, max, got.value)?;
        // and did less than brute force whenever there was much to do
        let pairs = (ma.triangles().len() * mb.triangles().len()) as u64;
        if pairs > 200 {
            prop_assert!(got.counters.triangle_tests < pairs);
        }
    }
}

/// Two parallel grids 1e-3 apart, 2 × 2,500 and 2 × 22,500 triangles (the app froze on such
/// a pair): the first leaf pair reached sets the distance and every other facing pair is
/// dropped (docs/queries.md §1.3). The counts are those of a search that goes straight down
/// both trees: a few hundred box bounds, not the ~10⁵ facing leaf pairs.
#[test]
fn parallel_grids_are_cheap() {
    let grid = |n: u32, pose: Pose| Collider::new(MeshBuilder::new().grid(pose, 1.0, 1.0, n, n).build().unwrap());
    let (a, b) = (grid(50, Pose::from_translation(DVec3::new(0.013, -0.021, 1e-3))), grid(150, Pose::IDENTITY));
    let turn =
        Pose::new(DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7), DVec3::new(3.0, -1.0, 2.0));
    let got = distance(&a, &turn, &b, &turn, f64::INFINITY);
    let c = got.value.unwrap();
    assert!((c.distance - 1e-3).abs() < 1e-12, "{c:?}");
    assert!((c.normal - turn.transform_vector(DVec3::Z)).length() < 1e-9);
    assert!(got.counters.bv_tests < 1000 && got.counters.triangle_tests < 100, "{:?}", got.counters);
}

#[test]
fn boxes_face_to_face_and_apart() {
    let cube = |pose| Collider::new(MeshBuilder::new().cuboid(pose, DVec3::splat(0.5)).build().unwrap());
    let (a, b) = (cube(Pose::IDENTITY), cube(Pose::IDENTITY));
    let pa = Pose::new(DQuat::from_rotation_z(0.3), DVec3::new(1.75, 0.0, 0.0));
    // A turned 0.3 about z: its nearest corners are at x = 1.75 − (cos 0.3 + sin 0.3)/2.
    let expected = 1.75 - 0.5 * (0.3f64.cos() + 0.3f64.sin()) - 0.5;
    let c = distance(&a, &pa, &b, &Pose::IDENTITY, f64::INFINITY).value.unwrap();
    assert!((c.distance - expected).abs() < 1e-12, "{c:?}");
    assert!(matches!(c.feature_b, Feature::Face(_)) && (c.normal - DVec3::X).length() < 1e-12);
    // beyond the limit: nothing; within it: the same pair
    assert!(distance(&a, &pa, &b, &Pose::IDENTITY, expected).value.is_none());
    assert_eq!(distance(&a, &pa, &b, &Pose::IDENTITY, expected + 1e-9).value, Some(c));
    // overlapping: 0, and the features cross or touch
    let c = distance(&a, &Pose::from_translation(DVec3::new(0.9, 0.2, 0.1)), &b, &Pose::IDENTITY, 1.0).value.unwrap();
    assert_eq!(c.distance, 0.0);
    // one inside the other, surfaces apart: the distance between the surfaces
    let small = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.1)).build().unwrap());
    let c = distance(&small, &Pose::IDENTITY, &b, &Pose::IDENTITY, 1.0).value.unwrap();
    assert!((c.distance - 0.4).abs() < 1e-12);
    // bad input: nothing, at once
    let nan = Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0));
    let r = distance(&a, &nan, &b, &Pose::IDENTITY, f64::INFINITY);
    assert!(r.value.is_none() && r.counters.bv_tests == 0);
    assert!(distance(&a, &pa, &b, &Pose::IDENTITY, f64::NAN).value.is_none());
    assert!(distance(&a, &pa, &b, &Pose::IDENTITY, -1.0).value.is_none());
}
