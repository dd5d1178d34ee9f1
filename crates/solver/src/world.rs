//! Bodies, their contacts, and the drag step (docs/solver.md §4; parts in contact from the
//! start: docs/contact-from-start.md).

use crate::contact::{self, BodyId, ContactPoint};
use crate::gauss::{self, Displacement, Frame};
use crate::mass::MassProperties;
use crate::patch;
use crate::settings::{NarrowPhase, SolverSettings};
use glam::{DMat3, DQuat, DVec3};
use mockup_ccd::broad::{Aabb, BroadPhase};
use mockup_ccd::bvh::is_solid;
use mockup_ccd::glide::{GlideBody, GlideOptions, GlideSuspended, glide_collisions_resumable};
use mockup_ccd::mesh::{Orientation, Place, Side, Sides, crossing_normal, crossing_separation};
use mockup_ccd::{
    Collider, Contact, ContactKind, Counters, FirstContact, InContact, Motion, NearTrianglePairs, Pose, QueryBudget,
    QueryOptions, Screw, Suspended, VertexBand, contacts_within, first_contact_suspendable, intersects, proximity,
    proximity_among, vertex_owner_count, vertex_readings,
};
use mockup_cone::Metric;
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
    /// Which side of its surface is outside (docs/contact-from-start.md §2).
    pub orientation: Orientation,
    /// A ball around the mesh (body frame): centre and radius.
    sphere: (DVec3, f64),
    /// The mesh prepared for the glide screen, built the first time it is needed.
    glide: std::sync::OnceLock<Arc<GlideBody>>,
    /// Whether the mesh is a solid (`bvh::is_solid`), found the first time the glide screen
    /// would check it: only then does the screen see every collision.
    solid: std::sync::OnceLock<bool>,
    /// Counts placements made without the solver; a pair is classified again after one.
    placement: u64,
}

impl Body {
    pub fn new(collider: Arc<Collider>, pose: Pose, fixed: bool) -> Body {
        let mass = MassProperties::of(collider.mesh(), collider.tree());
        let orientation = Orientation::of(collider.mesh());
        let (lo, hi) = collider.mesh().bounds();
        let sphere = (0.5 * (lo + hi), 0.5 * (hi - lo).length());
        Body {
            collider,
            pose,
            fixed,
            mass,
            orientation,
            sphere,
            glide: std::sync::OnceLock::new(),
            solid: std::sync::OnceLock::new(),
            placement: 0,
        }
    }

    /// A collider with cones is a solid (they are built for solids only) and costs nothing
    /// here; others are checked once (at once for an open mesh: it is not closed).
    fn solid(&self) -> bool {
        self.collider.culls() || *self.solid.get_or_init(|| is_solid(self.collider.mesh()))
    }

    fn glide_body(&self) -> &GlideBody {
        self.glide.get_or_init(|| Arc::new(GlideBody::from_collider(self.collider.clone())))
    }

    fn sides(&self) -> Sides<'_> {
        Sides::new(self.collider.mesh(), self.orientation)
    }

    fn world_box(&self) -> Aabb {
        Aabb::of_collider(&self.collider, &self.pose)
    }

    fn world_center(&self) -> DVec3 {
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
    /// The time or work budget (`SolverSettings::time_budget`, `work_budget`) ran out first:
    /// the body moved as far as was proven free; call `drag` again with the same target to
    /// go on.
    pub out_of_time: bool,
    /// The drag ended with a sub-step suspended: its queries ran out of budget before they
    /// proved any of its motion free, or finished too late for the rest of the sub-step; the
    /// next drag of this body goes on with it (docs/solver.md §4).
    pub suspended: bool,
    /// The drag ended with a sub-step's solve unfinished: its readings ran past the deadline;
    /// the next drag of this body goes on with it (docs/solver.md §4, "A solve spread over
    /// drags").
    pub planning: bool,
    /// The budget ran out while the body's contacts were being rebuilt, before any sub-step:
    /// nothing moved, the contact figures below are of the previous set, and the next drag of
    /// this body goes on with the rebuild (docs/solver.md §4).
    pub rebuilding_contacts: bool,
    /// The budget ran out while the contacts at a sub-step's new poses were being read: the
    /// bodies were put back (that move is not shown before its depth check), and the next drag
    /// of this body goes on with the reading and then makes the move (docs/solver.md §4).
    pub waiting_for_refresh: bool,
    /// Sub-steps stopped by a contact.
    pub blocked_substeps: u32,
    /// QP solves that did not converge (infeasible constraints); the move still went
    /// through CCD.
    pub unconverged_solves: u32,
    /// Wilhelmsen iterations, summed.
    pub solver_iterations: u64,
    /// Contact rows the solves took, and how many the convex-hull reduction left
    /// (docs/contact-from-start.md §6), summed over the solves.
    pub rows: u64,
    pub rows_kept: u64,
    /// The bodies that moved (the grabbed one, and those it pushed).
    pub movers: Vec<BodyId>,
    /// Pairs of the movers in contact from the start (docs/contact-from-start.md §1).
    pub seated_pairs: Vec<(BodyId, BodyId)>,
    /// The deepest of those pairs' penetration depths at the end, as their contacts read it
    /// (docs/contact-from-start.md §3); 0 without such pairs.
    pub max_depth: f64,
    /// Moves undone because a pair in contact from the start would have gone deeper than
    /// the interference tolerance (docs/contact-from-start.md §3).
    pub deepening_undone: u32,
    /// First contact and near-simultaneous contacts along the moves.
    pub ccd_time: Duration,
    /// Rebuilding the contact set (proximity queries at εb).
    pub proximity_time: Duration,
    pub solver_time: Duration,
    /// CCD and proximity counters, summed.
    pub counters: Counters,
    /// Exact VF, FV and EE tests the glide screen ran (glide narrow phase only).
    pub glide_tests: u64,
    /// Moves through a stretch of a sub-step that the glide screen found free, under a time
    /// budget (§4).
    pub glide_stretches: u32,
    /// Glide screens the deadline stopped inside their stretch, which the next drag goes on
    /// with (§4).
    pub glide_screens_cut: u32,
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
    /// The move starts at this time of the checked motion (0, or where an earlier piece of a
    /// sub-step cut short by the budget had taken the bodies) and stops at `until` (1 when
    /// nothing was hit).
    from: f64,
    until: f64,
}

impl Move {
    /// The body's pose at `s ∈ [0, 1]` of the move (before the end pose is renormalized).
    pub fn pose_at(&self, s: f64) -> Pose {
        self.path.pose_at(self.from + s * (self.until - self.from))
    }

    /// Whether the glide screen checked this move (a constant-velocity screw), not the exact
    /// CCD (Redon's screw).
    pub fn screened(&self) -> bool {
        matches!(self.path, Path::Constant(..))
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
    /// The bodies' world boxes: which bodies are near a box (docs/queries.md §2).
    boxes: Boxes,
    settings: SolverSettings,
    /// Contacts within εb of the pairs of `focus` with every other body.
    contacts: Vec<ContactPoint>,
    /// The bodies the contact set is about: the last drag's movers, or the body last placed.
    focus: Vec<BodyId>,
    /// Per pair of bodies, the triangle pairs near at some earlier relative pose.
    candidates: HashMap<(BodyId, BodyId), Candidates>,
    /// Per seated pair read beyond its near distance, the owners of its vertices that may be
    /// read there, found at some earlier relative pose (docs/contact-from-start.md §3).
    beyond: HashMap<(BodyId, BodyId), NearOwners>,
    /// Per pair classified since either body was last placed without the solver.
    classified: HashMap<(BodyId, BodyId), PairClass>,
    /// During a drag under a budget: the dragged body, the deadline and the box-test limit
    /// (`SolverSettings::time_budget`, `work_budget`).
    budget: Option<DragBudget>,
    /// A sub-step whose queries ran out of budget before proving anything free, or finished
    /// too late for the rest of it: the next drag of the same body takes it up
    /// (docs/solver.md §4).
    suspended: Option<SuspendedStep>,
    /// A sub-step's solve the drag's deadline cut short, and the dragged body: its next drag
    /// goes on with it (docs/solver.md §4, "A solve spread over drags").
    planning: Option<(BodyId, Box<Planning>)>,
    /// The last drag's seated pairs and depth (`seated_depths`), with the change count and
    /// the movers they were found for.
    kept_depths: Option<KeptDepths>,
    /// A contact rebuild a drag's budget cut short: the next drag of the same body goes on
    /// with it (docs/solver.md §4).
    refreshing: Option<Refreshing>,
    /// How long the last contact refresh after a move took and how many box tests it made,
    /// and for which body: a sub-step's queries in a drag of that body leave that much of the
    /// budget (§4).
    last_refresh: Option<(BodyId, Duration, u64)>,
    /// A drag that ran out of time: its body, target and place in its chain of sub-steps,
    /// which the next drag toward the same target goes on from.
    chain_carry: Option<(BodyId, Pose, u32)>,
    /// Under a time budget, the glide screen checks a sub-step's motion a stretch at a time:
    /// `2^-k` of it (k this, at most `MAX_GLIDE_HALVINGS`), halved after a screen that took
    /// over a third of the budget and doubled after one under a twelfth (§4).
    glide_stretch_halvings: u32,
    /// How long the last sub-step or repositioning cycle of the current drag took: with the
    /// glide screen, which cannot stop inside a stretch, about what the next one will (§4).
    last_cycle: Duration,
    /// `contacts` are about `focus` at the bodies' current poses: the next drag of that body
    /// needs no refresh before its first solve.
    fresh: bool,
    /// Counts the changes of what contacts' readings depend on (`contacts`, a pose, a body,
    /// the settings, a pair's classification): kept reading ids, a plan under way and the
    /// last report's depths are good while it stands still.
    changes: u64,
    /// The last plan's reading ids, with `changes` and the movers' slots they were made for
    /// (docs/solver.md §4, "Contacts that read alike are read once").
    kept_readings: Option<(u64, Vec<Option<usize>>, Readings)>,
    /// What a plan's one-piece stages cost per item, from plan to plan (`Pace`).
    plan_rates: PlanRates,
}

/// The broad phase over the bodies, and those whose box it refused (a pose too large to
/// box), which count as near everything.
#[derive(Clone, Debug)]
struct Boxes {
    tree: BroadPhase,
    unboxed: Vec<BodyId>,
}

impl Default for Boxes {
    fn default() -> Self {
        Boxes { tree: BroadPhase::new(0.0), unboxed: Vec::new() }
    }
}

impl Boxes {
    fn place(&mut self, id: BodyId, body: &Body) {
        if self.tree.update(id, body.world_box()).is_err() {
            self.tree.remove(id);
            if !self.unboxed.contains(&id) {
                self.unboxed.push(id);
            }
        } else {
            self.unboxed.retain(|&u| u != id);
        }
    }

    /// Bodies whose boxes meet `region`, and every unboxed one.
    fn near(&self, region: &Aabb) -> Vec<BodyId> {
        let mut out = self.unboxed.clone();
        self.tree.query(region, &mut out);
        out
    }
}

/// How a pair was classified (docs/contact-from-start.md §1).
#[derive(Clone, Copy, Debug)]
struct PairClass {
    /// The two bodies' placements it was classified at.
    at: (u64, u64),
    /// In contact from the start.
    seated: bool,
    /// Its penetration depth then (§5): how deep it may ever be, less the tolerance.
    depth: f64,
    /// Its contacts are read within this: εb, or more for a pair that interferes deeper
    /// (docs/contact-from-start.md §3).
    radius: f64,
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

/// The owners (triangles, `vertex_readings`) whose vertices may have readings in `band` while
/// no point of body i has moved more than the candidates' skin relative to body j since
/// `relative`.
#[derive(Clone, Debug)]
struct NearOwners {
    owners: Vec<u32>,
    relative: Pose,
    band: (f64, f64),
}

/// The candidates' margin beyond εb, in multiples of εb.
const CANDIDATE_SKIN: f64 = 1.0;

/// How far any point of a ball (`center`, `radius`, body frame) can have moved between two
/// poses of the body: the centre's displacement plus the rotation's chord at the radius.
fn moved_at_most(from: &Pose, to: &Pose, (center, radius): (DVec3, f64)) -> f64 {
    let d = *to * from.inverse();
    let c = from.transform_point(center);
    let chord = 2.0 * DVec3::new(d.rotation.x, d.rotation.y, d.rotation.z).length();
    (d.transform_point(c) - c).length() + chord * radius
}

fn ordered(a: BodyId, b: BodyId) -> (BodyId, BodyId) {
    (a.min(b), a.max(b))
}

enum Moved {
    /// Moved the whole way of the solved displacement; `closed_gap` when a row of a pair in
    /// contact from the start that held it was a gap, now closed to its floor (touching, for
    /// a pair that started touching): its row reads differently now, which may let the next
    /// solve go on (a ring of a screw's vertices reaching the next plate's face slides along
    /// its hole). `constrained` when the solve turned the drag's displacement (rows held
    /// it): the target may still be reachable by solving again from here.
    Full { closed_gap: bool, constrained: bool },
    /// The solve left nothing to move: no query, no move.
    Idle,
    /// The budget ran out: moved as far as was proven free, maybe not at all.
    OutOfTime,
    /// Moved through a stretch of the motion the glide screen found free; the rest of the
    /// sub-step is suspended, to go on with now.
    Stretch,
    /// Moved the whole way of a displacement shortened to keep a pair in contact from the
    /// start within the interference tolerance along the move.
    Shortened,
    /// Stopped before a contact: at `time` of the sub-step; `linearisation` when the hitting
    /// pair was already a contact, so the linearised constraints let the motion through.
    Blocked { time: f64, linearisation: bool },
}

/// The glide screen's stretches are at least `2^-5` of a sub-step (§4).
const MAX_GLIDE_HALVINGS: u32 = 5;

/// A drag's budget (`SolverSettings::time_budget`, `work_budget`).
#[derive(Clone, Copy, Debug)]
struct DragBudget {
    body: BodyId,
    /// When the drag began, and when its time is up.
    began: Instant,
    deadline: Option<Instant>,
    box_tests: Option<u64>,
}

impl DragBudget {
    /// Whether half of it is gone, `tests` box tests having been spent.
    fn half_spent(&self, tests: u64) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= self.began + (d - self.began) / 2)
            || self.box_tests.is_some_and(|n| tests >= n / 2)
    }

    /// Whether it has run out, `tests` box tests having been spent.
    fn spent(&self, tests: u64) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.box_tests.is_some_and(|n| tests >= n)
    }
}

/// A sub-step's move, solved and boxed: what its continuous check and its move need, and what
/// a suspended sub-step keeps.
#[derive(Clone, Debug)]
struct Planned {
    movers: Vec<BodyId>,
    /// The bodies that move, and each body's motion (stationary for the others of `pairs`).
    moving: Vec<BodyId>,
    motions: HashMap<BodyId, Motion>,
    /// Pairs whose boxes meet over the move, whether each is in contact from the start, and
    /// the options of its queries.
    pairs: Vec<(BodyId, BodyId)>,
    seated: Vec<bool>,
    options: Vec<QueryOptions>,
    /// The solve closed a seated gap (`Moved::Full`), and the move was shortened
    /// ([`World::turn_limit`]).
    closed_gap: bool,
    shortened: bool,
    /// The solve turned the dragged body's displacement (rows held it).
    constrained: bool,
    /// The drag's trust region when it was planned, and the sub-step's place in the drag's
    /// chain (`World::drag_steps`).
    reach: f64,
    chain: u32,
    /// A repositioning cycle (no drag displacement): resumed as one, never read as a drag's
    /// sub-step.
    repositioning: bool,
    /// How far along its motions the bodies are: 0, or where an earlier drag moved them as
    /// far as its queries had proven free before it ran out of budget.
    at: f64,
}

/// A contact rebuild cut short by a drag's budget: the pairs to visit, the next one, the
/// contacts of those visited, and how far the next one's reading got.
#[derive(Clone, Debug)]
struct Refreshing {
    movers: Vec<BodyId>,
    /// The movers' poses it reads at (a move's refresh is kept while the bodies are put back,
    /// docs/solver.md §4), and whether it is a refresh after a move.
    at: Vec<Pose>,
    after_move: bool,
    pairs: Vec<(BodyId, BodyId)>,
    next: usize,
    contacts: Vec<ContactPoint>,
    reading: Option<PairReading>,
    /// The pair (its place in `pairs`) in contact from the start being read again at a
    /// larger radius to classify it, and that radius.
    growing: Option<(usize, f64)>,
}

/// One pair's contacts read a piece at a time under a drag's budget (one pair of plates with a
/// coincident face can take 100 ms alone, docs/solver.md §4).
#[derive(Clone, Debug)]
struct PairReading {
    /// Where the pair's contacts begin in the rebuild's list.
    first: usize,
    /// The pair's relative pose when its reading began (the bodies do not move meanwhile:
    /// placing one drops the rebuild).
    relative: Pose,
    /// Its candidate triangle pairs' traversal, while it runs.
    traversal: Option<NearTrianglePairs>,
    /// How many of its candidates have been read.
    read: usize,
    /// Its reading beyond the near distance, once begun.
    beyond: Option<BeyondReading>,
}

/// A pair's vertices read beyond the near distance (`vertex_readings`) a piece at a time.
#[derive(Clone, Debug)]
struct BeyondReading {
    /// The owners to read, how many are read, and those found near.
    owners: Vec<u32>,
    next: usize,
    near: Vec<u32>,
    /// The owners are all of them (none were kept): those found near are kept for later.
    keep: bool,
    /// Box tests per owner in the last piece (0 before the first): what sizes the next.
    per_owner: f64,
}

/// Node pairs a budgeted candidate traversal opens between looks at the clock (about half a
/// millisecond), and candidate triangle pairs read between looks (up to some 2 ms where most
/// of them touch, a base plate's coincident faces).
const TRAVERSAL_PIECE: usize = 4096;
const READING_PIECE: usize = 2048;
/// A budgeted reading beyond εb looks at the clock after about this many box tests (about a
/// millisecond on two threads), in pieces of owners sized by what the last piece cost per
/// owner: an owner's vertex searches cost from a few box tests (skipped by its neighbour's
/// bound) to some 200 (a vertex near the other part), so a fixed count of owners overran a
/// frame by up to 16 ms on a robot's wrist (docs/solver.md §4).
const BEYOND_PIECE_TESTS: f64 = 32_768.0;
const BEYOND_PIECE_OWNERS: (usize, usize) = (256, 1024);

