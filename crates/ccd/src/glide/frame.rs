//! The glide rotation of one step and the coordinates it is worked in (docs/glide.md §1–3, §5).

use crate::motion::{Pose, Screw};
use glam::{DQuat, DVec3};
use std::f64::consts::PI;

/// Below this rotation angle (radians) the step is treated as a pure translation.
const TINY_ANGLE: f64 = 1e-9;

/// What the relative motion is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Flow {
    /// A rotation by `theta ∈ (0, π)` about the y-axis and a glide `g` along it.
    Glide { theta: f64, g: f64 },
    /// A translation by `g` along the y-axis.
    Translation { g: f64 },
    /// No relative motion: nothing can start touching.
    Still,
}

/// Ω of the step, and the rigid map `F` from A's local frame to glide coordinates, where Ω's
/// axis is the y-axis through the origin (docs/glide.md §2).
#[derive(Clone, Copy, Debug)]
pub struct GlideFrame {
    pub flow: Flow,
    /// A-local → glide coordinates.
    pub to_glide: Pose,
    /// B-local → glide coordinates at the start of the step.
    pub b_start: Pose,
    /// The screw of Ω, in A's local frame.
    pub screw: Screw,
}

impl GlideFrame {
    /// `a0, a1`: A's world poses at the start and end of the step (`M_i`, `M_f`); `b0, b1`: B's
    /// (`N_i`, `N_f`). `centres`: the bounding-sphere centres of A (A-local) and B (B-local),
    /// used to turn the frame about the axis so that the bodies sit near `ϕ = 0`, away from
    /// the `ϕ = ±π` seam.
    pub fn new(a0: Pose, a1: Pose, b0: Pose, b1: Pose, centres: [DVec3; 2]) -> GlideFrame {
        let b_in_a = a0.inverse() * b0;
        let omega = a1.inverse() * b1 * b0.inverse() * a0;
        let screw = Screw::from_displacement(&omega);
        let theta = screw.angle();
        let g = screw.axial();
        // A tiny rotation leaves Ω's translation partly off its (ill-defined) axis: then the
        // whole translation is the motion.
        let shift = omega.translation;
        let (flow, axis_point, axis) = if theta > TINY_ANGLE {
            // θ = π exactly has two axis directions; callers split such steps (glide.md §6).
            let u = screw.axis_point().unwrap_or(DVec3::ZERO);
            (Flow::Glide { theta: theta.min(PI - 1e-9), g }, u, screw.axis())
        } else if shift.length() > 0.0 {
            (Flow::Translation { g: shift.length() }, DVec3::ZERO, shift.normalize())
        } else {
            (Flow::Still, DVec3::ZERO, DVec3::Y)
        };
        let align = DQuat::from_rotation_arc(axis.normalize(), DVec3::Y);
        let mut to_glide = Pose::new(align, -(align * axis_point));
        if let Flow::Glide { .. } = flow {
            // Turn about y so that the mean azimuth of the two centres is ϕ = 0.
            let ca = to_glide.transform_point(centres[0]);
            let cb = to_glide.transform_point(b_in_a.transform_point(centres[1]));
            let dir = unit_xz(ca) + unit_xz(cb);
            if dir.length_squared() > 1e-24 {
                let phi = dir.x.atan2(dir.z);
                to_glide = Pose::from_rotation(DQuat::from_rotation_y(-phi)) * to_glide;
            }
        }
        GlideFrame { flow, to_glide, b_start: to_glide * b_in_a, screw }
    }

    /// `θ` (0 for a translation).
    pub fn theta(&self) -> f64 {
        match self.flow {
            Flow::Glide { theta, .. } => theta,
            _ => 0.0,
        }
    }

    /// `g`, the glide along the axis.
    pub fn glide(&self) -> f64 {
        match self.flow {
            Flow::Glide { g, .. } | Flow::Translation { g } => g,
            Flow::Still => 0.0,
        }
    }

    /// `Φ_s(x) = R_y(θ s) x + g s ĵ`, the constant-velocity flow (glide.md §3); `s` may be
    /// negative.
    pub fn flow(&self, x: DVec3, s: f64) -> DVec3 {
        rotate_y(x, self.theta() * s) + DVec3::new(0.0, self.glide() * s, 0.0)
    }

