//! Buss' glide-rotation collision screen (seed 002; derivations in docs/glide.md): every
//! collision of a step between two polyhedra, in one pass, each with its properness.
//!
//! The relative motion is the constant-velocity screw (a glide rotation), not Redon's
//! reparametrised one: bodies placed from a glide result must be placed with
//! [`GlideMotion`], whose poses are the motion the screen was computed for.

mod frame;
mod pieces;
mod resolve;
mod screen;
#[cfg(test)]
mod tests;

pub use frame::{Flow, GlideFrame};
pub use screen::ScreenResolution;

use crate::bvh::{Obb, separated};
use crate::mesh::NONE;
use crate::motion::{Pose, Screw};
use crate::query::traversal::{PlacedBoxes, child_pairs, with_placed_boxes};
use crate::query::{Contact, ContactKind};
use crate::{Collider, ColliderOptions, Mesh, Motion};
use glam::{DMat3, DVec3};
use pieces::{Body, Face, Piece, facing, pieces_of_face, slides};
use resolve::{Buffers, Hit, Placed, Recycle, Resolver, Test};
use screen::Window;
use std::f64::consts::FRAC_PI_2;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A mesh prepared for the glide screen: its collider (for the broad phase), bounding sphere
/// and, per edge, its left and right faces (walking from its first to its second vertex, seen
/// from outside).
#[derive(Clone, Debug)]
pub struct GlideBody {
    collider: Arc<Collider>,
    centre: DVec3,
    radius: f64,
    sides: Vec<[Option<u32>; 2]>,
    /// Per triangle, the edge of each side `i → i+1` (`NONE` for a degenerate triangle,
    /// which the screen never reads).
    face_edges: Vec<[u32; 3]>,
    /// −1 when a closed mesh's triangles wind inward (negative volume): its normals are
    /// turned and its edges' sides swapped, so that "outward" is true to the solid.
    orientation: f64,
    /// Placement buffers kept between screens ([`resolve::Buffers`]).
    buffers: Buffers,
    /// Each node's parent in the collider's OBB tree (`NONE` for the root), for
    /// [`near_faces`].
    parents: Vec<u32>,
}

impl GlideBody {
    pub fn new(mesh: Mesh) -> GlideBody {
        GlideBody::from_collider(Arc::new(Collider::with_options(
            mesh,
            &ColliderOptions { cones: None, ..ColliderOptions::default() },
        )))
    }

    /// Shares a collider's mesh and OBB tree.
    pub fn from_collider(collider: Arc<Collider>) -> GlideBody {
        let mesh = collider.mesh();
        let (lo, hi) = mesh.bounds();
        let centre = 0.5 * (lo + hi);
        let radius = mesh.vertices().iter().map(|&p| (p - centre).length()).fold(0.0, f64::max);
        let mut sides = vec![[None, None]; mesh.edges().len()];
        let mut face_edges = Vec::with_capacity(mesh.triangles().len());
        for (t, tri) in mesh.triangles().iter().enumerate() {
            // A degenerate triangle has no edges (its entries are `NONE`, not indices): it is
            // kept out of the screen, and must not be looked up here either.
            let edges = mesh.triangle_edges(t as u32);
            face_edges.push(edges);
            if mesh.is_degenerate(t as u32) {
                continue;
            }
            for (i, &e) in edges.iter().enumerate() {
                // Side `i` runs from corner `i` to `i + 1`; the triangle is on the left of the
                // side it runs forward along.
                let side = if mesh.edge(e)[0] == tri[i] { 0 } else { 1 };
                sides[e as usize][side].get_or_insert(t as u32);
            }
        }
        let orientation = if mesh.stats().is_closed() && mesh.signed_volume() < 0.0 { -1.0 } else { 1.0 };
        if orientation < 0.0 {
            for s in &mut sides {
                s.swap(0, 1);
            }
        }
        let tree = collider.tree();
        let mut parents = vec![NONE; tree.nodes().len()];
        for (i, node) in tree.nodes().iter().enumerate() {
            if !node.is_leaf() {
                let (l, r) = tree.children(i as u32);
                parents[l as usize] = i as u32;
                parents[r as usize] = i as u32;
            }
        }
        GlideBody { collider, centre, radius, sides, face_edges, orientation, buffers: Buffers::default(), parents }
    }

    pub fn mesh(&self) -> &Mesh {
        self.collider.mesh()
    }
}