/// An edge whose faces are within this angle (radians, 1°) of one plane is read as flat by a
/// seated pair's edge/edge readings (docs/contact-from-start.md §3, "Nearly flat edges").
const NEARLY_FLAT: f64 = 0.017_453_292_519_943_295;

/// Readings deeper than their pair's start allows get a second opinion, two passes over the
/// other part's triangles each, while the triangles passed over in a move stay within this
/// (about 10 ms at some 50 ns a triangle); past it the reading decides
/// (docs/contact-from-start.md §3, "A second opinion").
const SECOND_OPINION_WORK: usize = 200_000;

/// A pair with more contacts than this is classified at the start of a budgeted call, not
/// after other work (about 0.2 µs a contact).
const CLASSIFY_FIRST: usize = 4096;

/// A sub-step's solve under way (`World::plan`): what it plans with, and how far it got.
#[derive(Clone, Debug)]
struct Planning {
    space: Space,
    stage: Stage,
}

/// What a plan plans with: the world's change count when it began (any change drops the
/// plan), the movers and the drag, the trust region and place in the drag's chain
/// (`World::drag_steps`), the motion space, the unconstrained motion, and which contacts read
/// alike.
#[derive(Clone, Debug)]
struct Space {
    changes: u64,
    movers: Vec<BodyId>,
    drag: Option<(BodyId, Displacement)>,
    reach: f64,
    chain: u32,
    slot: Vec<Option<usize>>,
    frames: Vec<Frame>,
    in_space: Vec<BodyId>,
    d0: Vec<Displacement>,
    readings: Readings,
}

/// How far a plan got: finding which contacts read alike, about to sort the contacts for
/// `rows`, choosing the rows, reading the chosen touching rows' normals, or solving and
/// reading the spare contacts against each solve's answer.
#[derive(Clone, Debug)]
enum Stage {
    Keying(Keying),
    Begun,
    Rows(RowChoice),
    Normals(Normals),
    Rounds(Rounds),
}

/// The ids given so far to the keys of contacts that read alike (`World::key_readings`): the
/// pair, whether the vertex is i's, the vertex's feature and point's bits, the place, and the
/// place's point's bits where its body is a mover.
#[derive(Clone, Debug, Default)]
struct Keying {
    ids: HashMap<ReadingKey, u32, foldhash::fast::FixedState>,
    rate: Rate,
}

/// What two contacts that read alike agree on (`Keying`).
type ReadingKey = (BodyId, BodyId, bool, u32, [u64; 3], Place, Option<[u64; 3]>);

/// The last drag's seated pairs and depth, with the change count and movers they are of.
type KeptDepths = (u64, Vec<BodyId>, Vec<(BodyId, BodyId)>, f64);

/// Each contact's candidate rows, as lists threaded through two flat arrays: the contact's
/// last row, and each row's previous row of the same contact. A table of one `Vec` per
/// contact cost 51,000 allocations for a base plate, and as much again to free: up to 7 ms
/// a plan (docs/benchmarks.md, "Stop 55").
#[derive(Clone, Debug)]
struct RowsOf {
    last: Vec<u32>,
    previous: Vec<u32>,
}

impl RowsOf {
    const NONE: u32 = u32::MAX;

    fn new(contacts: usize) -> RowsOf {
        RowsOf { last: vec![Self::NONE; contacts], previous: Vec::new() }
    }

    /// Row `row`, the next row (rows are numbered in the order they are added), is of
    /// contact `k`.
    fn push(&mut self, k: usize, row: usize) {
        debug_assert_eq!(row, self.previous.len(), "rows are added in order");
        self.previous.push(self.last[k]);
        self.last[k] = row as u32;
    }

    /// Contact `k`'s rows, the last added first.
    fn of(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.last[k];
        std::iter::from_fn(move || {
            (at != Self::NONE).then(|| {
                let row = at as usize;
                at = self.previous[row];
                row
            })
        })
    }
}

/// The rows chosen, and the readings of the touching ones' normals under way.
#[derive(Clone, Debug)]
struct Normals {
    candidates: Vec<ContactPoint>,
    rows_of: RowsOf,
    /// The touching rows whose normal is read, and the readings.
    touching: Vec<usize>,
    normals: Batch<Option<DVec3>>,
    spare: Vec<usize>,
    beyond: Vec<usize>,
}

/// The solves: the candidate rows, the spare contacts, how many solves were made, and the
/// last one's answer with its spare contacts' readings under way; then how many of those
/// readings were added as rows (a piece at a time: a base plate's solve can press in 40,000
/// spare contacts, some 15 ms of rows), how many candidates the solve had, and what adding
/// costs per spare contact.
#[derive(Clone, Debug)]
struct Rounds {
    candidates: Vec<ContactPoint>,
    rows_of: RowsOf,
    spare: Vec<usize>,
    round: u32,
    solved: Option<(Solved, Batch<Option<Option<DVec3>>>)>,
    added: usize,
    before: usize,
    add_rate: Rate,
}

/// A solve: its rows (the corners kept), their bounds, and its answer.
#[derive(Clone, Debug)]
struct Solved {
    rows: Vec<ContactPoint>,
    row_bounds: Vec<f64>,
    solution: gauss::Solution,
}

/// A budgeted plan's pieces are sized by what they cost (`Pace::piece`), between these many
/// distinct side readings (1–9 µs each on two threads), contacts keyed (about 0.4 µs each the
/// first time, `World::key_readings`) and features' rows chosen.
const SIDE_PIECE: (usize, usize) = (64, 4096);
const KEY_PIECE: (usize, usize) = (512, 8192);
const FEATURE_PIECE: (usize, usize) = (32, 2048);
/// A solve's pressed-in spare contacts are added as rows this many at a time (about 0.3 µs
/// each).
const ADD_PIECE: (usize, usize) = (1024, 16384);

/// A sub-step whose continuous queries ran out of budget before proving any of its motion
/// free, or finished too late for the rest of the sub-step (docs/solver.md §4).
#[derive(Clone, Debug)]
struct SuspendedStep {
    /// The dragged body: only its next drag takes the sub-step up.
    body: BodyId,
    plan: Planned,
    /// Per pair: its query's answer so far, and its state when it has not finished.
    queries: Queries,
    /// The move its answers give waits for the refresh at its poses: the next drag runs no
    /// query, so that it reaches the same poses (docs/solver.md §4).
    hold: bool,
    /// With the glide screen, when a pair's screen stopped inside its stretch.
    screens: Option<Screens>,
}

/// A sub-step's glide screens when the deadline stopped one inside its stretch: where the
/// stretch ends, and per pair its answer, or its screen so far, which the next drag goes on
/// with (docs/solver.md §4).
#[derive(Clone, Debug)]
struct Screens {
    to: f64,
    answers: Vec<ScreenAnswer>,
}

#[derive(Clone, Debug)]
enum ScreenAnswer {
    /// The collisions that count, by time, and how far the pair was screened.
    Done(Vec<Contact>, f64),
    Pending(GlideSuspended),
}

/// A sub-step's first-contact queries: each one's answer so far, and its state when it has not
/// finished.
type Queries = Vec<(FirstContact, Option<Suspended>)>;

/// What became of a move (`World::place_or_undo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placed {
    Kept,
    Undone,
    /// The refresh at the new poses ran out of budget: the bodies are back where they were,
    /// and the refresh goes on in the next drag.
    Waiting,
}

impl World {
    pub fn new(settings: SolverSettings) -> Result<World, SolverError> {
        settings.validate().map_err(SolverError::Settings)?;
        // Fat boxes ten times εb: a dragged part reinserts its box every few steps, not each.
        let boxes = Boxes { tree: BroadPhase::new(10.0 * settings.breaking), unboxed: Vec::new() };
        Ok(World { settings, boxes, ..World::default() })
    }

    pub fn add_body(&mut self, collider: Arc<Collider>, pose: Pose, fixed: bool) -> BodyId {
        self.changes += 1;
        self.fresh = false;
        self.suspended = None;
        self.planning = None;
        self.refreshing = None;
        self.chain_carry = None;
        self.bodies.push(Body::new(collider, pose.normalized(), fixed));
        let id = self.bodies.len() - 1;
        self.boxes.place(id, &self.bodies[id]);
        id
    }

    /// Moves a body (keeping its box current). A suspended sub-step's motions would no longer
    /// start where the bodies are: it is dropped.
    fn put(&mut self, id: BodyId, pose: Pose) {
        self.changes += 1;
        self.fresh = false;
        self.suspended = None;
        self.planning = None;
        self.refreshing = None;
        self.bodies[id].pose = pose;
        self.boxes.place(id, &self.bodies[id]);
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
        self.changes += 1;
        self.fresh = false;
        self.suspended = None;
        self.planning = None;
        self.refreshing = None;
        self.chain_carry = None;
        self.glide_stretch_halvings = 0;
        self.settings = settings;
        // εr and εb may have changed: the classification and the candidates with them.
        self.candidates.clear();
        self.beyond.clear();
        self.classified.clear();
        let focus = std::mem::take(&mut self.focus);
        self.refresh_contacts(&focus, &mut StepReport::default());
        Ok(())
    }

    /// Places a body without checking anything (loading, undo): its pairs are classified
    /// again, and it becomes the body the contact set is about.
    pub fn set_pose(&mut self, id: BodyId, pose: Pose) -> Result<(), SolverError> {
        if !pose.is_finite() {
            return Err(SolverError::NonFinitePose);
        }
        let body = self.bodies.get_mut(id).ok_or(SolverError::UnknownBody(id))?;
        body.placement += 1;
        self.chain_carry = None;
        self.put(id, pose.normalized());
        self.refresh_contacts(&[id], &mut StepReport::default());
        Ok(())
    }

    pub fn set_fixed(&mut self, id: BodyId, fixed: bool) -> Result<(), SolverError> {
        self.bodies.get_mut(id).ok_or(SolverError::UnknownBody(id))?.fixed = fixed;
        self.changes += 1;
        self.suspended = None;
        self.planning = None;
        self.chain_carry = None;
        Ok(())
    }

    /// Contacts within εb of the last drag's moving bodies (or of the body last placed) with
    /// every other body.
    pub fn contacts(&self) -> &[ContactPoint] {
        &self.contacts
    }

    /// Pairs of bodies whose surfaces cross or that contain one another.
    pub fn intersecting_pairs(&self) -> Vec<(BodyId, BodyId)> {
        let mut pairs = self.boxes.tree.pairs().value;
        for &u in &self.boxes.unboxed {
            pairs.extend((0..self.bodies.len()).filter(|&o| o != u).map(|o| ordered(u, o)));
        }
        pairs.sort_unstable();
        pairs.dedup();
        self.intersecting_among(pairs)
    }

    /// Pairs of `bodies` with any body whose surfaces cross or contain one another: what a
    /// step of theirs may have changed.
    pub fn intersecting_pairs_with(&self, bodies: &[BodyId]) -> Vec<(BodyId, BodyId)> {
        let mut pairs: Vec<(BodyId, BodyId)> = bodies
            .iter()
            .filter(|&&b| b < self.bodies.len())
            .flat_map(|&b| self.near(b, &self.bodies[b].world_box(), 0.0).into_iter().map(move |o| ordered(b, o)))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        self.intersecting_among(pairs)
    }

    fn intersecting_among(&self, pairs: Vec<(BodyId, BodyId)>) -> Vec<(BodyId, BodyId)> {
        pairs
            .into_iter()
            .filter(|&(i, j)| {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                a.world_box().overlaps(&b.world_box()) && intersects(&a.collider, &a.pose, &b.collider, &b.pose).value
            })
            .collect()
    }

    /// The pairs in contact from the start among those classified at the current placements
    /// (docs/contact-from-start.md §1).
    pub fn seated_pairs(&self) -> Vec<(BodyId, BodyId)> {
        let mut out: Vec<_> = self
            .classified
            .iter()
            .filter(|&(&(i, j), c)| c.seated && c.at == (self.bodies[i].placement, self.bodies[j].placement))
            .map(|(&p, _)| p)
            .collect();
        out.sort_unstable();
        out
    }

    /// How deep a pair in contact from the start was read when it was classified, D₀ (the
    /// depth it may keep; docs/contact-from-start.md §3); `None` for another pair.
    pub fn start_depth(&self, i: BodyId, j: BodyId) -> Option<f64> {
        self.class(i, j).filter(|c| c.seated).map(|c| c.depth)
    }

    /// Bodies other than `b` whose world boxes come within `margin` of `region`.
    fn near(&self, b: BodyId, region: &Aabb, margin: f64) -> Vec<BodyId> {
        let region = region.expanded(margin);
        let mut near = self.boxes.near(&region);
        near.retain(|&o| o != b && self.bodies[o].world_box().overlaps(&region));
        near
    }

    /// The pair's classification if it is current (neither body placed by hand since).
    fn class(&self, i: BodyId, j: BodyId) -> Option<PairClass> {
        let pair = ordered(i, j);
        let at = (self.bodies[pair.0].placement, self.bodies[pair.1].placement);
        self.classified.get(&pair).copied().filter(|c| c.at == at)
    }

    /// Whether the pair is in contact from the start (classified pairs only; an unclassified
    /// pair is farther than εb apart, so free).
    fn seated(&self, i: BodyId, j: BodyId) -> bool {
        self.class(i, j).is_some_and(|c| c.seated)
    }

    /// At the start of a drag: a pair in contact from the start that is now farther than εb
    /// and does not intersect becomes an ordinary pair.
    /// The contact set must be current for `movers`; returns whether a pair was released.
    fn release_separated(&mut self, movers: &[BodyId]) -> bool {
        let eb = self.settings.breaking;
        let seated: Vec<(BodyId, BodyId)> = self
            .classified
            .iter()
            .filter(|&(&(i, j), c)| c.seated && (movers.contains(&i) || movers.contains(&j)))
            .map(|(&p, _)| p)
            .collect();
        if seated.is_empty() {
            return false;
        }
        // Pairs with a contact within εb, in one pass over the contacts' runs of one pair (a
        // base plate has tens of thousands of contacts and hundreds of seated pairs; sorting
        // one entry per contact took 1–4 ms of every drag).
        let mut touching: Vec<(BodyId, BodyId)> = self
            .pair_runs()
            .filter(|run| run.iter().any(|c| c.distance < eb))
            .map(|run| (run[0].body_i, run[0].body_j))
            .collect();
        touching.sort_unstable();
        touching.dedup();
        let mut released = false;
        for (i, j) in seated {
            let Some(class) = self.class(i, j) else { continue };
            // A contact within εb: still in contact. Otherwise apart unless they intersect.
            if touching.binary_search(&(i, j)).is_ok() {
                continue;
            }
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let apart = !a.world_box().overlaps(&b.world_box())
                || (proximity(&a.collider, &a.pose, &b.collider, &b.pose, eb).value.is_empty()
                    && !intersects(&a.collider, &a.pose, &b.collider, &b.pose).value);
            if apart {
                self.classified.insert((i, j), PairClass { seated: false, ..class });
                self.changes += 1;
                released = true;
            }
        }
        released
    }

    fn refresh_timed(&mut self, movers: &[BodyId], report: &mut StepReport) {
        self.refresh_budgeted(movers, None, false, report);
    }

    /// [`World::refresh_timed`] right after the solver moved `movers` (or put them back): a
    /// pair it meets for the first time is free (§1 of docs/contact-from-start.md).
    fn refresh_after_move(&mut self, movers: &[BodyId], report: &mut StepReport) {
        self.refresh_budgeted(movers, None, true, report);
    }

    /// The movers' contacts rebuilt under `budget`, timed: the contact set it replaced when it
    /// finished, `None` when the budget ran out first.
    fn refresh_budgeted(
        &mut self,
        movers: &[BodyId],
        budget: Option<DragBudget>,
        after_move: bool,
        report: &mut StepReport,
    ) -> Option<Vec<ContactPoint>> {
        let (clock, tests) = (Instant::now(), report.counters.bv_tests);
        let replaced = self.refresh_part(movers, budget, after_move, report);
        let took = clock.elapsed();
        self.last_refresh = movers.first().map(|&b| (b, took, report.counters.bv_tests - tests));
        report.proximity_time += took;
        replaced
    }

    /// The movers' poses, which a rebuild reads at.
    fn poses_of(&self, movers: &[BodyId]) -> Vec<Pose> {
        movers.iter().map(|&b| self.bodies[b].pose).collect()
    }

    /// Whether the kept rebuild is about `movers` where they are, read as `after_move` says.
    fn rebuilding(&self, movers: &[BodyId], after_move: bool) -> bool {
        self.refreshing
            .as_ref()
            .is_some_and(|r| r.movers == movers && r.after_move == after_move && r.at == self.poses_of(movers))
    }

    /// Whether a displacement is no motion at all (to `1e-9` of εs and `1e-9` rad).
    fn still(&self, d: &Displacement) -> bool {
        d.translation.length() <= 1e-9 * self.settings.security && d.rotation.length() <= 1e-9
    }

    /// The budget a query of this drag runs under, `tests` box tests having been spent: like
    /// the deadline (`query_deadline`), the box tests less those of the last refresh, never
    /// less than half of the budget.
    fn query_budget(&self, tests: u64) -> Option<QueryBudget> {
        self.budget?;
        let box_tests = self.query_box_tests().map(|n| n.saturating_sub(tests));
        Some(QueryBudget { deadline: self.query_deadline(), box_tests })
    }

    /// What is left of the drag's budget, `tests` box tests having been spent: for work after
    /// the move's refresh, which needs no room kept for it.
    fn remaining_budget(&self, tests: u64) -> Option<QueryBudget> {
        let b = self.budget?;
        Some(QueryBudget { deadline: b.deadline, box_tests: b.box_tests.map(|n| n.saturating_sub(tests)) })
    }

    /// The box tests of a drag's work budget its queries may use up to.
    fn query_box_tests(&self) -> Option<u64> {
        let b = self.budget?;
        let refresh = match self.last_refresh {
            Some((body, _, n)) if body == b.body => n,
            _ => 0,
        };
        b.box_tests.map(|n| n.saturating_sub(refresh).max(n / 2))
    }

