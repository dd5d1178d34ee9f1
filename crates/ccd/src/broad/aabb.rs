//! Axis-aligned boxes: a part's world box and the box it sweeps over a step
//! (docs/queries.md §2.1–2.2).

use crate::bvh::Obb;
use crate::{Collider, Mesh, Motion, Pose, Screw};
use glam::DVec3;

/// An axis-aligned box, `min ≤ max` componentwise (an empty box has `min > max`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: DVec3,
    pub max: DVec3,
}

impl Aabb {
    /// Holds nothing; the identity of [`Aabb::union`].
    pub const EMPTY: Aabb = Aabb { min: DVec3::INFINITY, max: DVec3::NEG_INFINITY };

    pub fn new(min: DVec3, max: DVec3) -> Aabb {
        Aabb { min, max }
    }

    /// The smallest box holding the points.
    pub fn around(points: impl IntoIterator<Item = DVec3>) -> Aabb {
        points.into_iter().fold(Aabb::EMPTY, |b, p| Aabb { min: b.min.min(p), max: b.max.max(p) })
    }

    /// Whether the boxes share a point (touching counts).
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Whether `other` lies inside this box (boundaries included).
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    pub fn contains_point(&self, p: DVec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: f64) -> Aabb {
        Aabb { min: self.min - DVec3::splat(margin), max: self.max + DVec3::splat(margin) }
    }

    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    pub fn translated(&self, v: DVec3) -> Aabb {
        Aabb { min: self.min + v, max: self.max + v }
    }

