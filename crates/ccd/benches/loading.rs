//! Loading (docs/benchmarks.md, "Loading"): OBB trees and BM-cones of the bunny, of meshes of
//! a million triangles, and of 1,000 parts of 2,000 triangles built the way
//! `mockup_scene::load::build_colliders` builds them.
//!
//! `cargo bench -p mockup-ccd --bench loading [-- NAME]` (release; NAME keeps the sections
//! whose title contains it). Every figure is the best of a few runs, each timed whole with
//! `Instant`; the real meshes come from `scripts/fetch-real-meshes` and are skipped when
//! missing.

#[path = "../tests/common/mod.rs"]
mod common;

use common::load_obj_by_position as load_obj;
use glam::{DQuat, DVec3};
use mockup_ccd::bvh::{BmCones, ConeSettings, ObbTree, is_solid};
use mockup_ccd::{Collider, Mesh, MeshBuilder, Pose};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The best time of `runs` runs of `f`, in milliseconds, and the last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs {
        let clock = Instant::now();
        let value = black_box(f());
        best = best.min(clock.elapsed().as_secs_f64() * 1e3);
        last = Some(value);
    }
    (best, last.expect("at least one run"))
}

fn pybullet(path: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/third_party/pybullet_data").join(path);
    p.exists().then_some(p)
}

/// Copies of `mesh` on a grid, apart, until there are at least `triangles` triangles.
fn repeated(mesh: &Mesh, triangles: usize) -> Mesh {
    let (lo, hi) = mesh.bounds();
    let step = 1.1 * (hi - lo).max_element();
    let copies = triangles.div_ceil(mesh.triangles().len());
    let side = (copies as f64).cbrt().ceil() as usize;
    let mut b = MeshBuilder::new();
    for i in 0..copies {
        let at = DVec3::new((i % side) as f64, ((i / side) % side) as f64, (i / side / side) as f64) * step;
        b = b.mesh(Pose::from_translation(at), mesh);
    }
    b.build().unwrap()
}