/// Screen resolution: the paper's three presets (about 6, 12 and 24 pixels along a typical
/// short edge, glide.md §9) or explicit values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resolution {
    Low,
    Medium,
    High,
    /// Pixel size (a length) and time resolution (a fraction of the step). Values that are
    /// not positive and finite fall back to `Medium`; pixels are never finer than 1e-5 of the
    /// bodies' size, nor times than 1e-9 of the step.
    Explicit {
        pixel: f64,
        time: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlideOptions {
    pub resolution: Resolution,
    /// Collisions less proper than this are dropped (seed §9: −0.1).
    pub properness_threshold: f64,
    /// Report the earliest collisions, not every one of the step: a long step (a point of
    /// B travels over 5 % of the smaller bounding radius) is screened in doubling stretches
    /// (to 1/32, 1/16, …, 1/2, 1), stopping after the first with a collision. What the solver needs; a long step whose first
    /// contact comes early then does not screen the deep overlap after it (glide.md §11).
    pub until_first: bool,
    /// A stretch or piece of the step (the doubling stretches above, or a large rotation's
    /// pieces) does not start after this once 1/256 of the step is screened: the screen stops
    /// where the last one it screened ended ([`GlideReport::screened_to`]), so a caller that
    /// goes on from there gets that far at least.
    pub deadline: Option<Instant>,
}

impl Default for GlideOptions {
    fn default() -> Self {
        GlideOptions { resolution: Resolution::Medium, properness_threshold: -0.1, until_first: false, deadline: None }
    }
}

/// One collision of the step.
#[derive(Clone, Copy, Debug)]
pub struct GlideCollision {
    /// Time, world point and normal (from B toward A, as [`Contact`] has it), features.
    pub contact: Contact,
    /// ≥ 0: the surfaces do not overlap near the contact (a true first contact); < 0: the
    /// contact is already partly inside (glide.md §7).
    pub properness: f64,
}

/// What one call did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GlideCounters {
    /// Sub-steps the step was cut into (rotations above π/2 are split).
    pub sub_steps: u32,
    /// Sub-steps ended by the bounding-sphere test.
    pub early_outs: u32,
    /// Projected face pieces (facing clipped, doppeled).
    pub pieces: usize,
    /// Pixel records made (edge runs, vertices, face extents per row).
    pub records: usize,
    /// Chords the pieces' boundaries were projected to, and those rasterized: only where a
    /// record of the other body can pair with a chord's runs is it rasterized (glide.md §11).
    pub chords: usize,
    pub chords_rasterized: usize,
    /// Potential collisions from the screen (VF, FV, EE, EV, VE, VV).
    pub candidates: usize,
    /// Exact VF, FV and EE tests they expanded to.
    pub tests: usize,
    /// Faces of both bodies the broad phase kept (0 when it kept nearly all).
    pub near_faces: usize,
    /// Stretches after a call's first that the deadline stopped inside, their work dropped.
    pub stretches_dropped: u32,
}

#[derive(Clone, Debug)]
pub struct GlideReport {
    /// Collisions at or above the properness threshold, by time.
    pub collisions: Vec<GlideCollision>,
    pub counters: GlideCounters,
    /// The resolution used in the last sub-step that reached the screen.
    pub resolution: Option<ScreenResolution>,
    pub motion: GlideMotion,
    /// How far the step was screened, as a time of the whole step: the end asked for, or
    /// less when [`GlideOptions::deadline`] stopped the screen or a collision ended it
    /// (`until_first`). Collisions are complete up to here.
    pub screened_to: f64,
}

impl GlideReport {
    /// The earliest collision with properness ≥ 0.
    pub fn first_proper(&self) -> Option<&GlideCollision> {
        self.collisions.iter().find(|c| c.properness >= 0.0)
    }
}

/// The motion the glide screen computes for: A turns along its own constant-velocity screw,
/// and B relative to A along the glide rotation Ω (glide.md §3).
#[derive(Clone, Copy, Debug)]
pub struct GlideMotion {
    a0: Pose,
    a_screw: Screw,
    frame: GlideFrame,
}

impl GlideMotion {
    pub fn new(motion_a: &Motion, motion_b: &Motion) -> GlideMotion {
        let a0 = motion_a.from.normalized();
        let a_screw = Screw::from_displacement(&(motion_a.to.normalized() * a0.inverse()));
        let frame = GlideFrame::new(a0, motion_a.to, motion_b.from, motion_b.to, [DVec3::ZERO; 2]);
        GlideMotion { a0, a_screw, frame }
    }

    pub fn pose_a_at(&self, s: f64) -> Pose {
        self.a_screw.helix_at(s) * self.a0
    }

    pub fn pose_b_at(&self, s: f64) -> Pose {
        let flowed = Pose::new(
            glam::DQuat::from_rotation_y(self.frame.theta() * s),
            DVec3::new(0.0, self.frame.glide() * s, 0.0),
        );
        self.pose_a_at(s) * self.frame.to_glide.inverse() * flowed * self.frame.b_start
    }
}

/// Every collision between `a` and `b` over one step, with its properness (seed 002 §9). `a`
/// is the body whose frame the screen is built in; both may move. Complete for two solids
/// ([`crate::bvh::is_solid`]) only: the screen screens the faces that face the motion, and an
/// open surface can be met from behind (docs/glide.md §4, "Solids only").
pub fn glide_collisions(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
) -> GlideReport {
    run(a, motion_a, b, motion_b, opts, Pairs::Screen, (0.0, 1.0))
}

/// [`glide_collisions`] over the part `[from, to]` of the step only (`0 ≤ from < to ≤ 1`),
/// with times those of the whole step: a caller can screen a long or costly step a stretch at
/// a time, moving on after each stretch found free. The flow of a stretch is the whole step's
/// (the constant-velocity screw restricted to it), so the stretches of a step find what the
/// whole step finds.
pub fn glide_collisions_between(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
    (from, to): (f64, f64),
) -> GlideReport {
    let (from, to) = (from.clamp(0.0, 1.0), to.clamp(0.0, 1.0));
    run(a, motion_a, b, motion_b, opts, Pairs::Screen, (from, to.max(from)))
}

