//! Static interpenetration test: does any triangle of A meet a triangle of B?

use super::{Counted, Counters};
use crate::bvh::separated;
use crate::geometry::triangles_intersect;
use crate::{Collider, Pose};

/// Whether A at `pose_a` and B at `pose_b` share a point (touching counts). This is how every
/// "no interpenetration" claim is checked.
pub fn intersects(a: &Collider, pose_a: &Pose, b: &Collider, pose_b: &Pose) -> Counted<bool> {
    let to_b = pose_b.inverse() * *pose_a;
    let (tree_a, tree_b) = (a.tree(), b.tree());
    let mut counters = Counters::default();
    let mut stack = vec![(0u32, 0u32)];
    while let Some((na, nb)) = stack.pop() {
        let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
        counters.bv_tests += 1;
        if separated(&node_b.obb, &node_a.obb.transformed(&to_b), 0.0) {
            continue;
        }
        match (node_a.is_leaf(), node_b.is_leaf()) {
            (true, true) => {
                for &ta in tree_a.leaf_triangles(node_a) {
                    let tri_a = a.mesh().triangle_points(ta).map(|p| to_b.transform_point(p));
                    for &tb in tree_b.leaf_triangles(node_b) {
                        counters.triangle_tests += 1;
                        if triangles_intersect(&tri_a, &b.mesh().triangle_points(tb)) {
                            return Counted { value: true, counters };
                        }
                    }
                }
            }
            (leaf_a, leaf_b) => {
                if leaf_b || (!leaf_a && node_a.obb.radius() >= node_b.obb.radius()) {
                    let (l, r) = tree_a.children(na);
                    stack.extend([(l, nb), (r, nb)]);
                } else {
                    let (l, r) = tree_b.children(nb);
                    stack.extend([(na, l), (na, r)]);
                }
            }
        }
    }
    Counted { value: false, counters }
}
