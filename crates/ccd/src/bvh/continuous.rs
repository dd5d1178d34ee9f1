//! The continuous OBB/OBB test over a time interval, by interval arithmetic on the 15
//! separating axes (docs/continuous-obb.md §3–4).

use super::interval::Interval;
use super::obb::{Obb, abs_bound, cross_axes_separate, face_axis_e_separates, face_axis_f_separates};
use crate::{Pose, Screw};
use glam::{DMat3, DVec3};

fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-6 { 1.0 - x * x / 6.0 } else { x.sin() / x }
}

/// The moving body's motion over `[t0, t1]`, prepared for box tests: its placement at the
/// mid-time and the amplitudes of the sweep around it.
#[derive(Clone, Copy, Debug)]
pub struct IntervalMotion {
    pub t0: f64,
    pub t1: f64,
    /// Body coordinates → fixed frame at the mid-time: rotation and translation.
    rotation: DMat3,
    translation: DVec3,
    axis: DVec3,
    perp: DVec3,
    axis_cross_perp: DVec3,
    a1: f64,
    a2: f64,
    b1: f64,
    b2: f64,
    /// `σ(t) − σ(tm)` over the interval.
    dsigma: Interval,
}

/// Outcome of testing one pair of boxes over an interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxTest {
    pub separated: bool,
    /// Upper bound of how far any point of the moving box travels from its mid-time position
    /// (only computed for pairs that are not separated; 0 otherwise).
    pub sweep: f64,
}

impl IntervalMotion {
    /// `start` places the moving body in the fixed frame at time 0; `screw` is its
    /// displacement over `[0, 1]`.
    pub fn new(screw: &Screw, start: &Pose, t0: f64, t1: f64) -> IntervalMotion {
        let tm = 0.5 * (t0 + t1);
        let w = screw.angle();
        let phi = 0.5 * w * (t1 - t0);
        let a1 = phi.sin();
        let a2 = 2.0 * (0.5 * phi).sin().powi(2);
        let b1 = if w == 0.0 { 0.0 } else { sinc(phi) * 0.5 * (t1 - t0) * (0.5 * w).cos() / sinc(0.5 * w) };
        let b2 = b1 * (0.5 * phi).tan();
        let zm = screw.z_of_t(tm);
        let at_mid = screw.displacement_at(tm) * *start;
        let s = screw.axial();
        IntervalMotion {
            t0,
            t1,
            rotation: DMat3::from_quat(at_mid.rotation),
            translation: at_mid.translation,
            axis: screw.axis(),
            perp: screw.perp(),
            axis_cross_perp: screw.axis().cross(screw.perp()),
            a1,
            a2,
            b1,
            b2,
            dsigma: Interval::new(s * (screw.z_of_t(t0) - zm), s * (screw.z_of_t(t1) - zm)),
        }
    }

    /// Tangential amplitude `g(x) = a1 J (x − o)⊥`.
    fn tangential(&self, x: DVec3) -> DVec3 {
        self.a1 * (self.axis.cross(x) - 0.5 * self.axis_cross_perp) + self.b1 * self.perp
    }

    /// Radial amplitude `r(x) = a2 (x − o)⊥`.
    fn radial(&self, x: DVec3) -> DVec3 {
        let x_perp = x - self.axis * self.axis.dot(x);
        self.a2 * (x_perp - 0.5 * self.perp) - self.b2 * self.axis_cross_perp
    }

    /// What every bound of one box pair starts from: the moving box at mid-time and the
    /// axis' components.
    fn prepare(&self, fixed: &Obb, moving: &Obb) -> Prepared {
        let rot = &self.rotation;
        let e_c = *rot * moving.center + self.translation;
        let e = [*rot * moving.axes[0], *rot * moving.axes[1], *rot * moving.axes[2]];
        let u = self.axis;
        let mut p = Prepared { e, e_c, uf: [0.0; 3], ue: [0.0; 3], je: [DVec3::ZERO; 3], t: e_c - fixed.center };
        for k in 0..3 {
            p.uf[k] = fixed.axes[k].dot(u);
            p.ue[k] = e[k].dot(u);
            p.je[k] = u.cross(e[k]);
        }
        p
    }

    /// `C_ij(t) = f_i·e_j(t)` over the interval.
    #[inline]
    fn c_entry(&self, p: &Prepared, fixed: &Obb, i: usize, j: usize) -> Interval {
        let f = fixed.axes[i];
        let cij = f.dot(p.e[j]);
        Interval::around(cij, self.a1 * f.dot(p.je[j]).abs())
            .plus_fraction_of(-self.a2 * (cij - p.uf[i] * p.ue[j]))
            .clamp_unit()
    }

    /// `T_F,i(t) = f_i·(c_E(t) − c_F)`; `ga`, `ra` are the sweep amplitudes of `c_E`.
    #[inline]
    fn t_f_entry(&self, p: &Prepared, fixed: &Obb, (ga, ra): (DVec3, DVec3), i: usize) -> Interval {
        let f = fixed.axes[i];
        Interval::around(f.dot(p.t), f.dot(ga).abs()).plus_fraction_of(-f.dot(ra)) + p.uf[i] * self.dsigma
    }

