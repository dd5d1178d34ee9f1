//! `first_contact` and `contacts_within`: the continuous queries.
//!
//! The traversal works in B's frame, one piece of the relative screw path at a time. Each
//! pair of nodes carries the part of the piece's time span in which its boxes may meet, on a
//! dyadic grid of `2^subdivision_depth` slots. Intervals are halved (docs/continuous-obb.md
//! §4) only along grid points, so the per-interval motion data is computed once per query,
//! not once per box pair.

use super::traversal::child_pairs;
use super::{Contact, ContactKind, Counted, Counters, QueryOptions};
use crate::bvh::{CullMotion, IntervalMotion};
use crate::elementary::{Hit, Roots, Tolerance, edge_edge_roots, face_vertex_roots, vertex_face_roots};
use crate::geometry::{closest_point_on_triangle, closest_points_segments};
use crate::mesh::{NONE, Orientation, Place, Sides, crossing_normal};
use crate::{Collider, Mesh, Motion, Pose, RelativeMotion, Screw};
use glam::DVec3;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Multiplicative hashing for small integer keys (the interval cache's, the glide screen's
/// owners): the standard library's SipHash costs as much as a box test.
#[derive(Clone, Default)]
pub(crate) struct IntKeyHasher(u64);

impl Hasher for IntKeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Interval motions of one piece, computed once each: an arena the traversal refers to by
/// index, and a map from grid intervals `(i, j)` to arena slots.
#[derive(Clone)]
struct IntervalCache {
    grid: u32,
    arena: Vec<IntervalMotion>,
    slots: HashMap<u32, u32, BuildHasherDefault<IntKeyHasher>>,
}

impl IntervalCache {
    fn slot(&mut self, screw: &Screw, start: &Pose, i: u32, j: u32) -> u32 {
        let key = i * (self.grid + 1) + j;
        if let Some(&s) = self.slots.get(&key) {
            return s;
        }
        let g = self.grid as f64;
        self.arena.push(IntervalMotion::new(screw, start, i as f64 / g, j as f64 / g));
        let s = (self.arena.len() - 1) as u32;
        self.slots.insert(key, s);
        s
    }
}

/// Two bodies in contact from the start of a motion (docs/contact-from-start.md §4): feature
/// pairs closer than `within` at its start are left out (the caller's contact constraints
/// govern them), and of the others only crossings into the other body count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InContact {
    pub within: f64,
    pub orientation_a: Orientation,
    pub orientation_b: Orientation,
}

impl InContact {
    /// Either mesh is inconsistently wound: every root counts.
    fn every_root(&self) -> bool {
        !(self.orientation_a.consistent && self.orientation_b.consistent)
    }
}

/// When a continuous query must stop (`QueryOptions::budget`): at a time, or after this many
/// box tests (a budget that does not depend on the machine, for tests).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueryBudget {
    pub deadline: Option<std::time::Instant>,
    pub box_tests: Option<u64>,
}

/// A first contact under a budget: the contact when it was found and proven the first, and
/// the time up to which the motion is proven free of contacts (the contact's time; 1 when the
/// query finished without one; earlier when the budget ran out first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstContact {
    pub contact: Option<Contact>,
    pub free_until: f64,
}

/// Deepest time subdivision: 2^12 slots per step.
pub const MAX_SUBDIVISION_DEPTH: u32 = 12;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Mode {
    /// Only the earliest contact.
    First,
    /// Every feature pair's earliest contact up to this global time.
    Within(f64),
}

/// A contact found in the current piece, at polynomial time `z`.
#[derive(Clone, Copy, Debug)]
struct Found {
    z: f64,
    kind: ContactKind,
    feature_a: u32,
    feature_b: u32,
    hit: Hit,
}

impl Found {
    /// Ties (simultaneous contacts) are broken by kind and features, so the answer does not
    /// depend on the order in which pairs are visited.
    fn precedes(&self, o: &Found) -> bool {
        (self.z, self.kind, self.feature_a, self.feature_b) < (o.z, o.kind, o.feature_a, o.feature_b)
    }
}

type IntMap<V> = HashMap<u32, V, BuildHasherDefault<IntKeyHasher>>;

/// Backward-motion culling state of one body over one piece (docs/bm-culling.md §1–2): its
/// velocity field relative to the other body, a flag per node (0 = not tested yet, 1 = kept,
/// 2 = culled), and, filled as the traversal reaches them, which triangles move backwards
/// and which triangle each vertex and edge is tested through.
#[derive(Clone)]
struct BodyCulling {
    motion: CullMotion,
    node_flags: Vec<u8>,
    backward: IntMap<bool>,
    vertex_owner: IntMap<u32>,
    edge_owner: IntMap<u32>,
}

const KEPT: u8 = 1;
const CULLED: u8 = 2;

impl BodyCulling {
    fn new(motion: CullMotion, nodes: usize) -> BodyCulling {
        BodyCulling {
            motion,
            node_flags: vec![0; nodes],
            backward: IntMap::default(),
            vertex_owner: IntMap::default(),
            edge_owner: IntMap::default(),
        }
    }

    fn backward(&mut self, mesh: &Mesh, t: u32) -> bool {
        *self.backward.entry(t).or_insert_with(|| self.motion.backward(&mesh.triangle_points(t), mesh.normal(t)))
    }

    /// The first incident triangle (by index) that does not move backwards; NONE if every
    /// one does, and then the feature cannot be where the bodies first touch.
    fn owner(&mut self, mesh: &Mesh, faces: impl Iterator<Item = u32>) -> u32 {
        let mut owner = NONE;
        for f in faces {
            if f < owner && !mesh.is_degenerate(f) && !self.backward(mesh, f) {
                owner = f;
            }
        }
        owner
    }

    fn edge_owner(&mut self, mesh: &Mesh, e: u32) -> u32 {
        if let Some(&o) = self.edge_owner.get(&e) {
            return o;
        }
        let o = self.owner(mesh, mesh.edge_faces(e).iter().copied());
        self.edge_owner.insert(e, o);
        o
    }

