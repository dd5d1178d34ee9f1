//! Seed 002's run-time table (§9.1) reproduced: cubes, the 16-vertex car, 300-quad tori, at
//! the low, medium and high screen resolutions:
//! `cargo bench -p mockup-ccd --bench glide` (docs/glide.md §11).

use glam::{DQuat, DVec3};
use mockup_ccd::glide::{GlideBody, GlideOptions, Resolution, glide_collisions};
use mockup_ccd::{MeshBuilder, Motion, Pose};
use std::hint::black_box;
use std::time::Instant;

/// A car-like closed polyhedron with 16 vertices, as in the paper's Figure 12: an octagonal
/// side profile (body, hood, windscreen, roof, rear window, boot) extruded across the width.
/// Our faces are triangles: the 10 polygons become 28 triangles.
fn car() -> mockup_ccd::Mesh {
    let profile = [(-2.0, 0.0), (2.0, 0.0), (2.0, 0.7), (1.0, 0.8), (0.5, 1.4), (-0.9, 1.4), (-1.4, 0.8), (-2.0, 0.75)];
    let mut vertices = Vec::new();
    for y in [-0.8, 0.8] {
        for &(x, z) in &profile {
            vertices.push(DVec3::new(x, y, z));
        }
    }
    let n = profile.len() as u32;
    let mut triangles = Vec::new();
    for i in 0..n {
        let j = (i + 1) % n;
        // Side quads between the two profiles, wound outward.
        triangles.push([i, n + j, j]);
        triangles.push([i, n + i, n + j]);
    }
    // The two profile octagons (convex), fanned; y = −0.8 faces −y, y = +0.8 faces +y.
    for i in 1..n - 1 {
        triangles.push([0, i, i + 1]);
        triangles.push([n, n + i + 1, n + i]);
    }
    let mesh = MeshBuilder::new().raw(Pose::IDENTITY, &vertices, &triangles).build().unwrap();
    assert!(mesh.stats().is_closed());
    assert!(mesh.signed_volume() > 0.0, "the car must wind outward");
    mesh
}

struct Scene {
    name: &'static str,
    a: GlideBody,
    b: GlideBody,
    motion: Motion,
}

fn scenes() -> Vec<Scene> {
    let cube = || MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.5)).build().unwrap();
    let torus = || MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 20, 15).build().unwrap();
    vec![
        Scene {
            name: "cubes",
            a: GlideBody::new(cube()),
            b: GlideBody::new(cube()),
            motion: Motion::new(
                Pose::new(DQuat::from_rotation_y(0.3), DVec3::new(1.6, 0.2, 0.1)),
                Pose::new(DQuat::from_rotation_y(0.7) * DQuat::from_rotation_x(0.2), DVec3::new(0.4, 0.1, -0.1)),
            ),
        },
        Scene {
            name: "car",
            a: GlideBody::new(car()),
            b: GlideBody::new(car()),
            motion: Motion::new(
                Pose::new(DQuat::from_rotation_z(0.4), DVec3::new(1.0, 2.6, 0.0)),
                Pose::new(DQuat::from_rotation_z(0.9), DVec3::new(0.6, 1.2, 0.1)),
            ),
        },
        Scene {
            // Figure 13: one torus passes through the other along a glide rotation.
            name: "tori",
            a: GlideBody::new(torus()),
            b: GlideBody::new(torus()),
            motion: Motion::new(
                Pose::new(DQuat::from_rotation_x(1.4), DVec3::new(0.9, 0.0, -2.0)),
                Pose::new(DQuat::from_rotation_x(1.4) * DQuat::from_rotation_z(0.8), DVec3::new(0.5, 0.4, 2.0)),
            ),
        },
    ]
}

