//! Undo and redo of poses, part properties and solver settings. Every drag is one step,
//! every property edit one step (a colour being dragged in its picker is one step, not one
//! per frame; so are consecutive settings edits). A step restores every part's pose (pushed
//! parts too), properties and the settings, so it returns to a configuration the solver had
//! reached.

use crate::MockupSet;
use crate::manipulation::ActiveDrag;
use crate::part::PartsMut;
use crate::scene::{SceneInfo, reset_on_open};
use crate::solver::{DragBudget, Solver, StepRequest, StepState};
use bevy::prelude::*;
use mockup_ccd::Pose;
use mockup_scene::SolverDocument;
use mockup_solver::World;

pub struct HistoryPlugin;

/// What a part has besides its pose, and undo covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Props {
    pub fixed: bool,
    pub visible: bool,
    pub color: [f32; 3],
}

/// Everything undo restores (and what "unsaved changes" compares).
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub poses: Vec<Pose>,
    pub props: Vec<Props>,
    pub solver: SolverDocument,
}

/// The scene's state: poses and `fixed` from the solver, shown and colour from the part
/// entities (`shown_colors`, by id), the solver document.
pub fn snapshot(world: &World, shown_colors: &[(bool, [f32; 3])], solver: &SolverDocument) -> Snapshot {
    let bodies = world.bodies();
    Snapshot {
        poses: bodies.iter().map(|b| b.pose).collect(),
        props: bodies
            .iter()
            .zip(shown_colors)
            .map(|(b, &(visible, color))| Props { fixed: b.fixed, visible, color })
            .collect(),
        solver: solver.clone(),
    }
}

/// An edit of the scene, from the UI or a shortcut.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum Edit {
    Fixed(usize, bool),
    Visible(usize, bool),
    Color(usize, [f32; 3]),
    /// New solver settings (the Solver panel); invalid ones are not applied.
    Solver(SolverDocument),
    Undo,
    Redo,
}

/// Snapshots before each change, and after each undone one.
#[derive(Resource, Default, Debug)]
pub struct History {
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// More edits of the same kind join the last step: a colour being dragged in its
    /// picker, a settings value being dragged.
    joining: Joining,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Joining {
    #[default]
    Nothing,
    Colour(usize),
    Settings,
}

impl History {
    /// Records the state before a change.
    pub fn record(&mut self, before: Snapshot) {
        self.undo.push(before);
        self.redo.clear();
        self.joining = Joining::Nothing;
    }

    /// Drops the last step if nothing changed since it was recorded (a click, no drag).
    pub fn forget_if_unchanged(&mut self, now: &Snapshot) {
        if self.undo.last() == Some(now) {
            self.undo.pop();
        }
    }

    /// The state to go back to, given the current one.
    pub fn undo(&mut self, current: Snapshot) -> Option<Snapshot> {
        let previous = self.undo.pop()?;
        self.redo.push(current);
        self.joining = Joining::Nothing;
        Some(previous)
    }

    pub fn redo(&mut self, current: Snapshot) -> Option<Snapshot> {
        let next = self.redo.pop()?;
        self.undo.push(current);
        self.joining = Joining::Nothing;
        Some(next)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

impl Plugin for HistoryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<History>()
            .add_message::<Edit>()
            .add_systems(Update, reset_on_open::<History>.after(crate::scene::install).in_set(MockupSet::Install))
            .add_systems(Update, apply_edits.in_set(MockupSet::Edits));
    }
}

/// Applies solver settings to the world and the scene; invalid ones change neither.
fn set_solver(
    solver_doc: &SolverDocument,
    info: &mut SceneInfo,
    solver: &mut Solver,
    budget: DragBudget,
) -> Result<(), String> {
    if *solver_doc == info.document.solver {
        return Ok(());
    }
    let settings = crate::solver::settings(solver_doc, info.size, budget);
    solver.set_settings(settings).map_err(|e| e.to_string())?;
    info.document.solver = solver_doc.clone();
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn apply_edits(
    mut edits: MessageReader<Edit>,
    mut history: ResMut<History>,
    mut solver: ResMut<Solver>,
    mut info: ResMut<SceneInfo>,
    mut parts: PartsMut,
    mut request: ResMut<StepRequest>,
    mut step: ResMut<StepState>,
    budget: Res<DragBudget>,
    active: Res<ActiveDrag>,
) {
    for edit in edits.read() {
        let n = solver.bodies().len();
        let current = snapshot(&solver, &parts.props(n), &info.document.solver);
        match edit {
            // Not in the middle of a drag: its step is recorded when it began.
            Edit::Undo | Edit::Redo if !active.active() => {
                let to = if *edit == Edit::Undo { history.undo(current) } else { history.redo(current) };
                let Some(s) = to else { continue };
                // Only the parts that moved: a placement costs a contact refresh.
                for (i, pose) in s.poses.iter().enumerate() {
                    if solver.body(i).is_some_and(|b| b.pose == *pose) {
                        continue;
                    }
                    if let Err(e) = solver.set_pose(i, *pose) {
                        warn!("undo: {e}");
                    }
                }
                for (i, p) in s.props.iter().enumerate() {
                    set_props(i, *p, &mut solver, &mut parts);
                }
                if let Err(e) = set_solver(&s.solver, &mut info, &mut solver, *budget) {
                    warn!("undo: {e}");
                }
                // The drag being finished is undone with it.
                request.0 = None;
                step.stop();
            }
            Edit::Undo | Edit::Redo => {}
            Edit::Solver(doc) => {
                if *doc == current.solver || active.active() {
                    continue;
                }
                match set_solver(doc, &mut info, &mut solver, *budget) {
                    Ok(()) => {
                        if history.joining != Joining::Settings {
                            history.record(current);
                        }
                        history.joining = Joining::Settings;
                    }
                    Err(e) => warn!("settings not applied: {e}"),
                }
            }
            &Edit::Fixed(i, _) | &Edit::Visible(i, _) | &Edit::Color(i, _) => {
                let Some(&before) = current.props.get(i) else { continue };
                let mut props = before;
                match *edit {
                    Edit::Fixed(_, f) => props.fixed = f,
                    Edit::Visible(_, v) => props.visible = v,
                    Edit::Color(_, c) => props.color = c,
                    _ => {}
                }
                if props == before {
                    continue;
                }
                let colour = matches!(edit, Edit::Color(..));
                if !(colour && history.joining == Joining::Colour(i)) {
                    history.record(current);
                }
                if colour {
                    history.joining = Joining::Colour(i);
                }
                if props.fixed && step.unfinished.is_some_and(|t| t.part == i) {
                    step.stop();
                }
                set_props(i, props, &mut solver, &mut parts);
            }
        }
    }
}

fn set_props(i: usize, p: Props, solver: &mut Solver, parts: &mut PartsMut) {
    parts.set(i, p.visible, p.color);
    if solver.body(i).is_some_and(|b| b.fixed != p.fixed)
        && let Err(e) = solver.set_fixed(i, p.fixed)
    {
        warn!("{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn at(x: f64) -> Snapshot {
        Snapshot {
            poses: vec![Pose::from_translation(DVec3::new(x, 0.0, 0.0))],
            props: vec![Props { fixed: false, visible: true, color: [1.0; 3] }],
            solver: SolverDocument::default(),
        }
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
        // A step that changed nothing is dropped.
        h.record(at(5.0));
        h.forget_if_unchanged(&at(5.0));
        assert_eq!(h.undo(at(5.0)), Some(at(0.0)));
    }
}
