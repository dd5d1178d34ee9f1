//! Vertex/face and edge/edge continuous tests: the cubics of docs/motion.md §5–6.
//!
//! Everything is expressed in the fixed body's frame. The moving body's features are given at
//! their time-0 position in that frame, and `screw` is its displacement over the (piece of
//! the) step. Times are the polynomial variable `z ∈ [0, z_max]`; callers convert with
//! [`Screw::t_of_z`].

pub mod roots;

use crate::Screw;
use crate::geometry::{closest_point_on_triangle, closest_points_segments};
use glam::DVec3;
use roots::{cubic_roots, eval, is_negligible};

/// Relative size below which a polynomial counts as identically zero (motion.md §6).
const ZERO_POLY: f64 = 1e-12;

/// Tolerances of one query, in the frame's length unit.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Coordinate scale `L` of the query.
    pub scale: f64,
    /// Largest distance between primitives at a root for it to count as a contact.
    pub contact: f64,
}

/// A contact found by an elementary test, in the fixed body's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub z: f64,
    /// VF: the vertex at contact. EE: midpoint of the edges' closest points.
    pub point: DVec3,
    /// Unit normal, pointing from the face (VF) or the fixed edge (EE) toward the side the
    /// moving feature came from.
    pub normal: DVec3,
}

/// Which roots of a feature pair's cubic count (docs/contact-from-start.md §4).
#[derive(Clone, Copy)]
pub enum Roots<'a> {
    /// Every touch: the contacts of a pair that starts apart.
    All,
    /// Only crossings into the other part, for a pair in contact from the start: the closure
    /// gets the would-be hit (its normal is the unit direction from the fixed feature toward
    /// the side the moving one came from, in the test's frame) and says whether it counts.
    /// Motion within a face's plane (an identically zero cubic) is sliding, not a root.
    Entering(&'a dyn Fn(&Hit) -> bool),
}

impl Roots<'_> {
    fn counts(&self, hit: &Hit) -> bool {
        match self {
            Roots::All => true,
            Roots::Entering(entering) => entering(hit),
        }
    }
}

/// Sign of `f` just before root `z` (after the previous root `z_prev`): the side the moving
/// feature came from. Falls back to the derivative when the root is at the very start.
fn side_before(c: &[f64; 4], z_prev: f64, z: f64) -> f64 {
    let mid = 0.5 * (z_prev + z);
    let f = if mid < z { eval(c, mid) } else { 0.0 };
    if f != 0.0 {
        return f.signum();
    }
    let d = c[1] + z * (2.0 * c[2] + 3.0 * c[3] * z);
    if d != 0.0 { -d.signum() } else { 1.0 }
}

fn vf_cubic(p: &[DVec3; 4], tt2: f64, b: DVec3, n: DVec3) -> [f64; 4] {
    [(p[0] - b).dot(n), p[1].dot(n), p[2].dot(n) - tt2 * b.dot(n), p[3].dot(n)]
}

/// Vertex `x` (moving, position at time 0) against the fixed triangle `tri` with unit normal
/// `n`: the earliest `z ≤ z_max` at which the vertex touches the triangle.
pub fn vertex_face(screw: &Screw, x: DVec3, tri: &[DVec3; 3], n: DVec3, z_max: f64, tol: &Tolerance) -> Option<Hit> {
    vertex_face_roots(screw, x, tri, n, z_max, tol, Roots::All)
}

/// [`vertex_face`], counting only the roots `roots` accepts.
pub fn vertex_face_roots(
    screw: &Screw,
    x: DVec3,
    tri: &[DVec3; 3],
    n: DVec3,
    z_max: f64,
    tol: &Tolerance,
    roots: Roots,
) -> Option<Hit> {
    let p = screw.point_poly(x);
    let tt2 = screw.tan_half() * screw.tan_half();
    let c = vf_cubic(&p, tt2, tri[0], n);
    let touches = |z: f64| {
        let at = screw.eval_poly(&p, z);
        ((at - closest_point_on_triangle(at, tri[0], tri[1], tri[2])).length() <= tol.contact).then_some(at)
    };
    if !is_negligible(&c, ZERO_POLY * tol.scale) {
        let mut prev = 0.0;
        // Roots are always solved on [0, 1] and then filtered, so a pair's contact time does
        // not depend on the limit (which changes with the order queries visit pairs in).
        for &z in cubic_roots(&c, 0.0, 1.0, 2.0 * tol.contact).as_slice().iter().take_while(|&&z| z <= z_max) {
            if let Some(point) = touches(z) {
                let hit = Hit { z, point, normal: side_before(&c, prev, z) * n };
                if roots.counts(&hit) {
                    return Some(hit);
                }
            }
            prev = z;
        }
        return None;
    }
    if let Roots::Entering(_) = roots {
        return None;
    }
    // The vertex moves within the face's plane: it enters through an edge (motion.md §6).
    if let Some(point) = touches(0.0) {
        return Some(Hit { z: 0.0, point, normal: n });
    }
    let mut best: Option<Hit> = None;
    for i in 0..3 {
        let (bi, bj) = (tri[i], tri[(i + 1) % 3]);
        let m = n.cross(bj - bi);
        let c = vf_cubic(&p, tt2, bi, m);
        let limit = best.map_or(z_max, |h| h.z);
        let touch = 2.0 * tol.contact * m.length();
        for &z in cubic_roots(&c, 0.0, 1.0, touch).as_slice().iter().take_while(|&&z| z <= limit) {
            if let Some(point) = touches(z) {
                best = Some(Hit { z, point, normal: n });
                break;
            }
        }
    }
    best
}

