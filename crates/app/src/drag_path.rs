//! Drag paths: record the targets a drag asks for, replay them through the solver (the part
//! stops and slides as it did, or differently if the scene changed), save and load them.
//! The file is a RON list of poses, the format `mockup-cli replay --targets` reads, so a
//! path recorded here can be checked headlessly. ("Path" here is always a drag path; files
//! are files.)

use crate::MockupSet;
use crate::files::Errors;
use crate::files::chooser::{FileChosen, Purpose};
use crate::history::{History, snapshot};
use crate::manipulation::{ActiveDrag, Selection};
use crate::part::Parts;
use crate::scene::{SceneInfo, reset_on_open};
use crate::solver::{Solver, StepRequest, StepState, Target};
use bevy::prelude::*;
use glam::DVec3;
use mockup_ccd::Pose;
use mockup_scene::PoseDocument;
use std::path::Path;

pub struct DragPathPlugin;

/// The drag path: its part, its targets, and where the part went.
#[derive(Resource, Default, Debug)]
pub struct DragPath {
    /// The part the path moves.
    pub part: Option<usize>,
    pub targets: Vec<Pose>,
    /// Where the part's origin went (recorded or replayed): the polyline drawn.
    pub trail: Vec<DVec3>,
}

/// What the drag path player is doing. While it replays, gestures are locked.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    #[default]
    Idle,
    Recording,
    /// The next target to send.
    Replaying(usize),
}

impl Player {
    pub fn recording(&self) -> bool {
        *self == Player::Recording
    }

    pub fn replaying(&self) -> bool {
        matches!(self, Player::Replaying(_))
    }
}

#[derive(Message, Clone, Debug, PartialEq)]
pub enum DragPathCommand {
    Record,
    Stop,
    Replay,
    Clear,
}

impl Plugin for DragPathPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<DragPath>()
            .init_resource::<Player>()
            .add_message::<DragPathCommand>()
            .add_systems(
                Update,
                (reset_on_open::<DragPath>, reset_on_open::<Player>)
                    .after(crate::scene::install)
                    .in_set(MockupSet::Install),
            )
            .add_systems(Update, (commands, files, replay).chain().in_set(MockupSet::Edits))
            .add_systems(Update, record.in_set(MockupSet::Present));
    }
}

#[allow(clippy::too_many_arguments)]
fn commands(
    mut commands: MessageReader<DragPathCommand>,
    mut path: ResMut<DragPath>,
    mut player: ResMut<Player>,
    mut active: ResMut<ActiveDrag>,
    mut history: ResMut<History>,
    mut errors: ResMut<Errors>,
    parts: Parts,
    info: Res<SceneInfo>,
    solver: Res<Solver>,
) {
    for c in commands.read() {
        match c {
            DragPathCommand::Record => {
                *path = DragPath::default();
                *player = Player::Recording;
            }
            DragPathCommand::Stop => *player = Player::Idle,
            DragPathCommand::Clear => {
                *path = DragPath::default();
                *player = Player::Idle;
            }
            DragPathCommand::Replay => {
                let Some(part) = path.part.filter(|_| !path.targets.is_empty()) else {
                    errors.report("There is no drag path to replay: record or load one first.".into());
                    continue;
                };
                if solver.body(part).is_none_or(|b| b.fixed) {
                    errors
                        .report(format!("The path's part {:?} is fixed; make it movable to replay.", parts.name(part)));
                    continue;
                }
                let n = solver.bodies().len();
                history.record(snapshot(&solver, &parts.props(n), &info.document.solver));
                path.trail.clear();
                *player = Player::Replaying(0);
                active.0 = None;
            }
        }
    }
}

/// Saving and loading, once a file is chosen.
fn files(
    mut chosen: MessageReader<FileChosen>,
    mut path: ResMut<DragPath>,
    mut errors: ResMut<Errors>,
    selection: Res<Selection>,
    solver: Res<Solver>,
) {
    for FileChosen(purpose, file) in chosen.read() {
        match purpose {
            Purpose::SaveDragPath => match save(&path.targets, file) {
                Ok(()) => info!("saved the drag path to {}", file.display()),
                Err(e) => errors.report(e),
            },
            Purpose::LoadDragPath => {
                let Some(part) = selection.0.filter(|&p| solver.body(p).is_some_and(|b| !b.fixed)) else {
                    errors.report("Select the movable part the path should move, then load it.".into());
                    continue;
                };
                match load(file) {
                    Ok(targets) => *path = DragPath { part: Some(part), targets, ..default() },
                    Err(e) => errors.report(e),
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

/// One target per frame while replaying, each once the solver has finished the one before
/// (a step the budget cut short goes on first).
fn replay(path: Res<DragPath>, mut player: ResMut<Player>, mut request: ResMut<StepRequest>, step: Res<StepState>) {
    let (Player::Replaying(k), Some(part)) = (*player, path.part) else { return };
    if step.busy() {
        return;
    }
    match path.targets.get(k) {
        Some(&pose) => {
            request.0 = Some(Target { part, pose });
            *player = Player::Replaying(k + 1);
        }
        None => *player = Player::Idle,
    }
}

/// Recording keeps every target the first dragged part asks for; recording and replaying
/// trace where the part went.
fn record(mut path: ResMut<DragPath>, player: Res<Player>, step: Res<StepState>, solver: Res<Solver>) {
    if !step.ran || !(player.recording() || player.replaying()) {
        return;
    }
    let Some((target, _)) = step.target else { return };
    if player.recording() {
        if path.part.is_none() {
            path.part = Some(target.part);
        }
        if path.part != Some(target.part) {
            return;
        }
        if let Some(t) = step.took {
            path.targets.push(t.pose);
        }
    }
    if let Some(b) = solver.body(target.part) {
        path.trail.push(b.pose.translation);
    }
}