fn header() {
    println!(
        "| mesh | triangles | tree, 1 thread | tree, all cores | cones, 1 thread | cones, all cores | is_solid | Collider::new | nodes with a cone | annealed | projected |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
}

/// Tree and cones of one mesh, each on one thread and on all cores, and the whole collider.
fn one_mesh(name: &str, mesh: &Mesh, runs: usize) {
    let settings = ConeSettings::default();
    let (tree1, _) = best(runs, || ObbTree::build_with_threads(mesh, 1, 1));
    let (tree, t) = best(runs, || ObbTree::build(mesh, 1));
    let (cones1, _) = best(runs, || BmCones::build_with_threads(mesh, &t, &settings, 1));
    let (cones, c) = best(runs, || BmCones::build(mesh, &t, &settings));
    let (solid, is) = best(runs, || is_solid(mesh));
    assert!(is, "{name} should be a solid");
    let (whole, _) = best(runs, || Collider::new(mesh.clone()));
    let (clone, _) = best(runs, || mesh.clone());
    let s = c.stats();
    println!(
        "| {name} | {} | {tree1:.1} ms | {tree:.1} ms | {cones1:.1} ms | {cones:.1} ms | {solid:.1} ms | {:.1} ms | {:.1} % | {} | {} |",
        mesh.triangles().len(),
        whole - clone,
        100.0 * s.nodes_with_cone as f64 / s.nodes as f64,
        s.annealed,
        s.projected,
    );
}

/// The original cone build (Wilhelmsen's projection at every node) beside the default one.
fn against_projection(name: &str, mesh: &Mesh, runs: usize) {
    let settings = ConeSettings::default();
    let tree = ObbTree::build(mesh, 1);
    let (hull, h) = best(runs, || BmCones::build_with_threads(mesh, &tree, &settings, 1));
    let (projection, p) = best(runs, || BmCones::build_by_projection(mesh, &tree, &settings));
    let (hs, ps) = (h.stats(), p.stats());
    println!(
        "| {name} | {} | {projection:.2} ms | {hull:.2} ms | {:.0}× | {} / {} | {} / {} | {} / {} |",
        mesh.triangles().len(),
        projection / hull,
        ps.nodes_with_cone,
        hs.nodes_with_cone,
        ps.vectors,
        hs.vectors,
        ps.annealed,
        hs.annealed,
    );
}

/// 1,000 closed parts of 2,000 triangles each: tori, spheres, cylinders and tessellated boxes
/// of assorted sizes and poses.
fn assembly() -> Vec<Mesh> {
    (0..1000)
        .map(|i| {
            let f = i as f64;
            let at = DVec3::new((i % 10) as f64, ((i / 10) % 10) as f64, (i / 100) as f64) * 3.0;
            let turn = DQuat::from_axis_angle(DVec3::new(f.sin(), f.cos(), 0.5).normalize(), 0.37 * f);
            let pose = Pose::new(turn, at);
            let s = 0.5 + 0.5 * (0.7 * f).sin().abs();
            let b = MeshBuilder::new();
            match i % 4 {
                0 => b.torus(pose, s, 0.3 * s, 40, 25),
                1 => b.sphere(pose, s, 26, 40),
                2 => b.cylinder(pose, 0.4 * s, 2.0 * s, 40, 24),
                _ => b.tessellated_cuboid(pose, DVec3::new(s, 0.6 * s, 0.3 * s), [10, 10, 20]),
            }
            .build()
            .unwrap()
        })
        .collect()
}

/// `mockup_scene::load::build_colliders`' scheme: largest first, one worker per core, each
/// taking the next mesh.
fn build_all(meshes: Vec<Mesh>) -> Vec<Collider> {
    let meshes: Vec<Mutex<Option<Mesh>>> = meshes.into_iter().map(|m| Mutex::new(Some(m))).collect();
    let mut order: Vec<usize> = (0..meshes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(meshes[i].lock().unwrap().as_ref().map_or(0, |m| m.triangles().len())));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Collider>>> = Mutex::new(vec![None; meshes.len()]);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(meshes.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = order.get(k) else { break };
                    let mesh = meshes[i].lock().unwrap().take().expect("each mesh is built once");
                    let c = Collider::new(mesh);
                    out.lock().unwrap()[i] = Some(c);
                }
            });
        }
    });
    out.into_inner().unwrap().into_iter().map(|c| c.expect("every mesh was built")).collect()
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--")).unwrap_or_default();
    let wanted = |title: &str| title.contains(&filter);
    let cores = std::thread::available_parallelism().map_or(1, |t| t.get());
    println!("{cores} cores");

    if wanted("bunny") {
        let bunny = load_obj(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ccd-cases/meshes/bunny.obj"));
        let mut meshes = vec![("Stanford bunny (tests/data)", bunny)];
        if let Some(p) = pybullet("bunny.obj") {
            meshes.push(("pybullet bunny.obj", load_obj(&p)));
        }
        if let Some(p) = pybullet("duck.obj") {
            meshes.push(("pybullet duck.obj", load_obj(&p)));
        }
        header();
        for (name, mesh) in &meshes {
            one_mesh(name, mesh, 20);
        }
        println!();
        println!(
            "| mesh | triangles | cones by projection (original) | cones by hull | speed-up | nodes with a cone (projection / hull) | vectors | annealed |"
        );
        println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (name, mesh) in &meshes {
            against_projection(name, mesh, 10);
        }
        println!();
    }

    if wanted("100k") {
        // The size of docs/benchmarks.md's build_100k, for profiling (e.g. under callgrind).
        let sphere = MeshBuilder::new().sphere(Pose::IDENTITY, 1.0, 101, 500).build().unwrap();
        header();
        one_mesh("UV sphere, 100k", &sphere, 1);
        println!();
    }

    if wanted("million") || ["sphere", "box", "duck"].iter().any(|m| filter.contains(m)) {
        let sphere = MeshBuilder::new().sphere(Pose::IDENTITY, 1.0, 501, 1000).build().unwrap();
        let cuboid = MeshBuilder::new()
            .tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 0.7, 0.4), [289, 289, 289])
            .build()
            .unwrap();
        let mut meshes = vec![("UV sphere", sphere), ("tessellated box", cuboid)];
        // `-- sphere`, `-- box` or `-- duck` times one of them alone.
        if let Some(p) = pybullet("duck.obj") {
            meshes.push(("pybullet duck.obj, repeated", repeated(&load_obj(&p), 1_000_000)));
        }
        header();
        for (name, mesh) in &meshes {
            if wanted("million") || name.contains(&filter) {
                one_mesh(name, mesh, 3);
            }
        }
        println!();
    }

    if wanted("assembly") {
        let meshes = assembly();
        let triangles: usize = meshes.iter().map(|m| m.triangles().len()).sum();
        assert!(meshes.iter().all(is_solid));
        let mut times = Vec::new();
        for _ in 0..5 {
            let copy = meshes.to_vec();
            let clock = Instant::now();
            let colliders = black_box(build_all(copy));
            times.push(clock.elapsed().as_secs_f64() * 1e3);
            assert!(colliders.iter().all(|c| c.culls()));
        }
        times.sort_by(f64::total_cmp);
        println!(
            "| 1,000 parts, {triangles} triangles: trees and cones as build_colliders builds them ({cores} threads) | best {:.0} ms, median {:.0} ms of 5 |",
            times[0], times[2]
        );
    }
}