    fn vertex_owner(&mut self, mesh: &Mesh, v: u32) -> u32 {
        if let Some(&o) = self.vertex_owner.get(&v) {
            return o;
        }
        let o = self.owner(mesh, mesh.vertex_edges(v).iter().flat_map(|&e| mesh.edge_faces(e).iter().copied()));
        self.vertex_owner.insert(v, o);
        o
    }

    /// The vertices and edges of triangle `t` tested through it, and whether its face is.
    fn features(&mut self, mesh: &Mesh, t: u32) -> Features {
        let mut f = Features { face: !self.backward(mesh, t), ..Features::default() };
        for v in mesh.triangle(t) {
            if self.vertex_owner(mesh, v) == t {
                f.vertices[f.n_vertices] = v;
                f.n_vertices += 1;
            }
        }
        for e in mesh.triangle_edges(t) {
            if self.edge_owner(mesh, e) == t {
                f.edges[f.n_edges] = e;
                f.n_edges += 1;
            }
        }
        f
    }
}

/// What one triangle contributes to a leaf pair.
#[derive(Default)]
struct Features {
    face: bool,
    vertices: [u32; 3],
    n_vertices: usize,
    edges: [u32; 3],
    n_edges: usize,
}

impl Features {
    /// All of the triangle's features (seed 000's tests).
    fn all(mesh: &Mesh, t: u32) -> Features {
        Features { face: true, vertices: mesh.triangle(t), n_vertices: 3, edges: mesh.triangle_edges(t), n_edges: 3 }
    }

    /// Without culling: the static owners (every feature once).
    fn owned(mesh: &Mesh, t: u32) -> Features {
        let mut f = Features { face: true, ..Features::default() };
        for v in mesh.owned_vertices(t) {
            f.vertices[f.n_vertices] = v;
            f.n_vertices += 1;
        }
        for e in mesh.owned_edges(t) {
            f.edges[f.n_edges] = e;
            f.n_edges += 1;
        }
        f
    }
}

#[derive(Clone)]
struct Culling {
    a: BodyCulling,
    b: BodyCulling,
}

/// One piece of the relative path being swept: the two colliders and the sweep's state.
#[derive(Clone)]
struct Sweep<'a> {
    a: &'a Collider,
    b: &'a Collider,
    st: SweepState,
}

/// Everything of a sweep but its colliders: what a suspended query keeps.
#[derive(Clone)]
struct SweepState {
    screw: Screw,
    inverse: Screw,
    /// A's pose in B's frame at the beginning of the piece.
    start: Pose,
    tol: Tolerance,
    mode: Mode,
    /// Roots are searched in `[0, z_limit]`.
    z_limit: f64,
    found: Vec<Found>,
    counters: Counters,
    grid: u32,
    ratio: f64,
    intervals: IntervalCache,
    culling: Option<Culling>,
    /// The earliest contact time (as `z`) any thread of this sweep found: a `f64`'s bits,
    /// which order like the numbers for `z ≥ 0`.
    shared_limit: Option<Arc<AtomicU64>>,
    parallel: bool,
    /// `QueryOptions::every_triangle_pair`.
    every_pair: bool,
    in_contact: Option<InContact>,
    /// A's pose in B's frame at the start of the whole motion (where "in contact" is decided).
    start0: Pose,
    /// When to stop (`QueryOptions::budget`); box tests are counted from this piece's start.
    budget: Option<QueryBudget>,
    /// Set when the budget ran out: the piece's time up to which the motion is proven free.
    interrupted: Option<f64>,
}

/// Node pairs a traversal visits alone before it splits its pending pairs over a second
/// thread: small queries never pay for one.
const SPLIT_AFTER: usize = 256;

/// Pending pairs, earliest interval start first; among equal starts the last pushed (depth
/// first). Starts are grid points, so the pairs wait in one stack per grid point: the same
/// order as a heap on (start, push count), without its logarithmic cost per pair.
#[derive(Clone, Default)]
struct TimeOrder {
    /// `by_start[i]`: the pairs whose interval starts at grid point `i`, last pushed on top.
    by_start: Vec<Vec<Pending>>,
    /// No pair starts before this grid point.
    lowest: usize,
    len: usize,
}

impl TimeOrder {
    fn push(&mut self, p: Pending) {
        let i = p.i as usize;
        if self.by_start.len() <= i {
            self.by_start.resize_with(i + 1, Vec::new);
        }
        self.by_start[i].push(p);
        self.lowest = self.lowest.min(i);
        self.len += 1;
    }
    fn earliest(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.by_start[self.lowest].is_empty() {
            self.lowest += 1;
        }
        Some(self.lowest as u32)
    }
    fn pop(&mut self) -> Option<Pending> {
        let i = self.earliest()?;
        self.len -= 1;
        self.by_start[i as usize].pop()
    }
    fn len(&self) -> usize {
        self.len
    }
    /// Every pending pair, earliest first.
    fn into_sorted(mut self) -> Vec<Pending> {
        std::iter::from_fn(|| self.pop()).collect()
    }
}

/// The pairs a traversal thread has pending: a stack (depth first) or a [`TimeOrder`].
trait PendingPairs {
    fn len(&self) -> usize;
    fn push(&mut self, p: Pending);
    /// Every other pair, in the order they would be taken, for the other thread.
    fn split_half(&mut self) -> Vec<Pending>;
}

impl PendingPairs for Vec<Pending> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn push(&mut self, p: Pending) {
        Vec::push(self, p)
    }
    fn split_half(&mut self) -> Vec<Pending> {
        let all = std::mem::take(self);
        let mut given = Vec::with_capacity(all.len() / 2);
        for (k, p) in all.into_iter().enumerate() {
            if k % 2 == 0 { self.push(p) } else { given.push(p) }
        }
        given
    }
}

impl PendingPairs for TimeOrder {
    fn len(&self) -> usize {
        TimeOrder::len(self)
    }
    fn push(&mut self, p: Pending) {
        TimeOrder::push(self, p)
    }
    fn split_half(&mut self) -> Vec<Pending> {
        let sorted = std::mem::take(self).into_sorted();
        let mut given = Vec::with_capacity(sorted.len() / 2);
        // Kept pairs are pushed latest first, so that among equal starts they pop in the
        // order they would have; given ones are listed in the order they are to be pushed.
        for (k, p) in sorted.into_iter().enumerate().rev() {
            if k % 2 == 0 { TimeOrder::push(self, p) } else { given.push(p) }
        }
        given
    }
}

