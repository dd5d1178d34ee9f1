//! Pulling parts out of CAD-like assemblies (issue 23's targets): the time of a whole drag
//! step (`World::drag`: contacts, solve, CCD) while a hand pulls a part straight out of what it
//! is fitted in, net of loading; and the time to build the colliders.
//!
//! `cargo bench -p mockup-cli --bench pull_out` (both sizes), or with `PULL_OUT=115` or
//! `PULL_OUT=1000` one of them; `PULL_PART=bolt0` (or dowel0, shaft, shell, nut1, bearing)
//! pulls only that kind; `PULL_SLOW=MS` prints the step report of each step slower than MS;
//! `PULL_VERBOSE=1` prints where each part got to and what it still
//! touches.
//!
//! Each pull begins as the app's does: the frame of the button press drags the part to where
//! it is (the gesture's first target is its start pose), which builds its contacts; the pull's
//! steps come in the frames after. That press step is a frame the user waits for too: it is
//! counted with the steps, and its own column shows it.

use glam::DVec3;
use mockup_ccd::{Collider, Pose};
use mockup_scene::cad;
use mockup_scene::load::build_colliders;
use mockup_solver::{SolverSettings, World};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    // As `mockup-cli` and the app start.
    mockup_solver::memory::map_large_allocations();
    let which = std::env::var("PULL_OUT").ok();
    for (parts, detail) in [(115, 2), (1000, 4)] {
        if which.as_deref().is_some_and(|w| w != parts.to_string()) {
            continue;
        }
        run(parts, detail);
    }
}

