//! `mockup-cli info`, `replay` and `gen-assets` as a user runs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mockup-cli")).args(args).current_dir(repo()).output().unwrap()
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mockup-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn info_lists_the_parts() {
    let out = cli(&["info", "scenes/tori.ron"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 parts") && text.contains("ring_a") && text.contains("300 triangles"), "{text}");
    let out = cli(&["info", "scenes/nothing.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("scenes/nothing.ron"));
}

/// Each part says whether it is a solid (BM-culling applies), open, or closed but not wound
/// outward.
#[test]
fn info_says_which_parts_are_solids() {
    // A tetrahedron wound outward, the same with one face flipped, and one face missing.
    let tet = |faces: &str| format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n{faces}");
    temp("solid.obj", &tet("f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
    temp("flipped.obj", &tet("f 1 2 3\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
    temp("open.obj", &tet("f 1 2 4\nf 1 4 3\nf 2 3 4\n"));
    let part = |name: &str, x: f64| {
        format!(
            "(name: \"{name}\", mesh: \"{name}.obj\", object: None, pose: (translation: ({x}, 0.0, 0.0), \
             rotation: (0.0, 0.0, 0.0, 1.0)), fixed: false, color: (0.5, 0.5, 0.5), visible: true),"
        )
    };
    let scene = format!(
        "(version: 1, size: None, parts: [{}{}{}], solver: (distances: Scaled, bm_culling: true, \
         narrow_phase: Exact, max_substeps: 8), camera: None)",
        part("solid", 0.0),
        part("flipped", 2.0),
        part("open", 4.0)
    );
    let path = temp("kinds.ron", &scene);
    let out = cli(&["info", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let kind = |name: &str| {
        let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("{text}"));
        // "not solid" before "solid", which it contains.
        ["not solid", "solid", "open"].into_iter().find(|k| line.contains(k)).unwrap_or_else(|| panic!("{line}"))
    };
    assert_eq!([kind("solid"), kind("flipped"), kind("open")], ["solid", "not solid", "open"], "{text}");
}

/// Replays three peg targets with `extra` options; checks one line per step, the peg
/// stopping on the block at the second (off the bore's axis), and no interpenetration.
fn replay_peg(name: &str, extra: &[&str]) -> PathBuf {
    let targets = temp(
        name,
        "[(translation: (0.0, 0.0, 1.2), rotation: (0.0, 0.0, 0.0, 1.0)),
          (translation: (0.3, 0.0, 0.5), rotation: (0.0, 0.0, 0.0, 1.0)),
          (translation: (0.02, 0.0, -0.5), rotation: (0.0, 0.0, 0.0, 1.0))]",
    );
    let mut args = vec!["replay", "scenes/peg_in_hole.ron", "--part", "peg", "--targets", targets.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = cli(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[1]["contacts"].as_u64().unwrap() > 0 && !lines[1]["reached"].as_bool().unwrap());
    assert!(lines.iter().all(|l| l["new_interference"].as_array().unwrap().is_empty()));
    targets
}

#[test]
fn replay_prints_a_line_per_step_and_never_interpenetrates() {
    replay_peg("peg.ron", &[]);
}

/// `--narrow-phase glide` runs the glide screen: the peg still stops on the block and nothing
/// interpenetrates; an unknown narrow phase is a usage error.
#[test]
fn replay_with_the_glide_narrow_phase() {
    let targets = replay_peg("peg-glide.ron", &["--narrow-phase", "glide"]);
    let t = targets.to_str().unwrap();
    let out = cli(&["replay", "scenes/peg_in_hole.ron", "--part", "peg", "--targets", t, "--narrow-phase", "fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected exact or glide"));
}

/// Rings that cross from the start are in contact from the start: listed apart, not new
/// interference (exit 0); with `--strict` they are an obstacle like any pair, and their
/// crossing counts (exit 1).
#[test]
fn replay_lists_pairs_interfering_from_the_start_apart() {
    // ring_b turned back into ring_a's plane: the rings cross from the start.
    let mut doc = mockup_scene::document::read(&repo().join("scenes/tori.ron")).unwrap();
    let half = std::f64::consts::FRAC_PI_4;
    doc.parts[1].pose.rotation = [-half.sin(), 0.0, 0.0, half.cos()];
    for p in &mut doc.parts {
        p.mesh = repo().join("assets/tori.obj").to_string_lossy().into_owned();
    }
    let path = temp("overlap.ron", &mockup_scene::document::to_text(&doc));
    let targets = temp("still.ron", "[(translation: (0.0, 0.0, 0.05), rotation: (0.0, 0.0, 0.0, 1.0))]");
    let args = ["replay", path.to_str().unwrap(), "--part", "ring_b", "--targets", targets.to_str().unwrap()];
    let out = cli(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(line["interfering_from_start"], serde_json::json!([["ring_a", "ring_b"]]));
    assert_eq!(line["in_contact_from_start"], serde_json::json!([["ring_a", "ring_b"]]));
    assert_eq!(line["new_interference"], serde_json::json!([]));
    let out = cli(&[&args[..], &["--strict"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let line: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(line["new_interference"], serde_json::json!([["ring_a", "ring_b"]]));
}

/// A generated CAD-like assembly (`gen-assets --cad`): a bolt, a dowel and a shaft pulled
/// straight out of what they are fitted in come out, with no new interference.
#[test]
fn replay_pulls_parts_out_of_a_generated_assembly() {
    let dir = std::env::temp_dir().join(format!("mockup-cli-cad-{}", std::process::id()));
    let out = cli(&["gen-assets", "--out", dir.to_str().unwrap(), "--cad", "34", "--detail", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scene = dir.join("cad_34.ron");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), scene.to_str().unwrap());
    for (part, dz) in [("m1_bolt2", 50.0), ("m0_dowel0", 30.0), ("m1_shaft", 40.0)] {
        let steps: Vec<String> = (1..=12)
            .map(|k| format!("(translation: (0.0, 0.0, {}), rotation: (0.0, 0.0, 0.0, 1.0))", dz * k as f64 / 12.0))
            .collect();
        let targets = temp(&format!("{part}.ron"), &format!("[{}]", steps.join(",")));
        let out = cli(&["replay", scene.to_str().unwrap(), "--part", part, "--targets", targets.to_str().unwrap()]);
        assert!(out.status.success(), "{part}: {}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<serde_json::Value> =
            String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(!lines[0]["in_contact_from_start"].as_array().unwrap().is_empty(), "{part} starts fitted");
        assert!(lines.iter().all(|l| l["new_interference"].as_array().unwrap().is_empty()));
        let last = lines.last().unwrap();
        assert!(last["reached"].as_bool().unwrap(), "{part} came out: {last}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_replay_input_is_exit_2_with_a_message() {
    let targets = temp("ok.ron", "[(translation: (0.0, 0.0, 1.0), rotation: (0.0, 0.0, 0.0, 1.0))]");
    let t = targets.to_str().unwrap();
    let out = cli(&["replay", "scenes/tori.ron", "--part", "ring_c", "--targets", t]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no part \"ring_c\" (parts: ring_a, ring_b)"));
    let out = cli(&["replay", "scenes/tori.ron", "--part", "ring_a", "--targets", t]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is fixed"));
    let bad = temp("bad.ron", "[(translation: (0.0, 0.0), rotation: (0.0, 0.0, 0.0, 1.0))]");
    let out = cli(&["replay", "scenes/tori.ron", "--part", "ring_b", "--targets", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.ron:1:"), "{err}");
    let out = cli(&["replay", "scenes/tori.ron", "--part", "ring_b"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing --targets"));
}