    /// Rotates a direction by the flow's rotation over time `s`.
    pub fn turn(&self, v: DVec3, s: f64) -> DVec3 {
        rotate_y(v, self.theta() * s)
    }

    /// The flow's rotation at time `s`, for placing several points at that time with one
    /// `sin_cos`.
    pub fn turn_at(&self, s: f64) -> Turn {
        let (sin, cos) = (self.theta() * s).sin_cos();
        Turn { cos, sin }
    }

    /// `Φ_s(x)` with `turn = turn_at(s)`.
    pub fn flow_with(&self, x: DVec3, s: f64, turn: Turn) -> DVec3 {
        turn.apply(x) + DVec3::new(0.0, self.glide() * s, 0.0)
    }

    /// `Φ_{−s}(x)`, the inverse of [`GlideFrame::flow_with`].
    pub fn unflow_with(&self, x: DVec3, s: f64, turn: Turn) -> DVec3 {
        turn.unapply(x - DVec3::new(0.0, self.glide() * s, 0.0))
    }

    /// `ω(x) = θ ĵ × x + g ĵ`.
    pub fn velocity(&self, x: DVec3) -> DVec3 {
        let theta = self.theta();
        DVec3::new(theta * x.z, self.glide(), -theta * x.x)
    }

    /// The largest flow speed over a sphere, for the time resolution (glide.md §9).
    pub fn max_speed(&self, centre: DVec3, radius: f64) -> f64 {
        let r = centre.x.hypot(centre.z) + radius;
        (r * r * self.theta() * self.theta() + self.glide() * self.glide()).sqrt()
    }

    /// Screen coordinates `(r, h, t)` of a glide-coordinate point whose azimuth is taken as
    /// `phi` (glide.md §5). For a translation, `(x, z, y/g)`: rows along x, h along z.
    pub fn screen(&self, p: DVec3, phi: f64) -> [f64; 3] {
        match self.flow {
            Flow::Glide { theta, g } => {
                // Coordinates are within ±1e50 (meshes and poses are checked on input): the
                // squares cannot overflow, and `hypot`'s care costs several times more.
                let r = (p.x * p.x + p.z * p.z).sqrt();
                let rt = r * theta;
                let den = rt * rt + g * g;
                if den <= 0.0 {
                    return [0.0, 0.0, 0.0];
                }
                let t = (r * rt * phi + g * p.y) / den;
                let h = (rt * p.y - r * g * phi) / den.sqrt();
                [r, h, t]
            }
            Flow::Translation { g } => [p.x, p.z, p.y / g],
            Flow::Still => [p.x, p.z, 0.0],
        }
    }
}