    /// When a sub-step's queries must stop: the drag's deadline less the time the last
    /// contact refresh took, so that the refresh after the move still fits (§4).
    /// The refresh keeps at most half of the budget: where a refresh takes a frame's whole
    /// budget (a debug build, a slow machine), the queries would otherwise get only their
    /// minimum of node pairs each frame and a drag would crawl.
    fn query_deadline(&self) -> Option<Instant> {
        let budget = self.budget?;
        let d = budget.deadline?;
        let half = budget.began + (d - budget.began) / 2;
        match self.last_refresh {
            Some((b, took, _)) if b == budget.body => Some(d.checked_sub(took).unwrap_or(d).max(half)),
            _ => Some(d),
        }
    }

    /// Contacts within εb of every pair of a body of `movers` with any other body (within a
    /// seated pair's own radius, docs/contact-from-start.md §3); those of pairs in contact from
    /// the start signed and turned outward. A pair not classified at the current placements is
    /// classified here (§1).
    fn refresh_contacts(&mut self, movers: &[BodyId], report: &mut StepReport) {
        self.refresh_part(movers, None, false, report);
    }

    /// [`World::refresh_contacts`] pair by pair until `budget` runs out (at least one pair a
    /// call): the contact set it replaced when it finished, `None` when not. An unfinished
    /// rebuild is kept, and the next call about the same movers at the same poses goes on
    /// with it; meanwhile the contact set is the old one.
    ///
    /// `after_move`: the solver has just moved `movers` (or put them back). A pair not yet
    /// classified then is one that was beyond the near margin at the previous refresh of the
    /// same movers, since each refresh classifies every pair it reads: it was free then, and
    /// the solver's moves are free of interference, so it is free, however near the move left
    /// it. Classifying it by its distance now would make a pair the solver brought within εr
    /// "in contact from the start", which it then lets touch (found in review: a glide stretch
    /// ending 5 % short of a floor, or an unbudgeted drag ending εr/2 above one).
    fn refresh_part(
        &mut self,
        movers: &[BodyId],
        budget: Option<DragBudget>,
        after_move: bool,
        report: &mut StepReport,
    ) -> Option<Vec<ContactPoint>> {
        let (er, eb) = (self.settings.repositioning, self.settings.breaking);
        let goes_on = self.rebuilding(movers, after_move);
        let (pairs, mut next, mut contacts, mut reading, mut growing) = match self.refreshing.take() {
            Some(r) if goes_on => (r.pairs, r.next, r.contacts, r.reading, r.growing),
            _ => {
                let skin = eb * CANDIDATE_SKIN;
                let mut pairs: Vec<(BodyId, BodyId)> = Vec::new();
                for &m in movers {
                    let region = self.bodies[m].world_box();
                    pairs.extend(self.near(m, &region, eb + skin).into_iter().map(|o| ordered(m, o)));
                }
                pairs.sort_unstable();
                pairs.dedup();
                (pairs, 0, Vec::new(), None, None)
            }
        };
        let began = next;
        let work =
            |r: &StepReport| r.counters.bv_tests + r.counters.vf_tests + r.counters.fv_tests + r.counters.ee_tests;
        // Whether every pair was read; an unfinished rebuild is kept for the next call.
        let finished = 'read: {
            while next < pairs.len() {
                if next > began && budget.is_some_and(|b| b.spent(report.counters.bv_tests)) {
                    break 'read false;
                }
                let (i, j) = pairs[next];
                let known = self.class(i, j);
                // A pair in contact from the start deeper than εb is read again at growing radii
                // until its readings see its deepest features (below), a read at a time.
                let grown = growing.filter(|&(k, _)| k == next).map(|(_, radius)| radius);
                let within = grown.or(known.map(|c| c.radius)).unwrap_or(eb);
                let seated = grown.is_some() || known.is_some_and(|c| c.seated);
                let before = work(report);
                let Some(first) =
                    self.pair_contacts(i, j, within, seated, &mut contacts, (budget, &mut reading), report)
                else {
                    break 'read false;
                };
                // Classifying a pair (signing its contacts, measuring its depth: about 9 ms for a
                // base plate's 45,000) waits for the next call when this one has done some work
                // and used its budget, or when the pair has many contacts (it would not fit in
                // what is left); that call classifies it first, its reading done.
                let progressed = next > began || work(report) > before;
                let big = contacts.len() - first > CLASSIFY_FIRST;
                // After a move a new pair is free (no signing): nothing to wait for.
                if known.is_none()
                    && grown.is_none()
                    && !after_move
                    && progressed
                    && budget.is_some_and(|b| big || b.spent(report.counters.bv_tests))
                {
                    let (a, b) = (&self.bodies[i], &self.bodies[j]);
                    let read = self.candidates.get(&(i, j)).map_or(0, |c| c.pairs.len());
                    let relative = b.pose.inverse() * a.pose;
                    reading = Some(PairReading { first, relative, traversal: None, read, beyond: None });
                    break 'read false;
                }
                if known.is_some() {
                    next += 1;
                    continue;
                }
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                let at = (a.placement, b.placement);
                if grown.is_none() {
                    // Classify it now: in contact from the start if it touches (< εr) or
                    // interferes.
                    let near = contacts[first..].iter().any(|c| c.distance < er);
                    let seated = !after_move
                        && !self.settings.strict
                        && (near || intersects(&a.collider, &a.pose, &b.collider, &b.pose).value);
                    if !seated {
                        self.classified.insert((i, j), PairClass { at, seated, depth: 0.0, radius: eb });
                        self.changes += 1;
                        next += 1;
                        continue;
                    }
                    // The contacts just read at εb, signed and turned outward.
                    self.seat(i, j, &mut contacts, first);
                }
                // Its depth, and the radius its contacts are read within: εb, or beyond the depth
                // when it interferes deeper (the readings must see its deepest features, §3).
                // Deeper than 20 εb (a modelling error more than a fit) is not followed.
                let cap = (20.0 * eb).min(0.25 * a.sphere.1.min(b.sphere.1)).max(eb);
                let radius = within;
                let depth = penetration(&contacts[first..], eb);
                if depth + 0.5 * eb <= radius || radius >= cap {
                    self.classified.insert((i, j), PairClass { at, seated: true, depth, radius });
                    self.changes += 1;
                    growing = None;
                    next += 1;
                } else {
                    // Read again, wider, from where this reading began.
                    contacts.truncate(first);
                    growing = Some((next, (4.0 * radius).max(depth + eb).min(cap)));
                }
            }
            true
        };
        if !finished {
            let at = self.poses_of(movers);
            self.refreshing =
                Some(Refreshing { movers: movers.to_vec(), at, after_move, pairs, next, contacts, reading, growing });
            return None;
        }
        self.focus = movers.to_vec();
        self.fresh = true;
        self.changes += 1;
        Some(std::mem::replace(&mut self.contacts, contacts))
    }

    /// Appends the contacts of bodies i and j within `within` (from kept candidates when their
    /// relative pose allows, docs/solver.md §2); signed and turned outward when `seated`.
    /// Returns where they begin in `contacts`. Under a budget it goes a piece at a time (at
    /// least one a call): when the budget runs out it keeps how far it got in `reading` and
    /// returns `None`; a call with that reading goes on from there (§4).
    #[allow(clippy::too_many_arguments)]
    fn pair_contacts(
        &mut self,
        i: BodyId,
        j: BodyId,
        within: f64,
        seated: bool,
        contacts: &mut Vec<ContactPoint>,
        (budget, reading): (Option<DragBudget>, &mut Option<PairReading>),
        report: &mut StepReport,
    ) -> Option<usize> {
        // Every feature pair is read within `near` (εb, or 2 εb for a seated pair read farther:
        // all its rows of a vertex whose nearest is within εb); beyond it, to the pair's
        // radius, only each vertex's nearest readings (docs/contact-from-start.md §3, "Beyond
        // 2 εb").
        let eb = self.settings.breaking;
        let near = within.min(2.0 * eb);
        let radius = near + eb * CANDIDATE_SKIN;
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let mut r = reading.take().unwrap_or_else(|| {
            let relative = b.pose.inverse() * a.pose;
            let kept = self.candidates.get(&(i, j)).is_some_and(|c| {
                c.radius == radius && moved_at_most(&c.relative, &relative, a.sphere) <= radius - near
            });
            let traversal = (!kept).then(|| NearTrianglePairs::new(&a.pose, &b.pose, radius));
            PairReading { first: contacts.len(), relative, traversal, read: 0, beyond: None }
        });
        let spent = |report: &StepReport| budget.is_some_and(|b| b.spent(report.counters.bv_tests));
        let piece = |n: usize| if budget.is_some() { n } else { usize::MAX };
        if let Some(traversal) = &mut r.traversal {
            while !traversal.advance(&a.collider, &b.collider, piece(TRAVERSAL_PIECE), &mut report.counters) {
                if spent(report) {
                    *reading = Some(r);
                    return None;
                }
            }
            let pairs = r.traversal.take().expect("the traversal just ran").into_pairs();
            self.candidates.insert((i, j), Candidates { pairs, relative: r.relative, radius });
            if spent(report) {
                *reading = Some(r);
                return None;
            }
        }
        let candidates = &self.candidates[&(i, j)].pairs;
        // Read in pieces, the answers appended in order: the whole list's answer.
        while r.read < candidates.len() {
            let end = r.read.saturating_add(piece(READING_PIECE)).min(candidates.len());
            let found = proximity_among(&a.collider, &a.pose, &b.collider, &b.pose, near, &candidates[r.read..end]);
            report.counters += found.counters;
            // A free pair's contacts take their touching normals piece by piece, under the
            // budget: over 45,000 coincident contacts (the base plate's click), all after the
            // last piece, that took over 10 ms of one frame.
            contacts.extend(found.value.iter().map(|p| self.as_read(ContactPoint::from_pair(i, j, p), seated)));
            r.read = end;
            // Even after the last piece: signing the contacts of a pair in contact from the
            // start, and classifying it, take a few milliseconds more for 48,000 contacts.
            if spent(report) {
                *reading = Some(r);
                return None;
            }
        }
        if within > near {
            // The readings beyond `near` of each vertex within the rows' tie of its nearest
            // (`rows`); those nearer, the candidates gave. Only the owners found near at a
            // relative pose from which i has moved less than the skin are read.
            let skin = eb * CANDIDATE_SKIN;
            let band = VertexBand { from: near, within, tie: 0.25 * self.settings.repositioning, margin: skin };
            let beyond = r.beyond.get_or_insert_with(|| {
                let kept = self
                    .beyond
                    .get(&(i, j))
                    .filter(|k| k.band == (near, within) && moved_at_most(&k.relative, &r.relative, a.sphere) <= skin);
                let (owners, keep) = match kept {
                    Some(k) => (k.owners.clone(), false),
                    None => ((0..vertex_owner_count(&a.collider, &b.collider) as u32).collect(), true),
                };
                BeyondReading { owners, next: 0, near: Vec::new(), keep, per_owner: 0.0 }
            });
            while beyond.next < beyond.owners.len() {
                let (least, most) = BEYOND_PIECE_OWNERS;
                let owners = match beyond.per_owner {
                    0.0 => least,
                    per_owner => ((BEYOND_PIECE_TESTS / per_owner) as usize).clamp(least, most),
                };
                let end = beyond.next.saturating_add(piece(owners)).min(beyond.owners.len());
                let found =
                    vertex_readings(&a.collider, &a.pose, &b.collider, &b.pose, band, &beyond.owners[beyond.next..end]);
                report.counters += found.counters;
                beyond.per_owner = (found.counters.bv_tests as f64 / (end - beyond.next) as f64).max(1.0);
                contacts.extend(
                    found.value.readings.iter().map(|p| self.as_read(ContactPoint::from_pair(i, j, p), seated)),
                );
                beyond.near.extend(found.value.near);
                beyond.next = end;
                if beyond.next == beyond.owners.len() && beyond.keep {
                    let owners = std::mem::take(&mut beyond.near);
                    self.beyond.insert((i, j), NearOwners { owners, relative: r.relative, band: (near, within) });
                }
                if spent(report) {
                    *reading = Some(r);
                    return None;
                }
            }
        }
        if seated {
            self.seat(i, j, contacts, r.first);
        }
        Some(r.first)
    }

    /// A contact as its pair's reading keeps it: a free pair's with its touching normal
    /// (`free_contact`); a seated pair's as read, signed with the rest of the pair (`seat`).
    fn as_read(&self, c: ContactPoint, seated: bool) -> ContactPoint {
        if seated { c } else { self.free_contact(c) }
    }

    /// Features nearer than this touch (docs/contact-from-start.md §3, docs/solver.md §2).
    fn touching(&self) -> f64 {
        1e-3 * self.settings.repositioning
    }

    /// A contact of a free pair as a row takes it: touching, its normal from the features'
    /// shape, where the sides say which way is out: two solids (an open sheet can be met from
    /// behind its faces' normals; docs/solver.md §2).
    fn free_contact(&self, c: ContactPoint) -> ContactPoint {
        let (a, b) = (&self.bodies[c.body_i], &self.bodies[c.body_j]);
        if c.distance >= self.touching() || !(a.solid() && b.solid()) {
            return c;
        }
        c.with_shape_normal((&a.sides(), &a.pose), (&b.sides(), &b.pose), self.touching())
    }

    /// Signs and turns outward the contacts of bodies i and j from `first` on, as those of a
    /// pair in contact from the start, and drops those at edges inside flat polygons.
    fn seat(&self, i: BodyId, j: BodyId, contacts: &mut Vec<ContactPoint>, first: usize) {
        let touching = self.touching();
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let (sa, sb) = (a.sides(), b.sides());
        // Edges inside flat polygons are no edges of the solids (docs/contact-from-start.md §3),
        // nor is an edge all but flat where it does not cross the other as two convex wedges:
        // its side read at one point says nothing of the depth there.
        let flat = |c: &ContactPoint| match c.kind {
            ContactKind::EdgeEdge => {
                sa.is_flat(c.feature_i)
                    || sb.is_flat(c.feature_j)
                    || ((sa.is_nearly_flat(c.feature_i, NEARLY_FLAT) || sb.is_nearly_flat(c.feature_j, NEARLY_FLAT))
                        && crossing_normal((&sa, &a.pose, c.feature_i), (&sb, &b.pose, c.feature_j)).is_none())
            }
            ContactKind::VertexEdge => sb.is_flat(c.feature_j),
            ContactKind::EdgeVertex => sa.is_flat(c.feature_i),
            _ => false,
        };
        let mut k = first;
        while k < contacts.len() {
            if flat(&contacts[k]) {
                contacts.swap_remove(k);
            } else {
                k += 1;
            }
        }
        // Signed after the drop, not before: a dropped contact need not be signed (a base
        // plate's classification, some 48,000 contacts, is one frame's work).
        for c in &mut contacts[first..] {
            *c = c.seated((&sa, &a.pose), (&sb, &b.pose), touching);
        }
        // A side read by a pseudonormal holds at the feature's nearest point only: a farther
        // reading of the same feature (an edge or a vertex whose nearest point on it is not
        // the feature's nearest on the surface) can read the other side. Each feature's
        // readings take the side of its nearest (docs/contact-from-start.md §3).
        let band = self.settings.breaking;
        let sides = nearest(&contacts[first..], band);
        for c in &mut contacts[first..] {
            if !reads_depth(c, band) || c.separation == 0.0 {
                continue;
            }
            if let Some(&(_, s, _)) = sides.get(&inside_feature(c))
                && s != 0.0
                && (s < 0.0) != (c.separation < 0.0)
            {
                c.separation = -c.separation;
                c.normal = -c.normal;
            }
        }
    }

    /// Whether a pair in contact from the start among `moved`'s got deeper than it may
    /// (docs/contact-from-start.md §3, "A second opinion"): a feature reads deeper than the
    /// pair's start plus half the interference tolerance, unless its point, measured against
    /// the other part's whole surface, was deeper than that before the move (than the pair's
    /// radius, for an edge/edge reading) and is no deeper after it (the bodies were at
    /// `previous` before; bodies not in it did not move). Without the measurement (an open or
    /// inconsistently wound part, or past `SECOND_OPINION_WORK`), the reading decides.
    fn too_deep(&self, moved: &[BodyId], previous: &[(BodyId, Pose)], report: &mut StepReport) -> bool {
        let tolerance = 0.25 * self.settings.repositioning;
        let mut pairs: Vec<(BodyId, BodyId)> = self
            .contacts
            .iter()
            .filter(|c| c.seated && (moved.contains(&c.body_i) || moved.contains(&c.body_j)))
            .map(|c| (c.body_i, c.body_j))
            .collect();
        pairs.dedup();
        let before = |b: BodyId| previous.iter().find(|&&(x, _)| x == b).map_or(self.bodies[b].pose, |&(_, p)| p);
        let mut work = 0;
        for (i, j) in pairs {
            let class = self.class(i, j);
            let allowed = class.map_or(0.0, |c| c.depth) + tolerance;
            let radius = class.map_or(self.settings.breaking, |c| c.radius);
            let of_pair: Vec<ContactPoint> =
                self.contacts.iter().filter(|c| (c.body_i, c.body_j) == (i, j)).copied().collect();
            for (feature, (_, s, k)) in nearest(&of_pair, self.settings.breaking) {
                if -s <= allowed {
                    continue;
                }
                // A vertex reading is about that vertex; an edge/edge one about i's edge point,
                // whose side against j its sign gives.
                let c = &of_pair[k];
                // Two convex wedges that cross, moved against each other without a turn, are
                // read the same way at the poses before the move: their whole local overlap
                // is then a function of the lines' distance alone, so a crossing that was
                // deeper than allowed then (out of sight at the start, or let through before)
                // may stay as deep or come up (docs/contact-from-start.md §3, "A second
                // opinion"). A turn changes how deep the same distance is, so it decides alone.
                if feature.2 == 2 {
                    let (a, b) = (&self.bodies[i], &self.bodies[j]);
                    let relative = |pi: Pose, pj: Pose| pj.rotation.inverse() * pi.rotation;
                    let turned = relative(a.pose, b.pose).angle_between(relative(before(i), before(j)));
                    let (sa, sb) = (a.sides(), b.sides());
                    let crossing =
                        |pi: &Pose, pj: &Pose| crossing_separation((&sa, pi, c.feature_i), (&sb, pj, c.feature_j));
                    if turned <= 1e-9
                        && let (Some(then), Some(now)) = (crossing(&before(i), &before(j)), crossing(&a.pose, &b.pose))
                        && -then > allowed
                        && now >= then
                    {
                        continue;
                    }
                }
                let (holder, other, point) = match feature.2 {
                    1 => (j, i, c.point_j),
                    _ => (i, j, c.point_i),
                };
                let o = &self.bodies[other];
                work += 2 * o.collider.mesh().triangles().len();
                let came_up = work <= SECOND_OPINION_WORK && {
                    let local = self.bodies[holder].pose.inverse().transform_point(point);
                    let at = |h: Pose, o: Pose| o.inverse().transform_point(h.transform_point(local));
                    let sides = o.sides();
                    let then = sides.depth_inside(at(before(holder), before(other)));
                    let now = sides.depth_inside(at(self.bodies[holder].pose, o.pose));
                    // Measured, no deeper now than before the move, and then already deeper
                    // than the reading may be: a vertex only gets there out of sight of every
                    // reading, or by an earlier move this let through, and its reading is its
                    // depth (§2). An edge/edge reading's point is one point of an edge, and the
                    // closest points slide along it: only one out of sight before, deeper than
                    // the pair's radius, is let through. Otherwise the reading decides.
                    let floor = if feature.2 == 2 { radius } else { allowed };
                    matches!((then, now), (Some(then), Some(now)) if then > floor && now <= then)
                };
                if !came_up {
                    report.deepening_undone += 1;
                    return true;
                }
            }
        }
        false
    }

    /// The right-hand side of a contact's row (docs/solver.md §2; docs/contact-from-start.md
    /// §3): keep εs, or for a pair in contact from the start never go deeper than its floor;
    /// for an edge/edge contact, never deeper than εb/2 either: past εb its reading is gone.
    fn bound(&self, c: &ContactPoint) -> f64 {
        if c.seated {
            let mut depth = self.class(c.body_i, c.body_j).map_or(0.0, |p| p.depth);
            if c.kind == ContactKind::EdgeEdge {
                depth = depth.min(0.5 * self.settings.breaking);
            }
            (-depth - c.separation).min(0.0)
        } else {
            self.settings.security - c.distance
        }
    }

    /// The smallest distance of an ordinary contact: what repositioning acts on.
    fn min_ordinary_distance(&self) -> Option<f64> {
        self.contacts.iter().filter(|c| !c.seated).map(|c| c.distance).min_by(f64::total_cmp)
    }

    /// The bodies a drag of `id` moves: `id`, and with `push_others` every movable body in
    /// contact with one of them (docs/contact-from-start.md §7), with the contact set about
    /// them. Without `push_others` the contact set must be about `id` already.
    fn movers(&mut self, id: BodyId, report: &mut StepReport) -> Vec<BodyId> {
        let mut movers = vec![id];
        if !self.settings.push_others {
            return movers;
        }
        loop {
            self.refresh_timed(&movers, report);
            let mut more: Vec<BodyId> = self
                .contacts
                .iter()
                .flat_map(|c| [c.body_i, c.body_j])
                .filter(|&b| !self.bodies[b].fixed && !movers.contains(&b))
                .collect();
            if more.is_empty() {
                return movers;
            }
            more.sort_unstable();
            more.dedup();
            movers.extend(more);
        }
    }

    /// Moves `body` toward `target`: it stops at contact and slides, never interpenetrating a
    /// part it was not in contact with, and never going deeper into one it was
    /// (docs/solver.md §4, docs/contact-from-start.md). Only `body` moves, unless the settings
    /// push other movable bodies.
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
        let began = Instant::now();
        let s = self.settings;
        self.budget = (s.time_budget.is_some() || s.work_budget.is_some()).then(|| DragBudget {
            body: id,
            began,
            deadline: s.time_budget.map(|b| began + b),
            box_tests: s.work_budget,
        });
        self.last_cycle = Duration::ZERO;
        // A sub-step suspended in another body's drag is not this drag's.
        if self.suspended.as_ref().is_some_and(|st| st.body != id) {
            self.suspended = None;
        }
        if self.planning.as_ref().is_some_and(|(body, _)| *body != id) {
            self.planning = None;
        }
        // The last drag of this body (or its placement) left its contacts current; otherwise
        // they are rebuilt, over as many drags as the budget needs (§4).
        // So are they when this body's sub-step waits for the refresh at its poses: the
        // contacts are those it was planned with, near-contact hints included (a wait puts the
        // bodies and the contacts back), and anything that changed them dropped the sub-step.
        let held = self.suspended.as_ref().is_some_and(|st| st.body == id && st.hold);
        let current = self.focus == [id] && (self.fresh || held);
        let spread = self.rebuilding(&[id], false);
        let ready = current || {
            let clock = Instant::now();
            let done = self.refresh_part(&[id], self.budget, false, &mut report).is_some();
            report.proximity_time += clock.elapsed();
            done
        };
        // A rebuild spread over drags that ends after half this one's budget leaves the
        // sub-steps to the next drag, which starts with the contacts current (a base plate's
        // 47,733 contacts: about 7 ms more for the checks that open a drag and for this
        // report's depths). A rebuild done within one drag (car_door's, after a blocked
        // sub-step) goes on to the sub-steps: waiting there raised the median frame.
        let late = spread && self.budget.is_some_and(|b| b.half_spent(report.counters.bv_tests));
        let movers = if ready && late {
            report.out_of_time = true;
            vec![id]
        } else if ready {
            self.drag_steps(id, target, &mut report)
        } else {
            report.out_of_time = true;
            report.rebuilding_contacts = true;
            vec![id]
        };
        let b = &self.bodies[id];
        report.pose = b.pose;
        report.reached = self.still(&b.displacement_to(&target));
        report.contacts = self.contacts.len();
        report.min_distance = self.contacts.iter().map(|c| c.distance).min_by(f64::total_cmp);
        report.movers = movers.clone();
        // The seated pairs and their depth: kept while nothing changed since the last drag
        // (a held part whose solve goes on over drags, docs/solver.md §4).
        let (seated, max_depth) = match self.kept_depths.take() {
            Some((changes, kept_movers, seated, depth)) if changes == self.changes && kept_movers == movers => {
                (seated, depth)
            }
            _ => self.seated_depths(&movers),
        };
        report.max_depth = max_depth;
        report.seated_pairs = seated.clone();
        self.kept_depths = Some((self.changes, movers, seated, max_depth));
        report.suspended = self.suspended.is_some();
        report.planning = self.planning.is_some();
        self.budget = None;
        Ok(report)
    }

    /// The contacts in runs of one pair. A rebuild appends them pair by pair, so most pairs
    /// are one run; a pair may still be split over several.
    fn pair_runs(&self) -> impl Iterator<Item = &[ContactPoint]> {
        self.contacts.chunk_by(|a, b| (a.body_i, a.body_j) == (b.body_i, b.body_j))
    }

    /// The pairs in contact from the start among the contacts and of the movers, and the
    /// deepest of their interference (the step report's).
    fn seated_depths(&self, movers: &[BodyId]) -> (Vec<(BodyId, BodyId)>, f64) {
        // One pass over the contacts (a base plate has tens of thousands, with hundreds of
        // seated pairs), in runs of one pair: a rebuild appends them pair by pair, so most
        // pairs are one run, read where it lies.
        let runs: Vec<&[ContactPoint]> = self.pair_runs().collect();
        let mut seated: Vec<(BodyId, BodyId)> =
            runs.iter().filter(|run| run.iter().any(|c| c.seated)).map(|run| (run[0].body_i, run[0].body_j)).collect();
        seated.extend(self.seated_pairs().into_iter().filter(|&(i, j)| movers.contains(&i) || movers.contains(&j)));
        seated.sort_unstable();
        seated.dedup();
        let mut by_pair: HashMap<(BodyId, BodyId), Vec<&[ContactPoint]>> = HashMap::new();
        for run in runs {
            if seated.binary_search(&(run[0].body_i, run[0].body_j)).is_ok() {
                by_pair.entry((run[0].body_i, run[0].body_j)).or_default().push(run);
            }
        }
        let eb = self.settings.breaking;
        let depth = by_pair
            .values()
            .map(|runs| match runs[..] {
                [one] => penetration(one, eb),
                _ => penetration(&runs.concat(), eb),
            })
            .fold(0.0, f64::max);
        (seated, depth)
    }

    /// The sub-steps of a drag whose contacts are current: toward `target` until it is
    /// reached, held, or out of budget; the bodies that moved.
    fn drag_steps(&mut self, id: BodyId, target: Pose, report: &mut StepReport) -> Vec<BodyId> {
        let s = self.settings;
        // A trust region on the unconstrained motion: the constraints are linear in the
        // displacement, the screw is not; a sub-step that gets nowhere because of that retries
        // with a shorter one (docs/solver.md §4). With a suspended sub-step, its trust region
        // and its place in the chain of sub-steps go on: each drag may get only that one
        // sub-step, and starting over each time would never shrink the region nor end a
        // chain that cannot reach its target (`max_substeps` counts the whole chain).
        // Without one, a drag that ran out of time toward the same target goes on with its
        // chain (the app calls again with the same target until the part gets there): a chain
        // that cannot reach its target ends after `max_substeps` even when fewer fit in a frame.
        let carried = self.chain_carry.take().filter(|&(b, t, _)| b == id && t == target).map_or(0, |(_, _, c)| c);
        let (mut reach, mut chain) = self.under_way().map_or((1.0, carried), |(reach, chain, _)| (reach, chain));
        let budget = self.budget;
        // Not before the drag's first sub-step or cycle: each of those does at least some of
        // its work however little budget is left (its queries and screens stop after a
        // piece), so a drag whose opening checks take the whole budget still gets somewhere,
        // where it would otherwise ask for frames forever (a plate sliding on another under a
        // tiny budget, `glide_screens_cut_by_the_budget_go_on_in_the_next_drag`).
        let spent = |report: &StepReport| {
            report.substeps + report.repositioning > 0 && budget.is_some_and(|b| b.spent(report.counters.bv_tests))
        };
        if self.release_separated(&[id]) {
            // Their contacts are ordinary ones now; a sub-step planned with the pair seated is
            // not taken up.
            self.suspended = None;
            self.planning = None;
            self.refresh_timed(&[id], report);
        }
        let mut movers = self.movers(id, report);
        loop {
            // A suspended or half-planned repositioning cycle goes on as one
            // (`reposition_once` runs none while a sub-step is under way).
            if self.under_way().is_some_and(|(_, _, repositioning)| repositioning) {
                if spent(report) {
                    report.out_of_time = true;
                    break;
                }
                report.repositioning += 1;
                self.substep(&movers, None, (1.0, 0), report);
                movers = self.movers(id, report);
                continue;
            }
            if self.reposition_once(&movers, report) {
                movers = self.movers(id, report);
                continue;
            }
            let full = self.bodies[id].displacement_to(&target);
            if self.still(&full) {
                // Back where the body is: a suspended move toward an older target is not wanted.
                self.suspended = None;
                self.planning = None;
                break;
            }
            let d0 = Displacement { translation: full.translation * reach, rotation: full.rotation * reach };
            // A sub-step under way already has its place in the chain.
            if self.under_way().is_none() && chain >= s.max_substeps {
                report.budget_exhausted = true;
                break;
            }
            if spent(report) {
                report.out_of_time = true;
                break;
            }
            report.substeps += 1;
            // A sub-step under way was planned toward the target of an earlier drag: its
            // whole move does not end this one (the loop plans on toward `target`).
            let resumed = self.under_way().is_some();
            if !resumed {
                chain += 1;
            }
            let began = Instant::now();
            let moved = self.substep(&movers, Some((id, d0)), (reach, chain), report);
            self.last_cycle = began.elapsed();
            movers = self.movers(id, report);
            match moved {
                // The whole move toward the target, solved from here: done, unless the rows
                // turned it (the rest may be reachable from where it got: solve again) or a
                // closed gap reads differently now.
                Moved::Full { closed_gap, constrained } if reach == 1.0 && !resumed => {
                    if !closed_gap && !constrained {
                        break;
                    }
                }
                Moved::Idle => break,
                Moved::Full { .. } => reach = (2.0 * reach).min(1.0),
                Moved::Shortened | Moved::Stretch => {}
                Moved::OutOfTime => break,
                Moved::Blocked { time, linearisation } => {
                    report.blocked_substeps += 1;
                    if time == 0.0 {
                        reach *= 0.25;
                    } else if linearisation && time < 0.5 {
                        reach *= 0.5;
                    }
                }
            }
            // The glide screen is not suspendable, and the next sub-step screens the same
            // pairs over about as long a stretch: it costs about what this one did, and one
            // that would end past the deadline waits for the next drag (§4).
            if self.next_glide_cycle_is_late() {
                report.out_of_time = true;
                break;
            }
        }
        // The last move may have left a contact below εr (the solve is linearised).
        while self.reposition_once(&movers, report) {}
        self.chain_carry = report.out_of_time.then_some((id, target, chain));
        movers
    }

    /// One repositioning cycle (eq. 9) if an ordinary contact is nearer than εr and the
    /// budget allows. Not while a sub-step is suspended: it was planned where the bodies are,
    /// so it goes first.
    /// With the glide screen, a cycle that would end past the deadline (a drag's first
    /// always runs) waits for the next drag, which reports `out_of_time` (§4).
    fn reposition_once(&mut self, movers: &[BodyId], report: &mut StepReport) -> bool {
        let s = self.settings;
        if self.under_way().is_none()
            && self.min_ordinary_distance().is_some_and(|d| d < s.repositioning)
            && report.repositioning < s.max_repositioning
        {
            if self.next_glide_cycle_is_late() {
                report.out_of_time = true;
                return false;
            }
            let began = Instant::now();
            report.repositioning += 1;
            self.substep(movers, None, (1.0, 0), report);
            self.last_cycle = began.elapsed();
            return true;
        }
        false
    }

    /// Under a time budget with the glide narrow phase: whether another sub-step or
    /// repositioning cycle, costing what the drag's last one did, would end past the deadline.
    /// False before the drag's first (its `last_cycle` is zero), so a drag always gets one.
    fn next_glide_cycle_is_late(&self) -> bool {
        self.settings.narrow_phase == NarrowPhase::Glide
            && !self.last_cycle.is_zero()
            && self.budget.and_then(|b| b.deadline).is_some_and(|d| Instant::now() + self.last_cycle > d)
    }

    /// One solve and CCD-checked move of `movers`: toward `drag`'s displacement, or (None) a
    /// repositioning move with zero unconstrained motion. A sub-step suspended by an earlier
    /// drag of this body goes first (docs/solver.md §4).
    /// `(reach, chain)`: the trust region the drag's displacement was scaled by, and the
    /// sub-step's place in the drag's chain (kept with a suspended sub-step, so that the next
    /// drag goes on from them).
    fn substep(
        &mut self,
        movers: &[BodyId],
        drag: Option<(BodyId, Displacement)>,
        (reach, chain): (f64, u32),
        report: &mut StepReport,
    ) -> Moved {
        if let Some(step) = self.suspended.take() {
            return self.check_and_move(step.plan, Some((step.queries, step.hold, step.screens)), report);
        }
        // A plan the last drag's deadline cut short goes on, unless something changed since
        // it began (docs/solver.md §4, "A solve spread over drags").
        let planning = match self.planning.take() {
            Some((_, planning)) if planning.space.changes == self.changes => planning,
            _ => self.begin_plan(movers, drag, (reach, chain)),
        };
        match self.plan(planning, report) {
            Ok(plan) => self.check_and_move(plan, None, report),
            Err(planning) => {
                // Only a deadline stops a plan, so the drag has a budget.
                self.planning = self.budget.map(|b| (b.body, planning));
                report.out_of_time = true;
                Moved::OutOfTime
            }
        }
    }

    /// The sub-step under way across drags (suspended in its queries, or its solve cut
    /// short): its trust region, its place in the drag's chain, and whether it is a
    /// repositioning cycle.
    fn under_way(&self) -> Option<(f64, u32, bool)> {
        let suspended = self.suspended.as_ref().map(|st| (st.plan.reach, st.plan.chain, st.plan.repositioning));
        suspended
            .or_else(|| self.planning.as_ref().map(|(_, p)| (p.space.reach, p.space.chain, p.space.drag.is_none())))
    }

    /// A sub-step's solve begun: its motion space (the movers), the unconstrained motion,
    /// which contacts read alike, and the contacts sorted for `rows`.
    fn begin_plan(
        &mut self,
        movers: &[BodyId],
        drag: Option<(BodyId, Displacement)>,
        (reach, chain): (f64, u32),
    ) -> Box<Planning> {
        let mut slot = vec![None; self.bodies.len()];
        let mut frames = Vec::new();
        let mut in_space = Vec::new();
        for &b in movers {
            if let Some(f) = self.bodies[b].frame() {
                slot[b] = Some(frames.len());
                frames.push(f);
                in_space.push(b);
            }
        }
        let mut d0 = vec![Displacement::default(); frames.len()];
        if let Some((id, d)) = drag
            && let Some(k) = slot[id]
        {
            d0[k] = d;
        }
        // Which contacts read alike: kept from the last plan while nothing they depend on
        // changed (a part held where it is plans with the same contacts drag after drag), or
        // found by the plan's first pieces.
        let (readings, stage) = match self.kept_readings.take() {
            Some((changes, kept_slot, readings)) if changes == self.changes && kept_slot == slot => {
                // Kept ids are the ones the contacts give now: checked in every debug build's
                // drags (the tests').
                debug_assert_eq!(readings.id, self.readings(&slot).id, "kept reading ids are stale");
                (readings, Stage::Begun)
            }
            _ => (Readings::default(), Stage::Keying(Keying::default())),
        };
        let space = Space {
            changes: self.changes,
            movers: movers.to_vec(),
            drag,
            reach,
            chain,
            slot,
            frames,
            in_space,
            d0,
            readings,
        };
        Box::new(Planning { space, stage })
    }

    /// The solve of a sub-step, on from where `planning` got: the movers' motions, shortened
    /// as [`World::turn_limit`] says, and the pairs to check; or, when the drag's deadline
    /// came first, the plan so far, for the next drag (docs/solver.md §4, "A solve spread
    /// over drags").
    fn plan(&mut self, planning: Box<Planning>, report: &mut StepReport) -> Result<Planned, Box<Planning>> {
        let clock = Instant::now();
        let mut pace = Pace::new(self.budget.and_then(|b| b.deadline));
        let Planning { mut space, stage } = *planning;
        let mut rates = self.plan_rates;
        let solved = self.advance_plan(&mut space, stage, &mut pace, &mut rates);
        self.plan_rates = rates;
        report.solver_time += clock.elapsed();
        match solved {
            Ok(solved) => Ok(self.planned(space, solved, report)),
            Err(stage) => Err(Box::new(Planning { space, stage: *stage })),
        }
    }

    /// A plan's readings and solves, a piece at a time until `pace` says the time is up
    /// (`Err`: how far it got) or the last solve is made.
    fn advance_plan(
        &self,
        space: &mut Space,
        mut stage: Stage,
        pace: &mut Pace,
        rates: &mut PlanRates,
    ) -> Result<Solved, Box<Stage>> {
        let s = self.settings;
        let Space { slot, frames, d0, readings, .. } = space;
        let (slot, frames, d0) = (&*slot, &*frames, &*d0);
        // How the unconstrained motion would change a contact's distance (ties between rows).
        let wanted = |c: &ContactPoint| c.normal.dot(relative_motion(c, slot, frames, d0));
        // How the unconstrained motion moves i's point of a contact relative to j's.
        let relative = |c: &ContactPoint| relative_motion(c, slot, frames, d0);
        // Whether the unconstrained motion, slid along the planes of the rows `along` (their
        // normals), takes a touching feature into the other part at `c`'s place; if so, the
        // normal of the surface nearest that motion there (§3: rows are added until the
        // motion, slid along them, presses in nowhere).
        // `Some(None)`: pressed in at a face's inside, the contact's own normal its row's.
        let presses = |c: &ContactPoint, along: &[DVec3]| {
            let unconstrained = relative(c);
            let mut w = unconstrained;
            if !along.is_empty() {
                // The nearest motion that no row of `along` forbids: w less its projection on
                // the polar cone, which the rows' inward normals generate.
                let inward: Vec<f64> = along.iter().flat_map(|n| (-*n).to_array()).collect();
                if let Ok(p) = mockup_cone::project(&inward, 3, &w.to_array(), Metric::Identity, &Default::default()) {
                    w -= DVec3::from_slice(&p.point);
                }
                // The rows stop it: what is left is rounding, in no direction.
                if w.length() <= 1e-9 * unconstrained.length() {
                    return None;
                }
            }
            match self.touching_side(c, w) {
                (Side::Inside, normal) => Some(self.own_edges_enter(c, w).or(normal)),
                _ => None,
            }
        };
        let tie = 0.25 * s.repositioning;
        loop {
            stage = match stage {
                Stage::Keying(mut keying) => {
                    if !self.key_readings(slot, readings, &mut keying, pace) {
                        return Err(Box::new(Stage::Keying(keying)));
                    }
                    Stage::Begun
                }
                Stage::Begun => {
                    if pace.late(rates.sort, self.contacts.len()) {
                        return Err(Box::new(Stage::Begun));
                    }
                    let began = Instant::now();
                    let choice = RowChoice::new(&self.contacts, tie, s.breaking, readings);
                    pace.did(&mut rates.sort, self.contacts.len(), began);
                    Stage::Rows(choice)
                }
                Stage::Rows(mut choice) => {
                    if !choice.advance(&self.contacts, readings, wanted, presses, pace)
                        || pace.late(rates.finish, self.contacts.len())
                    {
                        return Err(Box::new(Stage::Rows(choice)));
                    }
                    let began = Instant::now();
                    let Chosen { rows: chosen, tied: spare, beyond } = choice.finish();
                    // Each contact's candidate rows (to add a touching contact's row only once
                    // a normal): looked up per contact, not by a scan of every row, which made
                    // a base plate's 51,000 contacts cost 0.2–1.5 s a solve.
                    let mut rows_of = RowsOf::new(self.contacts.len());
                    for (r, &(k, _)) in chosen.iter().enumerate() {
                        rows_of.push(k, r);
                    }
                    let candidates: Vec<ContactPoint> = chosen
                        .iter()
                        // A pressed-in touching row: the normal `rows` chose for it.
                        .map(|&(k, normal)| ContactPoint {
                            normal: normal.unwrap_or(self.contacts[k].normal),
                            ..self.contacts[k]
                        })
                        .collect();
                    // A touching row at an edge or corner of the other part that the motion
                    // does not press into holds with the surface nearest the motion there
                    // (§3): its normal, not the normal of whichever face the contact was read
                    // against. Each is read apart from the others (hundreds when a part is
                    // pulled out of its holes), so on two threads, once per reading.
                    let touching: Vec<usize> = (0..chosen.len())
                        .filter(|&r| chosen[r].1.is_none() && candidates[r].seated && candidates[r].separation == 0.0)
                        .collect();
                    let touching_contacts: Vec<usize> = touching.iter().map(|&r| chosen[r].0).collect();
                    let normals = readings.batch(&touching_contacts);
                    pace.did(&mut rates.finish, self.contacts.len(), began);
                    Stage::Normals(Normals { candidates, rows_of, touching, normals, spare, beyond })
                }
                Stage::Normals(mut n) => {
                    let done = n.normals.advance(
                        64,
                        |k| {
                            // The row is the contact itself (its own normal): the contact's
                            // reading is the row's.
                            let c = &self.contacts[k];
                            let w = relative(c);
                            match self.touching_side(c, w) {
                                // Unless the vertex's own edges would go in past the place (§3,
                                // "A vertex's own edges"): then the face there the motion goes
                                // into.
                                (side, Some(n)) if side != Side::Inside => {
                                    Some(self.own_edges_enter(c, w).unwrap_or(n))
                                }
                                _ => None,
                            }
                        },
                        pace,
                    );
                    if !done {
                        return Err(Box::new(Stage::Normals(n)));
                    }
                    let Normals { mut candidates, mut rows_of, touching, normals, spare, beyond } = n;
                    for (r, normal) in touching.into_iter().zip(normals.answers()) {
                        if let Some(normal) = normal {
                            candidates[r].normal = normal;
                        }
                    }
                    for k in beyond {
                        // Another place's planes only where the feature is in front of them:
                        // outside that place's faces, it must stay outside; behind them, the
                        // place is not where its depth is read, and the planes run on past the
                        // place's faces.
                        let mut reflex = self.reflex_rows(&self.contacts[k]);
                        reflex.retain(|r| r.separation >= -tie);
                        for row in candidates.len()..candidates.len() + reflex.len() {
                            rows_of.push(k, row);
                        }
                        candidates.extend(reflex);
                    }
                    Stage::Rounds(Rounds {
                        candidates,
                        rows_of,
                        spare,
                        round: 0,
                        solved: None,
                        added: 0,
                        before: 0,
                        add_rate: Rate::default(),
                    })
                }
                Stage::Rounds(mut r) => {
                    let Some((solved, pressed)) = r.solved.as_mut() else {
                        if pace.late(rates.solve, r.candidates.len()) {
                            return Err(Box::new(Stage::Rounds(r)));
                        }
                        let began = Instant::now();
                        let bounds: Vec<f64> = r.candidates.iter().map(|c| self.bound(c)).collect();
                        let kept = patch::corners(&r.candidates, &bounds, 1e-9 * s.security);
                        let rows = kept.iter().map(|&k| r.candidates[k]).collect::<Vec<ContactPoint>>();
                        let row_bounds = kept.iter().map(|&k| bounds[k]).collect::<Vec<f64>>();
                        let solution = gauss::solve(frames, slot, &rows, &row_bounds, d0);
                        pace.did(&mut rates.solve, r.candidates.len(), began);
                        let solved = Solved { rows, row_bounds, solution };
                        // A touching feature's rows were chosen by the unconstrained motion;
                        // the solve's answer may still press it in where it touches but has no
                        // row (an inner corner held by the edge's row alone, the answer going
                        // into one face): those places become rows too, and the solve is done
                        // again (docs/contact-from-start.md §3, "Touching rows after the
                        // solve"), at most four times.
                        if r.round == 4 {
                            return Ok(solved);
                        }
                        r.round += 1;
                        r.solved = Some((solved, readings.batch(&r.spare)));
                        (r.added, r.before) = (0, r.candidates.len());
                        stage = Stage::Rounds(r);
                        continue;
                    };
                    // Each spare contact's side is read apart from the others (50,000 for a
                    // base plate held by its screws, 8,000 readings), so on two threads, once
                    // per reading; the rows are added in order.
                    let displacements = &solved.solution.displacements;
                    let done = pressed.advance(
                        256,
                        |k| {
                            let c = &self.contacts[k];
                            let w = relative_motion(c, slot, frames, displacements);
                            match self.touching_side(c, w) {
                                (Side::Inside, n) => Some(n),
                                _ => None,
                            }
                        },
                        pace,
                    );
                    if !done {
                        return Err(Box::new(Stage::Rounds(r)));
                    }
                    // The pressed-in spare contacts become rows, in order, a piece at a time.
                    while r.added < r.spare.len() {
                        let size = pace.piece(r.add_rate, r.spare.len() - r.added, ADD_PIECE);
                        if size == 0 {
                            return Err(Box::new(Stage::Rounds(r)));
                        }
                        let began = Instant::now();
                        for item in r.added..r.added + size {
                            let k = r.spare[item];
                            let Some(n) = *pressed.answer(item) else { continue };
                            let n = n.unwrap_or(self.contacts[k].normal);
                            let known = r.rows_of.of(k).any(|row| r.candidates[row].normal.dot(n) > 1.0 - 1e-9);
                            if !known {
                                r.rows_of.push(k, r.candidates.len());
                                r.candidates.push(ContactPoint { normal: n, ..self.contacts[k] });
                            }
                        }
                        r.added += size;
                        pace.did(&mut r.add_rate, size, began);
                    }
                    let Some((solved, _)) = r.solved.take() else { return Err(Box::new(Stage::Rounds(r))) };
                    if r.candidates.len() == r.before {
                        return Ok(solved);
                    }
                    Stage::Rounds(r)
                }
            };
        }
    }

    /// A finished plan's move: its last solve taken up to a plausible size and the turn
    /// limit, the movers' screws, and the pairs to check.
    fn planned(&mut self, space: Space, solved: Solved, report: &mut StepReport) -> Planned {
        let s = self.settings;
        let Space { movers, drag, reach, chain, slot, frames, in_space, readings, .. } = space;
        let Solved { rows, row_bounds, mut solution } = solved;
        report.rows += self.contacts.len() as u64;
        report.rows_kept += rows.len() as u64;
        // A solve's answer that moves farther than a projection can (rounding gone wrong in a
        // degenerate dual, or a push beyond 4 εb) is taken only up to that size: the CCD's
        // contact time is exact to a part of the motion's length, so the motion must stay
        // short (docs/solver.md §3, "An answer no projection gives").
        let d0 = &space.d0;
        let share = gauss::plausible_share(&frames, &solution.displacements, d0, 4.0 * s.breaking);
        if share < 1.0 {
            solution.displacements.iter_mut().for_each(|d| *d = d.scaled(share));
            solution.converged = false;
        }
        report.solver_iterations += solution.iterations as u64;
        if !solution.converged {
            report.unconverged_solves += 1;
        }
        let closed_gap = rows.iter().zip(&row_bounds).any(|(c, &bound)| {
            let change = c.normal.dot(relative_motion(c, &slot, &frames, &solution.displacements));
            c.seated && c.separation > 0.0 && bound < 0.0 && change - bound <= 1e-7 * s.security
        });
        let scale = self.turn_limit(&in_space, &solution.displacements);
        let dragged = drag.and_then(|(id, d)| Some((id, slot[id]?, d)));
        // Turned by the rows, and still a move of more than εs (the solve's answer at the
        // target's projection on what holds the part is rounding, not a move to go on from).
        let constrained = dragged.is_some_and(|(id, k, d)| {
            let solved = &solution.displacements[k];
            let size = solved.translation.length() + solved.rotation.length() * self.bodies[id].sphere.1;
            size > s.security
                && !self.still(&Displacement {
                    translation: solved.translation - d.translation,
                    rotation: solved.rotation - d.rotation,
                })
        });
        // A drag's solve that moves nothing (pressed straight into a wall, or at the target's
        // projection on what holds it) is no sub-step: nothing to check, nothing to refresh.
        let idle = dragged.is_some() && solution.displacements.iter().all(|d| self.still(&d.scaled(scale)));
        // Motions along Redon's screws.
        let mut motions: HashMap<BodyId, Motion> = HashMap::new();
        let mut moving = Vec::new();
        for (k, &b) in in_space.iter().enumerate() {
            let d = &solution.displacements[k].scaled(scale);
            if !idle && (d.translation != DVec3::ZERO || d.rotation != DVec3::ZERO) {
                let end = self.bodies[b].displaced(d);
                motions.insert(b, Motion::new(self.bodies[b].pose, end));
                moving.push(b);
            }
        }
        // Pairs whose boxes meet over the move.
        let mut pairs: Vec<(BodyId, BodyId)> = Vec::new();
        for &m in &moving {
            let body = &self.bodies[m];
            let mo = motions[&m];
            let swept = Aabb::swept(&body.collider, &mo);
            pairs.extend(self.near(m, &swept, 0.0).into_iter().map(|o| ordered(m, o)));
        }
        pairs.sort_unstable();
        pairs.dedup();
        for &(i, j) in &pairs {
            for b in [i, j] {
                motions.entry(b).or_insert_with(|| Motion::stationary(self.bodies[b].pose));
            }
        }
        let seated: Vec<bool> = pairs.iter().map(|&(i, j)| self.seated(i, j)).collect();
        let options = pairs
            .iter()
            .zip(&seated)
            .map(|(&(i, j), &seated)| QueryOptions {
                in_contact: seated.then(|| InContact {
                    // εb, not the pair's radius: a feature pair between the two has no row
                    // (docs/contact-from-start.md §4).
                    within: s.breaking,
                    orientation_a: self.bodies[i].orientation,
                    orientation_b: self.bodies[j].orientation,
                }),
                ..s.query
            })
            .collect();
        let shortened = scale < 1.0;
        self.kept_readings = Some((self.changes, slot, readings));
        Planned {
            movers,
            moving,
            motions,
            pairs,
            seated,
            options,
            closed_gap,
            shortened,
            constrained,
            repositioning: drag.is_none(),
            reach,
            chain,
            at: 0.0,
        }
    }

    /// The continuous check of a planned sub-step and its move: to the first contact (backed
    /// off), or the whole way, or (out of budget) as far as is proven free. `resumed`: the
    /// queries of a suspended sub-step, to go on with; when they prove nothing free again,
    /// the sub-step is suspended again.
    fn check_and_move(
        &mut self,
        plan: Planned,
        resumed: Option<(Queries, bool, Option<Screens>)>,
        report: &mut StepReport,
    ) -> Moved {
        let s = self.settings;
        let Planned { movers, moving, motions, pairs, seated, closed_gap, shortened, constrained, .. } = &plan;
        let (movers, moving, pairs, seated, closed_gap, constrained) =
            (&movers[..], &moving[..], &pairs[..], &seated[..], *closed_gap, *constrained);
        if moving.is_empty() && !plan.repositioning {
            return Moved::Idle;
        }
        let motion_of = |b: BodyId| motions[&b];
        // The glide screen screens only the faces that face the motion: it sees every
        // collision of two solids, but an open surface can be met from behind. A sub-step
        // with a pair that is not two solids is checked by the exact CCD (docs/solver.md,
        // "The glide narrow phase"). It depends on the plan's pairs only, so a resumed sub-step
        // makes the same choice.
        let narrow_phase = match s.narrow_phase {
            NarrowPhase::Glide if pairs.iter().all(|&(i, j)| self.bodies[i].solid() && self.bodies[j].solid()) => {
                NarrowPhase::Glide
            }
            _ => NarrowPhase::Exact,
        };
        // How each body moves, as its collision check sees it: Redon's screws for the exact
        // CCD, constant-velocity screws for the glide screen (docs/glide.md §3).
        let path_of = |b: BodyId| {
            let m = motion_of(b);
            match narrow_phase {
                NarrowPhase::Exact => Path::Redon(m.path()),
                NarrowPhase::Glide => Path::Constant(Screw::from_displacement(&(m.to * m.from.inverse())), m.from),
            }
        };
        let substep = report.moves.last().map_or(0, |m| m.substep + 1);
        let record = |report: &mut StepReport, until: f64| {
            for &b in moving {
                report.moves.push(Move { substep, body: b, path: path_of(b), from: plan.at, until });
            }
        };
        let options = |k: usize| plan.options[k];
        // The first contact over every pair with a mover. With the glide screen, its list of
        // every collision of the hitting pair is kept for the near-simultaneous contacts.
        let clock = Instant::now();
        let mut first: Option<(usize, Contact)> = None;
        let mut glide_list: Vec<Contact> = Vec::new();
        // Under a budget, how far the move is proven free when a query stopped early, and each
        // exact query's answer and unfinished state (kept if the sub-step is suspended).
        let mut free_until: f64 = 1.0;
        let mut queries: Queries = Vec::with_capacity(pairs.len());
        // With the glide screen, how far every pair was screened.
        let mut glide_screened: f64 = 1.0;
        let hold = resumed.as_ref().is_some_and(|&(_, hold, _)| hold);
        let (resumed, screens) = resumed.map_or((None, None), |(q, _, screens)| (Some(q), screens));
        let mut resumed = resumed.map(|q| q.into_iter());
        // Each glide pair's answer or unfinished screen.
        let mut answers: Vec<ScreenAnswer> = Vec::with_capacity(pairs.len());
        let tests_before = report.counters.bv_tests;
        // The glide screen checks the stretch from where the bodies are to `glide_to` (§4).
        let time_budget = self.budget.and_then(|b| Some(b.deadline? - b.began));
        // A resumed sub-step's screens go on over the stretch they began.
        let glide_to = match (narrow_phase, time_budget, &screens) {
            (_, _, Some(screens)) => screens.to,
            (NarrowPhase::Glide, Some(_), None) => (plan.at + 0.5f64.powi(self.glide_stretch_halvings as i32)).min(1.0),
            _ => 1.0,
        };
        let mut earlier_answers = screens.map(|s| s.answers.into_iter());
        // Whether a glide screen ran in this call (a resumed sub-step's may all be held).
        let mut screened_now = false;
        // A move that waits for its refresh holds the glide answers (all done by then), so
        // that the next drag screens nothing and reaches the same poses (§4).
        let held = |answers: Vec<ScreenAnswer>| {
            (narrow_phase == NarrowPhase::Glide).then_some(Screens { to: glide_to, answers })
        };
        for (k, &(i, j)) in pairs.iter().enumerate() {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let (mi, mj) = (motion_of(i), motion_of(j));
            let (hit, list) = match narrow_phase {
                NarrowPhase::Exact => {
                    let opts = QueryOptions { budget: self.query_budget(report.counters.bv_tests), ..options(k) };
                    let (answer, state) = match resumed.as_mut().and_then(|q| q.next()) {
                        // Finished before the sub-step was suspended, or held for its move.
                        Some((done, None)) => (done, None),
                        Some((done, state)) if hold => (done, state),
                        earlier => {
                            let state = earlier.and_then(|(_, state)| state);
                            let (r, state) =
                                first_contact_suspendable(&a.collider, &mi, &b.collider, &mj, &opts, state);
                            report.counters += r.counters;
                            (r.value, state)
                        }
                    };
                    queries.push((answer, state));
                    if answer.contact.is_none() {
                        free_until = free_until.min(answer.free_until);
                    }
                    (answer.contact, Vec::new())
                }
                NarrowPhase::Glide => {
                    let opts = s.glide;
                    // Only the earliest collisions are used (the first and the contact window);
                    // a pair in contact from the start needs them all, some being ignored.
                    // Under a time budget, a long step's later stretches wait for the next
                    // drag once the queries' deadline has passed (§4).
                    // Its screen may also stop inside the stretch, where the bodies are pressed
                    // together and one screen costs more than a frame: then nothing of the
                    // pair is proven, and the next drag goes on with the screen (§4).
                    let opts = GlideOptions { until_first: !seated[k], deadline: self.query_deadline(), ..opts };
                    let answer = match earlier_answers.as_mut().and_then(|e| e.next()) {
                        Some(done @ ScreenAnswer::Done(..)) => done,
                        earlier => {
                            let state = match earlier {
                                Some(ScreenAnswer::Pending(state)) => Some(state),
                                _ => None,
                            };
                            let (ga, gb) = (a.glide_body(), b.glide_body());
                            screened_now = true;
                            match glide_collisions_resumable(ga, &mi, gb, &mj, &opts, (plan.at, glide_to), state) {
                                Ok(r) => {
                                    report.glide_tests += r.counters.tests as u64;
                                    let list: Vec<Contact> = r
                                        .collisions
                                        .iter()
                                        .map(|c| c.contact)
                                        .filter(|c| {
                                            !seated[k] || self.glide_counts((i, &path_of(i)), (j, &path_of(j)), c)
                                        })
                                        .collect();
                                    ScreenAnswer::Done(list, r.screened_to)
                                }
                                Err(state) => {
                                    report.glide_screens_cut += 1;
                                    ScreenAnswer::Pending(state)
                                }
                            }
                        }
                    };
                    let (list, screened_to) = match &answer {
                        ScreenAnswer::Done(list, screened_to) => (list.clone(), *screened_to),
                        ScreenAnswer::Pending(_) => (Vec::new(), plan.at),
                    };
                    answers.push(answer);
                    glide_screened = glide_screened.min(screened_to);
                    (list.first().copied(), list)
                }
            };
            if let Some(c) = hit
                && first.is_none_or(|(_, f)| c.time < f.time)
            {
                first = Some((k, c));
                glide_list = list;
            }
        }
        if narrow_phase == NarrowPhase::Glide
            && !pairs.is_empty()
            && let Some(budget) = time_budget
        {
            // The stretch's length follows what the screens cost: a stretch whose screen took
            // over a third of a frame's budget is halved for the next one, one under a
            // twelfth doubled (a screen's cost grows with how far the bodies move over it),
            // down to 1/32 of the sub-step: what a screen costs however short its stretch
            // is not cut by shorter stretches, and a sub-step must end.
            // Held answers (a move that waited for its refresh) say nothing of that cost.
            let took = clock.elapsed();
            if screened_now && took > budget / 3 {
                self.glide_stretch_halvings = (self.glide_stretch_halvings + 1).min(MAX_GLIDE_HALVINGS);
            } else if screened_now && took < budget / 12 {
                self.glide_stretch_halvings = self.glide_stretch_halvings.saturating_sub(1);
            }
            // Screened up to where the stretch ended, or where the deadline stopped a pair's
            // screen: a contact found is the first only if it comes no later than that.
            // (Every pair screens to `glide_to` at most.)
            free_until = glide_screened;
        }
        // The queries finished, but took more than is left of the budget: the rest of the
        // sub-step (the near-contact query, the move, the contact refresh, each about as
        // costly as the queries) waits for the next drag, which takes it up with these
        // answers (§4). A resumed sub-step whose queries had finished runs no query, so it is
        // never deferred twice.
        let queried = clock.elapsed();
        let late = self.budget.is_some_and(|_| {
            self.query_deadline().is_some_and(|d| Instant::now() + queried > d)
                || self.query_box_tests().is_some_and(|n| report.counters.bv_tests >= n)
        });
        let finished = queries.iter().all(|(_, state)| state.is_none());
        let ran_queries = report.counters.bv_tests > tests_before;
        if late
            && finished
            && ran_queries
            && narrow_phase == NarrowPhase::Exact
            && let Some(budget) = self.budget
        {
            report.ccd_time += queried;
            report.out_of_time = true;
            self.suspended = Some(SuspendedStep { body: budget.body, plan, queries, hold: false, screens: None });
            return Moved::OutOfTime;
        }
        let previous: Vec<(BodyId, Pose)> = moving.iter().map(|&b| (b, self.bodies[b].pose)).collect();
        // The budget ran out before the earliest contact was proven: go as far as is proven
        // free (a little less, to stay off whatever might touch there), or, when nothing
        // was proven at all, keep the sub-step and its queries for the next drag (§4).
        // With the glide screen, a stretch found free is the same: the rest of the sub-step
        // goes on from where the stretch took the bodies, now if the budget allows.
        let interrupted = free_until < first.map_or(1.0, |(_, c)| c.time);
        let stretch = narrow_phase == NarrowPhase::Glide;
        if interrupted {
            report.ccd_time += clock.elapsed();
            report.out_of_time |= !stretch;
            if free_until <= plan.at {
                if let Some(budget) = self.budget {
                    // A glide screen stopped inside the stretch: the others' answers wait with it.
                    let screens = answers
                        .iter()
                        .any(|a| matches!(a, ScreenAnswer::Pending(_)))
                        .then_some(Screens { to: glide_to, answers });
                    self.suspended = Some(SuspendedStep { body: budget.body, plan, queries, hold: false, screens });
                }
                report.out_of_time = true;
                return Moved::OutOfTime;
            }
            // Along the sub-step's own motion, never back: the sub-step stays suspended at
            // `at`, and the next drag goes on with the same queries along the same motion, so
            // a move the budget cuts into many frames is still one sub-step of the drag's
            // chain (§4).
            let t = plan.at + 0.95 * (free_until - plan.at);
            let pose_at = |b: BodyId| path_of(b).pose_at(t).normalized();
            match self.place_or_undo((movers, moving), &previous, pose_at, Some((pairs, seated)), report) {
                Placed::Kept => {}
                // As a whole move undone (below): the sub-step got nowhere, a shorter one next.
                Placed::Undone => return Moved::Blocked { time: 0.0, linearisation: true },
                Placed::Waiting => return self.wait_for_refresh(plan, queries, held(answers), report),
            }
            record(report, t);
            if let Some(budget) = self.budget {
                let plan = Planned { at: t, ..plan };
                self.suspended = Some(SuspendedStep { body: budget.body, plan, queries, hold: false, screens: None });
            }
            if stretch {
                report.glide_stretches += 1;
                return Moved::Stretch;
            }
            return Moved::OutOfTime;
        }
        let Some((k, hit)) = first else {
            report.ccd_time += clock.elapsed();
            // At the motions' ends, each body's own screw agrees with the relative screws that
            // were checked, so two movers cannot overlap there (§4).
            let end = |b: BodyId| motion_of(b).to.normalized();
            match self.place_or_undo((movers, moving), &previous, end, None, report) {
                Placed::Kept => {}
                Placed::Undone => return Moved::Blocked { time: 0.0, linearisation: true },
                Placed::Waiting => return self.wait_for_refresh(plan, queries, held(answers), report),
            }
            record(report, 1.0);
            return if *shortened { Moved::Shortened } else { Moved::Full { closed_gap, constrained } };
        };
        let (i, j) = pairs[k];
        let (path_i, path_j) = (path_of(i), path_of(j));
        // Back off along the motion from the contact (docs/solver.md §4).
        let pair_at = |t: f64| {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            contact::feature_pair(
                (i, &a.collider, &path_i.pose_at(t)),
                (j, &b.collider, &path_j.pose_at(t)),
                hit.kind,
                hit.feature_a,
                hit.feature_b,
                hit.normal,
            )
        };
        // From where the bodies are: `plan.at` of the motion when earlier pieces of the
        // sub-step, cut short by the budget, took them there; never back behind it.
        let d_start = pair_at(plan.at).distance;
        let goal = d_start.min(0.5 * (s.repositioning + s.security));
        let (mut lo, mut hi) = (plan.at, hit.time.max(plan.at));
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
        report.ccd_time += clock.elapsed();
        if t_b > plan.at {
            let pose_at = |b: BodyId| path_of(b).pose_at(t_b).normalized();
            match self.place_or_undo((movers, moving), &previous, pose_at, Some((pairs, seated)), report) {
                Placed::Kept => record(report, t_b),
                Placed::Undone => {}
                Placed::Waiting => return self.wait_for_refresh(plan, queries, held(answers), report),
            }
        }
        // Near-simultaneous contacts of the hitting pair (of the motions alone: where the bodies
        // are does not change them).
        let clock = Instant::now();
        let until = (hit.time + s.contact_window).min(1.0);
        let near = match narrow_phase {
            NarrowPhase::Exact => {
                let (a, b) = (&self.bodies[i], &self.bodies[j]);
                // Under the drag's budget: the list is a hint for the next solve (every move is
                // still checked), so one cut short keeps what it found, and the hit itself.
                let opts = QueryOptions { budget: self.remaining_budget(report.counters.bv_tests), ..options(k) };
                let near = contacts_within(&a.collider, &motion_of(i), &b.collider, &motion_of(j), until, &opts);
                report.counters += near.counters;
                let mut near = near.value;
                if !near.iter().any(|c| (c.kind, c.feature_a, c.feature_b) == (hit.kind, hit.feature_a, hit.feature_b))
                {
                    near.push(hit);
                }
                near
            }
            // Already filtered by properness (seed 002 §9).
            NarrowPhase::Glide => glide_list.into_iter().filter(|c| c.time <= until).collect(),
        };
        report.ccd_time += clock.elapsed();
        let seated_hit = seated[k];
        for c in &near {
            let (a, b) = (&self.bodies[i], &self.bodies[j]);
            let mut cp = contact::feature_pair(
                (i, &a.collider, &a.pose),
                (j, &b.collider, &b.pose),
                c.kind,
                c.feature_a,
                c.feature_b,
                c.normal,
            );
            cp = if seated_hit {
                cp.seated((&a.sides(), &a.pose), (&b.sides(), &b.pose), self.touching())
            } else {
                self.free_contact(cp)
            };
            if !self.contacts.iter().any(|k| k.same_features(&cp)) {
                self.contacts.push(cp);
                self.changes += 1;
                // Not a rebuild any more (these may lie beyond εb): the next drag rebuilds.
                self.fresh = false;
            }
        }
        // How far the whole sub-step got, its earlier pieces included.
        let moved = previous.iter().any(|&(b, p)| self.bodies[b].pose != p);
        Moved::Blocked { time: if moved { t_b } else { plan.at }, linearisation: d_start <= s.breaking }
    }

    /// Puts the moving bodies where `pose_of` says and refreshes the movers' contacts. It
    /// undoes that (puts them back at `previous` with the contacts they had there) when a
    /// contact got too deep or, with `overlap` (the pairs and which are seated), two movers
    /// overlap (§4). Under a budget, the refresh may not finish: the bodies are then put back,
    /// the refresh is kept, and the move waits for it ([`Placed::Waiting`], docs/solver.md §4).
    fn place_or_undo(
        &mut self,
        (movers, moving): (&[BodyId], &[BodyId]),
        previous: &[(BodyId, Pose)],
        pose_of: impl Fn(BodyId) -> Pose,
        overlap: Option<PairsSeated>,
        report: &mut StepReport,
    ) -> Placed {
        // The contact set is a whole rebuild about the movers where they are: a move undone
        // puts it back instead of reading it again.
        let whole = self.fresh && self.focus == movers;
        let put_all = |world: &mut World, poses: &mut dyn Iterator<Item = (BodyId, Pose)>| {
            // Placing drops a kept rebuild; this one is about these movers, kept with its poses.
            let rebuild = world.refreshing.take();
            for (b, p) in poses {
                world.put(b, p);
            }
            world.refreshing = rebuild;
        };
        put_all(self, &mut moving.iter().map(|&b| (b, pose_of(b))));
        let overlap = overlap.is_some_and(|(pairs, seated)| self.movers_overlap(pairs, seated, moving));
        // Only the grabbed part moving: the resumed sub-step holds its queries' answers (the
        // exact CCD's, or the glide screens'), so the next drag reaches the same poses.
        let budget = self.budget.filter(|_| !self.settings.push_others);
        let Some(replaced) = self.refresh_budgeted(movers, budget, true, report) else {
            put_all(self, &mut previous.iter().copied());
            self.fresh = whole;
            return Placed::Waiting;
        };
        if !overlap && !self.too_deep(moving, previous, report) {
            return Placed::Kept;
        }
        put_all(self, &mut previous.iter().copied());
        if whole {
            self.contacts = replaced;
            self.changes += 1;
            self.fresh = true;
        } else {
            self.refresh_after_move(movers, report);
        }
        Placed::Undone
    }

    /// A move that waits for the refresh at its poses: the sub-step is suspended with its
    /// queries held, so that the next drag reaches the same poses (docs/solver.md §4).
    fn wait_for_refresh(
        &mut self,
        plan: Planned,
        queries: Queries,
        screens: Option<Screens>,
        report: &mut StepReport,
    ) -> Moved {
        let body = self.budget.map_or(plan.movers[0], |b| b.body);
        self.suspended = Some(SuspendedStep { body, plan, queries, hold: true, screens });
        report.out_of_time = true;
        report.waiting_for_refresh = true;
        Moved::OutOfTime
    }

    /// Whether two bodies that moved together overlap, each placed along its own screw, which
    /// agrees with their relative screw (what was checked) only at the ends (§4). Pairs in
    /// contact from the start are not asked.
    fn movers_overlap(&self, pairs: &[(BodyId, BodyId)], seated: &[bool], moving: &[BodyId]) -> bool {
        pairs.iter().zip(seated).filter(|&(&(x, y), _)| moving.contains(&x) && moving.contains(&y)).any(
            |(&(x, y), &seated)| {
                let (a, b) = (&self.bodies[x], &self.bodies[y]);
                !seated && intersects(&a.collider, &a.pose, &b.collider, &b.pose).value
            },
        )
    }

    /// The factor that shortens a sub-step's displacements so that no contact point of a pair
    /// in contact from the start strays more than τ/2 from the straight line between its ends
    /// (docs/contact-from-start.md §3): the rows hold at the ends, so along the move too, to
    /// within that. Scaling keeps the rows' bounds, which are never positive for such pairs.
    fn turn_limit(&self, bodies: &[BodyId], displacements: &[Displacement]) -> f64 {
        let allowed = 0.25 * self.settings.repositioning;
        let mut scale: f64 = 1.0;
        for (k, &b) in bodies.iter().enumerate() {
            let points: Vec<DVec3> = self
                .contacts
                .iter()
                .filter(|c| c.seated && (c.body_i == b || c.body_j == b))
                .map(|c| if c.body_i == b { c.point_i } else { c.point_j })
                .collect();
            if points.is_empty() {
                continue;
            }
            let body = &self.bodies[b];
            let deviation = |f: f64| {
                let d = Displacement {
                    translation: displacements[k].translation * f,
                    rotation: displacements[k].rotation * f,
                };
                let screw = Screw::from_displacement(&(body.displaced(&d) * body.pose.inverse()));
                let theta = screw.angle();
                let Some(o) = screw.axis_point() else { return 0.0 };
                let rho =
                    points.iter().map(|p| (*p - o).reject_from_normalized(screw.axis()).length()).fold(0.0, f64::max);
                let sec = 1.0 / (0.5 * theta).cos();
                theta * theta * (0.25 * rho + screw.axial().abs() * sec * sec / 16.0)
            };
            let mut f = scale;
            while f > 1e-6 && deviation(f) > allowed {
                f *= (allowed / deviation(f)).sqrt().min(0.9);
            }
            scale = scale.min(f);
        }
        scale
    }

    /// Which contacts of the set read alike in a plan whose movers `slot` names (docs/
    /// solver.md §4, "Contacts that read alike are read once"): a vertex's contacts read at
    /// the same place of the same part, with the same points where a mover carries them. Each
    /// edge/edge contact, and each of a pair not in contact from the start, is its own.
    fn readings(&self, slot: &[Option<usize>]) -> Readings {
        let (mut readings, mut keying) = (Readings::default(), Keying::default());
        self.key_readings(slot, &mut readings, &mut keying, &mut Pace::unbounded());
        readings
    }

    /// [`World::readings`] a piece of `KEY_PIECE` contacts at a time, on from `readings`
    /// (the ids of the contacts keyed so far) until every contact has its id (true) or `pace`
    /// says the time is up (a base plate's 51,635 contacts take some 20 ms the first time).
    fn key_readings(
        &self,
        slot: &[Option<usize>],
        readings: &mut Readings,
        keying: &mut Keying,
        pace: &mut Pace,
    ) -> bool {
        let bits = |p: DVec3| p.to_array().map(f64::to_bits);
        while readings.id.len() < self.contacts.len() {
            let next = readings.id.len();
            let size = pace.piece(keying.rate, self.contacts.len() - next, KEY_PIECE);
            if size == 0 {
                return false;
            }
            let began = Instant::now();
            let piece = &self.contacts[next..next + size];
            let keys = mockup_ccd::parallel::map(piece, 1024, |c| {
                if !c.seated {
                    return None;
                }
                let (_, place, vertex_point, on_j) = self.vertex_place(c)?;
                let (vertex, look, look_point) =
                    if on_j { (c.feature_i, c.body_j, c.point_j) } else { (c.feature_j, c.body_i, c.point_i) };
                let look_point = slot[look].is_some().then(|| bits(look_point));
                Some((c.body_i, c.body_j, on_j, vertex, bits(vertex_point), place, look_point))
            });
            for key in keys {
                let next = readings.count as u32;
                let id = match key {
                    Some(key) => *keying.ids.entry(key).or_insert(next),
                    None => next,
                };
                if id == next {
                    readings.count += 1;
                }
                readings.id.push(id);
            }
            pace.did(&mut keying.rate, size, began);
        }
        true
    }

    /// For a contact of a pair in contact from the start and a relative motion `w` of i's point
    /// against j's (world): which side of the other part's surface (the part its feature may
    /// be inside of) the motion leads to at the place the contact touches it, and, when that
    /// place is an edge or a corner, the row normal of the surface nearest the motion there.
    /// An edge/edge contact is looked at from both parts: it presses in if either does.
    fn touching_side(&self, c: &ContactPoint, w: DVec3) -> (Side, Option<DVec3>) {
        let tol = 1e-3 * self.settings.repositioning;
        // From body `body`'s side: its feature, the contact's point on it, the other's motion.
        let look = |body: BodyId, feature: u32, point: DVec3, w: DVec3, on_j: bool| {
            let b = &self.bodies[body];
            let sides = b.sides();
            let local = b.pose.inverse().transform_point(point);
            let place = match c.kind {
                ContactKind::VertexFace | ContactKind::FaceVertex => sides.place_on_face(feature, local, tol),
                ContactKind::VertexEdge | ContactKind::EdgeVertex | ContactKind::EdgeEdge => {
                    sides.place_on_edge(feature, local, tol)
                }
                ContactKind::VertexVertex | ContactKind::VertexVertexForB => Place::Vertex(feature),
            };
            let w_local = b.pose.inverse().transform_vector(w);
            // One search of the place's neighbourhood for both (a base plate held by its
            // screws reads some 50,000 touching contacts a solve round).
            let (side, nearest) = sides.side_and_normal(place, w_local);
            let normal = match place {
                Place::Face(_) => None,
                _ => nearest.map(|n| {
                    let n = b.pose.transform_vector(n);
                    if on_j { n } else { -n }
                }),
            };
            (side, normal)
        };
        match c.kind {
            ContactKind::VertexFace | ContactKind::VertexEdge | ContactKind::VertexVertex => {
                look(c.body_j, c.feature_j, c.point_j, w, true)
            }
            ContactKind::FaceVertex | ContactKind::EdgeVertex | ContactKind::VertexVertexForB => {
                look(c.body_i, c.feature_i, c.point_i, -w, false)
            }
            ContactKind::EdgeEdge => {
                let from_j = look(c.body_j, c.feature_j, c.point_j, w, true);
                let from_i = look(c.body_i, c.feature_i, c.point_i, -w, false);
                let (side, normal) = if from_i.0 == Side::Inside { from_i } else { from_j };
                // Edges that cross: the surface nearest the motion holds a point, not a whole
                // edge (slid along one face of a convex edge, the rest of the crossing edge
                // cuts through the other); the lines' common normal holds the edge (§3).
                (side, if self.edges_cross(c) { Some(c.normal) } else { normal })
            }
        }
    }

    /// A vertex contact's place on the other part: that body, the place (within a thousandth
    /// of εr), the vertex's point, and whether the place is on j (so a row's normal, from j
    /// to i, is the place's outward normal). `None` for an edge/edge contact.
    fn vertex_place(&self, c: &ContactPoint) -> Option<(&Body, Place, DVec3, bool)> {
        let tol = 1e-3 * self.settings.repositioning;
        let (other, feature, q, p, on_j) = match c.kind {
            ContactKind::VertexFace | ContactKind::VertexEdge | ContactKind::VertexVertex => {
                (c.body_j, c.feature_j, c.point_j, c.point_i, true)
            }
            ContactKind::FaceVertex | ContactKind::EdgeVertex | ContactKind::VertexVertexForB => {
                (c.body_i, c.feature_i, c.point_i, c.point_j, false)
            }
            ContactKind::EdgeEdge => return None,
        };
        let b = &self.bodies[other];
        let sides = b.sides();
        let local = b.pose.inverse().transform_point(q);
        let place = match c.kind {
            ContactKind::VertexFace | ContactKind::FaceVertex => sides.place_on_face(feature, local, tol),
            ContactKind::VertexEdge | ContactKind::EdgeVertex => sides.place_on_edge(feature, local, tol),
            _ => Place::Vertex(feature),
        };
        Some((b, place, p, on_j))
    }

    /// For a touching vertex contact at a convex edge or corner of the other part and a
    /// relative motion `w` of i's point against j's: where some edge of the vertex's own would
    /// go into the other part near it (its end sliding along one face of a convex edge while
    /// the edge cuts through the other face), the outward normal of the face there that `w`
    /// goes into most squarely, from j toward i (docs/contact-from-start.md §3, "A vertex's
    /// own edges"). `None` otherwise.
    fn own_edges_enter(&self, c: &ContactPoint, w: DVec3) -> Option<DVec3> {
        let (other, place, p, on_j) = self.vertex_place(c)?;
        let (sides, mesh_o) = (other.sides(), other.collider.mesh());
        // Only at a convex place, where outside any one face's plane is outside the part; at a
        // reflex one the rows take each face (§3).
        let convex = match place {
            Place::Edge(e) => sides.is_convex(e),
            Place::Vertex(x) => {
                let edges = mesh_o.vertex_edges(x);
                edges.iter().all(|&e| sides.is_convex(e) || sides.is_flat(e))
                    && edges.iter().any(|&e| sides.is_convex(e))
            }
            Place::Face(_) => false,
        };
        if !convex {
            return None;
        }
        let (owner, v, w) = if on_j { (c.body_i, c.feature_i, w) } else { (c.body_j, c.feature_j, -w) };
        let owner = &self.bodies[owner];
        let mesh = owner.collider.mesh();
        let to_local = other.pose.inverse();
        let dir = to_local.transform_vector(w);
        // An edge already going into the other part from there is part of an overlap the
        // pair started with, which its readings govern; what must not happen is an edge on
        // or outside the surface carried into it.
        let enters = mesh.vertex_edges(v).iter().any(|&e| {
            let [a, b] = mesh.edge(e);
            let far = owner.pose.transform_point(mesh.vertex(if a == v { b } else { a }));
            let line = to_local.transform_vector(far - p);
            sides.side(place, line) != Side::Inside && sides.edge_from_enters(place, line, dir)
        });
        if !enters {
            return None;
        }
        // The face the motion goes into most squarely: its plane holds the vertex outside
        // (any one face's does at a convex place) and forbids the motion across it that
        // carries the edges in; one along it that still presses into another face gets that
        // face's row too (`rows`).
        let faces: Vec<u32> = match place {
            Place::Edge(e) => mesh_o.edge_faces(e).to_vec(),
            Place::Vertex(x) => {
                mesh_o.vertex_edges(x).iter().flat_map(|&e| mesh_o.edge_faces(e).iter().copied()).collect()
            }
            Place::Face(_) => return None,
        };
        let n = faces.into_iter().map(|f| sides.face_normal(f)).min_by(|a, b| a.dot(dir).total_cmp(&b.dot(dir)))?;
        let n = other.pose.transform_vector(n).try_normalize()?;
        Some(if on_j { n } else { -n })
    }

    /// For a seated vertex contact landing on a reflex edge or an inner corner of the other
    /// part: a row for the plane of each face there, the vertex's height over it its
    /// separation (docs/contact-from-start.md §3, "A touching feature near a reflex place").
    /// Empty elsewhere.
    fn reflex_rows(&self, c: &ContactPoint) -> Vec<ContactPoint> {
        let Some((b, place, p, on_j)) = self.vertex_place(c) else { return Vec::new() };
        let mut rows: Vec<ContactPoint> = Vec::new();
        for (n, at) in b.sides().reflex_planes(place) {
            let (n, at) = (b.pose.transform_vector(n), b.pose.transform_point(at));
            let height = n.dot(p - at);
            let normal = if on_j { n } else { -n };
            if rows.iter().any(|r| r.normal.dot(normal) > 1.0 - 1e-12) {
                continue;
            }
            // The row's point on the other part: the vertex's foot on the plane.
            let foot = p - height * n;
            let mut row = *c;
            if on_j {
                row.point_j = foot;
            } else {
                row.point_i = foot;
            }
            row.normal = normal;
            row.separation = height;
            row.distance = height.abs();
            rows.push(row);
        }
        rows
    }

    /// Whether an edge/edge contact is two convex wedges crossing (`mesh::crossing_normal`:
    /// not a bearing's rim flush with its housing's, whose wedges lie on one side of their
    /// lines' common normal).
    fn edges_cross(&self, c: &ContactPoint) -> bool {
        let (a, b) = (&self.bodies[c.body_i], &self.bodies[c.body_j]);
        crossing_normal((&a.sides(), &a.pose, c.feature_i), (&b.sides(), &b.pose, c.feature_j)).is_some()
    }

    /// Whether a glide collision of a pair in contact from the start counts: its feature pair
    /// was not in contact at the start, and it enters (docs/contact-from-start.md §4, the
    /// exact CCD's test, with the bodies' velocities along their paths).
    fn glide_counts(&self, (i, path_i): (BodyId, &Path), (j, path_j): (BodyId, &Path), c: &Contact) -> bool {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let start = contact::feature_pair(
            (i, &a.collider, &path_i.pose_at(0.0)),
            (j, &b.collider, &path_j.pose_at(0.0)),
            c.kind,
            c.feature_a,
            c.feature_b,
            c.normal,
        );
        if start.distance < self.settings.breaking {
            return false;
        }
        if !(a.orientation.consistent && b.orientation.consistent) {
            return true;
        }
        let (pose_a, pose_b) = (path_i.pose_at(c.time), path_j.pose_at(c.time));
        let (on_a, on_b) = (pose_a.inverse().transform_point(c.point), pose_b.inverse().transform_point(c.point));
        let h = 1e-6;
        let (lo, hi) = ((c.time - h).max(0.0), (c.time + h).min(1.0));
        let velocity = |path: &Path, local: DVec3| {
            path.pose_at(hi).transform_point(local) - path.pose_at(lo).transform_point(local)
        };
        // A's point relative to B, in each body's frame.
        let relative = velocity(path_i, on_a) - velocity(path_j, on_b);
        let (in_a, in_b) = (pose_a.inverse().transform_vector(relative), pose_b.inverse().transform_vector(relative));
        let (sa, sb) = (a.sides(), b.sides());
        let tol = 1e-7 * self.settings.breaking;
        match c.kind {
            ContactKind::VertexFace => {
                sb.enters(sb.place_on_face(c.feature_b, on_b, tol), in_b)
                    || sa.enters(Place::Vertex(c.feature_a), -in_a)
            }
            ContactKind::FaceVertex => {
                sa.enters(sa.place_on_face(c.feature_a, on_a, tol), -in_a)
                    || sb.enters(Place::Vertex(c.feature_b), in_b)
            }
            ContactKind::EdgeEdge => {
                sb.enters(sb.place_on_edge(c.feature_b, on_b, tol), in_b)
                    || sa.enters(sa.place_on_edge(c.feature_a, on_a, tol), -in_a)
            }
            _ => true,
        }
    }
}

