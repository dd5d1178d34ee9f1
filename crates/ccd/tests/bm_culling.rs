//! BM-cones and culling (docs/bm-culling.md): the inclusion constraint on whole trees, and
//! culling never changing a first contact.

mod common;

use common::{data, load_obj, load_obj_by_position};
use glam::{DQuat, DVec3};
use mockup_ccd::bvh::{ConeSettings, is_solid};
use mockup_ccd::{Collider, ColliderOptions, Mesh, MeshBuilder, Motion, Pose, QueryOptions, first_contact, intersects};
use mockup_cone::{Metric, Settings, project};

#[path = "../benches/scenes.rs"]
mod scenes;

/// The shared meshes, generated ones, random solids, and the closed real meshes of
/// pybullet_data (`scripts/fetch-real-meshes`; skipped with a note when missing, a failure
/// under `MOCKUP_REAL_MESHES=require`).
fn closed_meshes() -> Vec<(String, Mesh)> {
    let mut meshes: Vec<(String, Mesh)> =
        shared_meshes().into_iter().map(|(name, mesh)| (name.to_string(), mesh)).collect();
    let mut rng = Rng(0x5EED_C0DE_0000_0001);
    meshes.extend((0..12).map(|i| (format!("random solid {i}"), random_solid(&mut rng))));
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/third_party/pybullet_data");
    if dir.join("duck.obj").exists() {
        for file in ["duck.obj", "bunny.obj", "laikago/hip_motor_lores.obj", "random_urdfs/009/009.obj"] {
            meshes.push((file.to_string(), load_obj_by_position(&dir.join(file))));
        }
    } else if std::env::var("MOCKUP_REAL_MESHES").is_ok_and(|v| v == "require") {
        panic!("{} is missing: run scripts/fetch-real-meshes (MOCKUP_REAL_MESHES=require)", dir.display());
    } else {
        eprintln!("note: {} is missing, its meshes are left out (scripts/fetch-real-meshes)", dir.display());
    }
    meshes
}

fn shared_meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("bunny", load_obj(&data("ccd-cases/meshes/bunny.obj"))),
        ("torus", load_obj(&data("ccd-cases/meshes/torus.obj"))),
        ("door", scenes::door_part()),
        ("door frame", scenes::door_frame()),
        ("sphere", MeshBuilder::new().sphere(Pose::IDENTITY, 0.7, 12, 20).build().unwrap()),
        ("cylinder", MeshBuilder::new().cylinder(Pose::IDENTITY, 0.4, 1.5, 32, 6).build().unwrap()),
        ("tube", MeshBuilder::new().tube(Pose::IDENTITY, 0.3, 0.5, 1.0, 24, 4).build().unwrap()),
    ]
}

fn in_cone(cone: &[DVec3], n: DVec3) -> bool {
    let g: Vec<f64> = cone.iter().flat_map(|v| v.to_array()).collect();
    project(&g, 3, &n.to_array(), Metric::Identity, &Settings::default()).unwrap().distance <= 1e-7
}