/// What two traversal threads share to even out their work (docs/queries.md §4): a thread
/// that has run out of pairs asks, and the other hands it every other pending pair at its
/// next check. A pair is always in exactly one thread's pairs or in the handover.
#[derive(Default)]
struct Sharing {
    handover: Mutex<Handover>,
    wake: Condvar,
    /// A thread waits for pairs (read at every check without the lock).
    asking: AtomicBool,
}

#[derive(Default)]
struct Handover {
    pairs: Vec<Pending>,
    /// A thread waits on `wake`.
    waiting: bool,
    /// No more pairs will be handed over: both threads ran out, or one's budget did.
    done: bool,
}

impl Sharing {
    /// Called by a thread with pairs at its periodic check: hands half of them over if the
    /// other thread waits for some.
    fn offer(&self, pairs: &mut impl PendingPairs) {
        if !self.asking.load(Ordering::Relaxed) || pairs.len() < 2 {
            return;
        }
        let mut h = self.handover.lock().expect("no traversal thread panics holding the handover");
        if h.waiting && h.pairs.is_empty() && !h.done {
            h.pairs = pairs.split_half();
            self.asking.store(false, Ordering::Relaxed);
            self.wake.notify_all();
        }
    }

    /// Called by a thread whose pairs ran out: the pairs handed to it, or `None` when there
    /// will be none (the other thread ran out too, or stopped).
    fn take(&self) -> Option<Vec<Pending>> {
        let mut h = self.handover.lock().expect("no traversal thread panics holding the handover");
        loop {
            if !h.pairs.is_empty() {
                return Some(std::mem::take(&mut h.pairs));
            }
            if h.done || h.waiting {
                self.stop_locked(&mut h);
                return None;
            }
            h.waiting = true;
            self.asking.store(true, Ordering::Relaxed);
            h = self.wake.wait(h).expect("no traversal thread panics holding the handover");
            h.waiting = false;
        }
    }

    /// Called by a thread that stops with pairs left (its budget ran out), or leaves.
    fn stop(&self) {
        let mut h = self.handover.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.stop_locked(&mut h);
    }

    fn stop_locked(&self, h: &mut Handover) {
        h.done = true;
        self.asking.store(false, Ordering::Relaxed);
        self.wake.notify_all();
    }
}

/// Stops the sharing when a thread leaves its work, however it leaves: a thread that panicked
/// must not leave the other waiting for pairs (the scope would never end).
struct StopsSharing<'a>(&'a Sharing);

impl Drop for StopsSharing<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// A pair of nodes to test over the grid interval `[i, j]`, whose motion is arena slot `slot`.
#[derive(Clone, Copy)]
struct Pending {
    na: u32,
    nb: u32,
    i: u32,
    j: u32,
    slot: u32,
}

impl<'a> Sweep<'a> {
    fn slot(&mut self, i: u32, j: u32) -> u32 {
        self.st.intervals.slot(&self.st.screw, &self.st.start, i, j)
    }

    /// The hull of the grid sub-intervals of `[i, j]` (arena slot `slot`) over which nodes
    /// `na` (of A) and `nb` (of B) may overlap, with its slot; `None` if they are separated
    /// throughout.
    fn surviving(&mut self, na: u32, nb: u32, i: u32, j: u32, slot: u32) -> Option<(u32, u32, u32)> {
        // Boxes are swept only up to the time limit: nothing later can be the answer.
        let limit = self.last_cell();
        if i > limit {
            return None;
        }
        let last = limit.max(i + 1);
        let (j, slot) = if j > last { (last, self.slot(i, last)) } else { (j, slot) };
        let box_a = self.a.tree().node(na).obb;
        let box_b = self.b.tree().node(nb).obb;
        let test = self.st.intervals.arena[slot as usize].test(&box_b, &box_a);
        self.st.counters.bv_tests += 1;
        if test.separated {
            return None;
        }
        if j - i < 2 || test.sweep <= self.st.ratio * (box_a.radius() + box_b.radius()) {
            return Some((i, j, slot));
        }
        let m = (i + j) / 2;
        let (left, right) = (self.slot(i, m), self.slot(m, j));
        match (self.surviving(na, nb, i, m, left), self.surviving(na, nb, m, j, right)) {
            (Some((l, _, _)), Some((_, h, _))) if (l, h) == (i, j) => Some((i, j, slot)),
            (Some((l, _, _)), Some((_, h, _))) => Some((l, h, self.slot(l, h))),
            (one, other) => one.or(other),
        }
    }

    /// Seed 000 §2.2 step 1: whether either node is already flagged as culled.
    fn flagged(&self, na: u32, nb: u32) -> bool {
        self.st
            .culling
            .as_ref()
            .is_some_and(|c| c.a.node_flags[na as usize] == CULLED || c.b.node_flags[nb as usize] == CULLED)
    }

    /// Seed 000 §2.2 step 3: tests (once per piece) and flags each node of a pair whose
    /// boxes may meet; true if either is culled.
    fn culled(&mut self, na: u32, nb: u32) -> bool {
        let Some(c) = self.st.culling.as_mut() else { return false };
        let mut flag = |flags: &mut Vec<u8>, node: u32, collider: &Collider, motion: &CullMotion| {
            let f = &mut flags[node as usize];
            if *f == 0 {
                *f = KEPT;
                if let Some(cone) = collider.cones().cone(node) {
                    self.st.counters.cull_tests += 1;
                    if motion.culls(&collider.tree().node(node).obb, cone) {
                        self.st.counters.culled_nodes += 1;
                        *f = CULLED;
                    }
                }
            }
            *f == CULLED
        };
        flag(&mut c.a.node_flags, na, self.a, &c.a.motion) || flag(&mut c.b.node_flags, nb, self.b, &c.b.motion)
    }

