//! Files from users are untrusted: whatever the bytes, OBJ import, material libraries and
//! scene loading return a result (an error naming the file) and never panic. Random text is
//! built from the formats' own tokens, so that most lines get past the first check.

use mockup_scene::load::{build_colliders, load};
use mockup_scene::obj::{ImportOptions, parse};
use mockup_scene::source::Embedded;
use proptest::prelude::*;
use std::path::Path;

const KEYWORDS: &[&str] =
    &["v", "v", "v", "v", "f", "f", "f", "f", "vn", "vt", "l", "p", "o", "g", "s", "usemtl", "mtllib", "#", "", "vv"];
const ARGS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "-1",
    "-2",
    "-5",
    "0.5",
    "-0.25",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "-inf",
    "99999999999999999999",
    "4294967295",
    "4294967296",
    "1/2/3",
    "1//2",
    "2/1",
    "1/1/1/1",
    "/",
    "a.mtl",
    "m",
    "é",
    "\\",
    "\r",
    "#",
];

/// OBJ-like text: mostly well-formed vertices and faces (so that many files get to the
/// geometry), with lines of any keyword and arguments among them.
fn obj_text(lines: usize) -> impl Strategy<Value = String> {
    let coord = prop_oneof![-3i32..4, Just(0)].prop_map(|x| f64::from(x) * 0.5);
    let vertex = prop::array::uniform3(coord).prop_map(|[x, y, z]| format!("v {x} {y} {z}"));
    let first = prop::collection::vec(vertex.clone(), 4..9);
    let index = prop_oneof![1i32..9, -4i32..0];
    let face = prop::collection::vec(index, 3..5)
        .prop_map(|ix| format!("f {}", ix.iter().map(i32::to_string).collect::<Vec<_>>().join(" ")));
    let any = (prop::sample::select(KEYWORDS), prop::collection::vec(prop::sample::select(ARGS), 0..6))
        .prop_map(|(k, args)| format!("{k} {}", args.join(" ")));
    let line = prop_oneof![4 => vertex, 4 => face, 1 => any];
    (first, prop::collection::vec(line, 0..lines)).prop_map(|(first, l)| [first, l].concat().join("\n"))
}

const MTL_TOKENS: &[&str] = &[
    "newmtl", "Kd", "Ka", "map_Kd", "m", " ", " ", "\n", "\n", "0", "1", "0.5", "2", "-1", "nan", "inf", "#", "x.png",
];

fn text_from(tokens: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(tokens), 0..max).prop_map(|t| t.concat())
}

/// A valid scene of two parts with its OBJ, to be mutated.
const SCENE: &str = r#"(
    version: 1,
    size: None,
    parts: [
        (name: "a", mesh: "m.obj", object: Some("one"), pose: (translation: (0.0, 0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0)), fixed: true, color: (0.5, 0.5, 0.5), visible: true),
        (name: "b", mesh: "m.obj", object: Some("two"), pose: (translation: (0.0, 0.0, 2.0), rotation: (0.0, 0.0, 0.0, 1.0)), fixed: false, color: (0.5, 0.5, 0.5), visible: true),
    ],
    solver: (distances: Explicit(repositioning: 0.001, security: 0.002, breaking: 0.004), bm_culling: true, narrow_phase: Exact, max_substeps: 8),
    camera: Some((eye: (2.0, 2.0, 2.0), target: (0.0, 0.0, 0.0), up: (0.0, 0.0, 1.0), fov_degrees: 45.0)),
)"#;

const OBJ: &str = "mtllib m.mtl\no one\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nusemtl m\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\no two\nf 1 2 3\n";

const VALUES: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "5e-324",
    "NaN",
    "inf",
    "-0.0",
    "1.5",
    "true",
    "None",
    "Some(\"one\")",
    "\"m.obj\"",
    "\"..\"",
    "\"\"",
    "\"/\"",
    "\"a\"",
    "\"missing.obj\"",
    "Glide",
    "Scaled",
    "4294967295",
    "(0.0, 0.0, 0.0)",
    "(1.0, 2.0, 3.0, 4.0)",
    "[]",
    "(",
];

/// A mutation of `SCENE`: one or two of its values (numbers, strings, names) replaced, or a
/// short byte range cut.
fn mutated_scene() -> impl Strategy<Value = String> {
    let values: Vec<(usize, usize)> = {
        let b = SCENE.as_bytes();
        let mut v = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let start = i;
            if b[i] == b'"' {
                i += 1;
                while b[i] != b'"' {
                    i += 1;
                }
                i += 1;
            } else if b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b'.' {
                while b[i].is_ascii_alphanumeric() || b[i] == b'-' || b[i] == b'.' || b[i] == b'_' {
                    i += 1;
                }
            } else {
                i += 1;
                continue;
            }
            v.push((start, i));
        }
        v
    };
    let replace = (prop::sample::subsequence(values, 1..3), prop::collection::vec(prop::sample::select(VALUES), 2))
        .prop_map(|(spans, with)| {
            let mut s = SCENE.to_string();
            for (&(a, b), w) in spans.iter().zip(with).rev() {
                s.replace_range(a..b, w);
            }
            s
        });
    let cut = (0..SCENE.len(), 1usize..6).prop_map(|(at, len)| {
        let end = (at + len).min(SCENE.len());
        format!("{}{}", &SCENE[..at], &SCENE[end..])
    });
    prop_oneof![4 => replace, 1 => cut]
}

fn leak(s: String) -> &'static [u8] {
    Box::leak(s.into_bytes().into_boxed_slice())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn obj_text_never_panics(text in obj_text(40), mtl in text_from(MTL_TOKENS, 40), split in any::<bool>()) {
        let source = Embedded::new([("a.mtl", leak(mtl))]);
        let options = ImportOptions { split_objects: split };
        match parse(text.as_bytes(), Path::new("x.obj"), &source, &options, &mut |_| {}) {
            // Degenerate geometry that parses (coincident points, flat parts) still gets its
            // trees and cones.
            Ok(a) => {
                let colliders = build_colliders(a.parts.into_iter().map(|p| p.mesh).collect(), &mut |_, _| {});
                prop_assert!(!colliders.is_empty());
            }
            Err(e) => prop_assert!(e.to_string().contains("x.obj"), "{e}"),
        }
    }

    #[test]
    fn obj_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse(&bytes, Path::new("x.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {});
    }

    /// Whole loads, trees included, from a mutated scene over a mutated mesh.
    #[test]
    fn scene_loads_never_panic(scene in mutated_scene(), extra in obj_text(8)) {
        let source = Embedded::new([
            ("s.ron", leak(scene)),
            ("m.obj", leak(format!("{OBJ}{extra}\n"))),
            ("m.mtl", b"newmtl m\nKd 1 0 0\n".as_slice()),
        ]);
        if let Err(e) = load(Path::new("s.ron"), &source, &mut |_| {}) {
            let m = e.to_string();
            prop_assert!(m.contains("s.ron") || m.contains("m.obj"), "{m}");
        }
    }
}

#[test]
fn the_unmutated_scene_loads() {
    let source = Embedded::new([
        ("s.ron", SCENE.as_bytes()),
        ("m.obj", OBJ.as_bytes()),
        ("m.mtl", b"newmtl m\nKd 1 0 0\n".as_slice()),
    ]);
    let loaded = load(Path::new("s.ron"), &source, &mut |_| {}).unwrap();
    assert_eq!(loaded.colliders.len(), 2);
}
