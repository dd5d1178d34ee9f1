//! Scenes and imports over every mesh format: dispatch by extension (any case), the part's
//! `scale`, glTF poses on import, and the errors of a file Mockup cannot read.

use base64::Engine;
use glam::{DQuat, DVec3};
use mockup_ccd::{MeshBuilder, Pose};
use mockup_scene::source::FileSystem;
use mockup_scene::{MeshScale, SceneError, import, load};
use std::path::PathBuf;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mockup-formats-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A box's triangles (outward), as STL writes them.
fn box_triangles(half: DVec3, at: DVec3) -> Vec<[DVec3; 3]> {
    let m = MeshBuilder::new().cuboid(Pose::from_translation(at), half).build().unwrap();
    (0..m.triangles().len() as u32).map(|t| m.triangle_points(t)).collect()
}

/// A glTF file (data: URI) with one node "pin", a 2 × 2 × 2 cube moved to (0, 0, 5) and
/// turned 90° about z, grey.
fn gltf_text() -> String {
    let b = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE);
    let mut bin: Vec<u8> =
        b.vertices.iter().flat_map(|p| p.to_array().map(|c| c as f32)).flat_map(f32::to_le_bytes).collect();
    bin.extend(b.triangles.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()));
    let uri = base64::engine::general_purpose::STANDARD.encode(&bin);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"name": "pin", "mesh": 0, "translation": [0, 0, 5], "rotation": [0, 0, {s}, {s}]}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1, "material": 0}}]}}],
  "materials": [{{"pbrMetallicRoughness": {{"baseColorFactor": [0.5, 0.5, 0.5, 1]}}}}],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3", "min": [-1, -1, -1], "max": [1, 1, 1]}},
    {{"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}}],
  "bufferViews": [{{"buffer": 0, "byteLength": 96}}, {{"buffer": 0, "byteOffset": 96, "byteLength": 72}}],
  "buffers": [{{"byteLength": 168, "uri": "data:application/octet-stream;base64,{uri}"}}]}}"#
    )
}

fn part(name: &str, mesh: &str, object: Option<&str>, scale: Option<&str>, x: f64) -> String {
    format!(
        "(name: \"{name}\", mesh: \"{mesh}\", object: {}, {}pose: (translation: ({x}, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)), \
         fixed: false, color: (0.5, 0.5, 0.5))",
        object.map_or("None".into(), |o| format!("Some(\"{o}\")")),
        scale.map_or(String::new(), |s| format!("scale: {s}, "))
    )
}

fn scene(parts: &[String]) -> String {
    format!("(version: 1, parts: [{}])", parts.join(",\n"))
}

#[test]
fn a_scene_mixes_obj_stl_and_gltf_parts_with_their_scales() {
    let dir = temp_dir("mix");
    std::fs::write(dir.join("Block.STL"), mockup_scene::stl::write_binary(&box_triangles(DVec3::ONE, DVec3::ZERO), ""))
        .unwrap();
    std::fs::write(dir.join("pin.GLTF"), gltf_text()).unwrap();
    std::fs::write(dir.join("tri.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let text = scene(&[
        part("block", "Block.STL", None, Some("2.0"), 0.0),
        part("pin", "pin.GLTF", Some("pin"), Some("0.25"), 10.0),
        part("tri", "tri.obj", None, None, 20.0),
    ]);
    std::fs::write(dir.join("s.ron"), &text).unwrap();
    let s = load(&dir.join("s.ron"), &FileSystem, &mut |_| {}).unwrap();
    let bounds: Vec<(DVec3, DVec3)> = s.colliders.iter().map(|c| c.mesh().bounds()).collect();
    // The STL box (half-size 1) doubled; the glTF cube (half-size 1, its scale 1) quartered;
    // the OBJ as written. Poses are the document's.
    assert_eq!(bounds[0], (DVec3::splat(-2.0), DVec3::splat(2.0)));
    // (Up to rounding: the file's 90° turn, in f32, is split off into the pose.)
    assert!((bounds[1].0 + 0.25).abs().max_element() < 1e-12 && (bounds[1].1 - 0.25).abs().max_element() < 1e-12);
    assert_eq!(bounds[2], (DVec3::ZERO, DVec3::new(1.0, 1.0, 0.0)));
    assert!(s.colliders[0].mesh().stats().is_closed() && s.colliders[0].culls());
    assert_eq!(s.document.parts[1].pose.to_pose().translation, DVec3::new(10.0, 0.0, 0.0));
    assert_eq!((s.document.parts[0].scale, s.document.parts[2].scale), (MeshScale::uniform(2.0), MeshScale::UNIT));
    // Saved again, the scales stay; the unit one is not written.
    let saved = mockup_scene::document::to_text(&s.document);
    assert!(
        saved.contains("scale: 2.0") && saved.contains("scale: 0.25") && saved.matches("scale").count() == 2,
        "{saved}"
    );
}