/// How the displacements (one per slot of the motion space) move i's point of a contact
/// relative to j's, to first order; a body without a slot stays put.
fn relative_motion(c: &ContactPoint, slot: &[Option<usize>], frames: &[Frame], d: &[Displacement]) -> DVec3 {
    let moved = |b: BodyId, p: DVec3| {
        slot[b].map_or(DVec3::ZERO, |k| d[k].translation + d[k].rotation.cross(p - frames[k].center))
    };
    moved(c.body_i, c.point_i) - moved(c.body_j, c.point_j)
}

/// The penetration depth of one pair's contacts (docs/contact-from-start.md §5): of each
/// feature's contacts (`inside_feature`), the nearest one tells whether the feature is inside
/// the other part and how deep (the side of the nearest surface point is the side, by the
/// pseudonormal argument of §2; farther contacts read faces behind others); of those depths,
/// the largest. Edge/edge contacts farther apart than `band` do not count: each is its own
/// feature, and two edges far apart say nothing of how deep either is.
fn penetration(contacts: &[ContactPoint], band: f64) -> f64 {
    nearest(contacts, band).values().map(|&(_, s, _)| (-s).max(0.0)).fold(0.0, f64::max)
}

/// Whether a contact reads a depth: all but edge/edge contacts farther apart than `band`.
fn reads_depth(c: &ContactPoint, band: f64) -> bool {
    c.seated && (c.kind != ContactKind::EdgeEdge || c.distance <= band)
}

