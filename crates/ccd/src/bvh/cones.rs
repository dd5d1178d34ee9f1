//! BM-cones: per node, a few vectors whose positive cone holds the normals of every
//! triangle below the node, built bottom-up with Wilhelmsen's projection (docs/bm-culling.md §1, §3).

use super::ObbTree;
use crate::mesh::Mesh;
use glam::DVec3;
use mockup_cone::{Metric, Projector, Settings};

/// A vector is in a cone when its distance to it is at most this fraction of its length.
pub const INCLUSION_TOLERANCE: f64 = 1e-9;

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
    /// Nodes whose minimal subset was larger than `r_max` (initialization + annealing).
    pub annealed: usize,
    pub bytes: usize,
}

/// The BM-cones of one tree. A node without a cone is never culled.
#[derive(Clone, Debug, Default)]
pub struct BmCones {
    /// Per node: first vector and count (0: no cone).
    spans: Vec<(u32, u32)>,
    vectors: Vec<DVec3>,
    annealed: usize,
}

impl BmCones {
    /// No cones at all (open or inward-oriented meshes, or culling not wanted).
    pub fn none(tree: &ObbTree) -> BmCones {
        BmCones { spans: vec![(0, 0); tree.nodes().len()], vectors: Vec::new(), annealed: 0 }
    }

    /// Builds the cones of `tree` over `mesh`. The caller decides whether the mesh is a
    /// solid ([`is_solid`]); culling with cones of a non-solid is not conservative.
    pub fn build(mesh: &Mesh, tree: &ObbTree, settings: &ConeSettings) -> BmCones {
        let n = tree.nodes().len();
        let mut cones = BmCones { spans: vec![(0, 0); n], vectors: Vec::new(), annealed: 0 };
        let mut builder = Builder::new(*settings);
        let mut inputs = Vec::new();
        let mut out = Vec::new();
        // Children come after their parent in the node array: reverse order is bottom-up.
        for i in (0..n as u32).rev() {
            let node = tree.node(i);
            inputs.clear();
            if node.is_leaf() {
                inputs.extend(tree.leaf_triangles(node).iter().map(|&t| mesh.normal(t)));
            } else {
                let (l, r) = tree.children(i);
                let (Some(a), Some(b)) = (cones.cone(l), cones.cone(r)) else { continue };
                inputs.extend_from_slice(a);
                inputs.extend_from_slice(b);
            }
            out.clear();
            let seed = settings.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            if builder.build(&inputs, seed, &mut out) {
                cones.spans[i as usize] = (cones.vectors.len() as u32, out.len() as u32);
                cones.vectors.extend_from_slice(&out);
            }
        }
        cones.annealed = builder.annealed;
        cones
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
            bytes: self.spans.len() * std::mem::size_of::<(u32, u32)>() + self.vectors.len() * 24,
        }
    }
}

/// Whether culling is conservative for this mesh: closed, manifold, every edge used in
/// opposite directions by its two faces, and a positive signed volume (outward normals).
pub fn is_solid(mesh: &Mesh) -> bool {
    if !mesh.stats().is_closed() {
        return false;
    }
    for e in 0..mesh.edges().len() as u32 {
        let [a, b] = mesh.edge(e);
        let faces = mesh.edge_faces(e);
        if faces.len() != 2 {
            return false;
        }
        // +1 if the face runs a→b, −1 if b→a.
        let dir = |f: u32| {
            let t = mesh.triangle(f);
            (0..3)
                .map(|k| (t[k], t[(k + 1) % 3]))
                .fold(0, |d, (p, q)| d + (p == a && q == b) as i32 - (p == b && q == a) as i32)
        };
        if dir(faces[0]) + dir(faces[1]) != 0 || dir(faces[0]) == 0 {
            return false;
        }
    }
    mesh.signed_volume() > 0.0
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
        // Unit inputs without repeats (neighbouring leaves share faces; coplanar faces give
        // normals equal to rounding, which the projection cannot tell apart).
        let mut minimal: Vec<DVec3> = Vec::with_capacity(inputs.len());
        for &v in inputs {
            let v = v.normalize_or_zero();
            if v != DVec3::ZERO && !minimal.iter().any(|&m| (m - v).length_squared() < 1e-18) {
                minimal.push(v);
            }
        }
        if minimal.is_empty() {
            return false;
        }
        // 1. Lemma 2: P = R³ iff ±x, ±y, ±z are all in P.
        let axes = [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z];
        if minimal.len() >= 4 && axes.iter().all(|&a| self.contains(&minimal, a)) {
            return false;
        }
        // 2. Minimal subset: drop vectors in the cone of the others, one at a time.
        let mut i = 0;
        while i < minimal.len() && minimal.len() > 1 {
            let v = minimal.swap_remove(i);
            if self.contains(&minimal, v) {
                continue;
            }
            minimal.push(v);
            let last = minimal.len() - 1;
            minimal.swap(i, last);
            i += 1;
        }
        let r_max = self.settings.r_max.max(3);
        if minimal.len() <= r_max {
            out.extend_from_slice(&minimal);
            return true;
        }
        self.annealed += 1;
        let mut rng = Rng(seed);
        let mean = minimal.iter().sum::<DVec3>() / minimal.len() as f64;
        let Some(m) = mean.try_normalize() else { return false };
        // 3. Initialization.
        let mut cone = self.pushed_draw(&minimal, m, r_max, &mut rng).or_else(|| self.polygon(&minimal, m, r_max));
        let Some(ref mut cone) = cone else { return false };
        // 4. Refinement.
        self.anneal(&minimal, m, cone, &mut rng);
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
