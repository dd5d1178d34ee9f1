//! Contacts on one flat face bind through the corners of their convex hull
//! (docs/contact-from-start.md §6).

use crate::contact::ContactPoint;
use glam::DVec3;
use mockup_ccd::geometry::ordered_bits;
use std::collections::HashMap;

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
    let order = group_order(contacts, bounds);
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

/// The contacts' indices sorted by (bodies, bound, normal, plane), ties by index.
fn group_order(contacts: &[ContactPoint], bounds: &[f64]) -> Vec<usize> {
    // Most rows share their bodies, bound and normal with thousands of others (one face's
    // contacts), so those are ranked once, each distinct one, and the rows sorted by (rank,
    // plane, index) packed into one integer, the floats as integers ordered as `total_cmp`
    // orders them: the same order as comparing the fields, in a third of the time (50,000
    // rows of a base plate: 5.6 ms, docs/benchmarks.md "Stop 55").
    type Prefix = (usize, usize, [u64; 4]);
    let prefix = |k: usize| -> Prefix {
        let c = &contacts[k];
        (c.body_i, c.body_j, [bounds[k], c.normal.x, c.normal.y, c.normal.z].map(ordered_bits))
    };
    let mut ids: HashMap<Prefix, u32, foldhash::fast::FixedState> = HashMap::default();
    let mut distinct: Vec<Prefix> = Vec::new();
    let mut last: Option<(Prefix, u32)> = None;
    let id_of: Vec<u32> = (0..contacts.len())
        .map(|k| {
            let p = prefix(k);
            if let Some((q, id)) = last
                && q == p
            {
                return id;
            }
            let id = *ids.entry(p).or_insert_with(|| {
                distinct.push(p);
                distinct.len() as u32 - 1
            });
            last = Some((p, id));
            id
        })
        .collect();
    let mut by_prefix: Vec<u32> = (0..distinct.len() as u32).collect();
    by_prefix.sort_unstable_by_key(|&id| distinct[id as usize]);
    let mut rank = vec![0u32; distinct.len()];
    for (r, &id) in by_prefix.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    // Ranks and indices in 32 bits each: 2³² rows would be hundreds of gigabytes.
    debug_assert!(contacts.len() <= u32::MAX as usize && distinct.len() <= u32::MAX as usize);
    let mut keys: Vec<u128> = (0..contacts.len())
        .map(|k| {
            let c = &contacts[k];
            let plane = ordered_bits(c.normal.dot(c.point_i)) as u128;
            (rank[id_of[k] as usize] as u128) << 96 | plane << 32 | k as u128
        })
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|key| (key as u32) as usize).collect()
}

/// Indices of the corners of the convex hull of `points`, which lie in a plane of normal `n`
/// (Andrew's monotone chain in the plane's coordinates; collinear points are not corners).
pub fn hull_corners(points: &[DVec3], n: DVec3) -> Vec<usize> {
    hull_corners_filtered(points, n, true)
}

