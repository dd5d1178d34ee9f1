//! Oriented bounding boxes and the static separating-axis test
//! (docs/continuous-obb.md §1–2).

use super::interval::Interval;
use crate::Pose;
use glam::DVec3;
use std::ops::{Mul, Sub};

/// An oriented box: `center + Σ x_i axes[i]` with `|x_i| ≤ half[i]`; `axes` orthonormal.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Zeroable)]
pub struct Obb {
    pub center: DVec3,
    pub axes: [DVec3; 3],
    pub half: DVec3,
}

impl Obb {
    /// The tightest box with the given orthonormal axes around `points`, grown by `grow`.
    pub fn around(axes: [DVec3; 3], points: impl IntoIterator<Item = DVec3>, origin: DVec3, grow: f64) -> Obb {
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = DVec3::splat(f64::NEG_INFINITY);
        for p in points {
            let d = p - origin;
            let q = DVec3::new(d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2]));
            lo = lo.min(q);
            hi = hi.max(q);
        }
        let mid = 0.5 * (lo + hi);
        Obb {
            center: origin + axes[0] * mid.x + axes[1] * mid.y + axes[2] * mid.z,
            axes,
            half: 0.5 * (hi - lo) + DVec3::splat(grow),
        }
    }

    pub fn transformed(&self, pose: &Pose) -> Obb {
        Obb { center: pose.transform_point(self.center), axes: self.axes.map(|a| pose.rotation * a), half: self.half }
    }

    /// Half-diagonal: the radius of the smallest ball around the centre that holds the box.
    pub fn radius(&self) -> f64 {
        self.half.length()
    }

    pub fn contains(&self, p: DVec3, tol: f64) -> bool {
        let d = p - self.center;
        (0..3).all(|i| d.dot(self.axes[i]).abs() <= self.half[i] + tol)
    }
}

/// Orthonormal eigenvectors of a symmetric 3×3 matrix, as a right-handed frame
/// (docs/continuous-obb.md §1.1): the eigenvalues from the matrix's characteristic cubic
/// (a few Newton steps on its normalized form), the eigenvector of the one farthest from the
/// other two from cross products of the rows of `A − λI`, the next from the 2×2 problem in
/// the plane orthogonal to it. A diagonal matrix (or one whose eigenvalues are all equal)
/// gives the coordinate axes.
pub fn principal_axes(m: [[f64; 3]; 3]) -> [DVec3; 3] {
    const AXES: [DVec3; 3] = [DVec3::X, DVec3::Y, DVec3::Z];
    // Scaled to entries of at most 1, so that the cubes below neither overflow nor underflow.
    let scale = m.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return AXES;
    }
    let inverse = 1.0 / scale;
    let [a00, a01, a02, a11, a12, a22] = [m[0][0], m[0][1], m[0][2], m[1][1], m[1][2], m[2][2]].map(|x| x * inverse);
    let off = a01.abs() + a02.abs() + a12.abs();
    if off <= 1e-15 * (a00.abs() + a11.abs() + a22.abs()) {
        return AXES;
    }
    // A = q I + p B with trace(B) = 0 and |B|² = 6: B's eigenvalues β are the roots of
    // β³ − 3β − 2h = 0, h = det(B)/2 ∈ [−1, 1], and the one farthest from the other two is
    // the largest when h ≥ 0, the smallest when h < 0.
    let q = (a00 + a11 + a22) / 3.0;
    let (b00, b11, b22) = (a00 - q, a11 - q, a22 - q);
    let p = ((b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)) / 6.0).sqrt();
    if !(p > 0.0) {
        return AXES;
    }
    let det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02);
    let h = (det / (2.0 * p * p * p)).clamp(-1.0, 1.0);
    let (beta, other) = largest_root(h.abs());
    let sign = if h >= 0.0 { 1.0 } else { -1.0 };
    let separated = q + sign * p * beta;
    let middle = q + sign * p * 0.5 * (other - beta);
    let rows = [DVec3::new(a00, a01, a02), DVec3::new(a01, a11, a12), DVec3::new(a02, a12, a22)];
    let first = separated_eigenvector(&rows, separated);
    let second = eigenvector_orthogonal_to(&rows, first, middle);
    // Unit to rounding: `second` was built orthogonal to `first`.
    let third = first.cross(second);
    [first, third.cross(first), third]
}

