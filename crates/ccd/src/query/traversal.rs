//! What the tree traversals share: which node of a pair to open, and the static traversal
//! used by `intersects` and `proximity`.

use super::Counters;
use crate::bvh::{Node, separated};
use crate::{Collider, Pose};
use std::ops::ControlFlow;

/// Whether to open A's node rather than B's: the one that is not a leaf, else the larger box.
pub(super) fn open_a(node_a: &Node, node_b: &Node) -> bool {
    match (node_a.is_leaf(), node_b.is_leaf()) {
        (false, true) => true,
        (true, false) => false,
        _ => node_a.obb.radius() >= node_b.obb.radius(),
    }
}

/// Calls `visit(triangles of A, triangles of B)` for every pair of leaves whose boxes come
/// within `margin`, A placed in B's frame by `to_b`, until `visit` breaks. Counts box tests.
pub(crate) fn near_leaf_pairs(
    a: &Collider,
    to_b: &Pose,
    b: &Collider,
    margin: f64,
    counters: &mut Counters,
    mut visit: impl FnMut(&[u32], &[u32], &mut Counters) -> ControlFlow<()>,
) {
    let (tree_a, tree_b) = (a.tree(), b.tree());
    let mut stack = vec![(0u32, 0u32)];
    while let Some((na, nb)) = stack.pop() {
        let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
        counters.bv_tests += 1;
        if separated(&node_b.obb, &node_a.obb.transformed(to_b), margin) {
            continue;
        }
        if node_a.is_leaf() && node_b.is_leaf() {
            if visit(tree_a.leaf_triangles(node_a), tree_b.leaf_triangles(node_b), counters).is_break() {
                return;
            }
        } else if open_a(node_a, node_b) {
            let (l, r) = tree_a.children(na);
            stack.extend([(l, nb), (r, nb)]);
        } else {
            let (l, r) = tree_b.children(nb);
            stack.extend([(na, l), (na, r)]);
        }
    }
}
