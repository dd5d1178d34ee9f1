//! `gen-assets`, `info` and `replay`: the demo assemblies and scene files without a window.

use crate::args::{Options, UsageError};
use crate::toi::counters_json;
use mockup_scene::LoadedScene;
use mockup_scene::source::FileSystem;
use mockup_solver::World;
use serde_json::json;
use std::path::Path;

pub const GEN_USAGE: &str = "mockup-cli gen-assets [--out DIR] [--cad PARTS [--detail D]]
    Regenerates DIR/assets and DIR/scenes (default: the current directory) from the demo
    generators; the files are byte-identical to the committed ones. With --cad, writes instead
    a CAD-like assembly of PARTS parts (docs/scenes.md) to DIR/cad_PARTS.obj, .mtl and .ron,
    tessellated at detail D (default 4: about 2,000 triangles a part).";

pub const INFO_USAGE: &str = "mockup-cli info SCENE.ron|MESH
    Parts, triangles, bounds, and the time to read the meshes and build their trees. MESH is
    an .obj, .stl, .gltf or .glb file, opened as a new scene (a part per object).";

pub const REPLAY_USAGE: &str =
    "mockup-cli replay SCENE.ron --part NAME --targets TARGETS.ron [--narrow-phase exact|glide] [--strict]
    Drags the part through the target poses of TARGETS.ron, a RON list of
    (translation: (x, y, z), rotation: (x, y, z, w)). Prints one JSON line per step: the
    pairs in contact from the start (which may stay interfering, never deeper) apart from new
    interference; exits with status 1 if any pair ever interferes anew. --narrow-phase
    overrides the scene's; --strict treats every interfering pair as an obstacle.";

/// The first argument (a path), then `--key value` options.
fn positional<'a>(args: &'a [String], what: &str) -> Result<(&'a str, &'a [String]), UsageError> {
    match args.first() {
        Some(p) if !p.starts_with("--") => Ok((p, &args[1..])),
        _ => Err(UsageError(format!("missing {what}"))),
    }
}

pub fn gen_assets(args: &[String]) -> Result<(), UsageError> {
    let o = Options::parse(args, &["out", "cad", "detail"])?;
    let root = Path::new(o.get("out").unwrap_or("."));
    if let Some(parts) = o.get("cad") {
        let count = |what: &str, text: &str| {
            text.parse::<u32>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| UsageError(format!("--{what} {text:?}: expected a whole number from 1 to 1,000,000")))
        };
        let parts = count("cad", parts)?;
        let detail = o.get("detail").map(|d| count("detail", d)).transpose()?.unwrap_or(4);
        let assembly = mockup_scene::cad::assembly(parts as usize, detail);
        let name = format!("cad_{parts}");
        let scene = mockup_scene::cad::write(&assembly, root, &name)
            .map_err(|e| UsageError(format!("{}: {e}", root.display())))?;
        eprintln!("{} parts, {} triangles", assembly.parts.len(), assembly.triangles());
        println!("{}", scene.display());
        return Ok(());
    }
    let files = mockup_scene::demo::generate(root).map_err(|e| UsageError(format!("{}: {e}", root.display())))?;
    for f in files {
        println!("{}", f.display());
    }
    Ok(())
}

/// A scene file, or a mesh file (by its extension) imported as a new scene.
fn load(path: &str) -> Result<LoadedScene, UsageError> {
    let file = Path::new(path);
    let scene = match mockup_scene::Format::of(file) {
        Some(_) => mockup_scene::import(file, &Default::default(), &mut |_| {}),
        None => mockup_scene::load(file, &FileSystem, &mut |_| {}),
    }
    .map_err(|e| UsageError(e.to_string()))?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    Ok(scene)
}

