//! Polygons of OBJ faces into triangles. A convex polygon is fanned from its first corner (what
//! every exporter expects); a concave one is cut by ear clipping, because a fan would put
//! triangles outside the face, and the collision tests would see surface that is not there.

use glam::{DVec2, DVec3};

/// Triangles of a planar polygon as index triples into `points`, wound as the polygon is.
/// `None` for a polygon that crosses itself (it winds more than once, or ear clipping finds
/// no ear): the caller fans it.
pub fn triangulate(points: &[DVec3]) -> Option<Vec<[usize; 3]>> {
    let n = points.len();
    if n <= 3 {
        return Some(fan(n));
    }
    // Newell's normal: the polygon's area vector, robust to collinear corners.
    let normal: DVec3 = (0..n).map(|i| points[i].cross(points[(i + 1) % n])).sum();
    if normal.length_squared() == 0.0 || !normal.is_finite() {
        return Some(fan(n));
    }
    let (u, v) = plane_axes(normal);
    let origin = points[0];
    let flat: Vec<DVec2> = points.iter().map(|&p| DVec2::new((p - origin).dot(u), (p - origin).dot(v))).collect();
    // In (u, v) the polygon winds counter-clockwise (u × v = normal's direction).
    let turn = |a: usize, b: usize, c: usize| (flat[b] - flat[a]).perp_dot(flat[c] - flat[b]);
    // A simple polygon turns once in all (2π); one that winds twice or more, like a
    // pentagram, crosses itself even when every corner turns the same way.
    let (mut total, mut convex) = (0.0, true);
    for i in 0..n {
        let (d0, d1) = (flat[i] - flat[(i + n - 1) % n], flat[(i + 1) % n] - flat[i]);
        total += d0.perp_dot(d1).atan2(d0.dot(d1));
        convex &= d0.perp_dot(d1) >= 0.0;
    }
    if total.abs() > 3.0 * std::f64::consts::PI {
        return None;
    }
    if convex {
        return Some(fan(n));
    }
    let mut left: Vec<usize> = (0..n).collect();
    let mut triangles = Vec::with_capacity(n - 2);
    while left.len() > 3 {
        let m = left.len();
        let ear = (0..m).find(|&k| {
            let (a, b, c) = (left[(k + m - 1) % m], left[k], left[(k + 1) % m]);
            turn(a, b, c) > 0.0
                && left.iter().all(|&p| p == a || p == b || p == c || !inside(flat[p], flat[a], flat[b], flat[c]))
        })?;
        triangles.push([left[(ear + m - 1) % m], left[ear], left[(ear + 1) % m]]);
        left.remove(ear);
    }
    triangles.push([left[0], left[1], left[2]]);
    Some(triangles)
}

/// The fan from the first corner of an `n`-gon.
pub fn fan(n: usize) -> Vec<[usize; 3]> {
    (1..n.max(2) - 1).map(|k| [0, k, k + 1]).collect()
}

/// Two unit axes of the plane with normal `n`, ordered so that `u × v` points along `n`.
fn plane_axes(n: DVec3) -> (DVec3, DVec3) {
    let n = n.normalize();
    let u = n.any_orthonormal_vector();
    (u, n.cross(u))
}

