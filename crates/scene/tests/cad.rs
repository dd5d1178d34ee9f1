//! The CAD-like assemblies (`mockup_scene::cad`): what real exports have, at any size.

use mockup_ccd::mesh::Orientation;
use mockup_ccd::{Collider, Pose, intersects, proximity};
use mockup_scene::cad;

fn part<'a>(a: &'a cad::CadAssembly, name: &str) -> &'a cad::CadPart {
    a.parts.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no part {name}"))
}

#[test]
fn a_module_has_every_kind_of_fit() {
    let a = cad::assembly(cad::MODULE_PARTS, 2);
    assert_eq!(a.parts.len(), cad::MODULE_PARTS);
    for p in &a.parts {
        let o = Orientation::of(&p.mesh);
        assert!(o.consistent, "{} is wound consistently", p.name);
        let stats = p.mesh.stats();
        assert_eq!(stats.degenerate_triangles, 0, "{}", p.name);
        if p.name.ends_with("shell") {
            assert!(stats.boundary_edges > 0, "the shell is open, split at its creases");
        } else {
            assert!(stats.is_closed(), "{} is closed: {stats:?}", p.name);
            assert!(p.mesh.signed_volume() > 0.0, "{} winds outward", p.name);
        }
    }
    let collider = |name: &str| Collider::new(part(&a, name).mesh.clone());
    let id = Pose::IDENTITY;
    let touching = |x: &str, y: &str| {
        let (p, q) = (collider(x), collider(y));
        !proximity(&p, &id, &q, &id, 1e-6).value.is_empty()
    };
    let crossing = |x: &str, y: &str| intersects(&collider(x), &id, &collider(y), &id).value;
    // Pressed in: dowels in both plates, the bearing in its housing.
    for (x, y) in [("m0_dowel0", "m0_base"), ("m0_dowel1", "m0_cover"), ("m0_bearing", "m0_housing")] {
        assert!(crossing(x, y), "{x} is pressed into {y}");
    }
    // Zero clearance and coincident faces: touching, not crossing.
    for (x, y) in [
        ("m0_bolt0", "m0_base"),
        ("m0_bolt0", "m0_cover"),
        ("m0_nut0", "m0_bolt0"),
        ("m0_nut0", "m0_base"),
        ("m0_cover", "m0_base"),
        ("m0_housing", "m0_cover"),
        ("m0_shaft", "m0_bearing"),
        ("m0_shell", "m0_cover"),
        ("m0_gear", "m0_cover"),
    ] {
        assert!(touching(x, y), "{x} touches {y}");
    }
    // The gear is inside the shell, not touching it.
    assert!(!touching("m0_gear", "m0_shell") && !crossing("m0_gear", "m0_shell"));
}

#[test]
fn sizes_follow_the_part_count_and_detail() {
    let small = cad::assembly(40, 1);
    assert_eq!(small.parts.len(), 40);
    assert!(small.parts[39].name.starts_with("m2_"));
    let per_module: Vec<usize> = (1..=4).map(|d| cad::assembly(cad::MODULE_PARTS, d).triangles()).collect();
    eprintln!("triangles per module by detail 1..4: {per_module:?}");
    assert!(per_module.windows(2).all(|w| w[1] > w[0]));
}

/// The four cap screws of a finely tessellated module, at the distances of the 1,000-part
/// assembly (scene size 1,880 mm: εr 0.16 mm next to a 5 mm screw), pulled 2 mm a step straight
/// up, and pulled up and a little sideways as a hand on a screen does (the sideways part
/// presses the screw into its holes' walls). Each comes out of its zero-clearance holes,
/// never moving sideways or tilting while in them, never entering a part it was not fitted
/// in. Every row of such a pull touches; rounding once made the solve tilt the screw until it
/// wedged (docs/cone.md §5), and the sideways pull once held the screw's ends where they met
/// the next plate's face (docs/contact-from-start.md §3).
#[test]
fn cap_screws_come_out_at_the_scale_of_a_large_assembly() {
    use glam::DVec3;
    use mockup_solver::{SolverSettings, World};
    let a = cad::assembly(cad::MODULE_PARTS, 4);
    let names: Vec<String> = a.parts.iter().map(|p| p.name.clone()).collect();
    let colliders = mockup_scene::load::build_colliders(a.parts.into_iter().map(|p| p.mesh).collect(), &mut |_, _| {});
    for pull in [DVec3::Z, DVec3::new(0.0, 0.1, 1.0).normalize(), DVec3::new(-0.07, -0.05, 1.0).normalize()] {
        let mut world = World::new(SolverSettings::for_scene_size(1880.0)).unwrap();
        for c in &colliders {
            world.add_body(c.clone(), Pose::IDENTITY, false);
        }
        for b in 0..4 {
            let id = names.iter().position(|n| *n == format!("m0_bolt{b}")).unwrap();
            let fitted = world.intersecting_pairs_with(&[id]);
            let start = world.body(id).unwrap().pose;
            let (mut last, mut stopped_before) = (0.0, false);
            for k in 1..=24 {
                let target = Pose::from_translation(start.translation + pull * 2.0 * k as f64);
                let r = world.drag(id, target).unwrap();
                let pose = world.body(id).unwrap().pose;
                let rise = pose.translation.z - start.translation.z;
                let sideways = (pose.translation - start.translation).truncate().length();
                // Its shank's end, 37 mm below the cover's top face, is in a hole until then.
                if rise < 37.0 - 1e-6 {
                    assert!(sideways < 1e-6, "bolt{b} pulled {pull} step {k}: moved sideways by {sideways}");
                    assert!(
                        pose.rotation.angle_between(start.rotation) < 1e-9,
                        "bolt{b} pulled {pull} step {k}: tilted"
                    );
                }
                for pair in world.intersecting_pairs_with(&[id]) {
                    assert!(fitted.contains(&pair), "bolt{b} pulled {pull} step {k}: entered {pair:?}");
                }
                // A step may stop short where a ring of the screw's vertices meets the edge of
                // the next plate's hole or face (the next step slides on), but two in a row is
                // a stall.
                let stopped = !r.reached && rise < last + 0.1;
                assert!(!(stopped && stopped_before), "bolt{b} pulled {pull} step {k}: stalled at {rise}");
                (last, stopped_before) = (rise, stopped);
            }
            assert!(last > 37.0, "bolt{b} pulled {pull}: came out only {last} mm");
        }
    }
}
