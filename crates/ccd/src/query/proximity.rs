//! Feature pairs closer than a distance, with their closest points: how the solver follows
//! its contacts between steps.

use super::traversal::{collect_near_leaf_pairs_from, near_leaf_pairs};
use super::{ContactKind, Counted, Counters};
use crate::bvh::{Obb, ObbTree};
use crate::geometry::{closest_point_on_triangle, closest_points_segments};
use crate::mesh::edges_cross;
use crate::{Collider, Mesh, Pose};
use glam::DVec3;
use std::ops::ControlFlow;

/// Two features closer than the query distance, at their closest points (world coordinates).
///
/// Every vertex's nearest point on the other mesh is among the pairs when it is nearer than
/// the query distance: a vertex and the inside of a face, the inside of an edge (the vertex
/// in the edge's wedge, outside both faces' sides of it) or a vertex (the other vertex the
/// nearest point of its edges); plus the insides of two edges, and, as before those direct
/// tests, a vertex and an edge or two vertices at two edges' closest points, through the
/// vertex's first edge. Each pair comes once, except two distinct vertices that are each
/// other's nearest point (a pair read for each) and an edge-derived vertex pair that can
/// repeat one read for B's vertex (docs/queries.md §6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProximityPair {
    pub kind: ContactKind,
    pub feature_a: u32,
    pub feature_b: u32,
    pub point_a: DVec3,
    pub point_b: DVec3,
    pub distance: f64,
    /// Unit, from B toward A.
    pub normal: DVec3,
}

/// Every feature pair of A (at `pose_a`) and B (at `pose_b`) closer than `distance`.
pub fn proximity(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    distance: f64,
) -> Counted<Vec<ProximityPair>> {
    let to_b = pose_b.inverse() * *pose_a;
    let mut counters = Counters::default();
    let mut pairs = Vec::new();
    near_leaf_pairs(a, &to_b, b, distance, &mut counters, |leaf_a, leaf_b, counters| {
        for &ta in leaf_a {
            for &tb in leaf_b {
                leaf_pair(a.mesh(), &to_b, b.mesh(), ta, tb, distance, counters, &mut pairs);
            }
        }
        ControlFlow::Continue(())
    });
    for p in &mut pairs {
        p.point_a = pose_b.transform_point(p.point_a);
        p.point_b = pose_b.transform_point(p.point_b);
        p.normal = pose_b.transform_vector(p.normal);
    }
    Counted { value: pairs, counters }
}

/// The triangle pairs (A's, B's) whose leaf boxes are within `distance`, sorted: every
/// triangle pair nearer than `distance` is among them. With [`proximity_among`], a caller that
/// keeps them can answer `proximity` at nearby poses without a traversal (docs/solver.md §2).
pub fn near_triangle_pairs(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    distance: f64,
) -> Counted<Vec<(u32, u32)>> {
    let mut counters = Counters::default();
    let mut traversal = NearTrianglePairs::new(pose_a, pose_b, distance);
    traversal.advance(a, b, usize::MAX, &mut counters);
    Counted { value: traversal.into_pairs(), counters }
}

/// [`near_triangle_pairs`] a part at a time, for a caller that must not wait for the whole
/// traversal (a base plate under a cover: 500,000 box tests, docs/solver.md §4). The node
/// pairs still to open are kept between calls; the poses are those given to `new`.
#[derive(Clone, Debug)]
pub struct NearTrianglePairs {
    to_b: Pose,
    distance: f64,
    stack: Vec<(u32, u32)>,
    pairs: Vec<(u32, u32)>,
}

impl NearTrianglePairs {
    pub fn new(pose_a: &Pose, pose_b: &Pose, distance: f64) -> Self {
        NearTrianglePairs { to_b: pose_b.inverse() * *pose_a, distance, stack: vec![(0, 0)], pairs: Vec::new() }
    }

    /// Opens at most `pops` more node pairs (at least one) of A's and B's trees, the
    /// colliders given to every call being the same; whether the traversal is done.
    pub fn advance(&mut self, a: &Collider, b: &Collider, pops: usize, counters: &mut Counters) -> bool {
        if !self.stack.is_empty() {
            let visit = |leaf_a: &[u32], leaf_b: &[u32], out: &mut Vec<(u32, u32)>| {
                for &ta in leaf_a {
                    for &tb in leaf_b {
                        out.push((ta, tb));
                    }
                }
            };
            let found =
                collect_near_leaf_pairs_from(a, &self.to_b, b, self.distance, counters, &mut self.stack, pops, visit);
            self.pairs.extend(found);
        }
        self.done()
    }

