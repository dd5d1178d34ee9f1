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
#[derive(Clone, Copy, Debug, bytemuck::Zeroable)]
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

/// Subtrees of at least this many triangles are split over threads.
const PARALLEL_TRIANGLES: usize = 1 << 11;

impl ObbTree {
    /// Builds the tree over the mesh's non-degenerate triangles, at most `leaf_size`
    /// triangles per leaf; large meshes on all cores.
    pub fn build(mesh: &Mesh, leaf_size: usize) -> ObbTree {
        ObbTree::build_with_threads(mesh, leaf_size, 0)
    }

    /// [`ObbTree::build`] on at most `threads` threads (0: all cores). The tree does not
    /// depend on the number of threads.
    pub fn build_with_threads(mesh: &Mesh, leaf_size: usize, threads: usize) -> ObbTree {
        let mut triangles: Vec<u32> = (0..mesh.triangles().len() as u32).filter(|&t| !mesh.is_degenerate(t)).collect();
        let threads = match threads {
            // Only large meshes ask how many cores there are (it reads the cgroup files).
            0 if triangles.len() >= PARALLEL_TRIANGLES => std::thread::available_parallelism().map_or(1, |t| t.get()),
            0 => 1,
            t => t,
        };
        let (lo, hi) = mesh.bounds();
        let reference = 0.5 * (lo + hi);
        let fitter = Fitter {
            corners: mesh.triangles(),
            local: mesh.vertices().iter().map(|&v| v - reference).collect(),
            prepared: prepare(mesh, reference, threads),
            reference,
            grow: GROW * (0.5 * (hi - lo).length()).max(f64::MIN_POSITIVE),
            leaf_size: leaf_size.max(1),
        };
        let sums = Sums::of(&fitter.prepared, &triangles);
        // Zeroed by the allocator: its pages are touched first by the thread that writes
        // them, on all cores at once.
        let mut nodes: Vec<Node> = bytemuck::zeroed_vec((2 * triangles.len()).max(2) - 1);
        let (count, depth) = fitter.subtree(&mut triangles, 0, sums, threads, (&mut nodes, 0));
        nodes.truncate(count);
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

/// One triangle as splitting needs it, about the reference point: area, centroid and second
/// moment `∫ x xᵀ dA` (xx, xy, xz, yy, yz, zz).
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
struct Prepared {
    area: f64,
    centroid: DVec3,
    moment: [f64; 6],
}

impl Prepared {
    fn new(corners: [DVec3; 3]) -> Prepared {
        let [p, q, r] = corners;
        let area = 0.5 * (q - p).cross(r - p).length();
        let m = (p + q + r) / 3.0;
        let k = area / 12.0;
        let sym = |i: usize, j: usize| k * (9.0 * m[i] * m[j] + p[i] * p[j] + q[i] * q[j] + r[i] * r[j]);
        Prepared { area, centroid: m, moment: [sym(0, 0), sym(0, 1), sym(0, 2), sym(1, 1), sym(1, 2), sym(2, 2)] }
    }
}

/// Every triangle prepared, about `reference`, in chunks over `threads` threads.
fn prepare(mesh: &Mesh, reference: DVec3, threads: usize) -> Vec<Prepared> {
    let one = |t: u32| Prepared::new(mesh.triangle(t).map(|v| mesh.vertex(v) - reference));
    let n = mesh.triangles().len() as u32;
    if threads <= 1 || (n as usize) < PARALLEL_TRIANGLES {
        return (0..n).map(one).collect();
    }
    // Written in place, a chunk per thread, into zeroed pages that each thread touches
    // first (a filled vector would be written twice, the first time on one thread).
    let mut all: Vec<Prepared> = bytemuck::zeroed_vec(n as usize);
    let chunk = (n as usize).div_ceil(threads);
    std::thread::scope(|s| {
        for (k, part) in all.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                for (i, p) in part.iter_mut().enumerate() {
                    *p = one((k * chunk + i) as u32);
                }
            });
        }
    });
    all
}

