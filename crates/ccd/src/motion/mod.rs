//! Poses, Redon's screw in-between motion and relative motion (docs/motion.md).

mod path;
mod pose;
mod screw;

pub use path::{MAX_PIECE_ANGLE, ScrewPath};
pub use pose::Pose;
pub use screw::Screw;

/// What a body does over one step: it goes from `from` to `to` along Redon's screw.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Motion {
    pub from: Pose,
    pub to: Pose,
}

impl Motion {
    pub fn new(from: Pose, to: Pose) -> Motion {
        Motion { from, to }
    }

    pub fn stationary(pose: Pose) -> Motion {
        Motion::new(pose, pose)
    }

    pub fn path(&self) -> ScrewPath {
        ScrewPath::new(self.from, self.to)
    }

    pub fn pose_at(&self, t: f64) -> Pose {
        self.path().pose_at(t)
    }
}

/// The motion of body A seen from body B, which queries work in (docs/motion.md §9).
#[derive(Clone, Copy, Debug)]
pub struct RelativeMotion {
    /// A's pose in B's frame, from `B0⁻¹ A0` to `B1⁻¹ A1`.
    pub relative: ScrewPath,
    /// B's own path in the world.
    pub b: ScrewPath,
}

impl RelativeMotion {
    pub fn new(a: &Motion, b: &Motion) -> RelativeMotion {
        RelativeMotion { relative: ScrewPath::new(b.from.inverse() * a.from, b.to.inverse() * a.to), b: b.path() }
    }

    /// B's world pose at `t`.
    pub fn pose_b_at(&self, t: f64) -> Pose {
        self.b.pose_at(t)
    }

    /// A's world pose at `t`, consistent with what the queries checked: B's pose composed with
    /// the relative path. Equals A's own screw when B does not move.
    pub fn pose_a_at(&self, t: f64) -> Pose {
        self.b.pose_at(t) * self.relative.pose_at(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    #[test]
    fn relative_motion_with_b_at_rest_is_a_own_screw() {
        let b =
            Pose::new(DQuat::from_axis_angle(DVec3::new(1.0, 0.3, -0.2).normalize(), 0.8), DVec3::new(-3.0, 1.0, 2.0));
        let a = Motion::new(
            Pose::new(DQuat::from_rotation_y(0.3), DVec3::new(1.0, 2.0, 3.0)),
            Pose::new(DQuat::from_axis_angle(DVec3::new(0.0, 1.0, 1.0).normalize(), 1.2), DVec3::new(-1.0, 0.5, 2.0)),
        );
        let rel = RelativeMotion::new(&a, &Motion::stationary(b));
        for t in [0.0, 0.3, 0.77, 1.0] {
            assert!(rel.pose_a_at(t).distance_within(&a.pose_at(t), 5.0) < 1e-12, "t = {t}");
        }
    }

    #[test]
    fn relative_motion_with_both_moving_meets_end_poses() {
        let a = Motion::new(
            Pose::from_translation(DVec3::X),
            Pose::new(DQuat::from_rotation_z(0.4), DVec3::new(2.0, 1.0, 0.0)),
        );
        let b = Motion::new(Pose::IDENTITY, Pose::new(DQuat::from_rotation_x(-0.3), DVec3::new(0.0, 0.5, 0.0)));
        let rel = RelativeMotion::new(&a, &b);
        assert!(rel.pose_a_at(0.0).distance_within(&a.from, 3.0) < 1e-12);
        assert!(rel.pose_a_at(1.0).distance_within(&a.to, 3.0) < 1e-12);
        // In between it differs from A's own screw only at second order (motion.md §9).
        let gap = rel.pose_a_at(0.5).distance_within(&a.pose_at(0.5), 1.0);
        assert!(gap < 0.4 * 0.3, "gap {gap}");
    }
}