    pub fn done(&self) -> bool {
        self.stack.is_empty()
    }

    /// The pairs found so far, sorted: all of them once the traversal is done.
    pub fn into_pairs(mut self) -> Vec<(u32, u32)> {
        self.pairs.sort_unstable();
        self.pairs
    }
}

/// Triangle pairs from which [`proximity_among`] uses a second thread.
const PARALLEL_PAIRS: usize = 2048;

/// [`proximity`] over the given triangle pairs only. It equals `proximity` (as a set) when
/// `pairs` holds every triangle pair nearer than `distance` at these poses, for instance the
/// [`near_triangle_pairs`] at a radius `distance + δ` of poses from which no point of A moved
/// more than δ relative to B.
pub fn proximity_among(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    distance: f64,
    pairs: &[(u32, u32)],
) -> Counted<Vec<ProximityPair>> {
    let to_b = pose_b.inverse() * *pose_a;
    let run = |pairs: &[(u32, u32)]| {
        let mut counters = Counters::default();
        let mut out = Vec::new();
        for &(ta, tb) in pairs {
            leaf_pair(a.mesh(), &to_b, b.mesh(), ta, tb, distance, &mut counters, &mut out);
        }
        (out, counters)
    };
    // Long lists are split over two threads; the halves are joined in order, so the answer
    // is the one a single thread gives.
    let (mut out, counters) = if pairs.len() >= PARALLEL_PAIRS && crate::parallel::cores() >= 2 {
        let (first, second) = pairs.split_at(pairs.len() / 2);
        let ((mut out, mut counters), (rest, more)) = crate::parallel::join(|| run(first), || run(second));
        out.extend(rest);
        counters += more;
        counters.parallel_splits += 1;
        (out, counters)
    } else {
        run(pairs)
    };
    for p in &mut out {
        p.point_a = pose_b.transform_point(p.point_a);
        p.point_b = pose_b.transform_point(p.point_b);
        p.normal = pose_b.transform_vector(p.normal);
    }
    Counted { value: out, counters }
}

/// The distances of a [`vertex_readings`] call: of each vertex, its readings at least `from`
/// and less than `within` away, and within `tie` of its nearest point on the other mesh; and
/// which owners may have such a vertex after the meshes move by up to `margin` (each point of
/// either relative to the other).
#[derive(Clone, Copy, Debug)]
pub struct VertexBand {
    pub from: f64,
    pub within: f64,
    pub tie: f64,
    pub margin: f64,
}

/// What [`vertex_readings`] found: the readings, and of the owners it was given those with a
/// vertex whose nearest distance `d*` has `d* + tie ≥ from − margin` and `d* < within +
/// margin`. Every other owner's vertices read nothing, in order, until the meshes have moved
/// by more than the margin relative to each other (a distance to a mesh changes by no more than
/// the mesh's points move).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexReadings {
    pub readings: Vec<ProximityPair>,
    pub near: Vec<u32>,
}

/// Owners from which [`vertex_readings`] uses a second thread (a near vertex's searches
/// take some 200 box tests, about 15 µs; a budgeted caller reads a few hundred at a time).
const PARALLEL_OWNERS: usize = 256;

/// How many owners [`vertex_readings`] goes through: A's tree's triangles, then B's.
pub fn vertex_owner_count(a: &Collider, b: &Collider) -> usize {
    a.tree().triangles().len() + b.tree().triangles().len()
}

