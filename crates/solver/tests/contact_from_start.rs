//! Parts in contact from the start (docs/contact-from-start.md): they come out and slide the
//! way they would in the workshop, and never go deeper into what they started in.

mod common;

use common::Rng;
use glam::{DQuat, DVec3};
use mockup_ccd::{Collider, ContactKind, Mesh, MeshBuilder, Pose};
use mockup_solver::{BodyId, SolverSettings, World};
use std::sync::Arc;

fn collider(mesh: Mesh) -> Arc<Collider> {
    Arc::new(Collider::new(mesh))
}

fn world(size: f64) -> World {
    World::new(SolverSettings::for_scene_size(size)).unwrap()
}

/// Adds the dragged `part` at `start` and the `fixed` part at the identity, the part first or
/// second (the pair's readings are taken from its first body); the part's id.
fn add_pair(w: &mut World, part: &Mesh, start: Pose, fixed: &Mesh, part_first: bool) -> BodyId {
    if part_first {
        let b = w.add_body(collider(part.clone()), start, false);
        w.add_body(collider(fixed.clone()), Pose::IDENTITY, true);
        b
    } else {
        w.add_body(collider(fixed.clone()), Pose::IDENTITY, true);
        w.add_body(collider(part.clone()), start, false)
    }
}

/// The interference tolerance τ = εr / 2.
fn tau(w: &World) -> f64 {
    0.5 * w.settings().repositioning
}

/// Drags `part` toward `target` for `frames` calls; the last report.
fn drag_for(w: &mut World, part: BodyId, target: Pose, frames: usize) -> mockup_solver::StepReport {
    let mut last = None;
    for _ in 0..frames {
        last = Some(w.drag(part, target).unwrap());
    }
    last.unwrap()
}

fn moved(w: &World, part: BodyId, from: Pose) -> DVec3 {
    w.body(part).unwrap().pose.translation - from.translation
}

/// A wedge standing in a floor with its tip 3 εb deep and a second corner 0.7 εb deep,
/// turned about that corner so that the tip would sink: held. The shallow corner makes the
/// pair's radius grow to 4 εb at classification; the tip lies beyond 2 εb, where only the
/// vertices' nearest readings are read (docs/contact-from-start.md §3, "Beyond 2 εb"), and
/// only that reading keeps it from sinking: nothing of the tip's crosses the floor's surface.
#[test]
fn a_tip_read_beyond_twice_eb_is_held() {
    let mut w = world(1.0);
    let eb = w.settings().breaking;
    let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.5)).build().unwrap();
    w.add_body(collider(floor), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
    let (tip, corner) = (DVec3::new(0.0, 0.0, -3.0 * eb), DVec3::new(0.1, 0.0, -0.7 * eb));
    let (up1, up2) = (DVec3::new(0.0, 0.05, 0.05), DVec3::new(0.0, -0.05, 0.05));
    let wedge = MeshBuilder::new()
        .raw(Pose::IDENTITY, &[tip, corner, up1, up2], &[[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
        .build()
        .unwrap();
    assert!(wedge.signed_volume() > 0.0, "wound outward");
    let c = w.add_body(collider(wedge), Pose::IDENTITY, false);
    assert_eq!(w.intersecting_pairs().len(), 1);
    // Turned about the corner (an axis along y) so that the tip goes down by 2.2 εb.
    let turn = DQuat::from_rotation_y(-0.01);
    let target = Pose::new(turn, corner - turn * corner);
    let r = drag_for(&mut w, c, target, 10);
    let pose = w.body(c).unwrap().pose;
    let depth = -pose.transform_point(tip).z;
    assert!(depth <= 3.0 * eb + tau(&w), "the tip went {:.2} εb deep (from 3 εb); {r:?}", depth / eb);
    // And the wedge still comes out.
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.0, 0.0, 0.1)), 10);
    assert!(r.reached && w.intersecting_pairs().is_empty(), "{r:?}");
}

/// A shaft of radius 0.25 pressed into a ring whose bore has the same radius, both with 48
/// facets, the shaft turned half a facet: each shaft corner stands 0.25 (1 − cos(π/48)) =
/// 0.00054 inside the ring (εr = 0.00022 < that < εb = 0.00115 for a scene 2.5 wide).
fn press_fit() -> (World, BodyId, Pose) {
    let n = 48;
    let ring = MeshBuilder::new().tube(Pose::IDENTITY, 0.25, 0.5, 0.4, n, 1).build().unwrap();
    let half_facet = DQuat::from_rotation_z(std::f64::consts::PI / n as f64);
    let shaft = MeshBuilder::new().cylinder(Pose::new(half_facet, DVec3::ZERO), 0.25, 1.0, n, 1).build().unwrap();
    let mut w = world(2.5);
    w.add_body(collider(ring), Pose::IDENTITY, true);
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.1));
    let s = w.add_body(collider(shaft), start, false);
    assert_eq!(w.intersecting_pairs(), vec![(0, 1)], "the press fit interferes");
    (w, s, start)
}

#[test]
fn a_shaft_pressed_into_a_ring_pulls_out() {
    let (mut w, s, start) = press_fit();
    let out = Pose::from_translation(DVec3::new(0.0, 0.0, 1.2));
    let r = drag_for(&mut w, s, out, 20);
    assert!(r.reached, "the shaft stays at {:?} ({r:?})", r.pose.translation);
    assert!(w.intersecting_pairs().is_empty());
    // Out and clear, the pair is an ordinary one again; pushed back it stops short.
    let r = drag_for(&mut w, s, start, 20);
    assert!(!r.reached && r.seated_pairs.is_empty(), "{r:?}");
    assert!(w.intersecting_pairs().is_empty());
    assert!(w.body(s).unwrap().pose.translation.z > 0.7 - 1e-9 + w.settings().repositioning);
}

#[test]
fn a_shaft_pressed_into_a_ring_is_held_sideways() {
    let (mut w, s, start) = press_fit();
    for dir in [DVec3::X, DVec3::new(-0.6, 0.8, 0.0), DVec3::new(0.3, -0.2, 0.0)] {
        let target = Pose::from_translation(start.translation + 0.3 * dir);
        let r = drag_for(&mut w, s, target, 10);
        assert!(!r.reached);
        assert!(!r.seated_pairs.is_empty(), "{r:?}");
        let sideways = moved(&w, s, start).truncate().length();
        assert!(sideways <= tau(&w), "moved {sideways} sideways (τ = {})", tau(&w));
    }
    // Tilted (a turn about a line across the bore): held as well.
    let tilt = Pose::new(DQuat::from_rotation_x(0.2), start.translation);
    drag_for(&mut w, s, tilt, 10);
    let turned = w.body(s).unwrap().pose.rotation.angle_between(DQuat::IDENTITY);
    // A point at the shaft's end (0.5 from the ring's middle) moves at most τ.
    assert!(turned * 0.6 <= tau(&w) + 1e-9, "turned {turned} rad");
}

/// A square pin in a square hole of the same size through a plate: coincident faces.
fn pin_in_hole() -> (World, BodyId, Pose) {
    let hole = |x: f64, y: f64| x.abs() < 0.1 && y.abs() < 0.1;
    let plate =
        MeshBuilder::new().perforated_plate(Pose::IDENTITY, [1.0, 1.0], 0.1, [10, 10], 0.0, hole).build().unwrap();
    let pin = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.1, 0.1, 0.3)).build().unwrap();
    let mut w = world(1.0);
    w.add_body(collider(plate), Pose::IDENTITY, true);
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.0));
    let p = w.add_body(collider(pin), start, false);
    (w, p, start)
}

#[test]
fn a_pin_in_a_zero_clearance_hole_slides_out_and_is_held_sideways() {
    let (mut w, p, start) = pin_in_hole();
    let r = drag_for(&mut w, p, Pose::from_translation(DVec3::new(0.3, 0.0, 0.0)), 10);
    assert!(!r.reached && !r.seated_pairs.is_empty(), "{r:?}");
    assert!(moved(&w, p, start).length() <= tau(&w), "moved {:?}", moved(&w, p, start));
    let r = drag_for(&mut w, p, Pose::from_translation(DVec3::new(0.0, 0.0, -0.6)), 20);
    assert!(r.reached, "{:?}", r.pose);
    assert!(w.intersecting_pairs().is_empty());
    // Out, it is an ordinary part: a zero-clearance hole does not take it back.
    let r = drag_for(&mut w, p, Pose::from_translation(DVec3::new(0.0, 0.0, 0.0)), 20);
    assert!(!r.reached && r.seated_pairs.is_empty(), "{r:?}");
    assert!(w.intersecting_pairs().is_empty());
}

