//! Nearest point of a finitely generated convex cone `{ Σ λ_i v_i : λ ≥ 0 }` in Rⁿ, under
//! the inner product of a symmetric positive definite matrix: Wilhelmsen's active-set
//! method (docs/cone.md). No dependencies.
//!
//! Two forms of the same iteration: [`project`] (generators and a point) and
//! [`nonnegative_qp`] (`min ½ λᵀGλ − cᵀλ, λ ≥ 0` for an explicit Gram matrix and linear
//! term, the solver's dual). [`Projector`] keeps its buffers between calls.

mod active_set;
mod cholesky;

pub use active_set::Outcome;
use active_set::Problem;
use active_set::Workspace;
use std::fmt;

/// Settings of the iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Optimality: `⟨r, v_i⟩ ≤ tolerance · ‖v_i‖ · max(‖b‖, Σ λ_a ‖v_a‖)` for every generator
    /// (docs/cone.md §2; the second term is the size of the rounding in the residual).
    pub tolerance: f64,
    /// Passes of the iteration before giving up; 0 means `50 + 5k`.
    pub max_iterations: usize,
    /// The linear-term forms only: a floor under the size the tolerance is relative to, for
    /// a caller that knows the size of the point its problem comes from (docs/cone.md §5).
    /// 0 takes the size from `c` alone.
    pub min_scale: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { tolerance: 1e-12, max_iterations: 0, min_scale: 0.0 }
    }
}

/// The inner product.
#[derive(Clone, Copy, Debug, Default)]
pub enum Metric<'a> {
    #[default]
    Identity,
    /// A symmetric positive definite `n × n` matrix, row-major.
    Matrix(&'a [f64]),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ConeError {
    /// The generators' length is not a multiple of the dimension, or the point, metric or
    /// linear term has the wrong length.
    Dimension { what: &'static str, expected: usize, found: usize },
    /// A NaN or infinity in the input.
    NonFinite { what: &'static str, index: usize },
    /// The metric is not symmetric positive definite.
    MetricNotPositiveDefinite,
    /// `Settings::min_scale` is negative.
    NegativeScale,
}

impl fmt::Display for ConeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConeError::Dimension { what, expected, found } => {
                write!(f, "{what} has length {found}, expected {expected}")
            }
            ConeError::NonFinite { what, index } => write!(f, "{what}[{index}] is not a finite number"),
            ConeError::MetricNotPositiveDefinite => write!(f, "the metric is not symmetric positive definite"),
            ConeError::NegativeScale => write!(f, "min_scale is negative"),
        }
    }
}

impl std::error::Error for ConeError {}

/// The nearest point of the cone to `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// `x* = Σ λ_i v_i`.
    pub point: Vec<f64>,
    /// One coefficient per generator, all ≥ 0.
    pub lambda: Vec<f64>,
    /// Generators with a positive coefficient, linearly independent.
    pub active: Vec<usize>,
    /// `‖b − x*‖` in the metric.
    pub distance: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// The solution of `min ½ λᵀGλ − cᵀλ, λ ≥ 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct QpSolution {
    pub lambda: Vec<f64>,
    pub active: Vec<usize>,
    pub iterations: usize,
    pub converged: bool,
}

