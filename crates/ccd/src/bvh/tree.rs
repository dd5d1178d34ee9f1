//! Top-down OBB tree (docs/continuous-obb.md §1).

use super::obb::{Obb, principal_axes};
use crate::mesh::{Mesh, NONE};
use glam::DVec3;

/// Boxes are grown by this fraction of the mesh's bounding radius, so that rounding in any
/// test cannot cut off a touching feature.
const GROW: f64 = 1e-9;

/// A tree node. Internal nodes have their left child right after them and `first` pointing
/// to the right child; leaves hold `count > 0` triangles from `first` in the tree's triangle
/// list.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub obb: Obb,
    first: u32,
    count: u32,
}

impl Node {
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// Statistics of a built tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    pub nodes: usize,
    pub leaves: usize,
    pub depth: usize,
    pub bytes: usize,
}

#[derive(Clone, Debug)]
pub struct ObbTree {
    nodes: Vec<Node>,
    triangles: Vec<u32>,
    depth: usize,
}

/// Per-triangle data for fitting: area, centroid and second moment about the reference point.
struct TriangleMoments {
    area: f64,
    centroid: DVec3,
    /// xx, xy, xz, yy, yz, zz of `∫ x xᵀ dA`.
    moment: [f64; 6],
}

impl ObbTree {
    /// Builds the tree over the mesh's non-degenerate triangles, at most `leaf_size`
    /// triangles per leaf.
    pub fn build(mesh: &Mesh, leaf_size: usize) -> ObbTree {
        let leaf_size = leaf_size.max(1);
        let (lo, hi) = mesh.bounds();
        let reference = 0.5 * (lo + hi);
        let grow = GROW * (0.5 * (hi - lo).length()).max(f64::MIN_POSITIVE);
        let local = |v: u32| mesh.vertex(v) - reference;

        let mut triangles: Vec<u32> = (0..mesh.triangles().len() as u32).filter(|&t| !mesh.is_degenerate(t)).collect();
        let moments: Vec<TriangleMoments> = (0..mesh.triangles().len() as u32)
            .map(|t| {
                let [p, q, r] = mesh.triangle(t).map(local);
                let area = 0.5 * (q - p).cross(r - p).length();
                let m = (p + q + r) / 3.0;
                let k = area / 12.0;
                let sym = |i: usize, j: usize| k * (9.0 * m[i] * m[j] + p[i] * p[j] + q[i] * q[j] + r[i] * r[j]);
                TriangleMoments {
                    area,
                    centroid: m,
                    moment: [sym(0, 0), sym(0, 1), sym(0, 2), sym(1, 1), sym(1, 2), sym(2, 2)],
                }
            })
            .collect();

        let mut nodes: Vec<Node> = Vec::with_capacity(2 * triangles.len() / leaf_size + 1);
        let mut depth = 0;
        // (start, end, parent whose right child this is, depth)
        let mut work: Vec<(usize, usize, u32, usize)> = vec![(0, triangles.len(), NONE, 1)];
        while let Some((start, end, parent, level)) = work.pop() {
            depth = depth.max(level);
            let index = nodes.len() as u32;
            if parent != NONE {
                nodes[parent as usize].first = index;
            }
            let slice = &mut triangles[start..end];

            let (mut area, mut first_moment, mut second) = (0.0, DVec3::ZERO, [0.0; 6]);
            for &t in slice.iter() {
                let m = &moments[t as usize];
                area += m.area;
                first_moment += m.area * m.centroid;
                for (s, x) in second.iter_mut().zip(m.moment) {
                    *s += x;
                }
            }
            let mean = first_moment / area;
            let cov = |i: usize, j: usize, k: usize| second[k] / area - mean[i] * mean[j];
            let c01 = cov(0, 1, 1);
            let c02 = cov(0, 2, 2);
            let c12 = cov(1, 2, 4);
            let axes = principal_axes([[cov(0, 0, 0), c01, c02], [c01, cov(1, 1, 3), c12], [c02, c12, cov(2, 2, 5)]]);
            let points = slice.iter().flat_map(|&t| mesh.triangle(t).map(local));
            let mut obb = Obb::around(axes, points, mean, grow);
            obb.center += reference;

            if slice.len() <= leaf_size {
                nodes.push(Node { obb, first: start as u32, count: slice.len() as u32 });
                continue;
            }
            nodes.push(Node { obb, first: NONE, count: 0 });

            // Split along the longest axis at the area-weighted mean; median if that fails.
            let k = if obb.half.x >= obb.half.y && obb.half.x >= obb.half.z {
                0
            } else if obb.half.y >= obb.half.z {
                1
            } else {
                2
            };
            let axis = axes[k];
            let key = |t: &u32| (moments[*t as usize].centroid - mean).dot(axis);
            let mut mid = partition(slice, |t| key(t) < 0.0);
            if mid == 0 || mid == slice.len() {
                mid = slice.len() / 2;
                slice.select_nth_unstable_by(mid, |a, b| key(a).total_cmp(&key(b)));
            }
            work.push((start + mid, end, index, level + 1));
            work.push((start, start + mid, NONE, level + 1));
        }
        ObbTree { nodes, triangles, depth }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }
    /// `(left, right)` children of an internal node.
    pub fn children(&self, i: u32) -> (u32, u32) {
        (i + 1, self.nodes[i as usize].first)
    }
    /// Triangles of a leaf.
    pub fn leaf_triangles(&self, node: &Node) -> &[u32] {
        &self.triangles[node.first as usize..(node.first + node.count) as usize]
    }
    /// Every non-degenerate triangle, in leaf order.
    pub fn triangles(&self) -> &[u32] {
        &self.triangles
    }
    pub fn stats(&self) -> TreeStats {
        TreeStats {
            nodes: self.nodes.len(),
            leaves: self.nodes.iter().filter(|n| n.is_leaf()).count(),
            depth: self.depth,
            bytes: self.nodes.len() * std::mem::size_of::<Node>() + self.triangles.len() * 4,
        }
    }
}

