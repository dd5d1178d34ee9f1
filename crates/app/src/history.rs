//! Undo and redo of poses, part properties and solver settings. Every drag is one step,
//! every property edit one step (a colour being dragged in its picker is one step, not one
//! per frame; so are consecutive settings edits). A step restores every part's pose (pushed
//! parts too), properties and the settings, so it returns to a configuration the solver had
//! reached: free of interpenetration.

use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;
use mockup_ccd::Pose;
use mockup_scene::SolverDocument;

pub struct HistoryPlugin;

/// What a part has besides its pose, and undo covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Props {
    pub fixed: bool,
    pub visible: bool,
    pub color: [f32; 3],
}

/// Everything undo restores.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub poses: Vec<Pose>,
    pub props: Vec<Props>,
    pub solver: SolverDocument,
}

pub fn snapshot(assembly: &Assembly, sim: &Simulation) -> Snapshot {
    Snapshot {
        poses: sim.poses(),
        props: assembly.parts().iter().map(|p| Props { fixed: p.fixed, visible: p.visible, color: p.color }).collect(),
        solver: assembly.loaded.document.solver.clone(),
    }
}

/// Puts a snapshot back: poses into the solver, properties into the document.
pub fn restore(s: &Snapshot, assembly: &mut Assembly, sim: &mut Simulation) {
    for (i, pose) in s.poses.iter().enumerate() {
        if let Err(e) = sim.world.set_pose(i, *pose) {
            warn!("undo: {e}");
        }
    }
    for (i, p) in s.props.iter().enumerate() {
        set_props(i, *p, assembly, sim);
    }
    if let Err(e) = set_solver(&s.solver, assembly, sim) {
        warn!("undo: {e}");
    }
    sim.request = None;
}

/// Applies solver settings to the world and the document; invalid ones change neither.
pub fn set_solver(solver: &SolverDocument, assembly: &mut Assembly, sim: &mut Simulation) -> Result<(), String> {
    if *solver == assembly.loaded.document.solver {
        return Ok(());
    }
    let settings = crate::simulation::settings_for(&assembly.loaded, solver);
    sim.world.set_settings(settings).map_err(|e| e.to_string())?;
    assembly.loaded.document.solver = solver.clone();
    Ok(())
}

fn set_props(i: usize, p: Props, assembly: &mut Assembly, sim: &mut Simulation) {
    let Some(part) = assembly.loaded.document.parts.get_mut(i) else { return };
    (part.visible, part.color) = (p.visible, p.color);
    if part.fixed != p.fixed {
        part.fixed = p.fixed;
        if let Err(e) = sim.world.set_fixed(i, p.fixed) {
            warn!("{e}");
        }
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
    /// The last step was a colour edit of this part: more of them join it.
    colouring: Option<usize>,
    /// The last step was a settings edit: more of them join it.
    tuning: bool,
}

impl History {
    /// Records the state before a change.
    pub fn record(&mut self, before: Snapshot) {
        self.undo.push(before);
        self.redo.clear();
        self.colouring = None;
        self.tuning = false;
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
        self.colouring = None;
        self.tuning = false;
        Some(previous)
    }

    pub fn redo(&mut self, current: Snapshot) -> Option<Snapshot> {
        let next = self.redo.pop()?;
        self.undo.push(current);
        self.colouring = None;
        self.tuning = false;
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
            .add_systems(PreUpdate, crate::scene::reset_on_open::<History>.after(crate::scene::Install))
            .add_systems(Update, apply_edits.after(crate::manipulation::Gestures).before(crate::simulation::Step));
    }
}

fn apply_edits(
    mut edits: MessageReader<Edit>,
    mut history: ResMut<History>,
    mut sim: ResMut<Simulation>,
    mut assembly: ResMut<Assembly>,
    grab: Res<crate::manipulation::Grab>,
) {
    for edit in edits.read() {
        let current = snapshot(&assembly, &sim);
        let (i, mut props) = match *edit {
            Edit::Undo | Edit::Redo => {
                // Not in the middle of a drag: its step is recorded when it began.
                if grab.active() {
                    continue;
                }
                let to = if *edit == Edit::Undo { history.undo(current) } else { history.redo(current) };
                if let Some(s) = to {
                    restore(&s, &mut assembly, &mut sim);
                }
                continue;
            }
            Edit::Solver(ref solver) => {
                if *solver == current.solver || grab.active() {
                    continue;
                }
                let joins = history.tuning;
                match set_solver(solver, &mut assembly, &mut sim) {
                    Ok(()) => {
                        if !joins {
                            history.record(current);
                        }
                        history.tuning = true;
                    }
                    Err(e) => warn!("settings not applied: {e}"),
                }
                continue;
            }
            Edit::Fixed(i, _) | Edit::Visible(i, _) | Edit::Color(i, _) => match current.props.get(i) {
                Some(p) => (i, *p),
                None => continue,
            },
        };
        match *edit {
            Edit::Fixed(_, f) => props.fixed = f,
            Edit::Visible(_, v) => props.visible = v,
            Edit::Color(_, c) => props.color = c,
            _ => {}
        }
        if props == current.props[i] {
            continue;
        }
        let joins = matches!(edit, Edit::Color(..)) && history.colouring == Some(i);
        if !joins {
            history.record(current);
        }
        if let Edit::Color(..) = edit {
            history.colouring = Some(i);
        }
        set_props(i, props, &mut assembly, &mut sim);
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