/// A cube resting on a floor, its bottom face on the floor's top face.
#[test]
fn a_part_resting_on_a_face_lifts_off_slides_and_is_held() {
    let mut w = world(10.0);
    let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap();
    w.add_body(collider(floor), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
    let cube = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::splat(0.5), [4, 4, 4]).build().unwrap();
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5));
    let c = w.add_body(collider(cube), start, false);
    // Down: held.
    drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.0, 0.0, -1.0)), 5);
    assert!(moved(&w, c, start).length() <= tau(&w), "{:?}", moved(&w, c, start));
    // Along the face: it slides all the way, pressed on.
    let along = Pose::from_translation(DVec3::new(2.0, -1.0, 0.5));
    let r = drag_for(&mut w, c, along, 5);
    assert!(r.reached, "{r:?}");
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.0, 0.0, -1.0)), 5);
    let p = r.pose.translation;
    assert!((p.x - 0.0).abs() < 1e-6 && (p.y - 0.0).abs() < 1e-6 && (p.z - 0.5).abs() <= tau(&w), "{p:?}");
    // Off.
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.3, 0.0, 2.0)), 5);
    assert!(r.reached);
    assert!(w.intersecting_pairs().is_empty());
}

/// A cube standing 0.4 εb deep in a floor (tessellation overlap): it comes out upward, slides
/// along, and does not go deeper.
#[test]
fn a_part_overlapping_a_floor_comes_out() {
    let mut w = world(10.0);
    let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap();
    w.add_body(collider(floor), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
    let depth = 0.4 * w.settings().breaking;
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.5 - depth));
    let c = w.add_body(collider(cube), start, false);
    assert_eq!(w.intersecting_pairs().len(), 1);
    drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.0, 0.0, -1.0)), 5);
    assert!(moved(&w, c, start).z >= -tau(&w));
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(1.0, 1.0, 0.5 - depth)), 5);
    assert!(r.reached, "{r:?}");
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(1.0, 1.0, 1.5)), 5);
    assert!(r.reached, "{r:?}");
    assert!(w.intersecting_pairs().is_empty());
}

/// A post standing 2 εb deep in a coarse block (12 triangles; `open`: without its two bottom
/// triangles): where the surfaces cross, the post's edges pass through the block's top face
/// far from its edges, and the post's bottom is deeper than εb, so nothing is within εb and
/// no contact reads the depth at the start (coarse collision hulls that overlap, as a robot's
/// do at its joints). Starts the drags below and returns the world, the post and its poses
/// at a height.
fn post_in_block(open: bool) -> (World, BodyId, Mesh, Mesh, impl Fn(f64) -> Pose) {
    let mut w = world(4.0);
    let eb = w.settings().breaking;
    let block = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE).build().unwrap();
    let block = if open {
        let bottom: Vec<[u32; 3]> =
            block.triangles().iter().copied().filter(|t| !t.iter().all(|&v| block.vertex(v).z < -0.5)).collect();
        assert_eq!(bottom.len(), 10);
        Mesh::new(block.vertices().to_vec(), bottom).unwrap()
    } else {
        block
    };
    let post = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.2, 0.2, 1.0)).build().unwrap();
    w.add_body(collider(block.clone()), Pose::IDENTITY, true);
    // Off the top face's diagonals, so the post's edges cross it inside one triangle each.
    let at = move |z: f64| Pose::from_translation(DVec3::new(0.35, -0.45, z));
    let start = at(2.0 - 2.0 * eb);
    let p = w.add_body(collider(post.clone()), start, false);
    assert_eq!(w.intersecting_pairs(), vec![(0, 1)]);
    let (a, b) = (collider(post.clone()), collider(block.clone()));
    assert!(mockup_ccd::proximity(&a, &start, &b, &Pose::IDENTITY, eb).value.is_empty(), "nothing near at εb");
    (w, p, post, block, at)
}

/// The post pulled up in small steps: its bottom comes within εb of the top face from inside
/// and reads inside, deeper than the start's depth as read, though it only got shallower. It
/// comes out, the depth check's reading overruled by the bottom's depth measured against the
/// whole block (docs/contact-from-start.md §3, "A second opinion"). Pushed back down on the
/// way, it is held (brute force at every drag). In an open block nothing can be measured,
/// the reading decides, and the post is held where its bottom is first read.
#[test]
fn a_post_deep_in_a_coarse_block_with_nothing_near_comes_out() {
    let (mut w, p, post, block, at) = post_in_block(false);
    let eb = w.settings().breaking;
    let depth_at = |w: &World| vertex_depth(&post, &w.body(p).unwrap().pose, &block, &Pose::IDENTITY);
    let mut depth = depth_at(&w);
    assert!((depth - 2.0 * eb).abs() < 1e-9, "{depth}");
    // Steps of 0.3 εb: the bottom is read inside within εb for a few of them.
    for k in 1..=20 {
        let r = w.drag(p, at(2.0 - 2.0 * eb + 0.3 * eb * k as f64)).unwrap();
        let now = depth_at(&w);
        assert!(now <= depth + tau(&w), "deeper: {now} after {depth}");
        assert!(r.reached, "step {k}: the post stays at depth {now} ({r:?})");
        depth = now;
        if k == 5 {
            // Its bottom 0.5 εb deep, read: pushed back down, it goes no deeper.
            for _ in 0..3 {
                w.drag(p, at(2.0 - 2.0 * eb)).unwrap();
                assert!(depth_at(&w) <= depth + tau(&w), "pushed back to {}, from {depth}", depth_at(&w));
            }
        }
    }
    assert!(w.intersecting_pairs().is_empty());

    let (mut w, p, _, _, at) = post_in_block(true);
    let held = (1..=20).any(|k| !w.drag(p, at(2.0 - 2.0 * eb + 0.3 * eb * k as f64)).unwrap().reached);
    assert!(held, "in an open block the reading decides");
}

/// A closed stepped shaft along z: radius `r` from `z0` to `z1`, then a shoulder and radius
/// `big` up to `z2`; `n` facets around (one solid, not two cylinders pushed together).
fn stepped_shaft(r: f64, big: f64, [z0, z1, z2]: [f64; 3], n: u32) -> Mesh {
    let rings = [(r, z0), (r, z1), (big, z1), (big, z2)];
    let mut vertices = vec![DVec3::new(0.0, 0.0, z0), DVec3::new(0.0, 0.0, z2)];
    for (radius, z) in rings {
        for k in 0..n {
            let a = std::f64::consts::TAU * k as f64 / n as f64;
            vertices.push(DVec3::new(radius * a.cos(), radius * a.sin(), z));
        }
    }
    let at = |ring: u32, k: u32| 2 + ring * n + k % n;
    let mut triangles = Vec::new();
    for k in 0..n {
        triangles.push([0, at(0, k + 1), at(0, k)]);
        for ring in 0..3 {
            let (a, b, c, d) = (at(ring, k), at(ring, k + 1), at(ring + 1, k + 1), at(ring + 1, k));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
        triangles.push([1, at(3, k), at(3, k + 1)]);
    }
    Mesh::new(vertices, triangles).unwrap()
}

/// A stepped shaft: a 0.25 shaft through a ring's 0.25 bore (zero clearance, same facets),
/// with a 0.4 collar 0.1 above the ring. Pulled down (the wrong way) it stops at the collar;
/// up it comes out.
#[test]
fn a_stepped_shaft_pulled_the_wrong_way_stops_at_its_shoulder() {
    let n = 32;
    let ring = MeshBuilder::new().tube(Pose::IDENTITY, 0.25, 0.5, 0.4, n, 1).build().unwrap();
    // Shaft from z = −0.5 to 0.3, collar from 0.3 to 0.5 (ring top at 0.2).
    let shaft = stepped_shaft(0.25, 0.4, [-0.5, 0.3, 0.5], n);
    assert_eq!(
        mockup_ccd::mesh::Orientation::of(&shaft),
        mockup_ccd::mesh::Orientation { sign: 1.0, consistent: true }
    );
    assert!(shaft.stats().is_closed());
    let mut w = world(2.0);
    w.add_body(collider(ring), Pose::IDENTITY, true);
    let start = Pose::IDENTITY;
    let s = w.add_body(collider(shaft), start, false);
    let r = drag_for(&mut w, s, Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), 20);
    assert!(!r.reached && !r.seated_pairs.is_empty(), "{r:?}");
    let z = w.body(s).unwrap().pose.translation.z;
    // The collar's underside (0.3 + z) stops above the ring's top (0.2), within εs.
    let gap = 0.3 + z - 0.2;
    assert!(gap >= -tau(&w) && gap <= w.settings().security * 1.001, "collar stopped {gap} above the ring");
    assert!(w.intersecting_pairs() == vec![(0, 1)] || w.intersecting_pairs().is_empty());
    let r = drag_for(&mut w, s, Pose::from_translation(DVec3::new(0.0, 0.0, 1.5)), 20);
    assert!(r.reached, "{r:?}");
}

