//! Reference cases: the shared time-of-impact cases (copied into tests/data), analytic
//! cases with known answers, and tunnelling.

mod common;

use common::*;
use glam::{DQuat, DVec3};
use mockup_ccd::{Collider, ContactKind, MeshBuilder, Motion, Pose, QueryOptions, first_contact, intersects};
use std::collections::HashMap;

fn parse_pose(s: &str) -> Pose {
    let v: Vec<f64> = s.split(',').map(|x| x.trim().parse().unwrap()).collect();
    Pose::new(DQuat::from_xyzw(v[3], v[4], v[5], v[6]).normalize(), DVec3::new(v[0], v[1], v[2]))
}

/// Every shared case agrees on hit, and within 1e-6 on the time.
#[test]
fn shared_ccd_cases() {
    let text = std::fs::read_to_string(data("ccd-cases/cases.json")).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut meshes: HashMap<String, Collider> = HashMap::new();
    let mut failures = Vec::new();
    for case in cases.as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        for key in ["moving", "fixed"] {
            let name = case[key].as_str().unwrap().to_string();
            meshes
                .entry(name.clone())
                .or_insert_with(|| Collider::new(load_obj(&data(&format!("ccd-cases/meshes/{name}")))));
        }
        let moving = &meshes[case["moving"].as_str().unwrap()];
        let fixed = &meshes[case["fixed"].as_str().unwrap()];
        let motion = Motion::new(parse_pose(case["from"].as_str().unwrap()), parse_pose(case["to"].as_str().unwrap()));
        let got =
            first_contact(moving, &motion, fixed, &Motion::stationary(Pose::IDENTITY), &QueryOptions::default()).value;
        let expect = &case["expect"];
        let ok = match (expect["hit"].as_bool().unwrap(), got) {
            (true, Some(c)) => (c.time - expect["time"].as_f64().unwrap()).abs() < 1e-6,
            (false, None) => true,
            _ => false,
        };
        if !ok {
            failures.push(format!("{id}: expected {expect}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A cube translating into a cube meets it at exactly 0.3 (shared case "cube-translate"),
/// face to face: the reported features lie on the touching faces.
#[test]
fn cube_translation_meets_at_three_tenths() {
    let cube = Collider::new(load_obj(&data("ccd-cases/meshes/cube.obj")));
    let motion = Motion::new(
        Pose::from_translation(DVec3::new(-5.0, 0.0, 0.0)),
        Pose::from_translation(DVec3::new(5.0, 0.0, 0.0)),
    );
    let c = first_contact(&cube, &motion, &cube, &Motion::stationary(Pose::IDENTITY), &QueryOptions::default())
        .value
        .unwrap();
    assert!((c.time - 0.3).abs() < 1e-15, "{}", c.time);
    assert!((c.point.x + 1.0).abs() < 1e-12, "contact on the plane x = -1: {}", c.point);
    assert!(
        (c.normal - DVec3::NEG_X).length() < 1e-12,
        "normal from the fixed cube toward the moving one: {}",
        c.normal
    );
}

/// A bar spinning about z (pure rotation) sweeps into the vertical edge of a small box: the
/// first touch is the box's corner column at (2, 0.5), when `0.5 cos θ − 2 sin θ = 0.1`.
#[test]
fn pure_rotation_about_a_known_axis() {
    let bar = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(3.0, 0.1, 0.5)).build().unwrap());
    let block = Collider::new(
        MeshBuilder::new()
            .cuboid(Pose::from_translation(DVec3::new(1.5, 1.0, 0.0)), DVec3::new(0.5, 0.5, 0.1))
            .build()
            .unwrap(),
    );
    let quarter = std::f64::consts::FRAC_PI_2;
    let motion = Motion::new(Pose::IDENTITY, Pose::from_rotation(DQuat::from_rotation_z(quarter)));
    let c = first_contact(&bar, &motion, &block, &Motion::stationary(Pose::IDENTITY), &QueryOptions::default())
        .value
        .unwrap();
    let (a, b, r) = (0.5f64, 2.0f64, 0.1f64);
    let big_r = (a * a + b * b).sqrt();
    let theta = (r / big_r).acos() - b.atan2(a);
    assert!((c.time - theta / quarter).abs() < 1e-14, "{} vs {}", c.time, theta / quarter);
    assert_eq!(c.kind, ContactKind::FaceVertex);
    assert!((c.point.truncate() - glam::DVec2::new(2.0, 0.5)).length() < 1e-12);
    // the same spin about an axis off the origin, through (−1, 0, 0): shift everything
    let shift = Pose::from_translation(DVec3::new(-1.0, 0.0, 0.0));
    let spin = Motion::new(shift, Pose::rotation_about(DVec3::new(-1.0, 0.0, 0.0), DVec3::Z, quarter) * shift);
    let c2 = first_contact(&bar, &spin, &block, &Motion::stationary(shift), &QueryOptions::default()).value.unwrap();
    assert!((c2.time - c.time).abs() < 1e-13);
}

/// A screw near a half turn is still Redon's one motion (up to `MAX_PIECE_ANGLE`): a cube
/// turning by w about the vertical axis through its centre while rising by s meets a ceiling
/// h above its top when `s tan(w t / 2) / tan(w / 2) = h`. Past the bound the step is split and
/// reaches the ceiling at another time (the constant-speed screw's poses at the piece ends).
#[test]
fn a_screw_near_a_half_turn_follows_redon() {
    let cube = Collider::new(MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::splat(0.1)).build().unwrap());
    let ceiling = Collider::new(
        MeshBuilder::new()
            .cuboid(Pose::from_translation(DVec3::new(0.0, 0.0, 1.1)), DVec3::new(2.0, 2.0, 0.1))
            .build()
            .unwrap(),
    );
    let (s, h) = (2.0, 0.9);
    for degrees in [100.0f64, 150.0, 170.0, 176.0] {
        let w = degrees.to_radians();
        assert!(w <= mockup_ccd::motion::MAX_PIECE_ANGLE);
        let motion = Motion::new(Pose::IDENTITY, Pose::new(DQuat::from_rotation_z(w), DVec3::new(0.0, 0.0, s)));
        let c = first_contact(&cube, &motion, &ceiling, &Motion::stationary(Pose::IDENTITY), &QueryOptions::default())
            .value
            .unwrap();
        let expected = 2.0 / w * ((0.5 * w).tan() * h / s).atan();
        assert!((c.time - expected).abs() < 1e-12, "{degrees}°: {} vs {expected}", c.time);
    }
    let w = 179f64.to_radians();
    let motion = Motion::new(Pose::IDENTITY, Pose::new(DQuat::from_rotation_z(w), DVec3::new(0.0, 0.0, s)));
    let c = first_contact(&cube, &motion, &ceiling, &Motion::stationary(Pose::IDENTITY), &QueryOptions::default())
        .value
        .unwrap();
    // Two pieces of w/2, each Redon's motion rising s/2: the first ends at 0.5 s = 1.0 > h.
    let expected = 0.5 * 2.0 / (0.5 * w) * ((0.25 * w).tan() * h / (0.5 * s)).atan();
    assert!((c.time - expected).abs() < 1e-12, "179°: {} vs {expected}", c.time);
}

/// A thin plate passes a wall in one step. Discrete checks at both ends see nothing; CCD
/// reports the hit, and reports none when the plate goes through the slot.
#[test]
fn tunnelling_through_a_slotted_wall() {
    let plate = Collider::new(load_obj(&data("ccd-cases/meshes/plate.obj")));
    let wall = Collider::new(load_obj(&data("ccd-cases/meshes/slotted_wall.obj")));
    let rest = Motion::stationary(Pose::IDENTITY);
    let opts = QueryOptions::default();
    let from = Pose::from_translation(DVec3::new(-3.0, 0.0, 0.0));
    // straight through the slot: clearance 0.05 on each side
    let through = Motion::new(from, Pose::from_translation(DVec3::new(3.0, 0.0, 0.0)));
    for end in [through.from, through.to] {
        assert!(!intersects(&plate, &end, &wall, &Pose::IDENTITY).value);
    }
    assert!(first_contact(&plate, &through, &wall, &rest, &opts).value.is_none());
    // tilted by 30° about x: it no longer fits; both ends still clear
    let tilted = Motion::new(from, Pose::new(DQuat::from_rotation_x(30f64.to_radians()), DVec3::new(3.0, 0.0, 0.0)));
    assert!(!intersects(&plate, &tilted.to, &wall, &Pose::IDENTITY).value);
    let hit = first_contact(&plate, &tilted, &wall, &rest, &opts).value.expect("tilted plate must hit the wall");
    assert!(hit.time > 0.3 && hit.time < 0.5, "{}", hit.time);
    // shifted up by 0.1 (more than the 0.05 clearance): hits, at x where plate meets wall
    let high = Motion::new(
        Pose::from_translation(DVec3::new(-3.0, 0.0, 0.1)),
        Pose::from_translation(DVec3::new(3.0, 0.0, 0.1)),
    );
    let hit = first_contact(&plate, &high, &wall, &rest, &opts).value.expect("high plate must hit");
    // the plate's leading face (x = +0.5) meets the wall face x = -0.05 after 2.45 of 6
    assert!((hit.time - 2.45 / 6.0).abs() < 1e-14, "{}", hit.time);
}

/// Poses that are not poses give no contact, quickly, instead of visiting every pair.
#[test]
fn non_finite_poses_give_no_contact() {
    let cube = Collider::new(load_obj(&data("ccd-cases/meshes/cube.obj")));
    let rest = Motion::stationary(Pose::IDENTITY);
    for bad in [
        Pose::from_translation(DVec3::new(f64::NAN, 0.0, 0.0)),
        Pose::new(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0), DVec3::ZERO),
        Pose::from_translation(DVec3::new(f64::INFINITY, 0.0, 0.0)),
    ] {
        let r = first_contact(&cube, &Motion::new(Pose::IDENTITY, bad), &cube, &rest, &QueryOptions::default());
        assert!(r.value.is_none());
        assert_eq!(r.counters.bv_tests, 0);
    }
}
