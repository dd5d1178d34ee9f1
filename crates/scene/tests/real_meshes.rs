//! Real files: every OBJ and STL file of pybullet's data (about 1,200, fetched by
//! `scripts/fetch-real-meshes`) parses to parts or to an error naming it, never a panic (each
//! file under `catch_unwind`) and never a hang (a deadline for the whole run names the file it
//! was stuck on). The samurai monastery, refused whole before (two-vertex faces), loads with
//! its warning. Skipped, with a note, when the data is not fetched, unless
//! `MOCKUP_REAL_MESHES=require`.

use mockup_scene::mesh_file::{ImportOptions, parse};
use mockup_scene::source::FileSystem;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

mod corpus;

fn mesh_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mesh_files(&p, out);
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj") || e.eq_ignore_ascii_case("stl")) {
            out.push(p);
        }
    }
}

#[derive(Debug, Default)]
struct Tally {
    parsed: usize,
    with_warnings: usize,
    errors: Vec<String>,
    panics: Vec<PathBuf>,
    triangles: usize,
}

#[test]
fn every_obj_and_stl_file_parses_or_gives_an_error_naming_it() {
    let Some(root) = corpus::pybullet_data("real_meshes") else { return };
    let mut files = Vec::new();
    mesh_files(&root, &mut files);
    assert!(files.len() > 1000, "{} files: is the fetch complete?", files.len());
    let current = Arc::new(Mutex::new(PathBuf::new()));
    let (done, finished) = mpsc::channel();
    let worker = {
        let current = current.clone();
        std::thread::spawn(move || {
            let mut tally = Tally::default();
            for f in &files {
                *current.lock().unwrap() = f.clone();
                let bytes = std::fs::read(f).unwrap();
                let outcome =
                    std::panic::catch_unwind(|| parse(&bytes, f, &FileSystem, &ImportOptions::default(), &mut |_| {}));
                match outcome {
                    Err(_) => tally.panics.push(f.clone()),
                    Ok(Ok(a)) => {
                        tally.parsed += 1;
                        tally.with_warnings += usize::from(!a.warnings.is_empty());
                        tally.triangles += a.parts.iter().map(|p| p.mesh.triangles().len()).sum::<usize>();
                    }
                    Ok(Err(e)) => {
                        let message = e.to_string();
                        assert!(message.contains(&*f.to_string_lossy()), "{message} does not name {}", f.display());
                        tally.errors.push(message);
                    }
                }
            }
            let _ = done.send(tally);
        })
    };
    // A debug build takes a few seconds here; ten minutes is a hang.
    let tally = match finished.recv_timeout(Duration::from_secs(600)) {
        Ok(t) => t,
        Err(_) => panic!("stuck on {} for more than ten minutes", current.lock().unwrap().display()),
    };
    worker.join().unwrap();
    println!(
        "{} parsed ({} with warnings, {} triangles), {} errors, {} panics",
        tally.parsed,
        tally.with_warnings,
        tally.triangles,
        tally.errors.len(),
        tally.panics.len()
    );
    for e in &tally.errors {
        println!("  error: {e}");
    }
    assert!(tally.panics.is_empty(), "panicked on {:#?}", tally.panics);
    assert!(tally.parsed > 1000, "{tally:?}");
}

#[test]
fn the_samurai_monastery_loads_with_its_warning() {
    let Some(root) = corpus::pybullet_data("real_meshes") else { return };
    let path = root.join("samurai_monastry.obj");
    let bytes = std::fs::read(&path).unwrap();
    let a = parse(&bytes, &path, &FileSystem, &ImportOptions::default(), &mut |_| {}).unwrap();
    let triangles: usize = a.parts.iter().map(|p| p.mesh.triangles().len()).sum();
    assert!((120_000..130_000).contains(&triangles), "{triangles}");
    let w = a.warnings.join("\n");
    assert!(w.contains("samurai_monastry.obj:331218: faces with fewer than 3 vertices: 201 skipped"), "{w}");
}