/// With `strict`, a pair interfering at the start is an obstacle like any other (today's
/// behaviour): repositioning tries to push it apart, and the shaft does not come out.
#[test]
fn strict_keeps_every_interfering_pair_an_obstacle() {
    let (mut w, s, _) = press_fit();
    w.set_settings(SolverSettings { strict: true, ..*w.settings() }).unwrap();
    let r = drag_for(&mut w, s, Pose::from_translation(DVec3::new(0.0, 0.0, 1.2)), 10);
    assert!(r.seated_pairs.is_empty() && !r.reached, "{r:?}");
}

// ---- Randomized: never deeper than the floor plus τ -------------------------------------

/// Penetration depth of two convex meshes: the smallest overlap of their projections over
/// the separating-axis candidates (face normals and edge cross products); 0 when apart.
fn convex_depth(a: &Mesh, pa: &Pose, b: &Mesh, pb: &Pose) -> f64 {
    let va: Vec<DVec3> = a.vertices().iter().map(|&v| pa.transform_point(v)).collect();
    let vb: Vec<DVec3> = b.vertices().iter().map(|&v| pb.transform_point(v)).collect();
    let mut axes: Vec<DVec3> = Vec::new();
    for t in 0..a.triangles().len() as u32 {
        axes.push(pa.transform_vector(a.normal(t)));
    }
    for t in 0..b.triangles().len() as u32 {
        axes.push(pb.transform_vector(b.normal(t)));
    }
    let dirs = |m: &Mesh, p: &Pose| -> Vec<DVec3> {
        m.edges().iter().map(|&[x, y]| p.transform_vector(m.vertex(y) - m.vertex(x)).normalize()).collect()
    };
    for ea in dirs(a, pa) {
        for eb in dirs(b, pb) {
            if let Some(n) = ea.cross(eb).try_normalize() {
                axes.push(n);
            }
        }
    }
    let mut depth = f64::INFINITY;
    for n in axes {
        if n.length_squared() < 0.5 {
            continue;
        }
        let span = |v: &[DVec3]| {
            v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let x = p.dot(n);
                (lo.min(x), hi.max(x))
            })
        };
        let ((a0, a1), (b0, b1)) = (span(&va), span(&vb));
        let overlap = (a1.min(b1) - a0.max(b0)).max(0.0);
        depth = depth.min(overlap);
    }
    depth
}

/// Boxes and octagonal prisms set on a block, touching or up to 0.8 εb deep, dragged to random
/// targets: the pair's penetration depth never exceeds its start plus τ, at the end of every
/// step and at 8 points along every move.
#[test]
fn random_drags_never_go_deeper_than_the_start_plus_tau() {
    let mut rng = Rng::new(77);
    let block = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.5)).build().unwrap();
    let shapes = [
        MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.2, 0.15, 0.1)).build().unwrap(),
        MeshBuilder::new().cylinder(Pose::IDENTITY, 0.15, 0.2, 8, 1).build().unwrap(),
    ];
    let (mut steps, mut held) = (0, 0);
    for case in 0..24 {
        let shape = &shapes[case % 2];
        let mut w = world(3.0);
        w.add_body(collider(block.clone()), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
        let eb = w.settings().breaking;
        // Rest it on the block's top (z = 0), tilted a little, then sink it.
        let rotation = rng.rotation(0.3);
        let lowest = shape.vertices().iter().map(|&v| (rotation * v).z).fold(f64::INFINITY, f64::min);
        let sink = if case % 3 == 0 { 0.0 } else { 0.8 * eb * (0.5 + 0.5 * rng.next()) };
        let start = Pose::new(rotation, DVec3::new(0.3 * rng.next(), 0.3 * rng.next(), -lowest - sink));
        let part = w.add_body(collider(shape.clone()), start, false);
        let (fixed_mesh, part_mesh) = (block.clone(), shape.clone());
        let depth_at = |w: &World, pose: &Pose| convex_depth(&part_mesh, pose, &fixed_mesh, &w.body(0).unwrap().pose);
        let limit = depth_at(&w, &start).max(0.0) + tau(&w) + 1e-9;
        for step in 0..40 {
            let current = w.body(part).unwrap().pose;
            let roll = rng.next();
            let target = if roll < 0.4 {
                // Into the block, with a turn.
                Pose::new(
                    rng.rotation(0.2) * current.rotation,
                    current.translation + DVec3::new(0.1 * rng.next(), 0.1 * rng.next(), -0.2),
                )
            } else if roll < 0.8 {
                Pose::new(rng.rotation(0.1) * current.rotation, current.translation + rng.vec() * 0.15)
            } else {
                Pose::new(current.rotation, current.translation + DVec3::new(rng.next(), rng.next(), 0.0) * 0.3)
            };
            let r = w.drag(part, target).unwrap();
            steps += 1;
            held += (!r.reached) as u32;
            let d = depth_at(&w, &r.pose);
            assert!(d <= limit, "case {case} step {step}: depth {d} > {limit} ({r:?})");
            for m in &r.moves {
                for k in 1..8 {
                    let d = depth_at(&w, &m.pose_at(k as f64 / 8.0));
                    assert!(d <= limit, "case {case} step {step}: depth {d} > {limit} along a move");
                }
            }
        }
    }
    eprintln!("{steps} steps, {held} held");
    assert!(held > steps / 5, "the drags must press into the block often ({held} of {steps} held)");
}

/// Whether `p` is inside a closed mesh: its winding number is about 1.
fn inside(mesh: &Mesh, pose: &Pose, p: DVec3) -> bool {
    common::sides::winding(mesh, pose, p) > 0.5
}

/// How deep either mesh's surface is inside the other, sampled at its vertices and at seven
/// points along each edge: the largest distance to the other's surface of a sample inside it.
fn vertex_depth(a: &Mesh, pa: &Pose, b: &Mesh, pb: &Pose) -> f64 {
    dense_depth(a, pa, b, pb, 8)
}

/// As `vertex_depth`, with `k − 1` points along each edge: dense, for edges whose deepest
/// point is one place along them (two wedges crossing).
fn dense_depth(a: &Mesh, pa: &Pose, b: &Mesh, pb: &Pose, k: usize) -> f64 {
    let one_way = |a: &Mesh, pa: &Pose, b: &Mesh, pb: &Pose| {
        let mut samples: Vec<DVec3> = a.vertices().to_vec();
        for &[x, y] in a.edges() {
            let (p, q) = (a.vertex(x), a.vertex(y));
            samples.extend((1..k).map(|s| p + (q - p) * (s as f64 / k as f64)));
        }
        samples
            .into_iter()
            .map(|v| pa.transform_point(v))
            .filter(|&p| inside(b, pb, p))
            .map(|p| common::sides::distance_to(b, pb, p))
            .fold(0.0, f64::max)
    };
    one_way(a, pa, b, pb).max(one_way(b, pb, a, pa))
}

/// A ring with a shaft pressed in, a plate with a pin in a zero-clearance hole: random drags,
/// pushes into the fixed part and turns; neither part's surface gets deeper into the other
/// than it started plus τ (brute force over samples of every edge: winding numbers and
/// distances to every triangle).
#[test]
fn random_drags_of_fitted_parts_never_go_deeper() {
    let mut rng = Rng::new(99);
    let scenes: Vec<(World, BodyId, Pose)> = vec![press_fit(), pin_in_hole()];
    let (mut steps, mut held) = (0, 0);
    for (n, (mut w, part, start)) in scenes.into_iter().enumerate() {
        let fixed_mesh = w.body(0).unwrap().collider.mesh().clone();
        let part_mesh = w.body(part).unwrap().collider.mesh().clone();
        let fixed_pose = w.body(0).unwrap().pose;
        let depth = |pose: &Pose| vertex_depth(&part_mesh, pose, &fixed_mesh, &fixed_pose);
        let limit = depth(&start) + tau(&w) + 1e-9;
        for step in 0..20 {
            let current = w.body(part).unwrap().pose;
            let roll = rng.next();
            let target = if roll < 0.5 {
                Pose::new(
                    rng.rotation(0.1) * current.rotation,
                    current.translation + DVec3::new(rng.next(), rng.next(), 0.3 * rng.next()) * 0.1,
                )
            } else {
                Pose::new(rng.rotation(0.3) * current.rotation, start.translation + rng.vec() * 0.05)
            };
            let r = w.drag(part, target).unwrap();
            steps += 1;
            held += (!r.reached) as u32;
            let d = depth(&r.pose);
            assert!(d <= limit, "scene {n} step {step}: vertex depth {d} > {limit} ({r:?})");
            for m in &r.moves {
                let d = depth(&m.pose_at(0.5));
                assert!(d <= limit, "scene {n} step {step}: vertex depth {d} > {limit} along a move");
            }
        }
    }
    eprintln!("{steps} steps, {held} held");
    assert!(held > steps / 4, "the drags must press into the fits ({held} of {steps} held)");
}

