//! What the tree traversals share: which node of a pair to open, and the static traversal
//! used by `intersects` and `proximity`.

use super::Counters;
use crate::bvh::{Node, Obb, ObbTree, separated};
use crate::{Collider, Pose};
use std::cell::RefCell;
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

/// Boxes of A's nodes placed in B's frame, kept for the nodes placed last: in a descent over
/// surfaces in contact a node of A meets tens of B's, and placing its box again for each was
/// about a third of every box test. Direct-mapped on the node's number (a subtree's nodes are
/// numbered together, so the nodes of one region rarely share a slot); a slot taken by
/// another node, or left by an earlier traversal, only means the box is placed again.
pub(crate) struct PlacedBoxes {
    /// `(traversal, node, box)`.
    slots: Vec<(u64, u32, Obb)>,
    traversal: u64,
}

/// 2,048 slots of 136 bytes: well inside a core's L2 cache.
const PLACED_SLOTS: usize = 2048;

impl PlacedBoxes {
    fn new() -> PlacedBoxes {
        PlacedBoxes { slots: vec![(0, 0, bytemuck::Zeroable::zeroed()); PLACED_SLOTS], traversal: 0 }
    }

    /// Node `node`'s box (`obb`) placed by `place`, placed at most once while it keeps its slot.
    #[inline]
    pub(crate) fn get(&mut self, node: u32, obb: &Obb, place: impl FnOnce(&Obb) -> Obb) -> &Obb {
        let slot = &mut self.slots[node as usize % PLACED_SLOTS];
        if slot.0 != self.traversal || slot.1 != node {
            *slot = (self.traversal, node, place(obb));
        }
        &slot.2
    }
}

thread_local! {
    static PLACED: RefCell<PlacedBoxes> = RefCell::new(PlacedBoxes::new());
}

/// Runs `f` with this thread's placed boxes, emptied for a new traversal (a traversal that
/// runs inside another on the same thread gets boxes of its own).
pub(crate) fn with_placed_boxes<R>(f: impl FnOnce(&mut PlacedBoxes) -> R) -> R {
    PLACED.with(|placed| match placed.try_borrow_mut() {
        Ok(mut placed) => {
            // Starts at 1: the slots' traversal 0 is no traversal's.
            placed.traversal += 1;
            f(&mut placed)
        }
        Err(_) => {
            let mut own = PlacedBoxes::new();
            own.traversal = 1;
            f(&mut own)
        }
    })
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
    with_placed_boxes(|placed| {
        for _ in 0..pops {
            let Some((na, nb)) = stack.pop() else { break };
            let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
            counters.bv_tests += 1;
            if separated(&node_b.obb, placed.get(na, &node_a.obb, |o| o.transformed(to_b)), margin) {
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
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};
    use proptest::prelude::*;

    fn obb_of(node: u32) -> Obb {
        let x = node as f64;
        Obb { center: DVec3::new(x, -x, 0.5 * x), axes: [DVec3::X, DVec3::Y, DVec3::Z], half: DVec3::splat(1.0 + x) }
    }

    proptest! {
        /// Whatever nodes share a slot, and across traversals with different placements,
        /// a placed box is always the node's own box placed by the traversal's own pose.
        #[test]
        fn placed_boxes_are_the_nodes_own(
            traversals in proptest::collection::vec(
                (-1.0..1.0f64, proptest::collection::vec(prop_oneof![0u32..8, 0u32..3 * PLACED_SLOTS as u32], 1..200)),
                1..6,
            ),
        ) {
            for (angle, nodes) in traversals {
                let pose = Pose::new(DQuat::from_rotation_z(angle), DVec3::new(angle, 2.0, -angle));
                with_placed_boxes(|placed| {
                    for &n in &nodes {
                        let got = *placed.get(n, &obb_of(n), |o| o.transformed(&pose));
                        assert_eq!(got, obb_of(n).transformed(&pose), "node {n}");
                    }
                });
            }
        }
    }

    /// A traversal inside another on the same thread gets boxes of its own.
    #[test]
    fn nested_traversals_keep_their_boxes() {
        let (p, q) = (Pose::from_translation(DVec3::X), Pose::from_translation(DVec3::Y));
        with_placed_boxes(|outer| {
            let first = *outer.get(3, &obb_of(3), |o| o.transformed(&p));
            with_placed_boxes(|inner| {
                assert_eq!(*inner.get(3, &obb_of(3), |o| o.transformed(&q)), obb_of(3).transformed(&q));
            });
            assert_eq!(*outer.get(3, &obb_of(3), |o| o.transformed(&p)), first);
        });
    }
}
