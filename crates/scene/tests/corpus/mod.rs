//! Where the tests on real data find the third-party meshes (`scripts/fetch-real-meshes`).
#![allow(dead_code)] // each test file uses its own share

use std::path::PathBuf;

/// `assets/third_party/pybullet_data`, if fetched. Without it the caller skips, with a note
/// on stdout, unless `MOCKUP_REAL_MESHES=require` (as `scripts/test` sets): then it fails.
pub fn pybullet_data(test: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/third_party/pybullet_data");
    if dir.is_dir() {
        return Some(dir);
    }
    let note = format!("{test}: {} is missing: run scripts/fetch-real-meshes", dir.display());
    if std::env::var("MOCKUP_REAL_MESHES").is_ok_and(|v| v == "require") {
        panic!("{note} (MOCKUP_REAL_MESHES=require)");
    }
    println!("skipped: {note}");
    None
}
