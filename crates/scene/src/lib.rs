//! Scene documents, mesh import (OBJ, STL, glTF/GLB) and the demo assemblies. No Bevy.

pub mod cad;
pub mod demo;
pub mod document;
pub mod embedded;
pub mod gltf;
pub mod load;
pub mod mesh_file;
pub mod obj;
pub mod save_as;
pub mod source;
pub mod stl;
pub mod triangulate;

pub use document::{
    CameraDocument, Distances, MeshScale, NarrowPhase, PartDocument, PoseDocument, SCENE_VERSION, SceneDocument,
    SceneError, SolverDocument,
};
pub use load::{LoadedScene, Progress, import, import_obj, load};
pub use mesh_file::{Format, ImportError, ImportOptions};
