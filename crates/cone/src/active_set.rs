//! The active-set iteration of docs/cone.md §3, over anything that can give Gram entries,
//! linear terms and the gradient.

use crate::Settings;

/// A problem `min ½ λᵀ G λ − cᵀ λ, λ ≥ 0`, seen through what the iteration needs.
pub(crate) trait Problem {
    fn len(&self) -> usize;
    fn gram(&self, i: usize, j: usize) -> f64;
    /// `w = c − G λ` for every generator, λ nonzero only on `active`.
    fn gradient(&mut self, active: &[usize], lambda: &[f64], w: &mut [f64]);
    /// The scale the optimality tolerance is relative to (‖b‖ for a point).
    fn scale(&self) -> f64;
    /// Forgets the factor of the active generators.
    fn clear_factor(&mut self);
    /// Appends generator `j` to the factor of the `active` ones; false if it is numerically
    /// dependent on them.
    fn push_column(&mut self, active: &[usize], j: usize) -> bool;
    /// The unconstrained minimiser on the active set: `G_AA z = c_A`.
    fn solve_active(&mut self, active: &[usize], z: &mut Vec<f64>);
    /// `G_AA out = rhs` with the current factor.
    fn solve_gram(&mut self, active: &[usize], rhs: &[f64], out: &mut Vec<f64>);
}

/// Reusable buffers, so that many small projections (BM-cone building) do not allocate.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    pub(crate) lambda: Vec<f64>,
    pub(crate) active: Vec<usize>,
    w: Vec<f64>,
    norms: Vec<f64>,
    refused: Vec<bool>,
    z: Vec<f64>,
    mu: Vec<f64>,
}

/// What one run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Passes through step 1 of the iteration (each adds at most one generator).
    pub iterations: usize,
    /// False only when `Settings::max_iterations` ran out first.
    pub converged: bool,
}

impl Workspace {
    fn refactor(&mut self, p: &mut impl Problem) {
        p.clear_factor();
        let mut kept = 0;
        for idx in 0..self.active.len() {
            let j = self.active[idx];
            if p.push_column(&self.active[..kept], j) {
                self.active[kept] = j;
                kept += 1;
            } else {
                self.lambda[j] = 0.0;
            }
        }
        self.active.truncate(kept);
    }

    /// Generator `j` lies in the span of the active ones, `v_j = Σ μ_a v_a`, yet `w_j > 0`:
    /// possible with a linear term (docs/cone.md §5). Along `λ_j = t, λ_a −= t μ_a` the point
    /// `Vλ` stays put and f falls at rate `w_j`; go until the first coefficient reaches zero
    /// and swap it for j. False when no coefficient limits the step (unbounded).
    fn exchange(&mut self, p: &mut impl Problem, j: usize) -> bool {
        let mut rhs = std::mem::take(&mut self.z);
        rhs.clear();
        rhs.extend(self.active.iter().map(|&a| p.gram(a, j)));
        p.solve_gram(&self.active, &rhs, &mut self.mu);
        self.z = rhs;
        let largest = self.mu.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let mut blocker: Option<(usize, f64)> = None;
        for (idx, &a) in self.active.iter().enumerate() {
            let mu = self.mu[idx];
            if mu > 1e-12 * largest {
                let t = self.lambda[a] / mu;
                if blocker.is_none_or(|(_, best)| t < best) {
                    blocker = Some((a, t));
                }
            }
        }
        let Some((b, t)) = blocker else { return false };
        for (idx, &a) in self.active.iter().enumerate() {
            self.lambda[a] = (self.lambda[a] - t * self.mu[idx]).max(0.0);
        }
        self.lambda[b] = 0.0;
        self.lambda[j] = t;
        let lambda = &self.lambda;
        self.active.retain(|&a| lambda[a] > 0.0);
        self.active.push(j);
        self.refactor(p);
        true
    }

    pub(crate) fn run(&mut self, p: &mut impl Problem, settings: &Settings) -> Outcome {
        let k = p.len();
        self.lambda.clear();
        self.lambda.resize(k, 0.0);
        self.active.clear();
        self.w.clear();
        self.w.resize(k, 0.0);
        self.refused.clear();
        self.refused.resize(k, false);
        self.norms.clear();
        self.norms.extend((0..k).map(|i| p.gram(i, i).max(0.0).sqrt()));
        p.clear_factor();
        let beta = p.scale();
        let max_norm = self.norms.iter().copied().fold(0.0, f64::max);
        let max_iterations = if settings.max_iterations == 0 { 50 + 5 * k } else { settings.max_iterations };
        let mut iterations = 0;
        if !(beta > 0.0) || !(max_norm > 0.0) {
            return Outcome { iterations, converged: true };
        }
        loop {
            if iterations >= max_iterations {
                return Outcome { iterations, converged: false };
            }
            iterations += 1;
            p.gradient(&self.active, &self.lambda, &mut self.w);
            // Rounding in the residual grows with the combination's size, not only with b.
            let size = self.active.iter().map(|&a| self.lambda[a] * self.norms[a]).sum::<f64>();
            let threshold = settings.tolerance * beta.max(size);
            // Step 1–2: the steepest generator, as an angle.
            let mut best: Option<(usize, f64)> = None;
            for i in 0..k {
                let n = self.norms[i];
                if self.refused[i] || !(n > 1e-150 * max_norm) || self.active.contains(&i) {
                    continue;
                }
                if self.w[i] > threshold * n {
                    let slope = self.w[i] / n;
                    if best.is_none_or(|(_, s)| slope > s) {
                        best = Some((i, slope));
                    }
                }
            }
            let Some((j, _)) = best else {
                // A refused generator that still points into the residual means the problem
                // is unbounded (explicit form) or numerically degenerate: say so.
                let stuck = (0..k).any(|i| self.refused[i] && self.w[i] > threshold * self.norms[i]);
                return Outcome { iterations, converged: !stuck };
            };
            if p.push_column(&self.active, j) {
                self.active.push(j);
            } else if !self.exchange(p, j) {
                self.refused[j] = true;
                continue;
            }
            // Steps 3–4.
            loop {
                p.solve_active(&self.active, &mut self.z);
                if self.z.iter().all(|&z| z > 0.0) {
                    for (idx, &a) in self.active.iter().enumerate() {
                        self.lambda[a] = self.z[idx];
                    }
                    self.refused.iter_mut().for_each(|r| *r = false);
                    break;
                }
                // Move toward z until the first coefficient reaches zero; drop it.
                let mut blocker = (usize::MAX, f64::INFINITY);
                for (idx, &a) in self.active.iter().enumerate() {
                    let z = self.z[idx];
                    if z <= 0.0 {
                        let l = self.lambda[a];
                        let alpha = l / (l - z);
                        if alpha < blocker.1 {
                            blocker = (a, alpha);
                        }
                    }
                }
                let (b, alpha) = blocker;
                if b == j && self.lambda[j] == 0.0 {
                    // Rounding: the new generator would leave at once. Refuse it this pass
                    // (refusals are cleared on the next successful step).
                    self.active.pop();
                    self.refused[j] = true;
                    self.refactor(p);
                    break;
                }
                for (idx, &a) in self.active.iter().enumerate() {
                    let l = self.lambda[a];
                    self.lambda[a] = (l + alpha * (self.z[idx] - l)).max(0.0);
                }
                self.lambda[b] = 0.0;
                let lambda = &self.lambda;
                self.active.retain(|&a| lambda[a] > 0.0);
                self.refactor(p);
                if self.active.is_empty() {
                    break;
                }
            }
        }
    }
}
