//! Potential collisions from the screen turned into collisions (seed §9, last steps): exact
//! times of the constant-velocity flow, properness (glide.md §7), and VV/EV/VE resolved to
//! the VF, FV or EE of largest properness.

use super::frame::GlideFrame;
use super::screen::{Candidate, PairMap, Window, note};
use crate::mesh::Mesh;
use glam::DVec3;

/// One body's mesh placed in glide coordinates (B at the start of the step).
pub struct Placed<'a> {
    pub mesh: &'a Mesh,
    pub pts: Vec<DVec3>,
    pub normals: Vec<DVec3>,
    /// Left and right face of each edge, walking from its first to its second vertex and seen
    /// from outside.
    pub sides: &'a [[Option<u32>; 2]],
    /// Where `pts` and `normals` go back to when this placement is dropped, with the entries
    /// it set (the others are NaN): a placement of a few near faces.
    pub recycle: Option<Recycle<'a>>,
}

/// The entries a placement of some faces set in buffers taken from `pool`.
pub struct Recycle<'a> {
    pub pool: &'a Buffers,
    pub vertices: Vec<u32>,
    pub faces: Vec<u32>,
}

impl Drop for Placed<'_> {
    fn drop(&mut self) {
        if let Some(r) = self.recycle.take() {
            for &v in &r.vertices {
                self.pts[v as usize] = DVec3::NAN;
            }
            for &f in &r.faces {
                self.normals[f as usize] = DVec3::NAN;
            }
            r.pool.give(std::mem::take(&mut self.pts), std::mem::take(&mut self.normals));
        }
    }
}

/// Vertex and face buffers of one body's size, every entry NaN, kept between screens: placing
/// a few near faces of a large mesh then costs those faces, not a pass over the whole mesh
/// (docs/glide.md §11).
#[derive(Debug, Default)]
pub struct Buffers(std::sync::Mutex<Vec<(Vec<DVec3>, Vec<DVec3>)>>);

impl Clone for Buffers {
    /// A clone starts with no buffers of its own.
    fn clone(&self) -> Self {
        Buffers::default()
    }
}

impl Buffers {
    /// All-NaN buffers for `vertices` and `faces` entries: kept ones, or new.
    pub fn take(&self, vertices: usize, faces: usize) -> (Vec<DVec3>, Vec<DVec3>) {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).pop();
        kept.filter(|(p, n)| p.len() == vertices && n.len() == faces)
            .unwrap_or_else(|| (vec![DVec3::NAN; vertices], vec![DVec3::NAN; faces]))
    }

    /// Keeps buffers that are all NaN again.
    fn give(&self, pts: Vec<DVec3>, normals: Vec<DVec3>) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push((pts, normals));
    }
}

/// An elementary test the candidates expand to. Ordered, so that hits sort the same however
/// the tests were listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Test {
    FaceVertex(u32, u32),
    VertexFace(u32, u32),
    EdgeEdge(u32, u32),
}

/// A collision in glide coordinates: time in the step, point at that time in A's (fixed)
/// coordinates, unit normal from A toward B.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub test: Test,
    pub time: f64,
    pub point: DVec3,
    pub normal: DVec3,
    pub properness: f64,
}