pub fn info(args: &[String]) -> Result<(), UsageError> {
    let (path, rest) = positional(args, "SCENE.ron or a mesh file")?;
    Options::parse(rest, &[])?;
    let scene = load(path)?;
    println!("{path}: {} parts, size {:.4}", scene.document.parts.len(), scene.size);
    println!("  meshes read in {:.1?}, trees and BM-cones built in {:.1?}", scene.parse_time, scene.build_time);
    for (p, c) in scene.document.parts.iter().zip(&scene.colliders) {
        let s = c.mesh().stats();
        let (lo, hi) = c.mesh().bounds();
        let pose = p.pose.to_pose();
        println!(
            "  {:<16} {:>8} triangles  {:<7}  {:<11}  bounds (local) [{:.3}, {:.3}, {:.3}] .. [{:.3}, {:.3}, {:.3}]  at ({:.3}, {:.3}, {:.3}){}",
            p.name,
            s.triangles,
            if p.fixed { "fixed" } else { "movable" },
            if c.culls() {
                "solid"
            } else if !s.is_closed() {
                "open "
            } else {
                // Closed, but wound inconsistently or inward, or with a shell wound inward or
                // nested in another (docs/bm-culling.md §6): no BM-culling either.
                "not solid"
            },
            lo.x,
            lo.y,
            lo.z,
            hi.x,
            hi.y,
            hi.z,
            pose.translation.x,
            pose.translation.y,
            pose.translation.z,
            if p.scale.is_unit() { String::new() } else { format!("  scale {}", p.scale) }
        );
    }
    Ok(())
}

pub fn replay(args: &[String]) -> Result<(), UsageError> {
    let (path, rest) = positional(args, "SCENE.ron")?;
    let o = Options::parse_with_flags(rest, &["part", "targets", "narrow-phase"], &["strict"])?;
    let part = o.required("part")?;
    let targets_path = o.required("targets")?;
    let targets = mockup_scene::document::read_poses(Path::new(targets_path)).map_err(|e| UsageError(e.to_string()))?;
    let scene = load(path)?;
    let Some(id) = scene.document.parts.iter().position(|p| p.name == part) else {
        let names: Vec<&str> = scene.document.parts.iter().map(|p| p.name.as_str()).collect();
        return Err(UsageError(format!("{path}: no part {part:?} (parts: {})", names.join(", "))));
    };
    if scene.document.parts[id].fixed {
        return Err(UsageError(format!("{path}: part {part:?} is fixed")));
    }
    let mut settings = scene.document.solver.settings(scene.size);
    match o.get("narrow-phase") {
        None => {}
        Some("exact") => settings.narrow_phase = mockup_solver::NarrowPhase::Exact,
        Some("glide") => settings.narrow_phase = mockup_solver::NarrowPhase::Glide,
        Some(other) => return Err(UsageError(format!("--narrow-phase {other:?}: expected exact or glide"))),
    }
    settings.strict |= o.flag("strict");
    let mut world = World::new(settings).map_err(|e| UsageError(format!("{path}: {e}")))?;
    for (p, c) in scene.document.parts.iter().zip(&scene.colliders) {
        world.add_body(c.clone(), p.pose.to_pose(), p.fixed);
    }
    let names = |pairs: &[(usize, usize)]| -> Vec<[String; 2]> {
        pairs
            .iter()
            .map(|&(i, j)| [scene.document.parts[i].name.clone(), scene.document.parts[j].name.clone()])
            .collect()
    };
    let at_start = world.intersecting_pairs();
    if !at_start.is_empty() {
        eprintln!("{path}: {} pairs interfere at the start", at_start.len());
    }
    let mut interpenetrated = false;
    for (step, t) in targets.iter().enumerate() {
        let r = world.drag(id, t.to_pose()).map_err(|e| UsageError(e.to_string()))?;
        // Only the moved parts' pairs can have changed.
        let pairs = world.intersecting_pairs_with(&r.movers);
        let (from_start, new): (Vec<_>, Vec<_>) = pairs.iter().partition(|p| r.seated_pairs.contains(p));
        let line = json!({
            "step": step,
            "translation": r.pose.translation.to_array(),
            "rotation": r.pose.rotation.to_array(),
            "reached": r.reached,
            "contacts": r.contacts,
            "min_distance": r.min_distance,
            "substeps": r.substeps,
            "in_contact_from_start": names(&r.seated_pairs),
            "interfering_from_start": names(&from_start),
            "new_interference": names(&new),
            "counters": counters_json(&r.counters),
        });
        println!("{line}");
        interpenetrated |= !new.is_empty();
    }
    if interpenetrated {
        eprintln!("mockup-cli: parts interfered anew during the replay");
        std::process::exit(1);
    }
    Ok(())
}