/// A node's area, first moment `Σ A m` and second moment: its covariance.
#[derive(Clone, Copy, Default)]
struct Sums {
    area: f64,
    first: DVec3,
    second: [f64; 6],
}

impl Sums {
    fn add(&mut self, p: &Prepared) {
        self.area += p.area;
        self.first += p.area * p.centroid;
        for (s, x) in self.second.iter_mut().zip(p.moment) {
            *s += x;
        }
    }

    fn of(prepared: &[Prepared], triangles: &[u32]) -> Sums {
        let mut sums = Sums::default();
        for &t in triangles {
            sums.add(&prepared[t as usize]);
        }
        sums
    }

    fn mean(&self) -> DVec3 {
        self.first / self.area
    }

    fn covariance(&self) -> [[f64; 3]; 3] {
        let (mean, a) = (self.mean(), self.area);
        let cov = |i: usize, j: usize, k: usize| self.second[k] / a - mean[i] * mean[j];
        let (c01, c02, c12) = (cov(0, 1, 1), cov(0, 2, 2), cov(1, 2, 4));
        [[cov(0, 0, 0), c01, c02], [c01, cov(1, 1, 3), c12], [c02, c12, cov(2, 2, 5)]]
    }
}

/// What fitting and splitting nodes needs (docs/continuous-obb.md §1).
struct Fitter<'a> {
    /// The mesh's triangles, and its vertices about the reference point.
    corners: &'a [[u32; 3]],
    local: Vec<DVec3>,
    /// Per triangle of the mesh.
    prepared: Vec<Prepared>,
    /// Everything is taken about this point (the mesh's box centre): no precision is lost
    /// far from the origin.
    reference: DVec3,
    grow: f64,
    leaf_size: usize,
}

