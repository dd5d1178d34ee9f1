//! Seed 000's experiment (Table 1) and what BM-cones cost:
//! `cargo bench -p mockup-ccd --bench culling` (docs/bm-culling.md, docs/benchmarks.md).

mod scenes;

use mockup_ccd::bvh::ConeSettings;
use mockup_ccd::{Collider, ColliderOptions, Counters, Motion, Pose, QueryOptions, first_contact, intersects};
use std::hint::black_box;
use std::time::Instant;

fn replay(moving: &Collider, fixed: &Collider, steps: &[Motion], opts: &QueryOptions) -> (Counters, usize, f64) {
    let rest = Motion::stationary(Pose::IDENTITY);
    let mut best = f64::INFINITY;
    let (mut counters, mut hits) = (Counters::default(), 0);
    for _ in 0..3 {
        counters = Counters::default();
        hits = 0;
        let t = Instant::now();
        for m in steps {
            let r = black_box(first_contact(moving, m, fixed, &rest, opts));
            counters += r.counters;
            hits += r.value.is_some() as usize;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    (counters, hits, best)
}

fn main() {
    // Criterion passes its own flags; this target only reports.
    let scene = scenes::door_in_frame();
    let (moving, fixed) = scenes::colliders(&scene, mockup_ccd::DEFAULT_LEAF_SIZE);
    for (i, m) in scene.steps.iter().enumerate() {
        assert!(!intersects(&moving, &m.from, &fixed, &Pose::IDENTITY).value, "step {i} starts interpenetrating");
    }
    println!(
        "door: {} triangles, frame: {} triangles, {} steps",
        scene.moving.triangles().len(),
        scene.fixed.triangles().len(),
        scene.steps.len()
    );
    // Each feature tested through one triangle (Mockup's default), then every triangle
    // pair's 15 tests (seed 000's, which its Table 1 counts).
    for every_triangle_pair in [false, true] {
        let opts = QueryOptions { parallel: false, every_triangle_pair, ..Default::default() };
        let off = replay(&moving, &fixed, &scene.steps, &QueryOptions { bm_culling: false, ..opts });
        let on = replay(&moving, &fixed, &scene.steps, &opts);
        println!(
            "{}",
            if every_triangle_pair {
                "every triangle pair's tests (seed 000's)"
            } else {
                "each feature once (default)"
            }
        );
        println!("| | without BM-culling | with BM-culling | ratio |");
        println!("| --- | ---: | ---: | ---: |");
        let row = |name: &str, a: u64, b: u64| println!("| {name} | {a} | {b} | {:.2} |", b as f64 / a.max(1) as f64);
        row("BV/BV tests", off.0.bv_tests, on.0.bv_tests);
        row("EE tests", off.0.ee_tests, on.0.ee_tests);
        row("VF tests", off.0.vf_tests, on.0.vf_tests);
        row("FV tests", off.0.fv_tests, on.0.fv_tests);
        row("culling tests", off.0.cull_tests, on.0.cull_tests);
        row("culled nodes", off.0.culled_nodes, on.0.culled_nodes);
        row("steps ending in a contact", off.1 as u64, on.1 as u64);
        println!("| total time (best of 3) | {:.1} ms | {:.1} ms | {:.2} |", off.2 * 1e3, on.2 * 1e3, on.2 / off.2);
    }

    // The other scenes, with and without culling.
    for (name, scene) in [("a_tori", scenes::tori()), ("b_peg", scenes::peg()), ("c_clutter", scenes::clutter())] {
        let (moving, fixed) = scenes::colliders(&scene, mockup_ccd::DEFAULT_LEAF_SIZE);
        let off = replay(
            &moving,
            &fixed,
            &scene.steps,
            &QueryOptions { bm_culling: false, parallel: false, ..Default::default() },
        );
        let on = replay(&moving, &fixed, &scene.steps, &QueryOptions { parallel: false, ..Default::default() });
        let n = scene.steps.len() as f64;
        println!(
            "{name}: per query without / with culling: {:.0} / {:.0} BV, {:.0} / {:.0} elementary tests, {:.1} / {:.1} µs (mean, best of 3)",
            off.0.bv_tests as f64 / n,
            on.0.bv_tests as f64 / n,
            off.0.elementary_tests() as f64 / n,
            on.0.elementary_tests() as f64 / n,
            off.2 / n * 1e6,
            on.2 / n * 1e6
        );
    }

    // What cones cost: build time and memory against r_max.
    println!(
        "| mesh | r_max | build tree | build cones | nodes with a cone | annealed | bytes/node tree | bytes/node cones |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let peg = scenes::peg();
    for (name, mesh) in [("door", &scene.moving), ("frame", &scene.fixed), ("bore block (b)", &peg.fixed)] {
        for r_max in [3, 4, 5, 6, 8] {
            let t = Instant::now();
            let plain = Collider::with_options(mesh.clone(), &ColliderOptions { cones: None, ..Default::default() });
            let tree_time = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let settings = ConeSettings { r_max, ..Default::default() };
            let c =
                Collider::with_options(mesh.clone(), &ColliderOptions { cones: Some(settings), ..Default::default() });
            let cones_time = t.elapsed().as_secs_f64() - tree_time;
            let stats = c.cones().stats();
            let nodes = plain.tree().stats().nodes as f64;
            println!(
                "| {name} | {r_max} | {:.1} ms | {:.1} ms | {:.0} % | {} | {:.0} | {:.0} |",
                tree_time * 1e3,
                cones_time * 1e3,
                100.0 * stats.nodes_with_cone as f64 / nodes,
                stats.annealed,
                plain.tree().stats().bytes as f64 / nodes,
                stats.bytes as f64 / nodes
            );
        }
    }
}
