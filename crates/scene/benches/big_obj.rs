//! docs/benchmarks.md, "Loading": opening a generated OBJ assembly of 1,000 closed tori of
//! 2,000 triangles each (2,000,000 triangles, 75 MB, written by our OBJ writer): the parse
//! (text, welding and adjacency: `mesh_file::parse`), and the trees and BM-cones built after
//! it (`build_colliders`, as `load` builds them).
//!
//! `cargo bench -p mockup-scene --bench big_obj`

use glam::DVec3;
use mockup_ccd::{MeshBuilder, Pose};
use mockup_scene::load::build_colliders;
use mockup_scene::mesh_file::{ImportOptions, parse};
use mockup_scene::obj::{WritePart, write};
use mockup_scene::source::Embedded;
use std::path::Path;
use std::time::{Duration, Instant};

/// This process's CPU time (all threads, user and system) on Linux, from /proc/self/stat
/// (in clock ticks of 10 ms): other work on the machine slows the wall clock, much less this.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses): utime and stime are the
    // 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(10 * ticks))
}

fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let meshes: Vec<_> = (0..1000)
        .map(|i| {
            let at = DVec3::new((i % 10) as f64, ((i / 10) % 10) as f64, (i / 100) as f64) * 3.0;
            MeshBuilder::new().torus(Pose::from_translation(at), 1.0, 0.3, 40, 25).build().unwrap()
        })
        .collect();
    let names: Vec<String> = (0..1000).map(|i| format!("torus{i}")).collect();
    let parts: Vec<WritePart> =
        meshes.iter().zip(&names).map(|(mesh, name)| WritePart { name, mesh, color: None }).collect();
    let (text, _) = write(&parts, "none.mtl");
    drop(meshes);
    let parse_once = || {
        parse(text.as_bytes(), Path::new("big.obj"), &Embedded::default(), &ImportOptions::default(), &mut |_| {})
            .unwrap()
    };
    let mut times = Vec::new();
    let cpu_before = cpu_time();
    for _ in 0..7 {
        let clock = Instant::now();
        let a = parse_once();
        times.push(clock.elapsed());
        assert_eq!(a.parts.len(), 1000);
    }
    let cpu = cpu_before.zip(cpu_time()).map(|(a, b)| (b - a) / 7);
    times.sort();
    let clock = Instant::now();
    let a = parse_once();
    let parsed = clock.elapsed();
    let triangles: usize = a.parts.iter().map(|p| p.mesh.triangles().len()).sum();
    let clock = Instant::now();
    let colliders = build_colliders(a.parts.into_iter().map(|p| p.mesh).collect(), &mut |_, _| {});
    let built = clock.elapsed();
    assert_eq!(colliders.len(), 1000);
    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1e3);
    println!(
        "| parse a {:.0} MB OBJ ({triangles} triangles, 1,000 objects) | {} (median {}, of 7; CPU {} a parse) |",
        text.len() as f64 / 1e6,
        ms(times[0]),
        ms(times[3]),
        cpu.map_or("n/a".into(), ms)
    );
    println!(
        "| then trees and BM-cones of its 1,000 parts (2 threads) | {} (after a parse of {}) |",
        ms(built),
        ms(parsed)
    );
}