/// Each vertex's nearest readings (docs/queries.md §7): of the vertices owned by the
/// triangles `owners` (positions in A's tree's triangle list, then in B's, ascending), the
/// direct readings `proximity` reports (VF, VE, VV for A's vertex; FV, EV, VVʲ for B's) within
/// `band.tie` of the vertex's nearest distance to the other mesh, at least `band.from` and
/// less than `band.within` away. With `proximity` at `band.from`, which reads everything
/// nearer (the distances computed the same way, to the bit), that is every vertex's nearest
/// reading and those tied with it. Without the edge/edge and edge-derived pairs, and without
/// each vertex's farther readings, this is what a reader of depths needs beyond `band.from`
/// (docs/contact-from-start.md §3), at a cost that grows with the vertices near the other
/// mesh, not with the feature pairs. Positions past the owner count are ignored.
pub fn vertex_readings(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    band: VertexBand,
    owners: &[u32],
) -> Counted<VertexReadings> {
    let to_b = pose_b.inverse() * *pose_a;
    let (tree_a, tree_b) = (a.tree(), b.tree());
    let count_a = tree_a.triangles().len();
    let total = vertex_owner_count(a, b);
    let reach = band.within + band.margin;
    let run = |owners: &[u32]| {
        let mut counters = Counters::default();
        let mut found = VertexReadings::default();
        let mut search = NearestSearch::default();
        // The last vertex looked at and bounds on its nearest distance, from above and below:
        // bounds on the next one's, by the triangle inequality (owners in tree order are
        // neighbours). A vertex whose bound from below is out of reach is not searched.
        let mut last: Option<(DVec3, f64, f64)> = None;
        let mut last_of_a = true;
        let bounds = |last: Option<(DVec3, f64, f64)>, x: DVec3| {
            // Widened by 10⁻⁹ for rounding, as the boxes' bounds are.
            last.map_or((f64::INFINITY, 0.0), |(p, upper, lower)| {
                let moved = (x - p).length();
                ((upper + moved) * (1.0 + 1e-9), (lower - moved) * (1.0 - 1e-9))
            })
        };
        for &k in owners {
            let k = k as usize;
            let mut near = false;
            if k == count_a || (k > count_a && last_of_a) {
                // B's vertices: bounds on A's say nothing of them.
                last = None;
            }
            last_of_a = k < count_a;
            if k < count_a {
                let t = tree_a.triangles()[k];
                for v in a.mesh().owned_vertices(t) {
                    let x = to_b.transform_point(a.mesh().vertex(v));
                    let (upper, lower) = bounds(last, x);
                    if lower >= reach {
                        last = Some((x, upper, lower));
                        continue;
                    }
                    near |= search.run((b.mesh(), tree_b, None), (x, upper), band, &mut counters);
                    last = Some((x, search.best, search.lower));
                    for &(near, p, d, n) in &search.found {
                        let (kind, feature_b, normal) = match near {
                            Near::Face(f) => (ContactKind::VertexFace, f, if (x - p).dot(n) < 0.0 { -n } else { n }),
                            Near::Edge(e) => (ContactKind::VertexEdge, e, direction(p, x, n)),
                            Near::Vertex(w) => (ContactKind::VertexVertex, w, direction(p, x, n)),
                        };
                        let pair = ProximityPair {
                            kind,
                            feature_a: v,
                            feature_b,
                            point_a: x,
                            point_b: p,
                            distance: d,
                            normal,
                        };
                        found.readings.push(pair);
                    }
                }
            } else if k < total {
                let t = tree_b.triangles()[k - count_a];
                for w in b.mesh().owned_vertices(t) {
                    let y = b.mesh().vertex(w);
                    let (upper, lower) = bounds(last, y);
                    if lower >= reach {
                        last = Some((y, upper, lower));
                        continue;
                    }
                    near |= search.run((a.mesh(), tree_a, Some(&to_b)), (y, upper), band, &mut counters);
                    last = Some((y, search.best, search.lower));
                    for &(near, p, d, n) in &search.found {
                        let (kind, feature_a, normal) = match near {
                            Near::Face(f) => (ContactKind::FaceVertex, f, if (y - p).dot(n) > 0.0 { -n } else { n }),
                            Near::Edge(e) => (ContactKind::EdgeVertex, e, direction(y, p, -n)),
                            Near::Vertex(v) => (ContactKind::VertexVertexForB, v, direction(y, p, -n)),
                        };
                        let pair = ProximityPair {
                            kind,
                            feature_a,
                            feature_b: w,
                            point_a: p,
                            point_b: y,
                            distance: d,
                            normal,
                        };
                        found.readings.push(pair);
                    }
                }
            }
            if near {
                found.near.push(k as u32);
            }
        }
        (found, counters)
    };
    // Long lists are split over two threads, the halves joined in order: the answer is the
    // one a single thread gives.
    let (mut found, counters) = if owners.len() >= PARALLEL_OWNERS && crate::parallel::cores() >= 2 {
        let (first, second) = owners.split_at(owners.len() / 2);
        let ((mut found, mut counters), (rest, more)) = crate::parallel::join(|| run(first), || run(second));
        found.readings.extend(rest.readings);
        found.near.extend(rest.near);
        counters += more;
        counters.parallel_splits += 1;
        (found, counters)
    } else {
        run(owners)
    };
    for p in &mut found.readings {
        p.point_a = pose_b.transform_point(p.point_a);
        p.point_b = pose_b.transform_point(p.point_b);
        p.normal = pose_b.transform_vector(p.normal);
    }
    Counted { value: found, counters }
}

