//! `cargo bench -p mockup-ccd --bench queries`: the broad phase, minimum distance and ray
//! casts of docs/benchmarks.md. Each benchmark prints its counters on stderr.

mod scenes;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use mockup_ccd::broad::{Aabb, BroadPhase};
use mockup_ccd::{Collider, MeshBuilder, Motion, Pose, distance, ray_cast};
use std::hint::black_box;
use std::time::Duration;

/// xorshift64: reproducible draws in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn vec(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
}

/// A CAD-like scene of `n` part boxes: 1 % large parts (2–5 units: bodies, frames) spread over
/// a 20 × 20 × 4 region, the rest small (0.01–0.1) in clusters of 50 (sub-assemblies, radius
/// 0.5) around random centres in it.
fn cad_boxes(n: usize) -> Vec<Aabb> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    let region = DVec3::new(20.0, 20.0, 4.0);
    let mut boxes = Vec::with_capacity(n);
    let mut centre = DVec3::ZERO;
    for i in 0..n {
        if i % 100 == 99 {
            let c = rng.vec(0.0, 1.0) * region;
            let half = 0.5 * rng.vec(2.0, 5.0);
            boxes.push(Aabb::new(c - half, c + half));
            continue;
        }
        if i % 50 == 0 {
            centre = rng.vec(0.0, 1.0) * region;
        }
        let c = centre + rng.vec(-0.5, 0.5);
        let half = 0.5 * rng.vec(0.01, 0.1);
        boxes.push(Aabb::new(c - half, c + half));
    }
    boxes
}

fn broad_phase(c: &mut Criterion) {
    // A small part (a 0.06 box) dragged 0.03 and turned 5° in one step: its swept box.
    let part = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.03)).build().unwrap());
    for n in [1_000, 10_000] {
        let boxes = cad_boxes(n);
        let margin = 0.005;
        let build = std::time::Instant::now();
        let mut tree = BroadPhase::new(margin);
        for (i, b) in boxes.iter().enumerate() {
            tree.insert(i, *b).unwrap();
        }
        let built = build.elapsed();
        // The mover: part 1 (a small one in the first cluster).
        let at = 0.5 * (boxes[1].min + boxes[1].max);
        let from = Pose::from_translation(at);
        let to = Pose::new(DQuat::from_rotation_z(5f64.to_radians()), at + DVec3::new(0.03, 0.0, 0.0));
        let swept = Aabb::swept(&part, &Motion::new(from, to));
        let mut out = Vec::new();
        let counters = tree.query(&swept, &mut out);
        let pairs = tree.pairs();
        eprintln!(
            "broad/{n}: built in {:.2} ms, height {}, swept query: {} boxes tested, {} found; all pairs: {} pairs, {} boxes tested",
            built.as_secs_f64() * 1e3,
            tree.stats().height,
            counters.bv_tests,
            out.len(),
            pairs.value.len(),
            pairs.counters.bv_tests
        );
        let mut group = c.benchmark_group(format!("broad_{n}"));
        group.bench_function("query_swept_box", |b| {
            b.iter(|| {
                out.clear();
                black_box(tree.query(black_box(&swept), &mut out))
            })
        });
        group.bench_function("query_all_boxes_brute_force", |b| {
            b.iter(|| {
                out.clear();
                out.extend(boxes.iter().enumerate().filter(|(_, x)| x.overlaps(&swept)).map(|(i, _)| i));
                black_box(out.len())
            })
        });
        // A drag step within the margin: nothing to do.
        let nudge = [boxes[1].translated(DVec3::X * 0.001), boxes[1]];
        let mut k = 0;
        group.bench_function("update_within_margin", |b| {
            b.iter(|| {
                k += 1;
                black_box(tree.update(1, nudge[k % 2]).unwrap())
            })
        });
        // A step out of the fat box: the leaf is removed and reinserted (each iteration).
        let jump = [boxes[1].translated(DVec3::X * 0.05), boxes[1]];
        group.bench_function("update_reinsert", |b| {
            b.iter(|| {
                k += 1;
                black_box(tree.update(1, jump[k % 2]).unwrap())
            })
        });
        group.bench_function("all_pairs", |b| b.iter(|| black_box(tree.pairs().value.len())));
        group.finish();
    }
}