impl GlideFrame {
    /// How far the screen image of the segment from `a` to `b` (glide coordinates, azimuths
    /// `phi` taken continuous along it) can stray from its chord: bounds on the distance in the
    /// `(r, h)` plane and (when `with_t`; infinite otherwise) on the difference in `t`, between
    /// the curve and the chord at the same parameter (glide.md §15).
    /// Infinite when the segment meets the axis.
    pub fn chord_error(&self, a: DVec3, b: DVec3, phi: (f64, f64), with_t: bool) -> (f64, f64) {
        let Flow::Glide { theta, g } = self.flow else {
            // A translation's screen coordinates are linear: chords are exact.
            return (0.0, 0.0);
        };
        let d = b - a;
        let dxz2 = d.x * d.x + d.z * d.z;
        if dxz2 == 0.0 {
            // r and ϕ stay put; h and t are linear in y.
            return (0.0, 0.0);
        }
        // In the xz-plane the segment runs at speed `dxz` along a line at distance `r0` from the
        // axis, reached at parameter `s0`: r² = r0² + q², q = dxz (s − s0). Along it
        // r'' = dxz² r0² / r³, |ϕ'| = dxz r0 / r², |ϕ''| = 2 dxz² r0 |q| / r⁴ ≤ dxz² / r², |r'| ≤ dxz.
        let dxz = dxz2.sqrt();
        let r0 = (a.x * d.z - a.z * d.x).abs() / dxz;
        let s0 = -(a.x * d.x + a.z * d.z) / dxz2;
        let (ra, rb) = ((a.x * a.x + a.z * a.z).sqrt(), (b.x * b.x + b.z * b.z).sqrt());
        let r_min = if (0.0..=1.0).contains(&s0) { r0 } else { ra.min(rb) };
        let r_max = ra.max(rb);
        if r_min <= 0.0 || !r_max.is_finite() {
            return (f64::INFINITY, f64::INFINITY);
        }
        let inv_r_min = 1.0 / r_min;
        let inv_r_min2 = inv_r_min * inv_r_min;
        let r2 = dxz2 * r0 * r0 * inv_r_min2 * inv_r_min;
        let phi1 = dxz * r0 * inv_r_min2;
        let q_max = dxz * s0.abs().max((1.0 - s0).abs());
        let phi2 = dxz2 * inv_r_min2 * (2.0 * r0 * q_max * inv_r_min2).min(1.0);
        let (g2, th2) = (g * g, theta * theta);
        let (d_lo2, d_hi2) = (r_min * r_min * th2 + g2, r_max * r_max * th2 + g2);
        let inv_d_lo2 = 1.0 / d_lo2;
        let inv_d_lo = inv_d_lo2.sqrt();
        // A = θ y − g ϕ over y and ϕ between their ends (y is linear along the segment and ϕ
        // monotone, as it misses the axis): bilinear, so extreme at the corners.
        let (y0, y1, p0, p1) = (a.y, b.y, phi.0, phi.1);
        let corners = [theta * y0 - g * p0, theta * y0 - g * p1, theta * y1 - g * p0, theta * y1 - g * p1];
        let (a_lo, a_hi) = (min4(corners), max4(corners));
        // h = A k(r), k = r / D, D = √(r² θ² + g²) (k increasing in r): k' = g² / D³,
        // k'' = −3 r θ² g² / D⁵, and h'' = A'' k + 2 A' k' r' + A (k'' r'² + k' r'').
        let (k_lo, k_hi) = (r_min * inv_d_lo, r_max / d_hi2.sqrt());
        let k1 = g2 * inv_d_lo2 * inv_d_lo;
        let k2 = 3.0 * r_max * th2 * k1 * inv_d_lo2;
        let a1 = theta * d.y.abs() + g.abs() * phi1;
        let a2 = g.abs() * phi2;
        let h2 = a2 * k_hi + 2.0 * a1 * k1 * dxz + a_lo.abs().max(a_hi.abs()) * (k2 * dxz2 + k1 * r2);
        // Linear interpolation strays from a curve by at most max |f''| / 8. Near the axis that
        // grows as 1/r³, while the curve and its chord both stay inside the box of r, h and t
        // over r ∈ [r_min, r_max] and y, ϕ between their ends: the smaller bound holds (the box
        // can only be smaller for a segment longer than its distance from the axis).
        let near = dxz > r_min;
        let mut e_rh = (r2 * r2 + h2 * h2).sqrt() / 8.0;
        if near {
            let box_h = span([a_lo * k_lo, a_lo * k_hi, a_hi * k_lo, a_hi * k_hi]);
            e_rh = e_rh.min(((r_max - r_min) * (r_max - r_min) + box_h * box_h).sqrt());
        }
        if !with_t {
            return (e_rh, f64::INFINITY);
        }
        // t = ϕ w₁(r) + y w₂(r), w₁ = r² θ / D² (≤ 1/θ, increasing), w₂ = g / D²: w₁' = 2 r θ g² / D⁴,
        // w₁'' = 2 θ g² (g² − 3 r² θ²) / D⁶, w₂' = −2 g r θ² / D⁴, w₂'' = −2 g θ² (g² − 3 r² θ²) / D⁶.
        let inv_d_lo4 = inv_d_lo2 * inv_d_lo2;
        let spread = g2.max(3.0 * r_max * r_max * th2) * inv_d_lo4 * inv_d_lo2;
        let w1_1 = 2.0 * r_max * theta * g2 * inv_d_lo4;
        let w1_2 = 2.0 * theta * g2 * spread;
        let w2_1 = 2.0 * g.abs() * r_max * th2 * inv_d_lo4;
        let w2_2 = 2.0 * g.abs() * th2 * spread;
        let (phi_max, y_max) = (p0.abs().max(p1.abs()), y0.abs().max(y1.abs()));
        let t2 = phi2 / theta
            + 2.0 * phi1 * w1_1 * dxz
            + phi_max * (w1_2 * dxz2 + w1_1 * r2)
            + 2.0 * d.y.abs() * w2_1 * dxz
            + y_max * (w2_2 * dxz2 + w2_1 * r2);
        let mut e_t = t2 / 8.0;
        if near {
            let (w1_lo, w1_hi) = (r_min * r_min * theta * inv_d_lo2, r_max * r_max * theta / d_hi2);
            let (w2_lo, w2_hi) = (g * inv_d_lo2, g / d_hi2);
            let box_t = span([p0 * w1_lo, p0 * w1_hi, p1 * w1_lo, p1 * w1_hi])
                + span([y0 * w2_lo, y0 * w2_hi, y1 * w2_lo, y1 * w2_hi]);
            e_t = e_t.min(box_t);
        }
        (e_rh, e_t)
    }
}

