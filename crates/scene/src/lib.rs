//! Scene documents and OBJ import. No Bevy.

pub mod obj;