fn distances(c: &mut Criterion) {
    // The freezing case: two flat grids lying parallel 1e-3 apart, 10,082 and 130,050
    // triangles, exactly parallel and tilted.
    let grid = |n: u32| Collider::new(MeshBuilder::new().grid(Pose::IDENTITY, 1.0, 1.0, n, n).build().unwrap());
    let (small, large) = (grid(71), grid(255));
    let mut group = c.benchmark_group("distance");
    for (name, tilt) in [("parallel_grids", 0.0), ("grids_tilted_1e-7", 1e-7), ("grids_tilted_1e-4", 1e-4)] {
        let pose = Pose::new(DQuat::from_rotation_x(tilt), DVec3::new(0.0031, -0.0017, 1e-3));
        let r = distance(&small, &pose, &large, &Pose::IDENTITY, f64::INFINITY);
        eprintln!(
            "distance/{name}: {} box bounds, {} triangle pairs, distance {:.9}",
            r.counters.bv_tests,
            r.counters.triangle_tests,
            r.value.map_or(f64::NAN, |p| p.distance)
        );
        group.bench_function(name, |b| {
            b.iter(|| black_box(distance(&small, &pose, &large, &Pose::IDENTITY, f64::INFINITY)))
        });
    }
    // A peg of 10,000 triangles in the bore of a 99,200-triangle block (0.01 clearance), at
    // each step of scene (b).
    let peg = scenes::peg();
    let (moving, fixed) = scenes::colliders(&peg, mockup_ccd::DEFAULT_LEAF_SIZE);
    let poses: Vec<Pose> = peg.steps.iter().map(|m| m.from).collect();
    let (mut bounds, mut pairs) = (0, 0);
    for p in &poses {
        let r = distance(&moving, p, &fixed, &Pose::IDENTITY, f64::INFINITY);
        bounds += r.counters.bv_tests;
        pairs += r.counters.triangle_tests;
    }
    eprintln!(
        "distance/peg_in_bore: per query {} box bounds, {} triangle pairs",
        bounds / poses.len() as u64,
        pairs / poses.len() as u64
    );
    let mut i = 0;
    group.bench_function("peg_in_bore", |b| {
        b.iter(|| {
            i += 1;
            black_box(distance(&moving, &poses[i % poses.len()], &fixed, &Pose::IDENTITY, f64::INFINITY))
        })
    });
    group.finish();
}

fn rays(c: &mut Criterion) {
    // Rays from around the 99,200-triangle block of scene (b) toward random points of it.
    let block = Collider::new(scenes::peg().fixed);
    let (lo, hi) = block.mesh().bounds();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let rays: Vec<(DVec3, DVec3)> = (0..256)
        .map(|_| {
            let target = lo + (hi - lo) * rng.vec(0.0, 1.0);
            let eye = 0.5 * (lo + hi) + 5.0 * (rng.vec(-1.0, 1.0)).normalize();
            (eye, (target - eye).normalize())
        })
        .collect();
    let (mut boxes, mut triangles, mut hits) = (0, 0, 0);
    for (o, d) in &rays {
        let r = ray_cast(&block, &Pose::IDENTITY, *o, *d, f64::INFINITY);
        boxes += r.counters.bv_tests;
        triangles += r.counters.triangle_tests;
        hits += r.value.is_some() as u64;
    }
    let n = rays.len() as u64;
    eprintln!(
        "ray/block_100k: per ray {} box tests, {} triangle tests; {hits} of {n} rays hit",
        boxes / n,
        triangles / n
    );
    let mut i = 0;
    c.benchmark_group("ray").bench_function("block_100k", |b| {
        b.iter(|| {
            i += 1;
            let (o, d) = rays[i % rays.len()];
            black_box(ray_cast(&block, &Pose::IDENTITY, o, d, f64::INFINITY))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = broad_phase, distances, rays
}
criterion_main!(benches);