/// Expands VV, EV and VE into the VF, FV and EE tests they may stand for.
pub fn expand(candidates: &PairMap<Candidate, Window>, a: &Placed, b: &Placed) -> PairMap<Test, Window> {
    let mut tests = PairMap::default();
    let faces_of = |m: &Mesh, v: u32| {
        let mut f: Vec<u32> = m.vertex_edges(v).iter().flat_map(|&e| m.edge_faces(e).iter().copied()).collect();
        f.sort_unstable();
        f.dedup();
        f
    };
    for (&c, &w) in candidates {
        let mut add = |t: Test| note(&mut tests, t, w);
        match c {
            Candidate::FaceVertex(f, v) => {
                add(Test::FaceVertex(f, v));
            }
            Candidate::VertexFace(v, f) => {
                add(Test::VertexFace(v, f));
            }
            Candidate::EdgeEdge(ea, eb) => {
                add(Test::EdgeEdge(ea, eb));
            }
            Candidate::EdgeVertex(ea, vb) => {
                for &f in a.mesh.edge_faces(ea) {
                    add(Test::FaceVertex(f, vb));
                }
                for &eb in b.mesh.vertex_edges(vb) {
                    add(Test::EdgeEdge(ea, eb));
                }
            }
            Candidate::VertexEdge(va, eb) => {
                for &f in b.mesh.edge_faces(eb) {
                    add(Test::VertexFace(va, f));
                }
                for &ea in a.mesh.vertex_edges(va) {
                    add(Test::EdgeEdge(ea, eb));
                }
            }
            Candidate::VertexVertex(va, vb) => {
                for f in faces_of(a.mesh, va) {
                    add(Test::FaceVertex(f, vb));
                }
                for f in faces_of(b.mesh, vb) {
                    add(Test::VertexFace(va, f));
                }
                for &ea in a.mesh.vertex_edges(va) {
                    for &eb in b.mesh.vertex_edges(vb) {
                        add(Test::EdgeEdge(ea, eb));
                    }
                }
            }
        }
    }
    tests
}

/// Every VF, FV and EE pair of two meshes (non-degenerate faces only).
pub fn all_pairs(a: &Placed, b: &Placed) -> PairMap<Test, Window> {
    let mut tests = PairMap::default();
    let faces = |m: &Mesh| (0..m.triangles().len() as u32).filter(|&t| !m.is_degenerate(t)).collect::<Vec<_>>();
    for f in faces(a.mesh) {
        for v in 0..b.pts.len() as u32 {
            tests.insert(Test::FaceVertex(f, v), Window::WHOLE);
        }
    }
    for f in faces(b.mesh) {
        for v in 0..a.pts.len() as u32 {
            tests.insert(Test::VertexFace(v, f), Window::WHOLE);
        }
    }
    for ea in 0..a.mesh.edges().len() as u32 {
        for eb in 0..b.mesh.edges().len() as u32 {
            tests.insert(Test::EdgeEdge(ea, eb), Window::WHOLE);
        }
    }
    tests
}

/// Runs the elementary tests exactly along the flow.
pub struct Resolver<'a> {
    frame: &'a GlideFrame,
    a: &'a Placed<'a>,
    b: &'a Placed<'a>,
    /// Distances below this count as touching.
    tol: f64,
    /// `(cos θs, sin θs)` at the edge/edge sample times `s = k / EE_SAMPLES`.
    grid: [(f64, f64); EE_SAMPLES + 1],
}

/// Samples per step for the edge/edge coplanarity function (glide.md §8).
const EE_SAMPLES: usize = 32;