/// [`glide_collisions_between`] whose first stretch may also stop inside itself when
/// [`GlideOptions::deadline`] passes (after some of its work: a band of the screen's rows, or
/// some of its exact tests), where a screen of bodies pressed together costs more than a frame:
/// `Err` then holds what it had done, and a call with the same bodies, motions, options and
/// part of the step, given that back, goes on from there. What the calls find in the end is
/// what one call without a deadline finds over the stretches they screened (glide.md §11,
/// "A screen that waits"). A later stretch the deadline stops inside is dropped: `Ok`, screened
/// up to where it began.
pub fn glide_collisions_resumable(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
    (from, to): (f64, f64),
    resume: Option<GlideSuspended>,
) -> Result<GlideReport, GlideSuspended> {
    let passed = || opts.deadline.is_some_and(|d| Instant::now() >= d);
    resumable_by(a, motion_a, b, motion_b, opts, (from, to), resume, &passed)
}

/// [`glide_collisions_resumable`] with `passed` saying when the deadline has passed: the clock,
/// or (in tests) a count of the looks at it, to stop at every point a call may stop at.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resumable_by(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
    (from, to): (f64, f64),
    resume: Option<GlideSuspended>,
    passed: &(dyn Fn() -> bool + Sync),
) -> Result<GlideReport, GlideSuspended> {
    let (from, to) = (from.clamp(0.0, 1.0), to.clamp(0.0, 1.0));
    let span = (from, to.max(from));
    let (report, suspended) =
        run_resumable(a, motion_a, b, motion_b, opts, Pairs::Screen, span, Resume::From(resume), passed);
    suspended.map_or(Ok(report), Err)
}

/// A screen [`glide_collisions_resumable`] stopped inside its first stretch.
#[derive(Clone, Debug)]
pub struct GlideSuspended {
    /// The work of the calls so far, and the resolution they chose.
    counters: GlideCounters,
    resolution: Option<ScreenResolution>,
    progress: Box<Progress>,
}

/// How far one stretch's screen got, and what it needs to go on: its broad phase's faces, and
/// the candidates of the bands of rows scanned, or the exact tests and the hits of those run.
#[derive(Clone, Debug)]
enum Progress {
    Listing(NearListing),
    Scanning { near: Option<[Vec<u32>; 2]>, screen: screen::ScreenOutput, next_band: usize },
    Testing { near: Option<[Vec<u32>; 2]>, tests: Vec<(Test, Window)>, next: usize, hits: Vec<Hit> },
}

/// Whether a call may stop inside its first stretch, and where an earlier one stopped.
enum Resume {
    No,
    From(Option<GlideSuspended>),
}

/// The same collisions found without the screen: every VF, FV and EE pair is tested exactly.
/// Quadratic; the reference the screen is tested against.
pub fn glide_collisions_all_pairs(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
) -> GlideReport {
    run(a, motion_a, b, motion_b, opts, Pairs::All, (0.0, 1.0))
}

/// Where the feature pairs to test come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pairs {
    Screen,
    All,
}

fn run(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
    pairs: Pairs,
    span: (f64, f64),
) -> GlideReport {
    run_resumable(a, motion_a, b, motion_b, opts, pairs, span, Resume::No, &|| {
        opts.deadline.is_some_and(|d| Instant::now() >= d)
    })
    .0
}

#[allow(clippy::too_many_arguments)]
fn run_resumable(
    a: &GlideBody,
    motion_a: &Motion,
    b: &GlideBody,
    motion_b: &Motion,
    opts: &GlideOptions,
    pairs: Pairs,
    (from, to): (f64, f64),
    resume: Resume,
    past_deadline: &(dyn Fn() -> bool + Sync),
) -> (GlideReport, Option<GlideSuspended>) {
    let motion = GlideMotion::new(motion_a, motion_b);
    let mut report = GlideReport {
        collisions: Vec::new(),
        counters: GlideCounters::default(),
        resolution: None,
        motion,
        screened_to: to,
    };
    let span = to - from;
    if span <= 0.0 {
        return (report, None);
    }
    // Where an earlier call stopped inside the first stretch; whether this one may.
    let (may_stop, mut progress) = match resume {
        Resume::No => (false, None),
        Resume::From(None) => (true, None),
        Resume::From(Some(earlier)) => {
            report.counters = earlier.counters;
            report.resolution = earlier.resolution;
            (true, Some(earlier.progress))
        }
    };
    let pieces_needed = (span * motion.frame.theta() / FRAC_PI_2).ceil().max(1.0) as u32;
    // Doubling stretches (each turns at most θ/2 ≤ π/2, as pieces must) only for a long
    // step: a short one is screened whole, once.
    let cb = motion.frame.b_start.transform_point(b.centre);
    let long = span * motion.frame.max_speed(cb, b.radius) >= LONG_STEP * a.radius.min(b.radius);
    let ends: Vec<f64> = if opts.until_first && pairs == Pairs::Screen && long {
        // With a deadline, none shorter than what must be screened before the deadline may
        // stop the call: a screen's cost with the bodies pressed together is mostly fixed, so
        // stretches of 1/1024, 1/512 and 1/256 cost three screens where one of 1/256 does.
        let first = if opts.deadline.is_some() { DEADLINE_AFTER } else { 0.0 };
        (0..=5).rev().map(|k| span * 0.5f64.powi(k)).filter(|&d| d >= first || d == span).map(|d| from + d).collect()
    } else {
        (1..=pieces_needed).map(|k| from + span * k as f64 / pieces_needed as f64).collect()
    };
    let mut s0 = from;
    for s1 in ends {
        if opts.until_first && !report.collisions.is_empty() {
            break;
        }
        // Only once a length of the step is screened: a caller that goes on from where the
        // screen stopped then gets that far at least, and a step ends.
        if s0 - from >= DEADLINE_AFTER && past_deadline() {
            break;
        }
        report.screened_to = s1;
        let (a0, a1) = (motion.pose_a_at(s0), motion.pose_a_at(s1));
        let (b0, b1) = (motion.pose_b_at(s0), motion.pose_b_at(s1));
        // A resumed stretch was counted by the call that began it.
        let resumed = progress.take();
        if resumed.is_none() {
            report.counters.sub_steps += 1;
        }
        // The first stretch may stop inside and go on in a later call; a later one (where
        // the call could stop before it) may stop too, and is then dropped: the bodies are
        // moved before the next call, which screens from elsewhere.
        let later = s0 - from >= DEADLINE_AFTER;
        let stop: Option<&(dyn Fn() -> bool + Sync)> = (may_stop && (s0 == from || later)).then_some(past_deadline);
        let hits = match one_step(a, b, [a0, a1, b0, b1], opts, pairs, &mut report, resumed, stop) {
            Ok(hits) => hits,
            Err(_) if s0 > from => {
                report.screened_to = s0;
                report.counters.stretches_dropped += 1;
                break;
            }
            Err(progress) => {
                report.screened_to = from;
                let suspended = GlideSuspended { counters: report.counters, resolution: report.resolution, progress };
                return (report, Some(suspended));
            }
        };
        for (hit, to_local) in hits {
            let s = s0 + hit.time * (s1 - s0);
            let pose_a = motion.pose_a_at(s);
            let kind = match hit.test {
                Test::FaceVertex(..) => ContactKind::FaceVertex,
                Test::VertexFace(..) => ContactKind::VertexFace,
                Test::EdgeEdge(..) => ContactKind::EdgeEdge,
            };
            let (feature_a, feature_b) = match hit.test {
                Test::FaceVertex(x, y) | Test::VertexFace(x, y) | Test::EdgeEdge(x, y) => (x, y),
            };
            report.collisions.push(GlideCollision {
                contact: Contact {
                    time: s,
                    point: pose_a.transform_point(to_local.transform_point(hit.point)),
                    normal: -pose_a.transform_vector(to_local.transform_vector(hit.normal)),
                    kind,
                    feature_a,
                    feature_b,
                },
                properness: hit.properness,
            });
        }
        s0 = s1;
    }
    (report, None)
}