fn check_finite(what: &'static str, xs: &[f64]) -> Result<(), ConeError> {
    match xs.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(ConeError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Generators (row-major, `k × n`), a point and a linear term, Euclidean:
/// `min ½‖b − Vλ‖² − cᵀλ` (docs/cone.md §5). An empty `b` or `c` is zero. The active
/// generators are kept as a QR factorization (Gram–Schmidt, twice), so nearly parallel
/// generators do not square the condition number as the Gram matrix would.
struct PointProblem<'a> {
    n: usize,
    v: &'a [f64],
    b: &'a [f64],
    c: &'a [f64],
    scale: f64,
    buffers: &'a mut QrBuffers,
}

/// Reusable storage of [`PointProblem`].
#[derive(Clone, Debug, Default)]
struct QrBuffers {
    residual: Vec<f64>,
    /// Orthonormal columns, `m × n`.
    q: Vec<f64>,
    /// Upper-triangular R, column c packed with c + 1 entries.
    r: Vec<f64>,
    /// `Qᵀ b`.
    qtb: Vec<f64>,
    scratch: Vec<f64>,
}

impl PointProblem<'_> {
    fn row(&self, i: usize) -> &[f64] {
        &self.v[i * self.n..(i + 1) * self.n]
    }
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

impl Problem for PointProblem<'_> {
    fn len(&self) -> usize {
        self.v.len() / self.n.max(1)
    }
    fn gram(&self, i: usize, j: usize) -> f64 {
        dot(self.row(i), self.row(j))
    }
    fn gradient(&mut self, active: &[usize], lambda: &[f64], w: &mut [f64]) {
        let mut r = std::mem::take(&mut self.buffers.residual);
        r.clear();
        if self.b.is_empty() {
            r.resize(self.n, 0.0);
        } else {
            r.extend_from_slice(self.b);
        }
        for &a in active {
            let l = lambda[a];
            for (x, v) in r.iter_mut().zip(self.row(a)) {
                *x -= l * v;
            }
        }
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = dot(&r, self.row(i)) + self.c.get(i).copied().unwrap_or(0.0);
        }
        self.buffers.residual = r;
    }
    fn scale(&self) -> f64 {
        self.scale
    }
    fn clear_factor(&mut self) {
        self.buffers.q.clear();
        self.buffers.r.clear();
        self.buffers.qtb.clear();
    }
    fn push_column(&mut self, active: &[usize], j: usize) -> bool {
        let (n, m) = (self.n, active.len());
        let mut v = std::mem::take(&mut self.buffers.scratch);
        v.clear();
        v.extend_from_slice(&self.v[j * n..(j + 1) * n]);
        let norm = dot(&v, &v).sqrt();
        let start = self.buffers.r.len();
        self.buffers.r.resize(start + m, 0.0);
        // Gram–Schmidt twice ("twice is enough"): orthogonal to rounding.
        for _ in 0..2 {
            for c in 0..m {
                let q = &self.buffers.q[c * n..(c + 1) * n];
                let coef = dot(q, &v);
                for (x, y) in v.iter_mut().zip(q) {
                    *x -= coef * y;
                }
                self.buffers.r[start + c] += coef;
            }
        }
        let d = dot(&v, &v).sqrt();
        if !(d > 1e-14 * norm) {
            self.buffers.r.truncate(start);
            self.buffers.scratch = v;
            return false;
        }
        self.buffers.r.push(d);
        v.iter_mut().for_each(|x| *x /= d);
        self.buffers.qtb.push(if self.b.is_empty() { 0.0 } else { dot(&v, self.b) });
        self.buffers.q.extend_from_slice(&v);
        self.buffers.scratch = v;
        true
    }
    fn solve_active(&mut self, active: &[usize], z: &mut Vec<f64>) {
        // The normal equations RᵀR z = Rᵀ Qᵀ b + c_A, so R z = Qᵀ b + R⁻ᵀ c_A.
        let m = active.len();
        let r = &self.buffers.r;
        z.clear();
        z.extend_from_slice(&self.buffers.qtb[..m]);
        if !self.c.is_empty() {
            let y = &mut self.buffers.scratch;
            y.clear();
            y.extend(active.iter().map(|&a| self.c[a]));
            forward_rt(r, y);
            z.iter_mut().zip(y.iter()).for_each(|(x, y)| *x += y);
        }
        back_r(r, z);
    }
    fn solve_gram(&mut self, _active: &[usize], rhs: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend_from_slice(rhs);
        forward_rt(&self.buffers.r, out);
        back_r(&self.buffers.r, out);
    }
}

/// Solves `Rᵀ y = x` in place; R upper triangular, column c packed at `c(c+1)/2`.
fn forward_rt(r: &[f64], x: &mut [f64]) {
    for i in 0..x.len() {
        let start = i * (i + 1) / 2;
        let s = x[i] - (0..i).map(|c| r[start + c] * x[c]).sum::<f64>();
        x[i] = s / r[start + i];
    }
}

/// Solves `R z = x` in place.
fn back_r(r: &[f64], x: &mut [f64]) {
    let m = x.len();
    for i in (0..m).rev() {
        let mut s = x[i];
        for c in i + 1..m {
            s -= r[c * (c + 1) / 2 + i] * x[c];
        }
        x[i] = s / r[i * (i + 1) / 2 + i];
    }
}

/// An explicit Gram matrix and linear term.
struct QpProblem<'a> {
    k: usize,
    g: &'a [f64],
    c: &'a [f64],
    scale: f64,
    factor: cholesky::GrowingFactor,
    column: Vec<f64>,
    rhs: Vec<f64>,
}

