//! End to end in a real window, under Xvfb with Mesa's software Vulkan (scripts/test
//! installs them and sets MOCKUP_E2E=require): `mockup --e2e` opens the built-in car_door,
//! drags the door into the body through the pointer path a mouse uses, and screenshots it
//! once the pipelines are ready. This test checks the exit status and, again, the image.

use mockup::script::is_marker_yellow;
use std::process::Command;

#[test]
fn the_door_dragged_into_the_body_shows_contact_markers() {
    let required = std::env::var("MOCKUP_E2E").is_ok_and(|v| v == "require");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(!required, "MOCKUP_E2E=require but xvfb-run is not installed");
        eprintln!("skipped: xvfb-run is not installed (scripts/test installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("mockup-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("e2e.ppm");
    let run = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24", env!("CARGO_BIN_EXE_mockup"), "--e2e"])
        .arg(&out)
        .env("MOCKUP_CONFIG_DIR", &dir)
        .env("MOCKUP_TYPED_PATHS", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "mockup --e2e failed ({}):\n{stdout}\n{}", run.status, tail(&stderr, 40));
    println!("{stdout}");

    let ppm = std::fs::read(&out).unwrap();
    let (width, height, rgb) = parse_ppm(&ppm);
    assert_eq!((width, height), (1280, 720));
    let mut colours = std::collections::HashSet::new();
    let mut yellow = 0;
    for p in rgb.chunks_exact(3) {
        colours.insert((p[0] >> 3, p[1] >> 3, p[2] >> 3));
        yellow += is_marker_yellow(p[0], p[1], p[2]) as usize;
    }
    assert!(colours.len() > 50, "the screenshot is nearly blank: {} colours", colours.len());
    assert!(yellow > 20, "no contact markers in the screenshot ({yellow} yellow pixels)");
}

fn parse_ppm(bytes: &[u8]) -> (usize, usize, &[u8]) {
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&bytes[start..at]).unwrap().to_string());
    }
    assert_eq!(fields[0], "P6");
    let (w, h): (usize, usize) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    let rgb = &bytes[at + 1..];
    assert_eq!(rgb.len(), w * h * 3);
    (w, h, rgb)
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
