//! OBB trees and the static and continuous box tests (docs/continuous-obb.md).

pub mod cones;
pub mod continuous;
pub mod culling;
pub mod interval;
pub mod obb;
pub mod tree;

pub use cones::{BmCones, ConeSettings, ConeStats, encloses_volume, is_solid};
pub use continuous::{BoxTest, IntervalMotion};
pub use culling::CullMotion;
pub use obb::{Obb, distance_lower_bound, separated};
pub use tree::{Node, ObbTree, TreeStats};