impl<'a> Resolver<'a> {
    pub fn new(frame: &'a GlideFrame, a: &'a Placed<'a>, b: &'a Placed<'a>, tol: f64) -> Resolver<'a> {
        // By repeated rotation through one step of the grid: a rounding error of a few ulps
        // per sample is harmless, the samples only bracket roots that are then refined.
        let (sin, cos) = (frame.theta() / EE_SAMPLES as f64).sin_cos();
        let mut grid = [(1.0, 0.0); EE_SAMPLES + 1];
        for k in 1..=EE_SAMPLES {
            let (c, s) = grid[k - 1];
            grid[k] = (c * cos - s * sin, s * cos + c * sin);
        }
        Resolver { frame, a, b, tol, grid }
    }

    /// Runs one test; edge/edge roots are looked for in `window` only (vertex/face roots are
    /// solved over the whole step: they are cheap).
    pub fn run(&self, test: Test, window: Window, out: &mut Vec<Hit>) {
        match test {
            Test::FaceVertex(f, v) => self.face_vertex(f, v, out),
            Test::VertexFace(v, f) => self.vertex_face(v, f, out),
            Test::EdgeEdge(ea, eb) => self.edge_edge(ea, eb, window, out),
        }
    }

    /// B's vertex `v` flowing into A's face `f`.
    fn face_vertex(&self, f: u32, v: u32, out: &mut Vec<Hit>) {
        let (a, b, fr) = (self.a, self.b, self.frame);
        let n = a.normals[f as usize];
        let tri = a.mesh.triangle(f).map(|i| a.pts[i as usize]);
        let q = b.pts[v as usize];
        for &s in plane_times(fr, n, -n.dot(tri[0]), q, 1.0, self.tol).as_slice() {
            let turn = fr.turn_at(s);
            let x = fr.flow_with(q, s, turn);
            // A meets B on its backward-facing side only (glide.md §4).
            if !inside(x, tri, n, self.tol) || n.dot(fr.velocity(x)) > self.speed_tol(x) {
                continue;
            }
            let properness = b
                .mesh
                .vertex_edges(v)
                .iter()
                .map(|&e| turn.apply(edge_from(b, e, v)).dot(n))
                .fold(f64::INFINITY, f64::min);
            out.push(Hit { test: Test::FaceVertex(f, v), time: s, point: x, normal: n, properness });
        }
    }

    /// A's vertex `v` met by B's face `f`: in B's start coordinates the vertex flows by Φ₋ₛ.
    fn vertex_face(&self, v: u32, f: u32, out: &mut Vec<Hit>) {
        let (a, b, fr) = (self.a, self.b, self.frame);
        let n = b.normals[f as usize];
        let tri = b.mesh.triangle(f).map(|i| b.pts[i as usize]);
        let p = a.pts[v as usize];
        for &s in plane_times(fr, n, -n.dot(tri[0]), p, -1.0, self.tol).as_slice() {
            let turn = fr.turn_at(s);
            let y = fr.unflow_with(p, s, turn);
            if !inside(y, tri, n, self.tol) || n.dot(fr.velocity(y)) < -self.speed_tol(y) {
                continue;
            }
            let n_s = turn.apply(n);
            let properness =
                a.mesh.vertex_edges(v).iter().map(|&e| edge_from(a, e, v).dot(n_s)).fold(f64::INFINITY, f64::min);
            out.push(Hit { test: Test::VertexFace(v, f), time: s, point: p, normal: -n_s, properness });
        }
    }

    /// A's edge `ea` crossing B's edge `eb`: roots of the coplanarity function, kept when the
    /// closest points are inside both edges.
    fn edge_edge(&self, ea: u32, eb: u32, window: Window, out: &mut Vec<Hit>) {
        let (a, b, fr) = (self.a, self.b, self.frame);
        let [a0, a1] = a.mesh.edge(ea).map(|i| a.pts[i as usize]);
        let [b0, b1] = b.mesh.edge(eb).map(|i| b.pts[i as usize]);
        let da = a1 - a0;
        let f = Coplanarity::new(a0, da, b0, b1 - b0, fr.theta(), fr.glide());
        // The sample cells that cover the window, and one more each side: the window's times
        // come from chords, accurate to the time resolution only where a chord is longer
        // than a pixel.
        let n = EE_SAMPLES as f64;
        let first = ((window.lo.max(0.0) * n).floor() as usize).saturating_sub(1).min(EE_SAMPLES - 1);
        let last = ((window.hi.min(1.0) * n).ceil() as usize + 1).clamp(first + 1, EE_SAMPLES);
        if window.hi < 0.0 || window.lo > 1.0 {
            return;
        }
        let mut at_root = |s: f64| {
            let turn = fr.turn_at(s);
            let (c0, c1) = (fr.flow_with(b0, s, turn), fr.flow_with(b1, s, turn));
            let Some((x, y)) = closest_on_segments(a0, a1, c0, c1) else { return };
            if (x - y).length() > self.tol.max(1e-9 * da.length()) {
                return;
            }
            let point = 0.5 * (x + y);
            let y0 = fr.unflow_with(point, s, turn);
            let faces_a = a.sides[ea as usize];
            let faces_b = b.sides[eb as usize];
            let back_a = faces_a
                .iter()
                .flatten()
                .any(|&f| a.normals[f as usize].dot(fr.velocity(point)) <= self.speed_tol(point));
            let fwd_b =
                faces_b.iter().flatten().any(|&f| b.normals[f as usize].dot(fr.velocity(y0)) >= -self.speed_tol(y0));
            if !back_a || !fwd_b {
                return;
            }
            let e_a = da.normalize();
            let e_b = (c1 - c0).normalize();
            let cross = e_a.cross(e_b);
            if cross.length() < 1e-9 {
                return;
            }
            let m = cross.normalize();
            let nb = faces_b.map(|f| f.map(|f| turn.apply(b.normals[f as usize])));
            let na = faces_a.map(|f| f.map(|f| a.normals[f as usize]));
            let value = |n: DVec3| {
                let ta = n.cross(e_a);
                let tb = n.cross(e_b);
                [
                    na[0].map(|m| ta.dot(m)),
                    na[1].map(|m| -ta.dot(m)),
                    nb[0].map(|m| -tb.dot(m)),
                    nb[1].map(|m| tb.dot(m)),
                ]
                .into_iter()
                .flatten()
                .fold(f64::INFINITY, f64::min)
            };
            let (normal, properness) = if value(m) >= value(-m) { (m, value(m)) } else { (-m, value(-m)) };
            out.push(Hit { test: Test::EdgeEdge(ea, eb), time: s, point, normal, properness });
        };
        f.roots(&self.grid, first, last, &mut at_root);
    }

    /// Tolerance on `n · ω(x)` for facing at a contact point.
    fn speed_tol(&self, x: DVec3) -> f64 {
        1e-9 * self.frame.max_speed(x, 0.0).max(1e-300)
    }
}

/// Unit vector from vertex `v` along edge `e`.
fn edge_from(body: &Placed, e: u32, v: u32) -> DVec3 {
    let [i, j] = body.mesh.edge(e);
    let other = if i == v { j } else { i };
    (body.pts[other as usize] - body.pts[v as usize]).normalize_or_zero()
}

/// The edge/edge coplanarity function along the flow in closed form (glide.md §8):
/// `f(s) = k₁ cos θs + k₂ sin θs + k₃ + g s (k₄ cos θs + k₅ sin θs)`.
#[derive(Clone, Copy, Debug)]
struct Coplanarity {
    k: [f64; 5],
    theta: f64,
    g: f64,
}

impl Coplanarity {
    /// A's edge `a₀ + u d_A`, B's edge `b₀ + v e_B` at the start of the step.
    fn new(a0: DVec3, da: DVec3, b0: DVec3, eb: DVec3, theta: f64, g: f64) -> Coplanarity {
        // The coefficients of (cos, sin, 1) in u · R_y(θs) w.
        let l = |u: DVec3, w: DVec3| [u.x * w.x + u.z * w.z, u.x * w.z - u.z * w.x, u.y * w.y];
        let p = l(da, eb.cross(b0));
        let q = l(a0.cross(da), eb);
        let r = l(da, DVec3::new(-eb.z, 0.0, eb.x));
        Coplanarity { k: [p[0] - q[0], p[1] - q[1], p[2] - q[2], r[0], r[1]], theta, g }
    }

