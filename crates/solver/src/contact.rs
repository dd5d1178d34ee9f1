//! Contacts kept between steps: closest points of two features (docs/solver.md §2).

use glam::DVec3;
use mockup_ccd::geometry::{closest_point_on_triangle, closest_points_segments};
use mockup_ccd::mesh::{CONE_SLACK, Place, Side, Sides, crossing_normal};
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
        // Whether i's feature is outside j (or j's outside i), and the outward normal for
        // touching features.
        let (outside, touching_normal) = match self.kind {
            ContactKind::VertexFace => {
                let n = to_world_j(side_j.face_normal(fj));
                (d.dot(n) >= 0.0, n)
            }
            ContactKind::FaceVertex => {
                let n = to_world_i(side_i.face_normal(fi));
                (-d.dot(n) >= 0.0, -n)
            }
            ContactKind::EdgeEdge => {
                // Two convex wedges that cross: which side the lines passed each other on.
                let crossing = crossing_normal((side_i, pose_i, fi), (side_j, pose_j, fj));
                let (outside, n) = match crossing {
                    Some(n) => (d == DVec3::ZERO || d.dot(n) >= 0.0, n),
                    None => {
                        let [p, q] = side_i.mesh.edge_points(fi).map(|x| pose_i.transform_point(x));
                        let [r, t] = side_j.mesh.edge_points(fj).map(|x| pose_j.transform_point(x));
                        let m = (q - p).cross(t - r).normalize_or_zero();
                        let out = to_world_j(side_j.edge_normal(fj));
                        let n = if m == DVec3::ZERO {
                            out
                        } else if m.dot(out) < 0.0 {
                            -m
                        } else {
                            m
                        };
                        (d == DVec3::ZERO || not_inside(side_j, fj, in_j(d.normalize())), n)
                    }
                };
                // Read shallower where the lines' distance overstates it: two walls crossing
                // overlap in the sliver between them; i's point, read by j's side, is as deep
                // as it is behind j's nearer face.
                if !outside {
                    let walls = sliver((side_i, pose_i, fi, self.point_i), (side_j, pose_j, fj, self.point_j));
                    let point = if crossing.is_none() { depth_in_wedge((side_j, pose_j, fj), d) } else { None };
                    let shallower = match (walls, point) {
                        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
                        (a, b) => a.or(b),
                    };
                    if let Some((depth, normal)) = shallower
                        && depth < self.distance
                    {
                        self.separation = -depth;
                        self.normal = normal;
                        return self;
                    }
                }
                if crossing.is_some() {
                    return self.signed(outside, n);
                }
                (outside, n)
            }
            ContactKind::VertexEdge => {
                (d == DVec3::ZERO || not_inside(side_j, fj, in_j(d.normalize())), to_world_j(side_j.edge_normal(fj)))
            }
            ContactKind::EdgeVertex => {
                (d == DVec3::ZERO || not_inside(side_i, fi, in_i(-d.normalize())), -to_world_i(side_i.edge_normal(fi)))
            }
            ContactKind::VertexVertex => {
                let n = to_world_j(side_j.vertex_normal(fj));
                (d.dot(n) >= 0.0, n)
            }
            ContactKind::VertexVertexForB => {
                let n = to_world_i(side_i.vertex_normal(fi));
                (-d.dot(n) >= 0.0, -n)
            }
        };
        let sign = if outside { 1.0 } else { -1.0 };
        self.separation = sign * self.distance;
        self.normal = if self.distance > 1e-300 {
            sign * d / self.distance
        } else if touching_normal != DVec3::ZERO {
            touching_normal
        } else {
            self.normal
        };
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

/// How deep a point `d` from j's convex edge `fj` (world frame) is inside the edge's wedge:
/// its distance behind the nearer of the edge's two face planes (0 if in front of either),
/// with that face's outward normal, along which the point comes out. `None` for an edge that
/// is not convex (docs/contact-from-start.md §3, "A point read by an edge's side").
fn depth_in_wedge((side_j, pose_j, fj): (&Sides, &Pose, u32), d: DVec3) -> Option<(f64, DVec3)> {
    if !side_j.is_convex(fj) {
        return None;
    }
    side_j
        .mesh
        .edge_faces(fj)
        .iter()
        .map(|&f| pose_j.transform_vector(side_j.face_normal(f)))
        .map(|n| ((-d.dot(n)).max(0.0), n))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// How deep two convex edges that cross can be where each has a face along their lines'
/// common normal `m` (a wall): `min(A, B) · sin α`, the deepest point of the sliver between the
/// two walls before either edge ends (`A`, `B` from the closest points `x_i`, `x_j` along each
/// edge to its end behind the other's wall, `α` the edges' angle), with the row normal (from
/// j to i) of the nearer end's corner: j's wall normal when i's end is nearer, minus i's
/// otherwise. `None` when either edge is not convex or has no wall, the edges are parallel, or
/// the closest points are at an end (docs/contact-from-start.md §3, "Two walls crossing").
fn sliver(
    (side_i, pose_i, fi, x_i): (&Sides, &Pose, u32, DVec3),
    (side_j, pose_j, fj, x_j): (&Sides, &Pose, u32, DVec3),
) -> Option<(f64, DVec3)> {
    if !(side_i.is_convex(fi) && side_j.is_convex(fj)) {
        return None;
    }
    let [p, q] = side_i.mesh.edge_points(fi).map(|x| pose_i.transform_point(x));
    let [r, t] = side_j.mesh.edge_points(fj).map(|x| pose_j.transform_point(x));
    let m = (q - p).normalize_or_zero().cross((t - r).normalize_or_zero());
    let sin = m.length();
    if sin <= 1e-6 {
        return None;
    }
    let (u, v, _, _) = closest_points_segments(p, q, r, t);
    if !(u > 1e-9 && u < 1.0 - 1e-9 && v > 1e-9 && v < 1.0 - 1e-9) {
        return None;
    }
    let m = m / sin;
    let wall = |sides: &Sides, pose: &Pose, e: u32| {
        sides
            .mesh
            .edge_faces(e)
            .iter()
            .map(|&f| pose.transform_vector(sides.face_normal(f)))
            .filter(|w| w.dot(m).abs() <= CONE_SLACK.sin())
            .min_by(|a, b| a.dot(m).abs().total_cmp(&b.dot(m).abs()))
    };
    let (wall_i, wall_j) = (wall(side_i, pose_i, fi)?, wall(side_j, pose_j, fj)?);
    // From the crossing to the end of the edge that lies behind the other part's wall.
    let reach = |x: DVec3, a: DVec3, b: DVec3, other_wall: DVec3| {
        if (b - a).dot(other_wall) < 0.0 { (b - x).length() } else { (x - a).length() }
    };
    let (reach_i, reach_j) = (reach(x_i, p, q, wall_j), reach(x_j, r, t, wall_i));
    Some(if reach_i <= reach_j { (reach_i * sin, wall_j) } else { (reach_j * sin, -wall_i) })
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
