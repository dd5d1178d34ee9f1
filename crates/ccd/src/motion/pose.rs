use glam::{DQuat, DVec3};
use std::ops::Mul;

/// A rigid placement: body coordinates `p` go to `rotation * p + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Unit quaternion.
    pub rotation: DQuat,
    pub translation: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    pub const IDENTITY: Pose = Pose { rotation: DQuat::IDENTITY, translation: DVec3::ZERO };

    pub fn new(rotation: DQuat, translation: DVec3) -> Self {
        Self { rotation, translation }
    }

    pub fn from_translation(translation: DVec3) -> Self {
        Self::new(DQuat::IDENTITY, translation)
    }

    pub fn from_rotation(rotation: DQuat) -> Self {
        Self::new(rotation, DVec3::ZERO)
    }

    /// A rotation by `angle` about the line through `point` with direction `axis`.
    pub fn rotation_about(point: DVec3, axis: DVec3, angle: f64) -> Self {
        let q = DQuat::from_axis_angle(axis.normalize(), angle);
        Self::new(q, point - q * point)
    }

    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation * p + self.translation
    }

    pub fn transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation * v
    }

    pub fn inverse(&self) -> Pose {
        let r = self.rotation.conjugate();
        Pose::new(r, -(r * self.translation))
    }

    /// Same pose with the quaternion renormalized, so that composing many poses does not drift.
    pub fn normalized(&self) -> Pose {
        Pose::new(self.rotation.normalize(), self.translation)
    }

    pub fn is_finite(&self) -> bool {
        self.rotation.is_finite() && self.translation.is_finite()
    }

    /// Largest distance between where the two poses put a point within `radius` of the body
    /// origin: a cheap pose comparison for tests and tolerances.
    pub fn distance_within(&self, other: &Pose, radius: f64) -> f64 {
        let dq = (self.rotation * other.rotation.conjugate()).normalize();
        let angle = 2.0 * dq.xyz().length().atan2(dq.w.abs());
        (self.translation - other.translation).length() + angle * radius
    }
}

impl Mul for Pose {
    type Output = Pose;
    /// `(a * b)(p) = a(b(p))`.
    fn mul(self, rhs: Pose) -> Pose {
        Pose::new(self.rotation * rhs.rotation, self.rotation * rhs.translation + self.translation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_and_inverse() {
        let a =
            Pose::new(DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7), DVec3::new(1.0, -2.0, 0.5));
        let b = Pose::new(DQuat::from_axis_angle(DVec3::Y, -1.1), DVec3::new(0.3, 0.0, 4.0));
        let p = DVec3::new(0.2, 0.9, -1.4);
        assert!(((a * b).transform_point(p) - a.transform_point(b.transform_point(p))).length() < 1e-14);
        assert!(((a * a.inverse()).transform_point(p) - p).length() < 1e-14);
        assert!((a.inverse().transform_point(a.transform_point(p)) - p).length() < 1e-14);
    }

    #[test]
    fn rotation_about_fixes_its_axis() {
        let point = DVec3::new(1.0, 2.0, 3.0);
        let axis = DVec3::new(0.0, 1.0, 1.0);
        let pose = Pose::rotation_about(point, axis, 1.3);
        let on_axis = point + 2.5 * axis;
        assert!((pose.transform_point(on_axis) - on_axis).length() < 1e-14);
        assert!((pose.transform_point(DVec3::ZERO) - DVec3::ZERO).length() > 0.1);
    }
}
