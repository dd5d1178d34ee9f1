//! BM-cones: per node, a few vectors whose positive cone holds the normals of every
//! triangle below the node, built bottom-up (docs/bm-culling.md §1, §3). A node's extreme
//! rays come from a convex hull in the gnomonic plane (§3.1); Wilhelmsen's projection
//! (mockup-cone) is left for the few nodes whose inputs come near a half-space, and for
//! reducing more than `r_max` rays to `r_max`.

use super::ObbTree;
use crate::mesh::Mesh;
use glam::DVec3;
use mockup_cone::{Metric, Projector, Settings};

/// A vector is in a cone when its distance to it is at most this fraction of its length.
pub const INCLUSION_TOLERANCE: f64 = 1e-9;

/// A node gets a cone only when some unit `d` has `n·d ≥ POINTED_MARGIN` for all its inputs
/// `n`. No culling test can pass on a cone below this margin (docs/bm-culling.md §3.1).
pub const POINTED_MARGIN: f64 = 1e-6;

/// The hull is taken around a `d` with `n·d ≥ HULL_MARGIN`: gnomonic coordinates stay below
/// `1/HULL_MARGIN`. Nodes between the two margins go to the projection.
const HULL_MARGIN: f64 = 1e-3;

/// A hull vertex closer than this (a sine) to the plane of its two neighbours is dropped.
const HULL_TOLERANCE: f64 = 1e-10;

/// Inputs up to which the direction of largest margin is found by enumerating the faces of
/// their convex hull (O(k⁴)); beyond, the projection decides.
const ENUMERATION_LIMIT: usize = 12;

/// Subtrees of at least this many nodes are split over threads.
const PARALLEL_NODES: usize = 1 << 12;

/// How cones are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConeSettings {
    /// Most BM-vectors per node (seed 000: 5). At least 3.
    pub r_max: usize,
    /// Simulated-annealing steps for a node whose minimal subset exceeds `r_max`.
    pub anneal_steps: usize,
    /// Seed of the random draws; the build is deterministic for a given seed.
    pub seed: u64,
}

impl Default for ConeSettings {
    fn default() -> Self {
        ConeSettings { r_max: 5, anneal_steps: 16, seed: 0x5EED_0000_B0C0_0001 }
    }
}

/// What a build produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConeStats {
    pub nodes: usize,
    pub nodes_with_cone: usize,
    pub vectors: usize,
    /// Nodes whose minimal subset was larger than `r_max`, reduced to `r_max` vectors (by
    /// edge removal in the gnomonic plane, or initialization and annealing).
    pub annealed: usize,
    /// Nodes for which Wilhelmsen's projection found the minimal subset or did the reduction
    /// (every node of [`BmCones::build_by_projection`]).
    pub projected: usize,
    pub bytes: usize,
}

/// The BM-cones of one tree. A node without a cone is never culled.
#[derive(Clone, Debug, Default)]
pub struct BmCones {
    /// Per node: first vector and count (0: no cone).
    spans: Vec<(u32, u32)>,
    vectors: Vec<DVec3>,
    annealed: usize,
    projected: usize,
}

/// How a node's minimal generators are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// The gnomonic hull, the projection only where the hull does not apply (the default).
    Hull,
    /// Wilhelmsen's projection for every node (the original build, kept as the reference).
    Projection,
}

impl BmCones {
    /// No cones at all (open or inward-oriented meshes, or culling not wanted).
    pub fn none(tree: &ObbTree) -> BmCones {
        BmCones { spans: vec![(0, 0); tree.nodes().len()], vectors: Vec::new(), annealed: 0, projected: 0 }
    }

    /// Builds the cones of `tree` over `mesh`, large trees on all cores. The caller decides
    /// whether the mesh is a solid ([`is_solid`]); culling with cones of a non-solid is not
    /// conservative.
    pub fn build(mesh: &Mesh, tree: &ObbTree, settings: &ConeSettings) -> BmCones {
        BmCones::build_with_threads(mesh, tree, settings, 0)
    }

    /// [`BmCones::build`] on at most `threads` threads (0: all cores). The cones do not
    /// depend on the number of threads.
    pub fn build_with_threads(mesh: &Mesh, tree: &ObbTree, settings: &ConeSettings, threads: usize) -> BmCones {
        build_cones(&Context { mesh, tree, settings: *settings, method: Method::Hull }, threads)
    }

    /// The original build: every node's minimal subset by Wilhelmsen's projection, on one
    /// thread. Slower; kept as the reference the default build is tested against.
    pub fn build_by_projection(mesh: &Mesh, tree: &ObbTree, settings: &ConeSettings) -> BmCones {
        build_cones(&Context { mesh, tree, settings: *settings, method: Method::Projection }, 1)
    }

    /// The BM-vectors of a node (unit vectors, body frame), if it has a cone.
    pub fn cone(&self, node: u32) -> Option<&[DVec3]> {
        let (start, count) = *self.spans.get(node as usize)?;
        (count > 0).then(|| &self.vectors[start as usize..(start + count) as usize])
    }

    /// Nodes with a cone.
    pub fn cone_count(&self) -> usize {
        self.spans.iter().filter(|s| s.1 > 0).count()
    }

    pub fn stats(&self) -> ConeStats {
        ConeStats {
            nodes: self.spans.len(),
            nodes_with_cone: self.cone_count(),
            vectors: self.vectors.len(),
            annealed: self.annealed,
            projected: self.projected,
            bytes: self.spans.len() * std::mem::size_of::<(u32, u32)>() + self.vectors.len() * 24,
        }
    }
}

/// Whether culling (and the glide screen, which likewise looks only at faces turned toward
/// the motion) is conservative for this mesh: it [`encloses_volume`], every shell (triangles
/// joined through their vertices) winds outward, and no shell's bounding box holds another's.
/// A shell wound inward that is no cavity, or a shell nested in another (a cavity wound
/// either way), is met from behind by a part coming from outside or from the cavity
/// (docs/bm-culling.md §6). Conservative: a hollow part's correctly wound cavity, or shells
/// whose boxes nest while they do not, make a mesh not solid here, which costs time only.
pub fn is_solid(mesh: &Mesh) -> bool {
    encloses_volume(mesh) && shells_outward_and_apart(mesh)
}

