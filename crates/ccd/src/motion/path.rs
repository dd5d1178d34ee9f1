//! The in-between motion of one step: Redon's screw, split when it rotates too much
//! (docs/motion.md §8).

use super::{Pose, Screw};

/// Largest rotation followed as a single Redon screw. Larger steps are split.
pub const MAX_PIECE_ANGLE: f64 = 0.98 * std::f64::consts::PI;

/// The path a body (or one body relative to another) follows from `start` to `end`.
///
/// With a rotation up to [`MAX_PIECE_ANGLE`] this is exactly Redon's motion. Beyond it, the
/// step is cut into `n` equal pieces through the constant-speed screw's intermediate poses,
/// and each piece is Redon's motion between its ends. All pieces share one displacement
/// (`piece`).
#[derive(Clone, Copy, Debug)]
pub struct ScrewPath {
    start: Pose,
    end: Pose,
    whole: Screw,
    piece: Screw,
    pieces: u32,
}

impl ScrewPath {
    pub fn new(start: Pose, end: Pose) -> ScrewPath {
        let start = start.normalized();
        let end = end.normalized();
        let whole = Screw::from_displacement(&(end * start.inverse()));
        let pieces = (whole.angle() / MAX_PIECE_ANGLE).ceil().max(1.0) as u32;
        let piece = if pieces == 1 {
            whole
        } else {
            let frac = 1.0 / pieces as f64;
            let first = whole.helix_at(frac);
            Screw::from_parts(
                whole.axis(),
                whole.angle() * frac,
                whole.axial() * frac,
                first.translation - whole.axial() * frac * whole.axis(),
            )
        };
        ScrewPath { start, end, whole, piece, pieces }
    }

    /// A body that does not move.
    pub fn stationary(pose: Pose) -> ScrewPath {
        ScrewPath::new(pose, pose)
    }

    pub fn start(&self) -> Pose {
        self.start
    }
    pub fn end(&self) -> Pose {
        self.end
    }
    /// The displacement shared by every piece.
    pub fn piece_screw(&self) -> &Screw {
        &self.piece
    }
    pub fn piece_count(&self) -> u32 {
        self.pieces
    }

    /// Pose at the beginning of piece `k` (`k = piece_count()` gives the end pose).
    pub fn piece_start(&self, k: u32) -> Pose {
        if k == 0 {
            self.start
        } else if k >= self.pieces {
            self.end
        } else {
            self.whole.helix_at(k as f64 / self.pieces as f64) * self.start
        }
    }

    /// Global time of local time `local ∈ [0, 1]` within piece `k`.
    pub fn global_time(&self, k: u32, local: f64) -> f64 {
        ((k as f64 + local) / self.pieces as f64).min(1.0)
    }

    /// The piece containing global time `t`, and the local time within it.
    pub fn locate(&self, t: f64) -> (u32, f64) {
        let scaled = t.clamp(0.0, 1.0) * self.pieces as f64;
        let k = (scaled.floor() as u32).min(self.pieces - 1);
        (k, scaled - k as f64)
    }

    /// The pose at time `t ∈ [0, 1]`: what the solver uses to place the body, so that placement
    /// follows the path the collision detection checked.
    pub fn pose_at(&self, t: f64) -> Pose {
        if t <= 0.0 {
            return self.start;
        }
        if t >= 1.0 {
            return self.end;
        }
        let (k, local) = self.locate(t);
        self.piece.displacement_at(local) * self.piece_start(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    fn path_with_angle(angle: f64) -> ScrewPath {
        let start =
            Pose::new(DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.4), DVec3::new(1.0, 2.0, 3.0));
        let d = Pose::new(
            DQuat::from_axis_angle(DVec3::new(0.2, -1.0, 0.5).normalize(), angle),
            DVec3::new(0.5, -2.0, 1.5),
        );
        ScrewPath::new(start, d * start)
    }

    #[test]
    fn small_rotation_is_one_redon_screw() {
        let path = path_with_angle(1.0);
        assert_eq!(path.piece_count(), 1);
        let d = path.end() * path.start().inverse();
        let s = Screw::from_displacement(&d);
        for t in [0.0, 0.2, 0.7, 1.0] {
            let expected = s.displacement_at(t) * path.start();
            assert!(path.pose_at(t).distance_within(&expected, 3.0) < 1e-12);
        }
    }

    #[test]
    fn rotations_up_to_the_bound_are_one_redon_screw() {
        for angle in [2.0, 3.0, MAX_PIECE_ANGLE] {
            let path = path_with_angle(angle);
            assert_eq!(path.piece_count(), 1, "angle {angle}");
            let s = Screw::from_displacement(&(path.end() * path.start().inverse()));
            for t in [0.0, 0.3, 0.9, 0.999, 1.0] {
                let expected = s.displacement_at(t) * path.start();
                assert!(path.pose_at(t).distance_within(&expected, 3.0) < 1e-12, "angle {angle}, t {t}");
            }
        }
    }

    #[test]
    fn large_rotations_are_split_and_continuous() {
        for angle in [MAX_PIECE_ANGLE + 1e-9, 0.99 * std::f64::consts::PI, std::f64::consts::PI] {
            let path = path_with_angle(angle);
            assert!(path.piece_count() >= 2, "angle {angle}");
            assert!(path.piece_screw().angle() <= MAX_PIECE_ANGLE + 1e-12);
            assert!(path.piece_screw().tan_half().is_finite());
            // the last piece really ends at the end pose
            let last = path.piece_count() - 1;
            let reached = path.piece_screw().displacement_at(1.0) * path.piece_start(last);
            assert!(reached.distance_within(&path.end(), 3.0) < 1e-10, "angle {angle}");
            // continuity: dense sampling never jumps
            let n = 4000;
            let mut prev = path.pose_at(0.0);
            for i in 1..=n {
                let p = path.pose_at(i as f64 / n as f64);
                assert!(p.distance_within(&prev, 3.0) < 0.02, "jump at {i} for angle {angle}");
                prev = p;
            }
        }
    }

    #[test]
    fn locate_and_global_time_are_inverse() {
        let path = path_with_angle(std::f64::consts::PI);
        assert!(path.piece_count() >= 2);
        for t in [0.0, 0.1, 0.5, 0.51, 0.99] {
            let (k, local) = path.locate(t);
            assert!((path.global_time(k, local) - t).abs() < 1e-15);
        }
    }
}