/// Per feature of a pair in contact from the start: its nearest contact's distance, signed
/// separation and index in `contacts` (of those that read a depth).
fn nearest(contacts: &[ContactPoint], band: f64) -> FeatureMap<(f64, f64, usize)> {
    let mut nearest: FeatureMap<(f64, f64, usize)> = FeatureMap::default();
    for (k, c) in contacts.iter().enumerate().filter(|(_, c)| reads_depth(c, band)) {
        let d = c.separation.abs();
        nearest
            .entry(inside_feature(c))
            .and_modify(|x| {
                // Among equally near ones the most outside: rounding must not make a feature
                // on the surface read as inside.
                if d < x.0 || (d == x.0 && c.separation > x.1) {
                    *x = (d, c.separation, k)
                }
            })
            .or_insert((d, c.separation, k));
    }
    nearest
}

/// A sub-step's body pairs and which of them are in contact from the start.
type PairsSeated<'a> = (&'a [(BodyId, BodyId)], &'a [bool]);

/// A feature of a pair in contact from the start (`inside_feature`).
type Feature = (BodyId, BodyId, u8, u32, u32);

/// Maps keyed by features, with a fast fixed hasher: a base plate's classification hashes
/// some 50,000 features several times, and the default (SipHash) took half of its `nearest`.
type FeatureMap<V> = HashMap<Feature, V, foldhash::fast::FixedState>;