/// The largest root β of β³ − 3β − 2h (h ∈ [0, 1], β ∈ [√3, 2]) by Newton's method, and
/// `√(12 − 3β²)`, the distance between the other two roots (docs/continuous-obb.md §1.1).
fn largest_root(h: f64) -> (f64, f64) {
    // The parabola through the roots at h = 0, 1/2, 1 (√3, 2 cos 20°, 2): within 1.1e-3 of
    // the root; then Newton's error goes 1.1e-3 → 1e-6 → 1e-12 → rounding.
    let mut beta = 1.7320508075688772 + h * (0.3213884 - 0.0534392 * h);
    for _ in 0..3 {
        beta -= (beta * (beta * beta - 3.0) - 2.0 * h) / (3.0 * (beta * beta - 1.0));
    }
    (beta, (12.0 - 3.0 * beta * beta).max(0.0).sqrt())
}

/// A unit eigenvector for a simple eigenvalue `l`: `A − lI` has rank 2, and the cross product
/// of two independent rows spans its null space. The longest of the three products is used.
fn separated_eigenvector(rows: &[DVec3; 3], l: f64) -> DVec3 {
    let r = [rows[0] - l * DVec3::X, rows[1] - l * DVec3::Y, rows[2] - l * DVec3::Z];
    let c = [r[0].cross(r[1]), r[0].cross(r[2]), r[1].cross(r[2])];
    let best = c.iter().copied().max_by(|a, b| a.length_squared().total_cmp(&b.length_squared())).unwrap_or(DVec3::X);
    best.try_normalize().unwrap_or(DVec3::X)
}

/// A unit eigenvector for `l` orthogonal to the eigenvector `v`: the null vector of the 2×2
/// matrix `M − lI` of `A` in an orthonormal basis (u, w) of `v`'s orthogonal plane, from
/// its larger row (any vector of the plane when `M − lI` vanishes: a double eigenvalue).
fn eigenvector_orthogonal_to(rows: &[DVec3; 3], v: DVec3, l: f64) -> DVec3 {
    let (u, w) = v.any_orthonormal_pair();
    let times = |x: DVec3| DVec3::new(rows[0].dot(x), rows[1].dot(x), rows[2].dot(x));
    let (au, aw) = (times(u), times(w));
    let (m00, m01, m11) = (u.dot(au) - l, u.dot(aw), w.dot(aw) - l);
    // Row (a, b) of the matrix: the null vector is (b, −a) in (u, w).
    let (a, b) = if m00.abs() >= m11.abs() { (m00, m01) } else { (m01, m11) };
    match (b * u - a * w).try_normalize() {
        Some(x) => x,
        None => u,
    }
}

/// Scalars the separating-axis test can run on: numbers (static test) or intervals
/// (continuous test).
pub trait Bound: Copy + Mul<Output = Self> + Sub<Output = Self> {
    /// Lower bound of `|x|`.
    fn mig(self) -> f64;
    /// Upper bound of `|x|`.
    fn mag(self) -> f64;
}

impl Bound for f64 {
    fn mig(self) -> f64 {
        self.abs()
    }
    fn mag(self) -> f64 {
        self.abs()
    }
}

impl Bound for Interval {
    fn mig(self) -> f64 {
        Interval::mig(self)
    }
    fn mag(self) -> f64 {
        Interval::mag(self)
    }
}

/// Slack added to every `|C_ij|`: near-parallel axes make `f_i × e_j` tiny and the cross
/// test meaningless under rounding (Gottschalk et al. add the same kind of epsilon).
const PARALLEL_SLACK: f64 = 1e-12;

/// The 15-axis test (docs/continuous-obb.md §2). `c[i][j] = f_i·e_j`, `t_f` and `t_e` the
/// centre offset `c_E − c_F` in F's and E's axes, `b` F's half-sizes, `a` E's. True when some
/// axis separates the boxes by more than `margin`.
pub fn separated_by_axes<S: Bound>(
    c: &[[S; 3]; 3],
    t_f: &[S; 3],
    t_e: &[S; 3],
    b: DVec3,
    a: DVec3,
    margin: f64,
) -> bool {
    let mut ca = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            ca[i][j] = c[i][j].mag() + PARALLEL_SLACK;
        }
    }
    (0..3).any(|i| face_axis_f_separates(&ca, t_f[i], i, b, a, margin))
        || (0..3).any(|j| face_axis_e_separates(&ca, t_e[j], j, b, a, margin))
        || cross_axes_separate(c, &ca, t_f, b, a, margin)
}

