//! Contacts on one flat face bind through the corners of their convex hull
//! (docs/contact-from-start.md §6).

use crate::contact::ContactPoint;
use glam::DVec3;

/// Normals closer than this (radians, as `1 − cos`) are one normal.
const SAME_NORMAL: f64 = 1e-18;

/// The rows to keep of `contacts` with right-hand sides `bounds`: every contact, except that
/// of the contacts of one pair of bodies sharing a normal, a plane through their points and a
/// bound, only the corners of their points' convex hull (points on its edges are dropped),
/// and of rows at the same points, one (two vertices that are each other's nearest point are
/// read once for each, docs/queries.md §6). `tolerance` is a length: planes and bounds closer
/// than it are the same.
pub fn corners(contacts: &[ContactPoint], bounds: &[f64], tolerance: f64) -> Vec<usize> {
    // Sorted by (bodies, bound, normal, plane), the rows of one group are consecutive unless a
    // rounding difference splits them; a split group keeps the corners of each part, which is
    // still exact, only less small.
    let plane = |k: usize| contacts[k].normal.dot(contacts[k].point_i);
    let key = |k: usize| {
        let c = &contacts[k];
        (c.body_i, c.body_j, bounds[k], c.normal.x, c.normal.y, c.normal.z, plane(k))
    };
    let mut order: Vec<usize> = (0..contacts.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (key(x), key(y));
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.total_cmp(&b.3))
            .then(a.4.total_cmp(&b.4))
            .then(a.5.total_cmp(&b.5))
            .then(a.6.total_cmp(&b.6))
    });
    let same = |x: usize, y: usize| {
        let (a, b) = (&contacts[x], &contacts[y]);
        (a.body_i, a.body_j) == (b.body_i, b.body_j)
            && (bounds[x] - bounds[y]).abs() <= tolerance
            && 1.0 - a.normal.dot(b.normal) <= SAME_NORMAL
            && (plane(x) - plane(y)).abs() <= tolerance
    };
    let mut keep = Vec::with_capacity(contacts.len());
    let mut run = 0;
    while run < order.len() {
        let mut end = run + 1;
        while end < order.len() && same(order[run], order[end]) {
            end += 1;
        }
        let group = &order[run..end];
        if group.len() <= 3 {
            let at = |g: usize| (contacts[g].point_i, contacts[g].point_j);
            for (n, &g) in group.iter().enumerate() {
                if !group[..n].iter().any(|&h| at(h) == at(g)) {
                    keep.push(g);
                }
            }
        } else {
            let points: Vec<DVec3> = group.iter().map(|&g| contacts[g].point_i).collect();
            keep.extend(hull_corners(&points, contacts[group[0]].normal).into_iter().map(|h| group[h]));
        }
        run = end;
    }
    keep.sort_unstable();
    keep
}

/// Indices of the corners of the convex hull of `points`, which lie in a plane of normal `n`
/// (Andrew's monotone chain in the plane's coordinates; collinear points are not corners).
pub fn hull_corners(points: &[DVec3], n: DVec3) -> Vec<usize> {
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let mut p: Vec<(f64, f64, usize)> = points.iter().enumerate().map(|(i, x)| (x.dot(u), x.dot(v), i)).collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    if p.len() < 3 {
        return p.iter().map(|q| q.2).collect();
    }
    let cross = |o: &(f64, f64, usize), a: &(f64, f64, usize), b: &(f64, f64, usize)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64, usize)> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64, usize)>> =
            if pass == 0 { Box::new(p.iter()) } else { Box::new(p.iter().rev()) };
        for q in iter {
            while hull.len() >= start + 2 && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], q) <= 0.0 {
                hull.pop();
            }
            hull.push(*q);
        }
        hull.pop(); // the last point starts the other chain
    }
    if hull.is_empty() {
        // Every point on one line: its two ends.
        return vec![p[0].2, p[p.len() - 1].2];
    }
    hull.iter().map(|q| q.2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mockup_ccd::ContactKind;
    use proptest::prelude::*;

    fn contact(point: DVec3, normal: DVec3, j: usize) -> ContactPoint {
        ContactPoint {
            body_i: 0,
            body_j: j,
            kind: ContactKind::VertexFace,
            feature_i: 0,
            feature_j: 0,
            point_i: point,
            point_j: point,
            normal,
            distance: 0.0,
            separation: 0.0,
            seated: false,
        }
    }

    #[test]
    fn a_grid_on_a_face_keeps_its_four_corners() {
        let mut cs = Vec::new();
        for x in 0..10 {
            for y in 0..10 {
                cs.push(contact(DVec3::new(x as f64, y as f64, 2.0), DVec3::Z, 1));
            }
        }
        let bounds = vec![0.0; cs.len()];
        let kept = corners(&cs, &bounds, 1e-9);
        let mut pts: Vec<(i64, i64)> = kept.iter().map(|&k| (cs[k].point_i.x as i64, cs[k].point_i.y as i64)).collect();
        pts.sort();
        assert_eq!(pts, vec![(0, 0), (0, 9), (9, 0), (9, 9)]);
    }

    #[test]
    fn rows_at_the_same_points_are_one() {
        let p = DVec3::new(1.0, 2.0, 3.0);
        let twice = [contact(p, DVec3::Z, 1), contact(p, DVec3::Z, 1), contact(p + DVec3::X, DVec3::Z, 1)];
        assert_eq!(corners(&twice, &[0.0; 3], 1e-9), vec![0, 2]);
    }

    #[test]
    fn other_normals_planes_bounds_and_bodies_are_kept_apart() {
        let mut cs = Vec::new();
        let mut bounds = Vec::new();
        for x in 0..5 {
            for (k, (n, h, b, j)) in [
                (DVec3::Z, 0.0, 0.0, 1),
                (DVec3::Z, 1.0, 0.0, 1),
                (DVec3::Z, 0.0, 0.5, 1),
                (DVec3::Z, 0.0, 0.0, 2),
                (DVec3::new(0.0, 1e-3, 1.0).normalize(), 0.0, 0.0, 1),
            ]
            .into_iter()
            .enumerate()
            {
                let _ = k;
                cs.push(contact(DVec3::new(x as f64, 0.0, h), n, j));
                bounds.push(b);
            }
        }
        // Each of the five groups is five collinear points: two ends each.
        assert_eq!(corners(&cs, &bounds, 1e-9).len(), 10);
    }

    proptest! {
        /// What the rows say: a motion that keeps every kept row keeps every row.
        #[test]
        fn the_kept_rows_imply_the_others(
            pts in proptest::collection::vec((-5.0..5.0f64, -5.0..5.0f64), 4..40),
            v in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
            w in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
        ) {
            let n = DVec3::new(0.3, -0.2, 1.0).normalize();
            let u = n.any_orthonormal_vector();
            let s = n.cross(u);
            let cs: Vec<ContactPoint> = pts.iter().map(|&(a, b)| contact(u * a + s * b + n * 0.7, n, 1)).collect();
            let bounds = vec![0.0; cs.len()];
            let kept = corners(&cs, &bounds, 1e-9);
            let (v, w) = (DVec3::new(v.0, v.1, v.2), DVec3::new(w.0, w.1, w.2));
            let row = |c: &ContactPoint| n.dot(v + w.cross(c.point_i));
            let min_kept = kept.iter().map(|&k| row(&cs[k])).fold(f64::INFINITY, f64::min);
            let min_all = cs.iter().map(row).fold(f64::INFINITY, f64::min);
            prop_assert!(min_kept <= min_all + 1e-9, "kept {min_kept} all {min_all}");
        }
    }
}
