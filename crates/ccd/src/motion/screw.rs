//! Redon's in-between motion for one rigid displacement (docs/motion.md §2–4).

use super::Pose;
use glam::{DQuat, DVec3};

/// Below this `sin(w/2)` the axis point `o` (which grows like `1/w`) is not formed.
const TINY_SIN_HALF: f64 = 1e-9;

/// One rigid displacement `D(x) = R x + t`, written as a rotation by `angle` about a line of
/// direction `axis` and a translation `axial` along it, and followed over `t ∈ [0, 1]` with
/// Redon's parametrization: rotation `angle·t`, axial translation
/// `axial · tan(angle·t/2) / tan(angle/2)`.
///
/// Coordinates are those of the frame `D` is expressed in. The rotation `R_t` turns about the
/// axis through that frame's origin; the perpendicular translation `Y(t)` accounts for the
/// real axis (motion.md (3.1)), so no formula divides by the angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Screw {
    axis: DVec3,
    angle: f64,
    axial: f64,
    perp: DVec3,
    tan_half: f64,
    sin_half: f64,
}

impl Screw {
    /// Decomposes `d` (motion.md §2). `d.rotation` need not be normalized.
    pub fn from_displacement(d: &Pose) -> Screw {
        let mut q = d.rotation.normalize();
        if q.w < 0.0 {
            q = -q;
        }
        let v = q.xyz();
        let sin_half = v.length();
        let t = d.translation;
        if sin_half == 0.0 {
            let len = t.length();
            let axis = if len > 0.0 { t / len } else { DVec3::X };
            return Screw::from_parts(axis, 0.0, len, DVec3::ZERO);
        }
        let axis = v / sin_half;
        let angle = 2.0 * sin_half.atan2(q.w);
        let axial = t.dot(axis);
        Screw::from_parts(axis, angle, axial, t - axial * axis)
    }

    /// A screw from its parts: unit `axis`, `angle ∈ [0, π]`, translation `axial` along the
    /// axis and `perp` (orthogonal to the axis) of the whole displacement.
    pub fn from_parts(axis: DVec3, angle: f64, axial: f64, perp: DVec3) -> Screw {
        let half = 0.5 * angle;
        let sin_half = half.sin();
        let cos_half = half.cos();
        let tan_half = if angle == 0.0 {
            0.0
        } else if cos_half <= 0.0 {
            f64::INFINITY
        } else {
            sin_half / cos_half
        };
        Screw { axis, angle, axial, perp, tan_half, sin_half }
    }

    pub fn axis(&self) -> DVec3 {
        self.axis
    }
    /// Rotation angle `w ∈ [0, π]`.
    pub fn angle(&self) -> f64 {
        self.angle
    }
    /// Translation `s` along the axis.
    pub fn axial(&self) -> f64 {
        self.axial
    }
    /// Translation of the whole displacement orthogonal to the axis, `t⊥`.
    pub fn perp(&self) -> DVec3 {
        self.perp
    }
    /// `T = tan(w/2)`.
    pub fn tan_half(&self) -> f64 {
        self.tan_half
    }
    pub fn sin_half(&self) -> f64 {
        self.sin_half
    }

    /// A point `o` of the screw axis (motion.md (2.1)), or `None` when the rotation is so small
    /// that `o` would be astronomically far (then the motion is a translation to within
    /// rounding, and callers use bounds that do not need `o`).
    pub fn axis_point(&self) -> Option<DVec3> {
        if self.sin_half < TINY_SIN_HALF {
            return None;
        }
        Some(0.5 * self.perp + self.axis.cross(self.perp) / (2.0 * self.tan_half))
    }

    /// The inverse displacement's screw: same line, direction `−axis`, same angle and axial
    /// translation, hence the same `z(t)` (motion.md §3).
    pub fn inverse(&self) -> Screw {
        let back = DQuat::from_axis_angle(self.axis, -self.angle);
        Screw { axis: -self.axis, perp: -(back * self.perp), ..*self }
    }

    /// `z(t) = tan(w t/2) / tan(w/2)`, the normalized polynomial variable (`t` when `w = 0`).
    pub fn z_of_t(&self, t: f64) -> f64 {
        if self.tan_half == 0.0 {
            return t;
        }
        if t >= 1.0 {
            return 1.0;
        }
        (0.5 * self.angle * t).tan() / self.tan_half
    }

