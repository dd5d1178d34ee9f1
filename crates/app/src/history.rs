//! Undo and redo of part poses: every drag is one step. Ctrl+Z undoes, Ctrl+Y or
//! Ctrl+Shift+Z redoes. A step restores every part's pose as it was (pushed parts too), so
//! it returns to a configuration the solver had reached: free of interpenetration.

use crate::scene::{Assembly, transform};
use crate::simulation::Simulation;
use bevy::prelude::*;
use mockup_ccd::Pose;

pub struct HistoryPlugin;

/// Poses of every part before each change, and after each undone one.
#[derive(Resource, Default, Debug)]
pub struct History {
    undo: Vec<Vec<Pose>>,
    redo: Vec<Vec<Pose>>,
}

impl History {
    /// Records the poses before a change (a drag begins).
    pub fn record(&mut self, poses: Vec<Pose>) {
        self.undo.push(poses);
        self.redo.clear();
    }

    /// The poses to go back to, given the current ones.
    pub fn undo(&mut self, current: Vec<Pose>) -> Option<Vec<Pose>> {
        let previous = self.undo.pop()?;
        self.redo.push(current);
        Some(previous)
    }

    pub fn redo(&mut self, current: Vec<Pose>) -> Option<Vec<Pose>> {
        let next = self.redo.pop()?;
        self.undo.push(current);
        Some(next)
    }
}

impl Plugin for HistoryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<History>().add_systems(Update, undo_redo.after(crate::manipulation::Gestures));
    }
}

fn undo_redo(
    keys: Res<ButtonInput<KeyCode>>,
    mut history: ResMut<History>,
    mut sim: ResMut<Simulation>,
    grab: Res<crate::manipulation::Grab>,
    assembly: Res<Assembly>,
    mut transforms: Query<&mut Transform>,
) {
    // Held, or pressed and released within this frame (a quick chord at a low frame rate).
    let down = |a: KeyCode, b: KeyCode| [a, b].iter().any(|&k| keys.pressed(k) || keys.just_released(k));
    let ctrl = down(KeyCode::ControlLeft, KeyCode::ControlRight);
    let shift = down(KeyCode::ShiftLeft, KeyCode::ShiftRight);
    if !ctrl || grab.active() {
        return;
    }
    let current: Vec<Pose> = sim.world.bodies().iter().map(|b| b.pose).collect();
    let target = if keys.just_pressed(KeyCode::KeyZ) && !shift {
        history.undo(current)
    } else if keys.just_pressed(KeyCode::KeyY) || (keys.just_pressed(KeyCode::KeyZ) && shift) {
        history.redo(current)
    } else {
        None
    };
    let Some(poses) = target else { return };
    for (i, pose) in poses.iter().enumerate() {
        if let Err(e) = sim.world.set_pose(i, *pose) {
            warn!("undo: {e}");
        }
        if let Ok(mut t) = transforms.get_mut(assembly.entities[i]) {
            *t = transform(pose);
        }
    }
    sim.request = None;
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn at(x: f64) -> Vec<Pose> {
        vec![Pose::from_translation(DVec3::new(x, 0.0, 0.0))]
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut h = History::default();
        h.record(at(0.0)); // drag 1 from 0 to 1
        h.record(at(1.0)); // drag 2 from 1 to 2
        assert_eq!(h.undo(at(2.0)), Some(at(1.0)));
        assert_eq!(h.undo(at(1.0)), Some(at(0.0)));
        assert_eq!(h.undo(at(0.0)), None);
        assert_eq!(h.redo(at(0.0)), Some(at(1.0)));
        // A new change forgets what was undone.
        h.record(at(1.0));
        assert_eq!(h.redo(at(5.0)), None);
        assert_eq!(h.undo(at(5.0)), Some(at(1.0)));
    }
}
