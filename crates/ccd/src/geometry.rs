//! Closest points, triangle/triangle distance and the static triangle/triangle test; and
//! floats as integer sort keys.

use glam::{DVec2, DVec3};

/// Which part of a triangle a point lies on: a corner, the inside of side `i` (from corner
/// `i` to corner `i + 1`), or the inside of the face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleFeature {
    Vertex(usize),
    Edge(usize),
    Face,
}

/// `x` as an integer whose unsigned order is `f64::total_cmp`'s: the bits, with the sign bit
/// set for positive numbers and every bit flipped for negative ones. A sort key that compares
/// as one integer.
pub fn ordered_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Closest point of triangle `abc` to `p` (Ericson, *Real-Time Collision Detection* §5.1.5:
/// Voronoi regions of the vertices, edges and face).
pub fn closest_point_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    closest_feature_on_triangle(p, a, b, c).0
}

/// [`closest_point_on_triangle`] with the feature the point lies on. A point at a side's end
/// is named by the corner.
pub fn closest_feature_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> (DVec3, TriangleFeature) {
    // On side `i` at parameter `t` from its first corner: a corner (exactly) at either end.
    let corners = [a, b, c];
    let side = |i: usize, t: f64, x: DVec3| match on_side(i, t) {
        TriangleFeature::Vertex(k) => (corners[k], TriangleFeature::Vertex(k)),
        f => (x, f),
    };
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, TriangleFeature::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, TriangleFeature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return side(0, v, a + v * ab);
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, TriangleFeature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        // Side 2 runs from c to a.
        let w = d2 / (d2 - d6);
        return side(2, 1.0 - w, a + w * ac);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return side(1, w, b + w * (c - b));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), TriangleFeature::Face)
}

/// The feature at parameter `t` along side `i` of a triangle: a corner at either end.
fn on_side(i: usize, t: f64) -> TriangleFeature {
    if t <= 0.0 {
        TriangleFeature::Vertex(i)
    } else if t >= 1.0 {
        TriangleFeature::Vertex((i + 1) % 3)
    } else {
        TriangleFeature::Edge(i)
    }
}

/// Parameters `(s, t)` of the closest points of the lines through `p0 p1` and `q0 q1`, not
/// clamped to the segments; `None` when the lines are parallel within `|ê₁ × ê₂| ≤ 10⁻⁶`
/// (docs/contact-from-start.md §3, "A crossing at a vertex").
pub fn closest_params_lines(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> Option<(f64, f64)> {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    if d1.normalize_or_zero().cross(d2.normalize_or_zero()).length() <= 1e-6 {
        return None;
    }
    let (a, b, c, e, f) = (d1.dot(d1), d1.dot(d2), d1.dot(r), d2.dot(d2), d2.dot(r));
    let denom = a * e - b * b;
    Some(((b * f - c * e) / denom, (a * f - b * c) / denom))
}

/// Closest points of segments `p0 p1` and `q0 q1`: `(s, t, point_on_p, point_on_q)` with
/// parameters in `[0, 1]`. Parallel segments get one of their closest pairs.
pub fn closest_points_segments(p0: DVec3, p1: DVec3, q0: DVec3, q1: DVec3) -> (f64, f64, DVec3, DVec3) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t);
    if a <= f64::MIN_POSITIVE && e <= f64::MIN_POSITIVE {
        return (0.0, 0.0, p0, q0);
    }
    if a <= f64::MIN_POSITIVE {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= f64::MIN_POSITIVE {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > 1e-14 * a * e {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0 // parallel: any s, fixed below through t
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    (s, t, p0 + d1 * s, q0 + d2 * t)
}

/// Signed volume (×6) of the tetrahedron `abcd`: positive when `d` is on the side of `abc`
/// its right-handed normal points to.
fn orient(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).cross(c - a).dot(d - a)
}

fn segment_crosses_triangle(p: DVec3, q: DVec3, t: &[DVec3; 3]) -> bool {
    let dp = orient(t[0], t[1], t[2], p);
    let dq = orient(t[0], t[1], t[2], q);
    if (dp > 0.0 && dq > 0.0) || (dp < 0.0 && dq < 0.0) || (dp == 0.0 && dq == 0.0) {
        return false;
    }
    let s0 = orient(p, q, t[0], t[1]);
    let s1 = orient(p, q, t[1], t[2]);
    let s2 = orient(p, q, t[2], t[0]);
    (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) || (s0 <= 0.0 && s1 <= 0.0 && s2 <= 0.0)
}

fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

fn segments_cross_2d(p: DVec2, q: DVec2, a: DVec2, b: DVec2) -> bool {
    let d1 = cross2(q - p, a - p);
    let d2 = cross2(q - p, b - p);
    let d3 = cross2(b - a, p - a);
    let d4 = cross2(b - a, q - a);
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
        return true;
    }
    let on = |x: DVec2, y: DVec2, z: DVec2| {
        z.x >= x.x.min(y.x) && z.x <= x.x.max(y.x) && z.y >= x.y.min(y.y) && z.y <= x.y.max(y.y)
    };
    (d1 == 0.0 && on(p, q, a)) || (d2 == 0.0 && on(p, q, b)) || (d3 == 0.0 && on(a, b, p)) || (d4 == 0.0 && on(a, b, q))
}