#[test]
fn every_normal_lies_in_its_nodes_cone() {
    for (name, mesh) in closed_meshes() {
        let name = name.as_str();
        assert!(is_solid(&mesh), "{name} should be a solid");
        for settings in [ConeSettings::default(), ConeSettings { r_max: 3, anneal_steps: 40, seed: 7 }] {
            let c =
                Collider::with_options(mesh.clone(), &ColliderOptions { cones: Some(settings), ..Default::default() });
            let (tree, cones) = (c.tree(), c.cones());
            let stats = cones.stats();
            assert!(
                stats.nodes_with_cone * 2 > stats.nodes,
                "{name}: only {} of {} nodes have a cone",
                stats.nodes_with_cone,
                stats.nodes
            );
            // The normals each node must hold, gathered bottom-up by brute force.
            let n = tree.nodes().len();
            let mut below: Vec<Vec<DVec3>> = vec![Vec::new(); n];
            let mut rng = 0x2545_F491_4F6C_DD1Du64;
            for i in (0..n as u32).rev() {
                let node = tree.node(i);
                let mut normals = Vec::new();
                if node.is_leaf() {
                    normals.extend(tree.leaf_triangles(node).iter().map(|&t| mesh.normal(t)));
                } else {
                    let (l, r) = tree.children(i);
                    normals.extend_from_slice(&below[l as usize]);
                    normals.extend_from_slice(&below[r as usize]);
                    // Bottom-up rule: a cone only where both children have one.
                    if cones.cone(i).is_some() {
                        assert!(cones.cone(l).is_some() && cones.cone(r).is_some(), "{name}: node {i}");
                    }
                }
                if let Some(cone) = cones.cone(i) {
                    assert!(cone.len() <= settings.r_max, "{name}: {} vectors at node {i}", cone.len());
                    for &m in &normals {
                        assert!(in_cone(cone, m), "{name}: normal {m} outside the cone of node {i}: {cone:?}");
                    }
                    // Independently (Lemma 3): a direction in the BM-cone is backward for every normal.
                    for _ in 0..8 {
                        let mut r = || {
                            rng ^= rng << 13;
                            rng ^= rng >> 7;
                            rng ^= rng << 17;
                            (rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
                        };
                        let x = -cone.iter().sum::<DVec3>() + 0.5 * DVec3::new(r(), r(), r());
                        if cone.iter().all(|v| v.dot(x) < -1e-9) {
                            assert!(normals.iter().all(|m| m.dot(x) < 0.0), "{name}: node {i}");
                        }
                    }
                }
                // Keep the lists small: the unique normals suffice.
                normals.sort_by(|a, b| a.to_array().partial_cmp(&b.to_array()).unwrap());
                normals.dedup();
                below[i as usize] = normals;
            }
        }
    }
}

#[test]
fn only_solids_get_cones() {
    let sheet = MeshBuilder::new().grid(Pose::IDENTITY, 1.0, 1.0, 4, 4).build().unwrap();
    assert!(!is_solid(&sheet));
    assert_eq!(Collider::new(sheet).cones().stats().nodes_with_cone, 0);
    // Inward normals: the same box with every triangle flipped.
    let b = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE);
    let flipped = Mesh::new(b.vertices.clone(), b.triangles.iter().map(|t| [t[0], t[2], t[1]]).collect()).unwrap();
    assert!(!is_solid(&flipped));
    assert_eq!(Collider::new(flipped).cones().stats().nodes_with_cone, 0);
    let cube = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::ONE).build().unwrap();
    assert!(is_solid(&cube));
    assert!(Collider::new(cube).cones().stats().nodes_with_cone > 0);
}

/// Deterministic draws for the randomized comparison.
struct Rng(u64);
impl Rng {
    fn f(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn unit(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.f(), self.f(), self.f());
            if v.length_squared() > 0.05 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }
    fn rotation(&mut self, max_angle: f64) -> DQuat {
        let axis = self.unit();
        DQuat::from_axis_angle(axis, max_angle * self.f())
    }
}

fn random_solid(rng: &mut Rng) -> Mesh {
    let s = 0.5 + 0.25 * rng.f();
    match (rng.f().abs() * 5.0) as u32 {
        0 => MeshBuilder::new().torus(Pose::IDENTITY, s, 0.3 * s, 10, 6).build().unwrap(),
        1 => MeshBuilder::new().sphere(Pose::IDENTITY, s, 6, 10).build().unwrap(),
        2 => MeshBuilder::new().cylinder(Pose::IDENTITY, 0.5 * s, 1.5 * s, 12, 3).build().unwrap(),
        3 => MeshBuilder::new().tube(Pose::IDENTITY, 0.4 * s, s, 0.8, 12, 2).build().unwrap(),
        _ => {
            let hole = |x: f64, y: f64| x.abs() < 0.2 && y.abs() < 0.15;
            MeshBuilder::new()
                .perforated_plate(Pose::IDENTITY, [2.0 * s, 1.5 * s], 0.1, [8, 6], 0.3, hole)
                .build()
                .unwrap()
        }
    }
}

