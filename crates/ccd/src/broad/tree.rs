//! A dynamic AABB tree over the parts of a scene, in the manner of Box2D's `b2DynamicTree`
//! (docs/queries.md §2.3): fat leaves, surface-area insertion, AVL-like rotations.

use super::Aabb;
use crate::query::{Counted, Counters};
use std::collections::HashMap;
use thiserror::Error;

const NULL: u32 = u32::MAX;

/// A fat box that no longer fits in its tight box grown by this many margins is refit.
const HUGE_MARGINS: f64 = 4.0;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum BroadPhaseError {
    #[error("part {id} has a box that is not finite or whose min exceeds its max: {aabb:?}")]
    InvalidBox { id: usize, aabb: Aabb },
}

/// The tree's shape and what its updates did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadStats {
    pub leaves: usize,
    pub nodes: usize,
    /// Height of the root (a lone leaf: 0).
    pub height: u32,
    /// Updates that had to reinsert their leaf, since the tree was made.
    pub reinserts: u64,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Fat box for a leaf, union of the children's for an internal node.
    aabb: Aabb,
    parent: u32,
    /// `NULL` for a leaf.
    children: [u32; 2],
    height: u32,
    /// The caller's id (leaves only).
    id: usize,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.children[0] == NULL
    }
}

/// A dynamic AABB tree of the parts' boxes, keyed by the caller's ids.
#[derive(Clone, Debug)]
pub struct BroadPhase {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    leaves: HashMap<usize, u32>,
    margin: f64,
    reinserts: u64,
}

impl BroadPhase {
    /// An empty tree whose leaves are the parts' boxes grown by `margin` (a length of the
    /// scene's scale; not positive or not finite counts as 0).
    pub fn new(margin: f64) -> BroadPhase {
        BroadPhase {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NULL,
            leaves: HashMap::new(),
            margin: if margin.is_finite() && margin > 0.0 { margin } else { 0.0 },
            reinserts: 0,
        }
    }

    pub fn margin(&self) -> f64 {
        self.margin
    }

