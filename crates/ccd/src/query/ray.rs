//! The nearest triangle a ray meets (docs/queries.md §3): picking.

use super::{Counted, Counters};
use crate::bvh::Obb;
use crate::{Collider, Pose};
use glam::DVec3;

/// Where a ray meets a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter: the point is `origin + t dir` (a distance when `dir` is a unit vector).
    pub t: f64,
    pub triangle: u32,
    /// World coordinates.
    pub point: DVec3,
    /// The triangle's unit normal in world coordinates, as its corners wind.
    pub normal: DVec3,
    /// The ray meets the side the normal points to (`normal · dir < 0`).
    pub front: bool,
}

/// The nearest triangle of `collider` at `pose` that the ray `origin + t dir` meets with
/// `0 < t ≤ max_t` (`f64::INFINITY` for no limit). Non-finite input, a zero `dir` or a
/// `max_t` that is not positive give `None` at once. Counts box tests (`bv_tests`) and
/// triangle tests (`triangle_tests`).
pub fn ray_cast(collider: &Collider, pose: &Pose, origin: DVec3, dir: DVec3, max_t: f64) -> Counted<Option<RayHit>> {
    let mut counters = Counters::default();
    let usable = pose.is_finite() && origin.is_finite() && dir.is_finite() && dir != DVec3::ZERO && max_t > 0.0;
    if !usable {
        return Counted { value: None, counters };
    }
    let inverse = pose.inverse();
    let (o, d) = (inverse.transform_point(origin), inverse.transform_vector(dir));
    let (tree, mesh) = (collider.tree(), collider.mesh());
    let mut best: Option<(f64, u32)> = None;
    let mut limit = max_t;
    let mut stack = Vec::new();
    counters.bv_tests += 1;
    if let Some(enter) = ray_enters(o, d, &tree.root().obb, limit) {
        stack.push((enter, 0u32));
    }
    while let Some((enter, n)) = stack.pop() {
        if enter > limit {
            continue;
        }
        let node = tree.node(n);
        if node.is_leaf() {
            for &t in tree.leaf_triangles(node) {
                counters.triangle_tests += 1;
                if let Some(s) = ray_triangle(o, d, mesh.triangle_points(t))
                    && s <= limit
                    && best.is_none_or(|(b, _)| s < b)
                {
                    best = Some((s, t));
                    limit = s;
                }
            }
            continue;
        }
        let (l, r) = tree.children(n);
        counters.bv_tests += 2;
        let (el, er) = (ray_enters(o, d, &tree.node(l).obb, limit), ray_enters(o, d, &tree.node(r).obb, limit));
        // The box entered first is opened first.
        let mut children = [(el, l), (er, r)];
        if el.unwrap_or(f64::INFINITY) < er.unwrap_or(f64::INFINITY) {
            children.swap(0, 1);
        }
        for (e, c) in children {
            if let Some(e) = e {
                stack.push((e, c));
            }
        }
    }
    let value = best.map(|(t, triangle)| {
        let normal = pose.transform_vector(mesh.normal(triangle));
        RayHit { t, triangle, point: origin + t * dir, normal, front: normal.dot(dir) < 0.0 }
    });
    Counted { value, counters }
}

/// Where the ray `o + t d` (`t ≥ 0`) enters the box, if it does by `limit`: slabs along its
/// axes, widened by a hair so that a triangle lying on a face is not missed.
fn ray_enters(o: DVec3, d: DVec3, b: &Obb, limit: f64) -> Option<f64> {
    let p = o - b.center;
    let (mut enter, mut leave) = (0.0f64, limit);
    let hair = 1e-12 * (b.center.length() + b.half.length());
    for k in 0..3 {
        let (e, f) = (b.axes[k].dot(p), b.axes[k].dot(d));
        let h = b.half[k] * (1.0 + 1e-9) + hair;
        if f.abs() < 1e-300 {
            if e.abs() > h {
                return None;
            }
            continue;
        }
        let (s0, s1) = ((-h - e) / f, (h - e) / f);
        enter = enter.max(s0.min(s1));
        leave = leave.min(s0.max(s1));
        if enter > leave {
            return None;
        }
    }
    Some(enter)
}

/// Möller–Trumbore: the ray parameter at which `o + t d` meets the triangle, if it does
/// ahead of the origin (`t > 0`).
pub fn ray_triangle(o: DVec3, d: DVec3, [a, b, c]: [DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-300 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) / det;
    (t > 0.0).then_some(t)
}