fn with_glide(w: &mut World) {
    let s = *w.settings();
    w.set_settings(SolverSettings { narrow_phase: mockup_solver::NarrowPhase::Glide, ..s }).unwrap();
}

/// The glide screen as the narrow phase applies the same rule.
#[test]
fn with_glide_fitted_parts_come_out_and_are_held() {
    let (mut w, s, start) = press_fit();
    with_glide(&mut w);
    let r = drag_for(&mut w, s, Pose::from_translation(start.translation + 0.3 * DVec3::X), 10);
    assert!(!r.reached && moved(&w, s, start).truncate().length() <= tau(&w), "{r:?}");
    let out = Pose::from_translation(DVec3::new(0.0, 0.0, 1.2));
    assert!(w.drag(s, out).unwrap().glide_tests > 0, "the glide screen must have run");
    let r = drag_for(&mut w, s, out, 20);
    assert!(r.reached, "{r:?}");
    let (mut w, p, start) = pin_in_hole();
    with_glide(&mut w);
    drag_for(&mut w, p, Pose::from_translation(DVec3::new(0.0, 0.3, 0.0)), 10);
    assert!(moved(&w, p, start).length() <= tau(&w));
    let r = drag_for(&mut w, p, Pose::from_translation(DVec3::new(0.0, 0.0, -0.6)), 20);
    assert!(r.reached, "{r:?}");
}

/// An L-shaped bracket (a base and a wall, one solid), extruded along y from `outline` in x-z.
fn bracket() -> Mesh {
    // Counter-clockwise in the x-z plane seen from −y: the base from x −0.5 to 0.5, 0.1
    // thick, the wall at x −0.5 to −0.4 up to z 0.5. Caps: the L as four triangles fanned
    // from its inner corner (3).
    let outline = [(-0.5, -0.1), (0.5, -0.1), (0.5, 0.0), (-0.4, 0.0), (-0.4, 0.5), (-0.5, 0.5)];
    extruded(&outline, 0.5, &[[3, 4, 5], [3, 5, 0], [3, 0, 1], [3, 1, 2]])
}

/// A closed solid: `outline` in x-z extruded along y over |y| ≤ `half`, each cap the triangles
/// `caps` (indices into the outline), wound outward.
fn extruded(outline: &[(f64, f64)], half: f64, caps: &[[u32; 3]]) -> Mesh {
    extruded_through(outline, &[-half, half], caps)
}

/// As `extruded`, through the slices `ys` (increasing): every edge along y is split by a
/// vertex at each inner slice, the straight edges of a CAD tessellation that meets other
/// geometry there.
fn extruded_through(outline: &[(f64, f64)], ys: &[f64], caps: &[[u32; 3]]) -> Mesh {
    let mut vertices = Vec::new();
    for &y in ys {
        vertices.extend(outline.iter().map(|&(x, z)| DVec3::new(x, y, z)));
    }
    let n = outline.len() as u32;
    let mut triangles = Vec::new();
    for s in 0..ys.len() as u32 - 1 {
        let (lo, hi) = (s * n, (s + 1) * n);
        for i in 0..n {
            let j = (i + 1) % n;
            triangles.extend([[lo + i, hi + j, lo + j], [lo + i, hi + i, hi + j]]);
        }
    }
    let last = (ys.len() as u32 - 1) * n;
    for &[a, b, c] in caps {
        triangles.push([a, b, c]);
        triangles.push([a + last, c + last, b + last]);
    }
    let mesh = Mesh::new(vertices, triangles).unwrap();
    let mesh = if mesh.signed_volume() < 0.0 {
        Mesh::new(mesh.vertices().to_vec(), mesh.triangles().iter().map(|&[a, b, c]| [a, c, b]).collect()).unwrap()
    } else {
        mesh
    };
    assert!(mesh.stats().is_closed() && mockup_ccd::mesh::Orientation::of(&mesh).consistent);
    mesh
}

/// A block in the bracket's inner corner, touching the base and the wall (a concave edge): it
/// is held against either and against both, slides along the corner, and lifts out.
#[test]
fn a_block_in_an_inner_corner_is_held_by_both_faces() {
    let mut w = world(2.0);
    w.add_body(collider(bracket()), Pose::IDENTITY, true);
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.1)).build().unwrap();
    let start = Pose::from_translation(DVec3::new(-0.3, 0.0, 0.1));
    let c = w.add_body(collider(cube), start, false);
    for push in [DVec3::new(-0.2, 0.0, 0.0), DVec3::new(0.0, 0.0, -0.2), DVec3::new(-0.2, 0.0, -0.2)] {
        let r = drag_for(&mut w, c, Pose::from_translation(start.translation + push), 5);
        assert!(!r.reached && !r.seated_pairs.is_empty(), "{r:?}");
        let m = moved(&w, c, start);
        assert!(m.x >= -tau(&w) && m.z >= -tau(&w), "pushed {push:?}: moved {m:?}");
    }
    let along = Pose::from_translation(start.translation + DVec3::new(0.0, 0.3, 0.0));
    let r = drag_for(&mut w, c, along, 5);
    assert!(r.reached, "{r:?}");
    // Into the corner and along it at once: the along part goes through.
    let r = drag_for(&mut w, c, Pose::from_translation(start.translation + DVec3::new(-0.1, -0.2, -0.1)), 5);
    let p = r.pose.translation;
    assert!((p.y - -0.2).abs() < 1e-6 && p.x >= -0.3 - tau(&w) && p.z >= 0.1 - tau(&w), "{p:?}");
    let r = drag_for(&mut w, c, Pose::from_translation(DVec3::new(0.2, 0.0, 0.6)), 5);
    assert!(r.reached);
    assert!(w.intersecting_pairs().is_empty());
}

