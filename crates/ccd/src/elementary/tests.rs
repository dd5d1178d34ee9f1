use super::*;
use crate::Pose;
use glam::DQuat;
use proptest::prelude::*;

const TOL: Tolerance = Tolerance { scale: 10.0, contact: 1e-9 };

fn arb_vec(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn arb_screw() -> impl Strategy<Value = Screw> {
    let axis = arb_vec(1.0).prop_filter("axis", |v| v.length() > 0.1).prop_map(|v| v.normalize());
    let angle = prop_oneof![
        Just(0.0),
        0.0..std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_2..crate::motion::MAX_PIECE_ANGLE
    ];
    (axis, angle, arb_vec(2.0))
        .prop_map(|(axis, angle, t)| Screw::from_displacement(&Pose::new(DQuat::from_axis_angle(axis, angle), t)))
}

/// Independent reference: scan the signed function computed from *positions*
/// (`displacement_at`), bisect every sign change, accept the first where the primitives touch.
fn reference_time(signed: impl Fn(f64) -> f64, touching: impl Fn(f64) -> bool) -> Option<f64> {
    let n = 4000;
    let mut prev = signed(0.0);
    if prev == 0.0 && touching(0.0) {
        return Some(0.0);
    }
    for i in 1..=n {
        let t1 = i as f64 / n as f64;
        let f1 = signed(t1);
        if (f1 < 0.0) != (prev < 0.0) || f1 == 0.0 {
            let (mut lo, mut hi) = ((i - 1) as f64 / n as f64, t1);
            let flo = prev;
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if (signed(mid) < 0.0) == (flo < 0.0) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if touching(hi) {
                return Some(hi);
            }
        }
        prev = f1;
    }
    None
}

fn vf_reference(s: &Screw, x: DVec3, tri: &[DVec3; 3], n: DVec3) -> Option<f64> {
    let pos = |t: f64| s.displacement_at(t).transform_point(x);
    reference_time(
        |t| (pos(t) - tri[0]).dot(n),
        |t| {
            let p = pos(t);
            (p - closest_point_on_triangle(p, tri[0], tri[1], tri[2])).length() < 1e-7
        },
    )
}

fn ee_reference(s: &Screw, p: DVec3, q: DVec3, c: DVec3, d: DVec3) -> Option<f64> {
    let at = |t: f64| {
        let m = s.displacement_at(t);
        (m.transform_point(p), m.transform_point(q))
    };
    reference_time(
        |t| {
            let (a, b) = at(t);
            (a - c).dot((b - a).cross(d - c))
        },
        |t| {
            let (a, b) = at(t);
            let (_, _, x, y) = closest_points_segments(a, b, c, d);
            (x - y).length() < 1e-7
        },
    )
}

fn unit_normal(tri: &[DVec3; 3]) -> DVec3 {
    (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn vertex_face_matches_position_bisection(s in arb_screw(), x in arb_vec(2.0), tri in proptest::array::uniform3(arb_vec(2.0))) {
        prop_assume!((tri[1] - tri[0]).cross(tri[2] - tri[0]).length() > 0.1);
        let n = unit_normal(&tri);
        let got = vertex_face(&s, x, &tri, n, 1.0, &TOL).map(|h| s.t_of_z(h.z));
        let want = vf_reference(&s, x, &tri, n);
        match (got, want) {
            (Some(g), Some(w)) => prop_assert!((g - w).abs() < 1e-6, "got {g}, want {w}"),
            (None, None) => {}
            // Grazes (touching within the scan's resolution) may differ; anything else is a bug.
            (g, w) => {
                let t = g.or(w).unwrap();
                let p = s.displacement_at(t).transform_point(x);
                let d = (p - closest_point_on_triangle(p, tri[0], tri[1], tri[2])).length();
                prop_assert!(d < 1e-6, "got {g:?}, want {w:?}, distance at t: {d}");
            }
        }
    }

    #[test]
    fn face_vertex_matches_position_bisection(s in arb_screw(), a in arb_vec(2.0), tri in proptest::array::uniform3(arb_vec(2.0))) {
        prop_assume!((tri[1] - tri[0]).cross(tri[2] - tri[0]).length() > 0.1);
        let n = unit_normal(&tri);
        let got = face_vertex(&s, &s.inverse(), a, &tri, n, 1.0, &TOL);
        // reference: the moving triangle's plane against the fixed vertex, from positions
        let moved = |t: f64| tri.map(|p| s.displacement_at(t).transform_point(p));
        let want = reference_time(
            |t| { let m = moved(t); (a - m[0]).dot((m[1] - m[0]).cross(m[2] - m[0])) },
            |t| { let m = moved(t); (a - closest_point_on_triangle(a, m[0], m[1], m[2])).length() < 1e-7 },
        );
        match (got, want) {
            (Some(h), Some(w)) => {
                let g = s.t_of_z(h.z);
                prop_assert!((g - w).abs() < 1e-6, "got {g}, want {w}");
                prop_assert!((h.point - a).length() < 1e-12);
                // the normal is the moving face's normal at contact, up to orientation
                let m = moved(g);
                prop_assert!(h.normal.cross(unit_normal(&m)).length() < 1e-9);
            }
            (None, None) => {}
            (g, w) => {
                let t = g.map(|h| s.t_of_z(h.z)).or(w).unwrap();
                let m = moved(t);
                let d = (a - closest_point_on_triangle(a, m[0], m[1], m[2])).length();
                prop_assert!(d < 1e-6, "got {g:?}, want {w:?}, distance {d}");
            }
        }
    }

    #[test]
    fn edge_edge_matches_position_bisection(s in arb_screw(), e in proptest::array::uniform4(arb_vec(2.0))) {
        let (p, q, c, d) = (e[0], e[1], e[2], e[3]);
        prop_assume!((q - p).length() > 0.1 && (d - c).length() > 0.1);
        let got = edge_edge(&s, p, q, c, d, 1.0, &TOL).map(|h| s.t_of_z(h.z));
        let want = ee_reference(&s, p, q, c, d);
        match (got, want) {
            (Some(g), Some(w)) => prop_assert!((g - w).abs() < 1e-6, "got {g}, want {w}"),
            (None, None) => {}
            (g, w) => {
                let t = g.or(w).unwrap();
                let m = s.displacement_at(t);
                let (_, _, x, y) = closest_points_segments(m.transform_point(p), m.transform_point(q), c, d);
                prop_assert!((x - y).length() < 1e-6, "got {g:?}, want {w:?}");
            }
        }
    }

    /// Redon's reduction: the quintic det(A, Q, e) is W(z) times a cubic (motion.md (5.2)).
    #[test]
    fn edge_quintic_is_divisible_by_w(s in arb_screw(), e in proptest::array::uniform4(arb_vec(2.0))) {
        let (p, q, c, d) = (e[0], e[1], e[2], e[3]);
        let tt2 = s.tan_half() * s.tan_half();
        let pp = s.point_poly(p);
        let pq = s.point_poly(q);
        let a = [pp[0] - c, pp[1], pp[2] - tt2 * c, pp[3]];
        let qe = [(pq[0] - pp[0]).cross(d - c), (pq[1] - pp[1]).cross(d - c), (pq[2] - pp[2]).cross(d - c)];
        prop_assert!((pq[3] - pp[3]).length() < 1e-12);
        let coef = |k: usize| -> f64 {
            (0..4).flat_map(|i| (0..3).map(move |j| (i, j))).filter(|&(i, j)| i + j == k).map(|(i, j)| a[i].dot(qe[j])).sum()
        };
        let g2 = coef(2) - tt2 * coef(0);
        let g3 = coef(3) - tt2 * coef(1);
        // Rounding is relative to the terms that cancel, not to the result: each coefficient is
        // a sum of products |a_i|·|qe_j|, and the remainders weigh them by powers of tan²(θ/2),
        // which reaches hundreds near a half turn.
        let size = |k: usize| -> f64 {
            (0..4).flat_map(|i| (0..3).map(move |j| (i, j))).filter(|&(i, j)| i + j == k).map(|(i, j)| a[i].length() * qe[j].length()).sum()
        };
        let scale4 = 1.0 + size(4) + tt2 * size(2) + tt2 * tt2 * size(0);
        let scale5 = 1.0 + size(5) + tt2 * size(3) + tt2 * tt2 * size(1);
        prop_assert!((coef(4) - tt2 * g2).abs() < 1e-12 * scale4);
        prop_assert!((coef(5) - tt2 * g3).abs() < 1e-12 * scale5);
    }
}

fn big_triangle_in_plane_z(z: f64) -> [DVec3; 3] {
    [DVec3::new(-10.0, -10.0, z), DVec3::new(10.0, -10.0, z), DVec3::new(0.0, 10.0, z)]
}

#[test]
fn straight_translation_onto_a_face() {
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(0.0, 0.0, -4.0)));
    let tri = big_triangle_in_plane_z(1.0);
    let hit = vertex_face(&s, DVec3::new(0.0, 0.0, 2.0), &tri, DVec3::Z, 1.0, &TOL).unwrap();
    assert!((s.t_of_z(hit.z) - 0.25).abs() < 1e-15);
    assert_eq!(hit.normal, DVec3::Z); // came from above
    assert!((hit.point - DVec3::new(0.0, 0.0, 1.0)).length() < 1e-14);
    // from below: the normal flips to the side it came from
    let up = Screw::from_displacement(&Pose::from_translation(DVec3::new(0.0, 0.0, 4.0)));
    let hit = vertex_face(&up, DVec3::new(0.0, 0.0, -1.0), &tri, DVec3::Z, 1.0, &TOL).unwrap();
    assert!((up.t_of_z(hit.z) - 0.5).abs() < 1e-15);
    assert_eq!(hit.normal, -DVec3::Z);
    // stops short: no contact before z_max
    assert!(vertex_face(&s, DVec3::new(0.0, 0.0, 2.0), &tri, DVec3::Z, 0.2, &TOL).is_none());
}