#[test]
fn import_reads_every_format_with_the_files_placements() {
    let dir = temp_dir("import");
    std::fs::write(dir.join("model.gltf"), gltf_text()).unwrap();
    std::fs::write(dir.join("block.stl"), mockup_scene::stl::write_ascii(&box_triangles(DVec3::ONE, DVec3::X), "b"))
        .unwrap();
    let g = import(&dir.join("model.gltf"), &Default::default(), &mut |_| {}).unwrap();
    let p = &g.document.parts[0];
    assert_eq!((p.name.as_str(), p.object.as_deref(), p.color, p.fixed), ("pin", Some("pin"), [0.5, 0.5, 0.5], false));
    // (An import fixes no part: the user picks what stays.)
    let pose = p.pose.to_pose();
    assert!((pose.translation - DVec3::new(0.0, 0.0, 5.0)).length() < 1e-6);
    assert!(pose.rotation.dot(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2)).abs() > 1.0 - 1e-12);
    assert!(std::path::Path::new(&p.mesh).is_absolute());
    let s = import(&dir.join("block.stl"), &Default::default(), &mut |_| {}).unwrap();
    let p = &s.document.parts[0];
    assert_eq!((p.name.as_str(), p.object.as_deref()), ("block", None));
    assert_eq!(s.colliders[0].mesh().bounds(), (DVec3::new(0.0, -1.0, -1.0), DVec3::new(2.0, 1.0, 1.0)));
    // The imported scene, saved beside its meshes, loads back the same.
    let mut doc = g.document.clone();
    mockup_scene::load::relative_mesh_paths(&mut doc, &dir);
    mockup_scene::document::save(&doc, &dir.join("g.ron")).unwrap();
    let again = load(&dir.join("g.ron"), &FileSystem, &mut |_| {}).unwrap();
    assert_eq!(again.document.parts[0].mesh, "model.gltf");
    assert_eq!(again.colliders[0].mesh().vertices(), g.colliders[0].mesh().vertices());
    // A format Mockup does not read.
    std::fs::write(dir.join("x.ply"), "ply\n").unwrap();
    let e = import(&dir.join("x.ply"), &Default::default(), &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("x.ply: not a mesh file Mockup reads (expected .obj, .stl, .gltf or .glb)"), "{e}");
}

/// Six times the signed volume of a closed mesh: positive when its triangles face outward.
fn signed_volume(mesh: &mockup_ccd::Mesh) -> f64 {
    let v = mesh.vertices();
    mesh.triangles().iter().map(|t| v[t[0] as usize].dot(v[t[1] as usize].cross(v[t[2] as usize]))).sum()
}