impl Problem for QpProblem<'_> {
    fn len(&self) -> usize {
        self.k
    }
    fn gram(&self, i: usize, j: usize) -> f64 {
        self.g[i * self.k + j]
    }
    fn gradient(&mut self, active: &[usize], lambda: &[f64], w: &mut [f64]) {
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = self.c[i] - active.iter().map(|&a| self.g[i * self.k + a] * lambda[a]).sum::<f64>();
        }
    }
    fn scale(&self) -> f64 {
        self.scale
    }
    fn clear_factor(&mut self) {
        self.factor.clear();
    }
    fn push_column(&mut self, active: &[usize], j: usize) -> bool {
        self.column.clear();
        self.column.extend(active.iter().map(|&a| self.g[a * self.k + j]));
        self.factor.push(&self.column, self.g[j * self.k + j])
    }
    fn solve_active(&mut self, active: &[usize], z: &mut Vec<f64>) {
        self.rhs.clear();
        self.rhs.extend(active.iter().map(|&a| self.c[a]));
        self.factor.solve(&self.rhs, z);
        // Normal equations square the condition number; two rounds of iterative refinement
        // (on the residual c_A − G_AA z) recover most of the lost digits.
        let mut dz = Vec::with_capacity(z.len());
        for _ in 0..2 {
            for (r, &a) in active.iter().enumerate() {
                self.rhs[r] =
                    self.c[a] - active.iter().zip(z.iter()).map(|(&b, zb)| self.g[a * self.k + b] * zb).sum::<f64>();
            }
            self.factor.solve(&self.rhs, &mut dz);
            z.iter_mut().zip(&dz).for_each(|(x, d)| *x += d);
        }
    }
    fn solve_gram(&mut self, _active: &[usize], rhs: &[f64], out: &mut Vec<f64>) {
        self.factor.solve(rhs, out);
    }
}

/// Projections that reuse their buffers: build one and call [`Projector::project`] many
/// times. Results are read from the projector until the next call.
#[derive(Clone, Debug, Default)]
pub struct Projector {
    workspace: Workspace,
    transformed: Vec<f64>,
    b: Vec<f64>,
    point: Vec<f64>,
    qr: QrBuffers,
    distance: f64,
}

impl Projector {
    pub fn new() -> Projector {
        Projector::default()
    }

    /// Projects `b` (length `n`) onto the cone of `generators` (row-major, `k × n`).
    pub fn project(
        &mut self,
        generators: &[f64],
        n: usize,
        b: &[f64],
        metric: Metric,
        settings: &Settings,
    ) -> Result<Outcome, ConeError> {
        if n == 0 || !generators.len().is_multiple_of(n) {
            let expected = if n == 0 { 0 } else { generators.len().div_ceil(n) * n };
            return Err(ConeError::Dimension { what: "generators", expected, found: generators.len() });
        }
        if b.len() != n {
            return Err(ConeError::Dimension { what: "b", expected: n, found: b.len() });
        }
        check_finite("generators", generators)?;
        check_finite("b", b)?;
        let k = generators.len() / n;
        let factor = match metric {
            Metric::Identity => None,
            Metric::Matrix(m) => {
                if m.len() != n * n {
                    return Err(ConeError::Dimension { what: "metric", expected: n * n, found: m.len() });
                }
                check_finite("metric", m)?;
                Some(cholesky::factor_metric(m, n).ok_or(ConeError::MetricNotPositiveDefinite)?)
            }
        };
        // In the metric's coordinates v' = Lᵀ v (docs/cone.md §4).
        let (v, bb): (&[f64], &[f64]) = match &factor {
            None => (generators, b),
            Some(l) => {
                self.transformed.resize(k * n, 0.0);
                for i in 0..k {
                    cholesky::mul_lt(l, n, &generators[i * n..(i + 1) * n], &mut self.transformed[i * n..(i + 1) * n]);
                }
                self.b.resize(n, 0.0);
                cholesky::mul_lt(l, n, b, &mut self.b);
                (&self.transformed, &self.b)
            }
        };
        let scale = dot(bb, bb).sqrt();
        let mut problem = PointProblem { n, v, b: bb, c: &[], scale, buffers: &mut self.qr };
        let outcome = self.workspace.run(&mut problem, settings);
        // The point, in the metric's coordinates first.
        self.point.clear();
        self.point.resize(n, 0.0);
        for &a in &self.workspace.active {
            let l = self.workspace.lambda[a];
            for (x, g) in self.point.iter_mut().zip(problem.row(a)) {
                *x += l * g;
            }
        }
        self.distance = self.point.iter().zip(bb).map(|(x, y)| (y - x) * (y - x)).sum::<f64>().sqrt();
        if let Some(l) = &factor {
            cholesky::solve_lt(l, n, &mut self.point);
        }
        Ok(outcome)
    }

