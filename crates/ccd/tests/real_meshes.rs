//! Every query on real third-party meshes: pybullet_data's OBJ files, fetched by
//! `scripts/fetch-real-meshes` into assets/third_party/pybullet_data (not committed).
//!
//! The meshes (read by position index, as mockup-scene reads OBJ files, centred and scaled to
//! a unit bounding radius) are closed ones, open ones with degenerate triangles, one open,
//! non-manifold and degenerate at once, a non-manifold one, an open sheet, unconnected
//! triangles, convex pieces overlapping one another, and the bunny with every third face
//! turned (inconsistently wound): [`LARGE`] and [`SMALL`] say which is which. Small ones, and
//! patches cut out of the large ones, are checked against brute force; the large ones against
//! the static test and each other. Nothing may panic.
//!
//! Without the corpus each test prints a note and passes; with `MOCKUP_REAL_MESHES=require`
//! it fails instead.

mod common;

use common::{brute_distance, feature_gap, scale};
use glam::{DQuat, DVec3};
use mockup_ccd::bvh::is_solid;
use mockup_ccd::geometry::triangles_intersect;
use mockup_ccd::glide::{GlideBody, GlideOptions, GlideReport, glide_collisions};
use mockup_ccd::query::{RayHit, ray_triangle, reference};
use mockup_ccd::{
    Collider, Mesh, Motion, Pose, QueryOptions, RelativeMotion, distance, first_contact, intersects, proximity,
    ray_cast,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Whole meshes, with what makes each one hard.
const LARGE: [(&str, &str); 5] = [
    ("duck.obj", "closed, 4,212 triangles"),
    ("lego/lego.obj", "open (9 boundary edges), 2 degenerate triangles"),
    ("bunny.obj", "closed, 902 triangles"),
    ("teddy2_VHACD_CHs.obj", "closed convex pieces overlapping one another, 2,432 triangles"),
    ("racecar/meshes/hokuyo.obj", "open, 23 non-manifold edges, 237 degenerate triangles, 82 unreferenced vertices"),
];

/// Meshes small enough for brute force.
const SMALL: [(&str, &str); 6] = [
    ("duck_vhacd.obj", "closed convex pieces, 396 triangles"),
    ("laikago/hip_motor_lores.obj", "closed, 92 triangles"),
    ("random_urdfs/009/009.obj", "closed, 90 triangles"),
    ("laikago/upper_leg_left_lores.obj", "2 non-manifold edges, 196 triangles"),
    ("cloth_z_up.obj", "an open sheet, 32 triangles"),
    ("franka_panda/meshes/collision/finger.obj", "32 unconnected triangles"),
];

/// Triangles in a patch cut out of a large mesh.
const PATCH: usize = 60;

struct RealMesh {
    name: String,
    mesh: Mesh,
    collider: Arc<Collider>,
}

impl std::fmt::Debug for RealMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl RealMesh {
    fn new(name: String, mesh: Mesh) -> RealMesh {
        let collider = Arc::new(Collider::new(mesh.clone()));
        RealMesh { name, mesh, collider }
    }
}

struct Corpus {
    /// The whole large meshes, then the bunny turned inconsistently.
    large: Vec<RealMesh>,
    small: Vec<RealMesh>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/third_party/pybullet_data")
}

/// The corpus, or `None` with a note (a failure under `MOCKUP_REAL_MESHES=require`).
fn corpus() -> Option<&'static Corpus> {
    static CORPUS: OnceLock<Option<Corpus>> = OnceLock::new();
    let found = CORPUS
        .get_or_init(|| {
            let dir = corpus_dir();
            dir.join("bunny.obj").exists().then(|| {
                let load = |list: &[(&str, &str)]| -> Vec<RealMesh> {
                    list.iter().map(|(file, _)| RealMesh::new(file.to_string(), load_obj(&dir.join(file)))).collect()
                };
                let mut large = load(&LARGE);
                let bunny = &large[2].mesh;
                let mut triangles = bunny.triangles().to_vec();
                for t in triangles.iter_mut().step_by(3) {
                    t.swap(1, 2);
                }
                let turned = Mesh::new(bunny.vertices().to_vec(), triangles).unwrap();
                large.push(RealMesh::new("bunny.obj, every third face turned".into(), turned));
                Corpus { large, small: load(&SMALL) }
            })
        })
        .as_ref();
    if found.is_none() {
        let dir = corpus_dir();
        if std::env::var("MOCKUP_REAL_MESHES").is_ok_and(|v| v == "require") {
            panic!("{} is missing: run scripts/fetch-real-meshes (MOCKUP_REAL_MESHES=require)", dir.display());
        }
        eprintln!("note: {} is missing, real-mesh test skipped (scripts/fetch-real-meshes fetches it)", dir.display());
    }
    found
}

