//! docs/solver.md §6: solve time against the number of contacts (motion space beside a
//! projected Gauss–Seidel contact-space baseline), full drag steps of a plate on a floor, and
//! a door-like part sliding in its frame.
//!
//! `cargo bench -p mockup-solver --bench solver`

#[path = "../../ccd/benches/scenes.rs"]
mod scenes;

use glam::{DMat3, DVec3};
use mockup_ccd::{Collider, ContactKind, MeshBuilder, Pose};
use mockup_solver::gauss::{Displacement, Frame, solve};
use mockup_solver::{ContactPoint, SolverSettings, World};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `f` until 0.5 s or 2000 runs, and returns the median run.
fn time(mut f: impl FnMut()) -> Duration {
    let mut runs = Vec::new();
    let start = Instant::now();
    while runs.len() < 2000 && (start.elapsed() < Duration::from_millis(500) || runs.len() < 3) {
        let t = Instant::now();
        f();
        runs.push(t.elapsed());
    }
    median(runs)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// `k` contacts of a 2 × 2 × 0.2 plate resting on a floor: random points of its bottom, normal
/// up, at the security distance; the plate is pulled down, sideways and twisted.
fn resting_plate(k: usize) -> (Frame, Vec<ContactPoint>, Displacement) {
    let mass = 0.8;
    let inertia = DMat3::from_diagonal(DVec3::new(4.04, 4.04, 8.0) * (mass / 12.0));
    let frame = Frame::new(DVec3::new(0.0, 0.0, 0.11), mass, inertia).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let contacts = (0..k)
        .map(|_| {
            let p = DVec3::new(rng.next(), rng.next(), 0.01);
            ContactPoint {
                body_i: 0,
                body_j: 1,
                kind: ContactKind::VertexFace,
                feature_i: 0,
                feature_j: 0,
                point_i: p,
                point_j: DVec3::new(p.x, p.y, 0.0),
                normal: DVec3::Z,
                distance: 0.01 + 0.001 * rng.next().abs(),
                separation: 0.0,
                seated: false,
            }
        })
        .collect();
    let d0 = Displacement { translation: DVec3::new(0.3, 0.1, -0.5), rotation: DVec3::new(0.05, -0.02, 0.2) };
    (frame, contacts, d0)
}

/// The contact-space baseline: projected Gauss–Seidel on the LCP `w = Gλ − c ≥ 0, λ ≥ 0,
/// λ ⊥ w` with the Delassus matrix `G = J M⁻¹ Jᵀ` formed explicitly, to the same relative
/// relative tolerance on the complementarity residual (or 10,000 sweeps). Returns the sweeps.
fn pgs(frame: &Frame, contacts: &[ContactPoint], d0: &Displacement, security: f64, tolerance: f64) -> usize {
    let k = contacts.len();
    // Rows of J M^-1/2 (the same whitening as the solver) to form G.
    let l = frame.chol;
    let rows: Vec<[f64; 6]> = contacts
        .iter()
        .map(|c| {
            let arm = (c.point_i - frame.center).cross(c.normal);
            let t = c.normal / frame.sqrt_mass;
            let r = l.inverse() * arm;
            [t.x, t.y, t.z, r.x, r.y, r.z]
        })
        .collect();
    let mut g = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..k {
            g[i * k + j] = (0..6).map(|e| rows[i][e] * rows[j][e]).sum();
        }
    }
    let c: Vec<f64> = contacts
        .iter()
        .map(|ct| {
            let arm = (ct.point_i - frame.center).cross(ct.normal);
            security - ct.distance - (ct.normal.dot(d0.translation) + arm.dot(d0.rotation))
        })
        .collect();
    let scale = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut lambda = vec![0.0; k];
    for sweep in 1..=10_000 {
        let mut worst = 0.0f64;
        for i in 0..k {
            let gi = &g[i * k..(i + 1) * k];
            let w: f64 = gi.iter().zip(&lambda).map(|(a, b)| a * b).sum::<f64>() - c[i];
            let new = (lambda[i] - w / gi[i]).max(0.0);
            worst = worst.max(if lambda[i] > 0.0 || w < 0.0 { w.abs() } else { 0.0 });
            lambda[i] = new;
        }
        if worst <= tolerance * scale {
            return sweep;
        }
    }
    10_000
}

fn solve_table() {
    println!("## Solve time against contacts (one body; median)\n");
    println!(
        "| contacts | motion space (Wilhelmsen, rows form, exact) | iterations | PGS to 1e-3 | sweeps | PGS to 1e-6 | sweeps |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for k in [1usize, 10, 100, 1000] {
        let (frame, contacts, d0) = resting_plate(k);
        let slot = [Some(0), None];
        let mut iterations = 0;
        let bounds: Vec<f64> = contacts.iter().map(|c| 0.01 - c.distance).collect();
        let ms = time(|| {
            let s = solve(black_box(&[frame]), &slot, black_box(&contacts), &bounds, &[d0]);
            iterations = s.iterations;
            black_box(s);
        });
        let (mut loose, mut tight) = (0, 0);
        let pgs_loose = time(|| loose = black_box(pgs(&frame, &contacts, &d0, 0.01, 1e-3)));
        let pgs_tight = time(|| tight = black_box(pgs(&frame, &contacts, &d0, 0.01, 1e-6)));
        println!("| {k} | {ms:.2?} | {iterations} | {pgs_loose:.2?} | {loose} | {pgs_tight:.2?} | {tight} |");
    }
    println!();
}