    /// Roots later than this cannot be the answer: this thread's or another's best.
    fn limit(&self) -> f64 {
        match &self.st.shared_limit {
            Some(s) => self.st.z_limit.min(f64::from_bits(s.load(Ordering::Relaxed))),
            None => self.st.z_limit,
        }
    }

    fn time_limit(&self) -> f64 {
        self.st.screw.t_of_z(self.limit())
    }

    /// The grid point at or after the time limit (with the slack that keeps ties).
    fn last_cell(&self) -> u32 {
        ((self.time_limit() + 1e-12) * self.st.grid as f64).ceil().min(self.st.grid as f64) as u32
    }

    /// The whole traversal; a budgeted one returns the pairs it left pending when the budget
    /// ran out (none when it finished).
    fn traverse(&mut self) -> TimeOrder {
        let root = self.slot(0, self.st.grid);
        let whole = Pending { na: 0, nb: 0, i: 0, j: self.st.grid, slot: root };
        if self.st.budget.is_some() && self.st.mode == Mode::First {
            let mut heap = TimeOrder::default();
            heap.push(whole);
            return self.traverse_in_time_order(heap);
        }
        let mut stack = vec![whole];
        self.run(&mut stack, SPLIT_AFTER, None);
        if stack.len() < 2 || !self.st.parallel || crate::parallel::cores() < 2 {
            self.run(&mut stack, usize::MAX, None);
            return TimeOrder::default();
        }
        // Split the pending pairs over two threads, alternately (the stack holds subtrees of
        // every depth); a thread whose pairs run out takes half of the other's.
        let mut theirs = stack.split_half();
        self.on_two_threads((&mut stack, &mut theirs), |sweep, stack, share| sweep.run(stack, usize::MAX, Some(share)));
        TimeOrder::default()
    }

    /// Runs `work` on this sweep with `mine` and on a copy of it, on a second thread, with
    /// `theirs`; both share the best time found so far. Their contacts and counters are merged
    /// into this sweep; its `interrupted` is the earlier of the two (docs/queries.md §4).
    fn on_two_threads<P: Send>(
        &mut self,
        (mine, theirs): (&mut P, &mut P),
        work: impl Fn(&mut Sweep, &mut P, &Sharing) + Sync,
    ) {
        let shared = Arc::new(AtomicU64::new(self.st.z_limit.max(0.0).to_bits()));
        self.st.shared_limit = Some(shared);
        let mut other = self.clone();
        other.st.found.clear();
        other.st.counters = Counters::default();
        let (work, share) = (&work, &Sharing::default());
        let ((), other) = crate::parallel::join(
            || {
                let _done = StopsSharing(share);
                work(self, mine, share);
            },
            move || {
                let _done = StopsSharing(share);
                work(&mut other, theirs, share);
                (other.st.found, other.st.counters, other.st.interrupted)
            },
        );
        // A thread takes what is handed to it before it may stop, so nothing is left there.
        debug_assert!(share.handover.lock().is_ok_and(|h| h.pairs.is_empty()));
        self.st.shared_limit = None;
        self.st.counters += other.1;
        self.st.counters.parallel_splits += 1;
        for f in other.0 {
            self.keep(f);
        }
        // Free before both threads' earliest pending intervals; a contact found before that
        // is the first (the caller keeps contacts up to the free time).
        self.st.interrupted = match (self.st.interrupted, other.2) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        if self.st.interrupted.is_some_and(|t| t > self.time_limit()) {
            self.st.interrupted = None;
        }
    }

    /// A budgeted traversal (docs/queries.md §4) of the pending pairs `heap`: pairs are taken
    /// earliest interval first, so that when the budget runs out, every pair left starts at
    /// or after the earliest pending interval, and the motion is proven free before it. Split
    /// over two threads as [`Sweep::traverse`] is, each taking its own pairs in time order:
    /// the motion is then proven free before the earlier of the two threads' earliest pending
    /// intervals. Returns the pairs left pending when the budget ran out (none when done).
    fn traverse_in_time_order(&mut self, mut heap: TimeOrder) -> TimeOrder {
        self.run_in_time_order(&mut heap, SPLIT_AFTER, None);
        if self.st.interrupted.is_some() {
            return heap; // out of budget already
        }
        // Only a deadline splits: a box-test budget stays a budget that gives the same answer
        // on every machine (for tests), which two threads racing for the best time would not.
        let deadline = self.st.budget.is_some_and(|b| b.deadline.is_some());
        if heap.len() < 2 || !deadline || !self.st.parallel || crate::parallel::cores() < 2 {
            self.run_in_time_order(&mut heap, usize::MAX, None);
            return if self.st.interrupted.is_some() { heap } else { TimeOrder::default() };
        }
        // Dealt alternately in time order; a thread whose pairs run out takes half of the
        // other's.
        let mut mine = heap;
        let mut theirs = TimeOrder::default();
        for p in mine.split_half() {
            theirs.push(p);
        }
        self.on_two_threads((&mut mine, &mut theirs), |sweep, heap, share| {
            sweep.run_in_time_order(heap, usize::MAX, Some(share))
        });
        if self.st.interrupted.is_none() {
            return TimeOrder::default();
        }
        // One heap of what both left: the second thread's pairs name interval motions in its
        // own arena, so they are re-slotted by their grid interval here.
        for p in theirs.into_sorted() {
            let slot = self.slot(p.i, p.j);
            mine.push(Pending { slot, ..p });
        }
        mine
    }