    /// `f(s)` with `(c, sn) = (cos θs, sin θs)` given.
    fn at(&self, s: f64, c: f64, sn: f64) -> f64 {
        let k = &self.k;
        k[0] * c + k[1] * sn + k[2] + self.g * s * (k[3] * c + k[4] * sn)
    }

    /// A bound on `|f″|` over the step: with `P = k₄ cos θs + k₅ sin θs` and
    /// `Q = k₅ cos θs − k₄ sin θs`, `f″ = −θ² (k₁ cos θs + k₂ sin θs) + 2 g θ Q − g s θ² P`.
    fn curvature_bound(&self) -> f64 {
        let (k, th, g) = (&self.k, self.theta, self.g.abs());
        th * th * (k[0] * k[0] + k[1] * k[1]).sqrt() + g * th * (2.0 + th) * (k[3] * k[3] + k[4] * k[4]).sqrt()
    }

    /// Calls `found` with the roots of `f` in the sample cells `first..last` of the grid
    /// (`grid[k]` is `(cos θs, sin θs)` at `s = k / EE_SAMPLES`), in order: where two samples
    /// change sign, and where two roots may hide between samples of one sign (glide.md §15,
    /// "Edge/edge roots").
    fn roots(&self, grid: &[(f64, f64); EE_SAMPLES + 1], first: usize, last: usize, found: &mut impl FnMut(f64)) {
        let n = EE_SAMPLES as f64;
        let sampled = |k: usize| (k as f64 / n, self.at(k as f64 / n, grid[k].0, grid[k].1));
        // Between samples h apart, f is within M h² / 8 of their chord.
        let gap = self.curvature_bound() / (8.0 * n * n);
        let mut prev = sampled(first);
        for k in first + 1..=last {
            let cur = sampled(k);
            if prev.1 == 0.0 {
                found(prev.0);
            } else if prev.1 * cur.1 < 0.0 {
                found(newton(|s| self.value_slope(s), prev, cur));
            } else if cur.1 != 0.0 && prev.1.abs().min(cur.1.abs()) <= gap {
                self.hidden_roots(prev, cur, gap, 0, found);
            }
            if k == last && cur.1 == 0.0 {
                found(cur.0);
            }
            prev = cur;
        }
    }