    /// Inverse of [`Screw::z_of_t`].
    pub fn t_of_z(&self, z: f64) -> f64 {
        if self.tan_half == 0.0 {
            return z;
        }
        if z >= 1.0 {
            return 1.0;
        }
        (z * self.tan_half).atan() / (0.5 * self.angle)
    }

    /// Ratio `sin(w t/2)/sin(w/2)` of (3.1), `t` in the limit `w → 0`.
    fn chord_ratio(&self, t: f64) -> f64 {
        if self.sin_half == 0.0 { t } else { (0.5 * self.angle * t).sin() / self.sin_half }
    }

    /// The perpendicular translation `Y(t) = (I − R_t) o`, motion.md (3.1).
    fn perp_at(&self, t: f64) -> DVec3 {
        let turn = DQuat::from_axis_angle(self.axis, 0.5 * self.angle * (t - 1.0));
        self.chord_ratio(t) * (turn * self.perp)
    }

    /// The displacement `D_t` of Redon's motion; `D_0` is the identity, `D_1` the whole
    /// displacement.
    pub fn displacement_at(&self, t: f64) -> Pose {
        Pose::new(
            DQuat::from_axis_angle(self.axis, self.angle * t),
            self.perp_at(t) + self.axial * self.z_of_t(t) * self.axis,
        )
    }

    /// The constant-speed screw through the same displacement at `t` (rotation `w t`, axial
    /// translation `s t`): the intermediate poses used to split large rotations
    /// (motion.md §8). It agrees with [`Screw::displacement_at`] at `t = 0` and `t = 1`.
    pub fn helix_at(&self, t: f64) -> Pose {
        Pose::new(DQuat::from_axis_angle(self.axis, self.angle * t), self.perp_at(t) + self.axial * t * self.axis)
    }

    /// Coefficients `[P0, P1, P2, P3]` with `W(z) · D_t(x) = P0 + P1 z + P2 z² + P3 z³`,
    /// `W(z) = 1 + T² z²` (motion.md (4.1)).
    pub fn point_poly(&self, x: DVec3) -> [DVec3; 4] {
        let u = self.axis;
        let tt = self.tan_half;
        let t2 = tt * tt;
        let ju = u.cross(self.perp);
        let x_par = u * u.dot(x);
        let x_perp = x - x_par;
        [
            x,
            2.0 * tt * u.cross(x) + self.perp - tt * ju + self.axial * u,
            t2 * (x_par - x_perp) + t2 * self.perp + tt * ju,
            t2 * self.axial * u,
        ]
    }

    /// `W(z) = 1 + T² z²`.
    pub fn weight(&self, z: f64) -> f64 {
        1.0 + self.tan_half * self.tan_half * z * z
    }

