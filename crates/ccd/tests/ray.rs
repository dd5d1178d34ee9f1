//! `query::ray_cast` (the app's picking, moved into the library) against every triangle, on
//! random meshes of every kind and random rays, on a door in its frame as the app picks, and
//! on analytic cases.

mod common;

#[path = "../benches/scenes.rs"]
mod scenes;

use common::*;
use glam::{DQuat, DVec3};
use mockup_ccd::query::{RayHit, ray_triangle};
use mockup_ccd::{Collider, Mesh, MeshBuilder, Pose, ray_cast};
use proptest::prelude::*;

/// The nearest hit over every non-degenerate triangle, placed in the world: `(t, triangle)`.
fn brute_force(m: &Mesh, pose: &Pose, origin: DVec3, dir: DVec3, max_t: f64) -> Option<(f64, u32)> {
    (0..m.triangles().len() as u32)
        .filter(|&t| !m.is_degenerate(t))
        .filter_map(|t| {
            let tri = m.triangle_points(t).map(|p| pose.transform_point(p));
            ray_triangle(origin, dir, tri).filter(|&s| s <= max_t).map(|s| (s, t))
        })
        .min_by(|x, y| x.0.total_cmp(&y.0))
}

/// A hit's claims: the point is on the ray and on its triangle, the normal is the triangle's.
fn check_hit(m: &Mesh, pose: &Pose, origin: DVec3, dir: DVec3, h: &RayHit) -> Result<(), TestCaseError> {
    let scale = 1.0 + origin.length() + pose.translation.length() + h.t * dir.length();
    prop_assert!((h.point - (origin + h.t * dir)).length() <= 1e-12 * scale);
    let [a, b, c] = m.triangle_points(h.triangle).map(|p| pose.transform_point(p));
    let on = mockup_ccd::geometry::closest_point_on_triangle(h.point, a, b, c);
    prop_assert!((on - h.point).length() <= 1e-9 * scale, "{:?} is {} off its triangle", h, (on - h.point).length());
    prop_assert!((h.normal - pose.transform_vector(m.normal(h.triangle))).length() < 1e-12);
    prop_assert_eq!(h.front, h.normal.dot(dir) < 0.0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random meshes (closed, open, soups, degenerate triangles, fins, turned faces), poses
    /// and rays, most aimed at the mesh: the tree finds brute force's nearest hit.
    #[test]
    fn ray_cast_matches_every_triangle(
        m in arb_rough_mesh(), pose in arb_pose(2.0), from in arb_vec(4.0), aim in arb_vec(1.0),
        stray in arb_vec(1.0), aimed in prop::bool::weighted(0.8), unit in any::<bool>(),
        max_t in prop_oneof![Just(f64::INFINITY), 0.0..6.0f64],
    ) {
        let target = if aimed { pose.transform_point(aim) } else { from + stray };
        let dir = target - from;
        prop_assume!(dir.length() > 1e-6);
        let dir = if unit { dir.normalize() } else { dir };
        let c = Collider::new(m.clone());
        let got = ray_cast(&c, &pose, from, dir, max_t);
        let brute = brute_force(&m, &pose, from, dir, max_t);
        match (got.value, brute) {
            (None, None) => {}
            (Some(h), Some((t, _))) => {
                prop_assert!((h.t - t).abs() <= 1e-9 * (1.0 + t), "tree {} brute {}", h.t, t);
                prop_assert!(h.t <= max_t);
                check_hit(&m, &pose, from, dir, &h)?;
            }
            (g, b) => prop_assert!(false, "tree {:?} brute {:?}", g, b),
        }
    }
}

/// As the app picks: rays from eyes around a door in its frame toward random points of their
/// bounds; the nearest part and distance over the parts' trees are every triangle's, most
/// rays hit, and the trees test a small share of the triangles.
#[test]
fn picking_a_door_in_its_frame() {
    let parts = [scenes::door_part(), scenes::door_frame()];
    let poses = [Pose::new(DQuat::from_rotation_z(0.05), DVec3::new(0.0, 0.0, 0.2)), Pose::IDENTITY];
    let colliders: Vec<Collider> = parts.iter().map(|m| Collider::new(m.clone())).collect();
    let (lo, hi) = parts[1].bounds();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut hits, mut tested, mut triangles) = (0, 0, 0);
    for _ in 0..300 {
        let target = lo + (hi - lo) * DVec3::new(rnd(), rnd(), rnd());
        let eye = 0.5 * (lo + hi) + 3.0 * (DVec3::new(rnd(), rnd(), rnd()) - 0.5).normalize();
        let dir = (target - eye).normalize();
        let tree = (0..2)
            .filter_map(|i| {
                let r = ray_cast(&colliders[i], &poses[i], eye, dir, f64::INFINITY);
                tested += r.counters.triangle_tests;
                r.value.map(|h| (i, h.t))
            })
            .min_by(|x, y| x.1.total_cmp(&y.1));
        let brute = (0..2)
            .filter_map(|i| brute_force(&parts[i], &poses[i], eye, dir, f64::INFINITY).map(|(t, _)| (i, t)))
            .min_by(|x, y| x.1.total_cmp(&y.1));
        assert_eq!(tree.map(|h| h.0), brute.map(|h| h.0), "from {eye} along {dir}");
        if let (Some(x), Some(y)) = (tree, brute) {
            assert!((x.1 - y.1).abs() <= 1e-12 * y.1, "{x:?} vs {y:?}");
            hits += 1;
        }
        triangles += parts.iter().map(|m| m.triangles().len() as u64).sum::<u64>();
    }
    assert!(hits > 150, "only {hits} of 300 rays hit");
    assert!(tested * 100 < triangles, "{tested} triangle tests of {triangles}");
}