/// An OBJ file by position index, all objects merged, centred and scaled to a unit bounding
/// radius. A file that does not load is a test failure naming it.
fn load_obj(path: &Path) -> Mesh {
    let options = tobj::LoadOptions { triangulate: true, single_index: false, ..Default::default() };
    let (models, _) = tobj::load_obj(path, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut vertices, mut triangles) = (Vec::new(), Vec::new());
    for m in models {
        let base = vertices.len() as u32;
        vertices.extend(m.mesh.positions.chunks(3).map(|p| DVec3::new(p[0], p[1], p[2])));
        triangles.extend(m.mesh.indices.chunks(3).map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    let (lo, hi) = vertices.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(l, h), &p| (l.min(p), h.max(p)));
    let centre = 0.5 * (lo + hi);
    let radius = vertices.iter().map(|&p| (p - centre).length()).fold(0.0, f64::max);
    let vertices = vertices.into_iter().map(|p| (p - centre) / radius).collect();
    Mesh::new(vertices, triangles).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `PATCH` triangles nearest to triangle `seed`'s centroid (degenerate ones included),
/// with the mesh's own vertex indices compacted: a small open piece of a real mesh.
fn patch(m: &RealMesh, seed: usize) -> Option<RealMesh> {
    let mesh = &m.mesh;
    let centroid = |t: u32| mesh.triangle_points(t).iter().sum::<DVec3>() / 3.0;
    let at = centroid((seed % mesh.triangles().len()) as u32);
    let mut near: Vec<u32> = (0..mesh.triangles().len() as u32).collect();
    near.sort_by(|&x, &y| (centroid(x) - at).length().total_cmp(&(centroid(y) - at).length()));
    near.truncate(PATCH);
    let mut index = vec![u32::MAX; mesh.vertices().len()];
    let mut vertices = Vec::new();
    let triangles = near
        .iter()
        .map(|&t| {
            mesh.triangle(t).map(|v| {
                if index[v as usize] == u32::MAX {
                    index[v as usize] = vertices.len() as u32;
                    vertices.push(mesh.vertex(v));
                }
                index[v as usize]
            })
        })
        .collect();
    // A patch of degenerate triangles only is refused by `Mesh::new`: the caller picks another.
    Mesh::new(vertices, triangles).ok().map(|p| RealMesh::new(format!("{} near triangle {seed}", m.name), p))
}

/// A small mesh: one of `SMALL`, or a patch of a large one.
#[derive(Clone, Copy, Debug)]
enum Pick {
    Small(usize),
    Patch(usize, usize),
}

fn arb_pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        (0..SMALL.len()).prop_map(Pick::Small),
        (0..LARGE.len() + 1, 0usize..100_000).prop_map(|(m, seed)| Pick::Patch(m, seed)),
    ]
}

