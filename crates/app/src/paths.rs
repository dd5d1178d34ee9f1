//! Drag paths: record the targets a drag asks for, replay them through the solver (the part
//! stops and slides as it did, or differently if the scene changed), save and load them.
//! The file is a RON list of poses, the format `mockup-cli replay --targets` reads, so a
//! path recorded here can be checked headlessly.

use crate::files::{Files, PathChosen, Purpose};
use crate::history::{History, snapshot};
use crate::manipulation::Grab;
use crate::scene::{Assembly, SceneOpened};
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
            .add_systems(PreUpdate, forget_on_open.after(crate::scene::Install))
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

fn forget_on_open(mut opened: MessageReader<SceneOpened>, mut path: ResMut<DragPath>) {
    if opened.read().count() > 0 {
        *path = DragPath::default();
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
    let text = ron::ser::to_string_pretty(&docs, ron::ser::PrettyConfig::default())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = file.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, text + "\n").and_then(|_| std::fs::rename(&tmp, file)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("Could not save the drag path to {}: {e}", file.display())
    })
}

/// Reads a RON list of poses; errors name the file, line and column.
pub fn load(file: &Path) -> Result<Vec<Pose>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let docs: Vec<PoseDocument> = ron::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: {}", file.display(), e.span.start.line, e.span.start.col, e.code))?;
    docs.iter()
        .enumerate()
        .map(|(i, d)| {
            let finite = d.translation.iter().chain(&d.rotation).all(|x| x.is_finite());
            if !finite || d.rotation.iter().map(|x| x * x).sum::<f64>() < 1e-12 {
                Err(format!("{}: pose {i} is not a finite pose with a non-zero quaternion", file.display()))
            } else {
                Ok(d.to_pose())
            }
        })
        .collect()
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
