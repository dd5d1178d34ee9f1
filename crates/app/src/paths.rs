//! Drag paths: record the targets a drag asks for, replay them through the solver (the part
//! stops and slides as it did, or differently if the scene changed), save and load them.
//! The file is a RON list of poses, the format `mockup-cli replay --targets` reads, so a
//! path recorded here can be checked headlessly.

use crate::files::{Files, PathChosen, Purpose};
use crate::history::{History, snapshot};
use crate::manipulation::Grab;
use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;
use glam::DVec3;
use mockup_ccd::Pose;
use mockup_scene::PoseDocument;
use std::path::Path;

pub struct PathsPlugin;

#[derive(Resource, Default, Debug)]
pub struct DragPath {
    /// The part the path moves.
    pub part: Option<usize>,
    pub targets: Vec<Pose>,
    /// Where the part's origin went (recorded or replayed): the polyline drawn.
    pub trail: Vec<DVec3>,
    pub recording: bool,
    /// The next target to replay.
    pub replaying: Option<usize>,
}

#[derive(Message, Clone, Debug, PartialEq)]
pub enum PathCommand {
    Record,
    Stop,
    Replay,
    Clear,
}

impl Plugin for PathsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DragPath>()
            .add_message::<PathCommand>()
            .add_systems(PreUpdate, crate::scene::reset_on_open::<DragPath>.after(crate::scene::Install))
            .add_systems(
                Update,
                (
                    (commands, files, replay)
                        .chain()
                        .after(crate::manipulation::Gestures)
                        .before(crate::simulation::Step),
                    record.after(crate::simulation::Step),
                ),
            );
    }
}

fn commands(
    mut commands: MessageReader<PathCommand>,
    mut path: ResMut<DragPath>,
    mut grab: ResMut<Grab>,
    mut history: ResMut<History>,
    mut files: ResMut<Files>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
) {
    for c in commands.read() {
        match c {
            PathCommand::Record => {
                *path = DragPath { recording: true, ..default() };
            }
            PathCommand::Stop => {
                path.recording = false;
                path.replaying = None;
                grab.locked = false;
            }
            PathCommand::Clear => {
                *path = DragPath::default();
                grab.locked = false;
            }
            PathCommand::Replay => {
                let Some(part) = path.part.filter(|_| !path.targets.is_empty()) else {
                    files.error("There is no drag path to replay: record or load one first.".into());
                    continue;
                };
                if sim.world.body(part).is_none_or(|b| b.fixed) {
                    files.error(format!(
                        "The path's part {:?} is fixed; make it movable to replay.",
                        name(&assembly, part)
                    ));
                    continue;
                }
                history.record(snapshot(&assembly, &sim));
                path.recording = false;
                path.trail.clear();
                path.replaying = Some(0);
                grab.drag = None;
                grab.locked = true;
            }
        }
    }
}

fn name(assembly: &Assembly, part: usize) -> String {
    assembly.parts().get(part).map(|p| p.name.clone()).unwrap_or_default()
}

/// Saving and loading, once a path is chosen.
fn files(
    mut chosen: MessageReader<PathChosen>,
    mut path: ResMut<DragPath>,
    mut files: ResMut<Files>,
    grab: Res<Grab>,
    sim: Res<Simulation>,
) {
    for PathChosen(purpose, file) in chosen.read() {
        match purpose {
            Purpose::SavePath => match save(&path.targets, file) {
                Ok(()) => info!("saved the drag path to {}", file.display()),
                Err(e) => files.error(e),
            },
            Purpose::LoadPath => {
                let Some(part) = grab.selected.filter(|&p| sim.world.body(p).is_some_and(|b| !b.fixed)) else {
                    files.error("Select the movable part the path should move, then load it.".into());
                    continue;
                };
                match load(file) {
                    Ok(targets) => *path = DragPath { part: Some(part), targets, ..default() },
                    Err(e) => files.error(e),
                }
            }
            _ => {}
        }
    }
}

/// Writes the targets as a RON list of poses, atomically.
pub fn save(targets: &[Pose], file: &Path) -> Result<(), String> {
    let docs: Vec<PoseDocument> = targets.iter().map(PoseDocument::from_pose).collect();
    mockup_scene::document::write_poses(&docs, file).map_err(|e| format!("Could not save the drag path: {e}"))
}

/// Reads a RON list of poses; errors name the file, line and column.
pub fn load(file: &Path) -> Result<Vec<Pose>, String> {
    let docs = mockup_scene::document::read_poses(file).map_err(|e| e.to_string())?;
    Ok(docs.iter().map(PoseDocument::to_pose).collect())
}

/// One target per frame while replaying.
fn replay(mut path: ResMut<DragPath>, mut sim: ResMut<Simulation>, mut grab: ResMut<Grab>) {
    let (Some(k), Some(part)) = (path.replaying, path.part) else { return };
    match path.targets.get(k) {
        Some(&t) => {
            sim.request = Some((part, t));
            path.replaying = Some(k + 1);
        }
        None => {
            path.replaying = None;
            grab.locked = false;
        }
    }
}

fn record(mut path: ResMut<DragPath>, sim: Res<Simulation>) {
    let Some(step) = sim.stepped else { return };
    if !(path.recording || path.replaying.is_some()) {
        return;
    }
    if path.recording {
        if path.part.is_none() {
            path.part = Some(step.part);
        }
        if path.part != Some(step.part) {
            return;
        }
        path.targets.push(step.target);
    }
    if let Some(b) = sim.world.body(step.part) {
        path.trail.push(b.pose.translation);
    }
}
