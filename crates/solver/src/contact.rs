//! Contacts kept between steps: closest points of two features (docs/solver.md §2).

use glam::DVec3;
use mockup_ccd::geometry::{closest_point_on_triangle, closest_points_segments};
use mockup_ccd::mesh::{Place, Side, Sides, crossing_normal};
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
    /// Unit, from j toward i: for a pair in contact from the start, the outward direction
    /// (docs/contact-from-start.md §3), even where i's feature is inside j.
    pub normal: DVec3,
    pub distance: f64,
    /// `distance`, negative where one feature is inside the other part (pairs in contact from
    /// the start; for the others it equals `distance`).
    pub separation: f64,
    /// The two bodies are in contact from the start (docs/contact-from-start.md §1).
    pub seated: bool,
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
            separation: p.distance,
            seated: false,
        }
    }

    /// The contact of a pair in contact from the start: its separation signed and its normal
    /// turned outward by the meshes' sides (docs/contact-from-start.md §3). `side_i`/`side_j`
    /// are the bodies' meshes with their orientations, `pose_i`/`pose_j` their poses. Features
    /// nearer than `touching` touch: their separation is 0 and their normal comes from the
    /// features' shape, not from the rounding noise between their closest points.
    pub fn seated(
        mut self,
        (side_i, pose_i): (&Sides, &Pose),
        (side_j, pose_j): (&Sides, &Pose),
        touching: f64,
    ) -> ContactPoint {
        self.seated = true;
        if !(side_i.orientation.consistent && side_j.orientation.consistent) {
            return self; // no trustworthy side: unsigned, as measured
        }
        if self.distance < touching {
            self.distance = 0.0;
        }
        let d = if self.distance == 0.0 { DVec3::ZERO } else { self.point_i - self.point_j };
        let in_j = |v: DVec3| pose_j.inverse().transform_vector(v);
        let in_i = |v: DVec3| pose_i.inverse().transform_vector(v);
        let to_world_j = |v: DVec3| pose_j.transform_vector(v);
        let to_world_i = |v: DVec3| pose_i.transform_vector(v);
        let (fi, fj) = (self.feature_i, self.feature_j);
        // Not inside: outside, along the surface (the point lies on it, as a vertex in a
        // face's plane does for VF), or unknown (docs/contact-from-start.md §3).
        let not_inside = |sides: &Sides, e: u32, u: DVec3| sides.side(Place::Edge(e), u) != Side::Inside;
        // Whether i's feature is outside j (or j's outside i).
        let outside = match self.kind {
            ContactKind::VertexFace => d.dot(to_world_j(side_j.face_normal(fj))) >= 0.0,
            ContactKind::FaceVertex => -d.dot(to_world_i(side_i.face_normal(fi))) >= 0.0,
            ContactKind::EdgeEdge => {
                // Two convex wedges that cross: which side the lines passed each other on.
                if let Some(n) = crossing_normal((side_i, pose_i, fi), (side_j, pose_j, fj)) {
                    return self.signed(d == DVec3::ZERO || d.dot(n) >= 0.0, n);
                }
                d == DVec3::ZERO || not_inside(side_j, fj, in_j(d.normalize()))
            }
            ContactKind::VertexEdge => d == DVec3::ZERO || not_inside(side_j, fj, in_j(d.normalize())),
            ContactKind::EdgeVertex => d == DVec3::ZERO || not_inside(side_i, fi, in_i(-d.normalize())),
            ContactKind::VertexVertex => d.dot(to_world_j(side_j.vertex_normal(fj))) >= 0.0,
            ContactKind::VertexVertexForB => -d.dot(to_world_i(side_i.vertex_normal(fi))) >= 0.0,
        };
        let sign = if outside { 1.0 } else { -1.0 };
        self.separation = sign * self.distance;
        if self.distance > 1e-300 {
            self.normal = sign * d / self.distance;
        } else {
            let n = self.shape_normal((side_i, pose_i), (side_j, pose_j));
            if n != DVec3::ZERO {
                self.normal = n;
            }
        }
        self
    }

    /// The outward normal from j to i that the features' shape gives where they touch: j's
    /// face normal (VF), minus i's (FV), the edges' cross product turned to j's outside or j's
    /// edge normal when the edges are parallel (EE; the lines' common normal when they cross
    /// as convex wedges), j's edge or vertex normal (VE, VV), minus i's (EV, VVʲ). Zero where
    /// the shape gives none (a fold, a non-manifold place).
    fn shape_normal(&self, (side_i, pose_i): (&Sides, &Pose), (side_j, pose_j): (&Sides, &Pose)) -> DVec3 {
        let to_world_j = |v: DVec3| pose_j.transform_vector(v);
        let to_world_i = |v: DVec3| pose_i.transform_vector(v);
        let (fi, fj) = (self.feature_i, self.feature_j);
        match self.kind {
            ContactKind::VertexFace => to_world_j(side_j.face_normal(fj)),
            ContactKind::FaceVertex => -to_world_i(side_i.face_normal(fi)),
            ContactKind::EdgeEdge => {
                if let Some(n) = crossing_normal((side_i, pose_i, fi), (side_j, pose_j, fj)) {
                    return n;
                }
                let [p, q] = side_i.mesh.edge_points(fi).map(|x| pose_i.transform_point(x));
                let [r, t] = side_j.mesh.edge_points(fj).map(|x| pose_j.transform_point(x));
                let m = (q - p).cross(t - r).normalize_or_zero();
                let out = to_world_j(side_j.edge_normal(fj));
                if m == DVec3::ZERO {
                    out
                } else if m.dot(out) < 0.0 {
                    -m
                } else {
                    m
                }
            }
            ContactKind::VertexEdge => to_world_j(side_j.edge_normal(fj)),
            ContactKind::EdgeVertex => -to_world_i(side_i.edge_normal(fi)),
            ContactKind::VertexVertex => to_world_j(side_j.vertex_normal(fj)),
            ContactKind::VertexVertexForB => -to_world_i(side_i.vertex_normal(fi)),
        }
    }

    /// An ordinary contact whose features touch (nearer than `touching`): its normal from the
    /// features' shape (`shape_normal`), not from the rounding noise between its closest points,
    /// which for two coplanar edges can point anywhere and asks for εs along it
    /// (docs/solver.md §2). For two solids only (the caller's to check): a free pair's feature
    /// is then outside, on the side the normal gives, which an open sheet met from behind is
    /// not. Unchanged when it does not touch, when either mesh's sides cannot be trusted, or
    /// when the shape gives no normal.
    pub fn with_shape_normal(mut self, i: (&Sides, &Pose), j: (&Sides, &Pose), touching: f64) -> ContactPoint {
        if self.distance >= touching || !(i.0.orientation.consistent && j.0.orientation.consistent) {
            return self;
        }
        let n = self.shape_normal(i, j);
        if n != DVec3::ZERO {
            self.normal = n;
        }
        self
    }

    /// Signed by `outside`, with the row normal `n` (from j to i, outward).
    fn signed(mut self, outside: bool, n: DVec3) -> ContactPoint {
        self.separation = if outside { self.distance } else { -self.distance };
        self.normal = n;
        self
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
        ContactKind::VertexVertex | ContactKind::VertexVertexForB => (va(fa), vb(fb)),
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
        separation: distance,
        seated: false,
    }
}
