//! Nearest point of a finitely generated convex cone `{ Σ λ_i v_i : λ ≥ 0 }` in Rⁿ, under
//! the inner product of a symmetric positive definite matrix: Wilhelmsen's active-set
//! method (docs/cone.md). No dependencies.
//!
//! Two forms of the same iteration: [`project`] (generators and a point) and
//! [`nonnegative_qp`] (`min ½ λᵀGλ − cᵀλ, λ ≥ 0` for an explicit Gram matrix and linear
//! term, the solver's dual). [`Projector`] keeps its buffers between calls.

mod active_set;
mod cholesky;

use active_set::Problem;
pub use active_set::{Outcome, Workspace};
use std::fmt;

/// Settings of the iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Optimality: `⟨r, v_i⟩ ≤ tolerance · ‖v_i‖ · max(‖b‖, Σ λ_a ‖v_a‖)` for every generator
    /// (docs/cone.md §2; the second term is the size of the rounding in the residual).
    pub tolerance: f64,
    /// Passes of the iteration before giving up; 0 means `50 + 5k`.
    pub max_iterations: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { tolerance: 1e-12, max_iterations: 0 }
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
}

impl fmt::Display for ConeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConeError::Dimension { what, expected, found } => {
                write!(f, "{what} has length {found}, expected {expected}")
            }
            ConeError::NonFinite { what, index } => write!(f, "{what}[{index}] is not a finite number"),
            ConeError::MetricNotPositiveDefinite => write!(f, "the metric is not symmetric positive definite"),
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

/// Generators (row-major, `k × n`) and a point, Euclidean.
struct PointProblem<'a> {
    n: usize,
    v: &'a [f64],
    b: &'a [f64],
    norm_b: f64,
    /// Scratch for the residual.
    r: std::cell::RefCell<Vec<f64>>,
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
    fn linear(&self, i: usize) -> f64 {
        dot(self.row(i), self.b)
    }
    fn gradient(&self, active: &[usize], lambda: &[f64], w: &mut [f64]) {
        let mut r = self.r.borrow_mut();
        r.clear();
        r.extend_from_slice(self.b);
        for &a in active {
            let l = lambda[a];
            for (x, v) in r.iter_mut().zip(self.row(a)) {
                *x -= l * v;
            }
        }
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = dot(&r, self.row(i));
        }
    }
    fn scale(&self) -> f64 {
        self.norm_b
    }
}

/// An explicit Gram matrix and linear term.
struct QpProblem<'a> {
    k: usize,
    g: &'a [f64],
    c: &'a [f64],
    scale: f64,
}

impl Problem for QpProblem<'_> {
    fn len(&self) -> usize {
        self.k
    }
    fn gram(&self, i: usize, j: usize) -> f64 {
        self.g[i * self.k + j]
    }
    fn linear(&self, i: usize) -> f64 {
        self.c[i]
    }
    fn gradient(&self, active: &[usize], lambda: &[f64], w: &mut [f64]) {
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = self.c[i] - active.iter().map(|&a| self.g[i * self.k + a] * lambda[a]).sum::<f64>();
        }
    }
    fn scale(&self) -> f64 {
        self.scale
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
    residual: std::cell::RefCell<Vec<f64>>,
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
        if n == 0 || generators.len() % n != 0 {
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
        let norm_b = dot(bb, bb).sqrt();
        let problem = PointProblem { n, v, b: bb, norm_b, r: std::mem::take(&mut self.residual) };
        let outcome = self.workspace.run(&problem, settings);
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
        self.residual = problem.r;
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
    let scale =
        (0..k).filter(|&i| gram[i * k + i] > 0.0).map(|i| linear[i].abs() / gram[i * k + i].sqrt()).fold(0.0, f64::max);
    let problem = QpProblem { k, g: gram, c: linear, scale };
    let mut ws = Workspace::default();
    let outcome = ws.run(&problem, settings);
    Ok(QpSolution {
        lambda: ws.lambda,
        active: ws.active,
        iterations: outcome.iterations,
        converged: outcome.converged,
    })
}
