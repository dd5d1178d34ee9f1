//! Which side of a mesh's surface is outside (docs/contact-from-start.md §2): what tells a
//! crossing into a part from one out of it.

use super::Mesh;
use crate::Pose;
use crate::geometry::{closest_params_lines, closest_points_segments};
use glam::DVec3;

/// A unit direction whose cosine with a face's normal is below this runs along the face.
const IN_PLANE: f64 = 1e-9;

/// Two faces whose outward normals are nearer opposite than this (`n₁·n₂` below it, about 8°)
/// fold the surface at their edge: the side there is unknown (docs/contact-from-start.md §2).
const FOLD_COSINE: f64 = -0.99;

/// Where on a surface a point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Face(u32),
    Edge(u32),
    Vertex(u32),
}

/// Which side of a surface a direction leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Outside,
    /// Along the surface, within rounding.
    Along,
    Inside,
    /// At a non-manifold edge or vertex, or a fold (`Sides::is_fold`).
    Unknown,
}

/// How a mesh's faces wind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orientation {
    /// −1 for a closed mesh wound inward throughout (negative signed volume), +1 otherwise:
    /// face normals times this point outward.
    pub sign: f64,
    /// No manifold edge is run in the same direction by both its faces.
    pub consistent: bool,
}

impl Orientation {
    pub fn of(mesh: &Mesh) -> Orientation {
        let mut consistent = true;
        for e in 0..mesh.edges().len() as u32 {
            let faces = mesh.edge_faces(e);
            if faces.len() == 2 && runs_forward(mesh, faces[0], e) == runs_forward(mesh, faces[1], e) {
                consistent = false;
                break;
            }
        }
        let sign = if mesh.stats().is_closed() && mesh.signed_volume() < 0.0 { -1.0 } else { 1.0 };
        Orientation { sign, consistent }
    }
}

/// Whether triangle `t` runs edge `e` from its first vertex to its second.
fn runs_forward(mesh: &Mesh, t: u32, e: u32) -> bool {
    let [a, b] = mesh.edge(e);
    let tri = mesh.triangle(t);
    (0..3).any(|i| tri[i] == a && tri[(i + 1) % 3] == b)
}

/// A mesh with its orientation: outward normals, and whether a direction leaves the solid at
/// an edge or a vertex.
#[derive(Clone, Copy, Debug)]
pub struct Sides<'a> {
    pub mesh: &'a Mesh,
    pub orientation: Orientation,
}

