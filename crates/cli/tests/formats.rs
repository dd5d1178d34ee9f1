//! `mockup-cli info` and `toi` on STL and glTF files as well as OBJ: the same cube in three
//! formats gives the same answers.

use mockup_scene::obj::{ImportOptions, load};
use std::path::PathBuf;
use std::process::Command;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mockup-cli")).args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The CCD tests' cube (2 × 2 × 2 at the origin) as cube.obj, cube.STL and cube.gltf (with
/// cube.bin beside it) in a fresh folder.
/// The cube in three formats, in a folder of the calling test's own (`tag`): tests run in
/// parallel, and one rewriting a file another's process is reading made it read 0 bytes.
fn cubes(tag: &str) -> (PathBuf, [String; 3]) {
    let dir = std::env::temp_dir().join(format!("mockup-cli-formats-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ccd/tests/data/ccd-cases/meshes/cube.obj");
    let mesh = load(&obj, &ImportOptions { split_objects: false }, &mut |_| {}).unwrap().parts.remove(0).mesh;
    let triangles: Vec<_> = (0..mesh.triangles().len() as u32).map(|t| mesh.triangle_points(t)).collect();
    std::fs::write(dir.join("cube.STL"), mockup_scene::stl::write_binary(&triangles, "cube")).unwrap();
    let mut bin: Vec<u8> =
        mesh.vertices().iter().flat_map(|p| p.to_array().map(|c| c as f32)).flat_map(f32::to_le_bytes).collect();
    let positions = bin.len();
    bin.extend(mesh.triangles().iter().flatten().flat_map(|&i| i.to_le_bytes()));
    std::fs::write(dir.join("cube.bin"), &bin).unwrap();
    let (lo, hi) = mesh.bounds();
    let gltf = format!(
        r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [0]}}], "nodes": [{{"name": "cube", "mesh": 0}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1}}]}}],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": {}, "type": "VEC3", "min": [{}, {}, {}], "max": [{}, {}, {}]}},
    {{"bufferView": 1, "componentType": 5125, "count": {}, "type": "SCALAR"}}],
  "bufferViews": [{{"buffer": 0, "byteLength": {positions}}}, {{"buffer": 0, "byteOffset": {positions}, "byteLength": {}}}],
  "buffers": [{{"byteLength": {}, "uri": "cube.bin"}}]}}"#,
        mesh.vertices().len(),
        lo.x,
        lo.y,
        lo.z,
        hi.x,
        hi.y,
        hi.z,
        3 * mesh.triangles().len(),
        bin.len() - positions,
        bin.len()
    );
    std::fs::write(dir.join("cube.gltf"), gltf).unwrap();
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    (dir.clone(), [obj.to_string_lossy().into_owned(), path("cube.STL"), path("cube.gltf")])
}

#[test]
fn info_opens_mesh_files_as_scenes() {
    let (dir, files) = cubes("info");
    for f in &files {
        let (code, out, err) = cli(&["info", f]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(out.contains(": 1 parts") && out.contains("12 triangles") && out.contains("solid"), "{f}: {out}");
        assert!(out.contains("bounds (local) [-1.000, -1.000, -1.000] .. [1.000, 1.000, 1.000]"), "{f}: {out}");
    }
    std::fs::write(dir.join("broken.stl"), "solid x\nfacet normal 0 0 1\n outer loop\n vertex 0 0 zero\n").unwrap();
    let (code, out, err) = cli(&["info", &dir.join("broken.stl").to_string_lossy()]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("broken.stl:4: vertex coordinate \"zero\" is not a number"), "{err}");
}

#[test]
fn toi_takes_any_format_and_answers_alike() {
    let (_, files) = cubes("toi");
    let mut answers = Vec::new();
    for moving in &files {
        for fixed in &files {
            let (code, out, err) = cli(&[
                "toi",
                "--moving",
                moving,
                "--from",
                "-5,0,0,0,0,0,1",
                "--to",
                "5,0,0,0,0,0,1",
                "--fixed",
                fixed,
            ]);
            assert_eq!(code, 0, "{moving} {fixed}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            answers.push((v["time"].as_f64(), v["normal"].clone()));
        }
    }
    assert!(answers.iter().all(|a| *a == (Some(0.3), serde_json::json!([-1.0, 0.0, 0.0]))), "{answers:?}");
}
