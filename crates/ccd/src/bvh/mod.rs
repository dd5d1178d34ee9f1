//! OBB trees and the static and continuous box tests (docs/continuous-obb.md).

pub mod continuous;
pub mod interval;
pub mod obb;
pub mod tree;

pub use continuous::{BoxTest, IntervalMotion};
pub use obb::{Obb, separated};
pub use tree::{Node, ObbTree, TreeStats};
