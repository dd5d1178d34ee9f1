//! Closed intervals of reals: just the operations the continuous OBB test needs.

use std::ops::{Add, Mul, Sub};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub fn new(a: f64, b: f64) -> Interval {
        Interval { lo: a.min(b), hi: a.max(b) }
    }
    pub fn point(x: f64) -> Interval {
        Interval { lo: x, hi: x }
    }
    /// `[x − r, x + r]`, `r ≥ 0`.
    pub fn around(x: f64, r: f64) -> Interval {
        Interval { lo: x - r, hi: x + r }
    }
    /// The interval `x + [0, 1]·d` (for "up to `d`", whichever its sign).
    pub fn plus_fraction_of(self, d: f64) -> Interval {
        if d >= 0.0 { Interval { lo: self.lo, hi: self.hi + d } } else { Interval { lo: self.lo + d, hi: self.hi } }
    }
    /// Smallest `|x|` over the interval ("mignitude").
    pub fn mig(self) -> f64 {
        if self.lo > 0.0 {
            self.lo
        } else if self.hi < 0.0 {
            -self.hi
        } else {
            0.0
        }
    }
    /// Largest `|x|` over the interval ("magnitude").
    pub fn mag(self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }
    pub fn clamp_unit(self) -> Interval {
        Interval { lo: self.lo.max(-1.0), hi: self.hi.min(1.0) }
    }
}

impl Add for Interval {
    type Output = Interval;
    fn add(self, o: Interval) -> Interval {
        Interval { lo: self.lo + o.lo, hi: self.hi + o.hi }
    }
}

impl Sub for Interval {
    type Output = Interval;
    fn sub(self, o: Interval) -> Interval {
        Interval { lo: self.lo - o.hi, hi: self.hi - o.lo }
    }
}

impl Mul for Interval {
    type Output = Interval;
    fn mul(self, o: Interval) -> Interval {
        let p = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi];
        Interval {
            lo: p.iter().fold(f64::INFINITY, |m, &x| m.min(x)),
            hi: p.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)),
        }
    }
}

impl Mul<Interval> for f64 {
    type Output = Interval;
    fn mul(self, o: Interval) -> Interval {
        Interval::new(self * o.lo, self * o.hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_contains_every_result() {
        let a = Interval::new(-1.0, 2.0);
        let b = Interval::new(0.5, 3.0);
        for i in 0..=10 {
            for j in 0..=10 {
                let x = -1.0 + 3.0 * i as f64 / 10.0;
                let y = 0.5 + 2.5 * j as f64 / 10.0;
                for (r, v) in [(a + b, x + y), (a - b, x - y), (a * b, x * y)] {
                    assert!(r.lo <= v && v <= r.hi);
                }
            }
        }
        assert_eq!(Interval::new(-1.0, 2.0).mig(), 0.0);
        assert_eq!(Interval::new(-3.0, -2.0).mig(), 2.0);
        assert_eq!(Interval::new(-3.0, 2.0).mag(), 3.0);
        assert_eq!(Interval::point(1.0).plus_fraction_of(-0.5), Interval::new(0.5, 1.0));
    }
}
