//! The broad phase over the parts of a scene (docs/queries.md §2): world boxes of posed
//! colliders, boxes swept over a step, and a dynamic AABB tree that finds the parts near a
//! box and every pair of parts whose boxes overlap.

mod aabb;
mod tree;

pub use aabb::Aabb;
pub use tree::{BroadPhase, BroadPhaseError, BroadStats};