/// The mesh a pick names (a patch is built afresh; `None` when all its triangles are
/// degenerate).
fn small_mesh(c: &'static Corpus, p: Pick) -> Option<std::borrow::Cow<'static, RealMesh>> {
    match p {
        Pick::Small(i) => Some(std::borrow::Cow::Borrowed(&c.small[i])),
        Pick::Patch(m, seed) => patch(&c.large[m], seed).map(std::borrow::Cow::Owned),
    }
}

impl Clone for RealMesh {
    fn clone(&self) -> RealMesh {
        RealMesh { name: self.name.clone(), mesh: self.mesh.clone(), collider: self.collider.clone() }
    }
}

fn arb_unit() -> impl Strategy<Value = DVec3> {
    common::arb_vec(1.0).prop_filter("non-zero", |v| v.length() > 0.1).prop_map(|v| v.normalize())
}

/// Motions of A (bounding radius 1) that start clear of B (radius 1, at the origin at the
/// start): 2.05 to 3 away, so nothing touches or encloses the other. A plunges to a pose
/// near B or takes a drag-sized step toward it; B rests, or a quarter of the time moves too.
fn arb_motions() -> impl Strategy<Value = (Motion, Motion)> {
    let end = prop_oneof![
        common::arb_pose(1.0).prop_map(|p| (p, None)),
        (common::arb_rotation(), 0.3..2.5f64, common::arb_vec(0.3))
            .prop_map(|(q, toward, wobble)| (Pose::new(q, wobble), Some(toward))),
    ];
    (arb_unit(), 2.05..3.0f64, common::arb_rotation(), end, common::arb_pose(0.3), prop::bool::weighted(0.25)).prop_map(
        |(dir, away, rot, (end, toward), b_end, b_moves)| {
            let from = Pose::new(rot, dir * away);
            // A drag-sized step: a turn of up to 0.15 of a random one about A's centre, a
            // move toward B.
            let to = match toward {
                Some(toward) => Pose::new(
                    DQuat::IDENTITY.slerp(end.rotation, 0.15) * rot,
                    from.translation - dir * toward + end.translation,
                ),
                None => end,
            };
            let motion_b =
                if b_moves { Motion::new(Pose::IDENTITY, b_end) } else { Motion::stationary(Pose::IDENTITY) };
            (Motion::new(from, to), motion_b)
        },
    )
}

/// Pure translations and pure rotations of A toward B at rest, where Redon's and the glide's
/// in-between motions coincide.
fn arb_pure_motion() -> impl Strategy<Value = Motion> {
    (arb_unit(), 2.05..3.0f64, common::arb_rotation(), 0.5..2.5f64, arb_unit(), -2.5..2.5f64, any::<bool>()).prop_map(
        |(dir, away, rot, toward, axis, angle, turn)| {
            let from = Pose::new(rot, dir * away);
            let step = if turn {
                // about an axis through a point between the bodies: A swings past or into B
                Pose::rotation_about(0.5 * dir * away + axis.cross(dir), axis, angle)
            } else {
                Pose::from_translation(-dir * toward)
            };
            Motion::new(from, step * from)
        },
    )
}

/// Runs `cases` cases of `strategy` through `test`, failing with the case that broke it.
fn run<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    if let Err(e) = TestRunner::new(config).run(&strategy, test) {
        panic!("{e}");
    }
}

fn same_time(x: Option<f64>, y: Option<f64>) -> bool {
    match (x, y) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= 1e-12,
        _ => false,
    }
}

/// First contact with and without culling equals brute force on the time, on small real
/// meshes and patches of large ones (open, degenerate, non-manifold pieces).
#[test]
fn first_contact_agrees_with_brute_force_on_small_real_meshes() {
    let Some(c) = corpus() else { return };
    run(200, (arb_pick(), arb_pick(), arb_motions()), |(pa, pb, (ma, mb))| {
        let (Some(a), Some(b)) = (small_mesh(c, pa), small_mesh(c, pb)) else { return Ok(()) };
        let time = |opts: &QueryOptions| first_contact(&a.collider, &ma, &b.collider, &mb, opts).value.map(|x| x.time);
        let brute = reference::first_contact(&a.collider, &ma, &b.collider, &mb, &QueryOptions::default())
            .value
            .map(|x| x.time);
        for cull in [true, false] {
            let tree = time(&QueryOptions { bm_culling: cull, ..Default::default() });
            prop_assert!(
                same_time(tree, brute),
                "{} onto {}, culling {cull}: tree {tree:?}, brute {brute:?}",
                a.name,
                b.name
            );
        }
        Ok(())
    });
}

