//! Contacts kept between steps: closest points of two features (docs/solver.md §2).

use glam::DVec3;
use mockup_ccd::geometry::{closest_point_on_triangle, closest_points_segments};
use mockup_ccd::{Collider, ContactKind, Pose, ProximityPair};

/// Index of a body in its world.
pub type BodyId = usize;

/// A contact between bodies `i` and `j` (`i < j`): the closest points of two features.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    pub body_i: BodyId,
    pub body_j: BodyId,
    /// Which features, `i`'s named first.
    pub kind: ContactKind,
    pub feature_i: u32,
    pub feature_j: u32,
    /// On body i (world).
    pub point_i: DVec3,
    /// On body j (world).
    pub point_j: DVec3,
    /// Unit, from j toward i.
    pub normal: DVec3,
    pub distance: f64,
}

impl ContactPoint {
    pub fn from_pair(body_i: BodyId, body_j: BodyId, p: &ProximityPair) -> ContactPoint {
        ContactPoint {
            body_i,
            body_j,
            kind: p.kind,
            feature_i: p.feature_a,
            feature_j: p.feature_b,
            point_i: p.point_a,
            point_j: p.point_b,
            normal: p.normal,
            distance: p.distance,
        }
    }

    /// Same bodies and features.
    pub fn same_features(&self, o: &ContactPoint) -> bool {
        (self.body_i, self.body_j, self.kind, self.feature_i, self.feature_j)
            == (o.body_i, o.body_j, o.kind, o.feature_i, o.feature_j)
    }
}

/// The closest points of one feature pair at the given poses, as a contact (the features of
/// a continuous contact: VF, FV or EE; proximity kinds are handled too). The normal falls back
/// to `fallback` when the points coincide.
#[allow(clippy::too_many_arguments)]
pub fn feature_pair(
    (i, a, pose_a): (BodyId, &Collider, &Pose),
    (j, b, pose_b): (BodyId, &Collider, &Pose),
    kind: ContactKind,
    fa: u32,
    fb: u32,
    fallback: DVec3,
) -> ContactPoint {
    let (ma, mb) = (a.mesh(), b.mesh());
    let va = |v: u32| pose_a.transform_point(ma.vertex(v));
    let vb = |v: u32| pose_b.transform_point(mb.vertex(v));
    let ea = |e: u32| ma.edge(e).map(va);
    let eb = |e: u32| mb.edge(e).map(vb);
    let (pi, pj) = match kind {
        ContactKind::VertexFace => {
            let x = va(fa);
            let [p, q, r] = mb.triangle(fb).map(vb);
            (x, closest_point_on_triangle(x, p, q, r))
        }
        ContactKind::FaceVertex => {
            let y = vb(fb);
            let [p, q, r] = ma.triangle(fa).map(va);
            (closest_point_on_triangle(y, p, q, r), y)
        }
        ContactKind::EdgeEdge => {
            let ([p, q], [r, s]) = (ea(fa), eb(fb));
            let (_, _, x, y) = closest_points_segments(p, q, r, s);
            (x, y)
        }
        ContactKind::VertexEdge => {
            let x = va(fa);
            let [r, s] = eb(fb);
            let (_, _, _, y) = closest_points_segments(x, x, r, s);
            (x, y)
        }
        ContactKind::EdgeVertex => {
            let y = vb(fb);
            let [p, q] = ea(fa);
            let (_, _, x, _) = closest_points_segments(p, q, y, y);
            (x, y)
        }
        ContactKind::VertexVertex => (va(fa), vb(fb)),
    };
    let d = pi - pj;
    let distance = d.length();
    let normal = if distance > 1e-300 { d / distance } else { fallback };
    ContactPoint {
        body_i: i,
        body_j: j,
        kind,
        feature_i: fa,
        feature_j: fb,
        point_i: pi,
        point_j: pj,
        normal,
        distance,
    }
}
