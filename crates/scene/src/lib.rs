//! Scene documents, OBJ import and the demo assemblies. No Bevy.

pub mod cad;
pub mod demo;
pub mod document;
pub mod embedded;
pub mod load;
pub mod obj;
pub mod save_as;
pub mod source;
pub mod triangulate;

pub use document::{
    CameraDocument, Distances, NarrowPhase, PartDocument, PoseDocument, SCENE_VERSION, SceneDocument, SceneError,
    SolverDocument,
};
pub use load::{LoadedScene, Progress, import_obj, load};
