//! STL import: binary and ASCII round trips, a hand-written file, welding into a closed solid,
//! and malformed files whose errors name the file and the line (ASCII) or the facet and byte
//! offset (binary).

use glam::DVec3;
use mockup_ccd::{MeshBuilder, Pose};
use mockup_scene::stl::{StlError, parse, write_ascii, write_binary};
use proptest::prelude::*;
use std::path::Path;

fn triangles_of(mesh: &mockup_ccd::Mesh) -> Vec<[DVec3; 3]> {
    (0..mesh.triangles().len() as u32).map(|t| mesh.triangle_points(t)).collect()
}

fn error(bytes: &[u8]) -> String {
    parse(bytes, Path::new("dir/part.stl")).unwrap_err().to_string()
}

/// A closed torus written as STL (every corner repeated per facet) reads back welded: the
/// same triangles in the same order, closed, a solid with the torus' volume.
#[test]
fn binary_and_ascii_round_trips_weld_a_closed_solid() {
    let torus = MeshBuilder::new().torus(Pose::from_translation(DVec3::new(1.0, -2.0, 0.5)), 2.0, 0.5, 24, 12);
    // Coordinates exactly representable in f32, so the binary file keeps them all.
    let torus = MeshBuilder::new()
        .raw(
            Pose::IDENTITY,
            &torus.vertices.iter().map(|v| v.as_vec3().as_dvec3()).collect::<Vec<_>>(),
            &torus.triangles,
        )
        .build()
        .unwrap();
    let triangles = triangles_of(&torus);
    for (kind, bytes) in [
        ("binary", write_binary(&triangles, "solid torus (a binary header may start with solid)")),
        ("ascii", write_ascii(&triangles, "torus").into_bytes()),
    ] {
        let s = parse(&bytes, Path::new("torus.stl")).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(triangles_of(&s.mesh), triangles, "{kind}");
        assert_eq!(s.mesh.vertices().len(), torus.vertices().len(), "{kind}: corners welded");
        assert!(s.mesh.stats().is_closed(), "{kind}: {:?}", s.mesh.stats());
        assert!((s.mesh.signed_volume() - torus.signed_volume()).abs() < 1e-9, "{kind}");
        assert!(s.warnings.is_empty(), "{kind}: {:?}", s.warnings);
    }
}

proptest! {
    /// Any triangles (with coordinates of either sign, including −0.0) come back exactly from
    /// ASCII STL, and as their f32 roundings from binary STL.
    #[test]
    fn random_triangles_round_trip(points in prop::collection::vec(prop::array::uniform9(-1e3..1e3f64), 1..20)) {
        let triangles: Vec<[DVec3; 3]> = points
            .iter()
            .map(|p| [DVec3::new(p[0], p[1], p[2]), DVec3::new(p[3], p[4], p[5]), DVec3::new(p[6], p[7], p[8])])
            .collect();
        let nondegenerate = |t: &[DVec3; 3]| (t[1] - t[0]).cross(t[2] - t[0]).length() > 1e-6;
        prop_assume!(triangles.iter().all(nondegenerate));
        let ascii = parse(write_ascii(&triangles, "r").as_bytes(), Path::new("r.stl")).unwrap();
        prop_assert_eq!(triangles_of(&ascii.mesh), triangles.clone());
        let binary = parse(&write_binary(&triangles, ""), Path::new("r.stl")).unwrap();
        let rounded: Vec<[DVec3; 3]> = triangles.iter().map(|t| t.map(|p| p.as_vec3().as_dvec3())).collect();
        prop_assert_eq!(triangles_of(&binary.mesh), rounded);
    }

    /// Whatever the bytes, a result; an error names the file.
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), ascii in any::<bool>()) {
        let mut bytes = bytes;
        if ascii {
            bytes.splice(0..0, b"solid x\n facet normal 0 0 1\n outer loop\n".iter().copied());
        }
        if let Err(e) = parse(&bytes, Path::new("x.stl")) {
            prop_assert!(e.to_string().contains("x.stl"), "{}", e);
        }
    }
}

