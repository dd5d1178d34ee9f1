//! Sides read on real third-party meshes (pybullet_data; needs `scripts/fetch-real-meshes`):
//! a vertex's nearest seated contact never reads inside where the winding number puts it
//! outside, which would raise a pair's depth floor and let it go deeper than it is
//! (docs/contact-from-start.md §2–3).

#[path = "../../scene/tests/corpus/mod.rs"]
mod corpus;
#[path = "../../solver/tests/common/sides.rs"]
mod sides;

use glam::{DQuat, DVec3};
use mockup_ccd::mesh::{Orientation, Sides};
use mockup_ccd::{Collider, Mesh, Pose, proximity};
use mockup_solver::ContactPoint;
use std::path::Path;

/// The file's mesh scaled into a unit box about the origin; it must be closed and
/// consistently wound (the winding number needs a closed surface).
fn unit_closed(root: &Path, file: &str) -> Mesh {
    let (m, _) = mockup_scene::mesh_file::load_merged(&root.join(file)).unwrap();
    let (lo, hi) = m.bounds();
    let (c, s) = (0.5 * (lo + hi), (hi - lo).max_element());
    let m = Mesh::new(m.vertices().iter().map(|&p| (p - c) / s).collect(), m.triangles().to_vec()).unwrap();
    assert!((0..m.edges().len() as u32).all(|e| m.edge_faces(e).len() == 2), "{file} is closed");
    assert!(Orientation::of(&m).consistent, "{file} is consistently wound");
    m
}

/// Pairs of eleven closed real meshes (scanned, sculpted, CAD, convex decompositions whose
/// shells overlap) at random overlapping poses, contacts read within 2 % of their size. Where
/// shells overlap, a vertex inside one shell can read outside from a face of another: that
/// reads the pair less deep, never deeper, and is allowed.
#[test]
fn no_real_vertex_reads_inside_where_it_is_outside() {
    let Some(root) = corpus::pybullet_data("real_sides") else { return };
    let files = [
        "duck.obj",
        "bunny.obj",
        "teddy2_VHACD_CHs.obj",
        "laikago/hip_motor.stl",
        "torus/torus_textured.obj",
        "soccerball.obj",
        "quadruped/microtaur/xm430w210.stl",
        "random_urdfs/602/602.obj",
        "random_urdfs/990/990.obj",
        "differential/diff_spider.stl",
        "differential/diff_side.stl",
    ];
    let meshes: Vec<Mesh> = files.iter().map(|f| unit_closed(&root, f)).collect();
    let mut seed = 99u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let (radius, mut checked, mut inside) = (0.02, 0, 0);
    for case in 0..44 {
        let (k, l) = (case % meshes.len(), (2 * case / meshes.len() + 1 + case) % meshes.len());
        let (ma, mb) = (&meshes[k], &meshes[l]);
        let pa = Pose::new(
            DQuat::from_scaled_axis(DVec3::new(rnd(), rnd(), rnd()) * 3.0),
            DVec3::new(rnd(), rnd(), rnd()) * 0.3,
        );
        let pb = Pose::IDENTITY;
        let (sa, sb) = (Sides::new(ma, Orientation::of(ma)), Sides::new(mb, Orientation::of(mb)));
        let contacts: Vec<ContactPoint> =
            proximity(&Collider::new(ma.clone()), &pa, &Collider::new(mb.clone()), &pb, radius)
                .value
                .iter()
                .map(|p| ContactPoint::from_pair(0, 1, p).seated((&sa, &pa), (&sb, &pb), 1e-9))
                .collect();
        for (mesh, pose, other, other_pose, of_i) in [(ma, &pa, mb, &pb, true), (mb, &pb, ma, &pa, false)] {
            for (v, c) in sides::nearest_readings(&contacts, of_i) {
                if c.distance < 1e-7 {
                    continue;
                }
                let w = sides::winding(other, other_pose, pose.transform_point(mesh.vertex(v)));
                assert!(
                    !(c.separation < 0.0 && w < 0.5),
                    "{} against {}: vertex {v} reads inside, winding number {w}: {c:?}",
                    files[if of_i { k } else { l }],
                    files[if of_i { l } else { k }]
                );
                checked += 1;
                inside += usize::from(c.separation < 0.0);
            }
        }
    }
    assert!(checked > 5000 && inside > 500, "{checked} vertices checked, {inside} inside");
}