/// A pair the solver itself brings near is never "in contact from the start": a cube dragged
/// from far above a floor (beyond the contacts' margin) to εr/2 above it, the floor first met
/// by the refresh after the move, stays an ordinary pair: it ends at εr (repositioning) and a
/// push into the floor keeps εr. (Found in review: the pair was classified by its distance
/// after the move, as in contact from the start, and the push took it to touching.)
#[test]
fn a_pair_the_solver_brings_near_is_not_in_contact_from_the_start() {
    for narrow_phase in [mockup_solver::NarrowPhase::Exact, mockup_solver::NarrowPhase::Glide] {
        let s = SolverSettings { narrow_phase, ..SolverSettings::for_scene_size(10.0) };
        let mut w = World::new(s).unwrap();
        let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap();
        w.add_body(Arc::new(Collider::new(floor)), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
        let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
        let b = w.add_body(Arc::new(Collider::new(cube)), Pose::from_translation(DVec3::new(0.0, 0.0, 2.0)), false);
        let er = s.repositioning;
        let r = w.drag(b, Pose::from_translation(DVec3::new(0.0, 0.0, 0.5 + 0.5 * er))).unwrap();
        assert!(w.seated_pairs().is_empty() && r.seated_pairs.is_empty(), "{narrow_phase:?}: {r:?}");
        let gap = |w: &World| w.body(b).unwrap().pose.translation.z - 0.5;
        assert!(gap(&w) >= er * (1.0 - 1e-6), "{narrow_phase:?}: ends {} above the floor, εr {er}", gap(&w));
        let r = w.drag(b, Pose::from_translation(DVec3::new(0.2, 0.0, 0.0))).unwrap();
        assert!(w.seated_pairs().is_empty(), "{narrow_phase:?}: {r:?}");
        assert!(gap(&w) >= er * (1.0 - 1e-6), "{narrow_phase:?}: pushed to {} above the floor, εr {er}", gap(&w));
        assert!(r.min_distance.is_some_and(|d| d >= er * (1.0 - 1e-6)), "{narrow_phase:?}: {r:?}");
    }
}

/// A cube of side `2h` about the origin with one corner cube of side `h` cut away: seven
/// voxels' outer faces. The notch's inner corner, where three reflex edges meet, is the
/// nearest surface point of points inside the solid diagonally below it, which no convex
/// shape has.
fn notched_cube(h: f64) -> Mesh {
    let solid = |v: [i32; 3]| v.iter().all(|&c| (0..2).contains(&c)) && v != [1, 1, 1];
    let mut vertices: Vec<DVec3> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut corner = |p: [i32; 3]| -> u32 {
        *index.entry(p).or_insert_with(|| {
            vertices.push(DVec3::new(p[0] as f64 - 1.0, p[1] as f64 - 1.0, p[2] as f64 - 1.0) * h);
            vertices.len() as u32 - 1
        })
    };
    let mut triangles = Vec::new();
    for x in 0..2 {
        for y in 0..2 {
            for z in 0..2 {
                let v = [x, y, z];
                if !solid(v) {
                    continue;
                }
                for a in 0..3 {
                    for dir in [-1, 1] {
                        let mut n = v;
                        n[a] += dir;
                        if solid(n) {
                            continue;
                        }
                        // The face's corners in the (b, c) plane, counter-clockwise about +a.
                        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                        let at = |db: i32, dc: i32| {
                            let mut p = v;
                            p[a] += i32::from(dir > 0);
                            p[b] += db;
                            p[c] += dc;
                            p
                        };
                        let mut quad = [at(0, 0), at(1, 0), at(1, 1), at(0, 1)].map(&mut corner);
                        if dir < 0 {
                            quad.reverse();
                        }
                        triangles.push([quad[0], quad[1], quad[2]]);
                        triangles.push([quad[0], quad[2], quad[3]]);
                    }
                }
            }
        }
    }
    Mesh::new(vertices, triangles).unwrap()
}

/// Each vertex's nearest seated contact tells its side as brute force does (winding numbers):
/// a box, an octagonal prism and a notched cube at random poses, overlapping or near, read
/// within 0.3. For every vertex of either part nearer the other's surface than that, the
/// contact of least distance among those that read it (VF, VE, VV for the first part's
/// vertices; FV, EV, VV read for B for the second's) is at the true distance and is negative
/// exactly when the vertex is inside the other part (docs/contact-from-start.md §3). The
/// notch's inner corner makes vertex/vertex readings of both kinds read inside, which the
/// test requires to happen.
#[test]
fn each_vertex_nearest_seated_contact_reads_its_side() {
    use mockup_ccd::ContactKind::*;
    use mockup_ccd::mesh::{Orientation, Sides};
    use mockup_solver::ContactPoint;
    let mut rng = Rng::new(5);
    let shapes = [
        MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.3, 0.2, 0.15)).build().unwrap(),
        MeshBuilder::new().cylinder(Pose::IDENTITY, 0.2, 0.4, 8, 1).build().unwrap(),
        notched_cube(0.2),
    ];
    let notched = &shapes[2];
    assert!(Orientation::of(notched).consistent && Orientation::of(notched).sign > 0.0);
    assert!(
        inside(notched, &Pose::IDENTITY, DVec3::splat(-0.1)) && !inside(notched, &Pose::IDENTITY, DVec3::splat(0.1))
    );
    let (radius, mut checked, mut vertex_pairs_for_b) = (0.3, 0, 0);
    let mut inside_by_kind: std::collections::HashMap<ContactKind, usize> = Default::default();
    for case in 0..900 {
        let (a, b) = (&shapes[case % 3], &shapes[(case / 3) % 3]);
        let pa = Pose::new(rng.rotation(3.0), DVec3::ZERO);
        let pb = Pose::new(rng.rotation(3.0), rng.vec() * 0.5);
        let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
        let (sa, sb) = (Sides::new(a, Orientation::of(a)), Sides::new(b, Orientation::of(b)));
        let contacts: Vec<ContactPoint> = mockup_ccd::proximity(&ca, &pa, &cb, &pb, radius)
            .value
            .iter()
            .map(|p| ContactPoint::from_pair(0, 1, p).seated((&sa, &pa), (&sb, &pb), 1e-12))
            .collect();
        vertex_pairs_for_b += contacts.iter().filter(|c| c.kind == VertexVertexForB).count();
        for (mesh, pose, other, other_pose, of_i) in [(a, &pa, b, &pb, true), (b, &pb, a, &pa, false)] {
            let nearest = common::sides::nearest_readings(&contacts, of_i);
            for v in 0..mesh.vertices().len() as u32 {
                let x = pose.transform_point(mesh.vertex(v));
                let truth = common::sides::distance_to(other, other_pose, x);
                if truth >= radius || truth < 1e-9 {
                    continue;
                }
                let Some(&c) = nearest.get(&v) else {
                    panic!("case {case}: vertex {v} (first part: {of_i}) has no reading")
                };
                assert!(
                    (c.distance - truth).abs() < 1e-9,
                    "case {case}: vertex {v} read at {}, true {truth}",
                    c.distance
                );
                let is_inside = inside(other, other_pose, x);
                assert_eq!(c.separation < 0.0, is_inside, "case {case}: vertex {v} (first part: {of_i}), {c:?}");
                checked += 1;
                if is_inside {
                    *inside_by_kind.entry(c.kind).or_default() += 1;
                }
            }
        }
    }
    eprintln!("{checked} vertices checked, {vertex_pairs_for_b} vertex pairs read for B, inside: {inside_by_kind:?}");
    assert!(checked > 1000 && vertex_pairs_for_b > 20, "{checked} vertices, {vertex_pairs_for_b} read for B");
    for kind in [VertexVertex, VertexVertexForB] {
        assert!(
            inside_by_kind.get(&kind).is_some_and(|&n| n > 0),
            "no {kind:?} reading read inside: {inside_by_kind:?}"
        );
    }
}

/// Boxes resting on a floor or sunk up to 0.8 εb in it, pulled up 8 εb (in steps of 0.7 εb,
/// one frame each, with a small turn asked for) under a square bar of the same part turned
/// 1°–89° about its axis (0° or 90° in one case in ten), its lowest edge 2 εb above the box's top, shifted sideways up to
/// 4 εb, the box turned up to 0.3 rad about the vertical, either body first: the bar's edge
/// crosses the box's top edges, off the axes. Nothing gets deeper than the start plus τ
/// (brute force over samples of every edge, at every frame). Before the crossing wedges'
/// rules (docs/contact-from-start.md §3), 36 of these 60 passed through the bar.
#[test]
fn random_ridges_over_a_rising_box_hold_it() {
    let mut rng = Rng::new(7);
    for case in 0..60 {
        let mut w = world(4.0);
        let eb = w.settings().breaking;
        let sunk = [0.0, 0.3, 0.8][case % 3] * eb;
        let half = DVec3::new(0.3, 0.3, 0.2);
        let top = 2.0 * half.z - sunk;
        // Lined up with the box's faces in one case in ten.
        let degrees = match case % 10 {
            0 => 90.0 * (case % 20 / 10) as f64,
            _ => 45.0 + 44.0 * rng.next(),
        };
        let turned = DQuat::from_rotation_y(degrees.to_radians());
        let bar = DVec3::new(0.1, 1.0, 0.1);
        let lowest = [-1.0, 1.0]
            .into_iter()
            .flat_map(|x| [-1.0, 1.0].map(|z| (turned * DVec3::new(x * bar.x, 0.0, z * bar.z)).z))
            .fold(f64::INFINITY, f64::min);
        let ridge = Pose::new(turned, DVec3::new(4.0 * eb * rng.next(), 0.0, top + 2.0 * eb - lowest));
        let fixed = MeshBuilder::new()
            .cuboid(Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), DVec3::new(1.5, 1.5, 0.5))
            .cuboid(ridge, bar)
            .build()
            .unwrap();
        let part = MeshBuilder::new().cuboid(Pose::IDENTITY, half).build().unwrap();
        let yaw = DQuat::from_rotation_z(0.3 * rng.next());
        let start = Pose::new(yaw, DVec3::new(0.0, 0.0, half.z - sunk));
        let b = add_pair(&mut w, &part, start, &fixed, case % 2 == 0);
        let start_depth = vertex_depth(&part, &start, &fixed, &Pose::IDENTITY);
        let turn = DQuat::from_axis_angle(rng.vec().try_normalize().unwrap_or(DVec3::X), 0.01 * rng.next());
        for k in 1..=12 {
            let up = (0.7 * k as f64).min(8.0) * eb;
            w.drag(b, Pose::new(turn * yaw, start.translation + DVec3::Z * up)).unwrap();
            let depth = vertex_depth(&part, &w.body(b).unwrap().pose, &fixed, &Pose::IDENTITY);
            assert!(
                depth <= start_depth + tau(&w),
                "case {case} (sunk {} εb), frame {k}: {} εb deep, from {} εb",
                sunk / eb,
                depth / eb,
                start_depth / eb
            );
        }
    }
}

