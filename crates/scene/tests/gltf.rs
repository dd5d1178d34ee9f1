//! glTF 2.0 and GLB import on files built here by hand (JSON text and a binary buffer): part
//! names, placements through a node hierarchy (translated, rotated, scaled, sheared, mirrored),
//! colours, the three ways buffers are stored; malformed files give errors naming the file
//! and never panic (a proptest mutates a valid GLB byte by byte).

use base64::Engine;
use glam::{DMat4, DQuat, DVec3};
use mockup_ccd::{MeshBuilder, Pose};
use mockup_scene::gltf::{GltfError, parse};
use mockup_scene::mesh_file::{Assembly, ImportOptions};
use mockup_scene::source::Embedded;
use proptest::prelude::*;
use std::f64::consts::FRAC_PI_2;
use std::path::Path;

/// A unit cube centred on the origin, wound outward: 8 positions (f32), 36 u16 indices.
fn cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let b = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5));
    (b.vertices, b.triangles)
}

/// The binary buffer: positions (96 bytes), then indices (72 bytes).
fn buffer() -> Vec<u8> {
    let (v, t) = cube();
    let mut bin: Vec<u8> = v.iter().flat_map(|p| p.to_array().map(|c| c as f32)).flat_map(f32::to_le_bytes).collect();
    bin.extend(t.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()));
    assert_eq!(bin.len(), 168);
    bin
}

