//! The continuous BM-culling test of one node over one piece of a screw path
//! (docs/bm-culling.md §2).

use super::Obb;
use crate::{Pose, Screw};
use glam::DVec3;

/// The relative velocity field of one body with respect to the other over a piece, in the
/// body's own frame: `v(x, t)·n = (ω × x + k)·n + z'(t) (su·n)`, `z'(t) ∈ [dz0, dz1]`.
#[derive(Clone, Copy, Debug)]
pub struct CullMotion {
    omega: DVec3,
    k: DVec3,
    su: DVec3,
    dz0: f64,
    dz1: f64,
}

impl CullMotion {
    /// The moving body A, whose body frame is placed in the screw's frame by `start`.
    pub fn moving(screw: &Screw, start: &Pose) -> CullMotion {
        let world = CullMotion::in_screw_frame(screw);
        // v·n with x = S x_A, n = R_S n_A: (R_Sᵀω × x_A + R_Sᵀ(ω × t_S + k))·n_A.
        let back = start.rotation.inverse();
        CullMotion {
            omega: back * world.omega,
            k: back * (world.omega.cross(start.translation) + world.k),
            su: back * world.su,
            ..world
        }
    }

    /// The fixed body B (the screw's frame): minus A's velocity field.
    pub fn fixed(screw: &Screw) -> CullMotion {
        let world = CullMotion::in_screw_frame(screw);
        CullMotion { omega: -world.omega, k: -world.k, su: -world.su, ..world }
    }

    fn in_screw_frame(screw: &Screw) -> CullMotion {
        let (u, w, tt, perp) = (screw.axis(), screw.angle(), screw.tan_half(), screw.perp());
        let (k, dz0, dz1) = if tt > 0.0 && tt.is_finite() {
            // z'(t) = (w/2) sec²(w t/2) / T, increasing on [0, 1] (w t / 2 < π/2).
            let c = 0.5 * w / tt;
            (c * perp - 0.5 * w * u.cross(perp), c, c * (1.0 + tt * tt))
        } else {
            (perp, 1.0, 1.0)
        };
        CullMotion { omega: w * u, k, su: screw.axial() * u, dz0, dz1 }
    }

    /// Whether every point of `obb` moves strictly backwards along every vector of `cone`
    /// throughout the piece (with the rounding margin of docs/bm-culling.md §2).
    pub fn culls(&self, obb: &Obb, cone: &[DVec3]) -> bool {
        let eta = 1e-6 * self.speed(obb.center.length() + obb.radius());
        cone.iter().all(|&n| {
            let g = n.cross(self.omega);
            let spread: f64 = (0..3).map(|i| obb.half[i] * obb.axes[i].dot(g).abs()).sum();
            obb.center.dot(g) + spread + self.constant_and_time(n) < -eta
        })
    }

    /// Bound on the speed of points within `reach` of the frame's origin.
    fn speed(&self, reach: f64) -> f64 {
        self.omega.length() * reach + self.k.length() + self.su.length() * self.dz1
    }

    /// `k·n + max over the piece of z'(t) (su·n)`: the part of `v·n` that does not depend on
    /// the point.
    fn constant_and_time(&self, n: DVec3) -> f64 {
        let along = self.su.dot(n);
        self.k.dot(n) + (along * self.dz0).max(along * self.dz1)
    }
}