/// On the whole meshes: culling on and off agree, and the static test at 32 sampled times
/// agrees with the first contact (apart before it; once they intersect, a contact came no
/// later).
#[test]
fn first_contact_agrees_with_the_static_test_on_large_real_meshes() {
    let Some(c) = corpus() else { return };
    let n = c.large.len();
    run(64, (0..n, 0..n, arb_motions()), |(i, j, (ma, mb))| {
        let (a, b) = (&c.large[i], &c.large[j]);
        let with = |cull: bool| {
            let opts = QueryOptions { bm_culling: cull, ..Default::default() };
            first_contact(&a.collider, &ma, &b.collider, &mb, &opts).value.map(|x| x.time)
        };
        let (culled, plain) = (with(true), with(false));
        prop_assert!(same_time(culled, plain), "{a:?} onto {b:?}: culling {culled:?}, without {plain:?}");
        let rel = RelativeMotion::new(&ma, &mb);
        let first = plain.unwrap_or(f64::INFINITY);
        for k in 1..=32 {
            let t = k as f64 / 32.0;
            let meet = intersects(&a.collider, &rel.pose_a_at(t), &b.collider, &rel.pose_b_at(t)).value;
            // Apart before the first contact; once they intersect, a contact came no later.
            prop_assert!(!meet || first <= t, "{a:?} onto {b:?}: intersecting at {t}, first contact {plain:?}");
        }
        Ok(())
    });
}

/// Whether a mesh has an outside (closed, consistently wound): then the glide screen sees
/// every collision.
fn solid(m: &RealMesh) -> bool {
    is_solid(&m.mesh)
}

/// What every glide report must satisfy: finite collisions in the step whose features touch.
fn check_glide(a: &RealMesh, b: &RealMesh, r: &GlideReport) -> Result<(), TestCaseError> {
    for col in &r.collisions {
        prop_assert!(col.contact.time.is_finite() && (0.0..=1.0).contains(&col.contact.time));
        prop_assert!(col.properness.is_finite() && col.contact.point.is_finite() && col.contact.normal.is_finite());
        let gap = feature_gap(&a.mesh, &b.mesh, r, col);
        prop_assert!(gap <= 1e-7 * scale(&a.mesh, &b.mesh), "{a:?} and {b:?}: gap {gap} at {col:?}");
    }
    Ok(())
}

/// The glide screen on every pairing of real meshes (A at rest, B moving; both moving a
/// quarter of the time): no panic, every collision a real contact, and for two solids the
/// static test along the glide motion agrees (once they intersect, a collision came no later
/// than a time step).
#[test]
fn glide_screen_on_real_meshes() {
    let Some(c) = corpus() else { return };
    let all: Vec<&RealMesh> = c.large.iter().chain(&c.small).collect();
    let n = all.len();
    run(120, (0..n, 0..n, arb_motions(), any::<bool>()), |(i, j, (mb, ma), until_first)| {
        let (a, b) = (all[i], all[j]);
        let (ga, gb) = (GlideBody::from_collider(a.collider.clone()), GlideBody::from_collider(b.collider.clone()));
        let opts = GlideOptions { until_first, ..GlideOptions::default() };
        let r = glide_collisions(&ga, &ma, &gb, &mb, &opts);
        check_glide(a, b, &r)?;
        if solid(a) && solid(b) {
            let res = r.resolution.map_or(0.0, |x| x.time);
            let first = r.collisions.first().map(|x| x.contact.time);
            let entered = (1..=32)
                .map(|k| k as f64 / 32.0)
                .find(|&t| intersects(&a.collider, &r.motion.pose_a_at(t), &b.collider, &r.motion.pose_b_at(t)).value);
            if let Some(t) = entered {
                prop_assert!(first.is_some_and(|f| f <= t + res), "{a:?}, {b:?}: intersecting at {t}, first {first:?}");
            }
        }
        Ok(())
    });
}

