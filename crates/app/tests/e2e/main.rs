//! End to end in a real window, under Xvfb with Mesa's software Vulkan (scripts/test installs
//! them and sets MOCKUP_E2E=require). Not part of the `mockup` binary: this test runs itself
//! under `xvfb-run` as the windowed app (`mockup::desktop()`) driven by a script
//! (`script.rs`) instead of the mouse. The script opens the built-in car_door, drags the door
//! into the body through the pointer path a mouse uses, and screenshots it once the
//! pipelines are ready; this side checks the exit status and, again, the image.

mod script;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// Set in the child: where it writes its screenshot.
const CHILD: &str = "MOCKUP_E2E_SCREENSHOT";

fn main() -> ExitCode {
    if let Some(out) = std::env::var_os(CHILD) {
        return script::run(PathBuf::from(out));
    }
    // `cargo test` passes the harness's arguments (filters, --nocapture); a filter that is
    // not this test's name skips it.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if args.iter().any(|a| !"the_door_dragged_into_the_body_shows_contact_markers".contains(a.as_str())) {
        return ExitCode::SUCCESS;
    }
    println!("running 1 test");
    match the_door_dragged_into_the_body_shows_contact_markers() {
        Ok(()) => {
            println!("test the_door_dragged_into_the_body_shows_contact_markers ... ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("test the_door_dragged_into_the_body_shows_contact_markers ... FAILED\n{e}");
            ExitCode::FAILURE
        }
    }
}

fn the_door_dragged_into_the_body_shows_contact_markers() -> Result<(), String> {
    let required = std::env::var("MOCKUP_E2E").is_ok_and(|v| v == "require");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        if required {
            return Err("MOCKUP_E2E=require but xvfb-run is not installed".into());
        }
        println!("skipped: xvfb-run is not installed (scripts/test installs it)");
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("mockup-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join("e2e.ppm");
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let run = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24"])
        .arg(me)
        .env(CHILD, &out)
        .env("MOCKUP_CONFIG_DIR", &dir)
        .env("MOCKUP_TYPED_PATHS", "1")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    if !run.status.success() {
        return Err(format!("the scripted app failed ({}):\n{stdout}\n{}", run.status, tail(&stderr, 40)));
    }
    println!("{stdout}");

    let ppm = std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (width, height, rgb) = parse_ppm(&ppm)?;
    // The script makes the window this size (script.rs).
    if (width, height) != (800, 450) {
        return Err(format!("the screenshot is {width}x{height}, not 800x450"));
    }
    let mut colours = std::collections::HashSet::new();
    let mut yellow = 0;
    for p in rgb.chunks_exact(3) {
        colours.insert((p[0] >> 3, p[1] >> 3, p[2] >> 3));
        yellow += script::is_marker_yellow(p[0], p[1], p[2]) as usize;
    }
    if colours.len() <= 50 {
        return Err(format!("the screenshot is nearly blank: {} colours", colours.len()));
    }
    if yellow <= 20 {
        return Err(format!("no contact markers in the screenshot ({yellow} yellow pixels)"));
    }
    Ok(())
}

fn parse_ppm(bytes: &[u8]) -> Result<(usize, usize, &[u8]), String> {
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
            at += 1;
        }
        let start = at;
        while bytes.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
            at += 1;
        }
        if start == at {
            return Err("the screenshot is not a PPM".into());
        }
        fields.push(String::from_utf8_lossy(&bytes[start..at]).to_string());
    }
    let (w, h): (usize, usize) =
        (fields[1].parse().map_err(|_| "bad width")?, fields[2].parse().map_err(|_| "bad height")?);
    let rgb = bytes.get(at + 1..).unwrap_or_default();
    if fields[0] != "P6" || rgb.len() != w * h * 3 {
        return Err("the screenshot is not a P6 PPM of its size".into());
    }
    Ok((w, h, rgb))
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