#[test]
fn pure_rotation_about_a_known_axis() {
    // (1, 0, 0) turns about z by π/2; it meets the plane y = sin(0.3) at angle 0.3.
    let s = Screw::from_displacement(&Pose::from_rotation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2)));
    let y0 = 0.3f64.sin();
    let tri = [DVec3::new(-5.0, y0, -5.0), DVec3::new(5.0, y0, -5.0), DVec3::new(0.0, y0, 5.0)];
    let n = unit_normal(&tri);
    let hit = vertex_face(&s, DVec3::X, &tri, n, 1.0, &TOL).unwrap();
    assert!((s.t_of_z(hit.z) - 0.3 / std::f64::consts::FRAC_PI_2).abs() < 1e-14);
    // about an axis off the origin: rotation about the line x = 2, y = 0
    let s = Screw::from_displacement(&Pose::rotation_about(DVec3::new(2.0, 0.0, 0.0), DVec3::Z, 1.0));
    let hit =
        vertex_face(&s, DVec3::new(1.0, 0.0, 0.0), &tri.map(|p| p * DVec3::new(1.0, -1.0, 1.0)), n, 1.0, &TOL).unwrap();
    // the point at distance 1 from the axis reaches y = −sin(0.3) at angle 0.3
    assert!((s.t_of_z(hit.z) - 0.3).abs() < 1e-14);
}