/// A plate whose bottom has `(n+1)²` vertices resting on a floor, dragged sideways into the
/// floor: full `drag` steps (proximity, solve, CCD).
fn drag_table() {
    println!("## Full drag steps of a plate sliding on a floor (median)\n");
    println!("| bottom grid | contacts | drag step | solver | CCD | proximity |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for n in [1u32, 3, 9, 31] {
        let mut w = World::new(SolverSettings::for_scene_size(10.0)).unwrap();
        let floor = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5)).build().unwrap();
        w.add_body(Arc::new(Collider::new(floor)), Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)), true);
        let plate = MeshBuilder::new()
            .tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.1), [n, n, 1])
            .build()
            .unwrap();
        let b = w.add_body(Arc::new(Collider::new(plate)), Pose::from_translation(DVec3::new(-2.0, 0.0, 0.15)), false);
        // Settle onto the floor.
        for _ in 0..5 {
            w.drag(b, Pose::from_translation(DVec3::new(-2.0, 0.0, -1.0))).unwrap();
        }
        let mut steps = Vec::new();
        let mut solver = Vec::new();
        let mut ccd = Vec::new();
        let mut prox = Vec::new();
        let mut contacts = 0;
        for i in 0..200 {
            let x = -2.0 + 0.02 * i as f64;
            let t = Instant::now();
            let r = w.drag(b, Pose::from_translation(DVec3::new(x, 0.01 * (i as f64 * 0.3).sin(), -1.0))).unwrap();
            steps.push(t.elapsed());
            solver.push(r.solver_time);
            ccd.push(r.ccd_time);
            prox.push(r.proximity_time);
            contacts = contacts.max(r.contacts);
            assert!(r.contacts > 0, "step {i} of the {n} × {n} plate left the floor: {r:?}");
        }
        println!(
            "| {n} × {n} | {contacts} | {:.2?} | {:.2?} | {:.2?} | {:.2?} |",
            median(steps),
            median(solver),
            median(ccd),
            median(prox)
        );
    }
    println!();
}

/// One drag scenario of the door in its frame: reach a start, then 300 timed drag steps.
fn door_run(label: &str, approach: impl Fn(usize) -> Pose, slide: impl Fn(f64) -> Pose) {
    let mut w = World::new(SolverSettings::for_scene_size(2.0)).unwrap();
    w.add_body(Arc::new(Collider::new(scenes::door_frame())), Pose::IDENTITY, true);
    let door = w.add_body(
        Arc::new(Collider::new(scenes::door_part())),
        Pose::from_translation(DVec3::new(0.0, 0.0, 0.3)),
        false,
    );
    for k in 0..40 {
        w.drag(door, approach(k)).unwrap();
    }
    let mut steps = Vec::new();
    let (mut solver, mut ccd, mut prox, mut contacts, mut substeps) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..300 {
        let t = Instant::now();
        let r = w.drag(door, slide(k as f64)).unwrap();
        steps.push(t.elapsed());
        solver.push(r.solver_time);
        ccd.push(r.ccd_time);
        prox.push(r.proximity_time);
        contacts.push(r.contacts);
        substeps.push(r.substeps);
        assert!(w.intersecting_pairs().is_empty());
    }
    contacts.sort();
    substeps.sort();
    let mut sorted = steps.clone();
    sorted.sort();
    println!(
        "| {label} | {:.2?} | {:.2?} | {:.2?} | {:.2?} | {:.2?} | {} | {} |",
        median(steps),
        sorted[sorted.len() * 9 / 10],
        median(solver),
        median(ccd),
        median(prox),
        contacts[contacts.len() / 2],
        substeps[substeps.len() / 2]
    );
}

/// The door-like part (3,420 triangles) in its frame (10,312): the interactive case.
fn door_table() {
    println!("## Door-like part sliding in its frame: 300 drag steps per scenario (median)\n");
    println!("| scenario | step | 90th percentile | solver | CCD | proximity | contacts | sub-steps |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    // Halfway into the opening, pushed sideways against its wall and slid along it within
    // the 0.005 clearance.
    door_run(
        "against the opening's wall",
        |k| Pose::from_translation(DVec3::new(0.0, 0.0, 0.3 - 0.27 * (k as f64 / 39.0))),
        |k| Pose::from_translation(DVec3::new(0.02, 0.004 * (0.03 * k).sin(), 0.03)),
    );
    // Pressed onto the flange (a face-on-face contact) and slid around on it.
    door_run(
        "pressed flat on the flange",
        |k| Pose::from_translation(DVec3::new(0.0, 0.0, 0.3 - 0.33 * (k as f64 / 39.0))),
        |k| {
            Pose::new(
                glam::DQuat::from_rotation_z(0.004 * (0.05 * k).sin()),
                DVec3::new(0.008 * (0.07 * k).sin(), 0.008 * (0.05 * k).cos(), -0.02),
            )
        },
    );
    println!();
}

fn main() {
    if std::env::args().any(|a| a == "door") {
        return door_table();
    }
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return; // `cargo test --all-targets` runs benches as tests: nothing to check here.
    }
    solve_table();
    drag_table();
    door_table();
}
