//! Real roots of polynomials of degree ≤ 3 on an interval, without sampling
//! (docs/motion.md §7).

/// Up to three roots, ascending.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Roots {
    values: [f64; 3],
    len: usize,
}

impl Roots {
    fn push(&mut self, z: f64) {
        if self.len > 0 && self.values[self.len - 1] >= z {
            return; // a root shared by two monotone pieces
        }
        if self.len < 3 {
            self.values[self.len] = z;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// `c[0] + c[1] z + c[2] z² + c[3] z³`.
pub fn eval(c: &[f64; 4], z: f64) -> f64 {
    ((c[3] * z + c[2]) * z + c[1]) * z + c[0]
}

fn eval_derivative(c: &[f64; 4], z: f64) -> f64 {
    (3.0 * c[3] * z + 2.0 * c[2]) * z + c[1]
}

/// Rounding bound of Horner's scheme at `z`.
fn rounding_bound(c: &[f64; 4], z: f64) -> f64 {
    let a = z.abs();
    8.0 * f64::EPSILON * (((c[3].abs() * a + c[2].abs()) * a + c[1].abs()) * a + c[0].abs())
}

/// Real roots of `q0 + q1 z + q2 z²` (any degree ≤ 2), ascending, cancellation-free.
fn quadratic_roots(q0: f64, q1: f64, q2: f64) -> ([f64; 2], usize) {
    if q2 == 0.0 {
        if q1 == 0.0 {
            return ([0.0; 2], 0);
        }
        return ([-q0 / q1, 0.0], 1);
    }
    let disc = q1 * q1 - 4.0 * q2 * q0;
    if disc < 0.0 {
        return ([0.0; 2], 0);
    }
    let k = -0.5 * (q1 + q1.signum() * disc.sqrt());
    if k == 0.0 {
        return ([0.0; 2], 1); // q1 = q0 = 0: double root at 0
    }
    let (a, b) = (k / q2, q0 / k);
    if !a.is_finite() || !b.is_finite() {
        // q2 negligible against q1: only the linear root is meaningful
        let lin = if a.is_finite() { a } else { b };
        return ([lin, 0.0], usize::from(lin.is_finite()));
    }
    ([a.min(b), a.max(b)], 2)
}

/// The unique root in `[lo, hi]` of a polynomial monotone there, with `f(lo)` and `f(hi)` of
/// opposite signs. Newton steps are taken while they stay in the bracket and at least halve
/// the step; otherwise bisection (the classic "rtsafe" safeguard).
fn polish(c: &[f64; 4], mut lo: f64, mut hi: f64, f_lo: f64) -> f64 {
    let tol = 4.0 * f64::EPSILON * lo.abs().max(hi.abs()).max(1e-6);
    let mut dx_old = hi - lo;
    let mut dx = dx_old;
    let mut z = 0.5 * (lo + hi);
    let mut f = eval(c, z);
    let mut d = eval_derivative(c, z);
    for _ in 0..200 {
        if f == 0.0 {
            return z;
        }
        if (f < 0.0) == (f_lo < 0.0) {
            lo = z;
        } else {
            hi = z;
        }
        let newton_leaves = ((z - hi) * d - f) * ((z - lo) * d - f) > 0.0;
        if newton_leaves || (2.0 * f).abs() > (dx_old * d).abs() {
            dx_old = dx;
            dx = 0.5 * (hi - lo);
            z = lo + dx;
        } else {
            dx_old = dx;
            dx = f / d;
            z -= dx;
        }
        if dx.abs() <= tol || hi - lo <= tol {
            return z.clamp(lo, hi);
        }
        f = eval(c, z);
        d = eval_derivative(c, z);
    }
    z.clamp(lo, hi)
}

/// Every real root of `c[0] + c[1] z + c[2] z² + c[3] z³` in `[lo, hi]`, ascending.
///
/// Sign changes are found exactly (every crossing lies in a monotone piece between critical
/// points). A critical point where `|f| ≤ touch` (or within Horner's rounding bound) is
/// reported as a tangential root: the caller sets `touch` to what "touching" means for its
/// geometry. An identically zero polynomial has no isolated roots: callers check
/// [`is_negligible`] first.
pub fn cubic_roots(c: &[f64; 4], lo: f64, hi: f64, touch: f64) -> Roots {
    let mut out = Roots::default();
    if !(lo <= hi) || c.iter().any(|x| !x.is_finite()) {
        return out;
    }
    // Scale by a power of two (exact) so that squares in the discriminant cannot overflow or
    // underflow; roots are unchanged.
    let largest = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if largest == 0.0 {
        return out; // identically zero: no isolated roots
    }
    let k = (2.0f64).powi(-(largest.log2().round() as i32));
    let c = &c.map(|x| x * k);
    let touch = touch * k;
    // Breakpoints: lo, critical points inside (lo, hi), hi.
    let mut breaks = [lo, 0.0, 0.0, hi];
    let mut n = 1;
    let (crit, count) = quadratic_roots(c[1], 2.0 * c[2], 3.0 * c[3]);
    for &z in &crit[..count] {
        if z > lo && z < hi {
            breaks[n] = z;
            n += 1;
        }
    }
    breaks[n] = hi;
    n += 1;
    let breaks = &breaks[..n];

    let mut f_prev = eval(c, breaks[0]);
    for k in 0..n {
        let z = breaks[k];
        let f = if k == 0 { f_prev } else { eval(c, z) };
        if k > 0 {
            let z0 = breaks[k - 1];
            if f_prev != 0.0 && f != 0.0 && (f < 0.0) != (f_prev < 0.0) {
                out.push(polish(c, z0, z, f_prev));
            }
        }
        let interior = k > 0 && k + 1 < n;
        if f == 0.0 || (interior && f.abs() <= touch.max(rounding_bound(c, z))) {
            out.push(z);
        }
        f_prev = f;
    }
    out
}

/// True when every coefficient is at most `tol`: the polynomial is zero to within rounding
/// on `[0, 1]`, so its "roots" carry no information (docs/motion.md §6).
pub fn is_negligible(c: &[f64; 4], tol: f64) -> bool {
    c.iter().all(|x| x.abs() <= tol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn from_roots(scale: f64, r: &[f64]) -> [f64; 4] {
        // scale · Π (z − r_i)
        let mut c = [scale, 0.0, 0.0, 0.0];
        for (deg, &root) in r.iter().enumerate() {
            for i in (0..=deg + 1).rev() {
                let lower = if i > 0 { c[i - 1] } else { 0.0 };
                c[i] = lower - root * c[i];
            }
        }
        c
    }

    fn roots(c: [f64; 4]) -> Vec<f64> {
        cubic_roots(&c, 0.0, 1.0, 0.0).as_slice().to_vec()
    }

    #[test]
    fn simple_cases() {
        assert_eq!(roots([-0.3, 1.0, 0.0, 0.0]), vec![0.3]);
        let r = roots(from_roots(1.0, &[0.2, 0.5, 0.8]));
        assert_eq!(r.len(), 3);
        for (a, b) in r.iter().zip([0.2, 0.5, 0.8]) {
            assert!((a - b).abs() < 1e-15);
        }
        assert!(roots([1.0, 0.0, 0.0, 0.0]).is_empty());
        assert!(roots([1.0, 0.0, 1.0, 0.0]).is_empty()); // z² + 1
        assert_eq!(roots([0.0, 1.0, 0.0, 0.0]), vec![0.0]); // root at the start
        assert_eq!(roots([-1.0, 1.0, 0.0, 0.0]), vec![1.0]); // root at the end
    }

    #[test]
    fn ill_conditioned_cubics() {
        // Clustered roots 1e-9 apart. Rounding the coefficients alone moves such roots by
        // about (1e-16)^(1/3) ≈ 5e-6: that is the problem's conditioning, not the solver's.
        // What the solver owes: roots found, each a true zero of the polynomial it was given.
        let c = from_roots(1.0, &[0.5 - 1e-9, 0.5, 0.5 + 1e-9]);
        let r = roots(c);
        assert!(!r.is_empty() && r.iter().all(|z| (z - 0.5).abs() < 1e-5), "{r:?}");
        assert!(r.iter().all(|&z| eval(&c, z).abs() <= rounding_bound(&c, z)), "{r:?}");
        // triple root: found as a tangential/bracketed root near 0.3
        let r = roots(from_roots(1.0, &[0.3, 0.3, 0.3]));
        assert!(!r.is_empty() && (r[0] - 0.3).abs() < 1e-5, "{r:?}");
        // double root (tangential touch)
        let r = roots(from_roots(1.0, &[0.25, 0.25, 2.0]));
        assert!(r.len() == 1 && (r[0] - 0.25).abs() < 1e-7, "{r:?}");
        // (z − 0.25)²(z − 2) touches zero from below at 0.25. Lifted by 1e-9 it crosses twice;
        // lowered by 1e-9 it only comes near, which counts within the caller's tolerance.
        let base = from_roots(1.0, &[0.25, 0.25, 2.0]);
        let shifted = |d: f64| [base[0] + d, base[1], base[2], base[3]];
        assert_eq!(cubic_roots(&shifted(1e-9), 0.0, 1.0, 0.0).as_slice().len(), 2);
        assert!(cubic_roots(&shifted(-1e-9), 0.0, 1.0, 0.0).is_empty());
        assert_eq!(cubic_roots(&shifted(-1e-9), 0.0, 1.0, 2e-9).as_slice().len(), 1);
        // vanishing leading coefficient: a quadratic in disguise
        let mut c = from_roots(1.0, &[0.1, 0.9]);
        c[3] = 1e-20;
        let r = roots(c);
        assert!(r.len() == 2 && (r[0] - 0.1).abs() < 1e-12 && (r[1] - 0.9).abs() < 1e-12, "{r:?}");
        // leading coefficient dominates but roots still inside
        let r = roots(from_roots(1e12, &[0.4, 7.0, -3.0]));
        assert!(r.len() == 1 && (r[0] - 0.4).abs() < 1e-14, "{r:?}");
        // extreme magnitudes
        for scale in [1e-200, 1e200] {
            let r = roots(from_roots(scale, &[0.125, 0.75, 3.0]));
            assert!(r.len() == 2 && (r[0] - 0.125).abs() < 1e-14 && (r[1] - 0.75).abs() < 1e-14, "{r:?}");
        }
        // roots extremely close to the interval ends
        let r = roots(from_roots(1.0, &[1e-15, 1.0 - 1e-15, 5.0]));
        assert_eq!(r.len(), 2, "{r:?}");
    }

    #[test]
    fn negligible_polynomials() {
        assert!(is_negligible(&[1e-20, -1e-20, 0.0, 0.0], 1e-15));
        assert!(!is_negligible(&[1e-20, -1e-10, 0.0, 0.0], 1e-15));
        assert!(roots([0.0; 4]).is_empty()); // no isolated roots
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        /// Against a brute-force sign scan on a fine grid: every sign change seen by the scan
        /// is a reported root nearby, and every reported root is a true (near-)zero.
        #[test]
        fn agrees_with_sign_scan(c in proptest::array::uniform4(-10.0..10.0f64)) {
            let found = roots(c);
            let n = 20_000;
            let mut prev = eval(&c, 0.0);
            for i in 1..=n {
                let z = i as f64 / n as f64;
                let f = eval(&c, z);
                if (f < 0.0) != (prev < 0.0) && f != 0.0 && prev != 0.0 {
                    let z0 = (i - 1) as f64 / n as f64;
                    prop_assert!(found.iter().any(|&r| r >= z0 - 1e-9 && r <= z + 1e-9),
                        "missed sign change in [{z0}, {z}] of {c:?}: {found:?}");
                }
                prev = f;
            }
            let scale: f64 = c.iter().map(|x| x.abs()).sum();
            for &r in &found {
                prop_assert!((0.0..=1.0).contains(&r));
                prop_assert!(eval(&c, r).abs() <= 1e-12 * scale, "{c:?} at {r}");
            }
        }
    }
}
