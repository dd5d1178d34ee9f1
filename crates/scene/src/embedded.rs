//! The default scene (`car_door`), embedded in the binary so the app opens it with no file.

use crate::source::Embedded;
use std::path::PathBuf;

/// The embedded files and the scene's path among them.
pub fn default_scene() -> (Embedded, PathBuf) {
    let files = Embedded::new([
        ("scenes/car_door.ron", include_bytes!("../../../scenes/car_door.ron").as_slice()),
        ("assets/car_door.obj", include_bytes!("../../../assets/car_door.obj").as_slice()),
        ("assets/car_door.mtl", include_bytes!("../../../assets/car_door.mtl").as_slice()),
    ]);
    (files, PathBuf::from("scenes/car_door.ron"))
}