/// One sub-step with `θ ≤ π/2`; hits in glide coordinates with the map back to A-local. With
/// `stop`, it may stop after a band of the screen's rows or a piece of the exact tests when
/// `stop()` says so, returning how far it got; given that back as `resumed`, it goes on.
#[allow(clippy::too_many_arguments)]
fn one_step(
    a: &GlideBody,
    b: &GlideBody,
    [a0, a1, b0, b1]: [Pose; 4],
    opts: &GlideOptions,
    pairs: Pairs,
    report: &mut GlideReport,
    resumed: Option<Box<Progress>>,
    stop: Option<&(dyn Fn() -> bool + Sync)>,
) -> Result<Vec<(Hit, Pose)>, Box<Progress>> {
    let frame = GlideFrame::new(a0, a1, b0, b1, [a.centre, b.centre]);
    if frame.flow == Flow::Still {
        return Ok(Vec::new());
    }
    let to_local = frame.to_glide.inverse();
    // Bounding spheres (seed §9 step 1): the flow keeps r and moves y by g s.
    let (ca, cb) = (frame.to_glide.transform_point(a.centre), frame.b_start.transform_point(b.centre));
    let g = frame.glide();
    let y_apart = cb.y + b.radius + g.max(0.0) < ca.y - a.radius || cb.y - b.radius + g.min(0.0) > ca.y + a.radius;
    let r_apart = match frame.flow {
        Flow::Glide { .. } => (ca.x.hypot(ca.z) - cb.x.hypot(cb.z)).abs() > a.radius + b.radius,
        _ => (ca.x - cb.x).hypot(ca.z - cb.z) > a.radius + b.radius,
    };
    if pairs == Pairs::Screen && (y_apart || r_apart) {
        report.counters.early_outs += 1;
        return Ok(Vec::new());
    }
    let scale = a.radius + b.radius + (ca - cb).length();
    // Broad phase: a point of B travels at most `reach` relative to A over the step, so only
    // triangles closer than that at the start can meet. On a short step the OBB trees find
    // them pair by pair; on a long one, each body keeps its faces near the other's bounding
    // sphere (a small part stepping onto a large one), or everything when that is most.
    let reach = frame.max_speed(cb, b.radius) * (1.0 + 1e-9) + 1e-9 * scale;
    // A resumed stretch keeps the faces its broad phase listed.
    let (near, resumed) = match resumed.map(|p| *p) {
        Some(Progress::Scanning { near, screen, next_band }) => (near, Some(Err((screen, next_band)))),
        Some(Progress::Testing { near, tests, next, hits }) => (near, Some(Ok((tests, next, hits)))),
        listing => {
            let earlier = match listing {
                Some(Progress::Listing(earlier)) => Some(earlier),
                _ => None,
            };
            let near = match pairs {
                Pairs::All => None,
                Pairs::Screen if reach < BROAD_PHASE_REACH * a.radius.min(b.radius) => {
                    match near_faces_from(a, b, b0.inverse() * a0, reach, earlier, stop) {
                        Ok(near) => Some(near),
                        Err(listing) => return Err(Box::new(Progress::Listing(*listing))),
                    }
                }
                Pairs::Screen => faces_near_spheres(a, b, [a0, b0], reach),
            };
            if let Some(near) = &near {
                report.counters.near_faces += near.iter().map(Vec::len).sum::<usize>();
                if near.iter().any(Vec::is_empty) {
                    report.counters.early_outs += 1;
                    return Ok(Vec::new());
                }
            }
            (near, None)
        }
    };
    let pa = place(a, frame.to_glide, near.as_ref().map(|m| m[0].as_slice()));
    let pb = place(b, frame.b_start, near.as_ref().map(|m| m[1].as_slice()));
    let (tests, mut next, mut hits) = match (pairs, resumed) {
        (_, Some(Ok(testing))) => testing,
        (Pairs::Screen, scanning) => {
            let pieces = face_pieces(&frame, [(a, &pa), (b, &pb)], near.as_ref());
            report.counters.pieces += pieces.len();
            if pieces.is_empty() {
                return Ok(Vec::new());
            }
            let spheres = [(ca, a.radius), (cb, b.radius)];
            let res = resolution(&frame, &pieces, &pa, &pb, opts.resolution, spheres);
            report.resolution = Some(res);
            let (mut screen, from) = match scanning {
                Some(Err(earlier)) => earlier,
                _ => (screen::ScreenOutput::default(), 0),
            };
            let (records, chords, rasterized) = (screen.records, screen.chords, screen.chords_rasterized);
            let stopped = match stop {
                None if from == 0 => {
                    screen = screen::scan(&frame, &pieces, res);
                    None
                }
                stop => screen::scan_from(&frame, &pieces, res, from, stop.unwrap_or(&|| false), &mut screen),
            };
            // The work of this call (a resumed screen projects its pieces again).
            report.counters.records += screen.records - records;
            report.counters.chords += screen.chords - chords;
            report.counters.chords_rasterized += screen.chords_rasterized - rasterized;
            if let Some(next_band) = stopped {
                return Err(Box::new(Progress::Scanning { near, screen, next_band }));
            }
            report.counters.candidates += screen.candidates.len();
            let tests: Vec<(Test, Window)> = resolve::expand(&screen.candidates, &pa, &pb).into_iter().collect();
            report.counters.tests += tests.len();
            // Where the screen took most of the time it had, the tests wait for the next call.
            if stop.is_some_and(|stop| stop()) && tests.len() > EXACT_PIECE {
                return Err(Box::new(Progress::Testing { near, tests, next: 0, hits: Vec::new() }));
            }
            (tests, 0, Vec::new())
        }
        (Pairs::All, _) => {
            let tests: Vec<(Test, Window)> = resolve::all_pairs(&pa, &pb).into_iter().collect();
            report.counters.tests += tests.len();
            (tests, 0, Vec::new())
        }
    };
    let resolver = Resolver::new(&frame, &pa, &pb, 1e-9 * scale);
    // The exact tests, independent of each other, in two halves on two threads when there are
    // many (a pressed door's screens hand over thousands); the second half's hits follow the
    // first's, so the list is the one a single thread makes. With `stop`, a piece at a time.
    let run = |tests: &[(Test, Window)]| {
        let mut hits = Vec::with_capacity(tests.len());
        for &(test, window) in tests {
            resolver.run(test, window, &mut hits);
        }
        hits
    };
    let piece = if stop.is_some() { EXACT_PIECE } else { tests.len().max(1) };
    let first = next;
    while next < tests.len() {
        if next > first && stop.is_some_and(|stop| stop()) {
            return Err(Box::new(Progress::Testing { near, tests, next, hits }));
        }
        let these = &tests[next..(next + piece).min(tests.len())];
        if these.len() >= PARALLEL_TESTS && crate::parallel::cores() >= 2 {
            let (first, second) = these.split_at(these.len() / 2);
            let (more, rest) = crate::parallel::join(|| run(first), || run(second));
            hits.extend(more);
            hits.extend(rest);
        } else {
            hits.extend(run(these));
        }
        next += these.len();
    }
    merge(&mut hits, 1e-7 * scale);
    hits.retain(|h| h.properness >= opts.properness_threshold);
    Ok(hits.into_iter().map(|h| (h, to_local)).collect())
}