#[test]
fn a_scale_per_axis_stretches_and_a_negative_one_mirrors_keeping_the_outside_out() {
    let dir = temp_dir("mirror");
    // A corner tetrahedron, wound outward, and a box off the origin.
    let tet = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    std::fs::write(dir.join("tet.obj"), tet).unwrap();
    std::fs::write(dir.join("b.stl"), mockup_scene::stl::write_binary(&box_triangles(DVec3::ONE, DVec3::X), ""))
        .unwrap();
    let scales = ["(1.0, -1.0, 1.0)", "(2.0, 3.0, 0.5)", "(-1.0, -1.0, 1.0)", "-0.001", "(0.001, 0.001, -0.001)"];
    for (k, scale) in scales.iter().enumerate() {
        let text =
            scene(&[part("tet", "tet.obj", None, Some(scale), 0.0), part("box", "b.stl", None, Some(scale), 10.0)]);
        std::fs::write(dir.join("s.ron"), &text).unwrap();
        let s = load(&dir.join("s.ron"), &FileSystem, &mut |_| {}).unwrap();
        let d = DVec3::from_array(s.document.parts[0].scale.0);
        for (c, file) in s.colliders.iter().zip([
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z],
            box_triangles(DVec3::ONE, DVec3::X).iter().flat_map(|t| t.iter().copied()).collect(),
        ]) {
            let m = c.mesh();
            assert!(m.stats().is_closed(), "{scale}");
            // Every vertex is a file vertex times the scale, and the outside stays outside.
            assert!(m.vertices().iter().all(|v| file.iter().any(|f| (*f * d - *v).length() < 1e-15)), "{scale}");
            let volume = signed_volume(m);
            let expected = (d.x * d.y * d.z).abs() * if file.len() == 4 { 1.0 } else { 48.0 };
            assert!((volume - expected).abs() < 1e-9 * expected, "{scale}: {volume} against {expected}");
        }
        // Saved again as written: one number when uniform, three otherwise.
        let saved = mockup_scene::document::to_text(&s.document);
        let written = if k == 3 { "scale: -0.001," } else { &format!("scale: {scale},") };
        assert!(saved.matches(written).count() == 2, "{written}: {saved}");
    }
}

#[test]
fn bad_scales_and_unknown_formats_name_the_part() {
    let dir = temp_dir("bad");
    std::fs::write(dir.join("b.stl"), mockup_scene::stl::write_binary(&box_triangles(DVec3::ONE, DVec3::ZERO), ""))
        .unwrap();
    std::fs::write(dir.join("b.ply"), "ply\n").unwrap();
    let load_text = |text: String| {
        std::fs::write(dir.join("s.ron"), &text).unwrap();
        load(&dir.join("s.ron"), &FileSystem, &mut |_| {}).unwrap_err().to_string()
    };
    for bad in ["0.0", "NaN", "inf", "(1.0, 0.0, 2.0)"] {
        let e = load_text(scene(&[part("a", "b.stl", None, None, 0.0), part("big", "b.stl", None, Some(bad), 0.0)]));
        assert!(
            e.contains("s.ron:2:") && e.contains("part \"big\": each scale component must be finite and not zero"),
            "{bad}: {e}"
        );
    }
    let e = load_text(scene(&[part("huge", "b.stl", None, Some("1e60"), 0.0)]));
    assert!(e.contains("s.ron: part \"huge\": scale 1e60: vertex 0 has a coordinate beyond ±1e50"), "{e}");
    let e = load_text(scene(&[part("p", "b.ply", None, None, 0.0)]));
    assert!(e.contains("s.ron: part \"p\": mesh \"b.ply\" is not a mesh file Mockup reads"), "{e}");
}

#[test]
fn a_missing_third_party_mesh_says_how_to_fetch_it() {
    let dir = temp_dir("fetch");
    std::fs::create_dir_all(dir.join("scenes")).unwrap();
    let text = scene(&[part("ring", "../assets/third_party/pybullet_data/differential/gone.stl", None, None, 0.0)]);
    std::fs::write(dir.join("scenes/s.ron"), &text).unwrap();
    let e = load(&dir.join("scenes/s.ron"), &FileSystem, &mut |_| {}).unwrap_err();
    assert!(matches!(e, SceneError::MissingMesh { .. }), "{e}");
    assert!(e.to_string().contains("not found") && e.to_string().ends_with("run scripts/fetch-real-meshes"), "{e}");
    // Elsewhere, no such hint.
    let text = scene(&[part("ring", "../assets/gone.stl", None, None, 0.0)]);
    std::fs::write(dir.join("scenes/s.ron"), &text).unwrap();
    let e = load(&dir.join("scenes/s.ron"), &FileSystem, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("not found") && !e.contains("fetch-real-meshes"), "{e}");
}