/// Upper bound of `|C_ij|` with the parallel-axes slack.
pub fn abs_bound<S: Bound>(c: S) -> f64 {
    c.mag() + PARALLEL_SLACK
}

/// Axis `f_i` (needs row `i` of `ca`).
#[inline]
pub fn face_axis_f_separates<S: Bound>(ca: &[[f64; 3]; 3], t_f: S, i: usize, b: DVec3, a: DVec3, margin: f64) -> bool {
    t_f.mig() > b[i] + a.x * ca[i][0] + a.y * ca[i][1] + a.z * ca[i][2] + margin
}

/// Axis `e_j` (needs column `j` of `ca`).
#[inline]
pub fn face_axis_e_separates<S: Bound>(ca: &[[f64; 3]; 3], t_e: S, j: usize, b: DVec3, a: DVec3, margin: f64) -> bool {
    t_e.mig() > a[j] + b.x * ca[0][j] + b.y * ca[1][j] + b.z * ca[2][j] + margin
}

/// The nine axes `f_i × e_j`.
pub fn cross_axes_separate<S: Bound>(
    c: &[[S; 3]; 3],
    ca: &[[f64; 3]; 3],
    t_f: &[S; 3],
    b: DVec3,
    a: DVec3,
    margin: f64,
) -> bool {
    const NEXT: [usize; 3] = [1, 2, 0];
    const PREV: [usize; 3] = [2, 0, 1];
    for i in 0..3 {
        let (i1, i2) = (NEXT[i], PREV[i]);
        for j in 0..3 {
            let (j1, j2) = (NEXT[j], PREV[j]);
            let lhs = (t_f[i2] * c[i1][j] - t_f[i1] * c[i2][j]).mig();
            let rhs = b[i1] * ca[i2][j] + b[i2] * ca[i1][j] + a[j1] * ca[i][j2] + a[j2] * ca[i][j1];
            // The axis is not unit: |f_i × e_j|² = C_i1j² + C_i2j² (e_j in F's basis). Its upper
            // bound scales the margin; `√(1 − C_ij²)` would round to 0 for nearly parallel
            // axes and drop the margin (only the proximity query uses one).
            let len = if margin > 0.0 { (ca[i1][j] * ca[i1][j] + ca[i2][j] * ca[i2][j]).sqrt().min(1.0) } else { 0.0 };
            if lhs > rhs + margin * len {
                return true;
            }
        }
    }
    false
}

/// Static test of two boxes in one frame: true when separated by more than `margin`.
pub fn separated(f: &Obb, e: &Obb, margin: f64) -> bool {
    let c: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| f.axes[i].dot(e.axes[j])));
    let t = e.center - f.center;
    let t_f = f.axes.map(|x| x.dot(t));
    let t_e = e.axes.map(|x| x.dot(t));
    separated_by_axes(&c, &t_f, &t_e, f.half, e.half, margin)
}

