//! `cargo bench -p mockup-ccd`: the figures of docs/benchmarks.md.
//!
//! Each `first_contact/*` iteration runs one query, cycling through the scene's steps, so a
//! sample's time per iteration is the mean over the path's steps.

mod scenes;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mockup_ccd::bvh::ObbTree;
use mockup_ccd::{DEFAULT_LEAF_SIZE, Mesh, Motion, Pose, QueryOptions, first_contact};
use std::hint::black_box;
use std::time::Duration;

fn run_path(
    c: &mut Criterion,
    group: &str,
    name: &str,
    scene: &scenes::Scene,
    leaf_size: usize,
    expect_hits: bool,
) {
    let (moving, fixed) = scenes::colliders(scene, leaf_size);
    let rest = Motion::stationary(Pose::IDENTITY);
    let opts = QueryOptions::default();
    // The scene is what docs/benchmarks.md says it is.
    let hits = scene
        .steps
        .iter()
        .filter(|m| {
            first_contact(&moving, m, &fixed, &rest, &opts)
                .value
                .is_some()
        })
        .count();
    assert_eq!(
        hits > 0,
        expect_hits,
        "{name}: {hits} of {} steps hit",
        scene.steps.len()
    );
    let mut total = mockup_ccd::Counters::default();
    for m in &scene.steps {
        total += first_contact(&moving, m, &fixed, &rest, &opts).counters;
    }
    let n = scene.steps.len() as u64;
    eprintln!(
        "{group}/{name}/{leaf_size}: per query: {} BV, {} VF, {} FV, {} EE tests",
        total.bv_tests / n,
        total.vf_tests / n,
        total.fv_tests / n,
        total.ee_tests / n
    );
    let mut i = 0;
    c.benchmark_group(group)
        .bench_function(BenchmarkId::new(name, leaf_size), |b| {
            b.iter(|| {
                let m = &scene.steps[i % scene.steps.len()];
                i += 1;
                black_box(first_contact(&moving, m, &fixed, &rest, &opts))
            })
        });
}

fn queries(c: &mut Criterion) {
    run_path(
        c,
        "first_contact",
        "a_tori_sliding",
        &scenes::tori(),
        DEFAULT_LEAF_SIZE,
        false,
    );
    run_path(
        c,
        "first_contact",
        "b_part_in_proximity",
        &scenes::peg(),
        DEFAULT_LEAF_SIZE,
        false,
    );
    run_path(
        c,
        "first_contact",
        "c_clutter_miss",
        &scenes::clutter(),
        DEFAULT_LEAF_SIZE,
        false,
    );
}

fn leaf_sizes(c: &mut Criterion) {
    let peg = scenes::peg();
    for leaf in [1, 2, 4, 8] {
        run_path(c, "leaf_size", "b_part_in_proximity", &peg, leaf, false);
    }
    c.benchmark_group("build_100k")
        .bench_function("mesh_adjacency", |b| {
            b.iter(|| {
                black_box(
                    Mesh::new(
                        peg.fixed.vertices().to_vec(),
                        peg.fixed.triangles().to_vec(),
                    )
                    .unwrap(),
                )
            })
        });
    for leaf in [1, 2, 4, 8] {
        c.benchmark_group("build_100k")
            .bench_function(BenchmarkId::from_parameter(leaf), |b| {
                b.iter(|| black_box(ObbTree::build(&peg.fixed, leaf)))
            });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = queries, leaf_sizes
}
criterion_main!(benches);