/// A box sunk `sunk` εb into a floor, and over it a ridge of the same part: a square bar
/// along y turned 45° about its axis, its lower edge 2 εb above the box's top, crossing the
/// box's two top edges along x. Nothing else of the ridge is near the box. Sunk 0.8 εb, the
/// pair reads its depth and its contacts within 4 εb (§3); sunk 1.5 εb, nothing of the
/// crossing is within εb and the depth reads 0. `box_first`: the box is the pair's first body
/// (the one whose edge points are read from the other's edges, §3). Returns the world, the
/// box, both meshes and the box's start.
fn box_under_a_ridge(sunk: f64, box_first: bool) -> (World, BodyId, Mesh, Mesh, Pose) {
    let mut w = world(4.0);
    let eb = w.settings().breaking;
    let (half, sunk) = (DVec3::new(0.3, 0.3, 0.2), sunk * eb);
    let top = 2.0 * half.z - sunk;
    let bar = 0.1;
    let ridge = Pose::new(
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4),
        DVec3::new(0.0, 0.0, top + 2.0 * eb + bar * 2f64.sqrt()),
    );
    let fixed = MeshBuilder::new()
        .cuboid(Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), DVec3::new(1.5, 1.5, 0.5))
        .cuboid(ridge, DVec3::new(bar, 1.0, bar))
        .build()
        .unwrap();
    let part = MeshBuilder::new().cuboid(Pose::IDENTITY, half).build().unwrap();
    let start = Pose::from_translation(DVec3::new(0.0, 0.0, half.z - sunk));
    let b = add_pair(&mut w, &part, start, &fixed, box_first);
    assert_eq!(w.intersecting_pairs(), vec![(0, 1)], "the box is sunk in the floor");
    (w, b, part, fixed, start)
}

/// Pulled straight up out of the floor, the box meets the ridge: two edge pairs 2 εb apart
/// at the start, farther than εb, and sunk 0.8 εb nearer than the pair's radius. It stops
/// there, in one long move or in short ones, its top edges crossing the ridge's by at most
/// εb/2 (§3), and nothing gets deeper than the pair started plus τ (brute force over samples
/// of every edge).
#[test]
fn a_part_pulled_out_of_a_deep_overlap_stops_at_an_edge_it_meets() {
    for (sunk, box_first) in [(0.8, false), (1.5, false), (0.8, true), (1.5, true)] {
        for (step_in_eb, frames) in [(8.0, 4), (0.7, 20)] {
            let (mut w, b, part, fixed, start) = box_under_a_ridge(sunk, box_first);
            let eb = w.settings().breaking;
            let start_depth = vertex_depth(&part, &start, &fixed, &Pose::IDENTITY);
            assert!((start_depth - sunk * eb).abs() < 1e-9, "{start_depth}");
            for k in 1..=frames {
                let up = (step_in_eb * k as f64).min(8.0) * eb;
                w.drag(b, Pose::from_translation(start.translation + DVec3::Z * up)).unwrap();
                let depth = vertex_depth(&part, &w.body(b).unwrap().pose, &fixed, &Pose::IDENTITY);
                assert!(
                    depth <= start_depth + tau(&w),
                    "sunk {sunk} εb (box first: {box_first}), steps of {step_in_eb} εb, frame {k}: {depth} deep \
                     ({} εb up), from {start_depth}",
                    moved(&w, b, start).z / eb
                );
            }
            let up = moved(&w, b, start).z;
            assert!(
                up <= 2.5 * eb + tau(&w),
                "sunk {sunk} εb ({box_first}), steps of {step_in_eb} εb: up {} εb",
                up / eb
            );
        }
    }
}

/// The box under the ridge rises at 45° across it, parallel to one of the ridge's lower
/// faces: at the crossing, the box's top edge moves along its side face and the ridge's edge
/// along that lower face, so neither edge's side at the contact point says "entering". The
/// crossing's common normal does (docs/contact-from-start.md §4): the box stops there.
#[test]
fn a_part_rising_along_a_ridges_face_stops_at_its_edge() {
    for (sunk, box_first) in [(0.0, false), (0.8, false), (0.8, true), (1.5, true)] {
        for sideways in [1.0, -1.0] {
            for (step_in_eb, frames) in [(8.0, 4), (0.7, 20)] {
                let (mut w, b, part, fixed, start) = box_under_a_ridge(sunk, box_first);
                let eb = w.settings().breaking;
                let start_depth = vertex_depth(&part, &start, &fixed, &Pose::IDENTITY);
                for k in 1..=frames {
                    let d = (step_in_eb * k as f64).min(8.0) * eb;
                    w.drag(b, Pose::from_translation(start.translation + DVec3::new(sideways * d, 0.0, d))).unwrap();
                    let depth = vertex_depth(&part, &w.body(b).unwrap().pose, &fixed, &Pose::IDENTITY);
                    assert!(
                        depth <= start_depth + tau(&w),
                        "sunk {sunk} εb ({box_first}), x {sideways}, steps of {step_in_eb} εb, frame {k}: {} εb \
                         deep ({} εb up), from {} εb",
                        depth / eb,
                        moved(&w, b, start).z / eb,
                        start_depth / eb
                    );
                }
            }
        }
    }
}

/// A bar sunk 0.5 εb across another whose long top edges are split (a vertex in the middle of
/// each straight edge, 0.05 εb inside the first bar's side walls), pushed down 4 εb: held, in
/// either body order. Found by the review of a "sliver" reading (two walls crossing read as
/// deep as the sliver up to the edges' ends, not tried on split edges: the wall goes on past
/// the split vertex), under which the bar sank through (docs/contact-from-start.md §3).
#[test]
fn a_bar_across_a_bar_with_split_edges_is_held() {
    for dragged_first in [false, true] {
        let mut w = world(4.0);
        let eb = w.settings().breaking;
        let (sunk, inside) = (0.5 * eb, 0.05 * eb);
        let fixed = MeshBuilder::new()
            .tessellated_cuboid(Pose::IDENTITY, DVec3::new(0.1, 1.0, 0.1), [1, 5, 1])
            .build()
            .unwrap();
        let part = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.0, 0.2 + inside, 0.1)).build().unwrap();
        let start = Pose::from_translation(DVec3::new(0.0, 0.0, 0.2 - sunk));
        let b = add_pair(&mut w, &part, start, &fixed, dragged_first);
        let start_depth = vertex_depth(&part, &start, &fixed, &Pose::IDENTITY);
        for k in 1..=4 {
            w.drag(b, Pose::from_translation(start.translation - DVec3::Z * 4.0 * eb)).unwrap();
            let depth = vertex_depth(&part, &w.body(b).unwrap().pose, &fixed, &Pose::IDENTITY);
            assert!(
                depth <= start_depth + tau(&w) + 1e-9,
                "dragged first {dragged_first}, frame {k}: {} εb deep, from {} εb",
                depth / eb,
                start_depth / eb
            );
        }
    }
}

/// A prism along y (|y| ≤ 1) whose top is a convex crease along y at x = 0: two faces each
/// sloping `slope` rad down to x = ±1; 0.5 thick. Normals 2·slope apart at the crease. Its
/// edges along y are split at the slices `ys` (from −1 to 1).
fn ridge(slope: f64, ys: &[f64]) -> Mesh {
    let outline = [(-1.0, -0.5), (1.0, -0.5), (1.0, 0.0), (0.0, slope.tan()), (-1.0, 0.0)];
    extruded_through(&outline, ys, &[[0, 1, 2], [0, 2, 3], [0, 3, 4]])
}

/// `what` and its depths in εb when the deepest one got past the start plus τ.
fn deeper_than_allowed(what: &str, d0: f64, worst: f64, w: &World) -> Option<String> {
    let (eb, allowed) = (w.settings().breaking, d0 + tau(w));
    (worst > allowed + 1e-9).then(|| {
        format!("{what}: start {:.4} εb, deepest {:.4} εb, allowed {:.4} εb", d0 / eb, worst / eb, allowed / eb)
    })
}