/// Closed, manifold, every edge used in opposite directions by its two faces, and a
/// positive signed volume: the divergence theorem gives its volume. Large meshes are checked
/// on all cores.
pub fn encloses_volume(mesh: &Mesh) -> bool {
    if !mesh.stats().is_closed() {
        return false;
    }
    let edges = mesh.edges().len() as u32;
    let threads = if edges as usize >= PARALLEL_EDGES {
        std::thread::available_parallelism().map_or(1, |t| t.get()) as u32
    } else {
        1
    };
    let chunk = edges.div_ceil(threads.max(1));
    let oriented = std::thread::scope(|s| {
        let parts: Vec<_> = (1..threads)
            .map(|k| s.spawn(move || consistently_oriented(mesh, k * chunk..((k + 1) * chunk).min(edges))))
            .collect();
        let here = consistently_oriented(mesh, 0..chunk.min(edges));
        parts.into_iter().fold(here, |all, p| all & p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    });
    oriented && mesh.signed_volume() > 0.0
}

/// Each shell of a closed, consistently wound mesh winds outward (positive signed volume)
/// and no shell's bounding box holds another's (docs/bm-culling.md §6). Shells are found by
/// joining each triangle's vertices (union–find); boxes that could hold one another overlap
/// along x, so a sweep over the boxes sorted by their lower x compares only those.
fn shells_outward_and_apart(mesh: &Mesh) -> bool {
    let n = mesh.vertices().len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let up = parent[parent[v as usize] as usize];
            parent[v as usize] = up;
            v = up;
        }
        v
    }
    for &[a, b, c] in mesh.triangles() {
        for (x, y) in [(a, b), (b, c)] {
            let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
            if rx != ry {
                parent[rx.max(ry) as usize] = rx.min(ry);
            }
        }
    }
    // Shell index per root, then each shell's signed volume (about the mesh's box centre, to
    // keep the digits) and bounding box.
    let (lo, hi) = mesh.bounds();
    let centre = 0.5 * (lo + hi);
    let mut used = vec![false; n];
    for t in mesh.triangles() {
        for &v in t {
            used[v as usize] = true;
        }
    }
    let mut shell_of = vec![u32::MAX; n];
    let mut shells: Vec<(f64, DVec3, DVec3)> = Vec::new();
    // The root is the least vertex of its shell: seen first.
    for v in (0..n as u32).filter(|&v| used[v as usize]) {
        let r = root(&mut parent, v) as usize;
        if shell_of[r] == u32::MAX {
            shell_of[r] = shells.len() as u32;
            shells.push((0.0, DVec3::INFINITY, DVec3::NEG_INFINITY));
        }
        let k = shell_of[r] as usize;
        let p = mesh.vertex(v);
        shells[k].1 = shells[k].1.min(p);
        shells[k].2 = shells[k].2.max(p);
        shell_of[v as usize] = shell_of[r];
    }
    for t in mesh.triangles() {
        let [a, b, c] = t.map(|v| mesh.vertex(v) - centre);
        shells[shell_of[t[0] as usize] as usize].0 += a.dot(b.cross(c)) / 6.0;
    }
    if shells.iter().any(|&(volume, ..)| volume <= 0.0) {
        return false;
    }
    let holds = |o: &(f64, DVec3, DVec3), i: &(f64, DVec3, DVec3)| o.1.cmple(i.1).all() && o.2.cmpge(i.2).all();
    let mut order: Vec<usize> = (0..shells.len()).collect();
    order.sort_by(|&x, &y| shells[x].1.x.total_cmp(&shells[y].1.x));
    let mut open: Vec<usize> = Vec::new();
    for &k in &order {
        open.retain(|&j| shells[j].2.x >= shells[k].1.x);
        if open.iter().any(|&j| holds(&shells[j], &shells[k]) || holds(&shells[k], &shells[j])) {
            return false;
        }
        open.push(k);
    }
    true
}

/// Edges of at least this many make `is_solid` use all cores.
const PARALLEL_EDGES: usize = 1 << 16;

/// Whether each of these edges has two faces that run along it in opposite directions.
fn consistently_oriented(mesh: &Mesh, edges: std::ops::Range<u32>) -> bool {
    edges.into_iter().all(|e| {
        let [a, b] = mesh.edge(e);
        let faces = mesh.edge_faces(e);
        // +1 if the face runs a→b, −1 if b→a.
        let dir = |f: u32| {
            let t = mesh.triangle(f);
            (0..3)
                .map(|k| (t[k], t[(k + 1) % 3]))
                .fold(0, |d, (p, q)| d + (p == a && q == b) as i32 - (p == b && q == a) as i32)
        };
        faces.len() == 2 && {
            let first = dir(faces[0]);
            first != 0 && first + dir(faces[1]) == 0
        }
    })
}

struct Context<'a> {
    mesh: &'a Mesh,
    tree: &'a ObbTree,
    settings: ConeSettings,
    method: Method,
}

fn build_cones(cx: &Context, threads: usize) -> BmCones {
    let n = cx.tree.nodes().len() as u32;
    if n == 0 {
        return BmCones::default();
    }
    let threads = match threads {
        // Only large trees ask how many cores there are (it reads the cgroup files).
        0 if n as usize >= PARALLEL_NODES => std::thread::available_parallelism().map_or(1, |t| t.get()),
        0 => 1,
        t => t,
    };
    let part = build_part(cx, 0, n, threads);
    BmCones { spans: part.spans, vectors: part.vectors, annealed: part.annealed, projected: part.projected }
}

/// The cones of one subtree: nodes `root..end` (a subtree's nodes are contiguous, children
/// after their parent), vectors numbered from 0.
struct Part {
    root: u32,
    spans: Vec<(u32, u32)>,
    vectors: Vec<DVec3>,
    annealed: usize,
    projected: usize,
}

