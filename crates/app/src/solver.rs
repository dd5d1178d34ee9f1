//! The solver's world: the one owner of every part's collider, pose and whether it is fixed.
//! Each frame's target goes through `World::drag` within the drag budget; when the budget
//! runs out first, the part has moved as far as was proven free, and the next frames go on
//! toward the same target, whether the mouse moves or not (until a new target, a release
//! with the target reached, an undo or another scene).

use crate::MockupSet;
use crate::scene::reset_on_open;
use bevy::prelude::*;
use mockup_ccd::Pose;
use mockup_scene::SolverDocument;
use mockup_solver::{SolverSettings, StepReport, World};
use std::time::Duration;

pub struct SolverPlugin;

/// The solver's world.
#[derive(Resource, Default, Deref, DerefMut)]
pub struct Solver(pub World);

impl Solver {
    pub fn poses(&self) -> Vec<Pose> {
        self.0.bodies().iter().map(|b| b.pose).collect()
    }

    pub fn fixed(&self) -> Vec<bool> {
        self.0.bodies().iter().map(|b| b.fixed).collect()
    }
}

/// How much one frame's drag step may do: the app's setting (the Solver panel's "time per
/// frame"), not the scene's. `work` (box tests) is for tests: it does not depend on the
/// machine.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct DragBudget {
    pub time: Option<Duration>,
    pub work: Option<u64>,
}

/// A 60 Hz frame is 16.7 ms: the step takes 12 of it, the rest of the frame the other 4.
pub const DEFAULT_STEP_TIME: Duration = Duration::from_millis(12);

impl Default for DragBudget {
    fn default() -> Self {
        DragBudget { time: Some(DEFAULT_STEP_TIME), work: None }
    }
}

/// The solver settings for a scene document in a scene `size` wide, with the app's budget:
/// the document's conversion (`SolverDocument::settings`) plus what only the app sets.
pub fn settings(doc: &SolverDocument, size: f64, budget: DragBudget) -> SolverSettings {
    let mut s = doc.settings(size);
    s.time_budget = budget.time;
    s.work_budget = budget.work;
    s
}

/// A pose asked for a part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub part: usize,
    pub pose: Pose,
}

/// The target asked for this frame (a drag gesture, a replayed path).
#[derive(Resource, Default, Debug)]
pub struct StepRequest(pub Option<Target>);

/// What the drag steps did.
#[derive(Resource, Default, Debug)]
pub struct StepState {
    /// The last step's report.
    pub report: Option<StepReport>,
    /// The target the last step went toward, and whether the part got there.
    pub target: Option<(Target, bool)>,
    /// The budget ran out before the part got to this target: the next frames go on.
    pub unfinished: Option<Target>,
    /// This frame's step took a new target (not a continuation): drag paths record it.
    pub took: Option<Target>,
    /// A step ran this frame (new target or continuation).
    pub ran: bool,
}

impl StepState {
    /// The solver is still on its way to a target the budget cut short.
    pub fn busy(&self) -> bool {
        self.unfinished.is_some()
    }

    /// Forgets the continuation (an undo, a part made fixed).
    pub fn stop(&mut self) {
        self.unfinished = None;
    }
}

impl Plugin for SolverPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Solver>()
            .init_resource::<DragBudget>()
            .init_resource::<StepRequest>()
            .init_resource::<StepState>()
            .add_systems(
                Update,
                (
                    (reset_on_open::<StepState>, reset_on_open::<StepRequest>)
                        .after(crate::scene::install)
                        .in_set(MockupSet::Install),
                    apply_budget.in_set(MockupSet::Edits),
                    step.in_set(MockupSet::Step),
                ),
            );
    }
}

/// A changed budget (the Solver panel) goes to the world's settings.
fn apply_budget(budget: Res<DragBudget>, mut solver: ResMut<Solver>) {
    if !budget.is_changed() {
        return;
    }
    let mut s = *solver.settings();
    if (s.time_budget, s.work_budget) == (budget.time, budget.work) {
        return;
    }
    (s.time_budget, s.work_budget) = (budget.time, budget.work);
    if let Err(e) = solver.set_settings(s) {
        warn!("budget not applied: {e}");
    }
}

fn step(mut solver: ResMut<Solver>, mut request: ResMut<StepRequest>, mut state: ResMut<StepState>) {
    state.took = None;
    state.ran = false;
    let (target, new) = match request.0.take() {
        Some(t) => (t, true),
        None => match state.unfinished {
            Some(t) => (t, false),
            None => return,
        },
    };
    state.ran = true;
    match solver.drag(target.part, target.pose) {
        Ok(report) => {
            state.unfinished = report.out_of_time.then_some(target);
            state.target = Some((target, report.reached));
            if new {
                state.took = Some(target);
            }
            state.report = Some(report);
        }
        Err(e) => {
            warn!("drag refused: {e}");
            state.unfinished = None;
        }
    }
}