/// A box (half 0.5 × 0.3 × 0.2) across `ridge(slope, ys)` for each crease angle in `degrees`,
/// sunk 0.3 εb at the crest and pushed down (`sink_box`), in either body order: each case
/// that got deeper than its start plus τ.
fn box_across_a_ridge_failures(degrees: &[f64], ys: &[f64]) -> Vec<String> {
    let mut failures = Vec::new();
    for &degrees in degrees {
        for part_first in [false, true] {
            let slope = 0.5 * degrees.to_radians();
            let fixed = ridge(slope, ys);
            let part = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.5, 0.3, 0.2)).build().unwrap();
            let eb = world(4.0).settings().breaking;
            let start = Pose::from_translation(DVec3::new(0.0, 0.0, slope.tan() + 0.2 - 0.3 * eb));
            let (d0, worst, w) = sink_box(&fixed, &part, start, part_first);
            failures.extend(deeper_than_allowed(
                &format!("crease {degrees}° (part first {part_first})"),
                d0,
                worst,
                &w,
            ));
        }
    }
    failures
}

/// Puts `part` at `start` and `fixed` at the identity (order by `part_first`), drags `part`
/// down 8 εb for 12 frames; returns (start depth, deepest depth) by brute force.
fn sink_box(fixed: &Mesh, part: &Mesh, start: Pose, part_first: bool) -> (f64, f64, World) {
    let mut w = world(4.0);
    let eb = w.settings().breaking;
    let b: BodyId = add_pair(&mut w, part, start, fixed, part_first);
    assert_eq!(w.intersecting_pairs().len(), 1, "seated");
    let d0 = vertex_depth(part, &start, fixed, &Pose::IDENTITY);
    let mut worst = d0;
    for k in 1..=12 {
        w.drag(b, Pose::from_translation(start.translation - DVec3::Z * (8.0 * eb * k as f64 / 12.0).min(8.0 * eb)))
            .unwrap();
        let d = vertex_depth(part, &w.body(b).unwrap().pose, fixed, &Pose::IDENTITY);
        worst = worst.max(d);
    }
    (d0, worst, w)
}