fn inside_2d(p: DVec2, t: &[DVec2; 3]) -> bool {
    let s0 = cross2(t[1] - t[0], p - t[0]);
    let s1 = cross2(t[2] - t[1], p - t[1]);
    let s2 = cross2(t[0] - t[2], p - t[2]);
    (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) || (s0 <= 0.0 && s1 <= 0.0 && s2 <= 0.0)
}

fn coplanar_overlap(a: &[DVec3; 3], b: &[DVec3; 3], normal: DVec3) -> bool {
    // Drop the normal's dominant coordinate.
    let n = normal.abs();
    let project = |p: DVec3| {
        if n.x >= n.y && n.x >= n.z {
            DVec2::new(p.y, p.z)
        } else if n.y >= n.z {
            DVec2::new(p.z, p.x)
        } else {
            DVec2::new(p.x, p.y)
        }
    };
    let a2 = a.map(project);
    let b2 = b.map(project);
    for i in 0..3 {
        for j in 0..3 {
            if segments_cross_2d(a2[i], a2[(i + 1) % 3], b2[j], b2[(j + 1) % 3]) {
                return true;
            }
        }
    }
    inside_2d(a2[0], &b2) || inside_2d(b2[0], &a2)
}

/// Whether two triangles share a point (touching counts). Non-coplanar triangles meet iff an
/// edge of one crosses the other: the ends of their intersection segment lie on edges.
pub fn triangles_intersect(a: &[DVec3; 3], b: &[DVec3; 3]) -> bool {
    let nb = (b[1] - b[0]).cross(b[2] - b[0]);
    let da = a.map(|p| nb.dot(p - b[0]));
    if da.iter().all(|&d| d > 0.0) || da.iter().all(|&d| d < 0.0) {
        return false;
    }
    let na = (a[1] - a[0]).cross(a[2] - a[0]);
    let db = b.map(|p| na.dot(p - a[0]));
    if db.iter().all(|&d| d > 0.0) || db.iter().all(|&d| d < 0.0) {
        return false;
    }
    if da.iter().all(|&d| d == 0.0) {
        return coplanar_overlap(a, b, nb);
    }
    (0..3).any(|i| segment_crosses_triangle(a[i], a[(i + 1) % 3], b))
        || (0..3).any(|i| segment_crosses_triangle(b[i], b[(i + 1) % 3], a))
}

/// The closest points of two triangles (docs/queries.md §1.1), with the features they lie
/// on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleDistance {
    pub distance: f64,
    pub point_a: DVec3,
    pub point_b: DVec3,
    pub feature_a: TriangleFeature,
    pub feature_b: TriangleFeature,
    /// The triangles intersect and no vertex/triangle or edge/edge pair touches: an edge
    /// (`Edge` feature) crosses the other's face (`Face`) at `point_a == point_b`.
    pub crossing: bool,
}