/// A file as a person writes one: upper and lower case, odd spacing, NaN normals (ignored:
/// the winding says which way a facet faces), CRLF line ends, two solids, no blank lines.
#[test]
fn a_hand_written_ascii_file() {
    let text = "solid tetra\r\n\
        facet normal nan nan nan\r\n outer loop\r\n  vertex 0 0 0\r\n  vertex 0 1 0\r\n  vertex 1 0 0\r\n endloop\r\nendfacet\r\n\
        FACET NORMAL 0 0 0\n OUTER LOOP\n VERTEX 0 0 0\n VERTEX 1 0 0\n VERTEX 0 0 1\n ENDLOOP\n ENDFACET\n\
        endsolid tetra\n\
        solid more\n\
        facet normal 0 0 0\n\touter\tloop\n\t\tvertex 0 0 0\n\t\tvertex 0 0 1\n\t\tvertex 0 1 0\n\tendloop\n\tendfacet\n\
        facet normal 1 1 1\n outer loop\n vertex 1e0 0 0\n vertex 0 1.0 0\n vertex 0 0 +1\n endloop\n endfacet\n\
        endsolid\n";
    let s = parse(text.as_bytes(), Path::new("tetra.stl")).unwrap();
    assert_eq!(s.mesh.triangles().len(), 4);
    assert_eq!(s.mesh.vertices().len(), 4);
    assert!(s.mesh.stats().is_closed());
    // Wound outward: positive volume, 1/6.
    assert!((s.mesh.signed_volume() - 1.0 / 6.0).abs() < 1e-15);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn polygons_truncation_and_zero_area_facets_are_warnings() {
    // A square facet (not STL, but exporters write them) is cut in two; no `endsolid` is a
    // warning; a zero-area facet is named by its line.
    let text = "solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\n\
                facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 2 0 0\nendloop\nendfacet\n";
    let s = parse(text.as_bytes(), Path::new("d/s.stl")).unwrap();
    assert_eq!(s.mesh.triangles().len(), 3);
    let w = s.warnings.join("\n");
    assert!(w.contains("d/s.stl:2: a facet with 4 vertices is split"), "{w}");
    assert!(w.contains("d/s.stl:16: the file ends without `endsolid`"), "{w}");
    assert!(w.contains("d/s.stl:10: 1 zero-area triangles are ignored"), "{w}");
    // In a binary file the facet and its byte offset.
    let bin = write_binary(&[[DVec3::ZERO, DVec3::X, DVec3::Y], [DVec3::ZERO, DVec3::X, 2.0 * DVec3::X]], "");
    let s = parse(&bin, Path::new("b.stl")).unwrap();
    assert!(s.warnings.join("\n").contains("b.stl: facet 1 (byte offset 134): 1 zero-area"), "{:?}", s.warnings);
}

#[test]
fn malformed_ascii_names_the_line() {
    let facet = |v: &str| format!("facet normal 0 0 1\n outer loop\n{v} endloop\nendfacet\n");
    let good = " vertex 0 0 0\n vertex 1 0 0\n vertex 0 1 0\n";
    let cases = [
        // (text, line, words)
        (
            format!("solid s\n{}endsolid s\n", facet(" vertex 0 0 0\n vertex 1 x 0\n vertex 0 1 0\n")),
            5,
            "\"x\" is not a number",
        ),
        (
            format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1 NaN 0\n vertex 0 1 0\n")),
            5,
            "\"NaN\" is not a finite number",
        ),
        (
            format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1 inf 0\n vertex 0 1 0\n")),
            5,
            "not a finite number",
        ),
        (
            format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1 0\n vertex 0 1 0\n")),
            5,
            "needs 3 coordinates, found 2",
        ),
        (format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1 0 0 0\n vertex 0 1 0\n")), 5, "found more"),
        (format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1e60 0 0\n vertex 0 1 0\n")), 5, "too large"),
        (
            format!("solid s\n{}endsolid\n", facet(" vertex 0 0 0\n vertex 1 0 0\n")),
            6,
            "a facet needs 3 vertices, found 2",
        ),
        // Missing `endloop`: `endfacet` comes where a vertex or `endloop` belongs.
        (
            format!("solid s\nfacet normal 0 0 1\nouter loop\n{good}endfacet\nendsolid\n"),
            7,
            "expected `vertex` or `endloop`, found `endfacet`",
        ),
        (format!("solid s\nfacet normal 0 0 1\n{good}"), 3, "expected `outer loop`"),
        (format!("solid s\nfacet normal 0 0 1\nouter loop\n{good}endloop\nendsolid\n"), 8, "expected `endfacet`"),
        ("solid s\nvertex 0 0 0\n".to_string(), 2, "expected `facet` or `endsolid`"),
        // Truncated inside a facet: the last line, and where the facet began.
        (
            format!("solid s\n{}facet normal 0 0 1\nouter loop\n vertex 0 0 0\n", facet(good)),
            11,
            "ends inside the facet begun on line 9",
        ),
        // Binary data past the first 512 bytes (before them, the file is taken for binary STL).
        (format!("solid s\n{}endsolid\n\u{0}\n", facet(good).repeat(10)), 73, "NUL byte"),
    ];
    for (text, line, words) in cases {
        match parse(text.as_bytes(), Path::new("dir/part.stl")) {
            Err(StlError::Syntax { line: l, message, .. }) => {
                assert!(l == line && message.contains(words), "{text:?}: line {l}: {message}")
            }
            other => panic!("{text:?}: {other:?}"),
        }
        assert!(error(text.as_bytes()).starts_with(&format!("dir/part.stl:{line}: ")), "{text:?}");
    }
    assert!(error(b"solid empty\nendsolid empty\n").contains("dir/part.stl: no facets at all"));
}

#[test]
fn malformed_binary_names_the_facet_and_byte_offset() {
    let triangles = [[DVec3::ZERO, DVec3::X, DVec3::Y], [DVec3::ZERO, DVec3::Y, DVec3::Z]];
    let good = write_binary(&triangles, "");
    // Truncated: the header's count asks for more bytes than there are.
    let e = error(&good[..good.len() - 7]);
    assert!(e.starts_with("dir/part.stl: binary STL: the header says 2 facets, which take 184 bytes"), "{e}");
    assert!(e.contains("the file has 177 bytes"), "{e}");
    // A count that disagrees with the size the other way (extra bytes).
    let mut longer = good.clone();
    longer.extend([0; 50]);
    assert!(
        error(&longer).contains("the header says 2 facets, which take 184 bytes (84 + 50 × 2), but the file has 234")
    );
    let mut huge = good.clone();
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(error(&huge).contains("the header says 4294967295 facets"));
    // Shorter than a header, and not ASCII.
    assert!(error(b"\x00\x01abc").contains("too short for a binary STL"));
    // NaN in facet 1: its byte offset is 84 + 50.
    let mut nan = good.clone();
    nan[84 + 50 + 12 + 4..84 + 50 + 12 + 8].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = error(&nan);
    assert!(
        e.contains("dir/part.stl: binary STL: facet 1 (byte offset 134): corner 1 is not finite (0, NaN, 0)"),
        "{e}"
    );
    let mut inf = good;
    inf[84 + 12 + 24..84 + 12 + 28].copy_from_slice(&f32::INFINITY.to_le_bytes());
    assert!(error(&inf).contains("facet 0 (byte offset 84): corner 3 is not finite"));
    // No facets, and facets that are all one point.
    assert!(error(&write_binary(&[], "")).contains("no facets at all"));
    let e = error(&write_binary(&[[DVec3::ONE; 3]], ""));
    assert!(e.contains("dir/part.stl") && e.contains("zero area"), "{e}");
}