    /// `T_E,j(t) = e_j(t)·(c_E(t) − c_F)`; `gb`, `rb` are the backward sweep of `c_F`.
    #[inline]
    fn t_e_entry(&self, p: &Prepared, (gb, rb): (DVec3, DVec3), j: usize) -> Interval {
        let e = p.e[j];
        Interval::around(e.dot(p.t), e.dot(gb).abs()).plus_fraction_of(e.dot(rb)) + p.ue[j] * self.dsigma
    }

    fn sweep_of(&self, x: DVec3) -> (DVec3, DVec3) {
        (self.tangential(x), self.radial(x))
    }

    /// Whether `fixed` (in the fixed frame) and `moving` (in the moving body's coordinates)
    /// are separated at every instant of the interval. Quantities are computed as the tests
    /// need them: most pairs in close proximity fall to one of the fixed box's face axes,
    /// which needs a single row of `C`.
    pub fn test(&self, fixed: &Obb, moving: &Obb) -> BoxTest {
        let p = self.prepare(fixed, moving);
        let sweep_a = self.sweep_of(p.e_c);
        let separated = BoxTest { separated: true, sweep: 0.0 };
        let (b, a) = (fixed.half, moving.half);
        let mut c = [[Interval::point(0.0); 3]; 3];
        let mut ca = [[0.0; 3]; 3];
        let mut t_f = [Interval::point(0.0); 3];
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] = self.c_entry(&p, fixed, i, j);
                ca[i][j] = abs_bound(c[i][j]);
            }
            t_f[i] = self.t_f_entry(&p, fixed, sweep_a, i);
            if face_axis_f_separates(&ca, t_f[i], i, b, a, 0.0) {
                return separated;
            }
        }
        let sweep_b = self.sweep_of(fixed.center);
        for j in 0..3 {
            if face_axis_e_separates(&ca, self.t_e_entry(&p, sweep_b, j), j, b, a, 0.0) {
                return separated;
            }
        }
        if cross_axes_separate(&c, &ca, &t_f, b, a, 0.0) {
            return separated;
        }
        let sweep = self.dsigma.mag() + sweep_a.0.length() + sweep_a.1.length() + (self.a1 + self.a2) * moving.radius();
        BoxTest { separated: false, sweep }
    }

    /// All the intervals at once (for tests): `C`, `T_F`, `T_E`.
    #[cfg(test)]
    fn bounds(&self, fixed: &Obb, moving: &Obb) -> ([[Interval; 3]; 3], [Interval; 3], [Interval; 3]) {
        let p = self.prepare(fixed, moving);
        let (sa, sb) = (self.sweep_of(p.e_c), self.sweep_of(fixed.center));
        let c = std::array::from_fn(|i| std::array::from_fn(|j| self.c_entry(&p, fixed, i, j)));
        let t_f = std::array::from_fn(|i| self.t_f_entry(&p, fixed, sa, i));
        let t_e = std::array::from_fn(|j| self.t_e_entry(&p, sb, j));
        (c, t_f, t_e)
    }
}

/// Per-pair quantities shared by the bounds.
struct Prepared {
    e: [DVec3; 3],
    e_c: DVec3,
    uf: [f64; 3],
    ue: [f64; 3],
    je: [DVec3; 3],
    t: DVec3,
}

#[cfg(test)]
mod tests {
    use super::super::obb::separated;
    use super::*;
    use glam::DQuat;
    use proptest::prelude::*;