impl<'a> Sides<'a> {
    pub fn new(mesh: &'a Mesh, orientation: Orientation) -> Sides<'a> {
        Sides { mesh, orientation }
    }

    /// The outward unit normal of a face (zero for a degenerate one).
    pub fn face_normal(&self, t: u32) -> DVec3 {
        self.orientation.sign * self.mesh.normal(t)
    }

    /// Whether the point `p + εu` (p inside edge `e`, ε → 0⁺) is outside the solid: for a
    /// direction perpendicular to the edge, outside either face's plane at a convex edge, both
    /// at a reflex one, the one face's at a boundary edge; unknown (`true`) at a non-manifold
    /// edge or a fold.
    pub fn edge_outside(&self, e: u32, u: DVec3) -> bool {
        matches!(self.side(Place::Edge(e), u), Side::Outside | Side::Unknown)
    }

    /// The outward direction at an edge: the sum of its faces' outward normals (unit; the
    /// face's own normal at a boundary edge; zero when unknown: non-manifold, or a fold).
    pub fn edge_normal(&self, e: u32) -> DVec3 {
        let faces = self.mesh.edge_faces(e);
        if faces.len() > 2 || self.is_fold(e) {
            return DVec3::ZERO;
        }
        faces.iter().map(|&f| self.face_normal(f)).sum::<DVec3>().normalize_or_zero()
    }

    /// The outward direction at a vertex: its faces' outward normals weighted by their angles
    /// at it (the angle-weighted pseudonormal; unit, zero when they cancel).
    pub fn vertex_normal(&self, v: u32) -> DVec3 {
        let mut sum = DVec3::ZERO;
        for f in self.vertex_faces(v) {
            if let Some((a, b)) = self.corner_edges(f, v) {
                sum += a.angle_between(b) * self.face_normal(f);
            }
        }
        sum.normalize_or_zero()
    }

    /// Whether the surface folds back at an edge: its two faces' outward normals are within
    /// about 8° of opposite, so their sum's direction, the side there, is not to be trusted
    /// (a sliver laid over its neighbour; docs/contact-from-start.md §2).
    pub fn is_fold(&self, e: u32) -> bool {
        match *self.mesh.edge_faces(e) {
            [f1, f2] => self.face_normal(f1).dot(self.face_normal(f2)) < FOLD_COSINE,
            _ => false,
        }
    }

    /// The corner of face `f` that is not on its edge `e`.
    fn corner_off(&self, f: u32, e: u32) -> Option<u32> {
        let [a, b] = self.mesh.edge(e);
        self.mesh.triangle(f).into_iter().find(|&v| v != a && v != b)
    }

    /// The direction face `f` leaves its edge `e` in, across the edge (not unit), `along` the
    /// edge's unit direction from its first end.
    fn face_ray(&self, e: u32, f: u32, along: DVec3) -> Option<DVec3> {
        let c = self.corner_off(f, e)?;
        Some((self.mesh.vertex(c) - self.mesh.vertex(self.mesh.edge(e)[0])).reject_from_normalized(along))
    }

    /// Whether an edge is convex: two faces, each bending away behind the other's plane (the
    /// other face's far corner behind it). Flat, reflex, boundary, non-manifold and fold
    /// edges are not.
    pub fn is_convex(&self, e: u32) -> bool {
        let [f1, f2] = *self.mesh.edge_faces(e) else { return false };
        if self.is_fold(e) {
            return false;
        }
        let [a, b] = self.mesh.edge(e);
        let (Some(c1), Some(c2)) = (self.corner_off(f1, e), self.corner_off(f2, e)) else { return false };
        let p = self.mesh.vertex(a);
        let scale = (self.mesh.vertex(b) - p).length();
        let behind = |c: u32, f: u32| (self.mesh.vertex(c) - p).dot(self.face_normal(f)) < -1e-12 * scale;
        behind(c2, f1) && behind(c1, f2)
    }

    /// At a reflex edge, or an inner corner (every edge there reflex or flat, one reflex at
    /// least), the planes of the faces there (outward unit normal, a point on the plane): near
    /// the place the outside is in front of all of them, so a point must stay in front of each
    /// (docs/contact-from-start.md §3, "A touching feature near a reflex place"). Empty
    /// elsewhere, and when the mesh's winding cannot be trusted.
    pub fn reflex_planes(&self, place: Place) -> Vec<(DVec3, DVec3)> {
        if !self.orientation.consistent {
            return Vec::new();
        }
        let reflex =
            |e: u32| self.mesh.edge_faces(e).len() == 2 && !self.is_fold(e) && !self.is_convex(e) && !self.is_flat(e);
        let faces: Vec<u32> = match place {
            Place::Face(_) => return Vec::new(),
            Place::Edge(e) if reflex(e) => self.mesh.edge_faces(e).to_vec(),
            Place::Edge(_) => return Vec::new(),
            Place::Vertex(v) => {
                let edges = self.mesh.vertex_edges(v);
                if !edges.iter().any(|&e| reflex(e))
                    || !edges.iter().all(|&e| reflex(e) || (self.mesh.edge_faces(e).len() == 2 && self.is_flat(e)))
                {
                    return Vec::new();
                }
                self.vertex_faces(v).collect()
            }
        };
        faces
            .into_iter()
            .filter_map(|f| {
                let n = self.face_normal(f).try_normalize()?;
                Some((n, self.mesh.vertex(self.mesh.triangle(f)[0])))
            })
            .collect()
    }

    /// Whether `u` (mesh frame), seen across the edge, is within `slack` radians of an outward
    /// normal of a convex edge: a combination of its two faces' outward normals with no
    /// negative weight, so that the plane across it through the edge has the whole wedge
    /// behind it. Outside that cone, the nearest outward normal is one of the faces'.
    pub fn in_normal_cone(&self, e: u32, u: DVec3, slack: f64) -> bool {
        let [f1, f2] = *self.mesh.edge_faces(e) else { return false };
        let (n1, n2) = (self.face_normal(f1), self.face_normal(f2));
        let [p, q] = self.mesh.edge_points(e);
        let axis = (q - p).normalize_or_zero();
        let det = n1.cross(n2).dot(axis);
        let Some(u) = (u - axis * u.dot(axis)).try_normalize() else { return false };
        if det.abs() < 1e-12 {
            return false;
        }
        let (a, b) = (u.cross(n2).dot(axis) / det, n1.cross(u).dot(axis) / det);
        (a >= -1e-12 && b >= -1e-12) || u.angle_between(n1).min(u.angle_between(n2)) <= slack
    }

    /// Whether an edge only splits a flat polygon: exactly two faces, in one plane, wound
    /// alike. Crossing it is moving within a face, not meeting an edge.
    pub fn is_flat(&self, e: u32) -> bool {
        match *self.mesh.edge_faces(e) {
            [f1, f2] => self.mesh.normal(f1).dot(self.mesh.normal(f2)) > 1.0 - 1e-12,
            _ => false,
        }
    }

    /// Whether an edge's two faces are within `angle` (radians) of one plane, wound alike: all
    /// but flat, a facet edge of a finely tessellated or numerically noisy flat face.
    pub fn is_nearly_flat(&self, e: u32, angle: f64) -> bool {
        match *self.mesh.edge_faces(e) {
            [f1, f2] => self.face_normal(f1).dot(self.face_normal(f2)) >= angle.cos(),
            _ => false,
        }
    }

    /// How deep `p` (in the mesh's frame) is inside the solid: its distance to the surface
    /// when the winding number of the surface about it, times the mesh's sign, is above 1/2
    /// (Van Oosterom–Strackee solid angles; docs/contact-from-start.md §3), else 0. `None` for
    /// an open or inconsistently wound mesh, whose winding number says nothing. One pass over
    /// every triangle.
    pub fn depth_inside(&self, p: DVec3) -> Option<f64> {
        if !(self.mesh.stats().is_closed() && self.orientation.consistent) {
            return None;
        }
        let (mut w, mut nearest) = (0.0, f64::INFINITY);
        for t in 0..self.mesh.triangles().len() as u32 {
            // A degenerate triangle subtends no angle, but rounding in its triple product
            // against a negative denominator would read ±π.
            if self.mesh.is_degenerate(t) {
                continue;
            }
            let [a, b, c] = self.mesh.triangle_points(t).map(|x| x - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
            w += 2.0 * a.dot(b.cross(c)).atan2(den);
            nearest = nearest.min(crate::geometry::closest_point_on_triangle(DVec3::ZERO, a, b, c).length());
        }
        let inside = self.orientation.sign * w / (4.0 * std::f64::consts::PI) > 0.5;
        Some(if inside { nearest } else { 0.0 })
    }

    /// The non-degenerate faces around a vertex, each once: a face is named by its side from
    /// `v` to its next corner, the one side of it leaving `v` forward. No list to sort, no
    /// allocation: this runs for every contact at every plan of a drag.
    fn vertex_faces(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.mesh.vertex_edges(v).iter().flat_map(move |&e| {
            let [x, y] = self.mesh.edge(e);
            let next = if x == v { y } else { x };
            self.mesh.edge_faces(e).iter().copied().filter(move |&f| {
                let tri = self.mesh.triangle(f);
                (0..3).any(|k| tri[k] == v && tri[(k + 1) % 3] == next)
            })
        })
    }

    /// The two sides of face `f` leaving its corner `v`, in winding order (`None` if `v` is
    /// not a corner of `f`).
    fn corner_edges(&self, f: u32, v: u32) -> Option<(DVec3, DVec3)> {
        let tri = self.mesh.triangle(f);
        let k = tri.iter().position(|&x| x == v)?;
        let p = self.mesh.vertex(v);
        Some((self.mesh.vertex(tri[(k + 1) % 3]) - p, self.mesh.vertex(tri[(k + 2) % 3]) - p))
    }

    /// Where a point of face `t` lies: inside it, on one of its sides, or at a corner, with
    /// `tol` a length (docs/contact-from-start.md §4).
    pub fn place_on_face(&self, t: u32, p: DVec3, tol: f64) -> Place {
        let tri = self.mesh.triangle(t);
        let corners = tri.map(|v| self.mesh.vertex(v));
        if let Some(k) = (0..3).find(|&k| (p - corners[k]).length() <= tol) {
            return Place::Vertex(tri[k]);
        }
        let edges = self.mesh.triangle_edges(t);
        for k in 0..3 {
            let (a, b) = (corners[k], corners[(k + 1) % 3]);
            let ab = b - a;
            let s = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
            if (p - (a + s * ab)).length() <= tol && edges[k] != super::NONE {
                return Place::Edge(edges[k]);
            }
        }
        Place::Face(t)
    }

    /// Where a point of edge `e` lies: inside it or at an end, `tol` a length.
    pub fn place_on_edge(&self, e: u32, p: DVec3, tol: f64) -> Place {
        let [a, b] = self.mesh.edge(e);
        if (p - self.mesh.vertex(a)).length() <= tol {
            Place::Vertex(a)
        } else if (p - self.mesh.vertex(b)).length() <= tol {
            Place::Vertex(b)
        } else {
            Place::Edge(e)
        }
    }

    /// Whether a point moving in direction `dir` through `place` goes into the solid there: it
    /// comes from outside or along the surface and goes inside (docs/contact-from-start.md §4:
    /// a point sliding on a ledge into the wall at its reflex foot enters); an unknown side
    /// counts as both.
    pub fn enters(&self, place: Place, dir: DVec3) -> bool {
        matches!(self.side(place, -dir), Side::Outside | Side::Along | Side::Unknown)
            && matches!(self.side(place, dir), Side::Inside | Side::Unknown)
    }

    /// Whether an edge with direction `line`, crossing the edge `place` (an edge of this
    /// mesh) while moving in direction `dir`, goes into the solid there with some of its
    /// points: some point `s·line` of it (s ≤ 0 only if it goes on `back` from the crossing,
    /// s ≥ 0 only if it goes `on`) is outside or along the surface just before the crossing
    /// (at `−ε·dir + s·line`) and inside just after (at `ε·dir + s·line`), ε → 0⁺
    /// (docs/contact-from-start.md §4, "An edge crossing a reflex edge"). Across the edge the
    /// side changes only where `±dir + σ·line` passes one of its faces' rays, so the σ
    /// between those and beyond them are all the cases. Other places, and an edge parallel
    /// to `place`'s: the moving point's own test (`enters`).
    pub fn edge_enters(&self, place: Place, line: DVec3, dir: DVec3, ways: (bool, bool)) -> bool {
        self.enters(place, dir) || self.beside_enters(place, line, dir, ways)
    }

    /// `edge_enters` for the points beside the crossing only (σ ≠ 0), at an edge.
    fn beside_enters(&self, place: Place, line: DVec3, dir: DVec3, (back, on): (bool, bool)) -> bool {
        let Place::Edge(e) = place else { return false };
        let [a, b] = self.mesh.edge_points(e);
        let along = (b - a).normalize_or_zero();
        let (line, dir) = (line.reject_from_normalized(along), dir.reject_from_normalized(along));
        if line.length() <= IN_PLANE * dir.length() || dir.length() == 0.0 {
            return false;
        }
        // Unit lengths, so that σ of about 1 weighs the motion and the line alike.
        let (line, dir) = (line.normalize(), dir.normalize());
        // In the plane across the edge: σ where ±dir + σ·line is parallel to a face's ray.
        let cross = |u: DVec3, v: DVec3| along.dot(u.cross(v));
        let mut breaks: Vec<f64> = Vec::new();
        for &f in self.mesh.edge_faces(e) {
            let Some(ray) = self.face_ray(e, f, along) else { continue };
            let k = cross(ray, line);
            if k.abs() > 0.0 {
                breaks.extend([-cross(ray, dir) / k, cross(ray, dir) / k]);
            }
        }
        breaks.retain(|x| x.is_finite());
        breaks.sort_by(f64::total_cmp);
        // Between two breaks, a σ near each of them as well as the middle: a line within
        // rounding of a face's ray puts a break at σ ~ 10¹⁵, and a point that far out runs
        // along the line, within `IN_PLANE` of the face, whichever way the motion takes it.
        let mut sigmas = vec![-1.0, 1.0];
        if let (Some(&lo), Some(&hi)) = (breaks.first(), breaks.last()) {
            sigmas.extend([lo - 1.0 - lo.abs(), hi + 1.0 + hi.abs()]);
            for w in breaks.windows(2) {
                let half = 0.5 * (w[1] - w[0]);
                sigmas.extend([
                    w[0] + half,
                    w[0] + half.min(0.5 * (1.0 + w[0].abs())),
                    w[1] - half.min(0.5 * (1.0 + w[1].abs())),
                ]);
            }
        }
        // Only where the edge is: at one of its ends it goes on to one side only.
        sigmas.retain(|&sigma| sigma != 0.0 && (sigma > 0.0 || back) && (sigma < 0.0 || on));
        sigmas.into_iter().any(|sigma| self.goes_in(place, -dir + sigma * line, dir + sigma * line))
    }

    /// Whether the point at `before` (a direction from `place`, ε → 0⁺) is outside or along
    /// the surface and the one at `after` inside. Of unit scale: where either is within 10⁻⁶
    /// of the place itself (the edge's point passing exactly through it, `dir = −σ·line`),
    /// its direction is rounding, and that σ says nothing (found on Solo12's shoulder, whose
    /// edge read a rounding-noise "inside" and was held where it slid freely).
    fn goes_in(&self, place: Place, before: DVec3, after: DVec3) -> bool {
        before.length() > 1e-6
            && after.length() > 1e-6
            && matches!(self.side(place, before), Side::Outside | Side::Along | Side::Unknown)
            && matches!(self.side(place, after), Side::Inside | Side::Unknown)
    }

    /// Whether an edge leaving `place` (its end is there) in direction `line` goes into the
    /// solid with some of its points near the end, not the end itself, while that end moves
    /// in direction `dir` (docs/contact-from-start.md §3, "A vertex's own edges"). At an edge,
    /// exact (`edge_enters`' points beside the crossing, the edge going on one way); at a
    /// corner or a face, the points `σ·line` for σ over four decades, which may miss a narrow
    /// window between them.
    pub fn edge_from_enters(&self, place: Place, line: DVec3, dir: DVec3) -> bool {
        if let Place::Edge(_) = place {
            return self.beside_enters(place, line, dir, (false, true));
        }
        let (Some(line), Some(dir)) = (line.try_normalize(), dir.try_normalize()) else { return false };
        [0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0]
            .into_iter()
            .any(|sigma| self.goes_in(place, -dir + sigma * line, dir + sigma * line))
    }

    /// Which side of the surface the point `p + εw` is on, `p` at `place` and ε → 0⁺: the
    /// sign of `(x − c)·N` for `c` the nearest point of the surface near `p` and `N` the
    /// pseudonormal there (the face's normal, the sum of an edge's two, the angle-weighted
    /// one at a vertex), which is the side for a closed manifold surface (Bærentzen and
    /// Aanæs). Directions within rounding of the surface run `Along` it; at non-manifold
    /// places and folds (nearest a fold edge) the side is `Unknown`.
    pub fn side(&self, place: Place, w: DVec3) -> Side {
        self.side_and_normal(place, w).0
    }

    /// [`Sides::side`] and the pseudonormal it was read by (`nearest_normal` of the unit `w`;
    /// `None` for no motion), from one search of the place's neighbourhood.
    pub fn side_and_normal(&self, place: Place, w: DVec3) -> (Side, Option<DVec3>) {
        let Some(w) = w.try_normalize() else { return (Side::Along, None) };
        let n = self.nearest_normal(place, w);
        let side = match n {
            None => Side::Unknown,
            Some(n) if w.dot(n) > IN_PLANE => Side::Outside,
            Some(n) if w.dot(n) < -IN_PLANE => Side::Inside,
            Some(_) => Side::Along,
        };
        (side, n)
    }

    /// The pseudonormal of the surface nearest `p + εw` (p at `place`, ε → 0⁺, `w` unit): the
    /// normal of the face, edge or vertex of `place`'s neighbourhood that is nearest. Its half
    /// space is outside the solid near `p` when `place` is convex there. `None` at
    /// non-manifold places and folds.
    pub fn nearest_normal(&self, place: Place, w: DVec3) -> Option<DVec3> {
        match place {
            Place::Face(t) => Some(self.face_normal(t)),
            Place::Edge(e) => {
                let faces = self.mesh.edge_faces(e);
                if faces.len() > 2 || faces.is_empty() || self.is_fold(e) {
                    return None;
                }
                let [a, b] = self.mesh.edge_points(e);
                let along = (b - a).normalize();
                let w = w - w.dot(along) * along;
                // The wedge seen along the edge: the faces leave it in directions d_k.
                let mut best = (w.length(), self.edge_normal(e));
                if w.length() <= IN_PLANE {
                    return Some(best.1);
                }
                for &f in faces {
                    let Some(d) = self.face_ray(e, f, along).map(DVec3::normalize_or_zero) else { continue };
                    if w.dot(d) > 0.0 {
                        let off = (w - w.dot(d) * d).length();
                        if off < best.0 {
                            best = (off, self.face_normal(f));
                        }
                    }
                }
                Some(best.1)
            }
            Place::Vertex(v) => {
                let p = self.mesh.vertex(v);
                // The nearest place's normal, `None` when that is a fold edge; the vertex's
                // own (its pseudonormal, computed last: it is rarely the nearest) while
                // `best.1` is `None`.
                let mut best: (f64, Option<Option<DVec3>>) = (1.0, None);
                for &e in self.mesh.vertex_edges(v) {
                    if self.mesh.edge_faces(e).len() > 2 {
                        return None;
                    }
                    let [x, y] = self.mesh.edge(e);
                    let other = if x == v { y } else { x };
                    let along = (self.mesh.vertex(other) - p).normalize_or_zero();
                    if w.dot(along) > 0.0 {
                        let off = (w - w.dot(along) * along).length();
                        if off < best.0 {
                            best = (off, Some((!self.is_fold(e)).then(|| self.edge_normal(e))));
                        }
                    }
                }
                for f in self.vertex_faces(v) {
                    let Some((a, b)) = self.corner_edges(f, v) else { continue };
                    let raw = a.cross(b);
                    let on = w - w.dot(raw.normalize()) * raw.normalize();
                    // Within the face's angle at the corner: its plane is nearest.
                    if a.cross(on).dot(raw) >= 0.0 && on.cross(b).dot(raw) >= 0.0 {
                        let off = w.dot(raw.normalize()).abs();
                        if off <= best.0 {
                            best = (off, Some(Some(self.face_normal(f))));
                        }
                    }
                }
                best.1.unwrap_or_else(|| Some(self.vertex_normal(v)))
            }
        }
    }
}

/// How far (radians) the common normal of two crossing edges may be outside an edge's cone of
/// outward normals and still count as one: a part turned a little off the axes (docs/
/// contact-from-start.md §3).
pub const CONE_SLACK: f64 = 0.05;

/// For two edges (i's `fi`, j's `fj`, each with its sides and pose) that cross as two convex
/// wedges, their lines' common normal `n`, from j to i: both convex, not parallel, their
/// closest points inside both, and the plane across `n` between them with each wedge on its
/// own side (`n` within `CONE_SLACK` of j's outward normals, `−n` of i's). The lines' distance
/// along `n` is then what keeps the wedges apart: they interpenetrate there exactly when
/// `(I_i − I_j)·n < 0`. `None` otherwise (docs/contact-from-start.md §3).
pub fn crossing_normal(
    (side_i, pose_i, fi): (&Sides, &Pose, u32),
    (side_j, pose_j, fj): (&Sides, &Pose, u32),
) -> Option<DVec3> {
    if !(side_i.orientation.consistent && side_j.orientation.consistent && side_i.is_convex(fi) && side_j.is_convex(fj))
    {
        return None;
    }
    if !edges_cross((side_i.mesh, fi, pose_i), (side_j.mesh, fj, pose_j)) {
        return None;
    }
    let [p, q] = side_i.mesh.edge_points(fi).map(|x| pose_i.transform_point(x));
    let [r, t] = side_j.mesh.edge_points(fj).map(|x| pose_j.transform_point(x));
    let m = (q - p).normalize_or_zero().cross((t - r).normalize_or_zero());
    let m = m.normalize();
    let outward = |sides: &Sides, pose: &Pose, e: u32, n: DVec3| {
        sides.in_normal_cone(e, pose.inverse().transform_vector(n), CONE_SLACK)
    };
    [m, -m].into_iter().find(|&n| outward(side_j, pose_j, fj, n) && outward(side_i, pose_i, fi, -n))
}

/// The crossing wedges' signed separation of edges `fi` and `fj` at the poses given
/// (docs/contact-from-start.md §3, "Crossing wedges"): the distance of the edges' closest
/// points, negative when the lines have passed each other along their common normal; `None`
/// where the two do not cross as convex wedges.
pub fn crossing_separation(i: (&Sides, &Pose, u32), j: (&Sides, &Pose, u32)) -> Option<f64> {
    let n = crossing_normal(i, j)?;
    let [p, q] = i.0.mesh.edge_points(i.2).map(|x| i.1.transform_point(x));
    let [r, t] = j.0.mesh.edge_points(j.2).map(|x| j.1.transform_point(x));
    let (_, _, a, b) = closest_points_segments(p, q, r, t);
    let d = a - b;
    Some(if d.dot(n) >= 0.0 { d.length() } else { -d.length() })
}

/// An edge bent by less than this at a vertex goes on straight there (1°).
pub const STRAIGHT: f64 = 0.017_453_292_519_943_295;

/// Whether edges `ei` of `mesh_i` and `ej` of `mesh_j`, at the poses given, cross: their
/// lines' closest points lie inside both; or, for one at its end `w` where it goes on
/// straight into a next edge (a split vertex, no corner), at or past `w`, the next edge's
/// own closest point being at or behind `w`: bent by up to 1° there, the two halves' lines
/// pass the other edge on either side of `w`, and neither holds the crossing. Parallel edges
/// do not cross (docs/contact-from-start.md §3, "A crossing at a vertex").
pub fn edges_cross((mesh_i, ei, pose_i): (&Mesh, u32, &Pose), (mesh_j, ej, pose_j): (&Mesh, u32, &Pose)) -> bool {
    const END: f64 = 1e-9;
    let line = |mesh: &Mesh, e: u32, pose: &Pose| mesh.edge_points(e).map(|x| pose.transform_point(x));
    let ([p, q], [r, t]) = (line(mesh_i, ei, pose_i), line(mesh_j, ej, pose_j));
    let Some((u, v)) = closest_params_lines(p, q, r, t) else { return false };
    let within = |mesh: &Mesh, e: u32, pose: &Pose, x: f64, [a, b]: [DVec3; 2]| {
        if x > END && x < 1.0 - END {
            return true;
        }
        let [v0, v1] = mesh.edge(e);
        let w = if x <= END { v0 } else { v1 };
        let Some(next) = mesh.straight_continuation(e, w, STRAIGHT) else { return false };
        let n0 = mesh.edge(next)[0];
        let [c, d] = line(mesh, next, pose);
        let (from, to) = if n0 == w { (c, d) } else { (d, c) };
        closest_params_lines(from, to, a, b).is_some_and(|(y, _)| y <= END)
    };
    within(mesh_i, ei, pose_i, u, [r, t]) && within(mesh_j, ej, pose_j, v, [p, q])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MeshBuilder, Pose};
    use glam::DQuat;

    fn unit_cube() -> Mesh {
        MeshBuilder::new().cuboid(Pose::default(), DVec3::splat(1.0)).build().unwrap()
    }

    /// The cube's edge along +x at y = z = 1.
    fn top_side_edge(mesh: &Mesh) -> u32 {
        (0..mesh.edges().len() as u32)
            .find(|&e| mesh.edge_points(e).iter().all(|p| (p.y - 1.0).abs() < 1e-12 && (p.z - 1.0).abs() < 1e-12))
            .expect("the cube has that edge")
    }

    /// An edge lying down the cube's side face from its top edge (its line within rounding of
    /// the face's ray, or exactly on it), pushed into the side: its points below the crossing
    /// go in, however small the motion against the edge's length. Found in stop 41: a plate
    /// flush beside a slab, its edge 10⁻¹⁴ off the slab's face, read 10⁷ σ out.
    #[test]
    fn an_edge_down_a_face_pushed_in_enters() {
        let mesh = unit_cube();
        let sides = Sides::new(&mesh, Orientation::of(&mesh));
        let e = top_side_edge(&mesh);
        for tilt in [0.0, 1e-15, -1e-15, 1e-9] {
            for speed in [5e-8, 1.0] {
                let line = 0.1 * DVec3::new(tilt, tilt, -1.0);
                let dir = DVec3::new(0.0, -speed, 0.0);
                assert!(sides.edge_enters(Place::Edge(e), line, dir, (false, true)), "tilt {tilt}, speed {speed}");
                assert!(sides.edge_from_enters(Place::Edge(e), line, dir));
                // Pulled out, or up from the edge: nothing goes in.
                assert!(!sides.edge_enters(Place::Edge(e), line, -dir, (false, true)));
                assert!(!sides.edge_from_enters(Place::Edge(e), -line, dir));
            }
        }
    }

    /// An edge leaving a point at the cube's top edge or corner: down the side and pushed in,
    /// it goes in; up, or along the top face, or moved along the top, it does not.
    #[test]
    fn an_edge_from_a_point_at_an_edge_or_corner_enters_only_where_its_points_go_in() {
        let mesh = unit_cube();
        let sides = Sides::new(&mesh, Orientation::of(&mesh));
        let edge = Place::Edge(top_side_edge(&mesh));
        let corner = (0..mesh.vertices().len() as u32)
            .find(|&v| (mesh.vertex(v) - DVec3::ONE).length() < 1e-12)
            .map(Place::Vertex)
            .unwrap();
        let (down, up, into, back) = (-DVec3::Z, DVec3::Z, -DVec3::Y, -DVec3::X);
        for place in [edge, corner] {
            let push = if place == corner { DVec3::new(-1.0, -1.0, 0.0) } else { into };
            assert!(sides.edge_from_enters(place, down, push), "{place:?}");
            assert!(!sides.edge_from_enters(place, up, push), "{place:?}");
            assert!(!sides.edge_from_enters(place, back, into), "{place:?}");
            assert!(!sides.edge_from_enters(place, down, -push), "{place:?}");
            assert!(!sides.edge_from_enters(place, down, back + DVec3::Z), "{place:?}");
        }
    }

    /// The edge of a cube along +x at y = z = 1: outside is anything with a positive y or z.
    #[test]
    fn a_cube_edge_is_convex() {
        let mesh = unit_cube();
        let o = Orientation::of(&mesh);
        assert_eq!(o, Orientation { sign: 1.0, consistent: true });
        let sides = Sides::new(&mesh, o);
        let e = (0..mesh.edges().len() as u32)
            .find(|&e| {
                let [p, q] = mesh.edge_points(e);
                (p.y - 1.0).abs() < 1e-12
                    && (p.z - 1.0).abs() < 1e-12
                    && (q.y - 1.0).abs() < 1e-12
                    && (q.z - 1.0).abs() < 1e-12
            })
            .expect("the cube has that edge");
        assert!(sides.edge_outside(e, DVec3::new(0.0, 1.0, 0.0)));
        assert!(sides.edge_outside(e, DVec3::new(0.0, -0.5, 1.0).normalize()));
        assert!(!sides.edge_outside(e, DVec3::new(0.0, -1.0, -1.0).normalize()));
        // Along a face: neither outside nor in.
        assert!(!sides.edge_outside(e, DVec3::new(0.0, -1.0, 0.0)));
        let n = sides.edge_normal(e);
        assert!((n - DVec3::new(0.0, 1.0, 1.0).normalize()).length() < 1e-12);
        assert!(sides.is_convex(e));
        assert!(sides.in_normal_cone(e, DVec3::new(0.0, 1.0, 1.0), 0.0) && sides.in_normal_cone(e, DVec3::Z, 0.0));
        assert!(!sides.in_normal_cone(e, DVec3::new(0.0, -0.1, 1.0), 0.0) && !sides.in_normal_cone(e, -DVec3::Z, 0.0));
        // 0.0997 rad past the top face's normal: within a slack of 0.1, not of 0.09.
        assert!(sides.in_normal_cone(e, DVec3::new(0.0, -0.1, 1.0), 0.1));
        assert!(!sides.in_normal_cone(e, DVec3::new(0.0, -0.1, 1.0), 0.09));
        // Along the edge does not count.
        assert!(sides.in_normal_cone(e, DVec3::new(5.0, 1.0, 1.0), 0.0));
        // A face's diagonal is flat, not convex.
        assert!((0..mesh.edges().len() as u32).any(|e| sides.is_flat(e) && !sides.is_convex(e)));
    }

    #[test]
    fn an_inward_cube_flips_its_sides() {
        let mesh = unit_cube();
        let flipped =
            Mesh::new(mesh.vertices().to_vec(), mesh.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect()).unwrap();
        let o = Orientation::of(&flipped);
        assert_eq!(o, Orientation { sign: -1.0, consistent: true });
        let sides = Sides::new(&flipped, o);
        for t in 0..flipped.triangles().len() as u32 {
            let centre = flipped.triangle_points(t).iter().sum::<DVec3>() / 3.0;
            assert!(sides.face_normal(t).dot(centre) > 0.0, "face {t} points inward");
        }
        for v in 0..flipped.vertices().len() as u32 {
            assert!(sides.vertex_normal(v).dot(flipped.vertex(v)) > 0.0);
        }
    }

    /// Each vertex's faces, each once, against a scan of every triangle: on a closed mesh,
    /// an open one, a non-manifold fan of three faces on one edge, inconsistently wound
    /// faces, and a degenerate triangle (which is no face).
    #[test]
    fn vertex_faces_name_each_face_once() {
        let sphere = MeshBuilder::new().sphere(Pose::default(), 1.0, 7, 9).build().unwrap();
        let open = Mesh::new(sphere.vertices().to_vec(), sphere.triangles()[..40].to_vec()).unwrap();
        let p = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
        let fan = Mesh::new(
            vec![
                p(0.0, 0.0, 0.0),
                p(1.0, 0.0, 0.0),
                p(0.5, 1.0, 0.0),
                p(0.5, -1.0, 0.0),
                p(0.5, 0.0, 1.0),
                p(2.0, 0.0, 0.0),
            ],
            // Three faces on edge 0–1 (one wound against the others) and a degenerate one.
            vec![[0, 1, 2], [1, 0, 3], [0, 1, 4], [0, 1, 5]],
        )
        .unwrap();
        for mesh in [&sphere, &open, &fan] {
            let sides = Sides::new(mesh, Orientation::of(mesh));
            for v in 0..mesh.vertices().len() as u32 {
                let mut got: Vec<u32> = sides.vertex_faces(v).collect();
                got.sort_unstable();
                let want: Vec<u32> = (0..mesh.triangles().len() as u32)
                    .filter(|&t| !mesh.is_degenerate(t) && mesh.triangle(t).contains(&v))
                    .collect();
                assert_eq!(got, want, "vertex {v}");
            }
        }
    }

    /// Depths inside by winding number: a cube (depth: the distance to the nearest face) and
    /// the same cube wound inward, at points inside and outside; a sphere against the
    /// distance to its centre (away from its faces); an open mesh (no answer).
    #[test]
    fn depth_inside_reads_the_distance_to_the_surface_inside_only() {
        let cube = unit_cube();
        let inward =
            Mesh::new(cube.vertices().to_vec(), cube.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect()).unwrap();
        let (out, inn) = (Sides::new(&cube, Orientation::of(&cube)), Sides::new(&inward, Orientation::of(&inward)));
        let (lo, hi) = cube.bounds();
        let (centre, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        for k in 0..300 {
            let f = k as f64;
            let u = DVec3::new((1.3 * f).sin(), (0.7 * f + 1.0).cos(), (0.31 * f + 2.0).sin());
            let p = centre + u * half * 1.6;
            let q = (p - centre).abs();
            let inside = q.x < half.x && q.y < half.y && q.z < half.z;
            if (half - q).abs().min_element() < 1e-6 {
                continue;
            }
            let want = if inside { (half - q).min_element() } else { 0.0 };
            for sides in [&out, &inn] {
                let got = sides.depth_inside(p).unwrap();
                assert!((got - want).abs() < 1e-12, "{p}: {got} against {want}");
            }
        }
        let sphere = MeshBuilder::new().sphere(Pose::default(), 1.0, 16, 24).build().unwrap();
        let s = Sides::new(&sphere, Orientation::of(&sphere));
        for k in 0..100 {
            let f = k as f64;
            let dir = DVec3::new((1.3 * f).sin(), (0.7 * f).cos(), (0.31 * f).sin()).normalize();
            // The tessellated sphere lies between radius 0.97 and 1.
            assert!(s.depth_inside(dir * (0.1 + 0.8 * (0.37 * f).sin().abs())).unwrap() > 0.0);
            assert_eq!(s.depth_inside(dir * (1.05 + (0.53 * f).cos().abs())), Some(0.0));
        }
        let open = Mesh::new(sphere.vertices().to_vec(), sphere.triangles()[..40].to_vec()).unwrap();
        assert_eq!(Sides::new(&open, Orientation::of(&open)).depth_inside(DVec3::ZERO), None);
    }

    #[test]
    fn one_flipped_face_is_inconsistent() {
        let mesh = unit_cube();
        let mut tris = mesh.triangles().to_vec();
        tris[3] = [tris[3][0], tris[3][2], tris[3][1]];
        assert!(!Orientation::of(&Mesh::new(mesh.vertices().to_vec(), tris).unwrap()).consistent);
    }

    /// A bar along y whose top edges are split by a vertex at y = 0, straight or bent there
    /// by `bend` (the split vertex raised): the top edge's half from y = −1 to 0 and its
    /// index.
    fn split_bar(bend: f64) -> (Mesh, u32) {
        let outline = [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)];
        let mut vertices = Vec::new();
        for y in [-1.0, 0.0, 1.0] {
            let lift = if y == 0.0 { bend.tan() } else { 0.0 };
            vertices.extend(outline.iter().map(|&(x, z)| DVec3::new(x, y, z + if z > 0.0 { lift } else { 0.0 })));
        }
        let mut tris = Vec::new();
        for s in 0..2u32 {
            let (lo, hi) = (4 * s, 4 * s + 4);
            for i in 0..4 {
                let j = (i + 1) % 4;
                tris.extend([[lo + i, lo + j, hi + j], [lo + i, hi + j, hi + i]]);
            }
        }
        tris.extend([[0, 2, 1], [0, 3, 2], [8, 9, 10], [8, 10, 11]]);
        let mesh = Mesh::new(vertices, tris).unwrap();
        let e = (0..mesh.edges().len() as u32).find(|&e| mesh.edge(e) == [2, 6]).expect("the top edge's first half");
        (mesh, e)
    }

    /// An edge along x at height `z` over y = `y`: a bar's bottom front edge, placed there.
    fn edge_across(y: f64, z: f64) -> (Mesh, u32, Pose) {
        let bar = MeshBuilder::new().cuboid(Pose::default(), DVec3::new(1.0, 0.05, 0.05)).build().unwrap();
        let e = (0..bar.edges().len() as u32)
            .find(|&e| mesh_edge_along_x(&bar, e) && bar.edge_points(e).iter().all(|p| p.y < 0.0 && p.z < 0.0))
            .unwrap();
        (bar, e, Pose::from_translation(DVec3::new(0.0, y + 0.05, z + 0.05)))
    }

    /// Two edges crossing exactly at a vertex that splits a straight edge cross; at a vertex
    /// where the edge bends by more than `STRAIGHT` they are a corner's contact; a crossing
    /// past the edge's end or parallel edges do not cross (docs/contact-from-start.md §3).
    #[test]
    fn edges_cross_at_a_split_vertex_only_where_the_edge_goes_on_straight() {
        let id = Pose::IDENTITY;
        for (bend, y, crosses) in [
            (0.0, 0.0, true),
            (0.1 * STRAIGHT, 0.0, true),
            (2.0 * STRAIGHT, 0.0, false),
            (0.0, -0.5, true),
            (0.0, 0.2, false),
        ] {
            let (mesh, e) = split_bar(bend);
            let (other, f, at) = edge_across(y, 0.1 + if y == 0.0 { bend.tan() } else { 0.0 });
            assert_eq!(edges_cross((&mesh, e, &id), (&other, f, &at)), crosses, "bend {bend}, y {y}");
            assert_eq!(edges_cross((&other, f, &at), (&mesh, e, &id)), crosses);
        }
        let (mesh, e) = split_bar(0.0);
        let along_y = Pose::new(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2), DVec3::new(0.05, 0.0, 0.15));
        let (other, f, _) = edge_across(0.0, 0.1);
        assert!(!edges_cross((&mesh, e, &id), (&other, f, &along_y)), "parallel");
    }