impl Fitter<'_> {
    /// The box of `slice`'s triangles (whose sums are `sums`); for a node to split, `slice`
    /// partitioned (in a stable way, through `scratch`), where its right half starts, and
    /// the two halves' sums.
    fn fit(&self, slice: &mut [u32], sums: &Sums, scratch: &mut Vec<u32>) -> (Obb, Option<(usize, Sums, Sums)>) {
        if let [t] = *slice {
            return (self.triangle_box(t), None);
        }
        let mean = sums.mean();
        let axes = principal_axes(sums.covariance());
        let obb = self.around(slice, axes);
        if slice.len() <= self.leaf_size {
            return (obb, None);
        }
        // Split along the longest axis at the area-weighted mean; median if that fails.
        let k = if obb.half.x >= obb.half.y && obb.half.x >= obb.half.z {
            0
        } else if obb.half.y >= obb.half.z {
            1
        } else {
            2
        };
        let axis = axes[k];
        let key = |t: u32| (self.prepared[t as usize].centroid - mean).dot(axis);
        // Stable: each half keeps the order of the whole, so its sums below come out as if
        // summed over the half itself, and memory is read in the same order at every level.
        let (mut left, mut right) = (Sums::default(), Sums::default());
        let mut mid = 0;
        scratch.clear();
        for i in 0..slice.len() {
            let t = slice[i];
            let p = &self.prepared[t as usize];
            if key(t) < 0.0 {
                slice[mid] = t;
                mid += 1;
                left.add(p);
            } else {
                scratch.push(t);
                right.add(p);
            }
        }
        slice[mid..].copy_from_slice(scratch);
        if mid == 0 || mid == slice.len() {
            mid = slice.len() / 2;
            slice.select_nth_unstable_by(mid, |&a, &b| key(a).total_cmp(&key(b)));
            (left, right) = (Sums::of(&self.prepared, &slice[..mid]), Sums::of(&self.prepared, &slice[mid..]));
        }
        (obb, Some((mid, left, right)))
    }

    /// The box with the given axes around `slice`'s triangles, grown. Written out rather than
    /// with `Obb::around`: it runs over every triangle at every level of the tree.
    fn around(&self, slice: &[u32], axes: [DVec3; 3]) -> Obb {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &t in slice {
            for v in self.corners[t as usize] {
                let p = self.local[v as usize];
                for k in 0..3 {
                    // Plain comparisons: f64::min's NaN rules cost more, and x is finite.
                    let x = p.dot(axes[k]);
                    if x < lo[k] {
                        lo[k] = x;
                    }
                    if x > hi[k] {
                        hi[k] = x;
                    }
                }
            }
        }
        let mid = |k: usize| 0.5 * (lo[k] + hi[k]);
        Obb {
            center: self.reference + axes[0] * mid(0) + axes[1] * mid(1) + axes[2] * mid(2),
            axes,
            half: DVec3::new(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) * 0.5 + DVec3::splat(self.grow),
        }
    }

    /// A one-triangle leaf's box: flat, along the triangle's longest edge, the other
    /// in-plane axis and its normal, the smallest rectangle around a triangle
    /// (docs/continuous-obb.md §1).
    fn triangle_box(&self, t: u32) -> Obb {
        let [p, q, r] = self.corners[t as usize].map(|v| self.local[v as usize]);
        let edges = [q - p, r - q, p - r];
        let longest = edges.into_iter().max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
        let normal = (q - p).cross(r - p);
        // Degenerate triangles are not in the tree; the fallbacks only guard rounding.
        let x = longest.and_then(DVec3::try_normalize).unwrap_or(DVec3::X);
        let z = normal.try_normalize().unwrap_or_else(|| x.any_orthonormal_vector());
        let y = z.cross(x).normalize();
        let z = x.cross(y);
        let mut obb = Obb::around([x, y, z], [p, q, r], p, self.grow);
        obb.center += self.reference;
        obb
    }

    /// Writes into `out` the subtree over `triangles` (the tree's triangle list from `offset`
    /// on, whose sums are `sums`), in the tree's order, its root at `out[0]`, whose index in
    /// the tree is `base`; returns how many nodes it wrote and its depth. `out` holds at least
    /// `2 · triangles.len() − 1` nodes, as many as a subtree can have (every split has two
    /// non-empty halves). A large subtree's two halves are built on two threads, each into
    /// its own part of `out`: no half is built apart and copied (docs/continuous-obb.md §1).
    fn subtree(
        &self,
        triangles: &mut [u32],
        offset: usize,
        sums: Sums,
        threads: usize,
        (out, base): (&mut [Node], u32),
    ) -> (usize, usize) {
        let mut scratch = Vec::with_capacity(triangles.len());
        if threads > 1 && triangles.len() >= PARALLEL_TRIANGLES {
            let (obb, split) = self.fit(triangles, &sums, &mut scratch);
            let Some((mid, left_sums, right_sums)) = split else {
                out[0] = Node { obb, first: offset as u32, count: triangles.len() as u32 };
                return (1, 1);
            };
            drop(scratch);
            // The right half starts where the left half would end if it had every node it
            // can have, which it has with one-triangle leaves.
            let right_at = 2 * mid;
            let (left, right) = triangles.split_at_mut(mid);
            let (head, rest) = out.split_at_mut(right_at);
            let ((l_count, l_depth), (r_count, r_depth)) = std::thread::scope(|s| {
                let r = s.spawn(|| {
                    let at = (rest, base + right_at as u32);
                    self.subtree(right, offset + mid, right_sums, threads / 2, at)
                });
                let l = self.subtree(left, offset, left_sums, threads - threads / 2, (&mut head[1..], base + 1));
                (l, r.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            });
            // With larger leaves the left half may have fewer nodes: close the gap, and
            // renumber the right half's internal nodes, which name their right child by
            // index (leaves' triangle ranges are already the tree's).
            let gap = right_at - 1 - l_count;
            if gap > 0 {
                out.copy_within(right_at..right_at + r_count, 1 + l_count);
                for n in &mut out[1 + l_count..1 + l_count + r_count] {
                    if !n.is_leaf() {
                        n.first -= gap as u32;
                    }
                }
            }
            out[0] = Node { obb, first: base + 1 + l_count as u32, count: 0 };
            return (1 + l_count + r_count, 1 + l_depth.max(r_depth));
        }
        let (mut depth, mut written) = (0, 0);
        // (start, end, their sums, parent whose right child this is, depth)
        let mut work: Vec<(usize, usize, Sums, usize, usize)> = vec![(0, triangles.len(), sums, usize::MAX, 1)];
        while let Some((start, end, sums, parent, level)) = work.pop() {
            depth = depth.max(level);
            let index = written;
            if parent != usize::MAX {
                out[parent].first = base + index as u32;
            }
            let (obb, split) = self.fit(&mut triangles[start..end], &sums, &mut scratch);
            written += 1;
            let Some((mid, left, right)) = split else {
                out[index] = Node { obb, first: (offset + start) as u32, count: (end - start) as u32 };
                continue;
            };
            out[index] = Node { obb, first: NONE, count: 0 };
            work.push((start + mid, end, right, index, level + 1));
            work.push((start, start + mid, left, usize::MAX, level + 1));
        }
        (written, depth)
    }
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

    /// A one-triangle leaf's box is the smallest rectangle around it, of area twice the
    /// triangle's (on its longest edge, the opposite corner projects inside the edge), and
    /// flat: only the growth is left across it.
    #[test]
    fn one_triangle_leaves_are_their_smallest_rectangle() {
        let pose = Pose::new(DQuat::from_rotation_y(0.7), DVec3::new(3.0, -2.0, 1e3));
        let mesh = MeshBuilder::new().torus(pose, 2.0, 0.5, 24, 9).sphere(pose, 0.3, 5, 7).build().unwrap();
        let tree = ObbTree::build(&mesh, 1);
        let (lo, hi) = mesh.bounds();
        let grow = GROW * 0.5 * (hi - lo).length();
        for node in tree.nodes().iter().filter(|n| n.is_leaf()) {
            let [t] = *tree.leaf_triangles(node) else { panic!("one triangle per leaf") };
            let [p, q, r] = mesh.triangle_points(t);
            let area = 0.5 * (q - p).cross(r - p).length();
            let mut half = node.obb.half.to_array();
            half.sort_by(f64::total_cmp);
            assert!(half[0] <= grow * (1.0 + 1e-6) + 1e-12, "{half:?}");
            let rectangle = 4.0 * (half[1] - grow) * (half[2] - grow);
            assert!((rectangle - 2.0 * area).abs() <= 1e-9 * area + 1e-12, "{rectangle} against {area}");
        }
    }

    /// Large meshes are built on several threads; the tree is the same whatever their number.
    #[test]
    fn threads_do_not_change_the_tree() {
        let pose = Pose::new(DQuat::from_rotation_x(0.3), DVec3::new(1.0, 2.0, 3.0));
        let mesh = MeshBuilder::new().torus(pose, 2.0, 0.7, 160, 60).build().unwrap();
        assert!(mesh.triangles().len() > 2 * PARALLEL_TRIANGLES);
        let one = ObbTree::build_with_threads(&mesh, 1, 1);
        for threads in [2, 3, 4] {
            for leaf in [1, 3] {
                let many = ObbTree::build_with_threads(&mesh, leaf, threads);
                let reference = if leaf == 1 { one.clone() } else { ObbTree::build_with_threads(&mesh, leaf, 1) };
                assert_eq!(many.triangles(), reference.triangles());
                assert_eq!(many.stats(), reference.stats());
                for (a, b) in many.nodes().iter().zip(reference.nodes()) {
                    assert_eq!((a.obb, a.first, a.count), (b.obb, b.first, b.count), "{threads} threads");
                }
            }
        }
        check_tree(&mesh, 1);
    }
}
