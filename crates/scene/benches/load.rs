//! docs/benchmarks.md, "Scenes": parsing a 10 MB OBJ, and loading `car_door.ron` with its
//! trees and BM-cones.
//!
//! `cargo bench -p mockup-scene --bench load`

use mockup_ccd::{MeshBuilder, Pose};
use mockup_scene::obj::{ImportOptions, WritePart, parse, write};
use mockup_scene::source::{Embedded, FileSystem};
use std::path::Path;
use std::time::{Duration, Instant};

fn best_of(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    // A 10 MB OBJ: tori, written by our writer, four objects.
    let meshes: Vec<_> = (0..4)
        .map(|i| {
            MeshBuilder::new()
                .torus(Pose::from_translation(glam::DVec3::new(3.0 * i as f64, 0.0, 0.0)), 1.0, 0.3, 300, 125)
                .build()
                .unwrap()
        })
        .collect();
    let names: Vec<String> = (0..4).map(|i| format!("ring{i}")).collect();
    let parts: Vec<WritePart> =
        meshes.iter().zip(&names).map(|(m, n)| WritePart { name: n, mesh: m, color: None }).collect();
    let (text, _) = write(&parts, "none.mtl");
    let triangles: usize = meshes.iter().map(|m| m.triangles().len()).sum();
    let parse_time = best_of(5, || {
        parse(text.as_bytes(), Path::new("big.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {})
            .unwrap();
    });
    println!("| parse a {:.1} MB OBJ ({triangles} triangles, 4 objects) | {parse_time:.0?} |", text.len() as f64 / 1e6);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/car_door.ron");
    let mut split = (Duration::ZERO, Duration::ZERO, 0);
    let total = best_of(3, || {
        let s = mockup_scene::load(&root, &FileSystem, &mut |_| {}).unwrap();
        let triangles = s.colliders.iter().map(|c| c.mesh().triangles().len()).sum();
        split = (s.parse_time, s.build_time, triangles);
    });
    println!(
        "| load car_door.ron ({} triangles) with trees and BM-cones | {total:.0?} (meshes {:.0?}, trees and cones {:.0?}) |",
        split.2, split.0, split.1
    );
}