#[test]
fn screw_with_translation_along_axis() {
    // rotation π/3 about z with 3 along z: a vertex at radius 1 rises through z = 1.5
    // when tan(wt/2)/tan(w/2) = 0.5.
    let w = std::f64::consts::FRAC_PI_3;
    let s = Screw::from_displacement(&Pose::new(DQuat::from_rotation_z(w), DVec3::new(0.0, 0.0, 3.0)));
    let hit = vertex_face(&s, DVec3::X, &big_triangle_in_plane_z(1.5), DVec3::Z, 1.0, &TOL).unwrap();
    let expected = 2.0 * (0.5 * (w / 2.0).tan()).atan() / w;
    assert!((s.t_of_z(hit.z) - expected).abs() < 1e-14);
}

#[test]
fn contact_at_start() {
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(1.0, 0.0, -1.0)));
    let hit = vertex_face(&s, DVec3::new(0.0, 0.0, 1.0), &big_triangle_in_plane_z(1.0), DVec3::Z, 1.0, &TOL).unwrap();
    assert_eq!(hit.z, 0.0);
    assert_eq!(hit.normal, DVec3::Z); // moving down: it came from above
    let hit = edge_edge(
        &s,
        DVec3::new(-1.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, -1.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        1.0,
        &TOL,
    )
    .unwrap();
    assert_eq!(hit.z, 0.0);
}

