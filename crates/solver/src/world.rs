//! Bodies, their contacts, and the drag step (docs/solver.md §4).

use crate::contact::{self, BodyId, ContactPoint};
use crate::gauss::{self, Displacement, Frame};
use crate::mass::MassProperties;
use crate::settings::{NarrowPhase, SolverSettings};
use glam::{DMat3, DQuat};
use mockup_ccd::glide::{GlideBody, GlideOptions, glide_collisions};
use mockup_ccd::{
    Collider, Contact, Counters, Motion, Pose, Screw, contacts_within, first_contact, intersects, near_triangle_pairs,
    proximity_among,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A rigid part.
#[derive(Clone, Debug)]
pub struct Body {
    pub collider: Arc<Collider>,
    pub pose: Pose,
    pub fixed: bool,
    pub mass: MassProperties,
    /// A ball around the mesh (body frame): centre and radius.
    sphere: (glam::DVec3, f64),
    /// The mesh prepared for the glide screen, built the first time it is needed.
    glide: std::sync::OnceLock<Arc<GlideBody>>,
}

impl Body {
    pub fn new(collider: Arc<Collider>, pose: Pose, fixed: bool) -> Body {
        let mass = MassProperties::of(collider.mesh(), collider.tree());
        let (lo, hi) = collider.mesh().bounds();
        let sphere = (0.5 * (lo + hi), 0.5 * (hi - lo).length());
        Body { collider, pose, fixed, mass, sphere, glide: std::sync::OnceLock::new() }
    }

    fn glide_body(&self) -> &GlideBody {
        self.glide.get_or_init(|| Arc::new(GlideBody::from_collider(self.collider.clone())))
    }

    fn world_center(&self) -> glam::DVec3 {
        self.pose.transform_point(self.mass.center)
    }

    fn frame(&self) -> Option<Frame> {
        let r = DMat3::from_quat(self.pose.rotation);
        Frame::new(self.world_center(), self.mass.mass, r * self.mass.inertia * r.transpose())
    }

    /// The pose after moving the centre of mass by `d.translation` and turning by the
    /// rotation vector `d.rotation` about it.
    fn displaced(&self, d: &Displacement) -> Pose {
        let c = self.world_center();
        let rotation = (DQuat::from_scaled_axis(d.rotation) * self.pose.rotation).normalize();
        let new_c = c + d.translation;
        Pose::new(rotation, new_c - rotation * self.mass.center)
    }

    /// The displacement that takes this body to `target`.
    fn displacement_to(&self, target: &Pose) -> Displacement {
        let c = self.world_center();
        let mut q = target.rotation * self.pose.rotation.inverse();
        if q.w < 0.0 {
            q = -q; // the short way round
        }
        Displacement { translation: target.transform_point(self.mass.center) - c, rotation: q.to_scaled_axis() }
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum SolverError {
    #[error("no body {0}")]
    UnknownBody(BodyId),
    #[error("body {0} is fixed and cannot be dragged")]
    FixedBody(BodyId),
    #[error("the target pose is not finite")]
    NonFinitePose,
    #[error("invalid solver settings: {0}")]
    Settings(String),
}

/// What one `drag` did.
#[derive(Clone, Debug, Default)]
pub struct StepReport {
    /// The dragged body's pose at the end.
    pub pose: Pose,
    /// Whether it reached the target (to `1e-9` of εs in position and `1e-9` rad).
    pub reached: bool,
    /// Contacts within εb at the end.
    pub contacts: usize,
    /// Smallest contact distance at the end (`None` without contacts).
    pub min_distance: Option<f64>,
    /// Solve + CCD move cycles toward the target.
    pub substeps: u32,
    /// Repositioning cycles (eq. 9).
    pub repositioning: u32,
    /// `max_substeps` ran out before the body reached its constrained goal.
    pub budget_exhausted: bool,
    /// Sub-steps stopped by a contact.
    pub blocked_substeps: u32,
    /// QP solves that did not converge (infeasible constraints); the move still went
    /// through CCD.
    pub unconverged_solves: u32,
    /// Wilhelmsen iterations, summed.
    pub solver_iterations: u64,
    /// First contact and near-simultaneous contacts along the moves.
    pub ccd_time: Duration,
    /// Rebuilding the contact set (proximity queries at εb).
    pub proximity_time: Duration,
    pub solver_time: Duration,
    /// CCD and proximity counters, summed.
    pub counters: Counters,
    /// Exact VF, FV and EE tests the glide screen ran (glide narrow phase only).
    pub glide_tests: u64,
    /// Every move the bodies made, in order: the path the guarantee is about.
    pub moves: Vec<Move>,
}

/// One body's move in one sub-step (or repositioning cycle), along the motion its collision
/// check covered. Moves with the same `substep` happen together.
#[derive(Clone, Debug)]
pub struct Move {
    pub substep: u32,
    pub body: BodyId,
    path: Path,
    /// The move stops at this time of the checked motion (1 when nothing was hit).
    until: f64,
}

impl Move {
    /// The body's pose at `s ∈ [0, 1]` of the move (before the end pose is renormalized).
    pub fn pose_at(&self, s: f64) -> Pose {
        self.path.pose_at(s * self.until)
    }
}

/// How a body moves over a sub-step.
#[derive(Clone, Debug)]
enum Path {
    Redon(mockup_ccd::ScrewPath),
    /// The constant-velocity screw of the displacement, from the start pose.
    Constant(Screw, Pose),
}

impl Path {
    fn pose_at(&self, t: f64) -> Pose {
        match self {
            Path::Redon(p) => p.pose_at(t),
            Path::Constant(screw, start) => screw.helix_at(t) * *start,
        }
    }
}

/// Bodies, settings and the contacts kept between steps.
#[derive(Clone, Debug, Default)]
pub struct World {
    bodies: Vec<Body>,
    settings: SolverSettings,
    contacts: Vec<ContactPoint>,
    /// Bodies were added since the contacts were last rebuilt.
    stale: bool,
    /// Per pair of bodies, the triangle pairs near at some earlier relative pose.
    candidates: HashMap<(BodyId, BodyId), Candidates>,
}

/// Triangle pairs within `radius` at relative pose `relative` (body i in body j's frame):
/// while no point of i has moved more than `radius − εb` relative to j since, they contain
/// every pair within εb, and the contacts come from them without a tree traversal
/// (docs/solver.md §2).
#[derive(Clone, Debug)]
struct Candidates {
    pairs: Vec<(u32, u32)>,
    relative: Pose,
    radius: f64,
}

/// The candidates' margin beyond εb, in multiples of εb.
const CANDIDATE_SKIN: f64 = 1.0;

/// How far any point of a ball (`center`, `radius`, body frame) can have moved between two
/// poses of the body: the centre's displacement plus the rotation's chord at the radius.
fn moved_at_most(from: &Pose, to: &Pose, (center, radius): (glam::DVec3, f64)) -> f64 {
    let d = *to * from.inverse();
    let c = from.transform_point(center);
    let chord = 2.0 * glam::DVec3::new(d.rotation.x, d.rotation.y, d.rotation.z).length();
    (d.transform_point(c) - c).length() + chord * radius
}

enum Moved {
    Full,
    /// Stopped before a contact: at `time` of the sub-step; `linearisation` when the hitting
    /// pair was already a contact, so the linearised constraints let the motion through.
    Blocked {
        time: f64,
        linearisation: bool,
    },
}

impl World {
    pub fn new(settings: SolverSettings) -> Result<World, SolverError> {
        settings.validate().map_err(SolverError::Settings)?;
        Ok(World { bodies: Vec::new(), settings, contacts: Vec::new(), stale: false, candidates: HashMap::new() })
    }

    pub fn add_body(&mut self, collider: Arc<Collider>, pose: Pose, fixed: bool) -> BodyId {
        self.bodies.push(Body::new(collider, pose.normalized(), fixed));
        self.stale = true;
        self.bodies.len() - 1
    }

    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    pub fn body(&self, id: BodyId) -> Option<&Body> {
        self.bodies.get(id)
    }

    pub fn settings(&self) -> &SolverSettings {
        &self.settings
    }

    pub fn set_settings(&mut self, settings: SolverSettings) -> Result<(), SolverError> {
        settings.validate().map_err(SolverError::Settings)?;
        self.settings = settings;
        self.stale = true; // εb may have changed
        self.candidates.clear();
        Ok(())
    }

    /// Places a body without checking anything (loading, undo). Contacts are rebuilt.
    pub fn set_pose(&mut self, id: BodyId, pose: Pose) -> Result<(), SolverError> {
        if !pose.is_finite() {
            return Err(SolverError::NonFinitePose);
        }
        self.bodies.get_mut(id).ok_or(SolverError::UnknownBody(id))?.pose = pose.normalized();
        self.refresh_contacts(&mut Counters::default());
        Ok(())
    }

    pub fn set_fixed(&mut self, id: BodyId, fixed: bool) -> Result<(), SolverError> {
        self.bodies.get_mut(id).ok_or(SolverError::UnknownBody(id))?.fixed = fixed;
        self.refresh_contacts(&mut Counters::default());
        Ok(())
    }

    /// Contacts within εb, as of the last step or change (bodies added since are not in it).
    pub fn contacts(&self) -> &[ContactPoint] {
        &self.contacts
    }

    /// Pairs of bodies whose surfaces cross or that contain one another.
    pub fn intersecting_pairs(&self) -> Vec<(BodyId, BodyId)> {
        let mut out = Vec::new();
        for i in 0..self.bodies.len() {
            for j in i + 1..self.bodies.len() {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                if intersects(&a.collider, &a.pose, &b.collider, &b.pose).value {
                    out.push((i, j));
                }
            }
        }
        out
    }

    fn pairs(&self) -> impl Iterator<Item = (BodyId, BodyId)> + '_ {
        let n = self.bodies.len();
        (0..n)
            .flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| !(self.bodies[i].fixed && self.bodies[j].fixed))
    }

    fn refresh_timed(&mut self, report: &mut StepReport) {
        let clock = Instant::now();
        self.refresh_contacts(&mut report.counters);
        report.proximity_time += clock.elapsed();
    }

    fn refresh_contacts(&mut self, counters: &mut Counters) {
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.clear();
        let eb = self.settings.breaking;
        let radius = eb * (1.0 + CANDIDATE_SKIN);
        let pairs: Vec<_> = self.pairs().collect();
        for (i, j) in pairs {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let relative = b.pose.inverse() * a.pose;
            let kept = self
                .candidates
                .get(&(i, j))
                .is_some_and(|c| c.radius == radius && moved_at_most(&c.relative, &relative, a.sphere) <= radius - eb);
            if !kept {
                let r = near_triangle_pairs(&a.collider, &a.pose, &b.collider, &b.pose, radius);
                *counters += r.counters;
                self.candidates.insert((i, j), Candidates { pairs: r.value, relative, radius });
            }
            let candidates = &self.candidates[&(i, j)].pairs;
            let r = proximity_among(&a.collider, &a.pose, &b.collider, &b.pose, eb, candidates);
            *counters += r.counters;
            contacts.extend(r.value.iter().map(|p| ContactPoint::from_pair(i, j, p)));
        }
        self.contacts = contacts;
        self.stale = false;
    }

    fn min_distance(&self) -> Option<f64> {
        self.contacts.iter().map(|c| c.distance).min_by(f64::total_cmp)
    }

    /// Moves `body` toward `target`: it stops at contact and slides, never interpenetrating
    /// (docs/solver.md §4). Other movable bodies are pushed when the contacts require it.
    pub fn drag(&mut self, id: BodyId, target: Pose) -> Result<StepReport, SolverError> {
        let body = self.bodies.get(id).ok_or(SolverError::UnknownBody(id))?;
        if body.fixed {
            return Err(SolverError::FixedBody(id));
        }
        if !target.is_finite() || target.rotation.length_squared() == 0.0 {
            return Err(SolverError::NonFinitePose);
        }
        let target = target.normalized();
        let mut report = StepReport::default();
        self.refresh_timed(&mut report);
        let s = self.settings;
        let still = |d: &Displacement| d.translation.length() <= 1e-9 * s.security && d.rotation.length() <= 1e-9;
        // A trust region on the unconstrained motion: the constraints are linear in the
        // displacement, the screw is not; a sub-step that gets nowhere because of that retries
        // with a shorter one (docs/solver.md §4).
        let mut reach = 1.0;
        loop {
            if self.reposition_once(&mut report) {
                continue;
            }
            let full = self.bodies[id].displacement_to(&target);
            if still(&full) {
                break;
            }
            let d0 = Displacement { translation: full.translation * reach, rotation: full.rotation * reach };
            if report.substeps >= s.max_substeps {
                report.budget_exhausted = true;
                break;
            }
            report.substeps += 1;
            match self.substep(Some((id, d0)), &mut report) {
                Moved::Full if reach == 1.0 => break,
                Moved::Full => reach = (2.0 * reach).min(1.0),
                Moved::Blocked { time, linearisation } => {
                    report.blocked_substeps += 1;
                    if time == 0.0 {
                        reach *= 0.25;
                    } else if linearisation && time < 0.5 {
                        reach *= 0.5;
                    }
                }
            }
        }
        // The last move may have left a contact below εr (the solve is linearised).
        while self.reposition_once(&mut report) {}
        let b = &self.bodies[id];
        report.pose = b.pose;
        report.reached = still(&b.displacement_to(&target));
        report.contacts = self.contacts.len();
        report.min_distance = self.min_distance();
        Ok(report)
    }

    /// One repositioning cycle (eq. 9) if a contact is nearer than εr and the budget allows.
    fn reposition_once(&mut self, report: &mut StepReport) -> bool {
        let s = self.settings;
        if self.min_distance().is_some_and(|d| d < s.repositioning) && report.repositioning < s.max_repositioning {
            report.repositioning += 1;
            self.substep(None, report);
            return true;
        }
        false
    }

    /// One solve and CCD-checked move: toward `drag`'s displacement, or (None) a
    /// repositioning move with zero unconstrained motion.
    fn substep(&mut self, drag: Option<(BodyId, Displacement)>, report: &mut StepReport) -> Moved {
        let s = self.settings;
        // Motion space.
        let mut slot = vec![None; self.bodies.len()];
        let mut frames = Vec::new();
        let mut movers = Vec::new();
        for (b, body) in self.bodies.iter().enumerate() {
            if body.fixed {
                continue;
            }
            if let Some(f) = body.frame() {
                slot[b] = Some(frames.len());
                frames.push(f);
                movers.push(b);
            }
        }
        let mut d0 = vec![Displacement::default(); frames.len()];
        if let Some((id, d)) = drag
            && let Some(k) = slot[id]
        {
            d0[k] = d;
        }
        let clock = Instant::now();
        let solution = gauss::solve(&frames, &slot, &self.contacts, &d0, s.security);
        report.solver_time += clock.elapsed();
        report.solver_iterations += solution.iterations as u64;
        if !solution.converged {
            report.unconverged_solves += 1;
        }
        // Motions along Redon's screws.
        let mut motions: Vec<Motion> = self.bodies.iter().map(|b| Motion::stationary(b.pose)).collect();
        let mut moving = vec![false; self.bodies.len()];
        for (k, &b) in movers.iter().enumerate() {
            let d = &solution.displacements[k];
            if d.translation != glam::DVec3::ZERO || d.rotation != glam::DVec3::ZERO {
                let end = self.bodies[b].displaced(d);
                motions[b] = Motion::new(self.bodies[b].pose, end);
                moving[b] = true;
            }
        }
        // How each body moves, as its collision check sees it: Redon's screws for the exact
        // CCD, constant-velocity screws for the glide screen (docs/glide.md §3).
        let paths: Vec<Path> = motions
            .iter()
            .map(|m| match s.narrow_phase {
                NarrowPhase::Exact => Path::Redon(m.path()),
                NarrowPhase::Glide(_) => Path::Constant(Screw::from_displacement(&(m.to * m.from.inverse())), m.from),
            })
            .collect();
        let substep = report.moves.last().map_or(0, |m| m.substep + 1);
        let record = |report: &mut StepReport, until: f64| {
            for (b, path) in paths.iter().enumerate().filter(|&(b, _)| moving[b]) {
                report.moves.push(Move { substep, body: b, path: path.clone(), until });
            }
        };
        // The first contact over every pair with a mover. With the glide screen, its list of
        // every collision of the hitting pair is kept for the near-simultaneous contacts.
        let clock = Instant::now();
        let mut first: Option<(BodyId, BodyId, Contact)> = None;
        let mut glide_list: Vec<Contact> = Vec::new();
        let pairs: Vec<_> = self.pairs().filter(|&(i, j)| moving[i] || moving[j]).collect();
        for &(i, j) in &pairs {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let (hit, list) = match s.narrow_phase {
                NarrowPhase::Exact => {
                    let r = first_contact(&a.collider, &motions[i], &b.collider, &motions[j], &s.query);
                    report.counters += r.counters;
                    (r.value, Vec::new())
                }
                NarrowPhase::Glide(opts) => {
                    // Only the earliest collisions are used (the first and the contact window).
                    let opts = GlideOptions { until_first: true, ..opts };
                    let r = glide_collisions(a.glide_body(), &motions[i], b.glide_body(), &motions[j], &opts);
                    report.glide_tests += r.counters.tests as u64;
                    let list: Vec<Contact> = r.collisions.iter().map(|c| c.contact).collect();
                    (list.first().copied(), list)
                }
            };
            if let Some(c) = hit
                && first.is_none_or(|(_, _, f)| c.time < f.time)
            {
                first = Some((i, j, c));
                glide_list = list;
            }
        }
        let Some((i, j, hit)) = first else {
            report.ccd_time += clock.elapsed();
            for (b, m) in motions.iter().enumerate() {
                if moving[b] {
                    self.bodies[b].pose = m.to.normalized();
                }
            }
            record(report, 1.0);
            self.refresh_timed(report);
            return Moved::Full;
        };
        // Back off along the motion from the contact (docs/solver.md §4).
        let pair_at = |t: f64| {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            contact::feature_pair(
                (i, &a.collider, &paths[i].pose_at(t)),
                (j, &b.collider, &paths[j].pose_at(t)),
                hit.kind,
                hit.feature_a,
                hit.feature_b,
                hit.normal,
            )
        };
        let d_start = pair_at(0.0).distance;
        let goal = d_start.min(0.5 * (s.repositioning + s.security));
        let (mut lo, mut hi) = (0.0, hit.time);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if pair_at(mid).distance >= goal {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-12 {
                break;
            }
        }
        let t_b = lo;
        // Near-simultaneous contacts of the hitting pair.
        let until = (hit.time + s.contact_window).min(1.0);
        let near = match s.narrow_phase {
            NarrowPhase::Exact => {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                let near = contacts_within(&a.collider, &motions[i], &b.collider, &motions[j], until, &s.query);
                report.counters += near.counters;
                near.value
            }
            // Already filtered by properness (seed 002 §9).
            NarrowPhase::Glide(_) => glide_list.into_iter().filter(|c| c.time <= until).collect(),
        };
        report.ccd_time += clock.elapsed();
        let previous: Vec<Pose> = self.bodies.iter().map(|b| b.pose).collect();
        if t_b > 0.0 {
            for (b, p) in paths.iter().enumerate() {
                if moving[b] {
                    self.bodies[b].pose = p.pose_at(t_b).normalized();
                }
            }
            // Two movers are each placed along their own screw, which agrees with their
            // relative screw only at the ends (docs/solver.md §4): check, and stay put if off.
            let overlap = pairs.iter().filter(|&&(x, y)| moving[x] && moving[y]).any(|&(x, y)| {
                let (a, b) = (&self.bodies[x], &self.bodies[y]);
                intersects(&a.collider, &a.pose, &b.collider, &b.pose).value
            });
            if overlap {
                for (b, p) in previous.iter().enumerate() {
                    self.bodies[b].pose = *p;
                }
            } else {
                record(report, t_b);
            }
        }
        self.refresh_timed(report);
        for c in &near {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let cp = contact::feature_pair(
                (i, &a.collider, &a.pose),
                (j, &b.collider, &b.pose),
                c.kind,
                c.feature_a,
                c.feature_b,
                c.normal,
            );
            if !self.contacts.iter().any(|k| k.same_features(&cp)) {
                self.contacts.push(cp);
            }
        }
        let moved = t_b > 0.0 && self.bodies.iter().zip(&previous).any(|(b, p)| b.pose != *p);
        Moved::Blocked { time: if moved { t_b } else { 0.0 }, linearisation: d_start <= s.breaking }
    }
}