/// The pieces of both bodies' faces (all, or those the broad phase keeps) that face the
/// right way, doppeled (glide.md §4, §6).
///
/// A mesh edge is recorded by one face only where it can: by the lowest-indexed face that
/// holds it whole (faces the right way, strictly, at both its ends: that face's piece keeps
/// the edge, and doppeling places the same points alike in every face); the other faces'
/// sides along it are virtual, still bounding their faces' extents. Where no face holds it
/// whole, every face records its part. Vertices likewise. Without this, each edge's runs and
/// each vertex were recorded once per face around it, and every pair of them met up to four
/// times in the row scans.
fn face_pieces(frame: &GlideFrame, bodies: [(&GlideBody, &Placed); 2], near: Option<&[Vec<u32>; 2]>) -> Vec<Piece> {
    // Most faces give one piece or none; reserved, the vector (pieces are a few hundred bytes)
    // is not copied as it grows.
    let faces: usize = match near {
        Some(m) => m.iter().map(Vec::len).sum(),
        None => bodies.iter().map(|(_, p)| p.mesh.triangles().len()).sum(),
    };
    let mut pieces: Vec<Piece> = Vec::with_capacity(faces + faces / 4 + 8);
    for (k, (body, (prepared, placed))) in [Body::A, Body::B].into_iter().zip(bodies).enumerate() {
        let mesh = placed.mesh;
        let face = |t: u32| {
            let tri = mesh.triangle(t);
            let corners = tri.map(|i| placed.pts[i as usize]);
            let n = placed.normals[t as usize];
            let edges = prepared.face_edges[t as usize];
            Face {
                body,
                index: t,
                corners,
                normal: n,
                vertices: tri,
                edges,
                records_edge: [true; 3],
                records_vertex: [true; 3],
            }
        };
        // The faces to screen, in increasing order: the broad phase's, or all.
        let all: Vec<u32>;
        let faces = match near {
            Some(m) => &m[k],
            None => {
                all = (0..mesh.triangles().len() as u32).collect();
                &all
            }
        };
        let mut live: Vec<Face> = Vec::with_capacity(faces.len());
        live.extend(
            faces
                .iter()
                .copied()
                .filter(|&t| !mesh.is_degenerate(t))
                .map(face)
                .filter(|f| !slides(frame, body, f.corners, f.normal)),
        );
        // Owners of the live faces' edges and vertices only: a few near faces of a large
        // mesh must not cost a pass over all of its edges.
        let mut edge_owner = Owners::default();
        let mut vertex_owner = Owners::default();
        for f in &live {
            let leads = f.corners.map(|x| facing(frame, body, f.normal, x) > 0.0);
            for i in 0..3 {
                if leads[i] {
                    vertex_owner.claim(f.vertices[i], f.index);
                }
                if leads[i] && leads[(i + 1) % 3] {
                    edge_owner.claim(f.edges[i], f.index);
                }
            }
        }
        for mut f in live {
            let ours = |owner: Option<u32>| owner.is_none_or(|o| o == f.index);
            f.records_edge = f.edges.map(|e| ours(edge_owner.of(e)));
            f.records_vertex = f.vertices.map(|v| ours(vertex_owner.of(v)));
            pieces_of_face(frame, &f, &mut pieces);
        }
    }
    pieces
}