    /// Processes pending pairs earliest interval first until the heap is empty, `pairs` were
    /// popped, or the budget ran out (then `interrupted` is the earliest pending interval's
    /// start, if it is not after the best contact time). With `share`, a heap that runs out
    /// takes pairs from the other thread's, and hands half of its own to it when asked.
    // Not inlined into the threads' closures: there, with the sharing's drop guard around it,
    // the loop compiled about 10 % slower (car_door drag frames, median 4.1–4.4 against 3.6–3.9
    // ms, alternate runs).
    #[inline(never)]
    fn run_in_time_order(&mut self, heap: &mut TimeOrder, pairs: usize, share: Option<&Sharing>) {
        let mut popped = 0usize;
        let mut children = Vec::new();
        loop {
            let Some(i) = heap.earliest() else {
                let Some(given) = share.and_then(Sharing::take) else { return };
                self.receive(heap, given);
                continue;
            };
            if popped >= pairs {
                return;
            }
            popped += 1;
            if popped.is_multiple_of(32) {
                if self.out_of_budget() {
                    let pending = i as f64 / self.st.grid as f64;
                    if pending <= self.time_limit() {
                        self.st.interrupted = Some(pending);
                    }
                    if let Some(s) = share {
                        s.stop();
                    }
                    return;
                }
                if let Some(s) = share {
                    s.offer(heap); // keeps the earliest pair (the first of every other)
                }
            }
            let p = heap.pop().expect("an earliest pair");
            self.process(p, &mut children);
            for p in children.drain(..) {
                heap.push(p);
            }
        }
    }

    /// Pops and processes pending pairs until the stack is empty or `budget` pairs were
    /// popped. A budgeted `contacts_within` empties the stack when the query's budget runs
    /// out: its list is then what it found so far (docs/queries.md §4). `share` as in
    /// [`Sweep::run_in_time_order`].
    #[inline(never)] // as `run_in_time_order`
    fn run(&mut self, stack: &mut Vec<Pending>, budget: usize, share: Option<&Sharing>) {
        let mut popped = 0;
        while popped < budget {
            let Some(p) = stack.pop() else {
                let Some(given) = share.and_then(Sharing::take) else { break };
                self.receive(stack, given);
                continue;
            };
            popped += 1;
            if popped.is_multiple_of(32) {
                if self.out_of_budget() {
                    self.st.counters.cut_short += 1;
                    stack.clear();
                    if let Some(s) = share {
                        s.stop();
                    }
                    break;
                }
                if let Some(s) = share {
                    s.offer(stack);
                }
            }
            self.process(p, stack);
        }
    }

    /// Pairs handed over by the other thread: their interval motions are in its arena, so
    /// they are found again in this one by their grid interval.
    fn receive(&mut self, pairs: &mut impl PendingPairs, given: Vec<Pending>) {
        self.st.counters.handovers += 1;
        for p in given {
            let slot = self.slot(p.i, p.j);
            pairs.push(Pending { slot, ..p });
        }
    }

    fn out_of_budget(&self) -> bool {
        self.st.budget.is_some_and(|b| {
            b.deadline.is_some_and(|d| std::time::Instant::now() >= d)
                || b.box_tests.is_some_and(|n| self.st.counters.bv_tests >= n)
        })
    }

    /// One pending pair: skipped, tested at its leaves, or opened (its children pushed).
    fn process(&mut self, p: Pending, stack: &mut Vec<Pending>) {
        // The slack keeps a pair whose interval starts exactly at the best time (a tie).
        if p.i as f64 > (self.time_limit() + 1e-12) * self.st.grid as f64 {
            return;
        }
        if self.flagged(p.na, p.nb) {
            return;
        }
        let Some((i, j, slot)) = self.surviving(p.na, p.nb, p.i, p.j, p.slot) else {
            return;
        };
        if self.culled(p.na, p.nb) {
            return;
        }
        let (tree_a, tree_b) = (self.a.tree(), self.b.tree());
        let (node_a, node_b) = (tree_a.node(p.na), tree_b.node(p.nb));
        if node_a.is_leaf() && node_b.is_leaf() {
            for &ta in tree_a.leaf_triangles(node_a) {
                for &tb in tree_b.leaf_triangles(node_b) {
                    self.leaf_pair(ta, tb);
                }
            }
            return;
        }
        // Right child pushed first: the left one is taken first.
        let children = child_pairs(tree_a, tree_b, p.na, p.nb);
        stack.extend(children.into_iter().rev().map(|(na, nb)| Pending { na, nb, i, j, slot }));
    }

    /// Every pair of non-degenerate triangles, no tree: the reference the tree is tested
    /// against.
    fn all_pairs(&mut self) {
        for &ta in self.a.tree().triangles() {
            for &tb in self.b.tree().triangles() {
                self.leaf_pair(ta, tb);
            }
        }
    }

    fn record(&mut self, kind: ContactKind, feature_a: u32, feature_b: u32, hit: Option<Hit>) {
        let Some(hit) = hit else { return };
        self.keep(Found { z: hit.z, kind, feature_a, feature_b, hit });
    }

    /// Keeps a contact: the earliest one (`Mode::First`, also published to the other thread
    /// of a split traversal), or every one (`Mode::Within`).
    fn keep(&mut self, f: Found) {
        match self.st.mode {
            Mode::First => {
                if self.st.found.first().is_none_or(|best| f.precedes(best)) {
                    self.st.found.clear();
                    self.st.found.push(f);
                    self.st.z_limit = f.z;
                    if let Some(s) = &self.st.shared_limit {
                        s.fetch_min(f.z.max(0.0).to_bits(), Ordering::Relaxed);
                    }
                }
            }
            Mode::Within(_) => self.st.found.push(f),
        }
    }