/// On pure translations and rotations the glide motion is Redon's: the earliest proper
/// collision is never before the exact first contact, and for solids it is the first
/// contact, to the screen's time resolution.
#[test]
fn glide_agrees_with_first_contact_on_pure_motions() {
    let Some(c) = corpus() else { return };
    let all: Vec<&RealMesh> = c.large.iter().chain(&c.small).collect();
    let n = all.len();
    run(120, (0..n, 0..n, arb_pure_motion()), |(i, j, mb)| {
        let (a, b) = (all[i], all[j]);
        let still = Motion::stationary(Pose::IDENTITY);
        let exact =
            first_contact(&b.collider, &mb, &a.collider, &still, &QueryOptions::default()).value.map(|x| x.time);
        let (ga, gb) = (GlideBody::from_collider(a.collider.clone()), GlideBody::from_collider(b.collider.clone()));
        let r = glide_collisions(&ga, &still, &gb, &mb, &GlideOptions::default());
        check_glide(a, b, &r)?;
        let glide = r.first_proper().map(|x| x.contact.time);
        let res = r.resolution.map_or(0.0, |x| x.time);
        if let Some(g) = glide {
            let e = exact.unwrap_or(f64::INFINITY);
            prop_assert!(g >= e - 1e-9, "{b:?} onto {a:?}: glide {g} before the first contact {exact:?}");
        }
        if solid(a) && solid(b) {
            match (exact, glide) {
                (None, None) => {}
                (Some(e), Some(g)) => prop_assert!(g <= e + res + 1e-9, "{b:?} onto {a:?}: exact {e}, glide {g}"),
                (e, g) => prop_assert!(false, "{b:?} onto {a:?}: exact {e:?}, glide {g:?}"),
            }
        }
        Ok(())
    });
}

/// Brute force's ray hit: `(t, triangle)` over every non-degenerate triangle.
fn brute_ray(m: &Mesh, pose: &Pose, o: DVec3, d: DVec3) -> Option<f64> {
    (0..m.triangles().len() as u32)
        .filter(|&t| !m.is_degenerate(t))
        .filter_map(|t| ray_triangle(o, d, m.triangle_points(t).map(|p| pose.transform_point(p))))
        .min_by(f64::total_cmp)
}

/// Static queries on small real meshes and patches, at poses that overlap a third of the
/// time: intersection, distance, proximity and rays agree with brute force.
#[test]
fn static_queries_agree_with_brute_force_on_small_real_meshes() {
    let Some(c) = corpus() else { return };
    let ray = (common::arb_vec(3.0), common::arb_vec(0.8));
    run(200, (arb_pick(), arb_pick(), common::arb_pose(1.5), ray, 0.05..0.5f64), |(pa, pb, pose_a, (from, at), d)| {
        let (Some(a), Some(b)) = (small_mesh(c, pa), small_mesh(c, pb)) else { return Ok(()) };
        let pose_b = Pose::IDENTITY;
        let placed = |m: &Mesh, p: &Pose| -> Vec<[DVec3; 3]> {
            (0..m.triangles().len() as u32)
                .filter(|&t| !m.is_degenerate(t))
                .map(|t| m.triangle_points(t).map(|x| p.transform_point(x)))
                .collect()
        };
        let (ta, tb) = (placed(&a.mesh, &pose_a), placed(&b.mesh, &pose_b));
        let meet = ta.iter().any(|x| tb.iter().any(|y| triangles_intersect(x, y)));
        prop_assert_eq!(intersects(&a.collider, &pose_a, &b.collider, &pose_b).value, meet, "{:?} and {:?}", a, b);

        let brute = brute_distance(&a.mesh, &pose_a, &b.mesh, &pose_b);
        let closest = distance(&a.collider, &pose_a, &b.collider, &pose_b, f64::INFINITY).value.unwrap();
        let slack = 1e-8 * (a.collider.tree().root().obb.radius() + b.collider.tree().root().obb.radius());
        prop_assert!(
            (closest.distance - brute).abs() <= slack + 1e-12,
            "{a:?}, {b:?}: {} vs {brute}",
            closest.distance
        );
        if meet {
            prop_assert!(closest.distance <= 1e-12, "{a:?}, {b:?} intersect: {closest:?}");
        }

        if brute > 0.0 {
            let pairs = proximity(&a.collider, &pose_a, &b.collider, &pose_b, d).value;
            let least = pairs.iter().map(|p| p.distance).fold(f64::INFINITY, f64::min);
            if brute < d {
                prop_assert!((least - brute).abs() < 1e-9, "{a:?}, {b:?}: proximity {least}, brute {brute}");
            } else {
                prop_assert!(pairs.is_empty());
            }
        }

        let dir = pose_a.transform_point(at) - from;
        prop_assume!(dir.length() > 1e-6);
        let hit: Option<RayHit> = ray_cast(&a.collider, &pose_a, from, dir, f64::INFINITY).value;
        let want = brute_ray(&a.mesh, &pose_a, from, dir);
        prop_assert_eq!(hit.is_some(), want.is_some(), "{:?}: {:?} vs {:?}", a, hit, want);
        if let (Some(h), Some(t)) = (hit, want) {
            prop_assert!((h.t - t).abs() <= 1e-9 * (1.0 + t), "{a:?}: ray {} vs {t}", h.t);
        }
        Ok(())
    });
}