/// Builds the subtree's cones bottom-up; a large subtree's two halves on two threads first.
fn build_part(cx: &Context, root: u32, end: u32, threads: usize) -> Part {
    let mut builder = NodeBuilder::new(cx.settings, cx.method);
    let node = cx.tree.node(root);
    let mut part = if threads > 1 && !node.is_leaf() && (end - root) as usize >= PARALLEL_NODES {
        let (l, r) = cx.tree.children(root);
        let (left, right) = std::thread::scope(|s| {
            let right = s.spawn(|| build_part(cx, r, end, threads / 2));
            let left = build_part(cx, l, r, threads - threads / 2);
            (left, right.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
        let mut spans = Vec::with_capacity((end - root) as usize);
        spans.push((0, 0));
        spans.extend_from_slice(&left.spans);
        let offset = left.vectors.len() as u32;
        spans.extend(right.spans.iter().map(|&(start, count)| (start + offset, count)));
        let mut vectors = left.vectors;
        vectors.extend_from_slice(&right.vectors);
        Part {
            root,
            spans,
            vectors,
            annealed: left.annealed + right.annealed,
            projected: left.projected + right.projected,
        }
    } else {
        let mut part = Part {
            root,
            spans: vec![(0, 0); (end - root) as usize],
            vectors: Vec::with_capacity(2 * (end - root) as usize),
            annealed: 0,
            projected: 0,
        };
        // Children come after their parent: reverse order is bottom-up.
        for i in (root + 1..end).rev() {
            part.build_node(cx, &mut builder, i);
        }
        part
    };
    part.build_node(cx, &mut builder, root);
    part.annealed += builder.annealed();
    part.projected += builder.projected;
    part
}

impl Part {
    fn cone(&self, node: u32) -> Option<&[DVec3]> {
        let (start, count) = self.spans[(node - self.root) as usize];
        (count > 0).then(|| &self.vectors[start as usize..(start + count) as usize])
    }

    fn build_node(&mut self, cx: &Context, builder: &mut NodeBuilder, i: u32) {
        let node = cx.tree.node(i);
        builder.inputs.clear();
        if node.is_leaf() {
            builder.inputs.extend(cx.tree.leaf_triangles(node).iter().map(|&t| cx.mesh.normal(t)));
            builder.distinct = 0;
        } else {
            let (l, r) = cx.tree.children(i);
            let (Some(a), Some(b)) = (self.cone(l), self.cone(r)) else { return };
            builder.inputs.extend_from_slice(a);
            builder.inputs.extend_from_slice(b);
            builder.distinct = a.len();
        }
        // The node's absolute index: the same draws whatever the threads.
        let seed = cx.settings.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        if builder.build(seed) {
            self.spans[(i - self.root) as usize] = (self.vectors.len() as u32, builder.out.len() as u32);
            self.vectors.extend_from_slice(&builder.out);
        }
    }
}

/// One node's cone from its inputs (docs/bm-culling.md §3), with buffers kept between nodes.
struct NodeBuilder {
    method: Method,
    r_max: usize,
    inputs: Vec<DVec3>,
    /// How many of the first inputs are known to differ from one another (the first child's
    /// vectors; 0 for a leaf's normals).
    distinct: usize,
    unit: Vec<DVec3>,
    minimal: Vec<DVec3>,
    out: Vec<DVec3>,
    hull: Hull,
    projection: Builder,
    /// Nodes whose minimal subset had more than `r_max` vectors (hull build).
    reduced: usize,
    projected: usize,
}

impl NodeBuilder {
    fn new(settings: ConeSettings, method: Method) -> NodeBuilder {
        NodeBuilder {
            method,
            r_max: settings.r_max.max(3),
            inputs: Vec::new(),
            distinct: 0,
            unit: Vec::new(),
            minimal: Vec::new(),
            out: Vec::new(),
            hull: Hull::default(),
            projection: Builder::new(settings),
            reduced: 0,
            projected: 0,
        }
    }

    /// Nodes whose minimal subset had more than `r_max` vectors.
    fn annealed(&self) -> usize {
        match self.method {
            Method::Hull => self.reduced,
            Method::Projection => self.projection.annealed,
        }
    }

    /// The cone of `inputs` into `out`; false when the node gets none.
    fn build(&mut self, seed: u64) -> bool {
        self.out.clear();
        if self.method == Method::Projection {
            self.projected += 1;
            return self.projection.build(&self.inputs, seed, &mut self.out);
        }
        // Mesh normals and the children's vectors are unit already, and each child's vectors
        // differ from one another: only the second child's are compared with the first's.
        self.unit.clear();
        for (i, &v) in self.inputs.iter().enumerate() {
            let earlier = match self.distinct {
                0 => &self.unit[..],
                d if i < d => &[],
                d => &self.unit[..d],
            };
            if v != DVec3::ZERO && !earlier.iter().any(|&m| (m - v).length_squared() < 1e-18) {
                self.unit.push(v);
            }
        }
        match *self.unit {
            [] => return false,
            [_] => {
                self.out.extend_from_slice(&self.unit);
                return true;
            }
            [a, b] => {
                // Two distinct rays are both extreme; their largest margin is |a + b|/2.
                if (a + b).length_squared() < 4.0 * POINTED_MARGIN * POINTED_MARGIN {
                    return false;
                }
                self.out.extend_from_slice(&self.unit);
                return true;
            }
            _ => {}
        }
        let (d, margin) = pointing_direction(&self.unit);
        if margin < POINTED_MARGIN && self.unit.len() > ENUMERATION_LIMIT {
            // Too many inputs to enumerate, and the mean does not point into them: Lemma 2 and
            // the projection decide, as in the original build.
            self.projected += 1;
            return self.projection.build(&self.inputs, seed, &mut self.out);
        }
        if margin < POINTED_MARGIN {
            return false;
        }
        self.minimal.clear();
        let hull = margin >= HULL_MARGIN && self.hull.extreme_rays(&self.unit, d, &mut self.minimal);
        if !hull {
            self.minimal.clear();
            self.projected += 1;
            self.minimal.extend_from_slice(&self.unit);
            self.projection.drop_redundant(&mut self.minimal);
        }
        if self.minimal.len() <= self.r_max {
            self.out.extend_from_slice(&self.minimal);
            return true;
        }
        self.reduced += 1;
        if hull && self.hull.reduce(self.r_max, &mut self.out) {
            return true;
        }
        self.projected += hull as usize;
        self.out.clear();
        self.projection.enclose(&self.minimal, seed, &mut self.out)
    }
}

/// Unit inputs without repeats (neighbouring leaves share faces; coplanar faces give
/// normals equal to rounding, which the projection cannot tell apart).
fn unit_without_repeats(inputs: &[DVec3], unit: &mut Vec<DVec3>) {
    unit.clear();
    for &v in inputs {
        let v = v.normalize_or_zero();
        if v != DVec3::ZERO && !unit.iter().any(|&m| (m - v).length_squared() < 1e-18) {
            unit.push(v);
        }
    }
}

/// A unit `d` and the margin `min_i u_i·d` it achieves over the unit vectors `u`: the mean
/// if its margin reaches `HULL_MARGIN`, else the best over the directions of the faces of the
/// hull of the `u` (docs/bm-culling.md §3.1), which include the largest margin there is.
/// With more than `ENUMERATION_LIMIT` inputs, only the mean.
fn pointing_direction(u: &[DVec3]) -> (DVec3, f64) {
    let margin = |d: DVec3| u.iter().map(|v| v.dot(d)).fold(f64::INFINITY, f64::min);
    let mut best = (DVec3::ZERO, f64::NEG_INFINITY);
    let try_direction = |c: DVec3, best: &mut (DVec3, f64)| {
        if let Some(d) = c.try_normalize() {
            let m = margin(d);
            if m > best.1 {
                *best = (d, m);
            }
        }
        best.1 >= HULL_MARGIN
    };
    if try_direction(u.iter().sum(), &mut best) || u.len() > ENUMERATION_LIMIT {
        return best;
    }
    for (i, &a) in u.iter().enumerate() {
        if try_direction(a, &mut best) {
            return best;
        }
        for (j, &b) in u.iter().enumerate().skip(i + 1) {
            // The nearest point of a segment between unit vectors is its midpoint.
            if try_direction(a + b, &mut best) {
                return best;
            }
            for &c in &u[j + 1..] {
                let n = (b - a).cross(c - a);
                if try_direction(if n.dot(a) >= 0.0 { n } else { -n }, &mut best) {
                    return best;
                }
            }
        }
    }
    best
}

/// The convex hull of the gnomonic images of unit vectors (docs/bm-culling.md §3.1).
#[derive(Default)]
struct Hull {
    /// The plane `x·d = 1`, with axes e1, e2.
    frame: [DVec3; 3],
    points: Vec<(f64, f64, usize)>,
    chain: Vec<usize>,
    /// Per point: whether the chain kept it.
    kept: Vec<bool>,
    /// The last hull's vertices in the plane, counter-clockwise, and the same reduced.
    polygon: Vec<(f64, f64)>,
    reduced: Vec<(f64, f64)>,
    /// Per edge of `reduced`: what removing it adds, and the new vertex.
    candidates: Vec<Option<(f64, (f64, f64))>>,
}

impl Hull {
    /// The extreme rays of the cone of `u` (unit, no repeats, `u_i·d ≥ HULL_MARGIN`), in
    /// counter-clockwise order about `d`, into `out`; false (and `out` unusable) if rounding
    /// left a vector outside their cone.
    fn extreme_rays(&mut self, u: &[DVec3], d: DVec3, out: &mut Vec<DVec3>) -> bool {
        let e1 = d.any_orthonormal_vector();
        let e2 = d.cross(e1);
        self.frame = [d, e1, e2];
        self.points.clear();
        self.points.extend(u.iter().enumerate().map(|(i, v)| {
            let w = v.dot(d);
            // + 0.0 turns −0 into +0: the sort must order as the arithmetic compares.
            (v.dot(e1) / w + 0.0, v.dot(e2) / w + 0.0, i)
        }));
        self.points.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        // Andrew's monotone chain on the computed points, sorted and turned by the same
        // numbers (a tolerance here could drop the end of a nearly vertical edge). A turn is
        // always computed from its three points in sorted order, so that turning back along
        // three nearly collinear points gives exactly the opposite sign.
        let p = |i: usize| (self.points[i].0, self.points[i].1);
        let turn = |i: usize, j: usize, k: usize| {
            let (o, a, b) = (p(i), p(j), p(k));
            (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
        };
        let chain = &mut self.chain;
        chain.clear();
        // Lower hull: chain[-2] < chain[-1] < k.
        for k in 0..self.points.len() {
            while chain.len() >= 2 && !(turn(chain[chain.len() - 2], chain[chain.len() - 1], k) > 0.0) {
                chain.pop();
            }
            chain.push(k);
        }
        // Upper hull, backwards: chain[-2] > chain[-1] > k, so the left turn is negative in
        // sorted order.
        let lower = chain.len() + 1;
        for k in (0..self.points.len() - 1).rev() {
            while chain.len() >= lower && !(turn(k, chain[chain.len() - 1], chain[chain.len() - 2]) < 0.0) {
                chain.pop();
            }
            chain.push(k);
        }
        chain.pop(); // the first point again
        // Then a vertex closer than the tolerance to the chord of its neighbours, and between
        // them, goes: it is in their cone up to the tolerance.
        let mut i = 0;
        while chain.len() >= 3 && i < chain.len() {
            let n = chain.len();
            let (a, v, b) = (chain[before(i, n)], chain[i], chain[after(i, n)]);
            let (pa, pv, pb) = (p(a), p(v), p(b));
            let between = (pv.0 - pa.0) * (pb.0 - pa.0) + (pv.1 - pa.1) * (pb.1 - pa.1) >= 0.0
                && (pv.0 - pb.0) * (pa.0 - pb.0) + (pv.1 - pb.1) * (pa.1 - pb.1) >= 0.0;
            let [ua, uv, ub] = [a, v, b].map(|k| u[self.points[k].2]);
            if a != b && between && ua.dot(uv.cross(ub)) <= HULL_TOLERANCE * ua.cross(ub).length() {
                chain.remove(i);
                i = 0;
            } else {
                i += 1;
            }
        }
        self.polygon.clear();
        self.polygon.extend(chain.iter().map(|&k| p(k)));
        out.extend(chain.iter().map(|&k| u[self.points[k].2]));
        // Whatever rounding did above, every other point must be in the result.
        let kept = &mut self.kept;
        kept.clear();
        kept.resize(self.points.len(), false);
        for &k in chain.iter() {
            kept[k] = true;
        }
        self.points.iter().zip(kept.iter()).all(|(&(x, y, _), &kept)| kept || encloses(&self.polygon, (x, y)))
    }

    /// The last hull enclosed by a polygon of `r` vertices (docs/bm-culling.md §3.2): while
    /// there are more, the edge whose two neighbouring edges, extended, meet with the least
    /// added area goes, its two ends replaced by the meeting point. The cone of the result
    /// holds the hull's; false when no edge can go (neighbouring edges that do not meet in
    /// front, or meet beyond `1/HULL_MARGIN`) or rounding put a hull vertex outside.
    fn reduce(&mut self, r: usize, out: &mut Vec<DVec3>) -> bool {
        let poly = &mut self.reduced;
        poly.clone_from(&self.polygon);
        let candidates = &mut self.candidates;
        candidates.clear();
        candidates.extend((0..poly.len()).map(|i| edge_removal(poly, i)));
        while poly.len() > r {
            let n = poly.len();
            let mut best: Option<(f64, usize)> = None;
            for (i, c) in candidates.iter().enumerate() {
                if let Some((area, _)) = *c
                    && best.is_none_or(|(least, _)| area < least)
                {
                    best = Some((area, i));
                }
            }
            let Some((_, i)) = best else { return false };
            let Some((_, x)) = candidates[i] else { return false };
            let (b, c) = (poly[i], poly[(i + 1) % n]);
            poly[i] = x;
            poly.remove((i + 1) % n);
            candidates.remove((i + 1) % n);
            let m = n - 1;
            let j = if i + 1 == n { i - 1 } else { i };
            // The polygon grew by the triangle b x c: b and c must be inside up to rounding
            // (then every earlier vertex is too).
            let (prev, next) = (poly[before(j, m)], poly[after(j, m)]);
            if ![b, c].iter().all(|&q| inside_edge(prev, x, q) && inside_edge(x, next, q)) {
                return false;
            }
            // Only the edges whose neighbours include the new vertex change.
            for k in [j + m - 2, j + m - 1, j, j + 1] {
                candidates[k % m] = edge_removal(poly, k % m);
            }
        }
        let [d, e1, e2] = self.frame;
        out.extend(poly.iter().map(|&(x, y)| (d + x * e1 + y * e2).normalize()));
        true
    }
}

/// Removing edge `i` (from vertex `i` to `i + 1`) of the convex polygon `poly`: the point
/// where its two neighbouring edges' lines meet in front of it, and the area that adds;
/// `None` when they do not meet there or meet beyond `1/HULL_MARGIN`.
fn edge_removal(poly: &[(f64, f64)], i: usize) -> Option<(f64, (f64, f64))> {
    let n = poly.len();
    let cross = |a: (f64, f64), b: (f64, f64)| a.0 * b.1 - a.1 * b.0;
    let sub = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0, a.1 - b.1);
    let j = after(i, n);
    let (a, b, c, e) = (poly[before(i, n)], poly[i], poly[j], poly[after(j, n)]);
    // b + s (b − a) = c + t (c − e), s, t ≥ 0.
    let (along_ab, back_ec, bc) = (sub(b, a), sub(c, e), sub(c, b));
    let den = cross(along_ab, back_ec);
    if den == 0.0 {
        return None;
    }
    let (s, t) = (cross(bc, back_ec) / den, cross(bc, along_ab) / den);
    let x = (b.0 + s * along_ab.0, b.1 + s * along_ab.1);
    let far = 1.0 / HULL_MARGIN;
    if !(s >= 0.0 && t >= 0.0 && x.0 * x.0 + x.1 * x.1 <= far * far) {
        return None;
    }
    Some((0.5 * cross(bc, sub(x, b)).abs(), x))
}

/// Whether `q` is on the left of the edge `a → b` (inside a counter-clockwise polygon), up to
/// about `HULL_TOLERANCE` in angle (the gnomonic plane magnifies angles near `q` by up to
/// `1 + |q|²`). Compared squared: no square roots on this path, which every hull node takes.
fn inside_edge(a: (f64, f64), b: (f64, f64), q: (f64, f64)) -> bool {
    let (e, w) = ((b.0 - a.0, b.1 - a.1), (q.0 - a.0, q.1 - a.1));
    let cross = e.0 * w.1 - e.1 * w.0;
    let scale = 1.0 + q.0 * q.0 + q.1 * q.1;
    cross >= 0.0 || cross * cross <= HULL_TOLERANCE * HULL_TOLERANCE * scale * scale * (e.0 * e.0 + e.1 * e.1)
}

/// The index before `i` around a polygon of `n` vertices (no division: this runs often).
fn before(i: usize, n: usize) -> usize {
    if i == 0 { n - 1 } else { i - 1 }
}

/// The index after `i` around a polygon of `n` vertices.
fn after(i: usize, n: usize) -> usize {
    if i + 1 == n { 0 } else { i + 1 }
}

/// Whether the convex polygon `poly` (counter-clockwise; two vertices: a segment; one: a
/// point) holds `q` in the gnomonic plane, up to about `HULL_TOLERANCE` in angle (the plane
/// magnifies angles near `q` by up to `1 + |q|²`).
fn encloses(poly: &[(f64, f64)], q: (f64, f64)) -> bool {
    match *poly {
        [] => false,
        [a] => {
            let (dx, dy) = (q.0 - a.0, q.1 - a.1);
            let scale = 1.0 + q.0 * q.0 + q.1 * q.1;
            dx * dx + dy * dy <= HULL_TOLERANCE * HULL_TOLERANCE * scale * scale
        }
        // A segment: on its line both ways, and between the perpendiculars at its ends.
        [a, b] => {
            let perp = |p: (f64, f64), d: (f64, f64)| (p.0 - d.1, p.1 + d.0);
            let d = (b.0 - a.0, b.1 - a.1);
            inside_edge(a, b, q)
                && inside_edge(b, a, q)
                && inside_edge(perp(a, d), a, q)
                && inside_edge(b, perp(b, d), q)
        }
        _ => (0..poly.len()).all(|j| inside_edge(poly[j], poly[after(j, poly.len())], q)),
    }
}

/// splitmix64: small, fast and good enough for draws that only need to be reproducible.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The steps of docs/bm-culling.md §3 by Wilhelmsen's projection.
struct Builder {
    settings: ConeSettings,
    projector: Projector,
    flat: Vec<f64>,
    annealed: usize,
}

impl Builder {
    fn new(settings: ConeSettings) -> Builder {
        Builder { settings, projector: Projector::new(), flat: Vec::new(), annealed: 0 }
    }

    /// Distance from `x` to the positive cone of `gens`.
    fn distance(&mut self, gens: &[DVec3], x: DVec3) -> f64 {
        self.set_cone(gens);
        self.distance_to_cone(x)
    }

    /// Makes `gens` the cone [`Builder::distance_to_cone`] measures against.
    fn set_cone(&mut self, gens: &[DVec3]) {
        self.flat.clear();
        self.flat.extend(gens.iter().flat_map(|g| g.to_array()));
    }

    fn distance_to_cone(&mut self, x: DVec3) -> f64 {
        match self.projector.project(&self.flat, 3, &x.to_array(), Metric::Identity, &Settings::default()) {
            Ok(_) => self.projector.distance(),
            Err(_) => f64::INFINITY,
        }
    }

    fn contains(&mut self, gens: &[DVec3], x: DVec3) -> bool {
        self.distance(gens, x) <= INCLUSION_TOLERANCE * x.length()
    }

    fn contains_all(&mut self, gens: &[DVec3], xs: &[DVec3]) -> bool {
        self.set_cone(gens);
        xs.iter().all(|&x| self.distance_to_cone(x) <= INCLUSION_TOLERANCE * x.length())
    }

    /// Steps 1–4 of docs/bm-culling.md §3; false when the node gets no cone.
    fn build(&mut self, inputs: &[DVec3], seed: u64, out: &mut Vec<DVec3>) -> bool {
        let mut minimal: Vec<DVec3> = Vec::with_capacity(inputs.len());
        unit_without_repeats(inputs, &mut minimal);
        if minimal.is_empty() {
            return false;
        }
        // 1. Lemma 2: P = R³ iff ±x, ±y, ±z are all in P.
        let axes = [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z];
        if minimal.len() >= 4 && axes.iter().all(|&a| self.contains(&minimal, a)) {
            return false;
        }
        // 2. Minimal subset.
        self.drop_redundant(&mut minimal);
        if minimal.len() <= self.settings.r_max.max(3) {
            out.extend_from_slice(&minimal);
            return true;
        }
        self.enclose(&minimal, seed, out)
    }

    /// Step 2: drops vectors in the cone of the others, one at a time.
    fn drop_redundant(&mut self, minimal: &mut Vec<DVec3>) {
        let mut i = 0;
        while i < minimal.len() && minimal.len() > 1 {
            let v = minimal.swap_remove(i);
            if self.contains(minimal, v) {
                continue;
            }
            minimal.push(v);
            let last = minimal.len() - 1;
            minimal.swap(i, last);
            i += 1;
        }
    }

    /// Steps 3–4: at most `r_max` vectors whose cone holds the more than `r_max` of
    /// `minimal`; false when none is found.
    fn enclose(&mut self, minimal: &[DVec3], seed: u64, out: &mut Vec<DVec3>) -> bool {
        let r_max = self.settings.r_max.max(3);
        self.annealed += 1;
        let mut rng = Rng(seed);
        let mean = minimal.iter().sum::<DVec3>() / minimal.len() as f64;
        let Some(m) = mean.try_normalize() else { return false };
        // 3. Initialization.
        let mut cone = self.pushed_draw(minimal, m, r_max, &mut rng).or_else(|| self.polygon(minimal, m, r_max));
        let Some(ref mut cone) = cone else { return false };
        // 4. Refinement.
        self.anneal(minimal, m, cone, &mut rng);
        out.extend_from_slice(cone);
        true
    }

    /// Seed 000 §5.2 step 3: a random draw whose cone holds the mean, pushed outward.
    fn pushed_draw(&mut self, minimal: &[DVec3], m: DVec3, r: usize, rng: &mut Rng) -> Option<Vec<DVec3>> {
        let mut pool: Vec<DVec3> = minimal.to_vec();
        for _ in 0..16 {
            for k in 0..r {
                let j = k + rng.below(pool.len() - k);
                pool.swap(k, j);
            }
            let draw = &pool[..r];
            if !self.contains(draw, m) {
                continue;
            }
            let mut alpha = 0.05;
            for _ in 0..24 {
                let pushed: Vec<DVec3> = draw.iter().map(|&v| (v + alpha * (v - m)).normalize()).collect();
                if pushed.iter().any(|p| p.dot(m) < 0.02) {
                    break; // no longer pointed: this draw cannot work
                }
                if self.contains_all(&pushed, minimal) {
                    return Some(pushed);
                }
                alpha *= 2.0;
            }
        }
        None
    }

    /// The fallback: the regular r-gon around `m` that circumscribes the circular cone
    /// holding every vector.
    fn polygon(&mut self, minimal: &[DVec3], m: DVec3, r: usize) -> Option<Vec<DVec3>> {
        let cos0 = minimal.iter().map(|v| v.dot(m)).fold(1.0, f64::min).clamp(-1.0, 1.0);
        let theta0 = cos0.acos();
        let mut theta = (theta0.tan() / (std::f64::consts::PI / r as f64).cos()).atan();
        if !(theta0 < 89.9f64.to_radians()) {
            return None;
        }
        let (e1, e2) = m.any_orthonormal_pair();
        for _ in 0..8 {
            if !(theta < 89.9f64.to_radians()) {
                return None;
            }
            let cone: Vec<DVec3> = (0..r)
                .map(|i| {
                    let phi = std::f64::consts::TAU * i as f64 / r as f64;
                    theta.cos() * m + theta.sin() * (phi.cos() * e1 + phi.sin() * e2)
                })
                .collect();
            if self.contains_all(&cone, minimal) {
                return Some(cone);
            }
            // Rounding at the tangent points: open it a little.
            theta += 1e-9 + 1e-6 * theta;
        }
        None
    }

    /// Seed 000 §5.2 step 4: threshold accepting on `Σ d_i`, keeping the best valid cone.
    fn anneal(&mut self, minimal: &[DVec3], m: DVec3, cone: &mut [DVec3], rng: &mut Rng) {
        let steps = self.settings.anneal_steps;
        if steps == 0 {
            return;
        }
        let mut d: Vec<f64> = cone.iter().map(|&v| self.distance(minimal, v)).collect();
        let mut cost: f64 = d.iter().sum();
        let mut best = (cost, cone.to_vec());
        let mut current = cone.to_vec();
        let spread = cone.iter().map(|v| v.dot(m).clamp(-1.0, 1.0).acos()).fold(0.0, f64::max);
        for s in 0..steps {
            let progress = s as f64 / steps as f64;
            let step = 0.5 * spread * (1.0 - progress) + 1e-3;
            let ratio = 0.05 * (1.0 - progress);
            let i = rng.below(current.len());
            let (e1, e2) = current[i].any_orthonormal_pair();
            let phi = std::f64::consts::TAU * rng.unit();
            let angle = step * rng.unit();
            let old = current[i];
            let moved = (old * angle.cos() + angle.sin() * (phi.cos() * e1 + phi.sin() * e2)).normalize();
            if moved.dot(m) < 0.02 {
                continue;
            }
            current[i] = moved;
            if !self.contains_all(&current, minimal) {
                current[i] = old;
                continue;
            }
            let di = self.distance(minimal, moved);
            let new_cost = cost - d[i] + di;
            if new_cost <= cost * (1.0 + ratio) {
                cost = new_cost;
                d[i] = di;
                if cost < best.0 {
                    best = (cost, current.clone());
                }
            } else {
                current[i] = old;
            }
        }
        cone.copy_from_slice(&best.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MeshBuilder, Pose};
    use glam::DQuat;

    /// Cubes of half-side `half` at `centre`, each wound inward when `flip`, as one mesh.
    fn shells(cubes: &[(DVec3, f64, bool)]) -> Mesh {
        let cube = |b: MeshBuilder, &(centre, half, flip): &(DVec3, f64, bool)| {
            let (pose, half) = (Pose::from_translation(centre), DVec3::splat(half));
            if flip { b.cuboid_inward(pose, half) } else { b.cuboid(pose, half) }
        };
        cubes.iter().fold(MeshBuilder::new(), cube).build().unwrap()
    }

    /// §6: every shell outward and none nested. Each wrong case encloses a positive volume
    /// (so mass properties still read it) but is no solid for culling.
    #[test]
    fn a_solid_has_every_shell_outward_and_none_nested() {
        let (o, far) = (DVec3::ZERO, DVec3::new(10.0, 0.0, 0.0));
        let cases = [
            ("one cube", vec![(o, 1.0, false)], true),
            ("two cubes apart", vec![(o, 1.0, false), (far, 1.0, false)], true),
            (
                "two cubes overlapping, neither box holding the other",
                vec![(o, 1.0, false), (DVec3::splat(0.5), 1.0, false)],
                true,
            ),
            ("a cube wound inward beside a larger outward one", vec![(far, 2.0, false), (o, 1.0, true)], false),
            ("an outward cube nested in another", vec![(o, 2.0, false), (o, 1.5, false)], false),
            ("a cavity wound inward (conservative: no)", vec![(o, 2.0, false), (o, 1.5, true)], false),
            (
                "a small cube inside a larger one's box, off centre",
                vec![(o, 2.0, false), (DVec3::splat(1.2), 0.5, false)],
                false,
            ),
        ];
        for (name, cubes, solid) in cases {
            let m = shells(&cubes);
            assert!(encloses_volume(&m), "{name}: encloses a volume");
            assert_eq!(is_solid(&m), solid, "{name}");
        }
        // A vertex no triangle uses is no shell.
        let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE).build().unwrap();
        let mut vertices = cube.vertices().to_vec();
        vertices.push(DVec3::splat(5.0));
        assert!(is_solid(&Mesh::new(vertices, cube.triangles().to_vec()).unwrap()));
    }

    /// Deterministic draws.
    struct Draw(u64);

    impl Draw {
        fn f(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
        fn unit(&mut self) -> DVec3 {
            loop {
                let v = DVec3::new(self.f(), self.f(), self.f());
                if v.length_squared() > 0.01 && v.length_squared() <= 1.0 {
                    return v.normalize();
                }
            }
        }
        fn below(&mut self, n: usize) -> usize {
            ((self.f() + 1.0) * 0.5 * n as f64) as usize % n
        }
    }

    /// Distance from `x` to the positive cone of `cone`, by brute force: the least distance
    /// to a point of the cone among those nearest to `x` on each ray, each wedge of two
    /// vectors and each simplicial cone of three (Carathéodory). Every candidate is a point
    /// of the cone, so this never underestimates; it does not rely on the projection, which
    /// near-parallel vectors make ill-conditioned.
    fn distance(cone: &[DVec3], x: DVec3) -> f64 {
        let mut best = x.length();
        for (i, &a) in cone.iter().enumerate() {
            best = best.min((x - x.dot(a).max(0.0) / a.length_squared() * a).length());
            for (j, &b) in cone.iter().enumerate().skip(i + 1) {
                // Nearest point of the plane of a and b, if both coefficients are ≥ 0.
                let (aa, ab, bb, xa, xb) = (a.dot(a), a.dot(b), b.dot(b), x.dot(a), x.dot(b));
                let det = aa * bb - ab * ab;
                if det > 0.0 {
                    let (s, t) = ((xa * bb - xb * ab) / det, (xb * aa - xa * ab) / det);
                    if s >= 0.0 && t >= 0.0 {
                        best = best.min((x - s * a - t * b).length());
                    }
                }
                for &c in &cone[j + 1..] {
                    // Inside by Cramer's rule, from the signs of determinants of unit-sized
                    // vectors (inverting nearly parallel ones would be ill-conditioned).
                    let det = |p: DVec3, q: DVec3, r: DVec3| p.dot(q.cross(r));
                    let whole = det(a, b, c);
                    let parts = [det(x, b, c), det(a, x, c), det(a, b, x)];
                    if whole != 0.0 && parts.iter().all(|&l| l * whole >= 0.0) {
                        best = 0.0;
                    }
                }
            }
        }
        best
    }

    /// Unit vectors that stress the hull: caps from narrow to nearly a half-space, arcs of a
    /// great circle (coplanar normals) in random and in coordinate planes with signed zeros,
    /// repeats perturbed by 1e-16 to 1e-6, a box's face and edge normals, two nearby caps
    /// (a parent of two children), and vectors anywhere.
    fn inputs(draw: &mut Draw, case: usize) -> Vec<DVec3> {
        let k = 2 + draw.below(11);
        let cap = |draw: &mut Draw, axis: DVec3, angle: f64| {
            let (e1, e2) = axis.any_orthonormal_pair();
            let (a, phi) = (angle * draw.f().abs().sqrt(), std::f64::consts::PI * draw.f());
            (a.cos() * axis + a.sin() * (phi.cos() * e1 + phi.sin() * e2)).normalize()
        };
        match case % 8 {
            0 => {
                let (axis, angle) = (draw.unit(), (std::f64::consts::FRAC_PI_2 - 1e-4) * draw.f().abs());
                (0..k).map(|_| cap(draw, axis, angle)).collect()
            }
            1 | 2 => {
                // An arc of angle up to 179.9° in a random plane, or in a coordinate plane.
                let (n, e) = if case % 8 == 1 {
                    let n = draw.unit();
                    (n, n.any_orthonormal_vector())
                } else {
                    let axis = draw.below(3);
                    let mut e = DVec3::ZERO;
                    e[(axis + 1) % 3] = 1.0;
                    let mut n = DVec3::ZERO;
                    n[axis] = if draw.f() > 0.0 { 1.0 } else { -1.0 };
                    (n, e)
                };
                let (start, span) = (std::f64::consts::PI * draw.f(), (std::f64::consts::PI - 1e-3) * draw.f().abs());
                (0..k)
                    .map(|_| {
                        let a = start + span * (draw.f() + 1.0) * 0.5;
                        let v = a.cos() * e + a.sin() * n.cross(e);
                        // −0 against +0 in the plane's normal coordinate
                        if draw.f() > 0.0 { v * 1.0 } else { v + n * -0.0 }
                    })
                    .collect()
            }
            3 => {
                let base: Vec<DVec3> = (0..1 + k / 3).map(|_| draw.unit()).collect();
                (0..k)
                    .map(|i| {
                        let size = 10f64.powf(-6.0 - 10.0 * draw.f().abs());
                        (base[i % base.len()] + size * DVec3::new(draw.f(), draw.f(), draw.f())).normalize()
                    })
                    .collect()
            }
            4 => {
                let all = [
                    DVec3::X,
                    DVec3::Y,
                    DVec3::Z,
                    DVec3::NEG_X,
                    DVec3::NEG_Y,
                    DVec3::NEG_Z,
                    DVec3::new(1.0, 1.0, 0.0).normalize(),
                    DVec3::new(0.0, 1.0, 1.0).normalize(),
                    DVec3::new(1.0, 0.0, -1.0).normalize(),
                ];
                (0..k).map(|_| all[draw.below(all.len())]).collect()
            }
            5 | 6 => {
                let axis = draw.unit();
                let other = (axis + 0.6 * draw.unit()).normalize();
                let angle = 1.2 * draw.f().abs();
                (0..k).map(|i| cap(draw, if i % 2 == 0 { axis } else { other }, angle)).collect()
            }
            _ => (0..k).map(|_| draw.unit()).collect(),
        }
    }

    fn build(method: Method, settings: ConeSettings, inputs: &[DVec3], seed: u64) -> Option<Vec<DVec3>> {
        build_counting(method, settings, inputs, seed).0
    }

    /// The cone, and whether the projection had to step in.
    fn build_counting(
        method: Method,
        settings: ConeSettings,
        inputs: &[DVec3],
        seed: u64,
    ) -> (Option<Vec<DVec3>>, bool) {
        let mut builder = NodeBuilder::new(settings, method);
        builder.inputs.extend_from_slice(inputs);
        let cone = builder.build(seed).then(|| builder.out.clone());
        (cone, builder.projected > 0)
    }

    /// With `r_max` above any minimal subset, the hull gives the cone the projection gives
    /// (as cones: each one's vectors within 1e-9 of the other's cone) wherever that cone can
    /// cull, and no cone only where it cannot (docs/bm-culling.md §3.1).
    #[test]
    fn hull_gives_the_cone_of_the_projection() {
        let settings = ConeSettings { r_max: 64, ..ConeSettings::default() };
        let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
        let (mut both, mut neither, mut projected) = (0, 0, 0);
        for case in 0..6000 {
            let inputs = inputs(&mut draw, case);
            let (hull, fell_back) = build_counting(Method::Hull, settings, &inputs, case as u64);
            projected += fell_back as usize;
            let projection = build(Method::Projection, settings, &inputs, case as u64);
            match (&hull, &projection) {
                (Some(h), Some(p)) => {
                    both += 1;
                    for &v in h {
                        assert!(distance(p, v) <= 1e-9, "case {case}: {v} outside the projection's {p:?}, hull {h:?}");
                    }
                    for &v in p {
                        assert!(distance(h, v) <= 1e-9, "case {case}: {v} outside the hull's {h:?}, projection {p:?}");
                    }
                    for &v in &inputs {
                        assert!(distance(h, v) <= 1e-9, "case {case}: input {v} outside {h:?}");
                    }
                }
                (None, Some(p)) => {
                    let mut unit = Vec::new();
                    unit_without_repeats(p, &mut unit);
                    let margin = pointing_direction(&unit).1;
                    assert!(
                        margin < POINTED_MARGIN + 1e-9,
                        "case {case}: no cone, but the projection's {p:?} has margin {margin}"
                    );
                }
                (Some(h), None) => panic!("case {case}: the hull found {h:?} for {inputs:?}, the projection none"),
                (None, None) => neither += 1,
            }
        }
        assert!(both > 3000 && neither > 300, "{both} cases with a cone, {neither} without");
        // The hull itself did the work: the projection only near a half-space.
        assert!(projected < 60, "the projection stepped in {projected} times");
    }

    /// Three coplanar normals whose middle one the first hull dropped (found by the tree
    /// proptests): the cone runs from the first to the third.
    #[test]
    fn coplanar_normals_keep_their_ends() {
        let inputs = [
            DVec3::new(0.7329996781371396, 0.42319756148838655, 0.5325554391808736),
            DVec3::new(0.7329996781371395, 0.4231975614883865, -0.5325554391808737),
            DVec3::new(-0.30421329029892197, -0.17563762504514435, -0.9362722353429078),
        ];
        let cone = build(Method::Hull, ConeSettings::default(), &inputs, 1).unwrap();
        assert_eq!(cone.len(), 2);
        assert!(cone.contains(&inputs[0]) && cone.contains(&inputs[2]), "{cone:?}");
    }

    /// More extreme rays than `r_max`: at most `r_max` vectors, a pointed cone, every input
    /// inside (by Wilhelmsen's projection, independently of the plane's arithmetic).
    #[test]
    fn reduction_to_r_max_holds_every_input() {
        let mut draw = Draw(0x5EED_1234_5678_9ABC);
        let mut reduced = 0;
        for case in 0..3000 {
            let r_max = 3 + case % 3;
            let settings = ConeSettings { r_max, ..ConeSettings::default() };
            // Points around a rim: most are extreme.
            let (axis, angle) = (draw.unit(), 1.5 * draw.f().abs() + 0.01);
            let (e1, e2) = axis.any_orthonormal_pair();
            let k = r_max + 1 + draw.below(8);
            let inputs: Vec<DVec3> = (0..k)
                .map(|_| {
                    let (a, phi) = (angle * (1.0 - 0.3 * draw.f().abs()), std::f64::consts::PI * draw.f());
                    (a.cos() * axis + a.sin() * (phi.cos() * e1 + phi.sin() * e2)).normalize()
                })
                .collect();
            let mut builder = NodeBuilder::new(settings, Method::Hull);
            builder.inputs.extend_from_slice(&inputs);
            if !builder.build(case as u64) {
                continue;
            }
            reduced += builder.reduced;
            let cone = &builder.out;
            assert!(cone.len() <= r_max, "case {case}: {} vectors", cone.len());
            assert!(pointing_direction(cone).1 > 0.0, "case {case}: not pointed {cone:?}");
            for &v in &inputs {
                assert!(distance(cone, v) <= 1e-9, "case {case}: {v} outside {cone:?}");
            }
        }
        assert!(reduced > 2000, "only {reduced} reductions");
    }

    /// The margin found is the largest there is, when below `HULL_MARGIN` (else only at
    /// least that): no sampled direction does better.
    #[test]
    fn pointing_direction_has_the_largest_margin() {
        let mut draw = Draw(0xDEAD_BEEF_CAFE_F00D);
        for case in 0..400 {
            let u = inputs(&mut draw, case);
            let mut unit = Vec::new();
            unit_without_repeats(&u, &mut unit);
            let (d, margin) = pointing_direction(&unit);
            let at = |d: DVec3| unit.iter().map(|v| v.dot(d)).fold(f64::INFINITY, f64::min);
            assert!((at(d) - margin).abs() < 1e-15, "case {case}");
            if unit.len() > ENUMERATION_LIMIT || margin >= HULL_MARGIN {
                continue;
            }
            // Below zero the inputs are not pointed and only that matters: nothing reaches 0.
            let best = margin.max(0.0);
            for _ in 0..3000 {
                let x = draw.unit();
                assert!(at(x) <= best + 1e-12, "case {case}: {x} has margin {} > {margin}", at(x));
                // and near the best one
                let y = (d + 0.01 * draw.unit()).normalize();
                assert!(at(y) <= best + 1e-12, "case {case}");
            }
        }
    }

    /// Whole trees, with `r_max` above any minimal subset: at every node the default build
    /// gives the projection's cone, or none where that cone cannot cull.
    #[test]
    fn tree_cones_match_the_projection_build() {
        let pose = Pose::new(DQuat::from_rotation_z(0.2), DVec3::new(0.5, -1.0, 2.0));
        let hole = |x: f64, y: f64| x.abs() < 0.2 && y.abs() < 0.15;
        let meshes = [
            MeshBuilder::new().torus(pose, 1.0, 0.3, 30, 12).build().unwrap(),
            MeshBuilder::new().sphere(pose, 0.7, 12, 20).build().unwrap(),
            MeshBuilder::new().tube(pose, 0.3, 0.5, 1.0, 24, 4).build().unwrap(),
            MeshBuilder::new().tessellated_cuboid(pose, DVec3::new(1.0, 0.5, 0.2), [6, 4, 3]).build().unwrap(),
            MeshBuilder::new().perforated_plate(pose, [2.0, 1.5], 0.1, [16, 12], 0.3, hole).build().unwrap(),
        ];
        let settings = ConeSettings { r_max: 64, ..ConeSettings::default() };
        for (m, mesh) in meshes.iter().enumerate() {
            assert!(is_solid(mesh));
            let tree = ObbTree::build(mesh, 1);
            let (ours, theirs) =
                (BmCones::build(mesh, &tree, &settings), BmCones::build_by_projection(mesh, &tree, &settings));
            assert_eq!(ours.stats().annealed, 0);
            let mut same = 0;
            for i in 0..tree.nodes().len() as u32 {
                match (ours.cone(i), theirs.cone(i)) {
                    (Some(a), Some(b)) => {
                        same += 1;
                        for &v in a {
                            assert!(distance(b, v) <= 1e-9, "mesh {m}, node {i}: {a:?} against {b:?}");
                        }
                        for &v in b {
                            assert!(distance(a, v) <= 1e-9, "mesh {m}, node {i}: {a:?} against {b:?}");
                        }
                    }
                    (None, Some(b)) => {
                        let mut unit = Vec::new();
                        unit_without_repeats(b, &mut unit);
                        assert!(pointing_direction(&unit).1 < POINTED_MARGIN + 1e-9, "mesh {m}, node {i}: {b:?}");
                    }
                    (Some(a), None) => {
                        // Only below a node the projection gave up on.
                        panic!("mesh {m}, node {i}: {a:?} where the projection has none")
                    }
                    (None, None) => {}
                }
            }
            assert!(same * 2 > tree.nodes().len(), "mesh {m}: {same} nodes with both");
        }
    }

    /// Large trees are built on several threads; the cones are the same whatever their number.
    #[test]
    fn threads_do_not_change_the_cones() {
        let pose = Pose::new(DQuat::from_rotation_x(0.3), DVec3::new(1.0, 2.0, 3.0));
        let mesh = MeshBuilder::new().torus(pose, 2.0, 0.7, 160, 60).build().unwrap();
        let tree = ObbTree::build_with_threads(&mesh, 1, 1);
        assert!(tree.nodes().len() > 2 * PARALLEL_NODES);
        let settings = ConeSettings { r_max: 4, ..ConeSettings::default() };
        let one = BmCones::build_with_threads(&mesh, &tree, &settings, 1);
        assert!(one.stats().annealed > 0);
        for threads in [2, 3, 4] {
            let many = BmCones::build_with_threads(&mesh, &tree, &settings, threads);
            assert_eq!(many.stats(), one.stats());
            for i in 0..tree.nodes().len() as u32 {
                assert_eq!(many.cone(i), one.cone(i), "node {i}, {threads} threads");
            }
        }
    }
}
