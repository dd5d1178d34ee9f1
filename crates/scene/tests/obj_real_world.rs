//! What real OBJ files hold besides polygons: faces of fewer than three vertices, `l` and `p`
//! elements, free-form curves and surfaces, unknown statements. Each kind is skipped with one
//! warning (its count and first line); a file with no usable face is still an error.

use mockup_scene::obj::{ImportOptions, ObjError, parse};
use mockup_scene::source::Embedded;
use std::path::Path;

fn parse_text(text: &str) -> Result<mockup_scene::obj::ObjAssembly, ObjError> {
    parse(text.as_bytes(), Path::new("d/real.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {})
}

const TETRA: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

#[test]
fn each_kind_is_skipped_with_one_warning_naming_its_count_and_first_line() {
    let text = format!(
        "{TETRA}\
         f 1 2\n\
         l 1 2 3\n\
         f 3\n\
         p 1\n\
         l 2 4\n\
         vp 0.5 0.5\n\
         cstype bspline\n\
         deg 3\n\
         curv 0 1 1 2 3 4\n\
         parm u 0 0 0 0 1 1 1 1\n\
         end\n\
         surf 0 1 0 1 1 2 3 4\n\
         parm u 0 1\n\
         trim 0 1 1\n\
         hole 0 1 1\n\
         scrv 0 1 1\n\
         sp 1\n\
         end\n\
         con 1 0 1 1 2 0 1 1\n\
         bmat u 1 0 0 1\n\
         step 1 1\n\
         curv2 1 2\n\
         lod 3\n\
         frobnicate 1\n\
         frobnicate 2\n\
         f\n"
    );
    let a = parse_text(&text).unwrap();
    assert_eq!(a.parts.len(), 1);
    assert_eq!(a.parts[0].mesh.triangles().len(), 4);
    let expect = [
        (9, "faces with fewer than 3 vertices: 3 skipped"),
        (10, "line elements (`l`): 2 skipped (only faces make parts)"),
        (12, "point elements (`p`): 1 skipped"),
        (14, "free-form geometry statements (`vp`): 1 skipped"),
        (15, "(`cstype`): 1 skipped"),
        (16, "(`deg`): 1 skipped"),
        (17, "(`curv`): 1 skipped"),
        (18, "(`parm`): 2 skipped"),
        (19, "(`end`): 2 skipped"),
        (20, "(`surf`): 1 skipped"),
        (22, "(`trim`): 1 skipped"),
        (23, "(`hole`): 1 skipped"),
        (24, "(`scrv`): 1 skipped"),
        (25, "(`sp`): 1 skipped"),
        (27, "(`con`): 1 skipped"),
        (28, "(`bmat`): 1 skipped"),
        (29, "(`step`): 1 skipped"),
        (30, "(`curv2`): 1 skipped"),
        (31, "display attributes (`lod`): 1 skipped"),
        (32, "unknown statements (`frobnicate`): 2 skipped"),
    ];
    for (line, words) in expect {
        let hits: Vec<&String> =
            a.warnings.iter().filter(|w| w.starts_with(&format!("d/real.obj:{line}: ")) && w.contains(words)).collect();
        assert_eq!(hits.len(), 1, "line {line}, {words:?}: {:#?}", a.warnings);
    }
    // One warning per kind, nothing else (every vertex is used).
    assert_eq!(a.warnings.len(), expect.len(), "{:#?}", a.warnings);
}

#[test]
fn a_file_with_no_usable_face_is_an_error_that_says_what_was_skipped() {
    let e = parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\nf 1 2\nl 3 1\n").unwrap_err();
    assert!(matches!(e, ObjError::NoFaces { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "d/real.obj: no faces that make a surface; line elements (`l`): 2 skipped (only faces make parts); \
         faces with fewer than 3 vertices: 1 skipped (they have no surface)"
    );
    // Bad references in a short face are still errors: the file is broken, not just odd.
    match parse_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 9\nf 1 2 3\n").unwrap_err() {
        ObjError::Syntax { line: 4, message, .. } => assert!(message.contains("out of range"), "{message}"),
        other => panic!("{other}"),
    }
}

/// An edge written as a two-vertex face between polygons (as the samurai monastery in
/// pybullet's data does 201 times) no longer refuses the whole file.
#[test]
fn two_vertex_faces_among_polygons_keep_the_part() {
    let a = parse_text(&format!("o box\n{TETRA}f 1 2\nf 2 3\n")).unwrap();
    assert_eq!(a.part("box").unwrap().mesh.triangles().len(), 4);
    assert!(a.part("box").unwrap().mesh.stats().is_closed());
    assert_eq!(
        a.warnings,
        [
            "d/real.obj:10: faces with fewer than 3 vertices: 2 skipped (they have no surface); the first is on this line"
        ]
    );
}