const S: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Two nodes: "frame" (mesh "cube", red) translated (1, 2, 3) and turned 90° about z; its
/// child "lid" (an unnamed mesh, a blue material) translated (0, 0, 1), turned 90° about x and
/// scaled (2, 1, 0.5). `NODES`, `BUFFER` and `EXTRA` are replaced by the tests.
const JSON: &str = r#"{
  "asset": {"version": "2.0", "generator": "by hand"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": NODES,
  "meshes": [
    {"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]},
    {"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 1}EXTRA]}
  ],
  "materials": [
    {"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0]}},
    {"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 0.5]}}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3", "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
    {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}
  ],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 96},
    {"buffer": 0, "byteOffset": 96, "byteLength": 72}
  ],
  "buffers": [{"byteLength": 168BUFFER}]
}"#;

fn nodes() -> String {
    format!(
        r#"[
    {{"name": "frame", "mesh": 0, "translation": [1, 2, 3], "rotation": [0, 0, {S}, {S}], "children": [1]}},
    {{"name": "lid", "mesh": 1, "translation": [0, 0, 1], "rotation": [{S}, 0, 0, {S}], "scale": [2, 1, 0.5]}}
  ]"#
    )
}

fn json(nodes: &str, buffer: &str, extra: &str) -> String {
    JSON.replace("NODES", nodes).replace("BUFFER", buffer).replace("EXTRA", extra)
}

fn data_uri(bin: &[u8]) -> String {
    format!(
        r#", "uri": "data:application/octet-stream;base64,{}""#,
        base64::engine::general_purpose::STANDARD.encode(bin)
    )
}

fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let mut out = Vec::new();
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend(((12 + 8 + j.len() + 8 + b.len()) as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(b);
    out
}

fn valid_glb() -> Vec<u8> {
    glb(&json(&nodes(), "", ""), &buffer())
}

fn parse_with(bytes: &[u8], name: &str, source: &Embedded, split: bool) -> Result<Assembly, GltfError> {
    parse(bytes, Path::new(name), source, &ImportOptions { split_objects: split })
}

fn parse_bytes(bytes: &[u8], name: &str) -> Result<Assembly, GltfError> {
    parse_with(bytes, name, &Embedded::default(), true)
}

fn error(bytes: &[u8]) -> String {
    parse_bytes(bytes, "dir/model.gltf").unwrap_err().to_string()
}

/// The world transforms the nodes give, worked out by hand from the JSON.
fn frame_world() -> DMat4 {
    DMat4::from_translation(DVec3::new(1.0, 2.0, 3.0)) * DMat4::from_quat(DQuat::from_rotation_z(FRAC_PI_2))
}

fn lid_world() -> DMat4 {
    frame_world()
        * DMat4::from_translation(DVec3::Z)
        * DMat4::from_quat(DQuat::from_rotation_x(FRAC_PI_2))
        * DMat4::from_scale(DVec3::new(2.0, 1.0, 0.5))
}

/// Every triangle of the part, placed by its pose, is the cube's triangle placed by `world`
/// (to the f32 the file is written in), wound the other way if `world` mirrors; and the part
/// is a closed solid wound outward.
fn assert_placed(a: &Assembly, part: usize, world: DMat4) {
    let p = &a.parts[part];
    let (v, t) = cube();
    let order = if world.determinant() < 0.0 { [0, 2, 1] } else { [0, 1, 2] };
    assert_eq!(p.mesh.triangles().len(), t.len(), "{}", p.name);
    for (k, tri) in t.iter().enumerate() {
        let got = p.mesh.triangle_points(k as u32).map(|q| p.pose.transform_point(q));
        for c in 0..3 {
            let want = world.transform_point3(v[tri[order[c]] as usize]);
            assert!((got[c] - want).length() < 1e-6, "{}: triangle {k}: {} vs {want}", p.name, got[c]);
        }
    }
    assert!(p.mesh.stats().is_closed() && p.mesh.signed_volume() > 0.0, "{}: {:?}", p.name, p.mesh.stats());
}

#[test]
fn a_two_node_hierarchy_places_named_coloured_parts() {
    let bin = buffer();
    // The URI is percent-encoded; the file's name has a space.
    let files = Embedded::new([("dir/cube data.bin", Box::leak(bin.clone().into_boxed_slice()) as &[u8])]);
    let variants: Vec<(&str, Vec<u8>)> = vec![
        ("GLB", valid_glb()),
        ("data: URI", json(&nodes(), &data_uri(&bin), "").into_bytes()),
        ("file beside it", json(&nodes(), r#", "uri": "cube%20data.bin""#, "").into_bytes()),
    ];
    for (how, bytes) in variants {
        let a = parse_with(&bytes, "dir/model.gltf", &files, true).unwrap_or_else(|e| panic!("{how}: {e}"));
        let names: Vec<&str> = a.parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["frame", "lid"], "{how}");
        assert_eq!(a.parts[0].color, Some([1.0, 0.0, 0.0]));
        assert_eq!(a.parts[1].color, Some([0.2, 0.4, 0.6]));
        assert_placed(&a, 0, frame_world());
        assert_placed(&a, 1, lid_world());
        // The pose is the world rotation and translation; the scale is in the vertices.
        let lid = &a.parts[1];
        let rotation = DQuat::from_rotation_z(FRAC_PI_2) * DQuat::from_rotation_x(FRAC_PI_2);
        assert!(lid.pose.rotation.dot(rotation).abs() > 1.0 - 1e-12, "{how}: {:?}", lid.pose.rotation);
        assert!((lid.pose.translation - DVec3::new(1.0, 2.0, 4.0)).length() < 1e-6, "{how}");
        let (lo, hi) = lid.mesh.bounds();
        assert!((lo - DVec3::new(-1.0, -0.5, -0.25)).length() < 1e-6 && (hi + lo).length() < 1e-6, "{how}: {lo} {hi}");
        assert!(a.warnings.is_empty(), "{how}: {:?}", a.warnings);
    }
}

#[test]
fn the_whole_file_as_one_part_bakes_every_transform() {
    let a = parse_with(&valid_glb(), "dir/model.glb", &Embedded::default(), false).unwrap();
    assert_eq!(a.parts.len(), 1);
    let p = &a.parts[0];
    assert_eq!((p.name.as_str(), p.color, p.pose), ("model", Some([1.0, 0.0, 0.0]), Pose::IDENTITY));
    assert_eq!(p.mesh.triangles().len(), 24);
    let (v, t) = cube();
    for (k, tri) in t.iter().enumerate() {
        for (world, offset) in [(frame_world(), 0), (lid_world(), 12)] {
            let got = p.mesh.triangle_points((offset + k) as u32);
            for c in 0..3 {
                assert!((got[c] - world.transform_point3(v[tri[c] as usize])).length() < 1e-6);
            }
        }
    }
}

/// A non-uniform scale above a rotated child shears it: the polar decomposition still puts a
/// rotation in the pose and reproduces the transform exactly. A mirroring scale keeps the
/// part wound outward.
#[test]
fn shear_and_mirror_are_baked_into_the_vertices() {
    let sheared = r#"[
    {"name": "frame", "mesh": 0, "scale": [1, 3, 1], "children": [1]},
    {"name": "lid", "mesh": 1, "rotation": [0, 0, 0.25881904510252074, 0.9659258262890683], "translation": [0.5, 0, 0]}
  ]"#;
    let mirrored = r#"[
    {"name": "frame", "mesh": 0, "scale": [-1, 1, 1], "translation": [5, 0, 0], "children": [1]},
    {"name": "lid", "mesh": 1, "matrix": [0, 2, 0, 0, -2, 0, 0, 0, 0, 0, -1, 0, 1, 1, 1, 1]}
  ]"#;
    // 30° about z, as the file's f32 numbers give it.
    let half = 15f64.to_radians();
    let q30 = DQuat::from_array([0.0, 0.0, half.sin() as f32 as f64, half.cos() as f32 as f64]).normalize();
    let cases = [
        (
            sheared,
            DMat4::from_scale(DVec3::new(1.0, 3.0, 1.0)),
            DMat4::from_rotation_translation(q30, DVec3::new(0.5, 0.0, 0.0)),
        ),
        (
            mirrored,
            DMat4::from_translation(DVec3::new(5.0, 0.0, 0.0)) * DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0)),
            DMat4::from_cols_array(&[0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 1.0, 1.0, 1.0]),
        ),
    ];
    for (nodes, frame, lid_local) in cases {
        let a = parse_bytes(&glb(&json(nodes, "", ""), &buffer()), "m.glb").unwrap();
        assert_placed(&a, 0, frame);
        assert_placed(&a, 1, frame * lid_local);
        for p in &a.parts {
            assert!((p.pose.rotation.length() - 1.0).abs() < 1e-12);
        }
        // Merged, the same (and still outward).
        let m = parse_with(&glb(&json(nodes, "", ""), &buffer()), "m.glb", &Embedded::default(), false).unwrap();
        assert!(m.parts[0].mesh.signed_volume() > 0.0);
    }
}

