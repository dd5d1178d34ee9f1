//! Scene documents, OBJ import and the demo assemblies. No Bevy.

pub mod obj;
pub mod source;