/// A feature of the searched mesh.
#[derive(Clone, Copy, Debug)]
enum Near {
    Face(u32),
    Edge(u32),
    Vertex(u32),
}

/// Distance from `x` to the box (0 inside).
fn point_box_distance(obb: &Obb, x: DVec3) -> f64 {
    let d = x - obb.center;
    let outside = DVec3::new(
        (d.dot(obb.axes[0]).abs() - obb.half.x).max(0.0),
        (d.dot(obb.axes[1]).abs() - obb.half.y).max(0.0),
        (d.dot(obb.axes[2]).abs() - obb.half.z).max(0.0),
    );
    outside.length()
}

/// One point's nearest readings on a mesh, its buffers kept between points.
#[derive(Default)]
struct NearestSearch {
    /// Bounds on the last point's nearest distance from above and below.
    best: f64,
    lower: f64,
    stack: Vec<u32>,
    found: Vec<(Near, DVec3, f64, DVec3)>,
}

impl NearestSearch {
    /// Leaves in `found` the direct readings of `x` on the mesh (its points placed by
    /// `place`, B's frame) within `band.tie` of the nearest and in `[band.from, band.within)`,
    /// each with its point, distance and the normal of the triangle that owns its feature;
    /// returns whether `x` is near (`VertexReadings::near`). Branch and bound over the tree,
    /// the band widened by the margin: a node whose box is farther than the nearest so far
    /// plus the tie (or than `within + margin`) holds no reading kept, and once the nearest
    /// so far plus the tie is nearer than `from − margin`, the point is not near. `seed` bounds
    /// the nearest distance from above (infinity for no bound).
    fn run(
        &mut self,
        (mesh, tree, place): (&Mesh, &ObbTree, Option<&Pose>),
        (x, seed): (DVec3, f64),
        band: VertexBand,
        counters: &mut Counters,
    ) -> bool {
        self.found.clear();
        let at = |p: DVec3| place.map_or(p, |t| t.transform_point(p));
        // Boxes are measured in the mesh's own frame (a distance does not change with the
        // frame; the features are read in B's, as `proximity` reads them).
        let local = place.map_or(x, |t| t.inverse().transform_point(x));
        let lower = |n: u32, counters: &mut Counters| {
            counters.bv_tests += 1;
            point_box_distance(&tree.node(n).obb, local)
        };
        self.stack.clear();
        let (from, reach) = (band.from - band.margin, band.within + band.margin);
        let mut best = seed;
        self.lower = 0.0;
        if best + band.tie < from {
            self.best = best;
            return false;
        }
        // The least bound of the nodes not opened, and the least distance to a triangle of
        // those opened: the lesser is the nearest distance, or a bound on it from below. Not
        // the readings' least: rounding can leave a point with no reading (a vertex level
        // with a face to one ulp beside its corner fails both the corner's and the edge's
        // test; found by review), and its bound would then say nothing.
        let mut pruned = f64::INFINITY;
        let mut exact = f64::INFINITY;
        // The box bound is rounded; boxes are grown by 10⁻⁹ of the mesh, and this margin of
        // 10⁻⁹ of the limit keeps a reading on the limit itself.
        let open = |lb: f64, best: f64| lb <= (best + band.tie).min(reach) * (1.0 + 1e-9);
        let root = lower(0, counters);
        if open(root, best) {
            self.stack.push(0);
        } else {
            pruned = root;
        }
        while let Some(n) = self.stack.pop() {
            if best + band.tie < from {
                // Every reading is nearer than `from`, even after a move within the margin.
                self.found.clear();
                self.best = best;
                return false;
            }
            let node = tree.node(n);
            if !node.is_leaf() {
                let (l, r) = tree.children(n);
                let (dl, dr) = (lower(l, counters), lower(r, counters));
                // The nearer child on top: the bound tightens sooner.
                let (first, second) = if dl <= dr { ((l, dl), (r, dr)) } else { ((r, dr), (l, dl)) };
                for (c, d) in [second, first] {
                    if open(d, best) {
                        self.stack.push(c);
                    } else {
                        pruned = pruned.min(d);
                    }
                }
                continue;
            }
            for &t in tree.leaf_triangles(node) {
                let tri = mesh.triangle_points(t).map(at);
                exact = exact.min((closest_point_on_triangle(x, tri[0], tri[1], tri[2]) - x).length());
                let n = place.map_or(mesh.normal(t), |p| p.transform_vector(mesh.normal(t)));
                let mut keep = |near: Near, p: DVec3, d: f64, found: &mut Vec<_>| {
                    best = best.min(d);
                    if d >= band.from && d < band.within {
                        found.push((near, p, d, n));
                    }
                };
                counters.vf_tests += 1;
                if let Some(p) = project_inside(x, &tri, n) {
                    keep(Near::Face(t), p, (x - p).length(), &mut self.found);
                }
                for e in mesh.owned_edges(t) {
                    counters.vf_tests += 1;
                    if let Some(p) = nearest_inside_edge(mesh, e, x, at) {
                        keep(Near::Edge(e), p, (x - p).length(), &mut self.found);
                    }
                }
                for w in mesh.owned_vertices(t) {
                    counters.vf_tests += 1;
                    let y = at(mesh.vertex(w));
                    if nearest_at_vertex(mesh, w, x, at) {
                        keep(Near::Vertex(w), y, (x - y).length(), &mut self.found);
                    }
                }
            }
        }
        let limit = best + band.tie;
        self.found.retain(|&(_, _, d, _)| d <= limit);
        self.best = best.min(exact);
        self.lower = exact.min(pruned);
        // Every node with a point nearer than `reach` was opened (its bound is at most that
        // distance, and at most `best`), so under reach `exact` is the nearest distance.
        exact + band.tie >= from && exact < reach
    }
}