    /// An edge passing a vertex where a straight edge bends by under 1°, a little below it:
    /// the halves' lines pass it on either side of the vertex, and one of the two halves must
    /// hold the crossing wherever along the vertex it passes. At 2° the vertex is a corner and
    /// some crossings there are no edge's (found by a review: with only the vertex itself
    /// counted, a box just past a split vertex dipping 0.5° sank through the ridge).
    #[test]
    fn an_edge_passing_a_slightly_bent_vertex_crosses_one_of_its_halves() {
        let id = Pose::IDENTITY;
        for (bend, every) in [(-0.5 * STRAIGHT, true), (0.5 * STRAIGHT, true), (-2.0 * STRAIGHT, false)] {
            let (mesh, e) = split_bar(bend);
            let next = mesh.straight_continuation(e, 6, STRAIGHT);
            let halves: Vec<u32> = std::iter::once(e).chain(next).collect();
            let mut missed = 0;
            for k in -40..=40 {
                let (other, f, at) = edge_across(k as f64 * 1e-4, 0.1 + bend.tan() - 0.05);
                if !halves.iter().any(|&h| edges_cross((&mesh, h, &id), (&other, f, &at))) {
                    missed += 1;
                }
            }
            assert_eq!(missed == 0, every, "bend {bend}: {missed} of 81 crossings missed");
        }
    }