/// Culling never changes the first contact of a step that starts free of interpenetration
/// (the two bodies start with disjoint bounding spheres, so neither is inside the other).
#[test]
fn culling_never_changes_the_first_contact() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut hits, mut culled_cases, mut cases) = (0, 0, 0);
    for case in 0..600 {
        let (a, b) = (Collider::new(random_solid(&mut rng)), Collider::new(random_solid(&mut rng)));
        let (ra, rb) = (a.tree().root().obb, b.tree().root().obb);
        let reach = ra.radius() + rb.radius() + ra.center.length() + rb.center.length();
        let dir = rng.unit();
        let from = Pose::new(rng.rotation(3.0), dir * reach * (1.0 + 0.2 * rng.f().abs()));
        // Toward B, past it or not, with up to ±1.5 rad of rotation (some steps split).
        let to = Pose::new(rng.rotation(1.5) * from.rotation, dir * reach * rng.f() + 0.3 * rng.unit());
        let motion_a = Motion::new(from, to);
        let motion_b = if case % 4 == 0 {
            Motion::new(Pose::IDENTITY, Pose::new(rng.rotation(0.5), 0.2 * rng.unit()))
        } else {
            Motion::stationary(Pose::IDENTITY)
        };
        assert!(!intersects(&a, &from, &b, &Pose::IDENTITY).value);
        let on = first_contact(&a, &motion_a, &b, &motion_b, &QueryOptions::default());
        let off =
            first_contact(&a, &motion_a, &b, &motion_b, &QueryOptions { bm_culling: false, ..Default::default() });
        // Seed 000's way (every triangle pair, a backward triangle's pairs skipped): the same.
        let seed = QueryOptions { every_triangle_pair: true, ..Default::default() };
        let seed_on = first_contact(&a, &motion_a, &b, &motion_b, &seed).value;
        let seed_off = first_contact(&a, &motion_a, &b, &motion_b, &QueryOptions { bm_culling: false, ..seed }).value;
        for (what, x) in [("seed's tests, culling", seed_on), ("seed's tests", seed_off)] {
            assert_eq!(
                x.map(|x| (x.time, x.kind, x.feature_a, x.feature_b)),
                off.value.map(|y| (y.time, y.kind, y.feature_a, y.feature_b)),
                "case {case}: {what}"
            );
        }
        cases += 1;
        hits += on.value.is_some() as u32;
        culled_cases += (on.counters.culled_nodes > 0) as u32;
        match (on.value, off.value) {
            (None, None) => {}
            (Some(x), Some(y)) => {
                assert_eq!(
                    (x.time, x.kind, x.feature_a, x.feature_b),
                    (y.time, y.kind, y.feature_a, y.feature_b),
                    "case {case}"
                );
            }
            (x, y) => panic!("case {case}: with culling {x:?}, without {y:?}"),
        }
    }
    // Not vacuous: most steps hit, and culling acted in most.
    assert!(hits * 2 > cases, "{hits} hits in {cases} cases");
    assert!(culled_cases * 2 > cases, "culling acted in {culled_cases} of {cases} cases");
}

/// The same on a real mesh, where cones are reduced to r_max: the Stanford bunny against
/// itself (3,674 triangles each), random screws from apart toward each other.
#[test]
fn culling_keeps_the_bunnys_first_contacts() {
    let bunny = Collider::new(load_obj(&data("ccd-cases/meshes/bunny.obj")));
    assert!(bunny.culls() && bunny.cones().stats().annealed > 0);
    let root = bunny.tree().root().obb;
    let reach = 2.0 * (root.radius() + root.center.length());
    let mut rng = Rng(0xB0B0_CAFE_1234_5678);
    let (mut hits, mut culled) = (0, 0);
    for case in 0..40 {
        let dir = rng.unit();
        let from = Pose::new(rng.rotation(3.0), dir * reach * (1.0 + 0.1 * rng.f().abs()));
        let to = Pose::new(rng.rotation(1.0) * from.rotation, dir * reach * 0.3 * rng.f() + 0.2 * reach * rng.unit());
        let motion = Motion::new(from, to);
        let rest = Motion::stationary(Pose::IDENTITY);
        assert!(!intersects(&bunny, &from, &bunny, &Pose::IDENTITY).value);
        let on = first_contact(&bunny, &motion, &bunny, &rest, &QueryOptions::default());
        let off =
            first_contact(&bunny, &motion, &bunny, &rest, &QueryOptions { bm_culling: false, ..Default::default() });
        let key = |c: mockup_ccd::Contact| (c.time, c.kind, c.feature_a, c.feature_b);
        assert_eq!(on.value.map(key), off.value.map(key), "case {case}");
        hits += on.value.is_some() as u32;
        culled += (on.counters.culled_nodes > 0) as u32;
    }
    assert!(hits >= 20 && culled >= 20, "{hits} hits, culling acted in {culled} of 40");
}