    /// The elementary tests of one triangle pair, through the features each triangle owns
    /// (with culling: the features it is the first non-backward triangle of, and its face only
    /// if it does not move backwards).
    fn leaf_pair(&mut self, ta: u32, tb: u32) {
        let (mesh_a, mesh_b) = (self.a.mesh(), self.b.mesh());
        // Only a solid's features can be culled; an open sheet can be hit from behind.
        let (fa, fb) = if self.st.every_pair {
            if let Some(c) = self.st.culling.as_mut()
                && ((self.a.culls() && c.a.backward(mesh_a, ta)) || (self.b.culls() && c.b.backward(mesh_b, tb)))
            {
                return;
            }
            (Features::all(mesh_a, ta), Features::all(mesh_b, tb))
        } else {
            match self.st.culling.as_mut() {
                Some(c) => (
                    if self.a.culls() { c.a.features(mesh_a, ta) } else { Features::owned(mesh_a, ta) },
                    if self.b.culls() { c.b.features(mesh_b, tb) } else { Features::owned(mesh_b, tb) },
                ),
                None => (Features::owned(mesh_a, ta), Features::owned(mesh_b, tb)),
            }
        };
        let start = self.st.start;
        let ic = self.st.in_contact;
        let sided = ic.filter(|c| !c.every_root());
        let within = ic.map_or(0.0, |c| c.within);
        let start0 = self.st.start0;
        if fb.face {
            let tri_b = mesh_b.triangle_points(tb);
            let n_b = mesh_b.normal(tb);
            for &v in &fa.vertices[..fa.n_vertices] {
                if ic.is_some() {
                    let x0 = start0.transform_point(mesh_a.vertex(v));
                    if (x0 - closest_point_on_triangle(x0, tri_b[0], tri_b[1], tri_b[2])).length() < within {
                        self.st.counters.in_contact_skips += 1;
                        continue;
                    }
                }
                self.st.counters.vf_tests += 1;
                let x = start.transform_point(mesh_a.vertex(v));
                let path = self.st.screw.point_poly(x);
                let entering = |h: &Hit| {
                    let Some(c) = sided else { return true };
                    let dir = self.velocity(&self.st.screw, &path, h.z);
                    let sb = Sides::new(mesh_b, c.orientation_b);
                    let sa = Sides::new(mesh_a, c.orientation_a);
                    let to_a = self.a_at(h.z).inverse();
                    enters(&sb, sb.place_on_face(tb, h.point, self.place_tol()), dir)
                        || enters(&sa, Place::Vertex(v), -to_a.transform_vector(dir))
                };
                let roots = if sided.is_some() { Roots::Entering(&entering) } else { Roots::All };
                let hit = vertex_face_roots(&self.st.screw, x, &tri_b, n_b, self.limit(), &self.st.tol, roots);
                self.record(ContactKind::VertexFace, v, tb, hit);
            }
        }
        if fa.face {
            let tri_a = mesh_a.triangle_points(ta).map(|p| start.transform_point(p));
            let n_a = start.transform_vector(mesh_a.normal(ta));
            let tri_a0 = mesh_a.triangle_points(ta).map(|p| start0.transform_point(p));
            for &v in &fb.vertices[..fb.n_vertices] {
                let y = mesh_b.vertex(v);
                if ic.is_some() && (y - closest_point_on_triangle(y, tri_a0[0], tri_a0[1], tri_a0[2])).length() < within
                {
                    self.st.counters.in_contact_skips += 1;
                    continue;
                }
                self.st.counters.fv_tests += 1;
                let path = self.st.inverse.point_poly(y);
                // The inner test's frame is A's placement at the piece's start (in B's frame).
                let entering = |h: &Hit| {
                    let Some(c) = sided else { return true };
                    let dir = self.velocity(&self.st.inverse, &path, h.z);
                    let sa = Sides::new(mesh_a, c.orientation_a);
                    let sb = Sides::new(mesh_b, c.orientation_b);
                    let in_a = start.inverse();
                    let place = sa.place_on_face(ta, in_a.transform_point(h.point), self.place_tol());
                    let turn = self.st.screw.displacement_at(self.st.screw.t_of_z(h.z));
                    enters(&sa, place, in_a.transform_vector(dir))
                        || enters(&sb, Place::Vertex(v), -turn.transform_vector(dir))
                };
                let roots = if sided.is_some() { Roots::Entering(&entering) } else { Roots::All };
                let hit = face_vertex_roots(
                    &self.st.screw,
                    &self.st.inverse,
                    y,
                    &tri_a,
                    n_a,
                    self.limit(),
                    &self.st.tol,
                    roots,
                );
                self.record(ContactKind::FaceVertex, ta, v, hit);
            }
        }
        for &ea in &fa.edges[..fa.n_edges] {
            let [p, q] = mesh_a.edge_points(ea).map(|x| start.transform_point(x));
            let [p0, q0] = mesh_a.edge_points(ea).map(|x| start0.transform_point(x));
            for &eb in &fb.edges[..fb.n_edges] {
                let [c, d] = mesh_b.edge_points(eb);
                // An edge inside a flat polygon is no edge of the solid: a pair in contact
                // slides across it (docs/contact-from-start.md §4).
                if let Some(k) = sided
                    && (Sides::new(mesh_a, k.orientation_a).is_flat(ea)
                        || Sides::new(mesh_b, k.orientation_b).is_flat(eb))
                {
                    self.st.counters.in_contact_skips += 1;
                    continue;
                }
                if ic.is_some() {
                    let (_, _, x, y) = closest_points_segments(p0, q0, c, d);
                    if (x - y).length() < within {
                        self.st.counters.in_contact_skips += 1;
                        continue;
                    }
                }
                self.st.counters.ee_tests += 1;
                let entering = |h: &Hit| {
                    let Some(k) = sided else { return true };
                    let (sa, sb) = (Sides::new(mesh_a, k.orientation_a), Sides::new(mesh_b, k.orientation_b));
                    // A's edge point at the contact, followed along the motion.
                    let a_now = self.a_at(h.z);
                    let on_a = a_now.inverse().transform_point(h.point);
                    let [pa, qa] = mesh_a.edge_points(ea);
                    let s = ((on_a - pa).dot(qa - pa) / (qa - pa).length_squared()).clamp(0.0, 1.0);
                    let path = self.st.screw.point_poly(start.transform_point(pa + s * (qa - pa)));
                    let dir = self.velocity(&self.st.screw, &path, h.z);
                    // Two convex wedges crossing: they interpenetrate past the contact exactly
                    // when they approach along their lines' common normal, whichever way either
                    // point runs along a face (docs/contact-from-start.md §4).
                    if let Some(n) = crossing_normal((&sa, &a_now, ea), (&sb, &Pose::IDENTITY, eb)) {
                        return dir.dot(n) < -1e-9 * dir.length();
                    }
                    // Either edge's points going into the other part where they cross (a
                    // point of A's edge just beside the crossing may enter though the one at
                    // it does not: an edge crossing a reflex edge, §4).
                    let tol = self.place_tol();
                    let a_line = a_now.transform_vector(qa - pa);
                    let b_line = a_now.inverse().transform_vector(d - c);
                    // Which ways each edge goes on from the crossing (none past an end).
                    let t = ((h.point - c).dot(d - c) / (d - c).length_squared()).clamp(0.0, 1.0);
                    let ways = |s: f64, len: f64| (s * len > tol, (1.0 - s) * len > tol);
                    let (a_ways, b_ways) = (ways(s, (qa - pa).length()), ways(t, (d - c).length()));
                    sb.edge_enters(sb.place_on_edge(eb, h.point, tol), a_line, dir, a_ways)
                        || sa.edge_enters(
                            sa.place_on_edge(ea, on_a, tol),
                            b_line,
                            -a_now.inverse().transform_vector(dir),
                            b_ways,
                        )
                };
                let roots = if sided.is_some() { Roots::Entering(&entering) } else { Roots::All };
                let hit = edge_edge_roots(&self.st.screw, p, q, c, d, self.limit(), &self.st.tol, roots);
                self.record(ContactKind::EdgeEdge, ea, eb, hit);
            }
        }
    }

