//! pybullet's gear differential (`scenes/differential.ron`, real STL exports of meshing bevel
//! gears): a spider gear pushed into mesh with the two side gears finds their gaps, is held
//! when turned against their teeth, and is pulled out of mesh. Needs `scripts/fetch-real-meshes`.
//!
//! The URDF places the spider 1–2 mm too deep in the side gears and on the carrier's pin
//! (docs/scenes.md): the test brings it back along its axis until its teeth just clear the
//! side gears' (in mesh, touching), and leaves the ring and the carrier out.

#[path = "../../scene/tests/corpus/mod.rs"]
mod corpus;

use glam::{DQuat, DVec3};
use mockup_ccd::{Pose, intersects};
use mockup_scene::source::FileSystem;
use mockup_solver::World;
use std::path::Path;

#[test]
fn a_spider_gear_goes_into_mesh_is_held_and_comes_out() {
    if corpus::pybullet_data("differential").is_none() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/differential.ron");
    let scene = mockup_scene::load(&path, &FileSystem, &mut |_| {}).unwrap();
    let names: Vec<&str> = scene.document.parts.iter().map(|p| p.name.as_str()).collect();
    let id = |n: &str| names.iter().position(|x| *x == n).unwrap();
    let (spider, sides) = (id("spider_a"), [id("side_a"), id("side_b")]);
    let urdf = scene.document.parts[spider].pose.to_pose();
    // The URDF's placement has the spider's teeth 1-2 mm inside the side gears'. Out of
    // mesh is along the spider's axis away from the centre (its teeth lie along local −z).
    let out = urdf.rotation * -DVec3::Z;
    let at = |d: f64| Pose::new(urdf.rotation, urdf.translation + out * d);
    let crosses = |d: f64| {
        sides.iter().any(|&s| {
            let (c, p) = (&scene.colliders[s], scene.document.parts[s].pose.to_pose());
            intersects(&scene.colliders[spider], &at(d), c, &p).value
        })
    };
    assert!(crosses(0.0), "the URDF placement interpenetrates");
    // Back it out until its teeth just clear the side gears': in mesh, touching.
    let (mut lo, mut hi) = (0.0, 0.004);
    assert!(!crosses(hi));
    while hi - lo > 1e-8 {
        let mid = 0.5 * (lo + hi);
        if crosses(mid) { lo = mid } else { hi = mid }
    }
    let meshed = at(hi);
    let mut world = World::new(scene.document.solver.settings(scene.size)).unwrap();
    let spider = world.add_body(scene.colliders[spider].clone(), meshed, false);
    for s in sides {
        world.add_body(scene.colliders[s].clone(), scene.document.parts[s].pose.to_pose(), false);
    }
    let tau = 0.5 * world.settings().repositioning;
    // How deep its pairs in contact from the start are before anything moves.
    let before = world.drag(spider, meshed).unwrap();
    assert!(before.seated_pairs.len() == 2 && before.max_depth <= tau, "{before:?}");
    // Pushed into mesh along its axis: it turns until its teeth find the side gears' gaps and
    // slides in, never into their teeth.
    let deeper = at(hi - 0.002);
    for k in 0..10 {
        let r = world.drag(spider, deeper).unwrap();
        assert!(r.max_depth <= tau, "push {k}: {r:?}");
    }
    let inside = world.body(spider).unwrap().pose;
    let moved = (inside.translation - meshed.translation).dot(-out);
    assert!(moved > 0.001, "it went into mesh ({moved} of 0.002)");
    // In mesh, turned about its own axis against the side gears' teeth (they stay): held.
    let axis = inside.rotation * DVec3::Z;
    let turned = Pose::new(DQuat::from_axis_angle(axis, 0.2) * inside.rotation, inside.translation);
    let mut r = world.drag(spider, turned).unwrap();
    for _ in 0..5 {
        r = world.drag(spider, turned).unwrap();
    }
    let angle = world.body(spider).unwrap().pose.rotation.angle_between(inside.rotation);
    assert!(angle < 0.02 && r.max_depth <= tau, "turned {angle} rad against the teeth, {} deep", r.max_depth);
    // Pulled straight out of mesh: it comes out, nothing interferes anew.
    let back = world.body(spider).unwrap().pose;
    let out_by = |d: f64| Pose::new(back.rotation, back.translation + out * d);
    for k in 1..=10 {
        let r = world.drag(spider, out_by(0.001 * k as f64)).unwrap();
        let new: Vec<_> =
            world.intersecting_pairs_with(&[spider]).into_iter().filter(|p| !r.seated_pairs.contains(p)).collect();
        assert!(new.is_empty(), "step {k}: {new:?}");
    }
    let r = world.drag(spider, out_by(0.012)).unwrap();
    assert!(r.reached && world.intersecting_pairs().is_empty(), "{r:?}");
}