    fn arb_vec(r: f64) -> impl Strategy<Value = DVec3> {
        (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn arb_rotation() -> impl Strategy<Value = DQuat> {
        (arb_vec(1.0), -1.0..1.0f64)
            .prop_filter("q", |(v, w)| v.length_squared() + w * w > 0.01)
            .prop_map(|(v, w)| DQuat::from_xyzw(v.x, v.y, v.z, w).normalize())
    }

    fn arb_box(r: f64) -> impl Strategy<Value = Obb> {
        (arb_vec(r), arb_rotation(), (0.01..1.0f64, 0.01..1.0f64, 0.0..1.0f64)).prop_map(|(c, q, h)| Obb {
            center: c,
            axes: [q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
            half: DVec3::new(h.0, h.1, h.2),
        })
    }

    fn arb_screw() -> impl Strategy<Value = Screw> {
        let angle = prop_oneof![
            Just(0.0),
            0.0..1e-6f64,
            0.0..std::f64::consts::FRAC_PI_2,
            std::f64::consts::FRAC_PI_2..crate::motion::MAX_PIECE_ANGLE
        ];
        (arb_vec(1.0).prop_filter("axis", |v| v.length() > 0.1), angle, arb_vec(4.0)).prop_map(|(axis, angle, t)| {
            Screw::from_displacement(&Pose::new(DQuat::from_axis_angle(axis.normalize(), angle), t))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Conservative: if the boxes overlap at any sampled instant of the interval, the
        /// continuous test must not call them separated.
        #[test]
        fn never_separates_overlapping_boxes(
            fixed in arb_box(2.0), moving in arb_box(1.0), screw in arb_screw(),
            start in (arb_rotation(), arb_vec(2.0)), t0 in 0.0..1.0f64, len in 0.0..1.0f64,
        ) {
            let start = Pose::new(start.0, start.1);
            let t1 = (t0 + len).min(1.0);
            let motion = IntervalMotion::new(&screw, &start, t0, t1);
            let result = motion.test(&fixed, &moving);
            let n = 64;
            for k in 0..=n {
                let t = t0 + (t1 - t0) * k as f64 / n as f64;
                let placed = moving.transformed(&(screw.displacement_at(t) * start));
                if !separated(&fixed, &placed, 0.0) {
                    prop_assert!(!result.separated, "overlap at t = {t} missed over [{t0}, {t1}]");
                    // and the sweep bound holds for the box centre
                    let mid = moving.transformed(&(screw.displacement_at(0.5 * (t0 + t1)) * start));
                    prop_assert!((placed.center - mid.center).length() <= result.sweep + 1e-9);
                    break;
                }
            }
        }

        /// Each interval holds its quantity at every sampled instant: catches an error in any
        /// term of the bounds, first or second order.
        #[test]
        fn every_quantity_stays_in_its_interval(
            fixed in arb_box(2.0), moving in arb_box(1.0), screw in arb_screw(),
            start in (arb_rotation(), arb_vec(2.0)), t0 in 0.0..1.0f64, len in 0.0..1.0f64,
        ) {
            let start = Pose::new(start.0, start.1);
            let t1 = (t0 + len).min(1.0);
            let (c, t_f, t_e) = IntervalMotion::new(&screw, &start, t0, t1).bounds(&fixed, &moving);
            let inside = |iv: Interval, x: f64| iv.lo - 1e-9 <= x && x <= iv.hi + 1e-9;
            for k in 0..=32 {
                let t = t0 + (t1 - t0) * k as f64 / 32.0;
                let placed = moving.transformed(&(screw.displacement_at(t) * start));
                let d = placed.center - fixed.center;
                for i in 0..3 {
                    prop_assert!(inside(t_f[i], fixed.axes[i].dot(d)), "T_F[{i}] at {t}");
                    prop_assert!(inside(t_e[i], placed.axes[i].dot(d)), "T_E[{i}] at {t}");
                    for j in 0..3 {
                        prop_assert!(inside(c[i][j], fixed.axes[i].dot(placed.axes[j])), "C[{i}][{j}] at {t}");
                    }
                }
            }
        }

        /// A zero-length interval is the static test at that instant.
        #[test]
        fn instant_interval_is_the_static_test(fixed in arb_box(2.0), moving in arb_box(1.0), screw in arb_screw(), t in 0.0..1.0f64) {
            let placed = moving.transformed(&screw.displacement_at(t));
            let motion = IntervalMotion::new(&screw, &Pose::IDENTITY, t, t);
            prop_assert_eq!(motion.test(&fixed, &moving).separated, separated(&fixed, &placed, 0.0));
        }
    }

    /// Not vacuous: a box passing far from another over a short interval is separated, and a
    /// straight translation is bounded along its direction only.
    #[test]
    fn separates_what_it_should() {
        let fixed = Obb { center: DVec3::ZERO, axes: [DVec3::X, DVec3::Y, DVec3::Z], half: DVec3::splat(1.0) };
        let moving = Obb { center: DVec3::ZERO, axes: [DVec3::X, DVec3::Y, DVec3::Z], half: DVec3::splat(0.5) };
        // slides along x at height 1.6 (gap 0.1): separated by the y axis all along
        let start = Pose::from_translation(DVec3::new(-10.0, 1.6, 0.0));
        let screw = Screw::from_displacement(&Pose::from_translation(DVec3::new(20.0, 0.0, 0.0)));
        assert!(IntervalMotion::new(&screw, &start, 0.0, 1.0).test(&fixed, &moving).separated);
        // the same slide with a tiny rotation about a far axis (a near-translation)
        let screw = Screw::from_displacement(&Pose::new(DQuat::from_rotation_z(1e-4), DVec3::new(20.0, 0.0, 0.0)));
        assert!(IntervalMotion::new(&screw, &start, 0.0, 1.0).test(&fixed, &moving).separated);
        // passing through: not separated
        let start = Pose::from_translation(DVec3::new(-10.0, 1.4, 0.0));
        assert!(!IntervalMotion::new(&screw, &start, 0.0, 1.0).test(&fixed, &moving).separated);
        // spinning in place next to it
        let start = Pose::from_translation(DVec3::new(3.0, 0.0, 0.0));
        let spin = Screw::from_displacement(&Pose::rotation_about(DVec3::new(3.0, 0.0, 0.0), DVec3::Z, 1.5));
        assert!(
            IntervalMotion::new(&spin, &Pose::IDENTITY, 0.0, 1.0).test(&fixed, &moving.transformed(&start)).separated
        );
    }
}