    fn mesh_edge_along_x(mesh: &Mesh, e: u32) -> bool {
        let [p, q] = mesh.edge_points(e);
        (q - p).normalize().dot(DVec3::X).abs() > 0.999
    }

    /// An L-shaped prism's inner corner: outside only where both faces agree.
    #[test]
    fn a_reflex_edge_needs_both_faces() {
        // Two boxes [0,2]×[0,1] and [0,1]×[0,2] in x-y, unioned into an L, extruded along z.
        let outline = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
        let mut vertices = Vec::new();
        for z in [0.0, 1.0] {
            vertices.extend(outline.iter().map(|&(x, y)| DVec3::new(x, y, z)));
        }
        let mut tris = Vec::new();
        for i in 0..6u32 {
            let j = (i + 1) % 6;
            tris.push([i, j, j + 6]);
            tris.push([i, j + 6, i + 6]);
        }
        // Caps: the L as four triangles (fan from the reflex corner 3).
        for [a, b, c] in [[3u32, 4, 5], [3, 5, 0], [3, 0, 1], [3, 1, 2]] {
            tris.push([a, c, b]);
            tris.push([a + 6, b + 6, c + 6]);
        }
        let mesh = Mesh::new(vertices, tris).unwrap();
        let o = Orientation::of(&mesh);
        assert_eq!(o, Orientation { sign: 1.0, consistent: true });
        let sides = Sides::new(&mesh, o);
        let e = (0..mesh.edges().len() as u32).find(|&e| mesh.edge(e) == [3, 9]).expect("the reflex edge");
        assert!(sides.edge_outside(e, DVec3::new(1.0, 1.0, 0.0).normalize()));
        assert!(!sides.edge_outside(e, DVec3::new(1.0, -0.2, 0.0).normalize()));
        assert!(!sides.edge_outside(e, DVec3::new(-1.0, -1.0, 0.0).normalize()));
        assert!(!sides.is_convex(e));
        let outer = (0..mesh.edges().len() as u32).find(|&e| mesh.edge(e) == [0, 6]).expect("an outer edge");
        assert!(sides.is_convex(outer));
        // The planes at the reflex edge: a point near it in front of both is outside, one
        // behind either is inside (brute force: winding number and distance); none at a
        // convex edge or inside a face.
        let planes = sides.reflex_planes(Place::Edge(e));
        assert_eq!(planes.len(), 2);
        assert!(sides.reflex_planes(Place::Edge(outer)).is_empty());
        assert!(sides.reflex_planes(Place::Face(0)).is_empty());
        let [p, q] = mesh.edge_points(e);
        let at = 0.5 * (p + q);
        for k in 0..2000u64 {
            let h = |m: u64| ((k * m + 17) % 1000) as f64 / 1000.0 - 0.5;
            let x = at + 0.4 * DVec3::new(h(7919), h(104_729), h(15_485_863));
            let heights: Vec<f64> = planes.iter().map(|&(n, o)| n.dot(x - o)).collect();
            let depth = sides.depth_inside(x).expect("closed and consistent");
            if heights.iter().all(|&h| h > 1e-9) {
                assert_eq!(depth, 0.0, "{x} in front of both planes is outside");
            } else if heights.iter().any(|&h| h < -1e-9) {
                assert!(depth > 0.0, "{x} behind a plane is inside");
            }
        }
    }
}