#[test]
fn rays_at_a_cube() {
    let pose = Pose::new(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2), DVec3::new(5.0, 0.0, 0.0));
    let cube = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(1.0)).build().unwrap());
    // from the origin along +x: the face x = 4, 4 away, its normal −x (outward), met in front
    let h = ray_cast(&cube, &pose, DVec3::new(0.0, 0.3, -0.2), DVec3::X, f64::INFINITY).value.unwrap();
    assert!((h.t - 4.0).abs() < 1e-12 && (h.normal + DVec3::X).length() < 1e-12 && h.front, "{h:?}");
    assert!((h.point - DVec3::new(4.0, 0.3, -0.2)).length() < 1e-12);
    // a direction of length 2 halves the parameter
    let h2 = ray_cast(&cube, &pose, DVec3::new(0.0, 0.3, -0.2), 2.0 * DVec3::X, f64::INFINITY).value.unwrap();
    assert!((h2.t - 2.0).abs() < 1e-12 && (h2.point - h.point).length() < 1e-12);
    // from inside: the far face, from behind
    let h = ray_cast(&cube, &pose, DVec3::new(5.0, 0.0, 0.0), DVec3::X, f64::INFINITY).value.unwrap();
    assert!((h.t - 1.0).abs() < 1e-12 && !h.front);
    // limited, pointing away, passing by
    assert!(ray_cast(&cube, &pose, DVec3::ZERO, DVec3::X, 3.9).value.is_none());
    assert!(ray_cast(&cube, &pose, DVec3::ZERO, DVec3::X, 4.0).value.is_some());
    assert!(ray_cast(&cube, &pose, DVec3::ZERO, -DVec3::X, f64::INFINITY).value.is_none());
    assert!(ray_cast(&cube, &pose, DVec3::new(0.0, 1.01, 0.0), DVec3::X, f64::INFINITY).value.is_none());
    // bad input: nothing, at once
    for (o, d, max) in [
        (DVec3::new(f64::NAN, 0.0, 0.0), DVec3::X, 1.0),
        (DVec3::ZERO, DVec3::ZERO, 1.0),
        (DVec3::ZERO, DVec3::new(f64::INFINITY, 0.0, 0.0), 1.0),
        (DVec3::ZERO, DVec3::X, f64::NAN),
        (DVec3::ZERO, DVec3::X, 0.0),
    ] {
        let r = ray_cast(&cube, &pose, o, d, max);
        assert!(r.value.is_none() && r.counters.bv_tests == 0);
    }
}

/// A ray grazing a flat sheet's plane, and one along its normal through a vertex shared by
/// six triangles: a hit at the vertex, on one of them.
#[test]
fn rays_through_a_vertex_and_along_a_plane() {
    let sheet = MeshBuilder::new().grid(Pose::IDENTITY, 2.0, 2.0, 4, 4).build().unwrap();
    let c = Collider::new(sheet);
    let h = ray_cast(&c, &Pose::IDENTITY, DVec3::new(0.0, 0.0, 3.0), -DVec3::Z, f64::INFINITY).value.unwrap();
    assert!((h.t - 3.0).abs() < 1e-12 && h.front);
    assert!(ray_cast(&c, &Pose::IDENTITY, DVec3::new(-3.0, 0.1, 0.0), DVec3::X, f64::INFINITY).value.is_none());
}
