//! Dense Cholesky factors: the metric `M = L Lᵀ` (docs/cone.md §4) and the growing factor of
//! the active generators' Gram matrix (§3).

/// Lower-triangular `L` with `M = L Lᵀ`, row-major `n × n`; `None` unless M is symmetric
/// positive definite.
pub(crate) fn factor_metric(m: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    let scale = (0..n).map(|i| m[i * n + i].abs()).fold(0.0, f64::max);
    for i in 0..n {
        for j in 0..n {
            let d = m[i * n + j] - m[j * n + i];
            if !(d.abs() <= 1e-12 * scale) {
                return None;
            }
        }
    }
    for j in 0..n {
        let mut d = m[j * n + j];
        for p in 0..j {
            d -= l[j * n + p] * l[j * n + p];
        }
        if !(d > 1e-14 * scale) {
            return None;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = m[i * n + j];
            for p in 0..j {
                s -= l[i * n + p] * l[j * n + p];
            }
            l[i * n + j] = s / d;
        }
    }
    Some(l)
}

/// `y = Lᵀ x`.
pub(crate) fn mul_lt(l: &[f64], n: usize, x: &[f64], y: &mut [f64]) {
    for i in 0..n {
        y[i] = (i..n).map(|p| l[p * n + i] * x[p]).sum();
    }
}

/// Solves `Lᵀ x = y` in place.
pub(crate) fn solve_lt(l: &[f64], n: usize, y: &mut [f64]) {
    for i in (0..n).rev() {
        let mut s = y[i];
        for p in i + 1..n {
            s -= l[p * n + i] * y[p];
        }
        y[i] = s / l[i * n + i];
    }
}

/// Upper-triangular `R` with `G_AA = Rᵀ R`, grown one column at a time. Column `c` holds
/// `c + 1` entries, packed.
#[derive(Clone, Debug, Default)]
pub(crate) struct GrowingFactor {
    packed: Vec<f64>,
    size: usize,
}

impl GrowingFactor {
    pub fn clear(&mut self) {
        self.packed.clear();
        self.size = 0;
    }

    fn column(&self, c: usize) -> usize {
        c * (c + 1) / 2
    }

    /// Appends the column of a generator with Gram entries `g[a] = G_{a j}` for the current
    /// columns and `g_jj`. Refuses (returns false) a column that is numerically dependent.
    pub fn push(&mut self, g: &[f64], g_jj: f64) -> bool {
        let m = self.size;
        let start = self.packed.len();
        // Rᵀ s = g, forward substitution.
        for i in 0..m {
            let ci = self.column(i);
            let mut v = g[i];
            for p in 0..i {
                v -= self.packed[ci + p] * self.packed[start + p];
            }
            self.packed.push(v / self.packed[ci + i]);
        }
        let s2: f64 = self.packed[start..].iter().map(|x| x * x).sum();
        let d2 = g_jj - s2;
        if !(d2 > 1e-20 * g_jj) {
            self.packed.truncate(start);
            return false;
        }
        self.packed.push(d2.sqrt());
        self.size += 1;
        true
    }

    /// Solves `Rᵀ R z = c` into `z`.
    pub fn solve(&self, c: &[f64], z: &mut Vec<f64>) {
        let m = self.size;
        z.clear();
        z.extend_from_slice(&c[..m]);
        for i in 0..m {
            let ci = self.column(i);
            let mut v = z[i];
            for p in 0..i {
                v -= self.packed[ci + p] * z[p];
            }
            z[i] = v / self.packed[ci + i];
        }
        for i in (0..m).rev() {
            let mut v = z[i];
            for q in i + 1..m {
                v -= self.packed[self.column(q) + i] * z[q];
            }
            z[i] = v / self.packed[self.column(i) + i];
        }
    }
}