/// Moves the elements satisfying `pred` to the front; returns how many there are.
fn partition(slice: &mut [u32], pred: impl Fn(&u32) -> bool) -> usize {
    let mut next = 0;
    for i in 0..slice.len() {
        if pred(&slice[i]) {
            slice.swap(i, next);
            next += 1;
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MeshBuilder, Pose};
    use glam::DQuat;

    fn check_tree(mesh: &Mesh, leaf_size: usize) {
        let tree = ObbTree::build(mesh, leaf_size);
        // Every non-degenerate triangle sits in exactly one leaf, and inside every box on its
        // path from the root.
        let mut seen = vec![0; mesh.triangles().len()];
        let mut stack = vec![(0u32, Vec::<Obb>::new())];
        while let Some((i, mut ancestors)) = stack.pop() {
            let node = tree.node(i);
            ancestors.push(node.obb);
            if node.is_leaf() {
                assert!(tree.leaf_triangles(node).len() <= leaf_size);
                for &t in tree.leaf_triangles(node) {
                    seen[t as usize] += 1;
                    for p in mesh.triangle_points(t) {
                        for b in &ancestors {
                            assert!(b.contains(p, 0.0), "triangle {t} outside an ancestor box");
                        }
                    }
                }
            } else {
                let (l, r) = tree.children(i);
                stack.push((l, ancestors.clone()));
                stack.push((r, ancestors));
            }
        }
        for t in 0..mesh.triangles().len() as u32 {
            assert_eq!(seen[t as usize], if mesh.is_degenerate(t) { 0 } else { 1 });
        }
        let stats = tree.stats();
        assert_eq!(stats.nodes, 2 * stats.leaves - 1);
    }

    #[test]
    fn boxes_contain_their_triangles() {
        let pose = Pose::new(DQuat::from_rotation_x(0.4), DVec3::new(100.0, -50.0, 7.0));
        let torus = MeshBuilder::new().torus(pose, 2.0, 0.5, 40, 16).build().unwrap();
        for leaf in [1, 2, 4, 8] {
            check_tree(&torus, leaf);
        }
        let sheet = MeshBuilder::new().grid(Pose::IDENTITY, 3.0, 1.0, 30, 10).build().unwrap();
        check_tree(&sheet, 1);
        // many identical triangles: the mean split fails, the median split must take over
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let mut b = MeshBuilder::new();
        for _ in 0..64 {
            b = b.raw(Pose::IDENTITY, &tri, &[[0, 1, 2]]);
        }
        check_tree(&b.build().unwrap(), 1);
    }

    #[test]
    fn leaf_boxes_are_tight() {
        // one triangle per leaf: a flat box hugging the triangle
        let m = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE).build().unwrap();
        let tree = ObbTree::build(&m, 1);
        for node in tree.nodes().iter().filter(|n| n.is_leaf()) {
            assert!(node.obb.half.min_element() < 1e-8, "{:?}", node.obb.half);
        }
        // the root box of an axis-aligned cube is the cube
        let root = tree.root().obb;
        assert!((root.half.x * root.half.y * root.half.z - 1.0).abs() < 1e-6);
    }
}