/// The feature a contact of a pair in contact from the start reads the depth of, with the
/// pair: i's vertex (VF, VE, VV), j's vertex (FV, EV, VV read for B), or for EE the two edges' crossing
/// (each EE contact reads its own place along the edges).
fn inside_feature(c: &ContactPoint) -> Feature {
    let (kind, feature, other) = match c.kind {
        ContactKind::VertexFace | ContactKind::VertexEdge | ContactKind::VertexVertex => (0, c.feature_i, 0),
        ContactKind::FaceVertex | ContactKind::EdgeVertex | ContactKind::VertexVertexForB => (1, c.feature_j, 0),
        ContactKind::EdgeEdge => (2, c.feature_i, c.feature_j),
    };
    (c.body_i, c.body_j, kind, feature, other)
}

/// Which contacts are rows of the solve (docs/contact-from-start.md §3): every ordinary one;
/// of a pair in contact from the start, for each feature, its contacts near its nearest one:
/// for a feature outside the other part (its nearest contact more than `tie` outside), all
/// within `band` of the nearest; for a feature touching or inside it, those within `tie` of
/// the nearest, which tell its depth — of those only the one the motion would deepen least
/// (`preference`, larger is better), since the depth is kept with any one, unless the feature
/// touches and the unconstrained motion would take it into the other part where any of them
/// touches (`presses`): then rows are added, each with the normal of the surface nearest the
/// motion slid along the rows so far, until that motion presses in nowhere (both faces of an
/// inner corner; one face at a convex edge). Each kept contact comes with its row's normal
/// when that is not the contact's own. Also chosen: the tied contacts of each touching
/// feature (to check against the solve's answer) and the readings of touching or inside
/// features beyond their tie, within `band` of the nearest (rows only at a reflex place).
/// Chosen a piece at a time under a drag's budget (docs/solver.md §4, "A solve spread over
/// drags"): `new` sorts the contacts, `advance` reads their sides.
#[derive(Clone, Debug)]
struct RowChoice {
    /// The rows so far: ordinary contacts and outside features' first, then each touching or
    /// inside feature's as it is chosen.
    keep: Vec<(usize, Option<DVec3>)>,
    spare: Vec<usize>,
    beyond: Vec<usize>,
    /// Each touching or inside feature's tied contacts, and whether it is inside.
    features: Vec<(Vec<usize>, bool)>,
    /// Whether the unconstrained motion presses in at each touching feature's contacts
    /// (`touching`), read once per reading.
    touching: Vec<usize>,
    first: Batch<Option<Option<DVec3>>>,
    /// Per contact, the normal its first reading gave where the motion presses in; once
    /// `first` is done.
    pressed_alone: Option<Vec<Option<DVec3>>>,
    /// How many features' rows are chosen, and what a feature's cost so far.
    chosen: usize,
    rate: Rate,
}

