//! OBJ import on good and malformed files.

use mockup_ccd::MeshBuilder;
use mockup_ccd::Pose;
use mockup_scene::obj::{ImportOptions, ObjError, WritePart, parse, write};
use mockup_scene::source::Embedded;
use proptest::prelude::*;
use std::path::Path;

fn parse_text(text: &str) -> Result<mockup_scene::obj::ObjAssembly, ObjError> {
    parse(text.as_bytes(), Path::new("dir/test.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {})
}

fn error_line(text: &str) -> (usize, String) {
    match parse_text(text).unwrap_err() {
        ObjError::Syntax { line, message, .. } => (line, message),
        other => panic!("expected a syntax error, got {other}"),
    }
}

const SQUARE: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

#[test]
fn objects_and_groups_become_parts() {
    let a =
        parse_text(&format!("{SQUARE}o first\nf 1 2 3 4\ng second\nf 1 2 3\nf -4 -3 -1\no first\nf 2 3 4\n")).unwrap();
    let names: Vec<&str> = a.parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    // The quad as a fan of two, and the reopened object's face appended.
    assert_eq!(a.parts[0].mesh.triangles().len(), 3);
    assert_eq!(a.parts[1].mesh.triangles().len(), 2);
    assert_eq!(a.parts[0].line, 6);
    // Open meshes are a warning.
    assert!(a.warnings.iter().any(|w| w.contains("\"first\" is open")), "{:?}", a.warnings);
}

#[test]
fn a_zero_area_face_is_named_by_its_line() {
    let a = parse_text(&format!("{SQUARE}f 1 2 3\nf 1 3 4\nf 1 2 2\nf 2 3 4\n")).unwrap();
    assert!(
        a.warnings.iter().any(|w| w.starts_with("dir/test.obj:7: ") && w.contains("1 zero-area")),
        "{:?}",
        a.warnings
    );
}

#[test]
fn a_backslash_continues_a_line() {
    let a = parse_text(&format!("{SQUARE}f 1 2 \\\n 3 4\nf 1 \\  \r\n3 \\\n2\n")).unwrap();
    assert_eq!(a.parts[0].mesh.triangles().len(), 3);
    // An error in a joined line names its first line.
    assert_eq!(error_line(&format!("{SQUARE}f 1 2 \\\n 3 9\n")).0, 5);
}

#[test]
fn the_whole_file_as_one_part() {
    let opts = ImportOptions { split_objects: false };
    let text = format!("{SQUARE}o first\nf 1 2 3\ng second\nf 1 3 4\n");
    let a = parse(text.as_bytes(), Path::new("dir/whole.obj"), &Embedded::default(), &opts, &mut |_| {}).unwrap();
    assert_eq!(a.parts.len(), 1);
    assert_eq!(a.parts[0].name, "whole");
    assert_eq!(a.parts[0].mesh.triangles().len(), 2);
}

#[test]
fn relative_indices_count_back_from_the_last_vertex() {
    let a = parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -2 -1\n").unwrap();
    let m = &a.parts[0].mesh;
    assert_eq!(m.triangles().len(), 2);
    assert_eq!(m.triangle_points(1)[2], glam::DVec3::new(0.0, 0.0, 1.0));
}

#[test]
fn unreferenced_vertices_are_dropped_and_duplicates_welded() {
    // Vertex 5 repeats vertex 1 exactly; vertex 6 is never used.
    let a = parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 0 0\nv 9 9 9\nf 1 3 2\nf 5 2 4\nf 1 4 3\nf 2 3 4\n")
        .unwrap();
    let m = &a.parts[0].mesh;
    assert_eq!(m.vertices().len(), 4);
    assert!(m.stats().is_closed(), "welded, the tetrahedron is closed");
    assert!(a.warnings.iter().any(|w| w.contains("1 unreferenced")), "{:?}", a.warnings);
}

#[test]
fn materials_give_colours_and_missing_files_are_warnings() {
    let mtl: &'static [u8] = b"newmtl red\nKd 1 0 0\nnewmtl textured\nKd 0 0 1\nmap_Kd missing.png\n";
    let src = Embedded::new([("dir/parts.mtl", mtl)]);
    let text = format!(
        "mtllib parts.mtl\nmtllib nothere.mtl\n{SQUARE}o a\nusemtl red\nf 1 2 3\no b\nusemtl textured\nf 1 3 4\n"
    );
    let a = parse(text.as_bytes(), Path::new("dir/test.obj"), &src, &ImportOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(a.part("a").unwrap().color, Some([1.0, 0.0, 0.0]));
    assert_eq!(a.part("b").unwrap().color, Some([0.0, 0.0, 1.0]));
    let w = a.warnings.join("\n");
    assert!(w.contains("dir/test.obj:2: material library \"nothere.mtl\" not loaded"), "{w}");
    assert!(w.contains("texture \"missing.png\""), "{w}");
}

/// A colour line tobj cannot take (it panicked on `Kd 0.5`) is a warning naming the MTL file
/// and line; the rest of the library still loads, and colours are clamped to [0, 1].
#[test]
fn bad_material_colours_are_warnings_naming_the_line() {
    let mtl: &'static [u8] = b"newmtl red\nKd 0.5\nKd 2 0 -1\nnewmtl blue\nKa 1\nKd 0 0 nan\nKd 0 0 1\n";
    let src = Embedded::new([("dir/parts.mtl", mtl)]);
    let text = format!("mtllib parts.mtl\n{SQUARE}o a\nusemtl red\nf 1 2 3\no b\nusemtl blue\nf 1 3 4\n");
    let a = parse(text.as_bytes(), Path::new("dir/test.obj"), &src, &ImportOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(a.part("a").unwrap().color, Some([1.0, 0.0, 0.0]));
    assert_eq!(a.part("b").unwrap().color, Some([0.0, 0.0, 1.0]));
    let w = a.warnings.join("\n");
    for line in [2, 5, 6] {
        assert!(w.contains(&format!("dir/parts.mtl:{line}: ")), "line {line}: {w}");
    }
    assert!(w.contains("Kd needs three finite numbers") && w.contains("Ka needs three"), "{w}");
}
#[test]
fn malformed_files_name_the_line() {
    // A face of two vertices is skipped (tests/obj_real_world.rs); with nothing else, no faces.
    let e = parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n").unwrap_err().to_string();
    assert!(
        e.contains("dir/test.obj: no faces that make a surface; faces with fewer than 3 vertices: 1 skipped"),
        "{e}"
    );
    assert_eq!(error_line(&format!("{SQUARE}f 1 2 5\n")).0, 5);
    assert!(error_line(&format!("{SQUARE}f 1 2 5\n")).1.contains("out of range: 4 vertices"));
    assert!(error_line(&format!("{SQUARE}f 1 2 99999999999999999999999\n")).1.contains("out of range"));
    assert!(error_line(&format!("{SQUARE}f 1 2 -9\n")).1.contains("-9 is out of range"));
    assert!(error_line(&format!("{SQUARE}f 0 1 2\n")).1.contains("start at 1"));
    assert!(error_line(&format!("{SQUARE}f 1 2 x\n")).1.contains("\"x\" is not a vertex reference"));
    assert!(error_line(&format!("{SQUARE}f 1/1/1/1 2 3\n")).1.contains("\"1/1/1/1\" is not a vertex reference"));
    assert!(parse_text(&format!("{SQUARE}f 1/1/1 2//2 3/3\n")).is_ok());
    assert_eq!(error_line("v 0 0 0\nv 1 nan 0\n"), (2, "vertex coordinate \"nan\" is not a finite number".into()));
    assert!(error_line("v 0 0 1e999\n").1.contains("not a finite number"));
    assert_eq!(
        error_line("v 0 0 0\nv 0 1e300 0\n"),
        (2, "vertex coordinate \"1e300\" is too large (the limit is ±1e50)".into())
    );
    assert!(error_line("v 0 0 zero\n").1.contains("\"zero\" is not a number"));
    // Truncated in the middle of a vertex.
    assert_eq!(error_line("v 0 0 0\nv 1 0\n"), (2, "a vertex needs 3 coordinates, found 2".into()));
}

#[test]
fn binary_garbage_empty_files_and_no_faces_are_errors() {
    let garbage: Vec<u8> = (0..2000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let e =
        parse(&garbage, Path::new("x.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(e, ObjError::Syntax { line: 1.., .. }), "{e}");
    assert!(e.to_string().starts_with("x.obj:"), "{e}");
    assert!(matches!(parse_text("").unwrap_err(), ObjError::NoFaces { .. }));
    assert!(parse_text(SQUARE).unwrap_err().to_string().contains("dir/test.obj: no faces at all"));
    // A face whose three vertices are one point: a part with no usable triangle.
    let e = parse_text("v 0 0 0\nf 1 1 1\n").unwrap_err();
    assert!(matches!(e, ObjError::Mesh { line: 2, .. }), "{e}");
}

#[test]
fn progress_rises_to_one() {
    let mut text = String::from("v 0 1 0\n");
    for i in 0..200_000 {
        text.push_str(&format!("v {i} 0 0\n"));
    }
    text.push_str("f 1 2 3\n");
    let mut seen = Vec::new();
    parse(text.as_bytes(), Path::new("big.obj"), &Embedded::default(), &ImportOptions::default(), &mut |f| {
        seen.push(f)
    })
    .unwrap();
    assert!(seen.len() > 2 && seen.windows(2).all(|w| w[0] <= w[1]) && *seen.last().unwrap() == 1.0, "{seen:?}");
}

proptest! {
    /// What `write` writes, `parse` reads back: same parts, colours, and geometry (to the
    /// writer's six decimals).
    #[test]
    fn written_assemblies_read_back(
        parts in prop::collection::vec((0.2..3.0f64, 3u32..12, 3u32..12, -5.0..5.0f64, proptest::option::of((0.0..1.0f32, 0.0..1.0f32, 0.0..1.0f32))), 1..4)
    ) {
        let meshes: Vec<_> = parts
            .iter()
            .map(|&(r, n1, n2, x, _)| MeshBuilder::new().torus(Pose::from_translation(glam::DVec3::new(x, 0.0, 0.0)), 2.0 * r, r * 0.5, n1, n2).build().unwrap())
            .collect();
        let names: Vec<String> = (0..parts.len()).map(|i| format!("part {i}")).collect();
        let colors: Vec<Option<[f32; 3]>> = parts.iter().map(|p| p.4.map(|(r, g, b)| [r, g, b])).collect();
        let write_parts: Vec<WritePart> = (0..parts.len()).map(|i| WritePart { name: &names[i], mesh: &meshes[i], color: colors[i] }).collect();
        let (obj, mtl) = write(&write_parts, "t.mtl");
        let mtl: &'static [u8] = Box::leak(mtl.into_bytes().into_boxed_slice());
        let src = Embedded::new([("t.mtl", mtl)]);
        let a = parse(obj.as_bytes(), Path::new("t.obj"), &src, &ImportOptions::default(), &mut |_| {}).unwrap();
        prop_assert_eq!(a.parts.len(), parts.len());
        for (i, p) in a.parts.iter().enumerate() {
            prop_assert_eq!(&p.name, &names[i]);
            // Vertices are renumbered in order of first use; the triangles' corners agree.
            prop_assert_eq!(p.mesh.triangles().len(), meshes[i].triangles().len());
            for t in 0..p.mesh.triangles().len() as u32 {
                for (u, v) in p.mesh.triangle_points(t).iter().zip(meshes[i].triangle_points(t)) {
                    prop_assert!((*u - v).abs().max_element() <= 5e-7);
                }
            }
            // `usemtl` stays in effect across objects until the next one (OBJ semantics).
            if let Some(c) = colors[..=i].iter().rev().flatten().next().copied() {
                let got = p.color.unwrap();
                for k in 0..3 { prop_assert!((got[k] - c[k]).abs() <= 1e-6); }
            } else {
                prop_assert!(p.color.is_none());
            }
        }
    }
}

/// A concave polygon (an L) is cut into triangles inside it, all facing the face's way; a
/// fan from its first corner would cover part of the notch.
#[test]
fn a_concave_face_becomes_triangles_inside_it() {
    let a = parse_text("v 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 0 0\nf 1 2 3 4 5 6\n").unwrap();
    let mesh = &a.parts[0].mesh;
    assert_eq!(mesh.triangles().len(), 4);
    let mut total = 0.0;
    for t in 0..4 {
        let [p, q, r] = mesh.triangle_points(t);
        let n = (q - p).cross(r - p);
        assert!(n.z > 0.0 && n.x == 0.0 && n.y == 0.0, "triangle {t} faces {n}");
        total += 0.5 * n.z;
        let centre = (p + q + r) / 3.0;
        assert!(!(centre.x > 1.0 && centre.y > 1.0), "triangle {t} lies in the notch");
    }
    assert!((total - 3.0).abs() < 1e-12);
    assert!(!a.warnings.join("\n").contains("crosses itself"), "{:?}", a.warnings);
}