/// [`hull_corners`], with the points deep inside dropped first or (`filter` false, the tests'
/// reference) not.
fn hull_corners_filtered(points: &[DVec3], n: DVec3, filter: bool) -> Vec<usize> {
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    // `+ 0.0` makes −0 +0, so that equal points are neighbours in the sort whatever else is
    // in the list (dropping the points inside must not change which of two equal ones is kept).
    let at: Vec<(f64, f64)> = points.iter().map(|x| (x.dot(u) + 0.0, x.dot(v) + 0.0)).collect();
    let inside = if filter { deep_inside(&at) } else { Vec::new() };
    // Sorted by (u, v, index) as integers (`ordered_bits`): a stable sort by (u, v), faster.
    let mut keys: Vec<(u64, u64, usize)> = at
        .iter()
        .enumerate()
        .filter(|&(i, _)| !inside.get(i).copied().unwrap_or(false))
        .map(|(i, &(a, b))| (ordered_bits(a), ordered_bits(b), i))
        .collect();
    keys.sort_unstable();
    let mut p: Vec<(f64, f64, usize)> = keys.into_iter().map(|(_, _, i)| (at[i].0, at[i].1, i)).collect();
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

/// Which of the points lie inside the polygon of their extreme points in eight directions by
/// more than rounding can move a turn's sign: no such point is a corner of their hull, so the
/// hull is built without them (Akl and Toussaint's filter; a face's grid of contacts keeps
/// only its rim, docs/contact-from-start.md §6). Empty for a few points.
fn deep_inside(at: &[(f64, f64)]) -> Vec<bool> {
    if at.len() < 64 {
        return Vec::new();
    }
    // The point farthest along each of eight directions in turn (counter-clockwise), the
    // first on ties: corners of a convex polygon inside the hull, in order.
    let dirs = [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (-1.0, 1.0), (-1.0, 0.0), (-1.0, -1.0), (0.0, -1.0), (1.0, -1.0)];
    let mut best = [(f64::NEG_INFINITY, 0usize); 8];
    let mut size: f64 = 0.0;
    for (i, &(a, b)) in at.iter().enumerate() {
        if !(a.is_finite() && b.is_finite()) {
            // Not a number, or infinite: the turns are not numbers either, and what the chain
            // makes of them is not a hull to keep equal; nothing is dropped.
            return Vec::new();
        }
        size = size.max(a.abs()).max(b.abs());
        for (k, &(x, y)) in dirs.iter().enumerate() {
            let d = x * a + y * b;
            if d > best[k].0 {
                best[k] = (d, i);
            }
        }
    }
    let mut poly: Vec<(f64, f64)> = best.iter().map(|&(_, i)| at[i]).collect();
    poly.dedup();
    while poly.len() > 1 && poly.first() == poly.last() {
        poly.pop();
    }
    // A turn's cross product is off by a few ulps of size²; far more than that inside is inside
    // (for sizes whose square is a normal number: below, the margin rounds away).
    let margin = 1e-9 * size * size;
    if poly.len() < 3 || !margin.is_normal() {
        return Vec::new();
    }
    let cross = |o: (f64, f64), a: (f64, f64), p: (f64, f64)| (a.0 - o.0) * (p.1 - o.1) - (a.1 - o.1) * (p.0 - o.0);
    at.iter().map(|&p| (0..poly.len()).all(|k| cross(poly[k], poly[(k + 1) % poly.len()], p) > margin)).collect()
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

    /// Two equal points, one at −0 and one at +0 in the plane's first coordinate, with deep
    /// points between them in the sort: dropped, the two became neighbours and the other one
    /// was kept (a review's case; `+ 0.0` makes them neighbours either way).
    #[test]
    fn signed_zeros_do_not_change_which_point_is_kept() {
        let mut pts = vec![DVec3::new(10.0, -0.0, 2.0), DVec3::new(10.0, 0.0, 2.0)];
        pts.extend([DVec3::new(0.0, -10.0, 2.0), DVec3::new(0.0, 10.0, 2.0), DVec3::new(-10.0, 0.0, 2.0)]);
        pts.extend((1..10).map(|x| DVec3::new(x as f64, -0.0, 2.0)));
        for x in -4..4 {
            for y in (1..=5).flat_map(|y| [y, -y]) {
                pts.push(DVec3::new(x as f64, y as f64, 2.0));
            }
        }
        assert!(pts.len() >= 64 && deep_inside(&pts.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>()).contains(&true));
        assert_eq!(hull_corners(&pts, DVec3::Z), hull_corners_filtered(&pts, DVec3::Z, false));
    }

    proptest! {
        /// Dropping the points deep inside first changes no corner: random points, and grids
        /// (one face's contacts) with points on their rims' lines, far from the origin too, in
        /// a plane along the axes (exact projections, signed zeros) and in a tilted one
        /// (projections with rounding).
        #[test]
        fn the_filter_keeps_every_corner(
            pts in proptest::collection::vec((-5.0..5.0f64, -5.0..5.0f64), 0..300),
            grid in (1usize..30, 1usize..30, 0.01..3.0f64, -1e4..1e4f64),
            turn in 0.0..std::f64::consts::TAU,
        ) {
            let n = DVec3::new(0.3, -0.2, 1.0).normalize();
            let u = n.any_orthonormal_vector();
            let s = n.cross(u);
            let random: Vec<DVec3> = pts.iter().map(|&(a, b)| u * a + s * b).collect();
            prop_assert_eq!(hull_corners(&random, n), hull_corners_filtered(&random, n, false));
            let (w, h, step, far) = grid;
            let far = DVec3::new(far, -0.5 * far, 0.25 * far);
            let grid: Vec<DVec3> = (0..w * h)
                .map(|k| DVec3::new((k % w) as f64 * step, (k / w) as f64 * step, 2.0) + far)
                .collect();
            prop_assert_eq!(hull_corners(&grid, DVec3::Z), hull_corners_filtered(&grid, DVec3::Z, false));
            let zero = |k: usize| if k.is_multiple_of(2) { -0.0 } else { 0.0 };
            let signed: Vec<DVec3> = (0..w * h)
                .map(|k| {
                    let (i, j) = (k % w, k / w);
                    let x = if i == 0 { zero(k) } else { i as f64 * step };
                    let y = if j == 0 { zero(k / 3) } else { j as f64 * step };
                    DVec3::new(x, y, 2.0)
                })
                .collect();
            prop_assert_eq!(hull_corners(&signed, DVec3::Z), hull_corners_filtered(&signed, DVec3::Z, false));
            let (a, b) = (u * turn.cos() + s * turn.sin(), s * turn.cos() - u * turn.sin());
            let tilted: Vec<DVec3> = grid.iter().map(|p| a * p.x + b * p.y + n * 0.7).collect();
            prop_assert_eq!(hull_corners(&tilted, n), hull_corners_filtered(&tilted, n, false));
        }

        /// The same order as comparing the contacts' fields with `total_cmp`, a stable sort
        /// (what `corners` did before its keys were integers), on rows sharing bodies, bounds
        /// and normals.
        #[test]
        fn the_group_order_is_the_fields_order(
            rows in proptest::collection::vec((0..3usize, 0..3usize, 0..3usize, 0..4usize, -2.0..2.0f64), 0..60),
        ) {
            let normals = [DVec3::Z, -DVec3::Z, DVec3::new(0.0, 1e-9, 1.0).normalize(), DVec3::new(-0.0, 0.6, 0.8)];
            let cs: Vec<ContactPoint> = rows.iter().map(|&(i, j, _, n, h)| ContactPoint { body_i: i, ..contact(DVec3::new(h, 0.3, h), normals[n], j) }).collect();
            let bounds: Vec<f64> = rows.iter().map(|r| [0.0, -0.0, 1e-3][r.2]).collect();
            let key = |k: usize| {
                let c = &cs[k];
                [bounds[k], c.normal.x, c.normal.y, c.normal.z, c.normal.dot(c.point_i)]
            };
            let mut reference: Vec<usize> = (0..cs.len()).collect();
            reference.sort_by(|&x, &y| {
                (cs[x].body_i, cs[x].body_j).cmp(&(cs[y].body_i, cs[y].body_j)).then_with(|| {
                    key(x).iter().zip(key(y)).map(|(a, b)| a.total_cmp(&b)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
                })
            });
            prop_assert_eq!(group_order(&cs, &bounds), reference);
        }

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