    pub fn len(&self) -> usize {
        self.leaves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    pub fn contains(&self, id: usize) -> bool {
        self.leaves.contains_key(&id)
    }

    /// The fat box kept for a part.
    pub fn fat_box(&self, id: usize) -> Option<Aabb> {
        self.leaves.get(&id).map(|&n| self.nodes[n as usize].aabb)
    }

    pub fn stats(&self) -> BroadStats {
        BroadStats {
            leaves: self.leaves.len(),
            nodes: self.nodes.len() - self.free.len(),
            height: if self.root == NULL { 0 } else { self.nodes[self.root as usize].height },
            reinserts: self.reinserts,
        }
    }

    /// Adds part `id` with its (tight) box, or updates it when it is already there (as
    /// [`BroadPhase::update`]).
    pub fn insert(&mut self, id: usize, aabb: Aabb) -> Result<(), BroadPhaseError> {
        self.update(id, aabb).map(|_| ())
    }

    /// Moves part `id` to its new tight box (inserting it if new). Returns whether its leaf
    /// was reinserted: only when the box leaves the fat box, or the fat box has grown far
    /// too large for it. A box that is not finite or is inside out is refused and the tree
    /// left as it was.
    pub fn update(&mut self, id: usize, aabb: Aabb) -> Result<bool, BroadPhaseError> {
        if !aabb.is_finite() || aabb.min.cmpgt(aabb.max).any() {
            return Err(BroadPhaseError::InvalidBox { id, aabb });
        }
        if let Some(&leaf) = self.leaves.get(&id) {
            let fat = self.nodes[leaf as usize].aabb;
            if fat.contains(&aabb) && aabb.expanded(HUGE_MARGINS * self.margin).contains(&fat) {
                return Ok(false);
            }
            self.remove_leaf(leaf);
            self.nodes[leaf as usize].aabb = aabb.expanded(self.margin);
            self.insert_leaf(leaf);
            self.reinserts += 1;
            return Ok(true);
        }
        let leaf =
            self.allocate(Node { aabb: aabb.expanded(self.margin), parent: NULL, children: [NULL; 2], height: 0, id });
        self.leaves.insert(id, leaf);
        self.insert_leaf(leaf);
        Ok(true)
    }

    /// Removes part `id`; false when it was not there.
    pub fn remove(&mut self, id: usize) -> bool {
        let Some(leaf) = self.leaves.remove(&id) else { return false };
        self.remove_leaf(leaf);
        self.free.push(leaf);
        true
    }

    /// Appends to `out` every part whose fat box overlaps `aabb` (touching counts): never
    /// misses a part whose tight box overlaps it. Counts the boxes tested (`bv_tests`).
    pub fn query(&self, aabb: &Aabb, out: &mut Vec<usize>) -> Counters {
        let mut counters = Counters::default();
        self.visit(aabb, &mut counters, |id| out.push(id));
        counters
    }

    /// Every pair of parts whose fat boxes overlap, once each, smaller id first, sorted.
    pub fn pairs(&self) -> Counted<Vec<(usize, usize)>> {
        let mut counters = Counters::default();
        let mut pairs = Vec::new();
        for (&id, &leaf) in &self.leaves {
            let fat = self.nodes[leaf as usize].aabb;
            self.visit(&fat, &mut counters, |other| {
                if id < other {
                    pairs.push((id, other));
                }
            });
        }
        pairs.sort_unstable();
        Counted { value: pairs, counters }
    }

    fn visit(&self, aabb: &Aabb, counters: &mut Counters, mut report: impl FnMut(usize)) {
        if self.root == NULL {
            return;
        }
        let mut stack = vec![self.root];
        while let Some(i) = stack.pop() {
            let node = &self.nodes[i as usize];
            counters.bv_tests += 1;
            if !node.aabb.overlaps(aabb) {
                continue;
            }
            if node.is_leaf() {
                report(node.id);
            } else {
                stack.extend(node.children);
            }
        }
    }

    fn allocate(&mut self, node: Node) -> u32 {
        if let Some(i) = self.free.pop() {
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Box2D's insertion: the sibling where the leaf adds the least area to the tree.
    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let leaf_box = self.nodes[leaf as usize].aabb;
        let mut index = self.root;
        while !self.nodes[index as usize].is_leaf() {
            let node = self.nodes[index as usize];
            let area = node.aabb.area();
            let combined = node.aabb.union(&leaf_box).area();
            // Making the leaf this node's sibling creates a parent of the combined box.
            let here = 2.0 * combined;
            // Going further down grows this node (and its ancestors, already paid) anyway.
            let inherited = 2.0 * (combined - area);
            let cost = |child: u32| {
                let c = &self.nodes[child as usize];
                let grown = c.aabb.union(&leaf_box).area();
                if c.is_leaf() { grown + inherited } else { grown - c.aabb.area() + inherited }
            };
            let [c1, c2] = node.children;
            let (cost1, cost2) = (cost(c1), cost(c2));
            if here < cost1 && here < cost2 {
                break;
            }
            index = if cost1 < cost2 { c1 } else { c2 };
        }
        let sibling = index;
        let old_parent = self.nodes[sibling as usize].parent;
        let parent = self.allocate(Node {
            aabb: leaf_box.union(&self.nodes[sibling as usize].aabb),
            parent: old_parent,
            children: [sibling, leaf],
            height: self.nodes[sibling as usize].height + 1,
            id: 0,
        });
        self.nodes[sibling as usize].parent = parent;
        self.nodes[leaf as usize].parent = parent;
        if old_parent == NULL {
            self.root = parent;
        } else {
            self.replace_child(old_parent, sibling, parent);
        }
        self.refit_from(self.nodes[leaf as usize].parent);
    }

    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let grandparent = self.nodes[parent as usize].parent;
        let [c1, c2] = self.nodes[parent as usize].children;
        let sibling = if c1 == leaf { c2 } else { c1 };
        self.nodes[sibling as usize].parent = grandparent;
        if grandparent == NULL {
            self.root = sibling;
        } else {
            self.replace_child(grandparent, parent, sibling);
            self.refit_from(grandparent);
        }
        self.free.push(parent);
        self.nodes[leaf as usize].parent = NULL;
    }

    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        let children = &mut self.nodes[parent as usize].children;
        if children[0] == old {
            children[0] = new;
        } else {
            children[1] = new;
        }
    }

    /// Walks up from `index` to the root, rebalancing and refitting every node.
    fn refit_from(&mut self, mut index: u32) {
        while index != NULL {
            index = self.balance(index);
            let [c1, c2] = self.nodes[index as usize].children;
            let (n1, n2) = (self.nodes[c1 as usize], self.nodes[c2 as usize]);
            let node = &mut self.nodes[index as usize];
            node.height = 1 + n1.height.max(n2.height);
            node.aabb = n1.aabb.union(&n2.aabb);
            index = node.parent;
        }
    }