/// `p` strictly inside the counter-clockwise triangle `abc`. A corner on an ear's boundary
/// (collinear corners, repeated points) does not block it: cutting there leaves no overlap.
fn inside(p: DVec2, a: DVec2, b: DVec2, c: DVec2) -> bool {
    (b - a).perp_dot(p - a) > 0.0 && (c - b).perp_dot(p - b) > 0.0 && (a - c).perp_dot(p - c) > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[DVec3], tris: &[[usize; 3]]) -> DVec3 {
        tris.iter().map(|t| 0.5 * (points[t[1]] - points[t[0]]).cross(points[t[2]] - points[t[0]])).sum()
    }

    /// Whether the triangle `t` of `points` covers `c` (all in the plane of normal `n`).
    fn covers(points: &[DVec3], t: [usize; 3], c: DVec3, n: DVec3) -> bool {
        let [a, b, d] = t.map(|i| points[i]);
        let s = [(a, b), (b, d), (d, a)].map(|(p, q)| (q - p).cross(c - p).dot(n));
        s.iter().all(|&x| x > 0.0) || s.iter().all(|&x| x < 0.0)
    }

    /// An L-shaped hexagon, tilted in space: the fan from its first corner covers part of
    /// the missing square; the ears do not.
    #[test]
    fn a_concave_face_is_cut_into_ears_inside_it() {
        let flat = [(2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0), (0.0, 0.0)];
        let (u, v) = (DVec3::new(1.0, 0.0, 1.0).normalize(), DVec3::Y);
        let at = |x: f64, y: f64| DVec3::new(5.0, -1.0, 2.0) + x * u + y * v;
        let points: Vec<DVec3> = flat.iter().map(|&(x, y)| at(x, y)).collect();
        let tris = triangulate(&points).unwrap();
        assert_eq!(tris.len(), 4);
        // Same total area vector as the polygon (3 units, along u × v), every triangle wound
        // like the face: no overlap, no gap.
        let want = 3.0 * u.cross(v);
        assert!((area(&points, &tris) - want).length() < 1e-12);
        let notch = at(1.2, 1.2);
        for &t in &tris {
            assert!(area(&points, &[t]).dot(want) > 0.0, "{t:?} is wound against the face");
            assert!(!covers(&points, t, notch, want), "{t:?} covers the notch");
        }
        let fan: Vec<[usize; 3]> = (1..5).map(|k| [0, k, k + 1]).collect();
        assert!(fan.iter().any(|&t| covers(&points, t, notch, want)), "the fan was the problem");
        // Extra corners on the edges (collinear, as exporters leave them) change nothing.
        let mut more = points.clone();
        more.insert(5, at(0.0, 1.0));
        more.insert(1, at(2.0, 0.5));
        more.insert(0, at(1.0, 0.0));
        let tris = triangulate(&more).unwrap();
        assert_eq!(tris.len(), more.len() - 2);
        assert!((area(&more, &tris) - want).length() < 1e-12);
        for &t in &tris {
            assert!(area(&more, &[t]).dot(want) >= -1e-15 && !covers(&more, t, notch, want), "{t:?}");
        }
    }

    proptest::proptest! {
        /// Star-shaped polygons (simple, mostly concave) anywhere in space: n − 2 triangles,
        /// each wound like the polygon, adding up to its area vector.
        #[test]
        fn simple_polygons_are_covered_exactly(
            radii in proptest::collection::vec(0.2..2.0f64, 4..14),
            tilt in proptest::array::uniform3(-1.0..1.0f64),
            reversed in proptest::bool::ANY,
        ) {
            let n = radii.len();
            let axis = DVec3::from(tilt) + DVec3::new(0.0, 0.0, 1.5);
            let (u, v) = plane_axes(axis);
            let mut points: Vec<DVec3> = radii
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let a = std::f64::consts::TAU * i as f64 / n as f64;
                    DVec3::new(1.0, 2.0, 3.0) + r * (a.cos() * u + a.sin() * v)
                })
                .collect();
            if reversed {
                points.reverse();
            }
            let want: DVec3 = 0.5 * (0..n).map(|i| points[i].cross(points[(i + 1) % n])).sum::<DVec3>();
            let tris = triangulate(&points).unwrap();
            proptest::prop_assert_eq!(tris.len(), n - 2);
            proptest::prop_assert!((area(&points, &tris) - want).length() < 1e-9);
            for &t in &tris {
                proptest::prop_assert!(area(&points, &[t]).dot(want) >= -1e-12, "{:?} wound against the face", t);
            }
        }
    }

    #[test]
    fn convex_faces_are_fanned_and_both_windings_work() {
        let square = [DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y];
        assert_eq!(triangulate(&square).unwrap(), vec![[0, 1, 2], [0, 2, 3]]);
        // A concave quad wound clockwise (normal −z) keeps its winding; the fan from its
        // first corner would cover the reflex corner (0.3, 0.3).
        let dart = [DVec3::ZERO, DVec3::new(0.3, 1.0, 0.0), DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.3, 0.3, 0.0)];
        let tris = triangulate(&dart).unwrap();
        assert_eq!(tris.len(), 2);
        assert!((area(&dart, &tris) - DVec3::new(0.0, 0.0, -0.35)).length() < 1e-12);
        for t in &tris {
            assert!(area(&dart, &[*t]).z < 0.0, "{t:?}");
        }
        assert_ne!(tris, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn degenerate_polygons_are_fanned() {
        // Collinear corners (no area) and a bow tie (its two lobes cancel): nothing to cut.
        let line = [DVec3::ZERO, DVec3::X, 2.0 * DVec3::X, 3.0 * DVec3::X];
        assert_eq!(triangulate(&line).unwrap().len(), 2);
        let bow = [DVec3::ZERO, DVec3::new(2.0, 2.0, 0.0), DVec3::new(2.0, 0.0, 0.0), DVec3::new(0.0, 2.0, 0.0)];
        assert_eq!(triangulate(&bow).unwrap(), vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn a_pentagram_crosses_itself() {
        // Every corner turns left, but the outline winds twice around its centre.
        let star: Vec<DVec3> = (0..5)
            .map(|k| {
                let a = std::f64::consts::TAU * (2 * k) as f64 / 5.0;
                DVec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        assert!(triangulate(&star).is_none());
        let pentagon: Vec<DVec3> = (0..5)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 5.0;
                DVec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        assert_eq!(triangulate(&pentagon).unwrap().len(), 3);
    }
}