    /// A's pose in B's frame at `z` of the piece.
    fn a_at(&self, z: f64) -> Pose {
        self.st.screw.displacement_at(self.st.screw.t_of_z(z)) * self.st.start
    }

    /// The direction a point moves in at `z` along `screw` (its polynomial `path`).
    fn velocity(&self, screw: &Screw, path: &[DVec3; 4], z: f64) -> DVec3 {
        let h = 1e-6;
        let (lo, hi) = ((z - h).max(0.0), (z + h).min(1.0));
        screw.eval_poly(path, hi) - screw.eval_poly(path, lo)
    }

    /// Contact points this close to a feature's boundary are on it.
    fn place_tol(&self) -> f64 {
        1e-9 * self.st.tol.scale
    }
}

fn enters(sides: &Sides, place: Place, dir: DVec3) -> bool {
    sides.enters(place, dir)
}

/// Coordinate scale of a query: the largest coordinate magnitude of the two root boxes, A's
/// at both ends of the motion, in B's frame.
fn scale(a: &Collider, b: &Collider, rel: &RelativeMotion) -> f64 {
    let ra = a.tree().root().obb;
    let rb = b.tree().root().obb;
    let ends = [rel.relative.start(), rel.relative.end()];
    ends.iter()
        .map(|p| p.transform_point(ra.center).length() + ra.radius())
        .fold(rb.center.length() + rb.radius(), f64::max)
        .max(f64::MIN_POSITIVE)
}

pub(super) fn run(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
    mode: Mode,
    use_tree: bool,
) -> Counted<Vec<Contact>> {
    run_budgeted(a, motion_a, b, motion_b, opts, mode, use_tree, None).0
}

/// A budgeted first contact that ran out of budget before it finished, kept to go on with
/// later over the same colliders and motions (docs/queries.md §4): the piece it was in, its
/// sweep's state and the node pairs it left pending.
#[derive(Clone)]
pub struct Suspended {
    piece: u32,
    state: SweepState,
    pending: TimeOrder,
    motions: [Motion; 2],
}

impl std::fmt::Debug for Suspended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suspended").field("piece", &self.piece).field("pending", &self.pending.len()).finish()
    }
}

