//! `mockup-cli toi`: the first time of impact of a moving mesh against a fixed one.

use crate::args::{Options, UsageError};
use mockup_ccd::{Collider, Counters, Motion, Pose, QueryOptions, first_contact, intersects};
use serde_json::{Value, json};
use std::path::Path;

pub const USAGE: &str = "mockup-cli toi --moving A --from POSE --to POSE --fixed B [--fixed-pose POSE]
    A, B = mesh files (.obj, .stl, .gltf or .glb; each read whole as one mesh)
    POSE = tx,ty,tz,qx,qy,qz,qw (translation, then a quaternion)
    Prints one JSON line: {\"hit\":true,\"time\":…,\"kind\":…,\"point\":[…],\"normal\":[…],
    \"moving_feature\":i,\"fixed_feature\":j,\"counters\":{…}} or {\"hit\":false,\"counters\":{…}}
    Meshes that already intersect at --from get a warning on stderr and are tested without
    BM-culling (it assumes a free start).";

pub fn counters_json(c: &Counters) -> Value {
    json!({
        "bv_tests": c.bv_tests,
        "vf_tests": c.vf_tests,
        "fv_tests": c.fv_tests,
        "ee_tests": c.ee_tests,
        "cull_tests": c.cull_tests,
        "culled_nodes": c.culled_nodes,
        "parallel_splits": c.parallel_splits,
    })
}

fn load(path: &str) -> Result<Collider, UsageError> {
    let (mesh, warnings) =
        mockup_scene::mesh_file::load_merged(Path::new(path)).map_err(|e| UsageError(e.to_string()))?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(Collider::new(mesh))
}

pub fn run(args: &[String]) -> Result<(), UsageError> {
    let o = Options::parse(args, &["moving", "from", "to", "fixed", "fixed-pose"])?;
    let from = o.pose("from")?.ok_or_else(|| UsageError("missing --from".into()))?;
    let to = o.pose("to")?.ok_or_else(|| UsageError("missing --to".into()))?;
    let fixed_pose = o.pose("fixed-pose")?.unwrap_or(Pose::IDENTITY);
    let (moving_path, fixed_path) = (o.required("moving")?, o.required("fixed")?);
    // The two meshes are read and built at once, one on each core.
    let (moving, fixed) = std::thread::scope(|s| {
        let fixed = s.spawn(|| load(fixed_path));
        let moving = load(moving_path);
        (moving, fixed.join().expect("loading a mesh does not panic"))
    });
    let (moving, fixed) = (moving?, fixed?);
    // BM-culling assumes the motion starts free of interpenetration (docs/bm-culling.md §1);
    // from an intersecting start every feature pair is tested, as brute force would.
    let overlapping = intersects(&moving, &from, &fixed, &fixed_pose).value;
    if overlapping {
        eprintln!("warning: the meshes already intersect at --from; the first contact is searched without BM-culling");
    }
    let opts = QueryOptions { bm_culling: !overlapping, ..QueryOptions::default() };
    let result = first_contact(&moving, &Motion::new(from, to), &fixed, &Motion::stationary(fixed_pose), &opts);
    let counters = counters_json(&result.counters);
    let line = match result.value {
        Some(c) => json!({
            "hit": true,
            "time": c.time,
            "kind": c.kind.name(),
            "point": c.point.to_array(),
            "normal": c.normal.to_array(),
            "moving_feature": c.feature_a,
            "fixed_feature": c.feature_b,
            "counters": counters,
        }),
        None => json!({ "hit": false, "counters": counters }),
    };
    println!("{line}");
    Ok(())
}
