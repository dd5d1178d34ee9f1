//! pybullet's gear differential (`scenes/differential.ron`, real STL exports of meshing bevel
//! gears): a spider gear pushed into mesh with the two side gears finds their gaps, is held
//! when turned against their teeth, and is pulled out of mesh. Needs `scripts/fetch-real-meshes`.
//!
//! The URDF places the spider 1–2 mm too deep in the side gears and on the carrier's pin
//! (docs/scenes.md): the test brings it back along its axis until its teeth just clear the
//! side gears' (in mesh, touching), and leaves the ring and the carrier out.

#[path = "../../scene/tests/corpus/mod.rs"]
mod corpus;
#[path = "../../solver/tests/common/sides.rs"]
mod sides;

use glam::{DQuat, DVec3};
use mockup_ccd::{Pose, intersects};
use mockup_scene::LoadedScene;
use mockup_scene::source::FileSystem;
use mockup_solver::World;
use std::path::Path;

/// `scenes/differential.ron` loaded; `None` when pybullet_data is not fetched.
fn differential() -> Option<LoadedScene> {
    corpus::pybullet_data("differential")?;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/differential.ron");
    Some(mockup_scene::load(&path, &FileSystem, &mut |_| {}).unwrap())
}

/// A part's index by name.
fn part(scene: &LoadedScene, name: &str) -> usize {
    scene.document.parts.iter().position(|p| p.name == name).unwrap()
}

#[test]
fn a_spider_gear_goes_into_mesh_is_held_and_comes_out() {
    let Some(scene) = differential() else { return };
    let id = |n: &str| part(&scene, n);
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
        let d = sides::seated_contacts_depth(&world);
        assert!(d <= tau, "push {k}: {d} deep ({r:?})");
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
    let d = sides::seated_contacts_depth(&world);
    assert!(angle < 0.02 && d <= tau, "turned {angle} rad against the teeth, {d} deep ({r:?})");
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

/// The spider at the URDF's own placement, 1–2 mm into both side gears, pulled out along its
/// axis: the pull first takes some of its vertices deeper into the side gears' teeth (one
/// from 0.9·10⁻⁵ to 7.9·10⁻⁵ m over the first 0.1 mm, docs/app.md), so it is held, and no
/// contact's point gets deeper than at the start plus τ (brute force). Without the depth
/// check it would come out through the teeth.
#[test]
fn a_spider_at_the_urdf_placement_is_held_where_pulling_deepens() {
    let Some(scene) = differential() else { return };
    let id = |n: &str| part(&scene, n);
    let urdf = scene.document.parts[id("spider_a")].pose.to_pose();
    let out = urdf.rotation * -DVec3::Z;
    let mut world = World::new(scene.document.solver.settings(scene.size)).unwrap();
    let spider = world.add_body(scene.colliders[id("spider_a")].clone(), urdf, false);
    for s in ["side_a", "side_b"] {
        world.add_body(scene.colliders[id(s)].clone(), scene.document.parts[id(s)].pose.to_pose(), false);
    }
    let tau = 0.5 * world.settings().repositioning;
    world.drag(spider, urdf).unwrap();
    let start = sides::seated_contacts_depth(&world);
    for k in 1..=8 {
        world.drag(spider, Pose::new(urdf.rotation, urdf.translation + out * (0.0005 * k as f64))).unwrap();
        let d = sides::seated_contacts_depth(&world);
        assert!(d <= start + tau, "pull {k}: {d} deep, {start} at the start");
    }
    let moved = (world.body(spider).unwrap().pose.translation - urdf.translation).dot(out);
    assert!(moved < 1e-4, "it came out by {moved}");
}

/// A spider gear placed at random near its URDF placement against a side gear (teeth in and
/// out of each other by up to 2 mm), contacts read within 20 εb: for each vertex with a
/// reading, its nearest seated contact is at its true distance (brute force over the other's
/// triangles) and reads inside exactly when the winding number puts the vertex inside.
/// The gears' STL has edges where a sliver folds back over its neighbour; read through such
/// an edge, spider vertices read up to 0.9 mm inside where they were outside, until a fold's
/// side became unknown (docs/contact-from-start.md §2).
#[test]
fn each_gear_vertex_nearest_contact_reads_its_side() {
    use mockup_ccd::mesh::{Orientation, Sides};
    use mockup_solver::ContactPoint;
    let Some(scene) = differential() else { return };
    let id = |n: &str| part(&scene, n);
    let settings = scene.document.solver.settings(scene.size);
    let (radius, touching) = (20.0 * settings.breaking, 1e-3 * settings.repositioning);
    let mut seed = 12345u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let (spider, side) = (id("spider_a"), id("side_b"));
    let (ca, cb) = (&scene.colliders[spider], &scene.colliders[side]);
    let (ma, mb) = (ca.mesh(), cb.mesh());
    let (sa, sb) = (Sides::new(ma, Orientation::of(ma)), Sides::new(mb, Orientation::of(mb)));
    let pb = scene.document.parts[side].pose.to_pose();
    let mut checked = 0;
    for case in 0..12 {
        let urdf = scene.document.parts[spider].pose.to_pose();
        let turn = DQuat::from_scaled_axis(DVec3::new(rnd(), rnd(), rnd()) * 0.01);
        let pa = Pose::new(turn * urdf.rotation, urdf.translation + DVec3::new(rnd(), rnd(), rnd()) * 0.002);
        let contacts: Vec<ContactPoint> = mockup_ccd::proximity(ca, &pa, cb, &pb, radius)
            .value
            .iter()
            .map(|p| ContactPoint::from_pair(0, 1, p).seated((&sa, &pa), (&sb, &pb), touching))
            .collect();
        for (mesh, pose, other, other_pose, of_i) in [(ma, &pa, mb, &pb, true), (mb, &pb, ma, &pa, false)] {
            // The vertices with a reading (that every vertex this near has one is
            // `proximity_reads_every_vertex_nearest_point`'s to check, on random meshes).
            for (v, c) in sides::nearest_readings(&contacts, of_i) {
                let x = pose.transform_point(mesh.vertex(v));
                let truth = sides::distance_to(other, other_pose, x);
                if truth >= radius || truth < touching {
                    continue;
                }
                assert!(
                    (c.distance - truth).abs() < 1e-9,
                    "case {case}: vertex {v} read at {}, true {truth}",
                    c.distance
                );
                assert_eq!(
                    c.separation < 0.0,
                    sides::winding(other, other_pose, x) > 0.5,
                    "case {case}: vertex {v} (spider: {of_i}), {c:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} vertices checked");
}