    /// One rotation at `a` when a child is more than one level taller than the other:
    /// the taller child `c` takes `a`'s place, and `a` keeps the shorter of `c`'s children.
    /// Returns the node now at `a`'s place.
    fn balance(&mut self, a: u32) -> u32 {
        let node = self.nodes[a as usize];
        if node.is_leaf() || node.height < 2 {
            return a;
        }
        let [b, c] = node.children;
        let (hb, hc) = (self.nodes[b as usize].height, self.nodes[c as usize].height);
        if hc > hb + 1 {
            self.rotate_up(a, 1)
        } else if hb > hc + 1 {
            self.rotate_up(a, 0)
        } else {
            a
        }
    }

    /// Lifts `a`'s child `side` (`c`) into `a`'s place; `a` becomes `c`'s child and takes the
    /// shorter of `c`'s children.
    fn rotate_up(&mut self, a: u32, side: usize) -> u32 {
        let c = self.nodes[a as usize].children[side];
        let [f, g] = self.nodes[c as usize].children;
        let parent = self.nodes[a as usize].parent;
        // c takes a's place
        self.nodes[c as usize].parent = parent;
        if parent == NULL {
            self.root = c;
        } else {
            self.replace_child(parent, a, c);
        }
        // c keeps its taller child and adopts a; a keeps `other` and the shorter child.
        let (tall, short) = if self.nodes[f as usize].height > self.nodes[g as usize].height { (f, g) } else { (g, f) };
        self.nodes[c as usize].children = [a, tall];
        self.nodes[a as usize].parent = c;
        self.nodes[a as usize].children[side] = short;
        self.nodes[short as usize].parent = a;
        let fit = |s: &mut Self, i: u32| {
            let [x, y] = s.nodes[i as usize].children;
            let (nx, ny) = (s.nodes[x as usize], s.nodes[y as usize]);
            let n = &mut s.nodes[i as usize];
            n.aabb = nx.aabb.union(&ny.aabb);
            n.height = 1 + nx.height.max(ny.height);
        };
        fit(self, a);
        fit(self, c);
        c
    }

