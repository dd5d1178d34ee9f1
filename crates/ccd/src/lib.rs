//! Continuous collision detection of rigid triangle meshes under Redon's screw motion.
//!
//! Seed 001 §2 (S. Redon, *Fast Continuous Collision Detection and Handling for Desktop
//! Virtual Prototyping*). Derivations: `docs/motion.md`, `docs/continuous-obb.md`.

pub mod broad;
pub mod bvh;
mod collider;
pub mod elementary;
pub mod geometry;
pub mod glide;
pub mod mesh;
pub mod motion;
pub mod parallel;
pub mod query;

pub use collider::{Collider, ColliderOptions, DEFAULT_LEAF_SIZE};
pub use mesh::{Mesh, MeshBuilder, MeshError, MeshStats};
pub use motion::{Motion, Pose, RelativeMotion, Screw, ScrewPath};
pub use query::{
    ClosestPair, Contact, ContactKind, Counted, Counters, FirstContact, InContact, NearTrianglePairs, ProximityPair,
    QueryBudget, QueryOptions, Suspended, VertexBand, VertexReadings, contacts_within, distance, first_contact,
    first_contact_suspendable, first_contact_within_budget, intersects, near_triangle_pairs, proximity,
    proximity_among, ray_cast, vertex_owner_count, vertex_readings,
};
