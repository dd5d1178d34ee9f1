//! File → Import takes every mesh format Mockup reads (OBJ, STL binary and ASCII, glTF, GLB)
//! through the same command the dialog and the typed path send, on a task; the parts it makes
//! can be dragged; a file of another kind, or a broken one, is an error naming it and the open
//! scene stays.

mod common;

use bevy::prelude::*;
use common::*;
use glam::DVec3;
use mockup::files::{Errors, FileCommand, Origin, SceneFile};
use mockup::part::PartId;
use mockup::solver::Solver;
use mockup_ccd::{MeshBuilder, Pose};
use std::path::{Path, PathBuf};

/// A unit cube's triangles, centred at `c`.
fn cube(c: DVec3) -> Vec<[DVec3; 3]> {
    let b = MeshBuilder::new().cuboid(Pose::from_translation(c), DVec3::splat(0.5));
    b.triangles.iter().map(|t| t.map(|i| b.vertices[i as usize])).collect()
}

/// A GLB holding one cube mesh (f32 positions, u16 indices), placed by two nodes named
/// "left" and "right" at x = −2 and x = +2.
fn glb() -> Vec<u8> {
    let b = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5));
    let mut bin: Vec<u8> =
        b.vertices.iter().flat_map(|p| p.to_array().map(|c| c as f32)).flat_map(f32::to_le_bytes).collect();
    let positions = bin.len();
    bin.extend(b.triangles.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()));
    let indices = bin.len() - positions;
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let json = format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0, 1]}}],
 "nodes": [{{"name": "left", "mesh": 0, "translation": [-2, 0, 0]}}, {{"name": "right", "mesh": 0, "translation": [2, 0, 0]}}],
 "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1}}]}}],
 "accessors": [
  {{"bufferView": 0, "componentType": 5126, "count": {nv}, "type": "VEC3", "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]}},
  {{"bufferView": 1, "componentType": 5123, "count": {ni}, "type": "SCALAR"}}],
 "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": {positions}}}, {{"buffer": 0, "byteOffset": {positions}, "byteLength": {indices}}}],
 "buffers": [{{"byteLength": {len}}}]}}"#,
        nv = b.vertices.len(),
        ni = b.triangles.len() * 3,
        len = bin.len()
    );
    let mut json = json.into_bytes();
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((json.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    out
}

/// Imports `file` through the command File → Import sends, waits for the task.
fn import(app: &mut App, file: &Path) {
    app.world_mut().write_message(FileCommand::ImportPath(file.to_path_buf()));
    app.update();
    wait_loaded(app);
}

fn names(app: &mut App) -> Vec<String> {
    let mut q = app.world_mut().query::<(&PartId, &Name)>();
    let mut v: Vec<(usize, String)> = q.iter(app.world()).map(|p| (p.0.0, p.1.to_string())).collect();
    v.sort();
    v.into_iter().map(|p| p.1).collect()
}

#[test]
fn stl_binary_and_ascii_gltf_and_glb_import_and_their_parts_drag() {
    let dir = temp_dir("import");
    let stl = dir.join("block.stl");
    std::fs::write(&stl, mockup_scene::stl::write_binary(&cube(DVec3::ZERO), "block")).unwrap();
    let ascii = dir.join("ascii.STL");
    std::fs::write(&ascii, mockup_scene::stl::write_ascii(&cube(DVec3::ZERO), "ascii")).unwrap();
    let glb_file = dir.join("pair.glb");
    std::fs::write(&glb_file, glb()).unwrap();
    for (file, parts) in [(&stl, 1), (&ascii, 1), (&glb_file, 2)] {
        let mut app = app_with(cube_and_wall());
        import(&mut app, file);
        let errors = &app.world().resource::<Errors>().0;
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
        assert_eq!(app.world().resource::<Solver>().bodies().len(), parts, "{}", file.display());
        assert_eq!(app.world().resource::<SceneFile>().origin, Origin::Import(file.clone()));
        if parts == 2 {
            assert_eq!(names(&mut app), ["left", "right"]);
            let x = app.world().resource::<Solver>().poses()[1].translation.x;
            assert!((x - 2.0).abs() < 1e-6, "the node's placement: {x}");
        }
        // No part is fixed: the first one drags (the pointer comes down through its top).
        assert!(app.world().resource::<Solver>().bodies().iter().all(|b| !b.fixed));
        let start = app.world().resource::<Solver>().poses()[0].translation;
        let (x, y) = (start.x, start.y);
        frame(&mut app, pointer(x, y, PRESS));
        for (px, py) in ramp((x, y), (x, y + 0.5), 5) {
            frame(&mut app, pointer(px, py, HOLD));
        }
        frame(&mut app, pointer(x, y + 0.5, UP));
        settle(&mut app);
        let moved = app.world().resource::<Solver>().poses()[0].translation - start;
        assert!((moved - DVec3::new(0.0, 0.5, 0.0)).length() < 1e-6, "{}: moved {moved}", file.display());
    }
}

#[test]
fn a_file_of_another_kind_or_a_broken_one_is_an_error_and_the_scene_stays() {
    let dir = temp_dir("import-bad");
    let txt = dir.join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    let broken = dir.join("broken.stl");
    std::fs::write(&broken, b"solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0 oops\n").unwrap();
    let broken_glb = dir.join("broken.glb");
    std::fs::write(&broken_glb, &glb()[..40]).unwrap();
    for file in [&txt, &broken, &broken_glb] {
        let mut app = app_with(cube_and_wall());
        import(&mut app, file);
        let errors = &app.world().resource::<Errors>().0;
        assert_eq!(errors.len(), 1, "{}: {errors:?}", file.display());
        assert!(errors[0].contains(file.file_name().unwrap().to_str().unwrap()), "{}", errors[0]);
        assert_eq!(names(&mut app), ["cube", "wall"], "the open scene stays");
    }
}

/// What `mockup PATH` and the Recent menu open: scenes by `.ron`, meshes by their extension
/// (any case), anything else refused with a message naming it.
#[test]
fn a_path_opens_as_a_scene_or_imports_by_its_extension() {
    let p = |s: &str| PathBuf::from(s);
    assert_eq!(Origin::of_path(&p("a/b.ron")), Ok(Origin::Scene(p("a/b.ron"))));
    for mesh in ["x.obj", "x.STL", "x.stl", "x.gltf", "x.GLB"] {
        assert_eq!(Origin::of_path(&p(mesh)), Ok(Origin::Import(p(mesh))), "{mesh}");
    }
    let e = Origin::of_path(&p("notes.txt")).unwrap_err();
    assert!(e.contains("notes.txt") && e.contains(".stl"), "{e}");
}
