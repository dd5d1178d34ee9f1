//! Mockup beside parry3d's nonlinear shape cast on the same first-contact queries:
//! `cargo bench -p mockup-ccd --bench parry` (docs/benchmarks.md).
//!
//! parry moves a body at constant linear and angular velocity about a centre; Mockup follows
//! Redon's screw. The two paths coincide for a pure translation and for a rotation about a
//! fixed axis without translation along it: only there are first-contact times compared.
//! Timings are compared on every query.

mod scenes;

use mockup_ccd::{Mesh, Motion, Pose, QueryOptions, Screw, first_contact};
use parry3d_f64::math::{Pose as PPose, Rotation, Vector};
use parry3d_f64::query::{NonlinearRigidMotion, cast_shapes_nonlinear};
use parry3d_f64::shape::TriMesh;
use std::hint::black_box;
use std::time::Instant;

fn trimesh(mesh: &Mesh) -> TriMesh {
    let vertices = mesh.vertices().iter().map(|p| Vector::new(p.x, p.y, p.z)).collect();
    TriMesh::new(vertices, mesh.triangles().to_vec()).expect("a valid triangle mesh")
}

fn ppose(p: &Pose) -> PPose {
    let q = p.rotation;
    PPose::from_parts(
        Vector::new(p.translation.x, p.translation.y, p.translation.z),
        Rotation::from_xyzw(q.x, q.y, q.z, q.w),
    )
}

fn pvec(v: glam::DVec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// parry's motion for a step, and whether it traces the same path as Mockup's screw.
fn parry_motion(m: &Motion, centre: glam::DVec3) -> (NonlinearRigidMotion, bool) {
    let screw = Screw::from_displacement(&(m.to * m.from.inverse()));
    let start = ppose(&m.from);
    if screw.angle() == 0.0 {
        let v = m.to.translation - m.from.translation;
        return (NonlinearRigidMotion::new(start, Vector::ZERO, pvec(v), Vector::ZERO), true);
    }
    let angvel = pvec(screw.axis() * screw.angle());
    if screw.axial().abs() <= 1e-12 * (1.0 + screw.perp().length())
        && let Some(o) = screw.axis_point()
    {
        // Rotation about the fixed axis through o: the same path.
        let local = m.from.inverse().transform_point(o);
        return (NonlinearRigidMotion::new(start, pvec(local), Vector::ZERO, angvel), true);
    }
    // Otherwise: rotate about the body's centre while the centre moves straight.
    let v = m.to.transform_point(centre) - m.from.transform_point(centre);
    (NonlinearRigidMotion::new(start, pvec(centre), pvec(v), angvel), false)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    // parry takes seconds per query on these meshes: each scene gets this many seconds.
    let budget = std::env::var("PARRY_BUDGET_S").ok().and_then(|s| s.parse().ok()).unwrap_or(40.0);
    println!(
        "| scene | queries (parry) | Mockup median | parry median | ratio | hit/miss agree | coinciding: same hit, max |Δt| |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, scene) in [
        ("(a) tori", scenes::tori()),
        ("(b) peg in bore", scenes::peg()),
        ("(c) clutter", scenes::clutter()),
        ("(d) door replay", scenes::door_in_frame()),
        ("(d′) door replay, translations only", {
            let mut d = scenes::door_in_frame();
            d.steps =
                d.steps.iter().map(|m| Motion::new(m.from, Pose::new(m.from.rotation, m.to.translation))).collect();
            d
        }),
    ] {
        let (moving, fixed) = scenes::colliders(&scene, mockup_ccd::DEFAULT_LEAF_SIZE);
        let (ta, tb) = (trimesh(&scene.moving), trimesh(&scene.fixed));
        let (lo, hi) = scene.moving.bounds();
        let centre = 0.5 * (lo + hi);
        let rest = Motion::stationary(Pose::IDENTITY);
        let fixed_motion = NonlinearRigidMotion::constant_position(PPose::IDENTITY);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut agree, mut compared, mut coinciding, mut same_hit, mut max_dt) = (0, 0, 0, 0, 0.0f64);
        let began = Instant::now();
        for m in &scene.steps {
            if began.elapsed().as_secs_f64() > budget {
                break;
            }
            let t = Instant::now();
            let a = black_box(first_contact(
                &moving,
                m,
                &fixed,
                &rest,
                &QueryOptions { parallel: false, ..Default::default() },
            ));
            ours.push(t.elapsed().as_secs_f64());
            let (pm, same_path) = parry_motion(m, centre);
            let t = Instant::now();
            let b = black_box(cast_shapes_nonlinear(&pm, &ta, &fixed_motion, &tb, 0.0, 1.0, true).expect("supported"));
            theirs.push(t.elapsed().as_secs_f64());
            compared += 1;
            agree += (a.value.is_some() == b.is_some()) as u32;
            if same_path {
                coinciding += 1;
                match (a.value, b) {
                    (Some(x), Some(y)) => {
                        same_hit += 1;
                        max_dt = max_dt.max((x.time - y.time_of_impact).abs());
                    }
                    (None, None) => same_hit += 1,
                    _ => {}
                }
            }
        }
        let (mo, pa) = (median(ours.clone()), median(theirs.clone()));
        println!(
            "| {name} | {compared} of {} | {:.0} µs | {:.0} µs | {:.1}× | {agree}/{compared} | {same_hit}/{coinciding}, {:.1e} |",
            scene.steps.len(),
            mo * 1e6,
            pa * 1e6,
            pa / mo,
            max_dt
        );
    }
}
