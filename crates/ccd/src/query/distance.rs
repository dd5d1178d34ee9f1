//! The minimum distance between two posed meshes and its closest pair: branch and bound over
//! the two OBB trees (docs/queries.md §1).

use super::traversal::child_pairs;
use super::{ContactKind, Counted, Counters};
use crate::bvh::distance_lower_bound;
use crate::geometry::{TriangleDistance, TriangleFeature, triangle_distance};
use crate::{Collider, Mesh, Pose};
use glam::DVec3;

/// Node pairs whose lower bound is within this fraction of the two root boxes' radii of the
/// best distance are dropped: ties of parallel faces end there (docs/queries.md §1.3).
const SLACK: f64 = 1e-8;

/// A vertex, edge or face of a mesh, by its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    Vertex(u32),
    Edge(u32),
    Face(u32),
}

/// The closest points of two meshes, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPair {
    pub distance: f64,
    pub point_a: DVec3,
    pub point_b: DVec3,
    /// Unit, from B toward A: `(point_a − point_b) / distance`; at distance 0 B's face normal
    /// (A's reversed when A's feature is a face, the edges' cross product for two edges).
    pub normal: DVec3,
    /// The lowest-dimensional features holding the closest points (as [`ProximityPair`]
    /// names them, see [`ClosestPair::kind`]); for a crossing, an edge and a face.
    ///
    /// [`ProximityPair`]: super::ProximityPair
    pub feature_a: Feature,
    pub feature_b: Feature,
    /// The meshes intersect and the pair is where an edge of one crosses a face of the other
    /// (both points are that crossing). Touching features are not a crossing.
    pub crossing: bool,
    /// The triangles the points lie on.
    pub triangle_a: u32,
    pub triangle_b: u32,
}

impl ClosestPair {
    /// The pair as a proximity pair's kind (vertex/face, …, vertex/vertex); `None` for a
    /// crossing (an edge through a face).
    pub fn kind(&self) -> Option<ContactKind> {
        use Feature::*;
        match (self.feature_a, self.feature_b) {
            (Vertex(_), Face(_)) => Some(ContactKind::VertexFace),
            (Face(_), Vertex(_)) => Some(ContactKind::FaceVertex),
            (Edge(_), Edge(_)) => Some(ContactKind::EdgeEdge),
            (Vertex(_), Edge(_)) => Some(ContactKind::VertexEdge),
            (Edge(_), Vertex(_)) => Some(ContactKind::EdgeVertex),
            (Vertex(_), Vertex(_)) => Some(ContactKind::VertexVertex),
            _ => None,
        }
    }
}

/// The closest pair of A (at `pose_a`) and B (at `pose_b`), or `None` when their distance is
/// at least `max` (`f64::INFINITY` for no limit). Intersecting meshes give distance 0 at a
/// touching pair or a crossing. The distance is within `1e-8 × (R_A + R_B)` of the true
/// minimum, `R` the root boxes' half-diagonals (docs/queries.md §1.3). Non-finite poses or a
/// `max` that is not positive give `None` at once. Counts box bounds (`bv_tests`) and
/// triangle pairs (`triangle_tests`).
pub fn distance(a: &Collider, pose_a: &Pose, b: &Collider, pose_b: &Pose, max: f64) -> Counted<Option<ClosestPair>> {
    let mut counters = Counters::default();
    if !(max > 0.0) || !pose_a.is_finite() || !pose_b.is_finite() {
        return Counted { value: None, counters };
    }
    let to_b = pose_b.inverse() * *pose_a;
    let (tree_a, tree_b) = (a.tree(), b.tree());
    let slack = SLACK * (tree_a.root().obb.radius() + tree_b.root().obb.radius());
    let lower = |na: u32, nb: u32, counters: &mut Counters| {
        counters.bv_tests += 1;
        distance_lower_bound(&tree_b.node(nb).obb, &tree_a.node(na).obb.transformed(&to_b))
    };

    let mut best: Option<(TriangleDistance, u32, u32)> = None;
    // Pairs whose lower bound reaches this are dropped.
    let mut bound = max;
    let mut stack = vec![(lower(0, 0, &mut counters), 0u32, 0u32)];
    'search: while let Some((low, na, nb)) = stack.pop() {
        if low >= bound {
            continue;
        }
        let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
        if node_a.is_leaf() && node_b.is_leaf() {
            for &ta in tree_a.leaf_triangles(node_a) {
                let tri_a = a.mesh().triangle_points(ta).map(|p| to_b.transform_point(p));
                for &tb in tree_b.leaf_triangles(node_b) {
                    counters.triangle_tests += 1;
                    let d = triangle_distance(&tri_a, &b.mesh().triangle_points(tb));
                    if d.distance < max && best.is_none_or(|(x, _, _)| d.distance < x.distance) {
                        best = Some((d, ta, tb));
                        bound = d.distance - slack;
                        if d.distance == 0.0 {
                            break 'search;
                        }
                    }
                }
            }
            continue;
        }
        let children = child_pairs(tree_a, tree_b, na, nb);
        let [x, y] = children.map(|(ca, cb)| (lower(ca, cb, &mut counters), ca, cb));
        // The nearer pair is popped first.
        let (near, far) = if x.0 <= y.0 { (x, y) } else { (y, x) };
        for pair in [far, near] {
            if pair.0 < bound {
                stack.push(pair);
            }
        }
    }
    let value = best.map(|(d, ta, tb)| closest_pair(a.mesh(), &to_b, b.mesh(), pose_b, &d, ta, tb));
    Counted { value, counters }
}

/// The triangle pair's closest points as mesh features, in world coordinates (`d` is in B's
/// frame, A's triangle placed by `to_b`).
fn closest_pair(
    mesh_a: &Mesh,
    to_b: &Pose,
    mesh_b: &Mesh,
    pose_b: &Pose,
    d: &TriangleDistance,
    ta: u32,
    tb: u32,
) -> ClosestPair {
    let feature = |mesh: &Mesh, t: u32, f: TriangleFeature| match f {
        TriangleFeature::Vertex(i) => Feature::Vertex(mesh.triangle(t)[i]),
        TriangleFeature::Edge(i) => Feature::Edge(mesh.triangle_edges(t)[i]),
        TriangleFeature::Face => Feature::Face(t),
    };
    let (feature_a, feature_b) = (feature(mesh_a, ta, d.feature_a), feature(mesh_b, tb, d.feature_b));
    let n_b = mesh_b.normal(tb);
    let normal = if d.distance > 0.0 {
        (d.point_a - d.point_b) / d.distance
    } else {
        match (feature_a, feature_b) {
            (Feature::Face(_), _) => -to_b.transform_vector(mesh_a.normal(ta)),
            (Feature::Edge(ea), Feature::Edge(eb)) => {
                let [p, q] = mesh_a.edge_points(ea).map(|x| to_b.transform_point(x));
                let [r, s] = mesh_b.edge_points(eb);
                (q - p).cross(s - r).try_normalize().unwrap_or(n_b)
            }
            _ => n_b,
        }
    };
    ClosestPair {
        distance: d.distance,
        point_a: pose_b.transform_point(d.point_a),
        point_b: pose_b.transform_point(d.point_b),
        normal: pose_b.transform_vector(normal),
        feature_a,
        feature_b,
        crossing: d.crossing,
        triangle_a: ta,
        triangle_b: tb,
    }
}
