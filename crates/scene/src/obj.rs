//! OBJ import with tobj: polygons triangulated, geometry taken exactly as the file gives it.

use glam::DVec3;
use mockup_ccd::{Mesh, MeshError};
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ObjError {
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Mesh { path: PathBuf, source: MeshError },
}

/// A mesh read from an OBJ file, with what was wrong but not fatal.
#[derive(Debug)]
pub struct ObjMesh {
    pub mesh: Mesh,
    pub warnings: Vec<String>,
}

fn load_options() -> tobj::LoadOptions {
    tobj::LoadOptions { triangulate: true, single_index: true, ..Default::default() }
}

/// Reads every object and group of the file into one mesh, without rescaling. A missing
/// material library or texture is a warning.
pub fn load_merged(path: &Path) -> Result<ObjMesh, ObjError> {
    let parse_error = |message: String| ObjError::Parse { path: path.to_path_buf(), message };
    let (models, materials) = tobj::load_obj(path, &load_options()).map_err(|e| parse_error(describe(e)))?;
    let mut warnings = Vec::new();
    match materials {
        Ok(materials) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            for m in &materials {
                for texture in [&m.diffuse_texture, &m.ambient_texture, &m.specular_texture, &m.normal_texture]
                    .into_iter()
                    .flatten()
                {
                    if !dir.join(texture).exists() {
                        warnings.push(format!(
                            "{}: texture {texture:?} of material {:?} not found",
                            path.display(),
                            m.name
                        ));
                    }
                }
            }
        }
        Err(e) => warnings.push(format!("{}: materials not loaded ({})", path.display(), describe(e))),
    }
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for model in &models {
        let base = vertices.len() as u32;
        vertices.extend(model.mesh.positions.chunks_exact(3).map(|p| DVec3::new(p[0], p[1], p[2])));
        triangles.extend(model.mesh.indices.chunks_exact(3).map(|t| [t[0] + base, t[1] + base, t[2] + base]));
    }
    let mesh = Mesh::new(vertices, triangles).map_err(|source| ObjError::Mesh { path: path.to_path_buf(), source })?;
    let degenerate = mesh.stats().degenerate_triangles;
    if degenerate > 0 {
        warnings.push(format!("{}: {degenerate} zero-area triangles are ignored", path.display()));
    }
    Ok(ObjMesh { mesh, warnings })
}

fn describe(e: tobj::LoadError) -> String {
    use tobj::LoadError::*;
    match e {
        OpenFileFailed => "cannot open the file".into(),
        ReadError => "cannot read the file (not text?)".into(),
        UnrecognizedCharacter => "unrecognized character".into(),
        PositionParseError => "a vertex position is not a number".into(),
        NormalParseError => "a vertex normal is not a number".into(),
        TexcoordParseError => "a texture coordinate is not a number".into(),
        FaceParseError => "a face is malformed".into(),
        MaterialParseError => "the material library is malformed".into(),
        InvalidObjectName => "an object name is invalid".into(),
        FaceVertexOutOfBounds => "a face refers to a vertex that does not exist".into(),
        FaceTexCoordOutOfBounds => "a face refers to a texture coordinate that does not exist".into(),
        FaceNormalOutOfBounds => "a face refers to a normal that does not exist".into(),
        FaceColorOutOfBounds => "a face refers to a vertex color that does not exist".into(),
        InvalidLoadOptionConfig => "invalid load options".into(),
        ScalingByZeroError => "a scale factor is zero".into(),
        ColorParseError => "a vertex color is not a number".into(),
        InvalidPolygon => "a polygon has fewer than three vertices".into(),
        GenericFailure => "cannot be parsed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mockup-obj-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn merges_groups_and_triangulates() {
        let p = write(
            "two.obj",
            "mtllib missing.mtl\no a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\ng b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 5 6 7\n",
        );
        let m = load_merged(&p).unwrap();
        assert_eq!(m.mesh.triangles().len(), 3);
        assert!(m.warnings.iter().any(|w| w.contains("materials")), "{:?}", m.warnings);
    }

    #[test]
    fn errors_name_the_file() {
        let p = write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
        let e = load_merged(&p).unwrap_err().to_string();
        assert!(e.contains("bad.obj"), "{e}");
        let p = write("empty.obj", "");
        let e = load_merged(&p).unwrap_err().to_string();
        assert!(e.contains("empty.obj") && e.contains("no triangles"), "{e}");
        let e = load_merged(Path::new("/nonexistent/x.obj")).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/x.obj"), "{e}");
    }
}