/// The first face to claim each edge or vertex.
#[derive(Default)]
struct Owners(std::collections::HashMap<u32, u32, std::hash::BuildHasherDefault<crate::query::IntKeyHasher>>);

impl Owners {
    fn claim(&mut self, feature: u32, face: u32) {
        self.0.entry(feature).or_insert(face);
    }
    fn of(&self, feature: u32) -> Option<u32> {
        self.0.get(&feature).copied()
    }
}

/// The broad phase is used while a point of B travels less than this fraction of the
/// smaller bounding radius over the step.
const BROAD_PHASE_REACH: f64 = 0.5;

/// With `until_first`, a step on which a point of B travels more than this fraction of the
/// smaller bounding radius is screened in doubling stretches.
const LONG_STEP: f64 = 0.05;

/// The part of the step screened before [`GlideOptions::deadline`] can stop the screen.
const DEADLINE_AFTER: f64 = 1.0 / 256.0;

/// Exact tests a screen that may stop runs between looks at the clock (about a millisecond).
const EXACT_PIECE: usize = 2048;

/// Fewer exact tests than this run on one thread (a split's hand-over costs about as much as
/// a few hundred tests of a microsecond or so).
const PARALLEL_TESTS: usize = 256;

/// Faces of A and of B whose leaf boxes are within `reach` of the other body's (A at
/// `a_in_b` in B's frame, at the start of the step), each list in increasing order. A node
/// pair whose faces below both nodes are all listed already is skipped (docs/glide.md,
/// "Listing the near faces"): on surfaces pressed together each face is near tens of the
/// other's.
#[cfg(test)]
fn near_faces(a: &GlideBody, b: &GlideBody, a_in_b: Pose, reach: f64) -> [Vec<u32>; 2] {
    near_faces_from(a, b, a_in_b, reach, None, None).expect("without a stop the listing ends")
}

/// A listing of near faces [`near_faces_from`] stopped: the leaves listed, their faces, and
/// the frontier pairs, of which those before `next` are done.
#[derive(Clone, Debug)]
struct NearListing {
    listed: [Vec<bool>; 2],
    near: [Vec<u32>; 2],
    frontier: Vec<(u32, u32)>,
    next: usize,
}