fn run(parts: usize, detail: u32) {
    let clock = Instant::now();
    let assembly = cad::assembly(parts, detail);
    let generated = clock.elapsed();
    let triangles = assembly.triangles();
    let names: Vec<String> = assembly.parts.iter().map(|p| p.name.clone()).collect();
    let meshes = assembly.parts.into_iter().map(|p| p.mesh).collect();
    let clock = Instant::now();
    let colliders: Vec<Arc<Collider>> = build_colliders(meshes, &mut |_, _| {});
    let built = clock.elapsed();
    // The scene's size, as loading computes it: the largest side of the bounds.
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    for c in &colliders {
        let (a, b) = c.mesh().bounds();
        lo = lo.min(a);
        hi = hi.max(b);
    }
    let size = (hi - lo).max_element();
    let mut world = World::new(SolverSettings::for_scene_size(size)).unwrap();
    for c in &colliders {
        world.add_body(c.clone(), Pose::IDENTITY, false);
    }
    println!(
        "## {parts} parts, {triangles} triangles (detail {detail}): generated in {generated:.2?}, trees and cones in {built:.2?}\n"
    );
    // A hand pulling at 120 mm/s, 60 frames a second: 2 mm a frame, straight up, 60 mm.
    let all_kinds = ["bolt0", "dowel0", "shaft", "shell", "nut1", "bearing"];
    // `PULL_PART=bolt0` pulls only that kind (for profiling).
    let only = std::env::var("PULL_PART").ok();
    // `PULL_SLOW=MS` prints the step report of every step slower than MS.
    let slow: Option<f64> = std::env::var("PULL_SLOW").ok().and_then(|s| s.parse().ok());
    let kinds: Vec<&str> = all_kinds.into_iter().filter(|k| only.as_deref().is_none_or(|o| o == *k)).collect();
    if kinds.is_empty() {
        eprintln!("PULL_PART={}: not a part kind; the kinds are {all_kinds:?}", only.unwrap_or_default());
        std::process::exit(2);
    }
    let modules = parts.div_ceil(cad::MODULE_PARTS);
    let mut all: Vec<Duration> = Vec::new();
    let (mut ccd, mut proximity, mut solver) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut counters = mockup_ccd::Counters::default();
    let mut substeps = 0;
    println!(
        "| part | press | steps in contact | reached | median | p99 | worst | contacts (median) | in contact from the start |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for m in [0, modules / 2, modules - 1] {
        for &kind in &kinds {
            let name = format!("m{m}_{kind}");
            let Some(id) = names.iter().position(|n| *n == name) else { continue };
            let down = kind.starts_with("nut");
            let start = world.body(id).unwrap().pose;
            let mut times = Vec::new();
            let (mut reached, mut contacts, mut seated) = (0, Vec::new(), 0);
            // Steps count while the part is in contact with something at the step's start:
            // once it is out, steps cost nothing and would only flatter the median.
            let mut in_contact = true;
            let mut press = Duration::ZERO;
            // Step 0 is the press (target: the start pose), 1.. the pull.
            for k in 0..=30 {
                // The first pull step always counts, as the press's report may read no contact.
                if k > 1 && !in_contact {
                    break;
                }
                let dz = if down { -2.0 } else { 2.0 } * k as f64;
                let target = Pose::from_translation(start.translation + DVec3::Z * dz);
                let clock = Instant::now();
                let r = world.drag(id, target).unwrap();
                let took = clock.elapsed();
                if k == 0 {
                    press = took;
                    all.push(took);
                } else {
                    times.push(took);
                }
                if slow.is_some_and(|ms| took.as_secs_f64() * 1e3 > ms) {
                    eprintln!(
                        "{name} step {k} {:.1?}: ccd {:.1?}, proximity {:.1?}, solve {:.1?}; {} sub-steps ({} blocked), {} repositionings, {} contacts, {} box tests, {} VF + {} FV + {} EE tests",
                        took,
                        r.ccd_time,
                        r.proximity_time,
                        r.solver_time,
                        r.substeps,
                        r.blocked_substeps,
                        r.repositioning,
                        r.contacts,
                        r.counters.bv_tests,
                        r.counters.vf_tests,
                        r.counters.fv_tests,
                        r.counters.ee_tests
                    );
                }
                ccd += r.ccd_time;
                proximity += r.proximity_time;
                solver += r.solver_time;
                counters += r.counters;
                substeps += r.substeps;
                seated = seated.max(r.seated_pairs.len());
                in_contact = r.contacts > 0 || !r.reached;
                if k == 0 {
                    continue;
                }
                reached += r.reached as u32;
                contacts.push(r.contacts);
            }
            if std::env::var("PULL_VERBOSE").is_ok() {
                // Where the part got to, and what it still touches.
                let rise = world.body(id).unwrap().pose.translation - start.translation;
                let mut touching: Vec<&str> = world
                    .contacts()
                    .iter()
                    .filter(|c| c.body_i == id || c.body_j == id)
                    .map(|c| names[if c.body_i == id { c.body_j } else { c.body_i }].as_str())
                    .collect();
                touching.sort_unstable();
                touching.dedup();
                eprintln!("{name}: moved by {rise:.3}; touching {touching:?}");
            }
            contacts.sort_unstable();
            all.extend(&times);
            let (med, p99, worst) = stats(&mut times);
            println!(
                "| {name} | {press:.2?} | {} | {reached} | {med:.2?} | {p99:.2?} | {worst:.2?} | {} | {seated} pairs |",
                times.len(),
                contacts[contacts.len() / 2]
            );
        }
    }
    let (med, p99, worst) = stats(&mut all);
    let n = all.len().max(1) as u64;
    println!(
        "Per step in contact: {:.1} sub-steps, {} box tests, {} VF + {} FV + {} EE tests, {} pairs left out in contact",
        substeps as f64 / n as f64,
        counters.bv_tests / n,
        counters.vf_tests / n,
        counters.fv_tests / n,
        counters.ee_tests / n,
        counters.in_contact_skips / n
    );
    println!(
        "\nAll {} steps in contact, the presses with them: median {med:.2?}, p99 {p99:.2?}, worst {worst:.2?}; of their total, CCD {ccd:.0?}, proximity {proximity:.0?}, solve {solver:.0?}\n",
        all.len()
    );
}

fn stats(times: &mut [Duration]) -> (Duration, Duration, Duration) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99), times[times.len() - 1])
}