    /// Checks every invariant (for tests): parents, heights, boxes, the id map.
    #[cfg(test)]
    fn validate(&self) {
        assert_eq!(self.leaves.is_empty(), self.root == NULL);
        if self.root == NULL {
            return;
        }
        assert_eq!(self.nodes[self.root as usize].parent, NULL);
        let mut stack = vec![self.root];
        let mut leaves = 0;
        while let Some(i) = stack.pop() {
            let n = self.nodes[i as usize];
            if n.is_leaf() {
                leaves += 1;
                assert_eq!(self.leaves[&n.id], i);
                assert_eq!(n.height, 0);
                continue;
            }
            let [x, y] = n.children;
            for ch in [x, y] {
                assert_eq!(self.nodes[ch as usize].parent, i);
                assert!(n.aabb.contains(&self.nodes[ch as usize].aabb));
            }
            let (hx, hy) = (self.nodes[x as usize].height, self.nodes[y as usize].height);
            assert_eq!(n.height, 1 + hx.max(hy));
            stack.extend([x, y]);
        }
        assert_eq!(leaves, self.leaves.len());
        assert_eq!(self.stats().nodes, 2 * leaves - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(usize, Aabb),
        Update(usize, Aabb),
        Remove(usize),
    }

    /// Boxes of every size, clustered like parts of an assembly, a few large.
    fn arb_box() -> impl Strategy<Value = Aabb> {
        let size = prop_oneof![8 => 0.01..0.3f64, 1 => 0.3..3.0f64];
        ((-3.0..3.0f64, -3.0..3.0f64, -3.0..3.0f64), (size.clone(), size.clone(), size)).prop_map(|(c, s)| {
            let (c, s) = (DVec3::new(c.0, c.1, c.2), DVec3::new(s.0, s.1, s.2));
            Aabb::new(c - 0.5 * s, c + 0.5 * s)
        })
    }

    fn arb_ops() -> impl Strategy<Value = Vec<Op>> {
        let id = 0usize..40;
        let op = prop_oneof![
            3 => (id.clone(), arb_box()).prop_map(|(i, b)| Op::Insert(i, b)),
            3 => (id.clone(), arb_box(), prop::bool::ANY, (-0.05..0.05f64, -0.05..0.05f64, -0.05..0.05f64))
                .prop_map(|(i, b, small, d)| (i, b, small, DVec3::new(d.0, d.1, d.2)))
                .prop_map(|(i, b, small, d)| Op::Update(i, if small { b } else { b.translated(d) })),
            1 => id.prop_map(Op::Remove),
        ];
        prop::collection::vec(op, 1..200)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Random sequences of inserts, updates (small nudges and jumps) and removals, checked
        /// after each against brute force over the live boxes: queries and pairs miss no
        /// true overlap and report nothing that does not overlap within the fat margin.
        #[test]
        fn agrees_with_all_pairs(ops in arb_ops(), queries in prop::collection::vec(arb_box(), 4), margin in 0.0..0.2f64) {
            let mut tree = BroadPhase::new(margin);
            let mut live: HashMap<usize, Aabb> = HashMap::new();
            for op in ops {
                match op {
                    Op::Insert(i, b) | Op::Update(i, b) => {
                        tree.update(i, b).unwrap();
                        live.insert(i, b);
                    }
                    Op::Remove(i) => prop_assert_eq!(tree.remove(i), live.remove(&i).is_some()),
                }
                tree.validate();
                prop_assert_eq!(tree.len(), live.len());
                for (&i, b) in &live {
                    let fat = tree.fat_box(i).unwrap();
                    prop_assert!(fat.contains(b) && b.expanded(HUGE_MARGINS * margin + 1e-12).contains(&fat));
                }
            }
            let within_margin = |x: &Aabb, y: &Aabb| x.expanded(HUGE_MARGINS * margin + 1e-12).overlaps(y);
            for q in &queries {
                let mut got = Vec::new();
                let counters = tree.query(q, &mut got);
                got.sort_unstable();
                let mut unique = got.clone();
                unique.dedup();
                prop_assert_eq!(&unique, &got, "an id twice");
                for (&i, b) in &live {
                    if b.overlaps(q) {
                        prop_assert!(got.contains(&i), "missed {i}");
                    }
                }
                for i in &got {
                    prop_assert!(within_margin(&live[i], q), "{i} is not near the query");
                }
                prop_assert!(counters.bv_tests <= tree.stats().nodes as u64);
            }
            let pairs = tree.pairs().value;
            for (&i, a) in &live {
                for (&j, b) in &live {
                    if i < j && a.overlaps(b) {
                        prop_assert!(pairs.binary_search(&(i, j)).is_ok(), "missed ({i}, {j})");
                    }
                }
            }
            for &(i, j) in &pairs {
                prop_assert!(i < j && within_margin(&live[&i], &live[&j].expanded(HUGE_MARGINS * margin)));
            }
            let mut sorted = pairs.clone();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), pairs.len());
        }
    }

    /// Balanced: thousands of boxes inserted in sorted order (the worst order for a naive
    /// tree) give a height of a small multiple of log₂ n, and a query of a small box tests a
    /// small fraction of the nodes.
    #[test]
    fn stays_balanced_under_sorted_inserts() {
        let mut tree = BroadPhase::new(0.01);
        let n = 4096;
        for i in 0..n {
            let c = DVec3::new(i as f64 * 0.1, 0.0, 0.0);
            tree.insert(i, Aabb::new(c, c + DVec3::splat(0.05))).unwrap();
        }
        tree.validate();
        let height = tree.stats().height;
        assert!(height <= 2 * 12 + 2, "height {height}");
        let mut out = Vec::new();
        let c = DVec3::new(200.0, 0.0, 0.0);
        let counters = tree.query(&Aabb::new(c, c + DVec3::splat(0.2)), &mut out);
        out.sort_unstable();
        assert_eq!(out, vec![2000, 2001, 2002]);
        assert!(counters.bv_tests < 100, "{counters:?}");
    }

    #[test]
    fn updates_reinsert_only_when_needed_and_bad_boxes_are_refused() {
        let mut tree = BroadPhase::new(0.1);
        let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
        assert!(tree.update(7, b).unwrap());
        assert!(!tree.update(7, b.translated(DVec3::X * 0.05)).unwrap());
        assert!(tree.update(7, b.translated(DVec3::X * 0.2)).unwrap());
        // a long step's box, then back to small: the huge fat box is refit
        assert!(tree.update(7, b.union(&b.translated(DVec3::X * 10.0))).unwrap());
        assert!(tree.update(7, b).unwrap());
        assert_eq!(tree.stats().reinserts, 3);
        let nan = Aabb::new(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ONE);
        assert!(matches!(tree.insert(3, nan), Err(BroadPhaseError::InvalidBox { id: 3, .. })));
        assert!(tree.insert(3, Aabb::EMPTY).is_err());
        assert!(!tree.contains(3) && tree.remove(7) && !tree.remove(7) && tree.is_empty());
        let mut out = Vec::new();
        assert_eq!(tree.query(&b, &mut out).bv_tests, 0);
        assert!(out.is_empty() && tree.pairs().value.is_empty());
    }
}
