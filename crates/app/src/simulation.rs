//! The solver's world: drag requests in, poses and contacts out.

use crate::scene::{Assembly, transform};
use bevy::prelude::*;
use mockup_ccd::Pose;
use mockup_solver::{SolverSettings, StepReport, World};

pub struct SimulationPlugin;

#[derive(Resource)]
pub struct Simulation {
    pub world: World,
    /// The target the manipulation asks for this frame: (part, pose).
    pub request: Option<(usize, Pose)>,
    pub last: Option<StepReport>,
}

impl Plugin for SimulationPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(PreStartup, create_world).add_systems(Update, step.after(crate::manipulation::Gestures));
    }
}

fn create_world(mut commands: Commands, assembly: Res<Assembly>) {
    let scene = &assembly.loaded;
    let s = &scene.document.solver;
    let settings = SolverSettings::for_scene(scene.size, scene.explicit_distances(), s.bm_culling, s.max_substeps);
    // The document was validated on load, so its settings are valid; fall back to the
    // defaults scaled to the scene if not.
    let mut world = World::new(settings).unwrap_or_else(|e| {
        warn!("{e}; using the default distances");
        World::new(SolverSettings::for_scene_size(scene.size)).expect("the defaults are valid")
    });
    for (p, c) in scene.document.parts.iter().zip(&scene.colliders) {
        world.add_body(c.clone(), p.pose.to_pose(), p.fixed);
    }
    commands.insert_resource(Simulation { world, request: None, last: None });
}

fn step(mut sim: ResMut<Simulation>, assembly: Res<Assembly>, mut transforms: Query<&mut Transform>) {
    let Some((part, target)) = sim.request.take() else { return };
    match sim.world.drag(part, target) {
        Ok(report) => sim.last = Some(report),
        Err(e) => warn!("drag refused: {e}"),
    }
    // Pushed parts move too.
    for (i, body) in sim.world.bodies().iter().enumerate() {
        if !body.fixed
            && let Ok(mut t) = transforms.get_mut(assembly.entities[i])
        {
            *t = transform(&body.pose);
        }
    }
}