/// Projection of `x` on the plane of `tri` if it falls inside the (closed) triangle, to
/// within rounding: a vertex exactly over a side, as coincident CAD geometry puts it, is
/// reported whichever way its last bit rounds.
fn project_inside(x: DVec3, tri: &[DVec3; 3], n: DVec3) -> Option<DVec3> {
    let p = x - n * (x - tri[0]).dot(n);
    let inside = (0..3).all(|i| {
        let (e, d) = (tri[(i + 1) % 3] - tri[i], p - tri[i]);
        e.cross(d).dot(n) >= -1e-12 * e.length() * d.length()
    });
    inside.then_some(p)
}

/// Unit direction from `from` to `to`, or `fallback` when they coincide.
fn direction(from: DVec3, to: DVec3, fallback: DVec3) -> DVec3 {
    (to - from).try_normalize().unwrap_or(fallback)
}

/// The nearest point to `x` of edge `e` of `mesh` (its points mapped by `place`) when that
/// point is inside the edge and the edge is nearer `x` than its faces are there: `x − p`
/// points into no face's side of the edge (docs/queries.md §6).
fn nearest_inside_edge(mesh: &Mesh, e: u32, x: DVec3, place: impl Fn(DVec3) -> DVec3) -> Option<DVec3> {
    let [a, b] = mesh.edge_points(e).map(&place);
    let ab = b - a;
    let t = (x - a).dot(ab) / ab.length_squared();
    if !(t > 0.0 && t < 1.0) {
        return None;
    }
    let p = a + t * ab;
    let [va, vb] = mesh.edge(e);
    let into_a_face = mesh.edge_faces(e).iter().any(|&f| {
        let Some(&w) = mesh.triangle(f).iter().find(|&&w| w != va && w != vb) else { return false };
        let across = (place(mesh.vertex(w)) - a).reject_from(ab);
        (x - p).dot(across) > 0.0
    });
    (!into_a_face).then_some(p)
}

