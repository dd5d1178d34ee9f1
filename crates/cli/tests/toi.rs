//! `mockup-cli toi` as an outside tool calls it: the binary, its JSON line, its exit codes.

use std::process::Command;

fn meshes(name: &str) -> String {
    format!("{}/../ccd/tests/data/ccd-cases/meshes/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn toi(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mockup-cli")).arg("toi").args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn hit_is_one_json_line() {
    let cube = meshes("cube.obj");
    let (code, out, _) =
        toi(&["--moving", &cube, "--from", "-5,0,0,0,0,0,1", "--to", "5,0,0,0,0,0,1", "--fixed", &cube]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 1);
    assert!(out.starts_with("{\"hit\":true,\"time\":0.3,\"kind\":"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["time"], 0.3);
    assert_eq!(v["normal"], serde_json::json!([-1.0, 0.0, 0.0]));
    assert!(v["point"].as_array().unwrap().len() == 3);
    for key in ["moving_feature", "fixed_feature"] {
        assert!(v[key].is_u64(), "{key}");
    }
    for key in ["bv_tests", "vf_tests", "fv_tests", "ee_tests"] {
        assert!(v["counters"][key].as_u64().unwrap() > 0, "{key}");
    }
}

#[test]
fn miss_and_fixed_pose() {
    let (plate, wall) = (meshes("plate.obj"), meshes("slotted_wall.obj"));
    let (code, out, _) =
        toi(&["--moving", &plate, "--from", "-3,0,0,0,0,0,1", "--to", "3,0,0,0,0,0,1", "--fixed", &wall]);
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"hit\":false,\"counters\":{"), "{out}");
    // the wall lifted by 0.1: now the plate hits it
    let (code, out, _) = toi(&[
        "--moving",
        &plate,
        "--from",
        "-3,0,0,0,0,0,1",
        "--to",
        "3,0,0,0,0,0,1",
        "--fixed",
        &wall,
        "--fixed-pose",
        "0,0,0.1,0,0,0,1",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("{\"hit\":true"), "{out}");
}

/// From an intersecting start the answer is brute force's (culling assumes a free start):
/// here two edges already cross at t = 0, which culling would skip for a later contact.
#[test]
fn an_intersecting_start_is_warned_and_tested_without_culling() {
    let cube = meshes("cube.obj");
    let (code, out, err) = toi(&[
        "--moving",
        &cube,
        "--from",
        "0.5,0,0,0,0,0,1",
        "--to",
        "5,0.3,0,0,0,0,1",
        "--fixed",
        &cube,
        "--fixed-pose",
        "0,0.1,0.1,0,0,0,1",
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("already intersect at --from"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["time"].as_f64(), v["kind"].as_str()), (Some(0.0), Some("edge_edge")), "{out}");
    // A free start: no warning.
    let (_, _, err) = toi(&["--moving", &cube, "--from", "-5,0,0,0,0,0,1", "--to", "5,0,0,0,0,0,1", "--fixed", &cube]);
    assert!(!err.contains("intersect"), "{err}");
}

#[test]
fn bad_input_exits_2_naming_it() {
    let cube = meshes("cube.obj");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--moving", "missing.obj", "--from", "0,0,0,0,0,0,1", "--to", "1,0,0,0,0,0,1", "--fixed", &cube],
            "missing.obj",
        ),
        (&["--moving", &cube, "--from", "0,0,0,0,0,1", "--to", "1,0,0,0,0,0,1", "--fixed", &cube], "--from"),
        (&["--moving", &cube, "--from", "0,0,0,0,0,0,1", "--to", "1,0,0,0,0,0,q", "--fixed", &cube], "--to"),
        (&["--moving", &cube, "--from", "0,0,0,0,0,0,1", "--to", "1,0,0,0,0,0,1"], "--fixed"),
        (&["--moving", &cube, "--speed", "3"], "--speed"),
    ];
    for (args, named) in cases {
        let (code, out, err) = toi(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

#[test]
fn missing_material_is_a_warning() {
    let dir = std::env::temp_dir().join(format!("mockup-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("tri.obj");
    std::fs::write(&obj, "mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n").unwrap();
    let o = obj.to_str().unwrap();
    let (code, out, err) = toi(&["--moving", o, "--from", "0,0,1,0,0,0,1", "--to", "0,0,-1,0,0,0,1", "--fixed", o]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning") && err.contains("tri.obj"), "{err}");
    assert!(out.starts_with("{\"hit\":true"), "{out}");
}