    /// Roots between two samples of one sign, neither zero, that `f` may dip to zero between
    /// (`gap` bounds how far it strays from their chord): the cell is halved until a midpoint
    /// changes sign (the two roots of an edge clipping the other in less than a cell) or the
    /// bound rules a root out. A double root (a graze) is given up at the depth limit.
    fn hidden_roots(
        &self,
        (s0, f0): (f64, f64),
        (s1, f1): (f64, f64),
        gap: f64,
        depth: u32,
        found: &mut impl FnMut(f64),
    ) {
        if f0.abs().min(f1.abs()) > gap || depth >= 40 {
            return;
        }
        let m = 0.5 * (s0 + s1);
        let fm = self.value_slope(m).0;
        if fm == 0.0 {
            found(m);
        } else if fm * f0 < 0.0 {
            found(newton(|s| self.value_slope(s), (s0, f0), (m, fm)));
            found(newton(|s| self.value_slope(s), (m, fm), (s1, f1)));
        } else {
            self.hidden_roots((s0, f0), (m, fm), gap / 4.0, depth + 1, found);
            self.hidden_roots((m, fm), (s1, f1), gap / 4.0, depth + 1, found);
        }
    }

    /// `f(s)` and `f′(s)`.
    fn value_slope(&self, s: f64) -> (f64, f64) {
        let (sn, c) = (self.theta * s).sin_cos();
        let (k, th, g) = (&self.k, self.theta, self.g);
        let slope = th * (k[1] * c - k[0] * sn) + g * (k[3] * c + k[4] * sn) + g * s * th * (k[4] * c - k[3] * sn);
        (self.at(s, c, sn), slope)
    }
}

/// Times `s ∈ [0, 1]` at which `Φ_{σs}(p)` is on the plane `n · x + d = 0` (glide.md §8):
/// `f(s) = α cos θs + β sin θs + c s + γ`, split at its critical points (at most two in a
/// step with `θ < π`) into monotone pieces, each solved by safeguarded Newton.
pub fn plane_times(frame: &GlideFrame, n: DVec3, d: f64, p: DVec3, sigma: f64, tol: f64) -> Times {
    let theta = frame.theta();
    let g = frame.glide();
    let alpha = n.x * p.x + n.z * p.z;
    let beta = sigma * (n.x * p.z - n.z * p.x);
    let c = sigma * g * n.y;
    let gamma = n.y * p.y + d;
    let fd = |s: f64| {
        let (sn, cs) = (theta * s).sin_cos();
        (alpha * cs + beta * sn + c * s + gamma, theta * (-alpha * sn + beta * cs) + c)
    };
    let f = |s: f64| fd(s).0;
    let mut roots = Times::default();
    let rho = alpha.hypot(beta);
    // |α cos + β sin| ≤ ρ, and c s lies between 0 and c: f stays within these bounds on [0, 1].
    if gamma - rho + c.min(0.0) > tol || gamma + rho + c.max(0.0) < -tol {
        return roots;
    }
    let mut cuts = [0.0; Times::MAX];
    let mut len = 1;
    if theta > 0.0 && rho > 0.0 {
        let kappa = -c / (theta * rho);
        if kappa.abs() <= 1.0 {
            let base = kappa.acos();
            let delta = alpha.atan2(beta);
            for k in -2..=2 {
                for x in [base - delta, -base - delta] {
                    let s = (x + 2.0 * std::f64::consts::PI * k as f64) / theta;
                    if s > 0.0 && s < 1.0 {
                        cuts[len] = s;
                        len += 1;
                    }
                }
            }
        }
    }
    cuts[len] = 1.0;
    let cuts = &mut cuts[..=len];
    cuts.sort_unstable_by(f64::total_cmp);
    let mut prev = (0.0, f(0.0));
    for &hi in &cuts[1..] {
        let cur = (hi, f(hi));
        if prev.1.abs() <= tol {
            roots.push(prev.0);
        } else if prev.1 * cur.1 < 0.0 {
            roots.push(newton(fd, prev, cur));
        }
        prev = cur;
    }
    if prev.1.abs() <= tol {
        roots.push(1.0);
    }
    roots
}

/// The times `plane_times` finds: at most one per monotone piece of the step, between its
/// at most ten critical points, and the step's end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    len: usize,
    s: [f64; Times::MAX],
}

