//! What the status bar shows about the selected part, computed off the frame: its minimum
//! distance to the nearest shown part (`mockup_ccd::distance`, branch and bound) and the shown
//! parts it interferes with, on a background task (`AsyncComputeTaskPool`). A frame only starts
//! the task and takes its answer; a selection, pose or visibility change makes the running
//! one stale: it is told to stop (it checks between part pairs) and dropped, and a new one
//! starts. During a drag the step's own contacts give the distance, and no task runs.
//!
//! Interfering pairs are told apart (docs/contact-from-start.md): a pair the solver treats
//! as in contact from the start (it was touching or interfering when a drag began; with
//! `strict` off, any pair that interferes when a drag begins becomes one) is listed as such;
//! what remains is new interference (with `strict`, every interfering pair).

use crate::MockupSet;
use crate::manipulation::{ActiveDrag, Selection};
use crate::part::Parts;
use crate::scene::SceneInfo;
use crate::solver::{Solver, StepState};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use glam::DVec3;
use mockup_ccd::broad::Aabb;
use mockup_ccd::{Collider, Counters, Pose};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct StatusPlugin;

/// The selected part's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// The smallest distance to another shown part, and which (`None`: none within twice
    /// the scene's size).
    pub nearest: Option<(f64, usize)>,
    /// Shown parts it interferes with (surfaces crossing, or one inside the other).
    pub interfering: Vec<usize>,
    /// What the task did.
    pub counters: Counters,
}

/// The status of the selected part.
#[derive(Resource, Default)]
pub struct PartStatus {
    /// The last answer, for the selection, poses and visibility as they are now; `None` while
    /// one is being computed (or with nothing selected).
    pub answer: Option<Analysis>,
    /// Of the answer's interfering parts, those in contact from the start with the selection.
    pub in_contact_from_start: Vec<usize>,
    /// The rest: new interference.
    pub interferes: Vec<usize>,
    /// Parts touching the selection that are in contact from the start (the solver's, even
    /// when they do not interfere).
    pub touching_from_start: Vec<usize>,
    /// The part the three lists above are of: they stay through a drag of that part, and go
    /// when another is selected (they named the last selection's neighbours under the new
    /// one's name).
    listed_for: Option<usize>,
    running: Option<Running>,
    /// What the answer (or the running task) is for.
    key: Option<Key>,
}

impl PartStatus {
    /// An answer is being computed.
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// The parts in contact from the start with the selection: interfering or touching.
    pub fn from_start(&self) -> Vec<usize> {
        let mut all = self.in_contact_from_start.clone();
        all.extend(&self.touching_from_start);
        all.sort_unstable();
        all.dedup();
        all
    }
}

struct Running {
    task: Task<Option<Analysis>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Scene, selection, poses and visibility.
#[derive(Clone, Debug, PartialEq)]
struct Key {
    generation: u64,
    part: usize,
    poses: Vec<Pose>,
    shown: Vec<bool>,
}

/// Seconds per frame, smoothed: wall time between frames (`Time<Real>`), as `Time`'s virtual
/// clock stops at 250 ms a frame and showed a 7 s frame as 220 ms.
#[derive(Resource, Default, Debug)]
pub struct FrameTime(pub f32);

impl Plugin for StatusPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PartStatus>().init_resource::<FrameTime>().add_systems(
            Update,
            (
                crate::scene::reset_on_open::<PartStatus>.after(crate::scene::install).in_set(MockupSet::Install),
                (frame_time, analyse).in_set(MockupSet::Present),
            ),
        );
    }
}

fn frame_time(time: Res<Time<Real>>, mut t: ResMut<FrameTime>) {
    // Smoothed over about half a second, not a number of frames: a frame of seconds shows at
    // once, while 60 frames a second do not flicker.
    let dt = time.delta_secs();
    let weight = 1.0 - (-dt / 0.5).exp();
    t.0 = if t.0 == 0.0 { dt } else { t.0 + weight * (dt - t.0) };
}