    /// Evaluates [`Screw::point_poly`] coefficients at `z`: the position `D_t(x)`.
    pub fn eval_poly(&self, p: &[DVec3; 4], z: f64) -> DVec3 {
        (((p[3] * z + p[2]) * z + p[1]) * z + p[0]) / self.weight(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_unit() -> impl Strategy<Value = DVec3> {
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
            .prop_filter("non-zero", |(x, y, z)| x * x + y * y + z * z > 1e-3)
            .prop_map(|(x, y, z)| DVec3::new(x, y, z).normalize())
    }

    fn arb_vec(r: f64) -> impl Strategy<Value = DVec3> {
        (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    /// Angles that exercise the edge cases: exactly zero, tiny, moderate, near π/2, near π.
    fn arb_angle() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(0.0),
            Just(1e-12),
            Just(1e-7),
            0.0..3.1f64,
            Just(std::f64::consts::FRAC_PI_2),
            Just(std::f64::consts::PI - 1e-3),
        ]
    }

    fn arb_displacement() -> impl Strategy<Value = Pose> {
        (arb_unit(), arb_angle(), arb_vec(5.0))
            .prop_map(|(axis, angle, t)| Pose::new(DQuat::from_axis_angle(axis, angle), t))
    }

    fn same(a: &Pose, b: &Pose, tol: f64) -> bool {
        a.distance_within(b, 3.0) < tol
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn ends_are_identity_and_displacement(d in arb_displacement()) {
            let s = Screw::from_displacement(&d);
            prop_assert!(same(&s.displacement_at(0.0), &Pose::IDENTITY, 1e-12));
            prop_assert!(same(&s.displacement_at(1.0), &d, 1e-11));
            prop_assert!(same(&s.helix_at(1.0), &d, 1e-11));
            prop_assert!(s.angle() >= 0.0 && s.angle() <= std::f64::consts::PI);
            prop_assert!(s.perp().dot(s.axis()).abs() < 1e-12);
        }

        /// Redon's definition read literally: rotate by w·t about the line (o, u), then slide
        /// s·tan(wt/2)/tan(w/2) along u. Checks (2.1) and (3.1).
        #[test]
        fn matches_rotation_about_explicit_axis(axis in arb_unit(), angle in 1e-3..3.0f64, tr in arb_vec(5.0), t in 0.0..1.0f64, x in arb_vec(3.0)) {
            let s = Screw::from_displacement(&Pose::new(DQuat::from_axis_angle(axis, angle), tr));
            let o = s.axis_point().unwrap();
            let literal = Pose::rotation_about(o, s.axis(), s.angle() * t).transform_point(x)
                + s.axial() * (0.5 * s.angle() * t).tan() / (0.5 * s.angle()).tan() * s.axis();
            prop_assert!((s.displacement_at(t).transform_point(x) - literal).length() < 1e-9);
        }

        /// (4.1): the cubic vector polynomial reproduces the motion.
        #[test]
        fn polynomial_matches_motion(d in arb_displacement(), t in 0.0..1.0f64, x in arb_vec(3.0)) {
            let s = Screw::from_displacement(&d);
            prop_assume!(s.angle() <= crate::motion::MAX_PIECE_ANGLE + 1e-12);
            let z = s.z_of_t(t);
            prop_assert!((s.t_of_z(z) - t).abs() < 1e-12);
            let via_poly = s.eval_poly(&s.point_poly(x), z);
            let direct = s.displacement_at(t).transform_point(x);
            prop_assert!((via_poly - direct).length() < 1e-12 * (1.0 + x.length() + d.translation.length()));
        }

        #[test]
        fn inverse_undoes_at_every_time(d in arb_displacement(), t in 0.0..1.0f64, x in arb_vec(3.0)) {
            let s = Screw::from_displacement(&d);
            prop_assume!(s.angle() < 3.0);
            let inv = s.inverse();
            let there = s.displacement_at(t).transform_point(x);
            prop_assert!((inv.displacement_at(t).transform_point(there) - x).length() < 1e-10);
            prop_assert!((inv.z_of_t(t) - s.z_of_t(t)).abs() < 1e-15);
        }
    }

    #[test]
    fn pure_translation_is_straight() {
        let d = Pose::from_translation(DVec3::new(3.0, -1.0, 2.0));
        let s = Screw::from_displacement(&d);
        assert_eq!(s.angle(), 0.0);
        assert_eq!(s.tan_half(), 0.0);
        let p = s.point_poly(DVec3::new(1.0, 1.0, 1.0));
        assert_eq!(p[2], DVec3::ZERO);
        assert_eq!(p[3], DVec3::ZERO);
        let mid = s.displacement_at(0.25).transform_point(DVec3::ZERO);
        assert!((mid - 0.25 * d.translation).length() < 1e-15);
    }

    #[test]
    fn identity_is_still() {
        let s = Screw::from_displacement(&Pose::IDENTITY);
        let x = DVec3::new(1.0, 2.0, 3.0);
        for t in [0.0, 0.3, 1.0] {
            assert_eq!(s.displacement_at(t).transform_point(x), x);
        }
    }

    #[test]
    fn pure_rotation_keeps_axis_fixed() {
        let centre = DVec3::new(2.0, 0.0, -1.0);
        let d = Pose::rotation_about(centre, DVec3::Z, 1.2);
        let s = Screw::from_displacement(&d);
        assert!(s.axial().abs() < 1e-15);
        let o = s.axis_point().unwrap();
        // o lies on the rotation axis through `centre`
        assert!(((o - centre).cross(DVec3::Z)).length() < 1e-12);
        for t in [0.1, 0.5, 0.9] {
            let p = s.displacement_at(t).transform_point(centre + DVec3::Z * 3.0);
            assert!((p - (centre + DVec3::Z * 3.0)).length() < 1e-12);
        }
    }
}