#[test]
fn instances_of_one_mesh_get_distinct_names_and_other_modes_are_skipped() {
    let nodes = r#"[{"children": [1, 2]}, {"mesh": 0}, {"mesh": 0, "translation": [3, 0, 0]}, {"mesh": 1}]"#;
    // A line strip in the second mesh, which node 3 places outside the scene (not a root).
    let lines = r#", {"attributes": {"POSITION": 0}, "mode": 3}"#;
    let a = parse_bytes(&glb(&json(nodes, "", lines), &buffer()), "m.glb").unwrap();
    let names: Vec<&str> = a.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["cube", "cube (2)"]);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    // Now in the scene: its triangles become a part, the strip a warning.
    let nodes = r#"[{"children": [1, 2, 3]}, {"mesh": 0}, {"mesh": 0, "translation": [3, 0, 0]}, {"mesh": 1, "translation": [6, 0, 0]}]"#;
    let a = parse_bytes(&glb(&json(nodes, "", lines), &buffer()), "m.glb").unwrap();
    assert_eq!(a.parts.len(), 3);
    assert_eq!(a.parts[2].name, "node 3");
    let w = a.warnings.join("\n");
    assert!(w.contains("m.glb: skipped 1 × a primitive of lines (the first: mesh 1 primitive 1)"), "{w}");
    // Nothing but lines: an error saying what was skipped.
    let only_lines = JSON
        .replace("NODES", r#"[{"mesh": 0}]"#)
        .replace("BUFFER", "")
        .replace("EXTRA", "")
        .replace(r#""indices": 1, "material": 0}"#, r#""mode": 1}"#);
    let e = parse_bytes(&glb(&only_lines, &buffer()), "m.glb").unwrap_err().to_string();
    assert!(e.contains("m.glb: no triangles (skipped: 1 × a primitive of lines"), "{e}");
    // A zero scale hides an instance: skipped, with a warning.
    let nodes = r#"[{"children": [1, 2]}, {"mesh": 0}, {"mesh": 1, "scale": [0, 1, 1]}]"#;
    let a = parse_bytes(&glb(&json(nodes, "", ""), &buffer()), "m.glb").unwrap();
    assert_eq!(a.parts.len(), 1);
    assert!(a.warnings.join("\n").contains("zero scale"), "{:?}", a.warnings);
}

#[test]
fn malformed_files_give_clear_errors() {
    let bin = buffer();
    let good = json(&nodes(), &data_uri(&bin), "");
    let cases: Vec<(String, &str)> = vec![
        ("{\"asset\": {\"version\": \"2.0\"},\n \"nodes\": [ }".into(), "line 2 column"),
        (json(&nodes(), &data_uri(&bin[..100]), ""), "buffer 0 has 100 bytes, but the file says 168"),
        (
            good.replace(r#""byteOffset": 96, "byteLength": 72"#, r#""byteOffset": 96, "byteLength": 100"#),
            "buffer view 1 (bytes 96 to 196) reaches past the end of buffer 0 (168 bytes)",
        ),
        (good.replace(r#""count": 36"#, r#""count": 40"#), "accessor 1 (indices): 40 elements of 2 bytes"),
        (
            good.replace(r#""indices": 1, "material": 0"#, r#""indices": 7, "material": 0"#),
            "meshes[0].primitives[0].indices: Index out of bounds",
        ),
        (
            good.replace(
                r#""POSITION": 0}, "indices": 1, "material": 0"#,
                r#""POSITION": 9}, "indices": 1, "material": 0"#,
            ),
            "accessor 9 does not exist",
        ),
        (good.replace(r#""componentType": 5123"#, r#""componentType": 5126"#), "accessor 1 (indices) is Scalar of F32"),
        (
            json(&nodes(), r#", "uri": "gone.bin""#, ""),
            "buffer 0: file \"gone.bin\" not found (resolved to dir/gone.bin)",
        ),
        (json(&nodes(), r#", "uri": "https://example.invalid/b.bin""#, ""), "only data: URIs and files beside"),
        (json(&nodes(), r#", "uri": "data:application/octet-stream;base64,@@@@""#, ""), "not valid base64"),
        (good.replace(r#""children": [1]"#, r#""children": [1, 0]"#), "node 0 is reached twice"),
        (
            good.replace(r#""asset""#, r#""extensionsRequired": ["KHR_draco_mesh_compression"], "asset""#),
            "requires the extension KHR_draco_mesh_compression",
        ),
        (
            json(r#"[{"mesh": 0, "matrix": [1,0,0,1, 0,1,0,0, 0,0,1,0, 0,0,0,1]}]"#, &data_uri(&bin), ""),
            "node 0: its matrix is not affine",
        ),
        (
            json(r#"[{"mesh": 0, "rotation": [0, 0, 0, 0]}]"#, &data_uri(&bin), ""),
            "node 0: its rotation [0.0, 0.0, 0.0, 0.0] is not a unit quaternion",
        ),
        (json(&nodes(), "", ""), "buffer 0 is the GLB binary chunk, but the file has none"),
    ];
    for (text, words) in cases {
        let e = error(text.as_bytes());
        assert!(e.starts_with("dir/model.gltf: ") && e.contains(words), "{words}: {e}");
    }
    // An index out of range, written in the buffer.
    let mut bad = bin.clone();
    bad[96 + 2 * 5..96 + 2 * 5 + 2].copy_from_slice(&8u16.to_le_bytes());
    let e = error(json(&nodes(), &data_uri(&bad), "").as_bytes());
    assert!(e.contains("accessor 1 (indices): element 5 is vertex 8, but POSITION has 8 vertices"), "{e}");
    // A NaN position.
    let mut bad = bin.clone();
    bad[12..16].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(
        error(json(&nodes(), &data_uri(&bad), "").as_bytes())
            .contains("accessor 0 (POSITION): element 1 is not finite")
    );
    // GLB containers: truncated, another version, a chunk longer than the file.
    let g = valid_glb();
    let e = error(&g[..g.len() - 10]);
    assert!(e.contains(&format!("GLB: the header says {} bytes, but the file has {}", g.len(), g.len() - 10)), "{e}");
    let mut v1 = g.clone();
    v1[4] = 1;
    assert!(error(&v1).contains("GLB version 1"));
    let mut long = g.clone();
    long[12..16].copy_from_slice(&4000u32.to_le_bytes());
    assert!(error(&long).contains("GLB: the chunk at byte offset 12 says 4000 bytes"), "{}", error(&long));
    assert!(error(b"glTF\x02\x00").contains("less than the 12-byte header"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random bytes of a valid GLB replaced (in its JSON or its buffer), or the file cut
    /// short: a result every time, and an error names the file.
    #[test]
    fn mutated_glb_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in prop::option::weighted(0.2, any::<prop::sample::Index>()),
        split in any::<bool>(),
    ) {
        let mut bytes = valid_glb();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Some(at) = cut {
            bytes.truncate(at.index(bytes.len()));
        }
        if let Err(e) = parse_with(&bytes, "m.glb", &Embedded::default(), split) {
            prop_assert!(e.to_string().contains("m.glb"), "{}", e);
        }
    }

    /// The same for the JSON text of a `.gltf` with a data: URI: digits and brackets changed.
    #[test]
    fn mutated_gltf_json_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(&b"0123456789[]{},-\"e."[..])), 1..4),
    ) {
        let mut bytes = json(&nodes(), &data_uri(&buffer()), "").into_bytes();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Err(e) = parse_with(&bytes, "m.gltf", &Embedded::default(), true) {
            prop_assert!(e.to_string().contains("m.gltf"), "{}", e);
        }
    }
}
