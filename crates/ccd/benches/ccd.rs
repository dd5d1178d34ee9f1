//! `cargo bench -p mockup-ccd`: the figures of docs/benchmarks.md.
//!
//! Each `first_contact/*` iteration runs one query, cycling through the scene's steps, so a
//! sample's time per iteration is the mean over the path's steps. Each scene also prints,
//! on stderr, its counters and the median and worst of individually timed queries.

mod scenes;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mockup_ccd::bvh::ObbTree;
use mockup_ccd::{Counters, DEFAULT_LEAF_SIZE, Mesh, Motion, Pose, QueryOptions, first_contact};
use std::hint::black_box;
use std::time::Duration;

/// One scene's steps as first-contact queries, under criterion and timed one by one.
struct PathBench<'a> {
    group: &'a str,
    name: &'a str,
    parameter: String,
    scene: &'a scenes::Scene,
    leaf_size: usize,
    opts: QueryOptions,
}

impl PathBench<'_> {
    fn run(&self, c: &mut Criterion) {
        let (moving, fixed) = scenes::colliders(self.scene, self.leaf_size);
        let rest = Motion::stationary(Pose::IDENTITY);
        let steps = &self.scene.steps;
        let query = |m: &Motion| first_contact(&moving, m, &fixed, &rest, &self.opts);
        // The scene is what docs/benchmarks.md says it is: none of these steps touches.
        let mut total = Counters::default();
        for m in steps {
            let r = query(m);
            assert!(r.value.is_none(), "{}: a step touches", self.name);
            total += r.counters;
        }
        // Criterion's median is over samples, each a mean over many queries; this is the
        // median (and the worst) over individually timed queries: 5 passes over every step.
        let mut times: Vec<f64> = Vec::new();
        for _ in 0..5 {
            for m in steps {
                let t = std::time::Instant::now();
                black_box(query(m));
                times.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        times.sort_by(f64::total_cmp);
        let n = steps.len() as u64;
        eprintln!(
            "{}/{}/{}: per query: {} BV, {} VF, {} FV, {} EE tests; median {:.1} µs, max {:.1} µs over {} timed queries",
            self.group,
            self.name,
            self.parameter,
            total.bv_tests / n,
            total.vf_tests / n,
            total.fv_tests / n,
            total.ee_tests / n,
            times[times.len() / 2],
            times[times.len() - 1],
            times.len()
        );
        let mut i = 0;
        c.benchmark_group(self.group).bench_function(BenchmarkId::new(self.name, &self.parameter), |b| {
            b.iter(|| {
                let m = &steps[i % steps.len()];
                i += 1;
                black_box(query(m))
            })
        });
    }
}

fn queries(c: &mut Criterion) {
    for (name, scene) in [
        ("a_tori_sliding", scenes::tori()),
        ("b_part_in_proximity", scenes::peg()),
        ("c_clutter_miss", scenes::clutter()),
    ] {
        let parameter = DEFAULT_LEAF_SIZE.to_string();
        PathBench {
            group: "first_contact",
            name,
            parameter,
            scene: &scene,
            leaf_size: DEFAULT_LEAF_SIZE,
            opts: QueryOptions { parallel: false, ..Default::default() },
        }
        .run(c);
    }
}

fn leaf_sizes(c: &mut Criterion) {
    let peg = scenes::peg();
    for leaf_size in [1, 2, 4, 8] {
        let parameter = leaf_size.to_string();
        PathBench {
            group: "leaf_size",
            name: "b_part_in_proximity",
            parameter,
            scene: &peg,
            leaf_size,
            opts: QueryOptions { parallel: false, ..Default::default() },
        }
        .run(c);
    }
    c.benchmark_group("build_100k").bench_function("mesh_adjacency", |b| {
        b.iter(|| black_box(Mesh::new(peg.fixed.vertices().to_vec(), peg.fixed.triangles().to_vec()).unwrap()))
    });
    for leaf in [1, 2, 4, 8] {
        c.benchmark_group("build_100k").bench_function(BenchmarkId::from_parameter(leaf), |b| {
            b.iter(|| black_box(ObbTree::build(&peg.fixed, leaf)))
        });
    }
}

/// Time subdivision depth and ratio κ (docs/continuous-obb.md §4) on (b) and (c).
fn subdivision(c: &mut Criterion) {
    let (peg, clutter) = (scenes::peg(), scenes::clutter());
    for depth in [3, 5, 7] {
        for ratio in [0.5, 1.0, 2.0] {
            let opts = QueryOptions {
                subdivision_depth: depth,
                subdivision_ratio: ratio,
                parallel: false,
                ..Default::default()
            };
            for (name, scene) in [("b_part_in_proximity", &peg), ("c_clutter_miss", &clutter)] {
                let parameter = format!("depth{depth}_ratio{ratio}");
                PathBench { group: "subdivision", name, parameter, scene, leaf_size: DEFAULT_LEAF_SIZE, opts }.run(c);
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = queries, leaf_sizes, subdivision
}
criterion_main!(benches);