    /// Surface area: the tree's cost of a node (docs/queries.md §2.3).
    pub fn area(&self) -> f64 {
        let d = (self.max - self.min).max(DVec3::ZERO);
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// The world box of an oriented box placed by `pose`.
    pub fn of_obb(obb: &Obb, pose: &Pose) -> Aabb {
        let centre = pose.transform_point(obb.center);
        let axes = obb.axes.map(|a| pose.transform_vector(a).abs());
        let half = axes[0] * obb.half.x + axes[1] * obb.half.y + axes[2] * obb.half.z;
        Aabb { min: centre - half, max: centre + half }
    }

    /// A mesh's world box at `pose`: its local bounding box's eight corners, placed (tight for
    /// the identity rotation, conservative otherwise).
    pub fn of_mesh(mesh: &Mesh, pose: &Pose) -> Aabb {
        let (a, b) = mesh.bounds();
        Aabb::around((0..8).map(|k| {
            let corner = DVec3::new(
                if k & 1 == 0 { a.x } else { b.x },
                if k & 2 == 0 { a.y } else { b.y },
                if k & 4 == 0 { a.z } else { b.z },
            );
            pose.transform_point(corner)
        }))
    }

    /// A collider's world box at `pose`: the box of its posed OBB-tree root (tight for that
    /// box, conservative for the mesh).
    pub fn of_collider(collider: &Collider, pose: &Pose) -> Aabb {
        Aabb::of_obb(&collider.tree().root().obb, pose)
    }

    /// A box holding the collider at every time of `motion`, along Redon's screw (every piece
    /// of a split path) and along the constant-velocity screw of the whole step
    /// (docs/queries.md §2.2). Non-finite poses give a non-finite box.
    pub fn swept(collider: &Collider, motion: &Motion) -> Aabb {
        let root = &collider.tree().root().obb;
        let (from, to) = (motion.from.normalized(), motion.to.normalized());
        let whole = Screw::from_displacement(&(to * from.inverse()));
        let mut swept = screw_box(root, &whole, &from, &to, Slide::Constant);
        let path = motion.path();
        let piece = path.piece_screw();
        for k in 0..path.piece_count() {
            let start = path.piece_start(k);
            swept = swept.union(&screw_box(root, piece, &start, &(piece.displacement_at(1.0) * start), Slide::Redon));
        }
        swept
    }
}

/// How the body slides along the screw's axis.
#[derive(Clone, Copy, PartialEq)]
enum Slide {
    /// `s t`: the constant-velocity screw.
    Constant,
    /// `s tan(θt/2)/tan(θ/2)`: Redon's.
    Redon,
}

/// The box of docs/queries.md §2.2 for one screw `screw` (world displacement) taking the
/// body from `start` to `end`.
fn screw_box(root: &Obb, screw: &Screw, start: &Pose, end: &Pose, slide: Slide) -> Aabb {
    let ends = Aabb::of_obb(root, start).union(&Aabb::of_obb(root, end));
    let theta = screw.angle();
    if theta == 0.0 {
        return ends;
    }
    let u = screw.axis();
    let perp = screw.perp();
    let c = start.transform_point(root.center);
    let c_perp = c - u * u.dot(c);
    // θ²/(2T)·|t⊥|: the axis point's distance, times θ², stays finite as θ → 0 (T = ∞ at θ = π).
    let t = screw.tan_half();
    let far = if t.is_finite() { theta * theta / (2.0 * t) * perp.length() } else { 0.0 };
    let turn = (theta * theta * ((c_perp - 0.5 * perp).length() + root.radius()) + far) / 8.0;
    let lag = if slide == Slide::Redon { screw.axial().abs() * slide_lag(theta) } else { 0.0 };
    ends.expanded(turn + lag)
}

/// `max over t ∈ [0, 1] of t − tan(θt/2)/tan(θ/2)`: how far Redon's slide falls behind the
/// constant-velocity one, as a fraction of the slide (docs/queries.md §2.2).
fn slide_lag(theta: f64) -> f64 {
    if theta < 0.01 {
        return 0.033 * theta * theta;
    }
    let tan_half = (0.5 * theta).tan();
    if !tan_half.is_finite() || tan_half <= 0.0 {
        return 1.0;
    }
    let t = (2.0 / theta) * (theta / (2.0 * tan_half)).sqrt().min(1.0).acos();
    // A hair above the exact value, for the rounding of acos and tan.
    (t - (0.5 * theta * t).tan() / tan_half) * (1.0 + 1e-9) + 1e-15
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MeshBuilder;
    use glam::DQuat;
    use proptest::prelude::*;
    use std::f64::consts::PI;

    fn arb_vec(r: f64) -> impl Strategy<Value = DVec3> {
        (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
    }

    fn arb_rotation() -> impl Strategy<Value = DQuat> {
        (arb_vec(1.0), -1.0..1.0f64)
            .prop_filter("non-zero", |(v, w)| v.length_squared() + w * w > 0.01)
            .prop_map(|(v, w)| DQuat::from_xyzw(v.x, v.y, v.z, w).normalize())
    }

    fn arb_pose(r: f64) -> impl Strategy<Value = Pose> {
        (arb_rotation(), arb_vec(r)).prop_map(|(q, t)| Pose::new(q, t))
    }

    /// A long thin part off its own origin, so that turns swing it wide.
    fn part() -> Collider {
        let pose = Pose::new(DQuat::from_rotation_y(0.4), DVec3::new(1.5, -0.5, 0.3));
        Collider::new(MeshBuilder::new().cuboid(pose, DVec3::new(1.0, 0.2, 0.05)).build().unwrap())
    }

    /// Steps of every kind: anywhere (large turns, split paths), small drags, pure
    /// translations, pure turns about a far or a near axis.
    fn arb_motion() -> impl Strategy<Value = Motion> {
        prop_oneof![
            (arb_pose(3.0), arb_pose(3.0)).prop_map(|(a, b)| Motion::new(a, b)),
            (arb_pose(3.0), arb_rotation(), arb_vec(0.3))
                .prop_map(|(a, q, t)| Motion::new(a, Pose::new(DQuat::IDENTITY.slerp(q, 0.05), t) * a)),
            (arb_pose(3.0), arb_vec(3.0)).prop_map(|(a, t)| Motion::new(a, Pose::from_translation(t) * a)),
            (arb_pose(3.0), arb_vec(1.0), arb_vec(20.0), -PI..PI).prop_filter_map(
                "axis",
                |(a, axis, through, angle)| {
                    (axis.length() > 0.1).then(|| Motion::new(a, Pose::rotation_about(through, axis, angle) * a))
                }
            ),
            // screws with a long slide along their axis, where Redon's slide lags the turn
            (arb_pose(3.0), arb_vec(1.0), 0.5..3.0f64, 2.0..20.0f64, arb_vec(3.0)).prop_filter_map(
                "axis",
                |(a, axis, angle, slide, through)| {
                    (axis.length() > 0.1).then(|| {
                        let u = axis.normalize();
                        let turn = Pose::rotation_about(through, u, angle);
                        Motion::new(a, Pose::from_translation(slide * u) * turn * a)
                    })
                }
            ),
            (arb_pose(3.0), arb_vec(1.0), 3.0..PI, arb_vec(2.0)).prop_filter_map("axis", |(a, axis, angle, t)| {
                (axis.length() > 0.1)
                    .then(|| Motion::new(a, Pose::new(DQuat::from_axis_angle(axis.normalize(), angle), t) * a))
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every vertex, at sampled times along Redon's path and along the constant-velocity
        /// screw, lies inside the swept box.
        #[test]
        fn swept_box_holds_the_body_along_both_screws(motion in arb_motion()) {
            let c = part();
            let swept = Aabb::swept(&c, &motion);
            let helix = Screw::from_displacement(&(motion.to.normalized() * motion.from.normalized().inverse()));
            let path = motion.path();
            let tol = 1e-9 * (1.0 + swept.min.abs().max_element().max(swept.max.abs().max_element()));
            for k in 0..=128 {
                let t = k as f64 / 128.0;
                for pose in [path.pose_at(t), helix.helix_at(t) * motion.from.normalized()] {
                    for &v in c.mesh().vertices() {
                        let p = pose.transform_point(v);
                        prop_assert!(swept.expanded(tol).contains_point(p), "t = {t}: {p} outside {swept:?}");
                    }
                }
            }
        }
    }

    /// The lag's closed form against sampling, and the small-angle bound above it.
    #[test]
    fn slide_lag_is_the_largest_lag() {
        for theta in [1e-4, 0.009, 0.011, 0.1, 0.5, 1.0, 2.0, 3.0, crate::motion::MAX_PIECE_ANGLE] {
            let tan_half = (0.5 * theta).tan();
            let sampled = (0..=100_000)
                .map(|k| k as f64 / 100_000.0)
                .map(|t| t - (0.5 * theta * t).tan() / tan_half)
                .fold(0.0, f64::max);
            let lag = slide_lag(theta);
            assert!(lag >= sampled && lag <= sampled * 1.03 + 1e-15, "θ = {theta}: {lag} vs {sampled}");
        }
    }

    /// Tight where it can be: a translation sweeps exactly the hull of the end boxes, and a
    /// small turn adds little.
    #[test]
    fn swept_box_is_tight_for_translations_and_small_turns() {
        let c = part();
        let from = Pose::new(DQuat::from_rotation_z(0.3), DVec3::new(1.0, 2.0, 3.0));
        let to = Pose::from_translation(DVec3::new(0.5, -2.0, 1.0)) * from;
        let (b0, b1) = (Aabb::of_collider(&c, &from), Aabb::of_collider(&c, &to));
        let swept = Aabb::swept(&c, &Motion::new(from, to));
        assert!((swept.min - b0.union(&b1).min).abs().max_element() < 1e-12);
        assert!((swept.max - b0.union(&b1).max).abs().max_element() < 1e-12);
        // 5° about the part's own centre: the bulge is below 1 % of its size
        let centre = from.transform_point(c.tree().root().obb.center);
        let turn = Pose::rotation_about(centre, DVec3::new(0.2, 0.3, 1.0), 5f64.to_radians()) * from;
        let swept = Aabb::swept(&c, &Motion::new(from, turn));
        let ends = b0.union(&Aabb::of_collider(&c, &turn));
        let radius = c.tree().root().obb.radius();
        assert!(swept.contains(&ends));
        assert!((swept.max - ends.max).max_element() < 0.01 * radius, "{swept:?} vs {ends:?}");
    }

    #[test]
    fn box_operations() {
        let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
        let b = Aabb::new(DVec3::splat(1.0), DVec3::splat(2.0));
        assert!(a.overlaps(&b) && b.overlaps(&a)); // touching
        assert!(!a.overlaps(&b.translated(DVec3::X * 1e-9)));
        assert!(a.expanded(0.5).contains(&Aabb::new(DVec3::splat(-0.5), DVec3::splat(1.5))));
        assert_eq!(a.union(&b), Aabb::new(DVec3::ZERO, DVec3::splat(2.0)));
        assert_eq!(Aabb::EMPTY.union(&a), a);
        assert!(!Aabb::EMPTY.overlaps(&a));
        assert_eq!(a.area(), 6.0);
        assert_eq!(Aabb::around([DVec3::X, -DVec3::Y, DVec3::Z]), Aabb::new(-DVec3::Y, DVec3::ONE - DVec3::Y));
        // the box of a posed cube turned 45° about z
        let cube = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(1.0)).build().unwrap());
        let b = Aabb::of_collider(&cube, &Pose::from_rotation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4)));
        let r = 2f64.sqrt();
        assert!((b.max - DVec3::new(r, r, 1.0)).abs().max_element() < 1e-6, "{b:?}");
    }
}