/// Distance between triangles `a` and `b` (non-degenerate). Disjoint ones: the least of the
/// 6 vertex/triangle and 9 edge/edge distances; ties go to vertex/triangle pairs, A's
/// vertices first. Intersecting ones: 0, at a touching pair if one is found at distance 0,
/// else where an edge crosses the other face.
pub fn triangle_distance(a: &[DVec3; 3], b: &[DVec3; 3]) -> TriangleDistance {
    let mut best = TriangleDistance {
        distance: f64::INFINITY,
        point_a: a[0],
        point_b: b[0],
        feature_a: TriangleFeature::Vertex(0),
        feature_b: TriangleFeature::Vertex(0),
        crossing: false,
    };
    let mut consider = |point_a: DVec3, point_b: DVec3, feature_a, feature_b| {
        let distance = (point_a - point_b).length();
        if distance < best.distance {
            best = TriangleDistance { distance, point_a, point_b, feature_a, feature_b, crossing: false };
        }
    };
    for (i, &p) in a.iter().enumerate() {
        let (q, f) = closest_feature_on_triangle(p, b[0], b[1], b[2]);
        consider(p, q, TriangleFeature::Vertex(i), f);
    }
    for (j, &q) in b.iter().enumerate() {
        let (p, f) = closest_feature_on_triangle(q, a[0], a[1], a[2]);
        consider(p, q, f, TriangleFeature::Vertex(j));
    }
    for i in 0..3 {
        for j in 0..3 {
            let (s, t, p, q) = closest_points_segments(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
            let (fa, fb) = (on_side(i, s), on_side(j, t));
            // At a segment's end the point is the corner itself, not `p0 + (p1 − p0)·1`.
            let exact = |f: TriangleFeature, t: &[DVec3; 3], x: DVec3| match f {
                TriangleFeature::Vertex(k) => t[k],
                _ => x,
            };
            consider(exact(fa, a, p), exact(fb, b, q), fa, fb);
        }
    }
    if best.distance > 0.0
        && triangles_intersect(a, b)
        && let Some(c) = edge_crossing(a, b)
    {
        return c;
    }
    best
}

/// Where an edge of one triangle crosses the other (not coplanar): the first such edge, A's
/// first.
fn edge_crossing(a: &[DVec3; 3], b: &[DVec3; 3]) -> Option<TriangleDistance> {
    let cross = |e: &[DVec3; 3], f: &[DVec3; 3]| {
        (0..3).find_map(|i| {
            let (p, q) = (e[i], e[(i + 1) % 3]);
            if !segment_crosses_triangle(p, q, f) {
                return None;
            }
            let (dp, dq) = (orient(f[0], f[1], f[2], p), orient(f[0], f[1], f[2], q));
            let t = (dp / (dp - dq)).clamp(0.0, 1.0);
            Some((i, p + (q - p) * t))
        })
    };
    let found = |point: DVec3, feature_a, feature_b| TriangleDistance {
        distance: 0.0,
        point_a: point,
        point_b: point,
        feature_a,
        feature_b,
        crossing: true,
    };
    if let Some((i, x)) = cross(a, b) {
        return Some(found(x, TriangleFeature::Edge(i), TriangleFeature::Face));
    }
    cross(b, a).map(|(j, x)| found(x, TriangleFeature::Face, TriangleFeature::Edge(j)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The integer keys order as `f64::total_cmp` does, signed zeros, infinities and NaNs too.
    #[test]
    fn ordered_bits_is_total_cmp() {
        let mut xs = vec![0.0, -0.0, 1.0, -1.0, f64::MIN_POSITIVE, -f64::MIN_POSITIVE, 5e-324, -5e-324];
        xs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, f64::MAX, f64::MIN, 0.1, -0.1, 1.0 + 1e-16]);
        let mut seed = 7u64;
        xs.extend((0..200).map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            ((seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * 10f64.powi((seed % 40) as i32 - 20)
        }));
        for &a in &xs {
            for &b in &xs {
                assert_eq!(ordered_bits(a).cmp(&ordered_bits(b)), a.total_cmp(&b), "{a:e} {b:e}");
            }
        }
    }

    fn arb_point() -> impl Strategy<Value = DVec3> {
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn brute_triangle_point(p: DVec3, t: &[DVec3; 3]) -> f64 {
        let n = 300;
        let mut best = f64::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let q = t[0] + u * (t[1] - t[0]) + v * (t[2] - t[0]);
                best = best.min((p - q).length());
            }
        }
        best
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn point_triangle_against_sampling(p in arb_point(), a in arb_point(), b in arb_point(), c in arb_point()) {
            prop_assume!((b - a).cross(c - a).length() > 1e-3);
            let q = closest_point_on_triangle(p, a, b, c);
            let brute = brute_triangle_point(p, &[a, b, c]);
            prop_assert!((p - q).length() <= brute + 1e-12);
            prop_assert!((p - q).length() >= brute - 0.02);
        }

        #[test]
        fn segment_segment_against_sampling(p0 in arb_point(), p1 in arb_point(), q0 in arb_point(), q1 in arb_point()) {
            let (s, t, x, y) = closest_points_segments(p0, p1, q0, q1);
            prop_assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
            let n = 400;
            let mut best = f64::INFINITY;
            for i in 0..=n {
                let a = p0 + (p1 - p0) * (i as f64 / n as f64);
                let (_, _, _, b) = closest_points_segments(a, a, q0, q1);
                best = best.min((a - b).length());
            }
            prop_assert!((x - y).length() <= best + 1e-12);
            prop_assert!((x - y).length() >= best - 0.01);
        }

        /// The lines' closest parameters: the difference of the points is square to both
        /// lines (analytic: the closest pair's offset is their common normal), and where both
        /// lie inside the segments they are the segments' closest points.
        #[test]
        fn lines_closest_params_are_square_to_both(p0 in arb_point(), p1 in arb_point(), q0 in arb_point(), q1 in arb_point()) {
            let (d1, d2) = (p1 - p0, q1 - q0);
            prop_assume!(d1.length() > 1e-3 && d2.length() > 1e-3);
            let Some((s, t)) = closest_params_lines(p0, p1, q0, q1) else {
                prop_assert!(d1.normalize().cross(d2.normalize()).length() <= 1e-6);
                return Ok(());
            };
            let gap = (p0 + d1 * s) - (q0 + d2 * t);
            let sine = d1.normalize().cross(d2.normalize()).length();
            prop_assert!(gap.dot(d1.normalize()).abs() <= 1e-9 / sine && gap.dot(d2.normalize()).abs() <= 1e-9 / sine);
            if s > 1e-6 && s < 1.0 - 1e-6 && t > 1e-6 && t < 1.0 - 1e-6 {
                let (u, v, _, _) = closest_points_segments(p0, p1, q0, q1);
                prop_assert!((u - s).abs() < 1e-6 && (v - t).abs() < 1e-6);
            }
        }

        /// Triangle intersection against a sampling check: when sampled points of one
        /// triangle come within a hair of the other, they must intersect; when the triangles
        /// are clearly apart, they must not.
        #[test]
        fn triangle_intersection_against_distance(a in proptest::array::uniform3(arb_point()), b in proptest::array::uniform3(arb_point())) {
            let hit = triangles_intersect(&a, &b);
            prop_assert_eq!(hit, triangles_intersect(&b, &a));
            // distance between triangles = min over edge/triangle closest points
            let mut dist = f64::INFINITY;
            for (x, y) in [(&a, &b), (&b, &a)] {
                for i in 0..3 {
                    let (p, q) = (x[i], x[(i + 1) % 3]);
                    for k in 0..=200 {
                        let s = p + (q - p) * (k as f64 / 200.0);
                        dist = dist.min((s - closest_point_on_triangle(s, y[0], y[1], y[2])).length());
                    }
                }
            }
            if dist > 1e-2 { prop_assert!(!hit); }
            if hit { prop_assert!(dist < 1e-2); }
        }
    }

    fn arb_triangle() -> impl Strategy<Value = [DVec3; 3]> {
        proptest::array::uniform3(arb_point()).prop_filter("area", |t| (t[1] - t[0]).cross(t[2] - t[0]).length() > 1e-3)
    }

    fn segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
        (p - closest_points_segments(p, p, a, b).3).length()
    }

    /// Where a feature says the point is, it is.
    fn on_feature(x: DVec3, t: &[DVec3; 3], f: TriangleFeature) -> bool {
        match f {
            TriangleFeature::Vertex(i) => x == t[i],
            TriangleFeature::Edge(i) => segment_distance(x, t[i], t[(i + 1) % 3]) < 1e-12,
            // On the plane to rounding, and inside: the closest point's own rounding grows on a
            // sliver (1.5e-12 off a crossing point that lies exactly on a sliver's plane).
            TriangleFeature::Face => {
                let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
                (x - t[0]).dot(n).abs() < 1e-12 && (x - closest_point_on_triangle(x, t[0], t[1], t[2])).length() < 1e-10
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Triangle/triangle distance against sampling: the closest pair of two disjoint
        /// triangles has a point on an edge of one (docs/queries.md §1.1), so sampling every
        /// edge of both and projecting on the other triangle brackets the distance. The
        /// points lie on the features named, and intersecting triangles are at 0.
        #[test]
        fn triangle_distance_against_sampling(a in arb_triangle(), b in arb_triangle(), lift in -0.5..1.5f64) {
            let b = b.map(|p| p + DVec3::Z * lift);
            let d = triangle_distance(&a, &b);
            prop_assert!(((d.point_a - d.point_b).length() - d.distance).abs() < 1e-15);
            prop_assert!(on_feature(d.point_a, &a, d.feature_a), "{:?}", d);
            prop_assert!(on_feature(d.point_b, &b, d.feature_b), "{:?}", d);
            let n = 200;
            let mut sampled = f64::INFINITY;
            for (x, y) in [(&a, &b), (&b, &a)] {
                for i in 0..3 {
                    for k in 0..=n {
                        let s = x[i].lerp(x[(i + 1) % 3], k as f64 / n as f64);
                        sampled = sampled.min((s - closest_point_on_triangle(s, y[0], y[1], y[2])).length());
                    }
                }
            }
            let meet = triangles_intersect(&a, &b);
            if meet {
                prop_assert!(d.distance < 1e-12, "{:?}", d);
            } else {
                prop_assert!(d.distance > 0.0);
                prop_assert!(d.distance <= sampled + 1e-12);
                prop_assert!(d.distance >= sampled - 0.02);
            }
            if d.crossing {
                prop_assert!(meet && d.distance == 0.0 && d.point_a == d.point_b);
                let kinds = (d.feature_a, d.feature_b);
                prop_assert!(matches!(kinds, (TriangleFeature::Edge(_), TriangleFeature::Face) | (TriangleFeature::Face, TriangleFeature::Edge(_))));
            }
            prop_assert!((triangle_distance(&b, &a).distance - d.distance).abs() < 1e-12);
        }
    }

    #[test]
    fn triangle_distance_cases() {
        let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
        // parallel, above the inside: a vertex over the face
        let above = [DVec3::new(0.2, 0.2, 0.5), DVec3::new(2.0, 0.2, 0.5), DVec3::new(0.2, 2.0, 0.5)];
        let d = triangle_distance(&t, &above);
        assert!((d.distance - 0.5).abs() < 1e-15 && !d.crossing);
        assert_eq!((d.feature_a, d.feature_b), (TriangleFeature::Face, TriangleFeature::Vertex(0)));
        // skew edges over each other: edge (0, 1) of t and a segment across it 0.3 above
        let skew = [DVec3::new(0.5, -1.0, 0.3), DVec3::new(0.5, 1.0, 0.3), DVec3::new(0.5, 0.0, 2.0)];
        let d = triangle_distance(&t, &skew);
        // the segment crosses above the face: its closest point to t is over the inside
        assert!((d.distance - 0.3).abs() < 1e-12, "{d:?}");
        let ridge = [DVec3::new(0.5, -1.0, 0.3), DVec3::new(0.5, -0.5, 0.3), DVec3::new(0.5, -0.75, 2.0)];
        let d = triangle_distance(&t, &ridge);
        assert!((d.distance - (0.5f64.powi(2) + 0.3f64.powi(2)).sqrt()).abs() < 1e-12, "{d:?}");
        assert_eq!((d.feature_a, d.feature_b), (TriangleFeature::Edge(0), TriangleFeature::Vertex(1)));
        // edges touching across each other: B's side 0 passes through (0.5, 0, 0) on side 0
        let touch = [DVec3::new(0.5, -0.5, -0.5), DVec3::new(0.5, 0.5, 0.5), DVec3::new(0.5, -1.0, 1.0)];
        let d = triangle_distance(&t, &touch);
        assert!(d.distance < 1e-15 && !d.crossing, "{d:?}");
        assert_eq!((d.feature_a, d.feature_b), (TriangleFeature::Edge(0), TriangleFeature::Edge(0)));
        // piercing: an edge of the vertical triangle through the middle
        let pierce = [DVec3::new(0.2, 0.2, -1.0), DVec3::new(0.3, 0.2, 1.0), DVec3::new(0.25, 0.3, 1.0)];
        let d = triangle_distance(&t, &pierce);
        assert!(d.crossing && d.distance == 0.0);
        assert_eq!((d.feature_a, d.feature_b), (TriangleFeature::Face, TriangleFeature::Edge(0)));
        assert!((d.point_a - DVec3::new(0.25, 0.2, 0.0)).length() < 1e-15);
        // touching at a vertex: a touch, not a crossing
        let touch = [DVec3::new(0.25, 0.25, 0.0), DVec3::new(0.25, 0.25, 1.0), DVec3::new(1.0, 1.0, 1.0)];
        let d = triangle_distance(&t, &touch);
        assert!(d.distance == 0.0 && !d.crossing);
        assert_eq!((d.feature_a, d.feature_b), (TriangleFeature::Face, TriangleFeature::Vertex(0)));
    }

    #[test]
    fn coplanar_and_touching_cases() {
        let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let inside = [DVec3::new(0.1, 0.1, 0.0), DVec3::new(0.2, 0.1, 0.0), DVec3::new(0.1, 0.2, 0.0)];
        assert!(triangles_intersect(&t, &inside));
        let apart = inside.map(|p| p + DVec3::new(2.0, 0.0, 0.0));
        assert!(!triangles_intersect(&t, &apart));
        let crossing = [DVec3::new(-0.5, 0.2, 0.0), DVec3::new(1.5, 0.2, 0.0), DVec3::new(0.5, -1.0, 0.0)];
        assert!(triangles_intersect(&t, &crossing));
        // piercing: a vertical triangle through the middle
        let pierce = [DVec3::new(0.2, 0.2, -1.0), DVec3::new(0.3, 0.2, 1.0), DVec3::new(0.2, 0.3, 1.0)];
        assert!(triangles_intersect(&t, &pierce));
        // above, parallel
        let above = t.map(|p| p + DVec3::Z * 0.1);
        assert!(!triangles_intersect(&t, &above));
        // touching at a vertex
        let touch = [DVec3::new(0.25, 0.25, 0.0), DVec3::new(0.25, 0.25, 1.0), DVec3::new(1.0, 1.0, 1.0)];
        assert!(triangles_intersect(&t, &touch));
    }
}