/// [`near_faces`], going on from `earlier`; with `stop`, each thread looks at it between the
/// frontier pairs it takes (after [`NEAR_TAKEN_BEFORE_STOP`]) and the listing stops when it
/// says so. The
/// faces listed in the end are the same set however often it stopped: a leaf pair near enough
/// lists its faces whichever pass gets there.
fn near_faces_from(
    a: &GlideBody,
    b: &GlideBody,
    a_in_b: Pose,
    reach: f64,
    earlier: Option<NearListing>,
    stop: Option<&(dyn Fn() -> bool + Sync)>,
) -> Result<[Vec<u32>; 2], Box<NearListing>> {
    let (tree_a, tree_b) = (a.collider.tree(), b.collider.tree());
    let resumed = earlier.is_some();
    let NearListing { mut listed, mut near, mut frontier, next } = earlier.unwrap_or_else(|| NearListing {
        listed: [vec![false; tree_a.nodes().len()], vec![false; tree_b.nodes().len()]],
        near: [Vec::new(), Vec::new()],
        frontier: vec![(0, 0)],
        next: 0,
    });
    let rotation = DMat3::from_quat(a_in_b.rotation);
    let in_b = |o: &Obb| Obb {
        center: rotation * o.center + a_in_b.translation,
        axes: o.axes.map(|x| rotation * x),
        half: o.half,
    };
    // One node pair: skipped when the faces below both its nodes are all listed, dropped when
    // its boxes are farther apart than `reach`; a leaf pair's faces listed, another's children
    // pushed on `pending`. Returns the box tests made (0 or 1).
    let visit = |(na, nb): (u32, u32),
                 placed: &mut PlacedBoxes,
                 listed: &mut [Vec<bool>; 2],
                 near: &mut [Vec<u32>; 2],
                 pending: &mut Vec<(u32, u32)>| {
        if listed[0][na as usize] && listed[1][nb as usize] {
            return 0;
        }
        let (node_a, node_b) = (tree_a.node(na), tree_b.node(nb));
        if !separated(&node_b.obb, placed.get(na, &node_a.obb, in_b), reach) {
            if node_a.is_leaf() && node_b.is_leaf() {
                list_leaf(a, na, &mut listed[0], &mut near[0]);
                list_leaf(b, nb, &mut listed[1], &mut near[1]);
            } else {
                pending.extend(child_pairs(tree_a, tree_b, na, nb));
            }
        }
        1
    };
    // Breadth first down to a frontier of pairs of about one depth, so that near a large
    // contact each frontier pair holds a small share of it (docs/glide.md, "Listing the near
    // faces on two threads").
    with_placed_boxes(|placed| {
        while !resumed && !frontier.is_empty() && frontier.len() < NEAR_FRONTIER {
            let mut next = Vec::with_capacity(2 * frontier.len());
            for &pair in &frontier {
                visit(pair, placed, &mut listed, &mut near, &mut next);
            }
            frontier = next;
        }
    });
    // Then each frontier pair depth first, claimed one at a time: by this thread alone for its
    // first `NEAR_SPLIT_AFTER` box tests, then by both threads while any is left.
    let claimed = AtomicUsize::new(next);
    let descend = |listed: &mut [Vec<bool>; 2], near: &mut [Vec<u32>; 2], tests_before_stop: usize| {
        with_placed_boxes(|placed| {
            let (mut stack, mut tests, mut taken) = (Vec::new(), 0, 0);
            while tests < tests_before_stop {
                if taken >= NEAR_TAKEN_BEFORE_STOP && stop.is_some_and(|stop| stop()) {
                    break;
                }
                taken += 1;
                let Some(&pair) = frontier.get(claimed.fetch_add(1, Ordering::Relaxed)) else { break };
                stack.push(pair);
                while let Some(pair) = stack.pop() {
                    tests += visit(pair, placed, listed, near, &mut stack);
                }
            }
        })
    };
    descend(&mut listed, &mut near, NEAR_SPLIT_AFTER);
    if claimed.load(Ordering::Relaxed) < frontier.len() && crate::parallel::cores() >= 2 {
        // Each thread skips what it listed itself (the helper starts from what this thread
        // had listed), and a leaf both listed appears once in the sorted union.
        let (mut their_listed, mut their_near) = (listed.clone(), [Vec::new(), Vec::new()]);
        crate::parallel::join(
            || descend(&mut listed, &mut near, usize::MAX),
            || descend(&mut their_listed, &mut their_near, usize::MAX),
        );
        for (m, theirs) in near.iter_mut().zip(their_near) {
            m.extend(theirs);
        }
        for (mine, theirs) in listed.iter_mut().zip(their_listed) {
            mine.iter_mut().zip(theirs).for_each(|(x, y)| *x |= y);
        }
    } else {
        descend(&mut listed, &mut near, usize::MAX);
    }
    // Every pair claimed was descended to its end before its thread looked at `stop`.
    let next = claimed.load(Ordering::Relaxed).min(frontier.len());
    if next < frontier.len() {
        return Err(Box::new(NearListing { listed, near, frontier, next }));
    }
    for m in &mut near {
        m.sort_unstable();
        m.dedup();
    }
    Ok(near)
}

/// Box tests the near-face descent makes on one thread before the second joins in.
const NEAR_SPLIT_AFTER: usize = 256;

/// Frontier pairs each thread of a listing that may stop descends before it looks at the
/// clock: with two threads, a listing ends within eight calls (and so a tiny budget's drags
/// get somewhere).
const NEAR_TAKEN_BEFORE_STOP: usize = 8;

/// Pending pairs the near-face descent's breadth-first start leaves for the threads to claim.
const NEAR_FRONTIER: usize = 128;

/// Lists a leaf's faces once, and marks every ancestor whose two children are both listed.
fn list_leaf(body: &GlideBody, leaf: u32, listed: &mut [bool], near: &mut Vec<u32>) {
    if listed[leaf as usize] {
        return;
    }
    let tree = body.collider.tree();
    near.extend_from_slice(tree.leaf_triangles(tree.node(leaf)));
    listed[leaf as usize] = true;
    let mut node = body.parents[leaf as usize];
    while node != NONE {
        let (l, r) = tree.children(node);
        if !(listed[l as usize] && listed[r as usize]) {
            break;
        }
        listed[node as usize] = true;
        node = body.parents[node as usize];
    }
}

/// Faces of A within `reach` of B's bounding sphere and faces of B within `reach` of A's, at
/// the start of the step (`[a0, b0]`): a point of B travels at most `reach` relative to A, so
/// no other face can meet. None when that keeps nearly every face (screening them all is
/// then as cheap).
fn faces_near_spheres(a: &GlideBody, b: &GlideBody, [a0, b0]: [Pose; 2], reach: f64) -> Option<[Vec<u32>; 2]> {
    let b_in_a = a0.inverse() * b0;
    let near = [
        faces_near_sphere(a, b_in_a.transform_point(b.centre), b.radius + reach),
        faces_near_sphere(b, b_in_a.inverse().transform_point(a.centre), a.radius + reach),
    ];
    let most = |m: &[u32], body: &GlideBody| m.len() as f64 >= 0.75 * body.mesh().triangles().len() as f64;
    (!most(&near[0], a) || !most(&near[1], b)).then_some(near)
}

