//! The public queries: first contact and contacts before a time along a motion, static
//! intersection, proximity pairs, minimum distance and ray casts. Every query reports what it
//! counted.

mod continuous;
mod distance;
mod intersects;
mod proximity;
mod ray;
pub mod reference;
pub(crate) mod traversal;

pub(crate) use continuous::IntKeyHasher;
pub use continuous::{
    FirstContact, InContact, QueryBudget, Suspended, contacts_within, first_contact, first_contact_suspendable,
    first_contact_within_budget,
};
pub use distance::{ClosestPair, Feature, distance};
pub use intersects::intersects;
pub use proximity::{
    NearTrianglePairs, ProximityPair, VertexBand, VertexReadings, near_triangle_pairs, proximity, proximity_among,
    vertex_owner_count, vertex_readings,
};
pub use ray::{RayHit, ray_cast, ray_triangle};

use glam::DVec3;
use std::ops::AddAssign;

/// What a query did: how we see what an optimisation changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Box/box tests (static or continuous; each time sub-interval counts).
    pub bv_tests: u64,
    /// Vertex of A against face of B.
    pub vf_tests: u64,
    /// Face of A against vertex of B.
    pub fv_tests: u64,
    /// Edge of A against edge of B.
    pub ee_tests: u64,
    /// Triangle/triangle tests (static intersection).
    pub triangle_tests: u64,
    /// BM-culling tests of nodes (docs/bm-culling.md): at most one per node and piece.
    pub cull_tests: u64,
    /// Nodes those tests culled.
    pub culled_nodes: u64,
    /// Traversals that split over a second thread (`QueryOptions::parallel`).
    pub parallel_splits: u64,
    /// Times one traversal thread handed half of its pending pairs to the other, whose own
    /// had run out.
    pub handovers: u64,
    /// Feature pairs left out because they were in contact at the start
    /// (`QueryOptions::in_contact`).
    pub in_contact_skips: u64,
    /// `contacts_within` traversals the budget cut short: their list may miss contacts.
    pub cut_short: u64,
}

impl Counters {
    pub fn elementary_tests(&self) -> u64 {
        self.vf_tests + self.fv_tests + self.ee_tests
    }
}

impl AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.bv_tests += o.bv_tests;
        self.vf_tests += o.vf_tests;
        self.fv_tests += o.fv_tests;
        self.ee_tests += o.ee_tests;
        self.triangle_tests += o.triangle_tests;
        self.cull_tests += o.cull_tests;
        self.culled_nodes += o.culled_nodes;
        self.parallel_splits += o.parallel_splits;
        self.handovers += o.handovers;
        self.in_contact_skips += o.in_contact_skips;
        self.cut_short += o.cut_short;
    }
}

/// A query's answer with its counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counted<T> {
    pub value: T,
    pub counters: Counters,
}

/// Which features meet; A's feature is named first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContactKind {
    /// Vertex of A, face of B.
    VertexFace,
    /// Face of A, vertex of B.
    FaceVertex,
    EdgeEdge,
    /// Only from proximity: vertex of A nearest to the inside of an edge of B.
    VertexEdge,
    /// Only from proximity: inside of an edge of A nearest to a vertex of B.
    EdgeVertex,
    /// A vertex of A and a vertex of B. From proximity: read for A's vertex (B's vertex is its
    /// nearest point on B, or, from edge/edge closest points, a farther reading of it).
    VertexVertex,
    /// Only from proximity: the same two vertices read for B's vertex, A's vertex being its
    /// nearest point on A (docs/queries.md §6). In the solver, A is body i and B body j: this
    /// is j's vertex's reading ("VVʲ" in docs/contact-from-start.md §3).
    VertexVertexForB,
}

impl ContactKind {
    /// `vertex_face`, `face_vertex`, `edge_edge`, …: the names used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ContactKind::VertexFace => "vertex_face",
            ContactKind::FaceVertex => "face_vertex",
            ContactKind::EdgeEdge => "edge_edge",
            ContactKind::VertexEdge => "vertex_edge",
            ContactKind::EdgeVertex => "edge_vertex",
            ContactKind::VertexVertex => "vertex_vertex",
            ContactKind::VertexVertexForB => "vertex_vertex_for_b",
        }
    }
}

/// A contact found along a motion, in world coordinates at the contact time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// In `[0, 1]`, the fraction of the step.
    pub time: f64,
    /// VF: A's vertex; FV: B's vertex; EE: midpoint of the edges' closest points.
    pub point: DVec3,
    /// Unit normal pointing from B toward A: the face normal (VF, FV) or the edges' cross
    /// product (EE), oriented toward the side A came from.
    pub normal: DVec3,
    pub kind: ContactKind,
    /// Vertex, face or edge index in A's mesh (per `kind`).
    pub feature_a: u32,
    /// Vertex, face or edge index in B's mesh.
    pub feature_b: u32,
}

/// Settings of the continuous queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryOptions {
    /// Largest distance between primitives at a root for it to count as a contact, as a
    /// fraction of the query's coordinate scale (docs/motion.md §5).
    pub contact_tolerance: f64,
    /// Time intervals of box pairs are split down to `1 / 2^subdivision_depth` of the step
    /// (docs/continuous-obb.md §4); at most 12, larger values count as 12.
    pub subdivision_depth: u32,
    /// A pair's interval is split only when its sweep exceeds this multiple of the two
    /// boxes' radii.
    pub subdivision_ratio: f64,
    /// Backward-motion culling with the colliders' BM-cones in `first_contact`
    /// (docs/bm-culling.md). It never changes the answer for a step that starts free of
    /// interpenetration. `contacts_within` does not cull: it also reports contacts after the
    /// first, where the bodies already interpenetrate.
    pub bm_culling: bool,
    /// A continuous query still running after a few thousand box pairs splits its pending
    /// pairs over a second thread (the answer is the same; docs/architecture.md).
    pub parallel: bool,
    /// Seed 000's elementary tests, to reproduce its Table 1: every leaf triangle pair tests
    /// all its 9 edge pairs and 3 + 3 vertex/face pairs (a feature once per incident
    /// triangle), and culling skips a pair whose triangle moves backwards. Off (the default),
    /// each feature is tested through one triangle only (docs/bm-culling.md §5). Same answers,
    /// more tests.
    pub every_triangle_pair: bool,
    /// The two bodies are in contact from the start (docs/contact-from-start.md §4): only
    /// entering crossings of feature pairs not already in contact count. `None`: every touch.
    pub in_contact: Option<InContact>,
    /// Stop `first_contact_within_budget` at a time or a count of box tests: it then
    /// returns the time up to which the motion is proven free (docs/queries.md §4).
    /// `contacts_within` stops at it with the contacts it found (`Counters::cut_short`).
    /// Other queries ignore it.
    pub budget: Option<QueryBudget>,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            contact_tolerance: 1e-10,
            subdivision_depth: 6,
            subdivision_ratio: 1.0,
            bm_culling: true,
            parallel: true,
            every_triangle_pair: false,
            in_contact: None,
            budget: None,
        }
    }
}
