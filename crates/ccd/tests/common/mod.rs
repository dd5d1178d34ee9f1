//! Shared by the integration tests: small random meshes and motions, OBJ loading.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use mockup_ccd::glide::{GlideCollision, GlideReport};
use mockup_ccd::{Collider, ContactKind, Mesh, MeshBuilder, Motion, Pose, intersects};
use proptest::prelude::*;
use std::path::Path;

pub fn data(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(path)
}

/// Loads an OBJ as it is: triangulated, all objects merged, no rescaling.
pub fn load_obj(path: &Path) -> Mesh {
    load_obj_indexed(path, true)
}

/// The same, read by position index as mockup-scene reads it (closed meshes stay closed).
pub fn load_obj_by_position(path: &Path) -> Mesh {
    load_obj_indexed(path, false)
}

fn load_obj_indexed(path: &Path, single_index: bool) -> Mesh {
    let (models, _) =
        tobj::load_obj(path, &tobj::LoadOptions { triangulate: true, single_index, ..Default::default() })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut b = MeshBuilder::new();
    for m in models {
        let base = b.vertices.len() as u32;
        b.vertices.extend(m.mesh.positions.chunks(3).map(|p| DVec3::new(p[0], p[1], p[2])));
        b.triangles.extend(m.mesh.indices.chunks(3).map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    b.build().unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn arb_vec(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

pub fn arb_rotation() -> impl Strategy<Value = DQuat> {
    (arb_vec(1.0), -1.0..1.0f64)
        .prop_filter("non-zero", |(v, w)| v.length_squared() + w * w > 0.01)
        .prop_map(|(v, w)| DQuat::from_xyzw(v.x, v.y, v.z, w).normalize())
}

pub fn arb_pose(r: f64) -> impl Strategy<Value = Pose> {
    (arb_rotation(), arb_vec(r)).prop_map(|(q, t)| Pose::new(q, t))
}

pub fn arb_cuboid() -> impl Strategy<Value = Mesh> {
    (0.2..1.0f64, 0.2..1.0f64, 0.05..1.0f64)
        .prop_map(|(x, y, z)| MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(x, y, z)).build().unwrap())
}

pub fn arb_torus() -> impl Strategy<Value = Mesh> {
    (0.4..1.0f64, 0.1..0.3f64, 5u32..9, 3u32..6)
        .prop_map(|(r, s, n, m)| MeshBuilder::new().torus(Pose::IDENTITY, r, s, n, m).build().unwrap())
}

pub fn arb_sphere() -> impl Strategy<Value = Mesh> {
    (0.3..1.0f64, 3u32..6, 4u32..8)
        .prop_map(|(r, a, b)| MeshBuilder::new().sphere(Pose::IDENTITY, r, a, b).build().unwrap())
}

/// Small meshes of every kind the queries must handle: closed convex and non-convex,
/// open sheets, lone triangles, and soups of unconnected triangles.
pub fn arb_mesh() -> impl Strategy<Value = Mesh> {
    prop_oneof![
        arb_cuboid(),
        arb_torus(),
        arb_sphere(),
        (0.5..2.0f64, 0.5..2.0f64, 1u32..4, 1u32..4)
            .prop_map(|(x, y, n, m)| MeshBuilder::new().grid(Pose::IDENTITY, x, y, n, m).build().unwrap()),
        proptest::collection::vec(proptest::array::uniform3(arb_vec(1.0)), 1..8).prop_filter_map(
            "non-degenerate",
            |tris| {
                let mut b = MeshBuilder::new();
                for t in tris {
                    b = b.raw(Pose::IDENTITY, &t, &[[0, 1, 2]]);
                }
                b.build().ok()
            }
        ),
    ]
}

/// [`arb_mesh`] with the flaws of real files: zero-area triangles (a repeated corner, three
/// collinear corners), a fin that makes an edge non-manifold, every other triangle turned
/// (inconsistent winding), an unreferenced vertex.
pub fn arb_rough_mesh() -> impl Strategy<Value = Mesh> {
    (arb_mesh(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(m, degenerate, fin, turn)| {
        let mut v = m.vertices().to_vec();
        let mut t = m.triangles().to_vec();
        let [a, b, c] = t[0];
        let (pa, pb, pc) = (v[a as usize], v[b as usize], v[c as usize]);
        if degenerate {
            v.push(pa.lerp(pb, 0.5));
            t.extend([[a, a, b], [a, b, v.len() as u32 - 1]]);
        }
        if fin {
            let n = (pb - pa).cross(pc - pa).normalize_or_zero();
            v.push(0.5 * (pa + pb) + 0.3 * n + 0.1 * (pc - pa));
            t.push([a, b, v.len() as u32 - 1]);
        }
        if turn {
            for tri in t.iter_mut().step_by(2) {
                tri.swap(1, 2);
            }
        }
        v.push(DVec3::new(3.0, 3.0, 3.0));
        Mesh::new(v, t).unwrap()
    })
}

/// The least distance between two placed meshes over every pair of non-degenerate triangles
/// (`geometry::triangle_distance`, 0 for intersecting ones).
pub fn brute_distance(ma: &Mesh, pa: &Pose, mb: &Mesh, pb: &Pose) -> f64 {
    let tris = |m: &Mesh, p: &Pose| -> Vec<[DVec3; 3]> {
        (0..m.triangles().len() as u32)
            .filter(|&t| !m.is_degenerate(t))
            .map(|t| m.triangle_points(t).map(|x| p.transform_point(x)))
            .collect()
    };
    let (ta, tb) = (tris(ma, pa), tris(mb, pb));
    let mut best = f64::INFINITY;
    for x in &ta {
        for y in &tb {
            best = best.min(mockup_ccd::geometry::triangle_distance(x, y).distance);
        }
    }
    best
}

/// A mesh pair and motion where the moving mesh starts clear of the fixed one.
#[derive(Debug, Clone)]
pub struct Case {
    pub a: Mesh,
    pub b: Mesh,
    pub motion_a: Motion,
    pub motion_b: Motion,
}

/// Whether `p` is inside the closed mesh `m` placed by `pose`: the generalized winding number
/// (sum of the triangles' signed solid angles, Van Oosterom–Strackee) is ±1 inside, 0
/// outside. Meaningless for open meshes, which the caller skips.
pub fn inside(m: &Mesh, pose: &Pose, p: DVec3) -> bool {
    let q = pose.inverse().transform_point(p);
    let mut omega = 0.0;
    for t in m.triangles() {
        let [a, b, c] = t.map(|v| m.vertex(v) - q);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        omega += 2.0 * num.atan2(den);
    }
    (omega / (4.0 * std::f64::consts::PI)).abs() > 0.5
}

/// Neither body starts inside the other (only a closed body has an inside): with the
/// surfaces apart, a body is inside the other iff one of its vertices is.
pub fn neither_inside(a: &Mesh, pose_a: &Pose, b: &Mesh, pose_b: &Pose) -> bool {
    let a_in_b = b.stats().is_closed() && a.vertices().iter().any(|&v| inside(b, pose_b, pose_a.transform_point(v)));
    let b_in_a = a.stats().is_closed() && b.vertices().iter().any(|&v| inside(a, pose_a, pose_b.transform_point(v)));
    !a_in_b && !b_in_a
}

/// Random cases: A moves (rotation up to a bit more than π, so some steps are split), B
/// rests or also moves; A starts clear of B: no surfaces crossing and neither inside the
/// other (the queries' precondition; culling relies on it, docs/bm-culling.md §1).
pub fn arb_case() -> impl Strategy<Value = Case> {
    arb_case_with(3.0, arb_step())
}

/// [`arb_case`] over [`arb_rough_mesh`]es: degenerate triangles, fins, turned faces.
pub fn arb_rough_case() -> impl Strategy<Value = Case> {
    arb_case_of(arb_rough_mesh(), arb_rough_mesh(), 3.0, arb_step())
}

/// Steps that turn between π/2 and π: up to `MAX_PIECE_ANGLE` one Redon screw whose
/// translation piles up towards the end as the angle nears π, beyond it split. B rests.
pub fn arb_large_turn_case() -> impl Strategy<Value = Case> {
    let turn = (arb_vec(1.0), std::f64::consts::FRAC_PI_2..std::f64::consts::PI, arb_vec(1.0))
        .prop_filter("axis", |(axis, _, _)| axis.length() > 0.1)
        .prop_map(|(axis, angle, t)| (Pose::new(DQuat::from_axis_angle(axis.normalize(), angle), t), true));
    // Starts near B, so that a good share of the turns sweep into it.
    arb_case_with(1.2, turn).prop_map(|c| Case { motion_b: Motion::stationary(Pose::IDENTITY), ..c })
}

/// Half the steps go anywhere (large rotations, split paths); half are small displacements
/// like one frame of a drag. `true`: the step is relative to the start pose.
fn arb_step() -> impl Strategy<Value = (Pose, bool)> {
    prop_oneof![
        arb_pose(1.5).prop_map(|p| (p, false)),
        (arb_rotation(), arb_vec(1.0)).prop_map(|(q, t)| { (Pose::new(DQuat::IDENTITY.slerp(q, 0.15), t), true) })
    ]
}

/// A starts within `start` of B's origin.
fn arb_case_with(start: f64, step: impl Strategy<Value = (Pose, bool)>) -> impl Strategy<Value = Case> {
    arb_case_of(arb_mesh(), arb_mesh(), start, step)
}

fn arb_case_of(
    mesh_a: impl Strategy<Value = Mesh>,
    mesh_b: impl Strategy<Value = Mesh>,
    start: f64,
    step: impl Strategy<Value = (Pose, bool)>,
) -> impl Strategy<Value = Case> {
    (mesh_a, mesh_b, arb_pose(start), step, arb_pose(0.3), prop::bool::weighted(0.25)).prop_filter_map(
        "start clear",
        |(a, b, from, (to, relative), b_move, both_move)| {
            let to = if relative { to * from } else { to };
            let motion_b =
                if both_move { Motion::new(Pose::IDENTITY, b_move) } else { Motion::stationary(Pose::IDENTITY) };
            let (ca, cb) = (Collider::new(a.clone()), Collider::new(b.clone()));
            if intersects(&ca, &from, &cb, &motion_b.from).value || !neither_inside(&a, &from, &b, &motion_b.from) {
                return None;
            }
            Some(Case { a, b, motion_a: Motion::new(from, to), motion_b })
        },
    )
}

/// Distance between the two features of a collision with the bodies placed at its time by the
/// glide motion: zero up to rounding for a real contact.
pub fn feature_gap(a: &Mesh, b: &Mesh, r: &GlideReport, c: &GlideCollision) -> f64 {
    let (pa, pb) = (r.motion.pose_a_at(c.contact.time), r.motion.pose_b_at(c.contact.time));
    let tri = |m: &Mesh, p: &Pose, f: u32| m.triangle_points(f).map(|x| p.transform_point(x));
    let seg = |m: &Mesh, p: &Pose, e: u32| m.edge_points(e).map(|x| p.transform_point(x));
    match c.contact.kind {
        ContactKind::FaceVertex => {
            point_triangle(pb.transform_point(b.vertex(c.contact.feature_b)), tri(a, &pa, c.contact.feature_a))
        }
        ContactKind::VertexFace => {
            point_triangle(pa.transform_point(a.vertex(c.contact.feature_a)), tri(b, &pb, c.contact.feature_b))
        }
        _ => segment_segment(seg(a, &pa, c.contact.feature_a), seg(b, &pb, c.contact.feature_b)),
    }
}

pub fn point_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> f64 {
    let n = (b - a).cross(c - a).normalize();
    let inside = [(a, b), (b, c), (c, a)].iter().all(|&(u, v)| (v - u).cross(p - u).dot(n) >= -1e-9);
    if inside {
        return (p - a).dot(n).abs();
    }
    [(a, b), (b, c), (c, a)].iter().map(|&(u, v)| segment_segment([u, v], [p, p])).fold(f64::INFINITY, f64::min)
}

/// Distance between two segments by dense sampling of one and projection onto the other.
pub fn segment_segment([a0, a1]: [DVec3; 2], [b0, b1]: [DVec3; 2]) -> f64 {
    let onto = |p: DVec3| {
        let d = b1 - b0;
        let t = if d.length_squared() > 0.0 { ((p - b0).dot(d) / d.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        (p - (b0 + t * d)).length()
    };
    // Ternary search on the convex distance along the first segment.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if onto(a0.lerp(a1, m1)) <= onto(a0.lerp(a1, m2)) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    onto(a0.lerp(a1, 0.5 * (lo + hi)))
}

/// The larger of the two meshes' bounding-box diagonals.
pub fn scale(a: &Mesh, b: &Mesh) -> f64 {
    let (lo, hi) = a.bounds();
    let (lo2, hi2) = b.bounds();
    (hi - lo).length().max((hi2 - lo2).length())
}