impl RowChoice {
    fn new(contacts: &[ContactPoint], tie: f64, band: f64, readings: &Readings) -> RowChoice {
        // Each depth-reading contact's feature, numbered as first met, and each feature's
        // nearest contact (`nearest`): one look-up per contact, where maps keyed by feature
        // took three, and 6–8 ms of every plan of a base plate's 51,000 contacts.
        let mut ids: FeatureMap<u32> = FeatureMap::default();
        let mut feature_of = vec![u32::MAX; contacts.len()];
        let mut nearest: Vec<(f64, f64, usize)> = Vec::new();
        let mut last: Option<(Feature, u32)> = None;
        for (k, c) in contacts.iter().enumerate().filter(|(_, c)| reads_depth(c, band)) {
            let feature = inside_feature(c);
            let d = c.separation.abs();
            let id = match last {
                Some((f, id)) if f == feature => id,
                _ => {
                    let next = nearest.len() as u32;
                    let id = *ids.entry(feature).or_insert(next);
                    if id == next {
                        nearest.push((d, c.separation, k));
                    }
                    last = Some((feature, id));
                    id
                }
            };
            feature_of[k] = id;
            let x = &mut nearest[id as usize];
            // Among equally near ones the most outside: rounding must not make a feature on
            // the surface read as inside.
            if d < x.0 || (d == x.0 && c.separation > x.1) {
                *x = (d, c.separation, k);
            }
        }
        let mut tied: Vec<Vec<usize>> = vec![Vec::new(); nearest.len()];
        let mut keep: Vec<(usize, Option<DVec3>)> = Vec::with_capacity(contacts.len());
        let (spare, mut beyond) = (Vec::new(), Vec::new());
        for (k, c) in contacts.iter().enumerate() {
            if !c.seated {
                keep.push((k, None));
                continue;
            }
            if !reads_depth(c, band) {
                continue;
            }
            let feature = feature_of[k] as usize;
            let (d, s, _) = nearest[feature];
            if s > tie {
                if c.separation.abs() <= d + band {
                    keep.push((k, None));
                }
            } else if c.separation.abs() <= d + tie {
                tied[feature].push(k);
            } else if c.separation.abs() <= d + band {
                // A touching or inside feature's readings beyond its tie count only at a
                // reflex place (`plan`: the planes of its faces there).
                beyond.push(k);
            }
        }
        // Inside already, a feature's depth is the nearest reading's, kept by any one.
        let features: Vec<(Vec<usize>, bool)> =
            tied.into_iter().zip(&nearest).filter(|(ks, _)| !ks.is_empty()).map(|(ks, n)| (ks, -n.1 > tie)).collect();
        let touching: Vec<usize> =
            features.iter().filter(|(_, inside)| !inside).flat_map(|(ks, _)| ks.iter().copied()).collect();
        let first = readings.batch(&touching);
        RowChoice {
            keep,
            spare,
            beyond,
            features,
            touching,
            first,
            pressed_alone: None,
            chosen: 0,
            rate: Rate::default(),
        }
    }