fn min4(x: [f64; 4]) -> f64 {
    x[0].min(x[1]).min(x[2].min(x[3]))
}

fn max4(x: [f64; 4]) -> f64 {
    x[0].max(x[1]).max(x[2].max(x[3]))
}

/// The width of the smallest interval holding all four values.
fn span(x: [f64; 4]) -> f64 {
    max4(x) - min4(x)
}

/// `R_y(a)` given `cos a` and `sin a`.
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    pub cos: f64,
    pub sin: f64,
}

impl Turn {
    pub fn apply(&self, x: DVec3) -> DVec3 {
        let (c, s) = (self.cos, self.sin);
        DVec3::new(c * x.x + s * x.z, x.y, -s * x.x + c * x.z)
    }

    /// `R_y(−a) x`.
    pub fn unapply(&self, x: DVec3) -> DVec3 {
        let (c, s) = (self.cos, self.sin);
        DVec3::new(c * x.x - s * x.z, x.y, s * x.x + c * x.z)
    }
}

/// `R_y(a) x`: turns +z toward +x, so the azimuth `ϕ = atan2(x, z)` grows by `a`.
pub fn rotate_y(x: DVec3, a: f64) -> DVec3 {
    let (sin, cos) = a.sin_cos();
    Turn { cos, sin }.apply(x)
}