impl Times {
    const MAX: usize = 12;

    /// Adds a time later than the last by more than 1e-12.
    fn push(&mut self, s: f64) {
        if self.len < Times::MAX && (self.len == 0 || s - self.s[self.len - 1] > 1e-12) {
            self.s[self.len] = s;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[f64] {
        &self.s[..self.len]
    }
}

/// A root of `f` between `lo` and `hi`, where it changes sign, from `fd(x) = (f(x), f′(x))`:
/// Newton steps from the secant's root, bisection whenever a step leaves the bracket.
fn newton(fd: impl Fn(f64) -> (f64, f64), (mut lo, flo): (f64, f64), (mut hi, fhi): (f64, f64)) -> f64 {
    let rising = flo < 0.0;
    let secant = lo - flo * (hi - lo) / (fhi - flo);
    let mut x = if secant > lo && secant < hi { secant } else { 0.5 * (lo + hi) };
    for _ in 0..60 {
        let (fx, dfx) = fd(x);
        if fx == 0.0 {
            return x;
        }
        if (fx < 0.0) == rising {
            lo = x;
        } else {
            hi = x;
        }
        if hi - lo <= 1e-15 {
            break;
        }
        let step = x - fx / dfx;
        let next = if step > lo && step < hi { step } else { 0.5 * (lo + hi) };
        // Converging from one side leaves the bracket wide: stop when the steps do.
        if (next - x).abs() <= 1e-15 {
            return next;
        }
        x = next;
    }
    x
}

/// Whether `x` (on the triangle's plane) is inside the triangle, within `tol`, whichever way
/// the triangle winds about `n`.
fn inside(x: DVec3, tri: [DVec3; 3], n: DVec3, tol: f64) -> bool {
    let side = |i: usize| {
        let (p, q) = (tri[i], tri[(i + 1) % 3]);
        let e = q - p;
        (e.cross(x - p).dot(n), tol * e.length())
    };
    let s = [side(0), side(1), side(2)];
    s.iter().all(|&(v, t)| v >= -t) || s.iter().all(|&(v, t)| v <= t)
}

/// Closest points of two non-parallel segments' lines, when both lie within their segments.
fn closest_on_segments(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> Option<(DVec3, DVec3)> {
    let (d1, d2, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, ee, bb) = (d1.dot(d1), d2.dot(d2), d1.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let denom = aa * ee - bb * bb;
    if denom <= 1e-14 * aa * ee {
        return None;
    }
    let u = (bb * f - c * ee) / denom;
    let v = (aa * f - bb * c) / denom;
    const EPS: f64 = 1e-9;
    if !(-EPS..=1.0 + EPS).contains(&u) || !(-EPS..=1.0 + EPS).contains(&v) {
        return None;
    }
    Some((a0 + u * d1, b0 + v * d2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every root of the coplanarity function is found, also the two roots of an edge that
    /// clips the other in less than a sample cell: random functions, half of them shifted so
    /// that their minimum dips just below zero, against sign changes on a fine grid.
    #[test]
    fn coplanarity_roots_are_all_found() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut close_pairs = 0;
        for case in 0..3000 {
            let theta = if case % 7 == 0 { 0.0 } else { 1.57 * (rnd() + 1.0) / 2.0 };
            let g = if case % 3 == 0 { 0.0 } else { 2.0 * rnd() };
            let mut f = Coplanarity { k: std::array::from_fn(|_| rnd()), theta, g };
            let fine = 20_000;
            let at = |f: &Coplanarity, s: f64| f.value_slope(s).0;
            if case % 2 == 0 {
                // Shift k₃ so that the lowest point of f sits a hair below zero.
                let (s_min, f_min) = (0..=fine)
                    .map(|i| (i as f64 / fine as f64, at(&f, i as f64 / fine as f64)))
                    .fold((0.0, f64::INFINITY), |m, x| if x.1 < m.1 { x } else { m });
                if s_min > 0.0 && s_min < 1.0 {
                    f.k[2] -= f_min + 1e-6 * (1.0 + rnd().abs());
                }
            }
            let (sin, cos) = (theta / EE_SAMPLES as f64).sin_cos();
            let mut grid = [(1.0, 0.0); EE_SAMPLES + 1];
            for k in 1..=EE_SAMPLES {
                let (c, s) = grid[k - 1];
                grid[k] = (c * cos - s * sin, s * cos + c * sin);
            }
            let mut found = Vec::new();
            f.roots(&grid, 0, EE_SAMPLES, &mut |s| found.push(s));
            let mut prev = at(&f, 0.0);
            for i in 1..=fine {
                let (s0, s1) = ((i - 1) as f64 / fine as f64, i as f64 / fine as f64);
                let cur = at(&f, s1);
                if prev * cur < 0.0 {
                    assert!(
                        found.iter().any(|&r| r >= s0 - 1e-9 && r <= s1 + 1e-9),
                        "case {case}: root in [{s0}, {s1}] not among {found:?}"
                    );
                }
                prev = cur;
            }
            let cell = |r: f64| (r * EE_SAMPLES as f64).floor();
            close_pairs += found.windows(2).filter(|w| cell(w[0]) == cell(w[1])).count();
        }
        // Not vacuous: many pairs of roots share a sample cell.
        assert!(close_pairs > 100, "{close_pairs}");
    }

    /// The closed form of the coplanarity function and its slope agree with flowing both ends
    /// of B's edge directly, on random edges and motions (translations included).
    #[test]
    fn coplanarity_closed_form_is_the_direct_one() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        for case in 0..2000 {
            let mut v = || DVec3::new(rnd(), rnd(), rnd());
            let (a0, da, b0, eb) = (v(), v(), v(), v());
            let theta = if case % 5 == 0 { 0.0 } else { 1.6 * (rnd() + 2.0) / 4.0 };
            let g = rnd();
            let f = Coplanarity::new(a0, da, b0, eb, theta, g);
            let flow = |x: DVec3, s: f64| super::super::frame::rotate_y(x, theta * s) + DVec3::new(0.0, g * s, 0.0);
            let direct = |s: f64| {
                let (c0, c1) = (flow(b0, s), flow(b0 + eb, s));
                da.dot((c1 - c0).cross(c0 - a0))
            };
            for s in [0.0, 0.13, 0.5, 0.77, 1.0] {
                let scale = 1.0 + direct(s).abs();
                let (value, slope) = f.value_slope(s);
                assert!((value - direct(s)).abs() <= 1e-12 * scale * 100.0, "case {case} s {s}");
                let h = 1e-6;
                let numeric = (direct(s + h) - direct(s - h)) / (2.0 * h);
                assert!((slope - numeric).abs() <= 1e-6 * (1.0 + numeric.abs()), "case {case} s {s}");
            }
        }
    }
}