/// Median time per call over rounds of calls lasting about 20 ms each. With
/// `GLIDE_CALLS=N`, exactly N calls instead and no timing: for instruction counts under
/// `valgrind --tool=callgrind`, which are repeatable where times are not.
fn median_micros(f: &mut dyn FnMut()) -> f64 {
    if let Some(n) = std::env::var("GLIDE_CALLS").ok().and_then(|n| n.parse::<u32>().ok()) {
        (0..n).for_each(|_| f());
        return f64::NAN;
    }
    let start = Instant::now();
    let mut calls = 0u32;
    while start.elapsed().as_secs_f64() < 0.02 {
        f();
        calls += 1;
    }
    let mut rounds: Vec<f64> = (0..25)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() * 1e6 / calls as f64
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds[rounds.len() / 2]
}

fn main() {
    let still = Motion::stationary(Pose::IDENTITY);
    let paper = [("cubes", [56.0, 63.0, 77.0]), ("car", [109.0, 128.0, 170.0]), ("tori", [2040.0, 2560.0, 3480.0])];
    println!(
        "| model | triangles | resolution | pixel | records | chords (rasterized) | tests | collisions (proper) | time | paper | paper / 20 |"
    );
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    // GLIDE_BENCH=cubes (or car, tori) runs one model, e.g. under a profiler.
    let only = std::env::var("GLIDE_BENCH").ok();
    for (scene, (_, theirs)) in scenes().iter().zip(paper) {
        if only.as_deref().is_some_and(|o| o != scene.name) {
            continue;
        }
        for (k, res) in [Resolution::Low, Resolution::Medium, Resolution::High].into_iter().enumerate() {
            let opts = GlideOptions { resolution: res, ..GlideOptions::default() };
            let report = glide_collisions(&scene.a, &still, &scene.b, &scene.motion, &opts);
            assert!(report.first_proper().is_some(), "{}: the bench case must collide", scene.name);
            let micros = median_micros(&mut || {
                black_box(glide_collisions(&scene.a, &still, &scene.b, &scene.motion, &opts));
            });
            let proper = report.collisions.iter().filter(|c| c.properness >= 0.0).count();
            println!(
                "| {} | {} + {} | {:?} | {:.4} | {} | {} ({}) | {} | {} ({}) | {:.1} µs | {} µs | {:.1} µs |",
                scene.name,
                scene.a.mesh().triangles().len(),
                scene.b.mesh().triangles().len(),
                res,
                report.resolution.unwrap().pixel,
                report.counters.records,
                report.counters.chords,
                report.counters.chords_rasterized,
                report.counters.tests,
                report.collisions.len(),
                proper,
                micros,
                theirs[k],
                theirs[k] / 20.0,
            );
        }
    }
    // Not in the paper: a small part taking a long step onto a large one, where only the large
    // part's faces near the small one's path are screened (docs/glide.md §11, broad phase).
    if only.as_deref().is_none_or(|o| o == "small-on-large") {
        let ring = GlideBody::new(MeshBuilder::new().torus(Pose::IDENTITY, 3.0, 0.5, 160, 30).build().unwrap());
        let cube = GlideBody::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.2)).build().unwrap());
        let motion = Motion::new(
            Pose::new(DQuat::from_rotation_y(0.4), DVec3::new(3.0, 0.0, 1.6)),
            Pose::new(DQuat::from_rotation_y(0.9), DVec3::new(3.1, 0.3, 0.4)),
        );
        let opts = GlideOptions::default();
        let report = glide_collisions(&ring, &still, &cube, &motion, &opts);
        assert!(report.first_proper().is_some(), "small-on-large must collide");
        let micros = median_micros(&mut || {
            black_box(glide_collisions(&ring, &still, &cube, &motion, &opts));
        });
        println!(
            "\nsmall-on-large: {} + {} triangles, {} faces kept, {} records, {} tests: {:.1} µs",
            ring.mesh().triangles().len(),
            cube.mesh().triangles().len(),
            report.counters.near_faces,
            report.counters.records,
            report.counters.tests,
            micros
        );
    }
}