/// A lower bound of the distance between two boxes in one frame (docs/queries.md §1.2): the
/// largest gap over the 15 axes of the static test, each divided by its length (cross axes
/// shorter than 1e-6 are skipped), and the bounding spheres' gap; 0 when none is positive.
pub fn distance_lower_bound(f: &Obb, e: &Obb) -> f64 {
    const NEXT: [usize; 3] = [1, 2, 0];
    const PREV: [usize; 3] = [2, 0, 1];
    let c: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| f.axes[i].dot(e.axes[j])));
    let ca: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| c[i][j].abs() + PARALLEL_SLACK));
    let t = e.center - f.center;
    let t_f = f.axes.map(|x| x.dot(t));
    let t_e = e.axes.map(|x| x.dot(t));
    let (b, a) = (f.half, e.half);
    let mut best = t.length() - a.length() - b.length();
    for i in 0..3 {
        best = best.max(t_f[i].abs() - (b[i] + a.x * ca[i][0] + a.y * ca[i][1] + a.z * ca[i][2]));
        best = best.max(t_e[i].abs() - (a[i] + b.x * ca[0][i] + b.y * ca[1][i] + b.z * ca[2][i]));
    }
    for i in 0..3 {
        let (i1, i2) = (NEXT[i], PREV[i]);
        for j in 0..3 {
            let (j1, j2) = (NEXT[j], PREV[j]);
            // |f_i × e_j|: e_j's components across f_i, in F's basis.
            let len = (c[i1][j] * c[i1][j] + c[i2][j] * c[i2][j]).sqrt();
            if len < 1e-6 {
                continue;
            }
            let lhs = (t_f[i2] * c[i1][j] - t_f[i1] * c[i2][j]).abs();
            let rhs = b[i1] * ca[i2][j] + b[i2] * ca[i1][j] + a[j1] * ca[i][j2] + a[j2] * ca[i][j1];
            best = best.max((lhs - rhs) / len);
        }
    }
    best.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::triangles_intersect;
    use crate::mesh::MeshBuilder;
    use glam::DQuat;
    use proptest::prelude::*;

    fn arb_box() -> impl Strategy<Value = Obb> {
        (
            (-2.0..2.0f64, -2.0..2.0f64, -2.0..2.0f64),
            (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
            (0.05..1.5f64, 0.05..1.5f64, 0.0..1.5f64),
        )
            .prop_filter_map("unit quaternion", |(c, q, h)| {
                let q = DQuat::from_xyzw(q.0, q.1, q.2, q.3);
                (q.length() > 0.1).then(|| {
                    let r = q.normalize();
                    Obb {
                        center: DVec3::new(c.0, c.1, c.2),
                        axes: [r * DVec3::X, r * DVec3::Y, r * DVec3::Z],
                        half: DVec3::new(h.0, h.1, h.2),
                    }
                })
            })
    }

    fn box_triangles(b: &Obb) -> Vec<[DVec3; 3]> {
        let pose = Pose::new(DQuat::from_mat3(&glam::DMat3::from_cols(b.axes[0], b.axes[1], b.axes[2])), b.center);
        let m = MeshBuilder::new().cuboid(pose, b.half).build();
        match m {
            Ok(m) => (0..m.triangles().len() as u32).map(|t| m.triangle_points(t)).collect(),
            Err(_) => vec![], // flat box: no area
        }
    }

    fn solid_overlap(a: &Obb, b: &Obb) -> bool {
        let ta = box_triangles(a);
        let tb = box_triangles(b);
        ta.iter().any(|x| tb.iter().any(|y| triangles_intersect(x, y)))
            || a.contains(b.center, 0.0)
            || b.contains(a.center, 0.0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The 15-axis test is exact for solid boxes: compare with surfaces crossing or one
        /// box containing the other's centre.
        #[test]
        fn static_test_matches_solid_overlap(a in arb_box(), b in arb_box()) {
            prop_assume!(a.half.min_element() > 0.05 && b.half.min_element() > 0.05);
            prop_assert_eq!(!separated(&a, &b, 0.0), solid_overlap(&a, &b));
        }

        /// With a margin: "separated by more than m" means no translate of one box by a
        /// vector of length ≤ m overlaps the other. And the box grown by m per axis, being
        /// larger than the ball-inflated box, separated implies separated by m.
        #[test]
        fn margin_is_a_distance(a in arb_box(), b in arb_box(), m in 0.0..1.0f64, dirs in proptest::collection::vec((-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64), 24)) {
            prop_assume!(a.half.min_element() > 0.05 && b.half.min_element() > 0.05);
            if separated(&a, &b, m) {
                for (x, y, z) in dirs {
                    let v = DVec3::new(x, y, z);
                    let shifted = Obb { center: a.center + v.normalize_or_zero() * m, ..a };
                    prop_assert!(!solid_overlap(&shifted, &b));
                }
            }
            let grown = Obb { half: a.half + DVec3::splat(m), ..a };
            if separated(&grown, &b, 0.0) {
                prop_assert!(separated(&a, &b, m));
            }
        }
    }

    /// Distance between two solid boxes: 0 when they overlap, else the least distance between
    /// their faces' triangles.
    fn box_distance(a: &Obb, b: &Obb) -> f64 {
        if solid_overlap(a, b) {
            return 0.0;
        }
        let (ta, tb) = (box_triangles(a), box_triangles(b));
        ta.iter()
            .flat_map(|x| tb.iter().map(move |y| crate::geometry::triangle_distance(x, y).distance))
            .fold(f64::INFINITY, f64::min)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The distance lower bound never exceeds the boxes' distance, and is at least any
        /// margin the static test separates them by.
        #[test]
        fn distance_lower_bound_is_a_lower_bound(a in arb_box(), b in arb_box(), spread in 0.5..4.0f64, m in 0.0..1.0f64) {
            prop_assume!(a.half.min_element() > 0.05 && b.half.min_element() > 0.05);
            let b = Obb { center: b.center * spread, ..b };
            let lower = distance_lower_bound(&a, &b);
            let exact = box_distance(&a, &b);
            prop_assert!(lower <= exact + 1e-12, "lower {lower} exact {exact}");
            prop_assert!((lower - distance_lower_bound(&b, &a)).abs() < 1e-12);
            if separated(&a, &b, m) {
                prop_assert!(lower >= m - 1e-9, "separated by {m}, lower {lower}");
            }
        }
    }

    /// Exact face to face and edge to face, and for cubes corner to corner (by the spheres: the
    /// axes alone give `1/√3` of the distance there).
    #[test]
    fn distance_lower_bound_cases() {
        let unit =
            |c: DVec3, q: DQuat| Obb { center: c, axes: [q * DVec3::X, q * DVec3::Y, q * DVec3::Z], half: DVec3::ONE };
        let a = unit(DVec3::ZERO, DQuat::IDENTITY);
        assert!((distance_lower_bound(&a, &unit(DVec3::new(2.5, 0.3, -0.7), DQuat::IDENTITY)) - 0.5).abs() < 1e-11);
        // B turned 45° about z, its edge facing A's face 0.25 away
        let turned =
            unit(DVec3::new(1.25 + 2f64.sqrt(), 0.0, 0.0), DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4));
        assert!((distance_lower_bound(&a, &turned) - 0.25).abs() < 1e-9);
        // corner to corner, diagonally
        let corner = unit(DVec3::splat(3.0), DQuat::IDENTITY);
        let lower = distance_lower_bound(&a, &corner);
        assert!((lower - 3f64.sqrt()).abs() < 1e-9 && (box_distance(&a, &corner) - 3f64.sqrt()).abs() < 1e-9);
        // long thin boxes corner to corner: neither the axes nor the spheres are tight
        let stick = |c: DVec3| Obb { center: c, axes: [DVec3::X, DVec3::Y, DVec3::Z], half: DVec3::new(4.0, 0.1, 0.1) };
        let (s, t) = (stick(DVec3::ZERO), stick(DVec3::new(8.5, 0.5, 0.5)));
        let lower = distance_lower_bound(&s, &t);
        let spheres = 72.75f64.sqrt() - 2.0 * 16.02f64.sqrt();
        assert!((lower - spheres).abs() < 1e-9 && (box_distance(&s, &t) - 0.43f64.sqrt()).abs() < 1e-9);
        assert!(lower < 0.8 * 0.43f64.sqrt());
        assert_eq!(distance_lower_bound(&a, &unit(DVec3::new(1.0, 1.5, 0.0), DQuat::IDENTITY)), 0.0);
    }

    proptest! {
        /// Nearly parallel boxes (a turn of 1e-12 to 1e-6 rad) a gap apart along a face
        /// normal are within any margin larger than the gap: the cross axes' margin term must
        /// not round away (a plate resting on a floor lost its contacts that way).
        #[test]
        fn nearly_parallel_boxes_within_the_margin(
            a in arb_box(),
            half in (0.05..1.5f64, 0.05..1.5f64, 0.05..1.5f64),
            axis in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
            log_angle in -12.0..-6.0f64,
            k in 0usize..3,
            gap in 0.0..0.01f64,
        ) {
            // About the gap's direction, give or take: the worst case for the cross axes.
            let axis = a.axes[k] + 1e-3 * DVec3::new(axis.0, axis.1, axis.2);
            let q = DQuat::from_axis_angle(axis.normalize(), 10f64.powf(log_angle));
            let half = DVec3::new(half.0, half.1, half.2);
            let b = Obb {
                center: a.center + a.axes[k] * (a.half[k] + half[k] + gap),
                axes: a.axes.map(|x| q * x),
                half,
            };
            prop_assert!(!separated(&a, &b, gap + 1e-4));
            prop_assert!(!separated(&b, &a, gap + 1e-4));
        }
    }

    /// Every kind of covariance a tree meets: random, flat (one triangle's), with a double or
    /// a triple eigenvalue up to rounding, nearly diagonal, and at scales from 1e-30 to 1e30.
    #[test]
    fn principal_axes_are_an_orthonormal_eigenbasis() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut r = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for case in 0..20_000 {
            let rotation = DQuat::from_axis_angle(DVec3::new(r(), r(), r()).normalize(), 4.0 * r());
            let (x, y) = (r().abs(), r().abs());
            let eigen = match case % 6 {
                0 => DVec3::new(r(), r(), r()),
                1 => DVec3::new(x, y, 0.0),
                2 => DVec3::new(x, x, y),
                3 => DVec3::new(x, y, y),
                4 => DVec3::splat(x) + 1e-13 * DVec3::new(r(), r(), r()),
                _ => DVec3::new(x, y, r()),
            };
            let rotation = if case % 6 == 5 { DQuat::from_rotation_z(1e-9 * r()) } else { rotation };
            let scale = 10f64.powi((30.0 * r()) as i32);
            let m = glam::DMat3::from_quat(rotation)
                * glam::DMat3::from_diagonal(eigen * scale)
                * glam::DMat3::from_quat(rotation).transpose();
            let arr: [[f64; 3]; 3] =
                std::array::from_fn(|i| std::array::from_fn(|j| 0.5 * (m.col(j)[i] + m.col(i)[j])));
            let size = arr.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
            let axes = principal_axes(arr);
            for i in 0..3 {
                for j in 0..3 {
                    let expected = if i == j { 1.0 } else { 0.0 };
                    assert!((axes[i].dot(axes[j]) - expected).abs() < 1e-12, "case {case}: {axes:?}");
                }
            }
            assert!((axes[0].cross(axes[1]) - axes[2]).length() < 1e-12, "case {case}");
            let times = |v: DVec3| {
                DVec3::new(
                    arr[0][0] * v.x + arr[0][1] * v.y + arr[0][2] * v.z,
                    arr[1][0] * v.x + arr[1][1] * v.y + arr[1][2] * v.z,
                    arr[2][0] * v.x + arr[2][1] * v.y + arr[2][2] * v.z,
                )
            };
            for v in axes {
                let av = times(v);
                let residual = (av - av.dot(v) * v).length();
                assert!(residual <= 1e-10 * size, "case {case}: residual {residual} of {size}, eigenvalues {eigen}");
            }
        }
        // Diagonal: the coordinate axes, as a diagonal box fits best.
        assert_eq!(principal_axes([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]]), [DVec3::X, DVec3::Y, DVec3::Z]);
        assert_eq!(principal_axes([[0.0; 3]; 3]), [DVec3::X, DVec3::Y, DVec3::Z]);
    }

    #[test]
    fn principal_axes_of_a_stretched_cloud() {
        let r = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 0.9);
        let axes = principal_axes([[9.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 1.0]]);
        assert!(axes[0].cross(DVec3::X).length() < 1e-12);
        // rotated covariance R diag R^T
        let m = glam::DMat3::from_quat(r)
            * glam::DMat3::from_diagonal(DVec3::new(9.0, 4.0, 1.0))
            * glam::DMat3::from_quat(r).transpose();
        let arr: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| m.col(j)[i]));
        let axes = principal_axes(arr);
        let expected = [r * DVec3::X, r * DVec3::Y, r * DVec3::Z];
        for a in axes {
            assert!(expected.iter().any(|e| a.cross(*e).length() < 1e-9), "{a}");
        }
        assert!((axes[0].cross(axes[1]) - axes[2]).length() < 1e-12);
    }
}