#[test]
fn motion_within_the_face_plane() {
    // the vertex slides in the plane z = 0 from outside the triangle across its edge x = 0
    let tri = [DVec3::new(0.0, -1.0, 0.0), DVec3::new(2.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 0.0)];
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(4.0, 0.0, 0.0)));
    let hit = vertex_face(&s, DVec3::new(-1.0, 0.0, 0.0), &tri, DVec3::Z, 1.0, &TOL).unwrap();
    assert!((s.t_of_z(hit.z) - 0.25).abs() < 1e-14);
    // rotating in the plane about z through (3, 0, 0): enters through the edge x + 2y = 2
    let s = Screw::from_displacement(&Pose::rotation_about(DVec3::new(3.0, 0.0, 0.0), DVec3::Z, 1.5));
    let hit = vertex_face(&s, DVec3::new(3.0, 2.0, 0.0), &tri, DVec3::Z, 1.0, &TOL).unwrap();
    let p = s.displacement_at(s.t_of_z(hit.z)).transform_point(DVec3::new(3.0, 2.0, 0.0));
    assert!((p.x + 2.0 * p.y - 2.0).abs() < 1e-12, "{p}");
    // starts inside: contact at 0
    let hit = vertex_face(&s, DVec3::new(0.5, 0.0, 0.0), &tri, DVec3::Z, 1.0, &TOL).unwrap();
    assert_eq!(hit.z, 0.0);
    // misses the triangle entirely
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(0.0, 4.0, 0.0)));
    assert!(vertex_face(&s, DVec3::new(-1.0, -2.0, 0.0), &tri, DVec3::Z, 1.0, &TOL).is_none());
}

#[test]
fn edges_crossing_under_translation() {
    // a horizontal edge along x dropping onto an edge along y
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(0.0, 0.0, -2.0)));
    let hit = edge_edge(
        &s,
        DVec3::new(-1.0, 0.2, 1.0),
        DVec3::new(1.0, 0.2, 1.0),
        DVec3::new(0.3, -1.0, 0.0),
        DVec3::new(0.3, 1.0, 0.0),
        1.0,
        &TOL,
    )
    .unwrap();
    assert!((s.t_of_z(hit.z) - 0.5).abs() < 1e-15);
    assert!((hit.point - DVec3::new(0.3, 0.2, 0.0)).length() < 1e-14);
    assert!((hit.normal - DVec3::Z).length() < 1e-14, "{}", hit.normal); // from fixed toward moving
    // same lines but the segments miss each other
    assert!(
        edge_edge(
            &s,
            DVec3::new(1.0, 0.2, 1.0),
            DVec3::new(2.0, 0.2, 1.0),
            DVec3::new(0.3, -1.0, 0.0),
            DVec3::new(0.3, 1.0, 0.0),
            1.0,
            &TOL
        )
        .is_none()
    );
}

#[test]
fn parallel_edges() {
    // Parallel throughout (translation): identically zero cubic, left to the vertex tests.
    let s = Screw::from_displacement(&Pose::from_translation(DVec3::new(0.0, 0.0, -2.0)));
    let (c, d) = (DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0));
    assert!(edge_edge(&s, c + DVec3::Z, d + DVec3::Z, c, d, 1.0, &TOL).is_none());
    // Parallel at one instant, far apart: the lines' determinant vanishes but they do not touch.
    let s = Screw::from_displacement(&Pose::from_rotation(DQuat::from_rotation_z(1.0)));
    let p = DVec3::new(0.0, 5.0, 3.0);
    let q = p + DQuat::from_rotation_z(-0.5) * DVec3::X;
    assert!(edge_edge(&s, p, q, c, d, 1.0, &TOL).is_none());
    // Parallel at the instant they touch: an edge above the fixed one turns about z while
    // sinking; it becomes parallel (t = 0.5, angle 0.5) exactly as it reaches height 0. The
    // cubic has a double root there, and the primitives overlap.
    let s_axial = -(0.5f64).tan() / (0.25f64).tan();
    let s = Screw::from_displacement(&Pose::new(DQuat::from_rotation_z(1.0), DVec3::new(0.0, 0.0, s_axial)));
    let dir = DQuat::from_rotation_z(-0.5) * DVec3::X;
    let (p, q) = (DVec3::Z - 0.5 * dir, DVec3::Z + 0.5 * dir);
    let hit = edge_edge(&s, p, q, c, d, 1.0, &TOL).expect("touching parallel edges");
    assert!((s.t_of_z(hit.z) - 0.5).abs() < 1e-6, "{}", s.t_of_z(hit.z));
    assert!(hit.normal.is_finite() && (hit.normal.length() - 1.0).abs() < 1e-12);
}