/// A box (half 0.5 × 0.3 × 0.2) across a convex crease, sunk 0.3 εb at the crest; its bottom
/// corners are above the sloping faces. The crease's edge crossing the box's bottom edges is
/// the only feature pair that sees the overlap, so a crease within 1° of flat (0.9°) must not
/// be read as flat where the two edges cross as convex wedges (docs/contact-from-start.md §3,
/// "Nearly flat edges"; found by a review: read as flat, the box sank 2.1 εb).
#[test]
fn a_box_across_a_nearly_flat_ridge_is_held() {
    let failures = box_across_a_ridge_failures(&[0.9, 3.0], &[-1.0, 1.0]);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A 400-facet cylinder (0.9° a facet) lying along y, a box wider than it across its top,
/// sunk 0.3 εb; 48 facets as a control. Every facet edge is within 1° of flat and crosses the
/// box's bottom edges as convex wedges (found by a review: read as flat, the box sank 8 εb,
/// as far as it was dragged).
#[test]
fn a_box_across_a_finely_tessellated_cylinder_is_held() {
    let mut failures = Vec::new();
    for facets in [400u32, 48] {
        for part_first in [false, true] {
            let axis_y = Pose::new(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2), DVec3::ZERO);
            let fixed = MeshBuilder::new().cylinder(axis_y, 0.5, 2.0, facets, 1).build().unwrap();
            let top = fixed.vertices().iter().map(|v| v.z).fold(f64::NEG_INFINITY, f64::max);
            let part = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.8, 0.3, 0.2)).build().unwrap();
            let eb = world(4.0).settings().breaking;
            let start = Pose::from_translation(DVec3::new(0.0, 0.0, top + 0.2 - 0.3 * eb));
            let (d0, worst, w) = sink_box(&fixed, &part, start, part_first);
            let line = format!(
                "cylinder {facets} facets (part first {part_first}): start {:.3} εb, deepest {:.3} εb, allowed {:.3} εb, \
                 now at z {:.3} εb",
                d0 / eb,
                worst / eb,
                (d0 + tau(&w)) / eb,
                (w.body(if part_first { 0 } else { 1 }).unwrap().pose.translation.z - start.translation.z) / eb
            );
            if worst > d0 + tau(&w) + 1e-9 {
                failures.push(line);
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The box of `a_box_across_a_nearly_flat_ridge_is_held` across a ridge whose every edge
/// along y is split by vertices at y = ±0.3, exactly in the planes of the box's side faces.
/// The crease's edge crosses the box's bottom edges at those vertices, so the segments'
/// closest points are at their ends (found by a review: with no edge/edge reading there, the
/// box sank 8.3 εb into a 10° ridge and 2.1 εb into a 0.9° one; docs/contact-from-start.md §3,
/// "A crossing at a vertex").
#[test]
fn a_box_across_a_ridge_split_level_with_its_sides_is_held() {
    let failures = box_across_a_ridge_failures(&[0.9, 10.0], &[-1.0, -0.3, 0.3, 1.0]);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A wedge `angle` wide and 0.5 tall, its apex edge along y through the origin (|y| ≤
/// `half`), its solid above; mapped by `place`.
fn wedge(angle: f64, half: f64, place: impl Fn(DVec3) -> DVec3) -> Mesh {
    let w = 0.5 * (0.5 * angle).tan();
    let mesh = extruded(&[(0.0, 0.0), (w, 0.5), (-w, 0.5)], half, &[[0, 1, 2]]);
    Mesh::new(mesh.vertices().iter().map(|&v| place(v)).collect(), mesh.triangles().to_vec()).unwrap()
}

/// Two 20° wedges crossing at right angles (the dragged one's edge along y, the fixed one's
/// along x and upside down), the lines passed by 1.1 εb: out of sight, the edges' true depth
/// L·sin(10°). Lifted to 0.9 εb (the crossing comes up, and the second opinion lets it), then
/// turned about its own edge toward 80° while rising to 0.5 εb: the crossing's distance
/// shrinks, but turned, one of the dragged wedge's faces comes square to the common normal,
/// where the other edge is as deep as that distance. The crossing read the same way before a
/// move bounds nothing once the wedges turn, so a turned move is not let through by it (found
/// by a review: let through, the edges went 0.19 → 0.44 εb deep; docs/contact-from-start.md
/// §3, "A second opinion").
#[test]
fn a_crossing_that_came_up_is_not_turned_deeper() {
    let angle = 20f64.to_radians();
    let mut failures = Vec::new();
    for part_first in [false, true] {
        let mut w = world(4.0);
        let eb = w.settings().breaking;
        let part = wedge(angle, 0.5, |v| v);
        let fixed = wedge(angle, 1.0, |v| DVec3::new(v.y, v.x, -v.z));
        let start = Pose::from_translation(DVec3::new(0.0, 0.0, -1.1 * eb));
        let b = add_pair(&mut w, &part, start, &fixed, part_first);
        let d0 = dense_depth(&part, &start, &fixed, &Pose::IDENTITY, 20_000);
        let mut worst = d0;
        drag_for(&mut w, b, Pose::from_translation(DVec3::new(0.0, 0.0, -0.9 * eb)), 6);
        let turn = std::f64::consts::FRAC_PI_2 - 0.5 * angle - 0.02;
        let frames = 300;
        for f in 1..=frames {
            let s = f as f64 / frames as f64;
            let target = Pose::new(DQuat::from_rotation_y(s * turn), DVec3::new(0.0, 0.0, -(0.9 - 0.4 * s) * eb));
            for _ in 0..4 {
                if w.drag(b, target).unwrap().reached {
                    break;
                }
            }
            if f % 30 == 0 {
                worst = worst.max(dense_depth(&part, &w.body(b).unwrap().pose, &fixed, &Pose::IDENTITY, 20_000));
            }
        }
        failures.extend(deeper_than_allowed(&format!("part first {part_first}"), d0, worst, &w));
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A plate resting on six blocks, dragged to random targets in its own plane (±0.5 in x and
/// y, ±0.3 rad about z, at its resting height), 40 drags a target: never deeper into a block
/// than τ. Before stop 39 it went 7–31 mm deep for 3 of these 64 seeds (20, 29, 60), after a
/// move left free pairs exactly touching and the repositioning that followed moved with noise
/// normals, or (seed 56, with only the shape normals) with a solve's absurd answer
/// (docs/contact-from-start.md §5, "Fixed in stop 39"). And it still reaches its targets.
#[test]
fn a_plate_dragged_in_its_plane_on_blocks_never_sinks_into_them() {
    let (mut deep, mut reached) = (Vec::new(), 0);
    for seed in 0..64u64 {
        let (mut w, p) = common::plate_on_blocks(seed % 2 == 1);
        let tau = tau(&w);
        let mut rng = Rng::new(seed + 1);
        for _ in 0..10 {
            let (x, y, a) = (0.5 * rng.next(), 0.5 * rng.next(), 0.3 * rng.next());
            let target = Pose::new(DQuat::from_rotation_z(a), DVec3::new(x, y, 0.5));
            let mut last = None;
            for _ in 0..40 {
                last = Some(w.drag(p, target).unwrap());
                let depth = common::plate_depth_in_blocks(&w.body(p).unwrap().pose);
                if depth > tau + 1e-12 {
                    deep.push((seed, depth));
                }
            }
            let pose = w.body(p).unwrap().pose;
            let off = (pose.translation - target.translation).truncate().length()
                + pose.rotation.angle_between(target.rotation);
            reached += (last.unwrap().reached || off < 0.03) as usize;
        }
    }
    assert!(deep.is_empty(), "deeper than τ: {:?}", &deep[..deep.len().min(5)]);
    // Not by standing still: at least as many targets (within 3 cm and rad, in plan) as before
    // the fix, 625 of 640 (631 after it; a review's measure).
    assert!(reached >= 625, "{reached} of 640 targets reached");
}

/// A step: a ledge (top z = 0) for x < 0.2 and a wall up to z = 0.3 beyond it, 2 × 1 in plan;
/// the ledge and the wall meet at a reflex edge (the wall's foot).
fn step() -> Mesh {
    extruded(
        &[(-1.0, -0.5), (1.0, -0.5), (1.0, 0.3), (0.2, 0.3), (0.2, 0.0), (-1.0, 0.0)],
        0.5,
        &[[4, 5, 0], [4, 0, 1], [4, 1, 2], [4, 2, 3]],
    )
}

/// A tetrahedral spike, its tip (the origin) down and foremost in +x: its front face leans
/// back by `lean` radians, its top 0.4 up.
fn spike(lean: f64) -> Mesh {
    let h = 0.4;
    let v = vec![
        DVec3::ZERO,
        DVec3::new(-h * lean.tan(), -0.1, h),
        DVec3::new(-h * lean.tan(), 0.1, h),
        DVec3::new(-0.3, 0.0, h),
    ];
    let mesh = Mesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]).unwrap();
    if mesh.signed_volume() < 0.0 {
        Mesh::new(v, vec![[0, 2, 1], [0, 3, 2], [0, 1, 3], [1, 2, 3]]).unwrap()
    } else {
        mesh
    }
}

/// A spike's tip on a step's ledge, touching it (10⁻⁷ inside, exactly on it, 10⁻⁷ above) or
/// 0.5 εb above it, 0.3, 1.5 or 21.7 εb before the wall's foot, dragged
/// 10 cm into the wall (level, pressed down, or askew) and then turned toward it, in either
/// body order: never deeper than its start plus τ (brute force over the spike's and the
/// step's vertices and edges; the start as read, D₀, where that reads deeper). Found by a
/// review of stop 39: a tip touching the ledge went under the wall up to the whole push, its
/// reading of the wall neither a row (beyond the tie) nor the CCD's (within εb), or its
/// reading of the foot edge signed inside (docs/contact-from-start.md §3, "A feature near a
/// reflex place", "Touching rows after the solve"; §4). A tip 0.3 εb inside the ledge still
/// goes under the wall (§5, open), and is not among these cases.
#[test]
fn a_spike_under_a_wall_is_held() {
    let step = step();
    let eb = world(1.0).settings().breaking;
    let mut failures = Vec::new();
    for lean in [2f64, 30.0] {
        let spike = spike(lean.to_radians());
        for d in [0.3 * eb, 1.5 * eb, 0.01] {
            for z0 in [-1e-7, 0.0, 1e-7, 0.5 * eb] {
                for push in [DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.1, 0.0, -0.02), DVec3::new(0.1, 0.05, 0.0)] {
                    for part_first in [false, true] {
                        let mut w = world(1.0);
                        let start = Pose::from_translation(DVec3::new(0.2 - d, 0.0, z0));
                        let b = add_pair(&mut w, &spike, start, &step, part_first);
                        let d0 = vertex_depth(&spike, &start, &step, &Pose::IDENTITY);
                        let mut worst: f64 = d0;
                        let mut read: f64 = 0.0;
                        for turn in [0.0, 0.05] {
                            let target = Pose::new(DQuat::from_rotation_y(turn), start.translation + push);
                            for _ in 0..15 {
                                w.drag(b, target).unwrap();
                                let (i, j) = if part_first { (b, b + 1) } else { (b - 1, b) };
                                read = read.max(w.start_depth(i, j).unwrap_or(0.0));
                                let pose = w.body(b).unwrap().pose;
                                worst = worst.max(vertex_depth(&spike, &pose, &step, &Pose::IDENTITY));
                            }
                        }
                        if worst > d0.max(read) + tau(&w) + 1e-9 {
                            failures.push(format!(
                                "lean {lean}° {:.2} εb before the wall, tip at {z0:e}, push {push}, spike first {part_first}: start {d0:e} (read {read:e}), deepest {worst:e}",
                                d / eb
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} cases: {failures:#?}", failures.len());
}

/// A plate as thick as a slab beside it, its top and bottom faces coplanar with the slab's,
/// 0.5 εr (or exactly 0) off its side, pushed 5 cm into it, level, turned or askew, in either
/// body order; and a tetrahedron standing beside the slab with one edge from the slab's top
/// plane to its bottom plane: never deeper than the start plus τ (brute force). Found by the
/// review of stop 40: the edge's ends ride the two planes (a touching vertex at a convex edge
/// may slide along either face), the edge between them has no reading, and the CCD left the
/// pair to rows it does not have (docs/contact-from-start.md §4, §5).
#[test]
fn an_edge_between_two_planes_its_ends_ride_is_held() {
    let er = world(1.0).settings().repositioning;
    let slab = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.5, 0.5, 0.05)).build().unwrap();
    let plate = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.2, 0.3, 0.05)).build().unwrap();
    // A tetrahedron whose edge from (0, 0, 0.05) to (0, 0, −0.05) is its foremost in +x.
    let tet = {
        let v = vec![
            DVec3::new(0.0, 0.0, 0.05),
            DVec3::new(0.0, 0.0, -0.05),
            DVec3::new(-0.2, 0.1, 0.0),
            DVec3::new(-0.2, -0.1, 0.0),
        ];
        let m = Mesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]).unwrap();
        if m.signed_volume() < 0.0 {
            Mesh::new(v, vec![[0, 2, 1], [0, 3, 2], [0, 1, 3], [1, 2, 3]]).unwrap()
        } else {
            m
        }
    };
    let mut failures = Vec::new();
    for (name, part, front) in [("plate", &plate, 0.2), ("tetrahedron", &tet, 0.0)] {
        for gap in [0.5 * er, 0.0] {
            for push in [DVec3::new(0.05, 0.0, 0.0), DVec3::new(0.05, 0.02, 0.0), DVec3::new(0.05, 0.0, 0.001)] {
                for turn in [0.0, 0.05] {
                    for part_first in [false, true] {
                        let mut w = world(1.0);
                        let start = Pose::from_translation(DVec3::new(-0.5 - front - gap, 0.0, 0.0));
                        let b = add_pair(&mut w, part, start, &slab, part_first);
                        let d0 = vertex_depth(part, &start, &slab, &Pose::IDENTITY);
                        let target = Pose::new(DQuat::from_rotation_z(turn), start.translation + push);
                        let mut worst: f64 = d0;
                        for _ in 0..10 {
                            w.drag(b, target).unwrap();
                            let pose = w.body(b).unwrap().pose;
                            worst = worst.max(dense_depth(part, &pose, &slab, &Pose::IDENTITY, 16));
                        }
                        if worst > d0 + tau(&w) + 1e-9 {
                            failures.push(format!(
                                "{name} {gap:e} off, push {push}, turn {turn}, part first {part_first}: start {d0:e}, deepest {worst:e}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} cases: {failures:#?}", failures.len());
}
