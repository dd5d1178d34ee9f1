//! Static interpenetration test: does any triangle of A meet a triangle of B?

use super::traversal::near_leaf_pairs;
use super::{Counted, Counters};
use crate::geometry::triangles_intersect;
use crate::{Collider, Pose};
use std::ops::ControlFlow;

/// Whether A at `pose_a` and B at `pose_b` share a point (touching counts). This is how every
/// "no interpenetration" claim is checked.
pub fn intersects(a: &Collider, pose_a: &Pose, b: &Collider, pose_b: &Pose) -> Counted<bool> {
    let to_b = pose_b.inverse() * *pose_a;
    let mut counters = Counters::default();
    let mut hit = false;
    near_leaf_pairs(a, &to_b, b, 0.0, &mut counters, |leaf_a, leaf_b, counters| {
        for &ta in leaf_a {
            let tri_a = a.mesh().triangle_points(ta).map(|p| to_b.transform_point(p));
            for &tb in leaf_b {
                counters.triangle_tests += 1;
                if triangles_intersect(&tri_a, &b.mesh().triangle_points(tb)) {
                    hit = true;
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    Counted { value: hit, counters }
}