/// [`run`], the time up to which the motion is proven free when `opts.budget` ran out (1
/// otherwise), and then the query's state to go on with. `resume` takes up such a state
/// (ignored unless it is about these motions).
#[allow(clippy::too_many_arguments)]
fn run_budgeted(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
    mode: Mode,
    use_tree: bool,
    resume: Option<Suspended>,
) -> (Counted<Vec<Contact>>, f64, Option<Suspended>) {
    let poses = [motion_a.from, motion_a.to, motion_b.from, motion_b.to];
    if !poses.iter().all(|p| p.is_finite() && p.rotation.length() > 0.0) {
        // Nothing is known about a body placed nowhere; without this, NaN boxes would never
        // separate and the query would test every pair.
        return (Counted::default(), 1.0, None);
    }
    let mut free_until = 1.0;
    let rel = RelativeMotion::new(motion_a, motion_b);
    let path = rel.relative;
    let pieces = path.piece_count();
    let screw = *path.piece_screw();
    let scale = scale(a, b, &rel);
    let tol = Tolerance { scale, contact: opts.contact_tolerance * scale };
    let grid = 1u32 << opts.subdivision_depth.min(MAX_SUBDIVISION_DEPTH);
    let budget = use_tree.then_some(opts.budget).flatten();
    let mut resume = resume.filter(|r| budget.is_some() && r.motions == [*motion_a, *motion_b]);
    let mut counters = Counters::default();
    let mut contacts = Vec::new();
    let mut suspended = None;
    for k in resume.as_ref().map_or(0, |r| r.piece)..pieces {
        let z_limit = match mode {
            Mode::First => 1.0,
            Mode::Within(t_max) => {
                let local = t_max * pieces as f64 - k as f64;
                if local < 0.0 {
                    break;
                }
                screw.z_of_t(local.min(1.0))
            }
        };
        let budget =
            budget.map(|b| QueryBudget { box_tests: b.box_tests.map(|n| n.saturating_sub(counters.bv_tests)), ..b });
        let (mut sweep, heap) =
            match resume.take() {
                // Where it stopped: the same state, a new budget; counters count this call's work.
                Some(r) => {
                    let st = SweepState { counters: Counters::default(), budget, interrupted: None, ..r.state };
                    (Sweep { a, b, st }, Some(r.pending))
                }
                None => {
                    let start = path.piece_start(k);
                    // Only the first contact: after it the bodies interpenetrate, where culling may
                    // drop contacts that `contacts_within` must report (docs/bm-culling.md §1).
                    // Culling rests on a free start (docs/bm-culling.md §1): not for bodies in
                    // contact.
                    let culling = (opts.bm_culling && use_tree && mode == Mode::First && opts.in_contact.is_none())
                        .then(|| Culling {
                            a: BodyCulling::new(CullMotion::moving(&screw, &start), a.tree().nodes().len()),
                            b: BodyCulling::new(CullMotion::fixed(&screw), b.tree().nodes().len()),
                        });
                    let st = SweepState {
                        screw,
                        inverse: screw.inverse(),
                        start,
                        tol,
                        mode,
                        z_limit,
                        found: Vec::new(),
                        counters: Counters::default(),
                        grid,
                        ratio: opts.subdivision_ratio,
                        intervals: IntervalCache { grid, arena: Vec::new(), slots: HashMap::default() },
                        culling,
                        shared_limit: None,
                        parallel: opts.parallel,
                        every_pair: opts.every_triangle_pair,
                        in_contact: opts.in_contact,
                        start0: path.start(),
                        budget,
                        interrupted: None,
                    };
                    (Sweep { a, b, st }, None)
                }
            };
        let left = match (use_tree, heap) {
            (true, Some(heap)) => sweep.traverse_in_time_order(heap),
            (true, None) => sweep.traverse(),
            (false, _) => {
                sweep.all_pairs();
                TimeOrder::default()
            }
        };
        counters += sweep.st.counters;
        for f in &sweep.st.found {
            let time = path.global_time(k, screw.t_of_z(f.z));
            let pose_b = rel.pose_b_at(time);
            contacts.push(Contact {
                time,
                point: pose_b.transform_point(f.hit.point),
                normal: pose_b.transform_vector(f.hit.normal).normalize(),
                kind: f.kind,
                feature_a: f.feature_a,
                feature_b: f.feature_b,
            });
        }
        if let Some(local) = sweep.st.interrupted {
            // Out of budget: proven free before the earliest pending interval; a contact found
            // after that is not proven the first.
            free_until = path.global_time(k, local);
            contacts.retain(|c| c.time <= free_until);
            suspended = Some(Suspended { piece: k, state: sweep.st, pending: left, motions: [*motion_a, *motion_b] });
            break;
        }
        if mode == Mode::First && !contacts.is_empty() {
            break;
        }
    }
    contacts.sort_by(|x, y| {
        (x.time, x.kind, x.feature_a, x.feature_b)
            .partial_cmp(&(y.time, y.kind, y.feature_a, y.feature_b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // A feature pair met through several triangle pairs (`every_triangle_pair`) once.
    contacts.dedup_by(|x, y| (x.time, x.kind, x.feature_a, x.feature_b) == (y.time, y.kind, y.feature_a, y.feature_b));
    (Counted { value: contacts, counters }, free_until, suspended)
}

/// The earliest of a `Mode::First` run's contacts (there is at most one).
pub(super) fn first_of(r: Counted<Vec<Contact>>) -> Counted<Option<Contact>> {
    Counted { value: r.value.into_iter().next(), counters: r.counters }
}

/// The first contact of A and B while A follows `motion_a` and B `motion_b`: exact (roots of
/// cubics along Redon's screw, no time sampling). `None` if they never touch in `[0, 1]`.
///
/// If A and B already interpenetrate at time 0 (surfaces crossing, or one inside the
/// other), the answer only reports where features cross during the step, and with
/// `bm_culling` it may miss some (docs/bm-culling.md §1); check
/// [`intersects`](super::intersects) first. Poses must be
/// finite with non-zero quaternions; otherwise there is no answer (`None`).
pub fn first_contact(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
) -> Counted<Option<Contact>> {
    first_of(run(a, motion_a, b, motion_b, opts, Mode::First, true))
}

/// [`first_contact`] within `opts.budget` (docs/queries.md §4): the contact if it was found
/// and proven the first before the budget ran out, and the time up to which the motion is
/// proven free. Without a budget, the same answer as `first_contact` (`free_until` is the
/// contact's time, or 1).
pub fn first_contact_within_budget(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
) -> Counted<FirstContact> {
    first_contact_suspendable(a, motion_a, b, motion_b, opts, None).0
}

/// [`first_contact_within_budget`] that keeps its work when the budget runs out: then it also
/// returns the query's state, which a later call with the same colliders and motions takes
/// up where it stopped (`resume`; docs/queries.md §4). A state about other motions is ignored
/// (the query starts over); the caller must pass the same colliders (they are not checked).
/// A resumed query takes every option but the budget from its state.
pub fn first_contact_suspendable(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
    resume: Option<Suspended>,
) -> (Counted<FirstContact>, Option<Suspended>) {
    let (r, free_until, suspended) = run_budgeted(a, motion_a, b, motion_b, opts, Mode::First, true, resume);
    let contact = r.value.into_iter().next();
    let free_until = contact.map_or(free_until, |c| c.time.min(free_until));
    (Counted { value: FirstContact { contact, free_until }, counters: r.counters }, suspended)
}

/// Every feature pair that touches at or before `t_max`, each at its earliest contact,
/// sorted by time: the near-simultaneous contacts the solver adds at once.
pub fn contacts_within(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    t_max: f64,
    opts: &QueryOptions,
) -> Counted<Vec<Contact>> {
    run(a, motion_a, b, motion_b, opts, Mode::Within(t_max), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The stacks by start pop in the order of a heap on (earliest start, last pushed),
        /// whatever the pushes and pops, and `into_sorted` lists what is left in that order.
        #[test]
        fn time_order_pops_as_a_heap_on_start_then_last_pushed(
            ops in prop::collection::vec(prop::option::weighted(0.6, 0u32..20), 0..200),
        ) {
            let mut order = TimeOrder::default();
            let mut heap = std::collections::BinaryHeap::new();
            for (n, op) in ops.iter().enumerate() {
                match *op {
                    Some(i) => {
                        order.push(Pending { na: n as u32, nb: 0, i, j: i + 1, slot: 0 });
                        heap.push((std::cmp::Reverse(i), n));
                    }
                    None => {
                        let expected = heap.pop().map(|(_, n)| n as u32);
                        prop_assert_eq!(order.pop().map(|p| p.na), expected);
                    }
                }
                prop_assert_eq!(order.len(), heap.len());
            }
            let rest: Vec<u32> = order.into_sorted().iter().map(|p| p.na).collect();
            let expected: Vec<u32> = std::iter::from_fn(|| heap.pop().map(|(_, n)| n as u32)).collect();
            prop_assert_eq!(rest, expected);
        }
    }
}
