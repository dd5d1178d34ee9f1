//! What the tree traversals share: which node of a pair to open, and the static traversal
//! used by `intersects` and `proximity`.

use super::Counters;
use crate::bvh::{Node, ObbTree, separated};
use crate::{Collider, Pose};
use std::ops::ControlFlow;

/// Whether to open A's node rather than B's: the one that is not a leaf, else the larger box.
fn open_a(node_a: &Node, node_b: &Node) -> bool {
    match (node_a.is_leaf(), node_b.is_leaf()) {
        (false, true) => true,
        (true, false) => false,
        _ => node_a.obb.radius() >= node_b.obb.radius(),
    }
}

/// The two node pairs below `(na, nb)`, left child first: A's node's children if
/// [`open_a`], else B's.
pub(crate) fn child_pairs(tree_a: &ObbTree, tree_b: &ObbTree, na: u32, nb: u32) -> [(u32, u32); 2] {
    if open_a(tree_a.node(na), tree_b.node(nb)) {
        let (l, r) = tree_a.children(na);
        [(l, nb), (r, nb)]
    } else {
        let (l, r) = tree_b.children(nb);
        [(na, l), (na, r)]
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
    let mut stack = vec![(0u32, 0u32)];
    near_leaf_pairs_from(a, to_b, b, margin, counters, &mut stack, usize::MAX, &mut visit);
}

/// [`near_leaf_pairs`] from the node pairs on `stack`, until it is empty, `visit` breaks
/// (true), or `pops` pairs were taken.
#[allow(clippy::too_many_arguments)]
fn near_leaf_pairs_from(
    a: &Collider,
    to_b: &Pose,
    b: &Collider,
    margin: f64,
    counters: &mut Counters,
    stack: &mut Vec<(u32, u32)>,
    pops: usize,
    visit: &mut impl FnMut(&[u32], &[u32], &mut Counters) -> ControlFlow<()>,
) -> bool {
    let (tree_a, tree_b) = (a.tree(), b.tree());
    for _ in 0..pops {
        let Some((na, nb)) = stack.pop() else { break };
        let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
        counters.bv_tests += 1;
        if separated(&node_b.obb, &node_a.obb.transformed(to_b), margin) {
            continue;
        }
        if node_a.is_leaf() && node_b.is_leaf() {
            if visit(tree_a.leaf_triangles(node_a), tree_b.leaf_triangles(node_b), counters).is_break() {
                return true;
            }
        } else {
            stack.extend(child_pairs(tree_a, tree_b, na, nb));
        }
    }
    false
}

/// A visitor that never breaks and appends what `visit` makes of a leaf pair to `out`.
fn collecting<'a, T>(
    visit: &'a impl Fn(&[u32], &[u32], &mut Vec<T>),
    out: &'a mut Vec<T>,
) -> impl FnMut(&[u32], &[u32], &mut Counters) -> ControlFlow<()> + 'a {
    move |la, lb, _| {
        visit(la, lb, out);
        ControlFlow::Continue(())
    }
}

/// Every pair of leaves whose boxes come within `margin` (as [`near_leaf_pairs`] visits
/// them), as `visit` maps each to a list, from the node pairs on `stack` and for at most
/// `pops` of them (at least one; the rest stay on `stack` for a later call). A traversal
/// larger than a few hundred node pairs is split over two threads (alternate pending pairs to
/// each). The lists are concatenated in no particular order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn collect_near_leaf_pairs_from<T: Send>(
    a: &Collider,
    to_b: &Pose,
    b: &Collider,
    margin: f64,
    counters: &mut Counters,
    stack: &mut Vec<(u32, u32)>,
    pops: usize,
    visit: impl Fn(&[u32], &[u32], &mut Vec<T>) + Sync,
) -> Vec<T> {
    let mut out = Vec::new();
    let visit = &visit;
    let first = pops.clamp(1, 256);
    near_leaf_pairs_from(a, to_b, b, margin, counters, stack, first, &mut collecting(visit, &mut out));
    let left = pops.saturating_sub(first);
    if left == 0 || stack.is_empty() {
        return out;
    }
    if stack.len() < 2 || crate::parallel::cores() < 2 {
        near_leaf_pairs_from(a, to_b, b, margin, counters, stack, left, &mut collecting(visit, &mut out));
        return out;
    }
    let mut theirs: Vec<(u32, u32)> = Vec::new();
    let mut mine: Vec<(u32, u32)> = Vec::new();
    for (k, p) in std::mem::take(stack).into_iter().enumerate() {
        if k % 2 == 0 { mine.push(p) } else { theirs.push(p) }
    }
    let (their_pops, my_pops) = (left / 2, left - left / 2);
    let theirs_ref = &mut theirs;
    let ((), (more, their_counters)) = crate::parallel::join(
        || {
            near_leaf_pairs_from(a, to_b, b, margin, counters, &mut mine, my_pops, &mut collecting(visit, &mut out));
        },
        move || {
            let (mut more, mut c) = (Vec::new(), Counters::default());
            near_leaf_pairs_from(a, to_b, b, margin, &mut c, theirs_ref, their_pops, &mut collecting(visit, &mut more));
            (more, c)
        },
    );
    *counters += their_counters;
    counters.parallel_splits += 1;
    out.extend(more);
    *stack = mine;
    stack.append(&mut theirs);
    out
}