#[allow(clippy::too_many_arguments)]
fn analyse(
    mut status: ResMut<PartStatus>,
    selection: Res<Selection>,
    active: Res<ActiveDrag>,
    step: Res<StepState>,
    solver: Res<Solver>,
    parts: Parts,
    info: Res<SceneInfo>,
) {
    let Some(part) = selection.0.filter(|&p| p < solver.bodies().len()) else {
        *status = PartStatus::default();
        return;
    };
    if status.listed_for != Some(part) {
        status.listed_for = Some(part);
        status.in_contact_from_start.clear();
        status.interferes.clear();
        status.touching_from_start.clear();
    }
    // Moving: the step's contacts say it, and an answer would be stale at once.
    if active.active() || step.busy() {
        status.running = None;
        status.key = None;
        status.answer = None;
        return;
    }
    let n = solver.bodies().len();
    let key = Key { generation: info.generation, part, poses: solver.poses(), shown: parts.shown(n) };
    if status.key.as_ref() != Some(&key) {
        status.answer = None;
        status.running = Some(start(&solver, &key, 2.0 * info.size));
        status.key = Some(key);
    }
    let Some(running) = &mut status.running else { return };
    let Some(answer) = check_ready(&mut running.task) else { return };
    status.running = None;
    let Some(answer) = answer else { return };
    let strict = solver.settings().strict;
    let seated: Vec<usize> = solver
        .seated_pairs()
        .into_iter()
        .filter_map(|(i, j)| {
            if i == part {
                Some(j)
            } else if j == part {
                Some(i)
            } else {
                None
            }
        })
        .collect();
    // With strict off, a pair that interferes when a drag begins is in contact from the start
    // (classified so then, if it is not yet), and a pair the solver keeps apart never comes
    // to interfere; with strict on, every interfering pair is an obstacle.
    let interfering = answer.interfering.clone();
    (status.in_contact_from_start, status.interferes) =
        if strict { (Vec::new(), interfering) } else { (interfering, Vec::new()) };
    status.touching_from_start = seated.into_iter().filter(|&j| key_shown(&status.key, j)).collect();
    status.answer = Some(answer);
}

fn key_shown(key: &Option<Key>, j: usize) -> bool {
    key.as_ref().is_some_and(|k| k.shown.get(j).copied().unwrap_or(false))
}

fn start(solver: &Solver, key: &Key, limit: f64) -> Running {
    let bodies = solver.bodies();
    let me = (bodies[key.part].collider.clone(), bodies[key.part].pose);
    let others: Vec<(usize, Arc<Collider>, Pose)> = bodies
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != key.part && key.shown[j])
        .map(|(j, b)| (j, b.collider.clone(), b.pose))
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let task = AsyncComputeTaskPool::get().spawn(async move { analysis(&me, &others, limit, &flag) });
    Running { task, stop }
}

/// The lower bound of the distance between two boxes: per axis the gap between their
/// intervals (zero where they overlap), and the length of that vector (docs/app.md).
fn box_gap(a: &Aabb, b: &Aabb) -> f64 {
    let gap = (a.min - b.max).max(b.min - a.max).max(DVec3::ZERO);
    gap.length()
}

/// The distance from `me` to the nearest of `others` and those it interferes with: others in
/// order of their boxes' distance, each `distance` query bounded by the best so far, until a
/// box is farther than that; `None` when told to stop.
pub fn analysis(
    me: &(Arc<Collider>, Pose),
    others: &[(usize, Arc<Collider>, Pose)],
    limit: f64,
    stop: &AtomicBool,
) -> Option<Analysis> {
    let my_box = Aabb::of_collider(&me.0, &me.1);
    let mut order: Vec<(f64, usize)> =
        others.iter().enumerate().map(|(k, o)| (box_gap(&my_box, &Aabb::of_collider(&o.1, &o.2)), k)).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Analysis::default();
    for &(gap, k) in &order {
        if gap > 0.0 {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let (j, c, p) = &others[k];
        let r = mockup_ccd::intersects(&me.0, &me.1, c, p);
        out.counters += r.counters;
        if r.value {
            out.interfering.push(*j);
        }
    }
    let mut bound = limit;
    for &(gap, k) in &order {
        if gap >= bound {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let (j, c, p) = &others[k];
        let r = mockup_ccd::distance(&me.0, &me.1, c, p, bound);
        out.counters += r.counters;
        if let Some(pair) = r.value
            && pair.distance < bound
        {
            bound = pair.distance;
            out.nearest = Some((pair.distance, *j));
        }
    }
    out.interfering.sort_unstable();
    Some(out)
}