impl CullMotion {
    /// Whether a triangle (its corners and unit normal) moves strictly backwards throughout
    /// the piece. Implied by [`CullMotion::culls`] for any node holding the triangle: its
    /// margin is 10× smaller (docs/bm-culling.md §2).
    pub fn backward(&self, corners: &[DVec3; 3], n: DVec3) -> bool {
        let reach = corners.iter().map(|p| p.length()).fold(0.0, f64::max);
        let g = n.cross(self.omega);
        let upper = corners.iter().map(|p| p.dot(g)).fold(f64::NEG_INFINITY, f64::max) + self.constant_and_time(n);
        upper < -1e-7 * self.speed(reach)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    fn random_screw(seed: u64) -> (Screw, Pose) {
        let mut s = seed;
        let mut r = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let axis = DVec3::new(r(), r(), r()).normalize();
        let angle = if seed.is_multiple_of(4) { 0.0 } else { (r().abs() * 3.2).min(crate::motion::MAX_PIECE_ANGLE) };
        let d = Pose::new(DQuat::from_axis_angle(axis, angle), DVec3::new(r(), r(), r()) * 3.0);
        let start = Pose::new(
            DQuat::from_axis_angle(DVec3::new(r(), r(), r()).normalize(), 2.0 * r()),
            DVec3::new(r(), r(), r()),
        );
        (Screw::from_displacement(&d), start)
    }

    /// The velocity formula against finite differences of the actual motion, for a point of
    /// A (carried by the screw) and a point of B (seen from A).
    #[test]
    fn velocity_matches_finite_differences() {
        for seed in 0..200u64 {
            let (screw, start) = random_screw(seed);
            let (ma, mb) = (CullMotion::moving(&screw, &start), CullMotion::fixed(&screw));
            let x = DVec3::new(0.3, -1.2, 0.7) + 0.1 * seed as f64 * DVec3::X;
            let n = DVec3::new(-0.2, 0.5, 0.9).normalize();
            for &t in &[0.0f64, 0.3, 0.77, 1.0] {
                // Second-order differences (one-sided at the ends): near a half turn the motion
                // bends sharply at t = 1 and a first-order difference is off by 1e-5.
                let h = 1e-5f64;
                let deriv = |f: &dyn Fn(f64) -> DVec3| {
                    if t < h {
                        (-3.0 * f(t) + 4.0 * f(t + h) - f(t + 2.0 * h)) / (2.0 * h)
                    } else if t > 1.0 - h {
                        (3.0 * f(t) - 4.0 * f(t - h) + f(t - 2.0 * h)) / (2.0 * h)
                    } else {
                        (f(t + h) - f(t - h)) / (2.0 * h)
                    }
                };
                let expect_dz = deriv(&|t| DVec3::splat(screw.z_of_t(t))).x; // z'(t)
                // A: position D_t(S x), normal R_t R_S n.
                let place = |t: f64| screw.displacement_at(t) * start;
                let v = deriv(&|t| place(t).transform_point(x));
                let numeric = v.dot(place(t).transform_vector(n));
                let formula = (ma.omega.cross(x) + ma.k).dot(n) + expect_dz * ma.su.dot(n);
                assert!(
                    (numeric - formula).abs() < 1e-5 * (1.0 + numeric.abs()),
                    "A seed {seed} t {t}: {numeric} vs {formula}"
                );
                // B: the point x of B (fixed) in A's moving frame, velocity taken back to B's frame.
                let va = deriv(&|t| place(t).inverse().transform_point(x));
                let numeric = place(t).transform_vector(va).dot(n);
                let formula = (mb.omega.cross(x) + mb.k).dot(n) + expect_dz * mb.su.dot(n);
                assert!(
                    (numeric - formula).abs() < 1e-5 * (1.0 + numeric.abs()),
                    "B seed {seed} t {t}: {numeric} vs {formula}"
                );
                assert!(expect_dz >= mb.dz0 - 1e-6 && expect_dz <= mb.dz1 + 1e-6);
            }
        }
    }

    /// `backward` is tight, not only safe: against `v·n` sampled densely along the actual
    /// motion at the triangle's corners, a triangle is reported backward whenever the sampled
    /// maximum is clearly negative, and never when it is not negative. So no culling by
    /// backward motion can skip more triangles than this test does (docs/bm-culling.md §5).
    #[test]
    fn backward_is_tight() {
        let (mut reported, mut sampled) = (0, 0);
        for seed in 0..300u64 {
            let (screw, start) = random_screw(seed);
            let (ma, mb) = (CullMotion::moving(&screw, &start), CullMotion::fixed(&screw));
            let place = |t: f64| screw.displacement_at(t) * start;
            for k in 0..20u64 {
                let f = (seed * 20 + k) as f64;
                let corners = [
                    DVec3::new(f.sin(), (1.3 * f).cos(), 0.5 * (0.7 * f).sin()),
                    DVec3::new((2.1 * f).cos(), 0.4, (0.3 * f).sin()),
                    DVec3::new(-0.6, (1.7 * f).sin(), (0.9 * f).cos()),
                ];
                let n = (corners[1] - corners[0]).cross(corners[2] - corners[0]).normalize();
                for (m, fixed) in [(ma, false), (mb, true)] {
                    // v·n at x by central differences of the real motion (B seen from A for B).
                    let vn = |x: DVec3, t: f64| {
                        let h = 1e-6;
                        let (t0, t1) = ((t - h).max(0.0), (t + h).min(1.0));
                        if fixed {
                            let at = |t: f64| place(t).inverse().transform_point(x);
                            place(t).transform_vector((at(t1) - at(t0)) / (t1 - t0)).dot(n)
                        } else {
                            let v = (place(t1).transform_point(x) - place(t0).transform_point(x)) / (t1 - t0);
                            v.dot(place(t).transform_vector(n))
                        }
                    };
                    let max = (0..=64)
                        .flat_map(|i| corners.map(|x| vn(x, i as f64 / 64.0)))
                        .fold(f64::NEG_INFINITY, f64::max);
                    let speed = m.speed(corners.iter().map(|p| p.length()).fold(0.0, f64::max));
                    let backward = m.backward(&corners, n);
                    if max >= 0.0 {
                        assert!(!backward, "seed {seed}/{k}: culled with sampled max v·n {max}");
                    }
                    if max < -1e-4 * speed {
                        assert!(backward, "seed {seed}/{k}: not culled with sampled max v·n {max}");
                    }
                    reported += backward as u32;
                    sampled += (max < 0.0) as u32;
                }
            }
        }
        // Both kinds occur (about 5,000 of the 12,000 are backward), so both assertions are
        // exercised.
        assert!(reported > 2000 && sampled < 10000, "{reported} backward, {sampled} sampled backward");
    }

    /// The box bound is the maximum over the 8 corners: culled iff every corner is.
    #[test]
    fn box_bound_is_the_corner_maximum() {
        for seed in 0..300u64 {
            let (screw, start) = random_screw(seed);
            let m = CullMotion::moving(&screw, &start);
            let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.1 * seed as f64, 0.3, -0.2);
            let obb = Obb {
                center: DVec3::new(0.5, -0.1, 0.2),
                axes: [q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
                half: DVec3::new(0.3, 0.1, 0.05),
            };
            let n = -(m.omega.cross(obb.center) + m.k + m.su).normalize_or(DVec3::X);
            let cone = [n, (n + 0.1 * DVec3::Y).normalize()];
            let corner_culls = (0..8).all(|c| {
                let p = obb.center
                    + (0..3)
                        .map(|i| if c >> i & 1 == 1 { 1.0 } else { -1.0 } * obb.half[i] * obb.axes[i])
                        .sum::<DVec3>();
                let tiny = Obb { center: p, half: DVec3::ZERO, ..obb };
                m.culls(&tiny, &cone)
            });
            assert_eq!(m.culls(&obb, &cone), corner_culls, "seed {seed}");
        }
    }
}