    /// Reads on until the rows are chosen (true) or `pace` says the time is up.
    fn advance(
        &mut self,
        contacts: &[ContactPoint],
        readings: &Readings,
        preference: impl Fn(&ContactPoint) -> f64 + Sync,
        presses: impl Fn(&ContactPoint, &[DVec3]) -> Option<Option<DVec3>> + Sync,
        pace: &mut Pace,
    ) -> bool {
        // A contact pressed in with no normal of its own place's (inside a face): its own.
        let normal = |k: usize, n: Option<Option<DVec3>>| n.map(|n| n.unwrap_or(contacts[k].normal));
        // Whether the motion presses in at each touching feature's contacts: each read apart
        // from the others (some 50,000 for a base plate held by its screws), so on two
        // threads, once per reading.
        if self.pressed_alone.is_none() {
            if !self.first.advance(256, |k| presses(&contacts[k], &[]), pace) {
                return false;
            }
            let first = std::mem::take(&mut self.first);
            let mut pressed_alone: Vec<Option<DVec3>> = vec![None; contacts.len()];
            for (&k, n) in self.touching.iter().zip(first.answers()) {
                pressed_alone[k] = normal(k, n);
            }
            self.pressed_alone = Some(pressed_alone);
        }
        let pressed_alone = self.pressed_alone.as_deref().unwrap_or_default();
        // Each feature's rows are chosen apart from the others' (some 8,000 touching features
        // of a base plate), so on two threads, a piece at a time.
        while self.chosen < self.features.len() {
            let size = pace.piece(self.rate, self.features.len() - self.chosen, FEATURE_PIECE);
            if size == 0 {
                return false;
            }
            let began = Instant::now();
            let piece = &self.features[self.chosen..self.chosen + size];
            // A feature's cost varies tenfold (a pressed-in one reads its contacts again for
            // each row it adds), so a piece sized by the last one's rate can still run past the
            // deadline: the piece stops there, at least one feature done.
            let deadline = pace.deadline.unwrap_or_else(|| began + Duration::from_secs(3600));
            let at_least = if pace.done { 1 } else { size };
            let per_feature = mockup_ccd::parallel::map_until(piece, 256, deadline, at_least, |(ks, inside)| {
                // Touching, a feature must not be pressed in anywhere it touches: at a convex
                // edge or corner one face's row does (outside either face is outside), at a
                // reflex edge or an inner corner it takes both (outside both).
                let best_of = |ks: &mut dyn Iterator<Item = usize>| {
                    ks.max_by(|&x, &y| preference(&contacts[x]).total_cmp(&preference(&contacts[y])))
                };
                let best = best_of(&mut ks.iter().copied())?;
                // Where the motion presses in at its place, even the first row takes the
                // normal of the surface nearest the motion there.
                let pressed = |k: usize| if *inside { None } else { pressed_alone[k] };
                let mut chosen: Vec<(usize, Option<DVec3>)> = vec![(best, pressed(best))];
                if ks.iter().any(|&k| pressed(k).is_some()) {
                    // Touching and pressed in: add rows (at most four more) until the motion
                    // slid along them presses in nowhere, each where the slid motion still
                    // presses in, the least deepened first, with the normal of the surface
                    // nearest that motion there.
                    for _ in 0..ks.len().min(4) {
                        let along: Vec<DVec3> = chosen.iter().map(|&(k, n)| n.unwrap_or(contacts[k].normal)).collect();
                        let slid = readings.each(ks, usize::MAX, |k| presses(&contacts[k], &along));
                        let next = ks
                            .iter()
                            .zip(slid)
                            .filter_map(|(&k, n)| normal(k, n).map(|n| (k, n)))
                            .filter(|&(_, n)| along.iter().all(|a| a.dot(n) < 1.0 - 1e-9))
                            .max_by(|x, y| preference(&contacts[x.0]).total_cmp(&preference(&contacts[y.0])));
                        let Some((k, n)) = next else { break };
                        chosen.push((k, Some(n)));
                    }
                }
                Some(chosen)
            });
            let done = per_feature.len();
            for ((ks, inside), chosen) in piece.iter().zip(per_feature) {
                let Some(chosen) = chosen else { continue };
                if !inside {
                    self.spare.extend(ks.iter().copied());
                }
                self.keep.extend(chosen);
            }
            self.chosen += done;
            pace.did(&mut self.rate, done, began);
        }
        true
    }

    fn finish(mut self) -> Chosen {
        // Stable: a contact kept twice with two normals keeps its rows in one order, whatever
        // order the feature map gave.
        self.keep.sort_by_key(|&(k, _)| k);
        self.spare.sort_unstable();
        Chosen { rows: self.keep, tied: self.spare, beyond: self.beyond }
    }
}

/// Which contacts read alike (`World::readings`): contacts with the same id give the same
/// answer to every side reading of one plan.
#[derive(Clone, Debug, Default)]
struct Readings {
    id: Vec<u32>,
    count: usize,
}

impl Readings {
    /// `read` of each contact of `items`, computed for the first contact of each reading
    /// (on two threads when there are at least `min` of them) and given to the others.
    fn each<U: Clone + Send>(&self, items: &[usize], min: usize, read: impl Fn(usize) -> U + Sync) -> Vec<U> {
        let mut batch = self.batch(items);
        batch.advance(min, read, &mut Pace::unbounded());
        batch.answers()
    }

    /// The readings `items` need: the first contact of each reading among them, and which
    /// of those each item takes its answer from.
    fn batch<U>(&self, items: &[usize]) -> Batch<U> {
        let mut first: Vec<usize> = Vec::new();
        let which: Vec<u32> = if items.len() <= 32 {
            // A feature's few contacts (`rows`): a look along them, not a table of every id.
            let mut which = Vec::with_capacity(items.len());
            for &k in items {
                let id = self.id[k];
                let r = first.iter().position(|&f| self.id[f] == id).unwrap_or_else(|| {
                    first.push(k);
                    first.len() - 1
                });
                which.push(r as u32);
            }
            which
        } else {
            let mut slot = vec![u32::MAX; self.count];
            items
                .iter()
                .map(|&k| {
                    let slot = &mut slot[self.id[k] as usize];
                    if *slot == u32::MAX {
                        *slot = first.len() as u32;
                        first.push(k);
                    }
                    *slot
                })
                .collect()
        };
        Batch { first, which, answers: Vec::new(), rate: Rate::default() }
    }
}

/// A batch of side readings (`Readings::batch`), read a piece at a time: the contact each
/// reading is made at, which reading each item takes, and the answers so far.
#[derive(Clone, Debug)]
struct Batch<U> {
    first: Vec<usize>,
    which: Vec<u32>,
    answers: Vec<U>,
    rate: Rate,
}

impl<U> Default for Batch<U> {
    fn default() -> Self {
        Batch { first: Vec::new(), which: Vec::new(), answers: Vec::new(), rate: Rate::default() }
    }
}

impl<U: Clone + Send> Batch<U> {
    /// Reads on (on two threads when a piece has at least `min` readings) until every
    /// reading is made (true) or `pace` says the time is up.
    fn advance(&mut self, min: usize, read: impl Fn(usize) -> U + Sync, pace: &mut Pace) -> bool {
        while self.answers.len() < self.first.len() {
            let next = self.answers.len();
            let size = pace.piece(self.rate, self.first.len() - next, SIDE_PIECE);
            if size == 0 {
                return false;
            }
            let began = Instant::now();
            let piece = &self.first[next..next + size];
            self.answers.extend(mockup_ccd::parallel::map(piece, min, |&k| read(k)));
            pace.did(&mut self.rate, size, began);
        }
        true
    }

    /// The answer of the `item`th item (its reading made).
    fn answer(&self, item: usize) -> &U {
        &self.answers[self.which[item] as usize]
    }

    /// Each item's answer, in the items' order (every reading made).
    fn answers(self) -> Vec<U> {
        let answers = self.answers;
        self.which.into_iter().map(|r| answers[r as usize].clone()).collect()
    }
}

/// When a plan under a drag's deadline stops for the next drag, and how big its pieces are
/// (docs/solver.md §4, "Pieces sized by what they cost"): after at least one piece of work
/// (so that every drag gets somewhere), before a piece that, at its kind's rate, would end
/// past the deadline; a loop's pieces sized to end halfway to it.
#[derive(Clone, Copy, Debug)]
struct Pace {
    deadline: Option<Instant>,
    /// Whether this call did a piece.
    done: bool,
}

/// What one kind of piece costs per item: its last piece's, going up at once and down by
/// halves. None before its first piece.
#[derive(Clone, Copy, Debug, Default)]
struct Rate(Option<f64>);

/// The rates of a plan's one-piece stages: sorting the contacts for `rows` and ending the row
/// choice (per contact), a corner hull and its solve (per candidate row).
#[derive(Clone, Copy, Debug, Default)]
struct PlanRates {
    sort: Rate,
    finish: Rate,
    solve: Rate,
}

impl Pace {
    fn new(deadline: Option<Instant>) -> Pace {
        Pace { deadline, done: false }
    }

    fn unbounded() -> Pace {
        Pace::new(None)
    }

    /// Whether to stop before a one-piece stage of `n` items at `rate`. One of unknown cost
    /// goes ahead: its rate is learnt only by running it, and waiting for it livelocked a
    /// plan that a change drops between drags (pushing other parts).
    fn late(&self, rate: Rate, n: usize) -> bool {
        let Some(deadline) = self.deadline.filter(|_| self.done) else { return false };
        match rate.0 {
            Some(r) => Duration::try_from_secs_f64(r * n as f64)
                .ok()
                .and_then(|cost| Instant::now().checked_add(cost))
                .is_none_or(|end| end > deadline),
            None => false,
        }
    }

    /// How many of the `left` items of a loop go in its next piece, between `least` and
    /// `most` (both at most `left`); 0: stop for the next drag.
    fn piece(&self, rate: Rate, left: usize, (least, most): (usize, usize)) -> usize {
        let (least, most) = (least.min(left), most.min(left));
        let Some(deadline) = self.deadline else { return most };
        let time = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
        match rate.0 {
            Some(r) if self.done && least as f64 * r > time => 0,
            Some(r) => ((time / (2.0 * r)).min(most as f64) as usize).max(least),
            None if self.done && time == 0.0 => 0,
            None => least,
        }
    }

    /// A piece of `n` items, begun at `began`, was done: its kind's rate follows it.
    fn did(&mut self, rate: &mut Rate, n: usize, began: Instant) {
        let t = began.elapsed().as_secs_f64() / n.max(1) as f64;
        rate.0 = Some(match rate.0 {
            Some(r) if t <= r => 0.5 * (r + t),
            _ => t,
        });
        self.done = true;
    }
}

/// What `rows` chose: the rows (each with its normal when that is not the contact's own), the
/// tied contacts of each touching feature, and the readings beyond a touching or inside
/// feature's tie.
struct Chosen {
    rows: Vec<(usize, Option<DVec3>)>,
    tied: Vec<usize>,
    beyond: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gauss::tests::dvec;
    use mockup_ccd::{Collider, MeshBuilder};
    use std::sync::Arc;

    /// Contacts that share a reading (`World::readings`) read the same side, nearest-surface
    /// normal and own-edges normal for every motion: a plate on a pin in its zero-clearance
    /// hole, whose corners touch the pin where several faces meet, under random motions of
    /// the plate.
    #[test]
    fn contacts_that_read_alike_read_the_same() {
        let hole = |x: f64, y: f64| x.abs() < 0.1 && y.abs() < 0.1;
        let plate =
            MeshBuilder::new().perforated_plate(Pose::IDENTITY, [1.0, 1.0], 0.1, [10, 10], 0.0, hole).build().unwrap();
        let pin = MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(0.1, 0.1, 0.3)).build().unwrap();
        // The plate is the mover, so the places its corners touch are on the fixed pin, and
        // the contacts of a corner at one place share their points on the mover.
        let mut w = World::new(SolverSettings::for_scene_size(1.0)).unwrap();
        let p = w.add_body(Arc::new(Collider::new(plate)), Pose::IDENTITY, false);
        w.add_body(Arc::new(Collider::new(pin)), Pose::IDENTITY, true);
        // A drag that goes nowhere builds the contacts.
        w.drag(p, Pose::IDENTITY).unwrap();
        assert!(w.contacts.iter().any(|c| c.seated), "the plate is not seated");
        let slot: Vec<Option<usize>> = (0..w.bodies.len()).map(|b| (b == p).then_some(0)).collect();
        let frames = vec![w.bodies[p].frame().unwrap()];
        let readings = w.readings(&slot);
        let mut groups: HashMap<u32, Vec<usize>> = HashMap::new();
        for (k, &id) in readings.id.iter().enumerate() {
            groups.entry(id).or_default().push(k);
        }
        let shared = groups.values().filter(|g| g.len() > 1).count();
        assert!(shared > 0, "no two contacts share a reading: nothing is checked");
        let reading = |k: usize, d: &Displacement| {
            let c = &w.contacts[k];
            let motion = relative_motion(c, &slot, &frames, std::slice::from_ref(d));
            (w.touching_side(c, motion), w.own_edges_enter(c, motion))
        };
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            let d = Displacement { translation: 0.01 * dvec(&mut state), rotation: 0.1 * dvec(&mut state) };
            for g in groups.values() {
                let first = reading(g[0], &d);
                for &k in &g[1..] {
                    assert_eq!(reading(k, &d), first, "contacts {} and {k} share a reading", g[0]);
                }
            }
        }
    }

    /// `each` computes one contact per reading and gives each contact its reading's answer,
    /// in the items' order, along a few items and through the table alike.
    #[test]
    fn each_reads_once_per_reading_in_order() {
        let readings = Readings { id: (0..100).map(|k| (k % 7) as u32).collect(), count: 7 };
        for n in [5, 20, 100] {
            let items: Vec<usize> = (0..n).rev().collect();
            let calls = std::sync::atomic::AtomicUsize::new(0);
            let answers = readings.each(&items, 8, |k| {
                calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                k % 7
            });
            let expected: Vec<usize> = items.iter().map(|k| k % 7).collect();
            assert_eq!(answers, expected);
            assert_eq!(calls.into_inner(), n.min(7));
        }
    }

    /// Pieces: the most with no deadline; the least first, then as many as end halfway to
    /// the deadline at the rate; none once even the least would end past it; and at least
    /// the least while no piece was done.
    #[test]
    fn pieces_fit_the_deadline_at_their_rate() {
        let sizes = (10, 1000);
        assert_eq!(Pace::unbounded().piece(Rate::default(), 5000, sizes), 1000);
        assert_eq!(Pace::unbounded().piece(Rate::default(), 7, sizes), 7);
        let mut pace = Pace::new(Some(Instant::now() + Duration::from_secs(10)));
        assert_eq!(pace.piece(Rate::default(), 5000, sizes), 10);
        // 0.1 s an item with 10 s left: about 50 fit halfway.
        let n = pace.piece(Rate(Some(0.1)), 5000, sizes);
        assert!((45..=50).contains(&n), "{n}");
        assert_eq!(pace.piece(Rate(Some(1e-9)), 5000, sizes), 1000);
        // The least would take 10 s: before any piece it is done, after one it waits.
        assert_eq!(pace.piece(Rate(Some(1.0)), 5000, sizes), 10);
        pace.done = true;
        assert_eq!(pace.piece(Rate(Some(1.0)), 5000, sizes), 0);
        assert!(pace.late(Rate(Some(1.0)), 20));
        assert!(!pace.late(Rate(Some(0.01)), 20));
        assert!(!pace.late(Rate::default(), 20), "an unknown cost goes ahead: it is learnt by running");
        assert!(pace.late(Rate(Some(f64::MAX)), usize::MAX));
        assert!(!Pace::unbounded().late(Rate(Some(1.0)), 20));
    }

    /// A rate goes up at once and down by halves.
    #[test]
    fn a_rate_rises_at_once_and_falls_by_halves() {
        let mut pace = Pace::unbounded();
        let mut rate = Rate(Some(1.0));
        pace.did(&mut rate, 1, Instant::now());
        let r = rate.0.unwrap();
        assert!((0.5..0.51).contains(&r), "{r}");
        let began = Instant::now() - Duration::from_secs(4);
        pace.did(&mut rate, 2, began);
        let r = rate.0.unwrap();
        assert!((2.0..2.1).contains(&r), "{r}");
        assert!(pace.done);
    }
}
