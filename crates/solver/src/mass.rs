//! Mass properties at density 1 (docs/solver.md §1).

use glam::{DMat3, DVec3};
use mockup_ccd::Mesh;
use mockup_ccd::bvh::{ObbTree, encloses_volume};

/// Mass, centre of mass and inertia about it, in the body's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    pub mass: f64,
    pub center: DVec3,
    /// About `center`, body axes.
    pub inertia: DMat3,
    /// Whether these come from the closed mesh (true) or its bounding box (false).
    pub from_solid: bool,
}

impl MassProperties {
    /// From the closed mesh when it is a solid, otherwise from the tree's root box.
    pub fn of(mesh: &Mesh, tree: &ObbTree) -> MassProperties {
        if encloses_volume(mesh)
            && let Some(m) = MassProperties::of_solid(mesh)
        {
            return m;
        }
        let obb = tree.root().obb;
        let largest = obb.half.max_element().max(f64::MIN_POSITIVE);
        let half = obb.half.max(DVec3::splat(1e-3 * largest));
        let mut m = MassProperties::of_box(half);
        let axes = DMat3::from_cols(obb.axes[0], obb.axes[1], obb.axes[2]);
        m.inertia = axes * m.inertia * axes.transpose();
        m.center = obb.center;
        m
    }

    /// A solid box of half-extents `half`, centred at the origin, axis-aligned.
    pub fn of_box(half: DVec3) -> MassProperties {
        let mass = 8.0 * half.x * half.y * half.z;
        let s = half * half;
        let inertia = DMat3::from_diagonal(DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (mass / 3.0));
        MassProperties { mass, center: DVec3::ZERO, inertia, from_solid: false }
    }

    /// Divergence theorem over the tetrahedra (reference, a, b, c); `None` when the signed
    /// volume is not positive.
    pub fn of_solid(mesh: &Mesh) -> Option<MassProperties> {
        let (lo, hi) = mesh.bounds();
        let reference = 0.5 * (lo + hi);
        let mut volume = 0.0;
        let mut first = DVec3::ZERO;
        // ∫ x xᵀ dV about the reference point.
        let mut second = DMat3::ZERO;
        for t in 0..mesh.triangles().len() as u32 {
            let [a, b, c] = mesh.triangle_points(t).map(|p| p - reference);
            let v = a.dot(b.cross(c)) / 6.0;
            let s = a + b + c;
            volume += v;
            first += v * s / 4.0;
            let outer = |p: DVec3| DMat3::from_cols(p * p.x, p * p.y, p * p.z);
            second += (outer(a) + outer(b) + outer(c) + outer(s)) * (v / 20.0);
        }
        if !(volume > 0.0) {
            return None;
        }
        let center = first / volume;
        let about_center = second - DMat3::from_cols(center * center.x, center * center.y, center * center.z) * volume;
        let trace = about_center.x_axis.x + about_center.y_axis.y + about_center.z_axis.z;
        let inertia = DMat3::from_diagonal(DVec3::splat(trace)) - about_center;
        Some(MassProperties { mass: volume, center: center + reference, inertia, from_solid: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;
    use mockup_ccd::{MeshBuilder, Pose};

    fn close(a: DMat3, b: DMat3, tol: f64) -> bool {
        (0..3).all(|c| (a.col(c) - b.col(c)).length() <= tol)
    }

    #[test]
    fn a_closed_box_has_the_analytic_mass_properties() {
        let half = DVec3::new(1.0, 0.5, 0.25);
        let pose = Pose::new(DQuat::from_rotation_z(0.7), DVec3::new(3.0, -1.0, 2.0));
        let mesh = MeshBuilder::new().cuboid(pose, half).build().unwrap();
        let m = MassProperties::of_solid(&mesh).unwrap();
        let expected = MassProperties::of_box(half);
        assert!((m.mass - expected.mass).abs() < 1e-12);
        assert!((m.center - pose.translation).length() < 1e-12);
        let r = glam::DMat3::from_quat(pose.rotation);
        assert!(close(m.inertia, r * expected.inertia * r.transpose(), 1e-12), "{:?}", m.inertia);
    }

    #[test]
    fn a_sphere_approaches_the_analytic_inertia() {
        let mesh = MeshBuilder::new().sphere(Pose::default(), 2.0, 64, 128).build().unwrap();
        let m = MassProperties::of_solid(&mesh).unwrap();
        let volume = 4.0 / 3.0 * std::f64::consts::PI * 8.0;
        assert!((m.mass / volume - 1.0).abs() < 2e-3);
        let i = 0.4 * m.mass * 4.0;
        for c in 0..3 {
            assert!((m.inertia.col(c)[c] / i - 1.0).abs() < 3e-3);
        }
        assert!(m.center.length() < 1e-9);
    }

    #[test]
    fn an_open_mesh_falls_back_to_its_box() {
        let mesh = MeshBuilder::new().grid(Pose::default(), 2.0, 4.0, 4, 4).build().unwrap();
        let tree = ObbTree::build(&mesh, 1);
        let m = MassProperties::of(&mesh, &tree);
        assert!(!m.from_solid);
        assert!(m.mass > 0.0);
        // Positive definite even though the grid is flat.
        let e = [m.inertia.x_axis.x, m.inertia.y_axis.y, m.inertia.z_axis.z];
        assert!(e.iter().all(|&x| x > 0.0));
        assert!(m.inertia.determinant() > 0.0);
    }
}
