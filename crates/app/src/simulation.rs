//! The solver's world: drag requests in, poses and contacts out. Rebuilt when a scene opens.

use crate::scene::{Assembly, Install, SceneOpened};
use bevy::prelude::*;
use mockup_ccd::Pose;
use mockup_scene::{LoadedScene, SolverDocument};
use mockup_solver::{SolverSettings, StepReport, World};

pub struct SimulationPlugin;

/// The solver step; the scene follows the bodies after it.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step;

/// Rebuilding the world for a new scene.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rebuild;

/// The last target a drag asked for and whether the part got there.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub part: usize,
    pub target: Pose,
    pub reached: bool,
}

#[derive(Resource, Default)]
pub struct Simulation {
    pub world: World,
    /// The target asked for this frame: (part, pose).
    pub request: Option<(usize, Pose)>,
    pub last: Option<StepReport>,
    pub last_target: Option<Target>,
    /// Set on the frame a drag step ran (drag paths record it).
    pub stepped: Option<Target>,
}

impl Simulation {
    pub fn poses(&self) -> Vec<Pose> {
        self.world.bodies().iter().map(|b| b.pose).collect()
    }
}

/// The solver settings a scene document asks for (distances scaled to the scene unless it
/// sets them).
pub fn settings_for(scene: &LoadedScene, solver: &SolverDocument) -> SolverSettings {
    let glide = solver.narrow_phase == mockup_scene::NarrowPhase::Glide;
    SolverSettings::for_scene(scene.size, solver.explicit_distances(), solver.bm_culling, solver.max_substeps, glide)
}

impl Plugin for SimulationPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Simulation>()
            .add_systems(PreUpdate, rebuild.in_set(Rebuild).after(Install))
            .add_systems(Update, step.in_set(Step).after(crate::manipulation::Gestures));
    }
}

fn rebuild(mut opened: MessageReader<SceneOpened>, mut sim: ResMut<Simulation>, assembly: Res<Assembly>) {
    if opened.read().count() == 0 {
        return;
    }
    let scene = &assembly.loaded;
    // Documents are validated on load; fall back to the scaled defaults if not.
    let mut world = World::new(settings_for(scene, &scene.document.solver)).unwrap_or_else(|e| {
        warn!("{e}; using the default distances");
        World::new(SolverSettings::for_scene_size(scene.size)).expect("the defaults are valid")
    });
    for (p, c) in scene.document.parts.iter().zip(&scene.colliders) {
        world.add_body(c.clone(), p.pose.to_pose(), p.fixed);
    }
    // Parts that already interfere are worth a word: the solver keeps parts from entering one
    // another, not from being saved inside one another.
    for (i, j) in world.intersecting_pairs() {
        let name = |k: usize| scene.document.parts.get(k).map(|p| p.name.as_str()).unwrap_or("?");
        warn!("parts {:?} and {:?} interfere at their saved poses", name(i), name(j));
    }
    *sim = Simulation { world, ..default() };
}

fn step(mut sim: ResMut<Simulation>) {
    sim.stepped = None;
    let Some((part, target)) = sim.request.take() else { return };
    match sim.world.drag(part, target) {
        Ok(report) => {
            let t = Target { part, target, reached: report.reached };
            sim.last_target = Some(t);
            sim.stepped = Some(t);
            sim.last = Some(report);
        }
        Err(e) => warn!("drag refused: {e}"),
    }
}

/// The visible parts `part` intersects at the current poses.
pub fn interfering(sim: &Simulation, assembly: &Assembly, part: usize) -> Vec<usize> {
    let bodies = sim.world.bodies();
    let Some(me) = bodies.get(part) else { return Vec::new() };
    (0..bodies.len())
        .filter(|&j| j != part && assembly.parts().get(j).is_some_and(|p| p.visible))
        .filter(|&j| mockup_ccd::intersects(&me.collider, &me.pose, &bodies[j].collider, &bodies[j].pose).value)
        .collect()
}

/// The smallest distance from `part` to any other visible part, and which: proximity at
/// doubling distances from εb, so it costs little near contact and stays bounded far away
/// (`None` beyond the scene's size).
pub fn min_distance(sim: &Simulation, assembly: &Assembly, part: usize) -> Option<(f64, usize)> {
    let bodies = sim.world.bodies();
    let me = bodies.get(part)?;
    let mut d = sim.world.settings().breaking.max(1e-12);
    let limit = 2.0 * assembly.size();
    while d <= limit {
        let mut best: Option<(f64, usize)> = None;
        for (j, other) in bodies.iter().enumerate() {
            if j == part || !assembly.parts().get(j).is_some_and(|p| p.visible) {
                continue;
            }
            let pairs = mockup_ccd::proximity(&me.collider, &me.pose, &other.collider, &other.pose, d).value;
            for p in pairs {
                if best.is_none_or(|(b, _)| p.distance < b) {
                    best = Some((p.distance, j));
                }
            }
        }
        if best.is_some() {
            return best;
        }
        d *= 4.0;
    }
    None
}