/// Faces of `body` whose leaf boxes come within `radius` of `centre` (body frame), in
/// increasing order.
fn faces_near_sphere(body: &GlideBody, centre: DVec3, radius: f64) -> Vec<u32> {
    let tree = body.collider.tree();
    let mut faces = Vec::new();
    let mut stack = vec![0u32];
    while let Some(i) = stack.pop() {
        let node = tree.node(i);
        let d = centre - node.obb.center;
        let outside =
            DVec3::from_array(std::array::from_fn(|k| (d.dot(node.obb.axes[k]).abs() - node.obb.half[k]).max(0.0)));
        if outside.length() > radius {
            continue;
        }
        if node.is_leaf() {
            faces.extend_from_slice(tree.leaf_triangles(node));
        } else {
            let (l, r) = tree.children(i);
            stack.extend([l, r]);
        }
    }
    faces.sort_unstable();
    faces
}

/// A body's vertices and face normals in glide coordinates: all of them, or (given the
/// broad phase's faces) those of these faces and of every face sharing a vertex with one,
/// which is what the tests these faces can expand to read (the rest stay NaN, and are never
/// read). The latter in the body's kept buffers, which the placement gives back when dropped.
fn place<'a>(body: &'a GlideBody, pose: Pose, faces: Option<&[u32]>) -> Placed<'a> {
    let mesh = body.mesh();
    let normal = |t: u32| body.orientation * pose.transform_vector(mesh.normal(t));
    let Some(faces) = faces else {
        return Placed {
            mesh,
            pts: mesh.vertices().iter().map(|&p| pose.transform_point(p)).collect(),
            normals: (0..mesh.triangles().len() as u32).map(normal).collect(),
            sides: &body.sides,
            recycle: None,
        };
    };
    let (mut pts, mut normals) = body.buffers.take(mesh.vertices().len(), mesh.triangles().len());
    let mut recycle = Recycle { pool: &body.buffers, vertices: Vec::new(), faces: Vec::new() };
    for &t in faces {
        for v in mesh.triangle(t) {
            for &e in mesh.vertex_edges(v) {
                for &f in mesh.edge_faces(e) {
                    if normals[f as usize].is_nan() {
                        normals[f as usize] = normal(f);
                        recycle.faces.push(f);
                        for w in mesh.triangle(f) {
                            if pts[w as usize].is_nan() {
                                recycle.vertices.push(w);
                            }
                            pts[w as usize] = pose.transform_point(mesh.vertex(w));
                        }
                    }
                }
            }
        }
    }
    Placed { mesh, pts, normals, sides: &body.sides, recycle: Some(recycle) }
}

/// Pixel size and time resolution (glide.md §9).
fn resolution(
    frame: &GlideFrame,
    pieces: &[Piece],
    a: &Placed,
    b: &Placed,
    wanted: Resolution,
    spheres: [(DVec3, f64); 2],
) -> ScreenResolution {
    let speed = spheres.iter().map(|&(c, r)| frame.max_speed(c, r)).fold(0.0, f64::max).max(1e-300);
    // Memory and time grow with the pixels an edge covers: no finer than 1e-5 of the
    // bodies' size, whatever is asked.
    let finest = 1e-5 * (spheres[0].1 + spheres[1].1);
    let per_edge = match wanted {
        Resolution::Explicit { pixel, time } if pixel.is_finite() && pixel > 0.0 && time.is_finite() && time > 0.0 => {
            return ScreenResolution { pixel: pixel.max(finest), time: time.max(1e-9) };
        }
        Resolution::Low => 6.0,
        Resolution::High => 24.0,
        _ => 12.0,
    };
    let mut lengths: Vec<f64> = pieces
        .iter()
        .flat_map(|p| {
            let placed = if p.body == Body::A { a } else { b };
            p.poly.edges().iter().flatten().map(move |&e| {
                let [u, v] = placed.mesh.edge(e);
                (placed.pts[u as usize] - placed.pts[v as usize]).length()
            })
        })
        .filter(|&l| l > 0.0)
        .collect();
    let typical = if lengths.is_empty() {
        spheres[0].1.max(spheres[1].1)
    } else {
        let k = lengths.len() / 4;
        *lengths.select_nth_unstable_by(k, f64::total_cmp).1
    };
    let pixel = (typical / per_edge).max(finest);
    ScreenResolution { pixel, time: (pixel / speed).max(1e-9) }
}

/// Hits at the same time and place are one collision: keep the most proper (seed §9: VV, EV
/// and VE resolve to the VF, FV or EE of largest properness).
///
/// By time, then test, stably (one test's hits stay in the order it found them): the tests
/// come in the order of a hash map, which depends on how the screen's candidates were
/// gathered (on one thread or two), and the collisions must not.
fn merge(hits: &mut Vec<Hit>, dist: f64) {
    hits.sort_by(|x, y| x.time.total_cmp(&y.time).then(x.test.cmp(&y.test)));
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    'next: for h in hits.drain(..) {
        for k in kept.iter_mut().rev() {
            if h.time - k.time > 1e-9 {
                break;
            }
            if (h.point - k.point).length() <= dist {
                if h.properness > k.properness {
                    *k = h;
                }
                continue 'next;
            }
        }
        kept.push(h);
    }
    *hits = kept;
}