/// Whether vertex `v` of `mesh` (its points mapped by `place`) is the nearest point of its
/// edges to `x`: `x` lies at or behind `v` along each of them (docs/queries.md §6).
fn nearest_at_vertex(mesh: &Mesh, v: u32, x: DVec3, place: impl Fn(DVec3) -> DVec3) -> bool {
    let y = place(mesh.vertex(v));
    mesh.vertex_edges(v).iter().all(|&e| {
        let [p, q] = mesh.edge(e);
        let z = place(mesh.vertex(if p == v { q } else { p }));
        (x - y).dot(z - y) <= 0.0
    })
}

/// Whether the three `corners` lie on one side of the plane through `origin` with unit normal
/// `normal`, each at least `distance` from it, with a margin for rounding (a relative 10⁻⁹ of
/// the distance, and 10⁻¹² of the coordinates' size) so that it never skips a pair nearer
/// than `distance`. False for a zero normal.
fn apart_along(normal: DVec3, origin: DVec3, corners: &[DVec3; 3], distance: f64) -> bool {
    let gap = distance * (1.0 + 1e-9) + 1e-12 * origin.abs().max_element();
    let h = corners.map(|c| normal.dot(c - origin));
    h.iter().all(|&x| x >= gap) || h.iter().all(|&x| x <= -gap)
}

#[allow(clippy::too_many_arguments)]
fn leaf_pair(
    mesh_a: &Mesh,
    to_b: &Pose,
    mesh_b: &Mesh,
    ta: u32,
    tb: u32,
    distance: f64,
    counters: &mut Counters,
    out: &mut Vec<ProximityPair>,
) {
    if !apart(mesh_a, to_b, mesh_b, ta, tb, distance) {
        feature_pairs(mesh_a, to_b, mesh_b, ta, tb, distance, counters, out);
    }
}

/// Whether triangles `ta` (of A, placed by `to_b`) and `tb` are at least `distance` apart
/// along either's face normal. Every pair [`feature_pairs`] reports joins a point of each
/// triangle, so then it reports none (docs/queries.md §6, "Triangles apart along a face
/// normal").
fn apart(mesh_a: &Mesh, to_b: &Pose, mesh_b: &Mesh, ta: u32, tb: u32, distance: f64) -> bool {
    let tri_b = mesh_b.triangle_points(tb);
    let tri_a = mesh_a.triangle_points(ta).map(|p| to_b.transform_point(p));
    let n_a = to_b.transform_vector(mesh_a.normal(ta));
    apart_along(mesh_b.normal(tb), tri_b[0], &tri_a, distance) || apart_along(n_a, tri_a[0], &tri_b, distance)
}

