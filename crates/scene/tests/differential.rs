//! `scenes/differential.ron`: pybullet's gear differential (`differential/diff_ring.urdf`) as
//! a scene of STL parts in millimetres scaled by 0.001. Needs `scripts/fetch-real-meshes`.

use glam::DVec3;
use mockup_scene::load;
use mockup_scene::source::FileSystem;
use std::path::Path;

mod corpus;

/// The first corner of the first facet of a binary STL file, as written (millimetres).
fn first_corner(stl: &Path) -> DVec3 {
    let b = std::fs::read(stl).unwrap();
    DVec3::from_array(std::array::from_fn(|k| {
        f64::from(f32::from_le_bytes(b[96 + 4 * k..100 + 4 * k].try_into().unwrap()))
    }))
}

#[test]
fn the_differential_is_placed_as_its_urdf_places_it() {
    let Some(data) = corpus::pybullet_data("differential") else { return };
    let scene_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/differential.ron");
    let scene = load(&scene_path, &FileSystem, &mut |_| {}).unwrap();
    let parts = &scene.document.parts;
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["ring", "carrier", "spider_a", "spider_b", "side_a", "side_b"]);
    let triangles: Vec<usize> = scene.colliders.iter().map(|c| c.mesh().triangles().len()).collect();
    assert_eq!(triangles, [57_640, 2_808, 11_840, 11_840, 11_722, 11_722]);
    assert!(parts.iter().all(|p| p.scale == mockup_scene::MeshScale::uniform(0.001)));

    // Where a mesh point m (millimetres) goes, by hand from the URDF. The ring's joint puts
    // its link at t = (0.256, 0.2854, 0.03282) unrotated; each visual turns the mesh by
    // rpy = (±π/2, 0, 0), Rx(π/2)(x, y, z) = (x, −z, y), after the mesh scale 0.001. The
    // spiders' joints turn their links by yaw ±1.570795 ≈ ±π/2 first: Rz(π/2)(x, y, z) =
    // (−y, x, z). The side gears' joints add nothing; side_b's visual turns by −π/2.
    let t = DVec3::new(0.256, 0.2854, 0.03282);
    type Turn = fn(DVec3) -> DVec3;
    let by_hand: [(&str, &str, Turn); 4] = [
        ("ring", "diff_ring.stl", |m| DVec3::new(m.x, -m.z, m.y)),
        ("spider_a", "diff_spider.stl", |m| DVec3::new(m.z, m.x, m.y)),
        ("spider_b", "diff_spider.stl", |m| DVec3::new(-m.z, -m.x, m.y)),
        ("side_b", "diff_side.stl", |m| DVec3::new(m.x, m.z, -m.y)),
    ];
    for (name, file, turn) in by_hand {
        let i = names.iter().position(|n| *n == name).unwrap();
        let m = first_corner(&data.join("differential").join(file));
        let mesh = scene.colliders[i].mesh();
        // Welded in order of first use: vertex 0 is the first facet's first corner, scaled.
        assert!((mesh.vertex(0) - 0.001 * m).length() < 1e-12, "{name}");
        let world = parts[i].pose.to_pose().transform_point(mesh.vertex(0));
        // 1.570795 is π/2 to 1.3e-6: 1e-7 m at the gears' 50 mm.
        assert!((world - (t + 0.001 * turn(m))).length() < 2e-7, "{name}: {world} vs {}", t + 0.001 * turn(m));
    }
    // The ring's teeth lie 18 to 32 mm along +y from its centre, 52.9 mm around it.
    let b = mockup_ccd::broad::Aabb::of_mesh(scene.colliders[0].mesh(), &parts[0].pose.to_pose());
    let (lo, hi) = (b.min, b.max);
    assert!((lo - DVec3::new(0.256 - 0.05288, 0.2854 + 0.01821, 0.03282 - 0.05288)).abs().max_element() < 1e-5, "{lo}");
    assert!((hi - DVec3::new(0.256 + 0.05288, 0.2854 + 0.03201, 0.03282 + 0.05288)).abs().max_element() < 1e-5, "{hi}");
    // The ring (with its carrier, one URDF link) is the fixed environment.
    let fixed: Vec<&str> = parts.iter().filter(|p| p.fixed).map(|p| p.name.as_str()).collect();
    assert_eq!(fixed, ["ring", "carrier"]);
}
