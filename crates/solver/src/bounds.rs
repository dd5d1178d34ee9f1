//! World boxes of bodies, at a pose and swept over a screw: which pairs a step must look at.

use glam::DVec3;
use mockup_ccd::{Collider, Pose, Screw};

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: DVec3,
    pub max: DVec3,
}

impl Aabb {
    /// The world box of the collider's root OBB at `pose`: it holds the mesh.
    pub fn of(collider: &Collider, pose: &Pose) -> Aabb {
        let obb = collider.tree().root().obb;
        let center = pose.transform_point(obb.center);
        let mut half = DVec3::ZERO;
        for k in 0..3 {
            half += (pose.transform_vector(obb.axes[k]) * obb.half[k]).abs();
        }
        Aabb { min: center - half, max: center + half }
    }

    pub fn expanded(&self, margin: f64) -> Aabb {
        Aabb { min: self.min - DVec3::splat(margin), max: self.max + DVec3::splat(margin) }
    }

    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb { min: self.min.min(o.min), max: self.max.max(o.max) }
    }

    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.cmple(o.max).all() && o.min.cmple(self.max).all()
    }

    /// A box holding the body at every time of a motion from `from` to `to` along Redon's
    /// screw or the constant-velocity one (both turn about the same axis by the same angle θ,
    /// and move along it monotonically by the same total `s`). A point at distance ρ from the
    /// axis stays within `ρθ²/4 + |s|` of its chord (the arc's in-plane deviation from
    /// its chord is at most `ρθ²/8` per coordinate, the axial one at most `|s|`), so the
    /// union of the end boxes grown by that holds it; `sphere` is a ball around the mesh in
    /// the body's frame.
    pub fn swept(collider: &Collider, from: &Pose, to: &Pose, sphere: (DVec3, f64)) -> Aabb {
        let ends = Aabb::of(collider, from).union(&Aabb::of(collider, to));
        let screw = Screw::from_displacement(&(*to * from.inverse()));
        let theta = screw.angle();
        if theta == 0.0 {
            return ends;
        }
        let center = from.transform_point(sphere.0);
        let rho = match screw.axis_point() {
            Some(o) => (center - o).reject_from_normalized(screw.axis()).length() + sphere.1,
            // A turn so small that its axis is not formed: D_t(x) − chord ≤ 2θ|x| + |s|.
            None => return ends.expanded(screw.axial().abs() + 2.0 * theta * (center.length() + sphere.1)),
        };
        ends.expanded(rho * theta * theta / 4.0 + screw.axial().abs())
    }
}
