//! What the status bar shows: frame time (smoothed), the last drag step's CCD and solver
//! time, contacts and BV tests, and the selected part's minimum distance to the others, or
//! which parts it interferes with.

use crate::manipulation::Grab;
use crate::scene::Assembly;
use crate::simulation::{Simulation, interfering, min_distance};
use bevy::prelude::*;
use mockup_ccd::Pose;

pub struct StatusPlugin;

#[derive(Resource, Default, Debug)]
pub struct Status {
    /// Seconds per frame, smoothed.
    pub frame: f32,
    /// The selected part's smallest distance to another visible part, and which.
    pub min_distance: Option<(f64, usize)>,
    /// Visible parts the selected part intersects (an assembly can be opened that way; the
    /// solver only keeps parts from entering one another).
    pub interferes: Vec<usize>,
    /// What `min_distance` was computed for: scene, part, poses, visibility.
    key: Option<(u64, usize, Vec<Pose>, Vec<bool>)>,
}

impl Plugin for StatusPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Status>().add_systems(Update, (frame_time, distance).after(crate::simulation::Step));
    }
}

fn frame_time(time: Res<Time>, mut status: ResMut<Status>) {
    let dt = time.delta_secs();
    status.frame = if status.frame == 0.0 { dt } else { 0.9 * status.frame + 0.1 * dt };
}

/// Recomputed when the selection, a pose or a visibility changed, and not during a drag
/// (then the step's own contacts give it).
fn distance(mut status: ResMut<Status>, grab: Res<Grab>, sim: Res<Simulation>, assembly: Res<Assembly>) {
    let Some(part) = grab.selected else {
        status.min_distance = None;
        status.interferes.clear();
        status.key = None;
        return;
    };
    if grab.active() {
        return;
    }
    let key = (assembly.generation, part, sim.poses(), assembly.parts().iter().map(|p| p.visible).collect());
    if status.key.as_ref() == Some(&key) {
        return;
    }
    status.min_distance = min_distance(&sim, &assembly, part);
    status.interferes = interfering(&sim, &assembly, part);
    status.key = Some(key);
}
