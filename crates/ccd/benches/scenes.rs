//! The benchmark scenes of docs/benchmarks.md, shared by the benchmark targets.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use mockup_ccd::{Collider, Mesh, MeshBuilder, Motion, Pose};

/// A fixed body, a moving body, and the sequence of steps the moving body takes.
pub struct Scene {
    pub fixed: Mesh,
    pub moving: Mesh,
    pub steps: Vec<Motion>,
}

/// Poses along a path, as consecutive steps.
fn steps(poses: impl IntoIterator<Item = Pose>) -> Vec<Motion> {
    let poses: Vec<Pose> = poses.into_iter().collect();
    poses.windows(2).map(|w| Motion::new(w[0], w[1])).collect()
}

/// (a) Two interlocked tori of 20,000 triangles each (major radius 2, minor 0.95: the tubes
/// pass 0.1 apart, 5 % of the tube's diameter). The moving one spins about its own axis, so
/// its tube slides through the other's hole: 2° per step, 60 steps.
pub fn tori() -> Scene {
    let fixed = MeshBuilder::new().torus(Pose::IDENTITY, 2.0, 0.95, 200, 50).build().unwrap();
    let moving = fixed.clone();
    let place = |angle: f64| {
        // in the xz plane, centred on (2, 0, 0), spun about its own axis (world y)
        Pose::new(
            DQuat::from_rotation_y(angle) * DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            DVec3::new(2.0, 0.0, 0.0),
        )
    };
    Scene { fixed, moving, steps: steps((0..=60).map(|i| place((2.0 * i as f64).to_radians()))) }
}

/// (b) A part in close proximity, where boxes overlap at every level: a peg of 10,000
/// triangles (radius 0.25, length 1) slides and turns inside the bore of a 99,200-triangle
/// block (bore radius 0.26, 400 facets, so the faceted radial clearance is 0.0100 all
/// around: 1 % of the peg's length). Each step moves it 0.02 along the bore and turns it 0.5°
/// about the axis; 100 steps, no contact.
pub fn peg() -> Scene {
    let fixed = MeshBuilder::new().tube(Pose::IDENTITY, 0.26, 0.6, 4.0, 400, 61).build().unwrap();
    let moving = MeshBuilder::new().cylinder(Pose::IDENTITY, 0.25, 1.0, 100, 49).build().unwrap();
    let place = |i: usize| {
        let i = i as f64;
        Pose::new(DQuat::from_rotation_z((0.5 * i).to_radians()), DVec3::new(0.0, 0.0, -1.0 + 0.02 * i))
    };
    Scene { fixed, moving, steps: steps((0..=100).map(place)) }
}

/// (c) A miss in a cluttered scene: a 10,000-triangle sphere of radius 0.15 crosses a
/// 6 × 6 × 3 lattice of 108 spheres (radius 0.3, 960 triangles each, 103,680 in all, one
/// unit apart) in a single step along a lane, 0.05 clear of the nearest spheres.
pub fn clutter() -> Scene {
    let mut b = MeshBuilder::new();
    for i in 0..6 {
        for j in 0..6 {
            for k in 0..3 {
                b = b.sphere(Pose::from_translation(DVec3::new(i as f64, j as f64, k as f64)), 0.3, 16, 32);
            }
        }
    }
    let fixed = b.build().unwrap();
    let moving = MeshBuilder::new().sphere(Pose::IDENTITY, 0.15, 51, 100).build().unwrap();
    // lane between rows j = 2 and 3, in the plane of layer k = 0: 0.5 from the nearest centres
    let from = Pose::from_translation(DVec3::new(-1.0, 2.5, 0.0));
    let to = Pose::new(DQuat::from_rotation_x(0.3), DVec3::new(6.0, 2.5, 0.0));
    Scene { fixed, moving, steps: vec![Motion::new(from, to)] }
}

pub fn colliders(scene: &Scene, leaf_size: usize) -> (Collider, Collider) {
    (
        Collider::with_leaf_size(scene.moving.clone(), leaf_size),
        Collider::with_leaf_size(scene.fixed.clone(), leaf_size),
    )
}
