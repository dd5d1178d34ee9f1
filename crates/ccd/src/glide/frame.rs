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