    /// The nearest point of the last projection.
    pub fn point(&self) -> &[f64] {
        &self.point
    }
    /// The coefficients of the last projection, one per generator.
    pub fn lambda(&self) -> &[f64] {
        &self.workspace.lambda
    }
    /// The active generators of the last projection.
    pub fn active(&self) -> &[usize] {
        &self.workspace.active
    }
    /// `‖b − x*‖` of the last projection, in the metric.
    pub fn distance(&self) -> f64 {
        self.distance
    }
}

/// The nearest point of the cone generated by `generators` (row-major, `k × n`) to `b`.
pub fn project(
    generators: &[f64],
    n: usize,
    b: &[f64],
    metric: Metric,
    settings: &Settings,
) -> Result<Projection, ConeError> {
    let mut p = Projector::new();
    let outcome = p.project(generators, n, b, metric, settings)?;
    Ok(Projection {
        point: p.point.clone(),
        lambda: p.workspace.lambda.clone(),
        active: p.workspace.active.clone(),
        distance: p.distance,
        iterations: outcome.iterations,
        converged: outcome.converged,
    })
}

/// `min ½ λᵀ G λ − cᵀ λ` over `λ ≥ 0`, G symmetric positive semi-definite (`k × k`,
/// row-major): the same iteration on an explicit Gram matrix (docs/cone.md §5).
pub fn nonnegative_qp(gram: &[f64], linear: &[f64], settings: &Settings) -> Result<QpSolution, ConeError> {
    let k = linear.len();
    if gram.len() != k * k {
        return Err(ConeError::Dimension { what: "gram", expected: k * k, found: gram.len() });
    }
    check_finite("gram", gram)?;
    check_finite("linear", linear)?;
    check_min_scale(settings)?;
    let scale = (0..k)
        .filter(|&i| gram[i * k + i] > 0.0)
        .map(|i| linear[i].abs() / gram[i * k + i].sqrt())
        .fold(settings.min_scale, f64::max);
    let mut problem =
        QpProblem { k, g: gram, c: linear, scale, factor: Default::default(), column: Vec::new(), rhs: Vec::new() };
    Ok(solve_qp(&mut problem, settings))
}

/// `Settings::min_scale` must be a size: finite and not negative (an infinite one would make
/// every violation look like rounding).
fn check_min_scale(settings: &Settings) -> Result<(), ConeError> {
    check_finite("min_scale", &[settings.min_scale])?;
    if settings.min_scale < 0.0 {
        return Err(ConeError::NegativeScale);
    }
    Ok(())
}

/// Runs the iteration on a linear-term problem and hands back its coefficients.
fn solve_qp(problem: &mut impl Problem, settings: &Settings) -> QpSolution {
    let mut ws = Workspace::default();
    let outcome = ws.run(problem, settings);
    QpSolution { lambda: ws.lambda, active: ws.active, iterations: outcome.iterations, converged: outcome.converged }
}

/// `min ½ ‖Σ λ_i a_i‖² − cᵀ λ` over `λ ≥ 0`, with the rows `a_i` given (row-major, `k × n`)
/// instead of their Gram matrix `G = A Aᵀ`: the solver's dual in motion space
/// (docs/solver.md §3). Costs `k·n` per pass instead of `k²·n` to form G, and keeps the
/// active rows as a QR factorization, so it is as accurate as the point form.
pub fn nonnegative_qp_rows(
    rows: &[f64],
    n: usize,
    linear: &[f64],
    settings: &Settings,
) -> Result<QpSolution, ConeError> {
    let k = linear.len();
    if rows.len() != k * n {
        return Err(ConeError::Dimension { what: "rows", expected: k * n, found: rows.len() });
    }
    check_finite("rows", rows)?;
    check_finite("linear", linear)?;
    check_min_scale(settings)?;
    let scale = (0..k)
        .map(|i| (linear[i].abs(), dot(&rows[i * n..(i + 1) * n], &rows[i * n..(i + 1) * n]).sqrt()))
        .filter(|&(_, norm)| norm > 0.0)
        .map(|(c, norm)| c / norm)
        .fold(settings.min_scale, f64::max);
    let mut buffers = QrBuffers::default();
    let mut problem = PointProblem { n: n.max(1), v: rows, b: &[], c: linear, scale, buffers: &mut buffers };
    Ok(solve_qp(&mut problem, settings))
}
