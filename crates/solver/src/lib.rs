//! Quasi-static constrained motion of rigid parts (seed 001 §3–5, docs/solver.md): a dragged
//! part follows its target, stops at first contact, slides along what it touches, and never
//! interpenetrates. Gauss' least constraint in motion space, solved through its dual with
//! `mockup-cone`; every move is checked by `mockup-ccd` along Redon's screw motion.

mod contact;
pub mod gauss;
mod mass;
pub mod memory;
mod patch;
mod settings;
mod world;

pub use contact::{BodyId, ContactPoint};
pub use mass::MassProperties;
pub use settings::{NarrowPhase, REFERENCE_SCENE_SIZE, SolverSettings};
pub use world::{Body, Move, SolverError, StepReport, World};
