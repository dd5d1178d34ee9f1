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

/// Door outline half-sizes, bend and thickness shared by the door and its frame.
const DOOR_HALF: [f64; 2] = [0.6, 0.5];
const DOOR_BEND: f64 = 0.15;
const DOOR_THICKNESS: f64 = 0.06;
/// Radial clearance between the door and the frame's opening: 0.5 % of the door's height.
pub const DOOR_CLEARANCE: f64 = 0.005;

/// A door-like part: a bent panel 1.2 × 1.0 × 0.06 with a window opening, 3,420 triangles
/// (seed 000 used a 3,530-triangle industrial door).
pub fn door_part() -> Mesh {
    let window = |x: f64, y: f64| x > -0.45 && x < 0.35 && y > 0.1 && y < 0.42;
    let size = DOOR_HALF.map(|h| 2.0 * h);
    MeshBuilder::new()
        .perforated_plate(Pose::IDENTITY, size, DOOR_THICKNESS, [36, 26], DOOR_BEND, window)
        .build()
        .unwrap()
}

/// The door's frame: a bent body side with an opening `DOOR_CLEARANCE` wider than the door
/// all around, and 0.005 behind it a flange plate whose smaller opening stops the door.
/// Grids are chosen so that both openings fall on cell boundaries. 10,312 triangles.
pub fn door_frame() -> Mesh {
    let c = DOOR_CLEARANCE;
    let (ox, oy) = (DOOR_HALF[0] + c, DOOR_HALF[1] + c);
    // Outer plate: 50 × 40 cells, the opening 30 × 24 of them.
    let (cx, cy) = (ox / 15.0, oy / 12.0);
    let outer = |x: f64, y: f64| x.abs() < ox && y.abs() < oy;
    // Flange: 0.05 cells, opening 0.05 inside the door's outline.
    let flange = |x: f64, y: f64| x.abs() < DOOR_HALF[0] - 0.05 && y.abs() < DOOR_HALF[1] - 0.05;
    MeshBuilder::new()
        .perforated_plate(Pose::IDENTITY, [50.0 * cx, 40.0 * cy], DOOR_THICKNESS, [50, 40], DOOR_BEND, outer)
        .perforated_plate(
            Pose::from_translation(DVec3::new(0.0, 0.0, -0.065)),
            [2.0, 1.7],
            DOOR_THICKNESS,
            [40, 34],
            DOOR_BEND,
            flange,
        )
        .build()
        .unwrap()
}

/// (d) Seed 000's experiment, Table 1: the door goes into its frame and back through a
/// recorded sequence of 240 steps: approach with small wobbles and, every 7th step, a lateral
/// push into the opening's wall (transient contacts); a press onto the flange; sliding while
/// pressed (permanent contact); withdrawal. Each step starts where the previous one was
/// recorded to stop (free of interpenetration) and asks to go to its target, as the solver
/// would: steps that push into the frame end in a contact.
pub fn door_in_frame() -> Scene {
    let c = DOOR_CLEARANCE;
    // Lateral offset, rotation about z, tilt, and depth of the door.
    let pose = |dx: f64, dy: f64, spin: f64, tilt: f64, dz: f64| {
        Pose::new(DQuat::from_rotation_z(spin) * DQuat::from_rotation_x(tilt), DVec3::new(dx, dy, dz))
    };
    let wobble = |k: usize, amp: f64| {
        let k = k as f64;
        (amp * (0.3 * k).sin(), amp * (0.23 * k).cos(), 0.0008 * (0.17 * k).sin(), 0.0004 * (0.11 * k).sin())
    };
    let mut starts = Vec::new();
    let mut targets = Vec::new();
    // Approach: depth 0.4 → 0.
    for k in 0..60 {
        let (dx, dy, spin, tilt) = wobble(k, 0.5 * c);
        let dz = 0.4 * (1.0 - k as f64 / 59.0);
        starts.push(pose(dx, dy, spin, tilt, dz));
        let (tx, ty, tspin, ttilt) = wobble(k + 1, if k % 7 == 6 { 1.4 * c } else { 0.5 * c });
        targets.push(pose(tx, ty, tspin, ttilt, 0.4 * (1.0 - (k + 1).min(59) as f64 / 59.0)));
    }
    // Press onto the flange (contact at a depth of about −0.0045), then slide pressed.
    for k in 60..200 {
        let (dx, dy, spin, tilt) = wobble(k, 0.5 * c);
        let depth = if k < 100 { -0.004 * (k - 60) as f64 / 40.0 } else { -0.004 };
        starts.push(pose(dx, dy, spin, 0.0 * tilt, depth));
        let (tx, ty, tspin, _) = wobble(k + 1, 0.5 * c);
        targets.push(pose(tx, ty, tspin, 0.0, -0.0055));
    }
    // Withdraw.
    for k in 200..240 {
        let (dx, dy, spin, tilt) = wobble(k, 0.5 * c);
        let dz = -0.004 + 0.404 * (k - 200) as f64 / 39.0;
        starts.push(pose(dx, dy, spin, tilt, dz));
        let (tx, ty, tspin, ttilt) = wobble(k + 1, 0.5 * c);
        targets.push(pose(tx, ty, tspin, ttilt, -0.004 + 0.404 * (k + 1 - 200).min(39) as f64 / 39.0));
    }
    let steps = starts.into_iter().zip(targets).map(|(a, b)| Motion::new(a, b)).collect();
    Scene { fixed: door_frame(), moving: door_part(), steps }
}

pub fn colliders(scene: &Scene, leaf_size: usize) -> (Collider, Collider) {
    (
        Collider::with_leaf_size(scene.moving.clone(), leaf_size),
        Collider::with_leaf_size(scene.fixed.clone(), leaf_size),
    )
}