/// The whole meshes, pairwise at random poses: distance, proximity, intersection and rays
/// run, and agree with each other (the closest pair's distance is proximity's least, a zero
/// distance is an intersection, a hit lies on the ray and its triangle).
#[test]
fn static_queries_on_large_real_meshes() {
    let Some(c) = corpus() else { return };
    let n = c.large.len();
    run(48, (0..n, 0..n, common::arb_pose(2.2), common::arb_vec(3.0)), |(i, j, pose_a, from)| {
        let (a, b) = (&c.large[i], &c.large[j]);
        let pose_b = Pose::IDENTITY;
        let meet = intersects(&a.collider, &pose_a, &b.collider, &pose_b).value;
        let closest = distance(&a.collider, &pose_a, &b.collider, &pose_b, f64::INFINITY).value.unwrap();
        if meet {
            prop_assert!(closest.distance <= 1e-12, "{a:?}, {b:?} intersect: {closest:?}");
        } else if closest.distance > 0.0 {
            let pairs = proximity(&a.collider, &pose_a, &b.collider, &pose_b, closest.distance * 1.01 + 1e-9).value;
            let least = pairs.iter().map(|p| p.distance).fold(f64::INFINITY, f64::min);
            let slack = 1e-8 * (a.collider.tree().root().obb.radius() + b.collider.tree().root().obb.radius());
            prop_assert!(
                least >= closest.distance - slack - 1e-12 && least <= closest.distance + 1e-12,
                "{a:?}, {b:?}: proximity {least}, distance {}",
                closest.distance
            );
        }
        let dir = pose_a.translation - from;
        if let Some(h) = ray_cast(&a.collider, &pose_a, from, dir, f64::INFINITY).value {
            let [p, q, r] = a.mesh.triangle_points(h.triangle).map(|x| pose_a.transform_point(x));
            let on = mockup_ccd::geometry::closest_point_on_triangle(h.point, p, q, r);
            prop_assert!((on - h.point).length() < 1e-9 && (h.point - (from + h.t * dir)).length() < 1e-9);
        }
        Ok(())
    });
}

/// The reported crash: with the glide narrow phase, a drag walk of the duck onto the lego
/// brick and of the lego brick onto the bunny panicked (a degenerate triangle's missing edge,
/// u32::MAX, used as an index). Each walk takes steps from above toward the other part's
/// centre, as the solver does: the screen until the first collision, the mover placed just
/// before it, and the walk ends there.
#[test]
fn glide_drag_walks_of_the_reported_crash() {
    let Some(c) = corpus() else { return };
    let (duck, lego, bunny) = (&c.large[0], &c.large[1], &c.large[2]);
    for (mover, fixed) in [(duck, lego), (lego, bunny)] {
        let (gm, gf) =
            (GlideBody::from_collider(mover.collider.clone()), GlideBody::from_collider(fixed.collider.clone()));
        let still = Motion::stationary(Pose::IDENTITY);
        let mut pose = Pose::new(DQuat::from_rotation_x(0.3), DVec3::new(0.2, -0.1, 2.6));
        let opts = GlideOptions { until_first: true, ..GlideOptions::default() };
        let mut stopped = false;
        for _ in 0..40 {
            let step = Pose::new(DQuat::from_rotation_z(0.05), -0.1 * pose.translation.normalize());
            let motion = Motion::new(pose, step * pose);
            let r = glide_collisions(&gf, &still, &gm, &motion, &opts);
            check_glide(fixed, mover, &r).unwrap();
            if let Some(first) = r.first_proper() {
                pose = r.motion.pose_b_at((first.contact.time - 1e-6).max(0.0));
                stopped = true;
                break;
            }
            pose = motion.to;
        }
        assert!(stopped, "{mover:?} never met {fixed:?}");
        assert!(
            !intersects(&mover.collider, &pose, &fixed.collider, &Pose::IDENTITY).value,
            "{mover:?} went into {fixed:?}"
        );
    }
}