fn unit_xz(p: DVec3) -> DVec3 {
    let v = DVec3::new(p.x, 0.0, p.z);
    let l = v.length();
    if l > 0.0 { v / l } else { DVec3::ZERO }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_pose(k: f64) -> Pose {
        let axis = DVec3::new(k.sin(), (2.0 * k).cos(), 0.3 + k.cos()).normalize();
        Pose::new(DQuat::from_axis_angle(axis, 0.2 + k % 2.5), DVec3::new(k.cos(), -k, 0.5 * k.sin()))
    }

    /// Φ_1 in glide coordinates is Ω: B's start pose flowed for one step lands on its end pose.
    #[test]
    fn unit_flow_is_the_relative_displacement() {
        for i in 0..50 {
            let k = i as f64 * 0.37;
            let (a0, a1, b0, b1) = (random_pose(k), random_pose(k + 0.1), random_pose(k + 1.3), random_pose(k + 1.9));
            let f = GlideFrame::new(a0, a1, b0, b1, [DVec3::ZERO, DVec3::X]);
            let b_end = f.to_glide * a1.inverse() * b1;
            for q in [DVec3::ZERO, DVec3::new(1.0, -2.0, 0.5), DVec3::new(-3.0, 0.2, 4.0)] {
                let moved = f.flow(f.b_start.transform_point(q), 1.0);
                assert!((moved - b_end.transform_point(q)).length() < 1e-9, "case {i}");
            }
        }
    }

    /// The chord error bounds hold: on random segments (some passing close to the axis) and
    /// glide rotations (some almost pure rotations, some almost pure glides), the projected
    /// segment, sampled densely, never strays from its chord by more than the bounds.
    #[test]
    fn chord_error_bounds_the_projected_curve() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut tight = 0;
        for case in 0..3000 {
            let theta = 0.01 + 1.6 * rnd();
            let g = match case % 3 {
                0 => 1e-15 * (rnd() - 0.5),
                1 => 2.0 * (rnd() - 0.5),
                _ => 50.0 * (rnd() - 0.5),
            };
            let f = GlideFrame {
                flow: Flow::Glide { theta, g },
                to_glide: Pose::IDENTITY,
                b_start: Pose::IDENTITY,
                screw: Screw::from_displacement(&Pose::IDENTITY),
            };
            let mut v = |s: f64| DVec3::new(s * (rnd() - 0.5), 4.0 * (rnd() - 0.5), s * (rnd() - 0.5));
            let a = v(4.0);
            // Short and long segments; every fourth passes within 1e-3 … 1e-1 of the axis.
            let b = if case % 4 == 0 {
                let towards = DVec3::new(-a.x, 0.0, -a.z) * (1.0 + rnd());
                a + towards + DVec3::new(0.1 * (rnd() - 0.5), rnd() - 0.5, 0.1 * (rnd() - 0.5))
            } else {
                a + v(if case % 2 == 0 { 0.3 } else { 3.0 })
            };
            // Continuous azimuths along the segment, unwrapped from `a`'s (a shift of 2π as a
            // doppeled copy has, sometimes).
            let shift = if case % 5 == 0 { 2.0 * PI } else { 0.0 };
            let n = 2000;
            let mut phis = Vec::with_capacity(n + 1);
            let mut prev = a.x.atan2(a.z);
            for i in 0..=n {
                let p = a.lerp(b, i as f64 / n as f64);
                let raw = p.x.atan2(p.z);
                let mut step = raw - prev;
                while step > PI {
                    step -= 2.0 * PI;
                }
                while step < -PI {
                    step += 2.0 * PI;
                }
                prev += step;
                phis.push(prev + shift);
            }
            let (e_rh, e_t) = f.chord_error(a, b, (phis[0], phis[n]), true);
            assert_eq!(f.chord_error(a, b, (phis[0], phis[n]), false).0, e_rh);
            let (sa, sb) = (f.screen(a, phis[0]), f.screen(b, phis[n]));
            let (mut d_rh, mut d_t) = (0.0f64, 0.0f64);
            for i in 0..=n {
                let s = i as f64 / n as f64;
                let p = f.screen(a.lerp(b, s), phis[i]);
                let chord: [f64; 3] = std::array::from_fn(|k| sa[k] + s * (sb[k] - sa[k]));
                d_rh = d_rh.max((p[0] - chord[0]).hypot(p[1] - chord[1]));
                d_t = d_t.max((p[2] - chord[2]).abs());
            }
            assert!(d_rh <= e_rh * (1.0 + 1e-9) + 1e-12, "case {case}: (r, h) strays {d_rh} > {e_rh}");
            assert!(d_t <= e_t * (1.0 + 1e-9) + 1e-12, "case {case}: t strays {d_t} > {e_t}");
            if d_rh > 0.1 * e_rh && d_t > 0.1 * e_t {
                tight += 1;
            }
        }
        // Not vacuous: the bounds are within 10x of the true deviation in many cases.
        assert!(tight > 300, "{tight}");
    }

    /// Moving a point by Φ_s adds s to t and keeps r and h (glide.md §5).
    #[test]
    fn flow_adds_time_and_keeps_screen_position() {
        let f = GlideFrame {
            flow: Flow::Glide { theta: 0.7, g: -0.4 },
            to_glide: Pose::IDENTITY,
            b_start: Pose::IDENTITY,
            screw: Screw::from_displacement(&Pose::IDENTITY),
        };
        let p = DVec3::new(0.3, 0.8, 1.1);
        let phi = p.x.atan2(p.z);
        let [r, h, t] = f.screen(p, phi);
        for s in [0.1, 0.5, 1.0] {
            let [r2, h2, t2] = f.screen(f.flow(p, s), phi + 0.7 * s);
            assert!((r2 - r).abs() < 1e-12 && (h2 - h).abs() < 1e-12 && (t2 - t - s).abs() < 1e-12);
        }
    }
}
