//! Saving a scene somewhere else than it came from: its mesh paths must still resolve.

use crate::document::{self, SceneDocument, SceneError};
use crate::load::relative_mesh_paths;
use crate::source::{Source, normalize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where the document's meshes are now.
pub enum Meshes<'a> {
    /// On disk; relative mesh paths are relative to this folder (the scene file's).
    OnDisk(&'a Path),
    /// In a source that is not the file system (the built-in scene), relative to this
    /// folder in it. They are written beside the new scene file.
    Copy(&'a Path, &'a dyn Source),
}

/// Saves `doc` atomically at `path` with its mesh paths rewritten relative to the new folder,
/// and returns the document as saved. Meshes that only exist in memory are first written
/// beside it (with the material libraries they name); a file already there with other
/// content is an error, never overwritten.
pub fn save_as(doc: &SceneDocument, meshes: Meshes, path: &Path) -> Result<SceneDocument, SceneError> {
    let to_dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut out = doc.clone();
    match meshes {
        Meshes::OnDisk(from_dir) => {
            let from = std::path::absolute(from_dir).unwrap_or(from_dir.to_path_buf());
            for p in &mut out.parts {
                if Path::new(&p.mesh).is_relative() {
                    p.mesh = normalize(&from.join(&p.mesh)).to_string_lossy().into_owned();
                }
            }
            relative_mesh_paths(&mut out, &to_dir);
        }
        Meshes::Copy(from_dir, source) => {
            let mut written = BTreeSet::new();
            for p in &mut out.parts {
                let at = normalize(&from_dir.join(&p.mesh));
                let name = file_name(&at, path)?;
                if written.insert(at.clone()) {
                    let bytes = read(source, &at, path)?;
                    for lib in material_libraries(&bytes) {
                        let lib_at = normalize(&at.parent().unwrap_or(Path::new("")).join(&lib));
                        // A missing library only loses colours, as it would on load.
                        if let Ok(b) = source.read(&lib_at) {
                            write_new(&to_dir.join(file_name(&lib_at, path)?), &b)?;
                        }
                    }
                    write_new(&to_dir.join(&name), &bytes)?;
                }
                p.mesh = name;
            }
        }
    }
    document::save(&out, path)?;
    Ok(out)
}

fn file_name(at: &Path, scene: &Path) -> Result<String, SceneError> {
    at.file_name().map(|n| n.to_string_lossy().into_owned()).ok_or_else(|| SceneError::Invalid {
        path: scene.to_path_buf(),
        message: format!("mesh path {} has no file name", at.display()),
    })
}

fn read(source: &dyn Source, at: &Path, scene: &Path) -> Result<Vec<u8>, SceneError> {
    source.read(at).map_err(|e| SceneError::Invalid {
        path: scene.to_path_buf(),
        message: format!("cannot copy mesh {}: {e}", at.display()),
    })
}

/// The `mtllib` names of an OBJ file.
fn material_libraries(obj: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(obj)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mtllib "))
        .flat_map(|rest| rest.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

/// Writes a new file atomically; identical content already there is fine, other content an
/// error.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    let io = |source| SceneError::Io { path: path.to_path_buf(), source };
    match std::fs::read(path) {
        Ok(existing) if existing == bytes => return Ok(()),
        Ok(_) => {
            return Err(SceneError::Invalid {
                path: path.to_path_buf(),
                message: "a different file of this name is already there; save the scene in another folder".into(),
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    document::write_atomic(path, bytes).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileSystem;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mockup-save-as-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_built_in_scene_saved_elsewhere_loads_with_the_same_parts() {
        let (files, scene) = crate::embedded::default_scene();
        let loaded = crate::load(&scene, &files, &mut |_| {}).unwrap();
        let dir = temp_dir("embedded");
        let target = dir.join("door.ron");
        let from = scene.parent().unwrap();
        let saved = save_as(&loaded.document, Meshes::Copy(from, &files), &target).unwrap();
        assert!(saved.parts.iter().all(|p| p.mesh == "car_door.obj"));
        assert!(dir.join("car_door.mtl").exists());
        let again = crate::load(&target, &FileSystem, &mut |_| {}).unwrap();
        assert_eq!(again.document.parts.len(), loaded.document.parts.len());
        for (a, b) in again.colliders.iter().zip(&loaded.colliders) {
            assert_eq!(a.mesh().triangles().len(), b.mesh().triangles().len());
        }
        // Saving again over the same meshes is fine; a different file of the same name is not.
        save_as(&loaded.document, Meshes::Copy(from, &files), &target).unwrap();
        std::fs::write(dir.join("car_door.mtl"), b"# mine\n").unwrap();
        let e = save_as(&loaded.document, Meshes::Copy(from, &files), &dir.join("other.ron")).unwrap_err();
        assert!(e.to_string().contains("car_door.mtl") && e.to_string().contains("already there"), "{e}");
        assert_eq!(std::fs::read(dir.join("car_door.mtl")).unwrap(), b"# mine\n");
    }

    #[test]
    fn a_scene_saved_in_another_folder_still_finds_its_meshes() {
        let root = temp_dir("disk");
        let (a, b) = (root.join("a"), root.join("b/c"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("box.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
        let doc_text = r#"(version: 1, parts: [(name: "p", mesh: "box.obj", pose: (translation: (0, 0, 0),
            rotation: (0, 0, 0, 1)), fixed: true, color: (1, 1, 1))])"#;
        std::fs::write(a.join("s.ron"), doc_text).unwrap();
        let loaded = crate::load(&a.join("s.ron"), &FileSystem, &mut |_| {}).unwrap();
        let saved = save_as(&loaded.document, Meshes::OnDisk(&a), &b.join("t.ron")).unwrap();
        assert_eq!(saved.parts[0].mesh, "../../a/box.obj");
        let again = crate::load(&b.join("t.ron"), &FileSystem, &mut |_| {}).unwrap();
        assert_eq!(again.colliders[0].mesh().triangles().len(), 1);
    }
}