/// The feature pairs of triangles `ta` and `tb` nearer than `distance` (§6's list).
#[allow(clippy::too_many_arguments)]
fn feature_pairs(
    mesh_a: &Mesh,
    to_b: &Pose,
    mesh_b: &Mesh,
    ta: u32,
    tb: u32,
    distance: f64,
    counters: &mut Counters,
    out: &mut Vec<ProximityPair>,
) {
    let tri_b = mesh_b.triangle_points(tb);
    let n_b = mesh_b.normal(tb);
    let tri_a = mesh_a.triangle_points(ta).map(|p| to_b.transform_point(p));
    let n_a = to_b.transform_vector(mesh_a.normal(ta));
    for v in mesh_a.owned_vertices(ta) {
        counters.vf_tests += 1;
        let x = to_b.transform_point(mesh_a.vertex(v));
        if let Some(p) = project_inside(x, &tri_b, n_b) {
            let d = (x - p).length();
            if d < distance {
                let normal = if (x - p).dot(n_b) < 0.0 { -n_b } else { n_b };
                out.push(ProximityPair {
                    kind: ContactKind::VertexFace,
                    feature_a: v,
                    feature_b: tb,
                    point_a: x,
                    point_b: p,
                    distance: d,
                    normal,
                });
            }
        }
    }
    for v in mesh_b.owned_vertices(tb) {
        counters.fv_tests += 1;
        let y = mesh_b.vertex(v);
        if let Some(p) = project_inside(y, &tri_a, n_a) {
            let d = (y - p).length();
            if d < distance {
                let normal = if (y - p).dot(n_a) > 0.0 { -n_a } else { n_a };
                out.push(ProximityPair {
                    kind: ContactKind::FaceVertex,
                    feature_a: ta,
                    feature_b: v,
                    point_a: p,
                    point_b: y,
                    distance: d,
                    normal,
                });
            }
        }
    }
    // A vertex and an edge or a vertex of the other mesh, each pair tested directly: found
    // through edge/edge closest points, a vertex's reading was lost whenever the edge it was
    // reported through passed nearer the other edge elsewhere (docs/queries.md §6).
    for v in mesh_a.owned_vertices(ta) {
        let x = to_b.transform_point(mesh_a.vertex(v));
        for eb in mesh_b.owned_edges(tb) {
            counters.vf_tests += 1;
            if let Some(p) = nearest_inside_edge(mesh_b, eb, x, |e| e) {
                let d = (x - p).length();
                if d < distance {
                    let normal = direction(p, x, n_b);
                    out.push(ProximityPair {
                        kind: ContactKind::VertexEdge,
                        feature_a: v,
                        feature_b: eb,
                        point_a: x,
                        point_b: p,
                        distance: d,
                        normal,
                    });
                }
            }
        }
        for w in mesh_b.owned_vertices(tb) {
            counters.vf_tests += 1;
            let y = mesh_b.vertex(w);
            let d = (x - y).length();
            if d >= distance {
                continue;
            }
            // Read for A's vertex when B's vertex is its nearest point (its side then comes
            // from B's vertex), for B's vertex when A's is its nearest point, or both. Two
            // coincident vertices are each other's nearest point and touch; B's vertex reads
            // 0 against A's faces there too, so a second reading would only add a row.
            let for_a = nearest_at_vertex(mesh_b, w, x, |p| p);
            let for_b = d > 0.0 && nearest_at_vertex(mesh_a, v, y, |p| to_b.transform_point(p));
            for (read, kind) in [(for_a, ContactKind::VertexVertex), (for_b, ContactKind::VertexVertexForB)] {
                if read {
                    out.push(ProximityPair {
                        kind,
                        feature_a: v,
                        feature_b: w,
                        point_a: x,
                        point_b: y,
                        distance: d,
                        normal: direction(y, x, n_b),
                    });
                }
            }
        }
    }
    for ea in mesh_a.owned_edges(ta) {
        for w in mesh_b.owned_vertices(tb) {
            counters.fv_tests += 1;
            let y = mesh_b.vertex(w);
            if let Some(p) = nearest_inside_edge(mesh_a, ea, y, |p| to_b.transform_point(p)) {
                let d = (y - p).length();
                if d < distance {
                    out.push(ProximityPair {
                        kind: ContactKind::EdgeVertex,
                        feature_a: ea,
                        feature_b: w,
                        point_a: p,
                        point_b: y,
                        distance: d,
                        normal: direction(y, p, -n_a),
                    });
                }
            }
        }
    }
    // Two edges whose closest points are inside both; and, as before the direct tests, a
    // vertex of one edge and the other edge (or two vertices) at the edges' closest points,
    // through the vertex's first edge, when the direct tests above leave it out: such a pair
    // is not the vertex's nearest reading, but the solver's rows have always included it
    // (without it budgeted drags in the solver's tests stalled, docs/queries.md §6).
    for ea in mesh_a.owned_edges(ta) {
        let [va0, va1] = mesh_a.edge(ea);
        let (p, q) = (to_b.transform_point(mesh_a.vertex(va0)), to_b.transform_point(mesh_a.vertex(va1)));
        for eb in mesh_b.owned_edges(tb) {
            counters.ee_tests += 1;
            let [vb0, vb1] = mesh_b.edge(eb);
            let (c, d) = (mesh_b.vertex(vb0), mesh_b.vertex(vb1));
            let (s, t, pa, pb) = closest_points_segments(p, q, c, d);
            let dist = (pa - pb).length();
            if dist >= distance {
                continue;
            }
            let end_a = (s == 0.0).then_some(va0).or((s == 1.0).then_some(va1));
            let end_b = (t == 0.0).then_some(vb0).or((t == 1.0).then_some(vb1));
            // A vertex is reported through its first incident edge only.
            let first_a = |v: u32| mesh_a.vertex_edges(v).first() == Some(&ea);
            let first_b = |v: u32| mesh_b.vertex_edges(v).first() == Some(&eb);
            let cross = (q - p).cross(d - c);
            // Two edges that cross: inside both, or at a vertex that splits a straight edge
            // (no corner: docs/contact-from-start.md §3, "A crossing at a vertex"), reported
            // from each half besides the vertex's reading below.
            if (end_a, end_b) == (None, None) || edges_cross((mesh_a, ea, to_b), (mesh_b, eb, &Pose::IDENTITY)) {
                let n = cross.try_normalize().unwrap_or(n_b);
                let n = if n.dot(pa - pb) < 0.0 { -n } else { n };
                out.push(ProximityPair {
                    kind: ContactKind::EdgeEdge,
                    feature_a: ea,
                    feature_b: eb,
                    point_a: pa,
                    point_b: pb,
                    distance: dist,
                    normal: if dist > 0.0 { direction(pb, pa, n) } else { n },
                });
            }
            let (kind, fa, fb, fallback) = match (end_a, end_b) {
                (Some(v), None) if first_a(v) && nearest_inside_edge(mesh_b, eb, pa, |e| e).is_none() => {
                    (ContactKind::VertexEdge, v, eb, cross.try_normalize().unwrap_or(DVec3::Z))
                }
                (None, Some(v))
                    if first_b(v) && nearest_inside_edge(mesh_a, ea, pb, |x| to_b.transform_point(x)).is_none() =>
                {
                    (ContactKind::EdgeVertex, ea, v, cross.try_normalize().unwrap_or(DVec3::Z))
                }
                (Some(x), Some(y)) if first_a(x) && first_b(y) && !nearest_at_vertex(mesh_b, y, pa, |e| e) => {
                    (ContactKind::VertexVertex, x, y, n_b)
                }
                _ => continue,
            };
            let normal = if dist > 0.0 { direction(pb, pa, fallback) } else { fallback };
            out.push(ProximityPair {
                kind,
                feature_a: fa,
                feature_b: fb,
                point_a: pa,
                point_b: pb,
                distance: dist,
                normal,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;
    use proptest::prelude::*;

    fn arb_point() -> impl Strategy<Value = DVec3> {
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn triangle(corners: [DVec3; 3]) -> Option<Mesh> {
        Mesh::new(corners.to_vec(), vec![[0, 1, 2]]).ok().filter(|m| !m.is_degenerate(0))
    }

    proptest! {
        /// The skip is exact: whenever two triangles are apart along a face normal, the
        /// feature tests find nothing nearer than the distance (two triangles, often nearly
        /// parallel and a distance or so apart, where the skip's bound is tight).
        #[test]
        fn triangles_apart_along_a_normal_have_no_feature_pair_nearer(
            a in prop::array::uniform3(arb_point()),
            b in prop::array::uniform3(arb_point()),
            lift in -0.3..0.3f64,
            flatten in prop::bool::ANY,
            axis in arb_point(),
            angle in -0.2..0.2f64,
            distance in 0.01..0.5f64,
        ) {
            // Flattened: both triangles near the plane z = 0, B lifted by about a distance.
            let squash = |p: DVec3, z: f64| if flatten { DVec3::new(p.x, p.y, 0.05 * p.z + z) } else { p + DVec3::Z * z };
            let (Some(ma), Some(mb)) = (triangle(a.map(|p| squash(p, 0.0))), triangle(b.map(|p| squash(p, lift))))
            else {
                return Ok(());
            };
            let to_b = Pose {
                rotation: DQuat::from_axis_angle(axis.try_normalize().unwrap_or(DVec3::Z), angle),
                translation: DVec3::ZERO,
            };
            let mut out = Vec::new();
            feature_pairs(&ma, &to_b, &mb, 0, 0, distance, &mut Counters::default(), &mut out);
            if apart(&ma, &to_b, &mb, 0, 0, distance) {
                prop_assert!(out.is_empty(), "skipped, yet {} pairs nearer than {distance}: {:?}", out.len(), out.first());
            }
        }
    }
}
