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