/// Face of the moving body (triangle `tri` with unit normal `n`, at time 0) against the fixed
/// vertex `a`. `inverse` is the inverse of the moving body's screw. The hit's point is the
/// fixed vertex and its normal points from the fixed body toward the moving face, both in
/// the fixed frame at contact time.
pub fn face_vertex(
    screw: &Screw,
    inverse: &Screw,
    a: DVec3,
    tri: &[DVec3; 3],
    n: DVec3,
    z_max: f64,
    tol: &Tolerance,
) -> Option<Hit> {
    face_vertex_roots(screw, inverse, a, tri, n, z_max, tol, Roots::All)
}

/// [`face_vertex`], counting only the roots `roots` accepts; it is given the direction from
/// the moving face toward the side the fixed vertex came from, in the moving body's time-0
/// placement.
#[allow(clippy::too_many_arguments)]
pub fn face_vertex_roots(
    screw: &Screw,
    inverse: &Screw,
    a: DVec3,
    tri: &[DVec3; 3],
    n: DVec3,
    z_max: f64,
    tol: &Tolerance,
    roots: Roots,
) -> Option<Hit> {
    let hit = vertex_face_roots(inverse, a, tri, n, z_max, tol, roots)?;
    // `hit.normal` is the moving face's normal toward the vertex's side, in the moving body's
    // time-0 placement; seen from the fixed body it points the other way, then turns with A.
    let t = screw.t_of_z(hit.z);
    Some(Hit { z: hit.z, point: a, normal: -screw.displacement_at(t).transform_vector(hit.normal) })
}

/// Edge `p q` (moving, at time 0) against the fixed edge `c d`: the earliest `z ≤ z_max` at
/// which the segments touch. Coplanar or parallel edges (identically zero cubic) are left to
/// the vertex/face tests (motion.md §6).
pub fn edge_edge(screw: &Screw, p: DVec3, q: DVec3, c: DVec3, d: DVec3, z_max: f64, tol: &Tolerance) -> Option<Hit> {
    edge_edge_roots(screw, p, q, c, d, z_max, tol, Roots::All)
}

/// [`edge_edge`], counting only the roots `roots` accepts.
#[allow(clippy::too_many_arguments)]
pub fn edge_edge_roots(
    screw: &Screw,
    p: DVec3,
    q: DVec3,
    c: DVec3,
    d: DVec3,
    z_max: f64,
    tol: &Tolerance,
    roots: Roots,
) -> Option<Hit> {
    let e = d - c;
    let pp = screw.point_poly(p);
    let pq = screw.point_poly(q);
    let tt2 = screw.tan_half() * screw.tan_half();
    // A(z) = P_p − W c (cubic), Q(z) = P_q − P_p (quadratic); det(A, Q, e) = A · (Q × e).
    let a = [pp[0] - c, pp[1], pp[2] - tt2 * c, pp[3]];
    let qe = [(pq[0] - pp[0]).cross(e), (pq[1] - pp[1]).cross(e), (pq[2] - pp[2]).cross(e)];
    let a0 = a[0].dot(qe[0]);
    let a1 = a[0].dot(qe[1]) + a[1].dot(qe[0]);
    let a2 = a[0].dot(qe[2]) + a[1].dot(qe[1]) + a[2].dot(qe[0]);
    let a3 = a[1].dot(qe[2]) + a[2].dot(qe[1]) + a[3].dot(qe[0]);
    // Divide out W(z) = 1 + T² z² (motion.md (5.2)).
    let g = [a0, a1, a2 - tt2 * a0, a3 - tt2 * a1];
    let scale = e.length() * (q - p).length() * tol.scale;
    if is_negligible(&g, ZERO_POLY * scale) {
        return None;
    }
    let touch = 2.0 * tol.contact * e.length() * (q - p).length();
    let mut prev = 0.0;
    for &z in cubic_roots(&g, 0.0, 1.0, touch).as_slice().iter().take_while(|&&z| z <= z_max) {
        let (p_t, q_t) = (screw.eval_poly(&pp, z), screw.eval_poly(&pq, z));
        let (_, _, on_a, on_b) = closest_points_segments(p_t, q_t, c, d);
        if (on_a - on_b).length() <= tol.contact {
            let side = side_before(&g, prev, z);
            let m = (q_t - p_t).cross(e);
            let normal = if m.length() > 1e-9 * (q_t - p_t).length() * e.length() {
                side * m.normalize()
            } else {
                separation_before(screw, &pp, &pq, c, d, 0.5 * (prev + z)).unwrap_or_else(|| e.any_orthonormal_vector())
            };
            let hit = Hit { z, point: 0.5 * (on_a + on_b), normal };
            if roots.counts(&hit) {
                return Some(hit);
            }
        }
        prev = z;
    }
    None
}

/// Direction from the fixed edge to the moving one at `z`, for parallel edges.
fn separation_before(screw: &Screw, pp: &[DVec3; 4], pq: &[DVec3; 4], c: DVec3, d: DVec3, z: f64) -> Option<DVec3> {
    let (_, _, on_a, on_b) = closest_points_segments(screw.eval_poly(pp, z), screw.eval_poly(pq, z), c, d);
    (on_a - on_b).try_normalize()
}

#[cfg(test)]
mod tests;
