//! glTF 2.0 import: `.gltf` (JSON, buffers in files beside it or in `data:` URIs) and `.glb`
//! (binary). Each mesh instance of the default scene's node hierarchy becomes a part named
//! after its node, with the base colour of its first primitive's material. The node
//! transforms are composed down the hierarchy; the world transform's rotation and
//! translation become the part's pose and the rest (scale, and any shear that non-uniform
//! scales under rotated children leave) is baked into the vertices (docs/scenes.md, "glTF
//! placements"). As one part (`split_objects: false`) the whole transform is baked.
//!
//! Only triangles are read: other primitive modes are skipped with a warning, and a file with
//! no triangles at all is an error. The `gltf` crate parses and validates the JSON; the GLB
//! container, the buffers and the accessors are read here, with every offset checked, so that
//! a short or lying file is an error naming what is wrong, never a panic.

use crate::mesh_file::{Assembly, ImportOptions, Part, Welder, quality_warnings, stem};
use crate::source::{Source, normalize};
use ::gltf::accessor::{DataType, Dimensions};
use ::gltf::mesh::Mode;
use base64::Engine;
use glam::{DMat3, DMat4, DQuat, DVec3};
use mockup_ccd::{Mesh, MeshError, Pose};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum GltfError {
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: buffer {index}: file {uri:?} not found (resolved to {})", path.display(), resolved.display())]
    MissingBuffer { path: PathBuf, index: usize, uri: String, resolved: PathBuf },
    #[error("{}: buffer {index}: {}: {source}", path.display(), resolved.display())]
    BufferIo { path: PathBuf, index: usize, resolved: PathBuf, source: std::io::Error },
    /// No triangles to make a part of; `skipped` says what there was instead.
    #[error("{}: no triangles{}", path.display(), if skipped.is_empty() { String::new() } else { format!(" (skipped: {})", skipped.join("; ")) })]
    NoTriangles { path: PathBuf, skipped: Vec<String> },
    #[error("{}: part {part:?}: {source}", path.display())]
    Mesh { path: PathBuf, part: String, source: MeshError },
}

/// Parses glTF or GLB bytes; `path` names the file in messages, and external buffers are
/// read from `source` relative to it.
pub fn parse(bytes: &[u8], path: &Path, source: &dyn Source, options: &ImportOptions) -> Result<Assembly, GltfError> {
    let invalid = |message: String| GltfError::Invalid { path: path.to_path_buf(), message };
    let (json, blob) = if bytes.starts_with(b"glTF") { glb(bytes).map_err(invalid)? } else { (bytes, None) };
    let root: ::gltf::json::Root =
        ::gltf::json::deserialize::from_slice(json).map_err(|e| invalid(format!("not glTF JSON: {e}")))?;
    if let Some(ext) = root.extensions_required.iter().find(|e| !appearance_only(e)) {
        return Err(invalid(format!("the file requires the extension {ext}, which Mockup does not read")));
    }
    // The validator indexes the POSITION accessor before checking that it exists.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(bad) = prim.attributes.values().find(|a| a.value() >= root.accessors.len()) {
                return Err(invalid(format!(
                    "meshes[{m}].primitives[{p}]: accessor {bad} does not exist (the file has {})",
                    root.accessors.len()
                )));
            }
        }
    }
    // Anything else the validator trips on is an error about this file, not a crash.
    let validated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ::gltf::Document::from_json(root)));
    let doc = validated
        .map_err(|_| invalid("the glTF validator failed on this file".into()))?
        .map_err(|e| invalid(e.to_string()))?;
    let buffers = doc.buffers().map(|b| buffer(&b, blob, path, source)).collect::<Result<Vec<_>, _>>()?;
    let mut reader = Reader { path, buffers, warnings: Vec::new(), skipped: Vec::new(), meshes: HashMap::new() };
    let instances = instances(&doc, path, &mut reader)?;
    let meshes: Vec<::gltf::Mesh> = doc.meshes().collect();
    let mut parts = Vec::new();
    if options.split_objects {
        let mut names: HashMap<String, usize> = HashMap::new();
        for inst in &instances {
            let data = reader.mesh(&meshes[inst.mesh])?;
            if data.triangles.is_empty() {
                continue; // its primitives were skipped, with their warnings
            }
            let Some(rotation) = polar_rotation(inst.linear) else {
                reader.skip("a mesh instance whose transform has zero scale", format!("node {}", inst.node));
                continue;
            };
            let bake = DMat3::from_quat(rotation).transpose() * inst.linear;
            let seen = names.entry(inst.name.clone()).or_insert(0);
            *seen += 1;
            let name = if *seen == 1 { inst.name.clone() } else { format!("{} ({seen})", inst.name) };
            let mut welder = Welder::default();
            let triangles = place(&data, bake, DVec3::ZERO, &mut welder);
            let part = part(path, name, welder, triangles, data.color, &mut reader.warnings)?;
            parts.push(Part { pose: Pose::new(rotation, inst.translation), ..part });
        }
    } else {
        let mut welder = Welder::default();
        let mut triangles = Vec::new();
        let mut color = None;
        for inst in &instances {
            let data = reader.mesh(&meshes[inst.mesh])?;
            if inst.linear.determinant() == 0.0 {
                reader.skip("a mesh instance whose transform has zero scale", format!("node {}", inst.node));
                continue;
            }
            color = color.or(data.color);
            triangles.extend(place(&data, inst.linear, inst.translation, &mut welder));
        }
        if !triangles.is_empty() {
            parts.push(part(path, stem(path), welder, triangles, color, &mut reader.warnings)?);
        }
    }
    let mut warnings = std::mem::take(&mut reader.warnings);
    let file = path.display();
    let skipped: Vec<String> =
        reader.skipped.iter().map(|s| format!("{} × {} (the first: {})", s.count, s.what, s.first)).collect();
    if parts.is_empty() {
        return Err(GltfError::NoTriangles { path: path.to_path_buf(), skipped });
    }
    warnings.extend(skipped.iter().map(|s| format!("{file}: skipped {s}")));
    Ok(Assembly { parts, warnings })
}

/// Required extensions that change only how a file looks, not its geometry.
fn appearance_only(extension: &str) -> bool {
    ["KHR_materials_", "KHR_texture_", "EXT_texture_"].iter().any(|p| extension.starts_with(p))
        || extension == "KHR_lights_punctual"
}

/// The JSON chunk and the binary chunk (if any) of a GLB file; the message of what is wrong.
fn glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), String> {
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(format!("GLB: the file has {} bytes, less than the 12-byte header", bytes.len()));
    };
    if version != 2 {
        return Err(format!("GLB version {version}: only glTF 2.0 is read"));
    }
    if length > bytes.len() {
        return Err(format!("GLB: the header says {length} bytes, but the file has {} (truncated?)", bytes.len()));
    }
    let (mut json, mut bin) = (None, None);
    let mut at = 12;
    while at + 8 <= length {
        let (size, kind) = (word(at).unwrap_or(0), word(at + 4).unwrap_or(0));
        let end = at + 8 + size;
        if end > length {
            return Err(format!(
                "GLB: the chunk at byte offset {at} says {size} bytes, but only {} are left",
                length - at - 8
            ));
        }
        let data = &bytes[at + 8..end];
        match kind {
            0x4E4F_534A if json.is_none() && at == 12 => json = Some(data),
            0x004E_4942 if json.is_some() && bin.is_none() => bin = Some(data),
            _ if at == 12 => return Err("GLB: the first chunk (byte offset 12) is not the JSON chunk".into()),
            _ => {} // other chunk types are to be skipped, says the specification
        }
        at = end;
    }
    match json {
        Some(json) => Ok((json, bin)),
        None => Err("GLB: no JSON chunk".into()),
    }
}

/// A buffer's bytes: the GLB binary chunk, a `data:` URI, or a file beside the glTF file.
fn buffer(b: &::gltf::Buffer, blob: Option<&[u8]>, path: &Path, source: &dyn Source) -> Result<Vec<u8>, GltfError> {
    let index = b.index();
    let invalid = |message: String| GltfError::Invalid { path: path.to_path_buf(), message };
    let data = match b.source() {
        ::gltf::buffer::Source::Bin => blob
            .ok_or_else(|| invalid(format!("buffer {index} is the GLB binary chunk, but the file has none")))?
            .to_vec(),
        ::gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
            let (head, data) =
                uri.split_once(',').ok_or_else(|| invalid(format!("buffer {index}: a data: URI without a comma")))?;
            if head.ends_with(";base64") {
                base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| invalid(format!("buffer {index}: the data: URI is not valid base64 ({e})")))?
            } else {
                percent_decode(data)
            }
        }
        ::gltf::buffer::Source::Uri(uri) => {
            let name = percent_decode(uri);
            let name = String::from_utf8_lossy(&name);
            if name.split('/').next().is_some_and(|first| first.contains(':')) {
                return Err(invalid(format!(
                    "buffer {index}: URI {uri:?}: only data: URIs and files beside the glTF file are read"
                )));
            }
            let resolved = normalize(&path.parent().unwrap_or(Path::new("")).join(name.as_ref()));
            source.read(&resolved).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => GltfError::MissingBuffer {
                    path: path.to_path_buf(),
                    index,
                    uri: uri.to_string(),
                    resolved: resolved.clone(),
                },
                _ => GltfError::BufferIo { path: path.to_path_buf(), index, resolved: resolved.clone(), source: e },
            })?
        }
    };
    if data.len() < b.length() {
        return Err(invalid(format!("buffer {index} has {} bytes, but the file says {}", data.len(), b.length())));
    }
    Ok(data)
}

/// `%20` and friends decoded (URIs in glTF are percent-encoded).
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (b.get(i + 1).and_then(|&c| hex(c)), b.get(i + 2).and_then(|&c| hex(c)))
        {
            out.push((16 * h + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// A mesh placed by a node.
struct Instance {
    node: usize,
    name: String,
    /// The mesh's index.
    mesh: usize,
    /// The world transform's linear part and translation.
    linear: DMat3,
    translation: DVec3,
}

/// The triangles of a glTF mesh (all its triangle primitives), in its own frame.
struct MeshData {
    positions: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    color: Option<[f32; 3]>,
}

/// What was skipped, one entry per kind.
struct Skipped {
    what: &'static str,
    count: usize,
    first: String,
}

struct Reader<'p> {
    path: &'p Path,
    buffers: Vec<Vec<u8>>,
    warnings: Vec<String>,
    skipped: Vec<Skipped>,
    /// Each mesh read once, however many nodes place it.
    meshes: HashMap<usize, std::rc::Rc<MeshData>>,
}

/// Every mesh instance of the default scene (or the first; or, with no scene, of every node
/// that is no node's child), in hierarchy order.
fn instances(doc: &::gltf::Document, path: &Path, reader: &mut Reader) -> Result<Vec<Instance>, GltfError> {
    let invalid = |message: String| GltfError::Invalid { path: path.to_path_buf(), message };
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let roots: Vec<::gltf::Node> = match &scene {
        Some(s) => s.nodes().collect(),
        None => {
            let mut child = vec![false; doc.nodes().len()];
            for n in doc.nodes() {
                for c in n.children() {
                    child[c.index()] = true;
                }
            }
            doc.nodes().filter(|n| !child[n.index()]).collect()
        }
    };
    if let Some(s) = &scene
        && doc.scenes().len() > 1
    {
        reader.warnings.push(format!(
            "{}: {} scenes; only scene {} (the default) is read",
            path.display(),
            doc.scenes().len(),
            s.index()
        ));
    }
    let mut seen = vec![false; doc.nodes().len()];
    let mut out = Vec::new();
    let mut stack: Vec<(::gltf::Node, DMat4)> = roots.into_iter().rev().map(|n| (n, DMat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let i = node.index();
        if std::mem::replace(&mut seen[i], true) {
            return Err(invalid(format!(
                "node {i} is reached twice in the scene's hierarchy (a cycle, or two parents): glTF nodes form trees"
            )));
        }
        let world = parent * local_matrix(&node).map_err(|m| invalid(format!("node {i}: {m}")))?;
        if !world.is_finite() {
            return Err(invalid(format!("node {i}: its world transform is not finite")));
        }
        if node.skin().is_some() {
            reader.skip("a skin (meshes are read unskinned, as the node places them)", format!("node {i}"));
        }
        if let Some(mesh) = node.mesh() {
            let name = node
                .name()
                .filter(|n| !n.trim().is_empty())
                .or(mesh.name().filter(|n| !n.trim().is_empty()))
                .map_or_else(|| format!("node {i}"), str::to_string);
            out.push(Instance {
                node: i,
                name,
                mesh: mesh.index(),
                linear: DMat3::from_mat4(world),
                translation: world.w_axis.truncate(),
            });
        }
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world)));
    }
    Ok(out)
}

/// A node's transform in f64: its matrix, or translation · rotation · scale.
fn local_matrix(node: &::gltf::Node) -> Result<DMat4, String> {
    match node.transform() {
        ::gltf::scene::Transform::Matrix { matrix } => {
            let m = DMat4::from_cols_array_2d(&matrix.map(|c| c.map(f64::from)));
            if m.row(3) != glam::DVec4::W {
                return Err("its matrix is not affine (the last row must be 0 0 0 1)".into());
            }
            Ok(m)
        }
        ::gltf::scene::Transform::Decomposed { translation, rotation, scale } => {
            let q = DQuat::from_array(rotation.map(f64::from));
            // Unit in the file up to its f32 rounding; exactly unit here.
            if !(q.is_finite() && q.length() > 0.5) {
                return Err(format!("its rotation {rotation:?} is not a unit quaternion"));
            }
            Ok(DMat4::from_scale_rotation_translation(
                DVec3::from_array(scale.map(f64::from)),
                q.normalize(),
                DVec3::from_array(translation.map(f64::from)),
            ))
        }
    }
}

/// The rotation `R` of the polar decomposition `A = R S` (`S` symmetric), proper even when
/// `A` mirrors: then it is the rotation of `−A`. `None` when `A` is singular. Higham's Newton
/// iteration `X ← (X + X⁻ᵀ)/2` (docs/scenes.md, "glTF placements").
fn polar_rotation(a: DMat3) -> Option<DQuat> {
    let det = a.determinant();
    if !(det != 0.0 && det.is_finite()) {
        return None;
    }
    let mut x = if det < 0.0 { -a } else { a };
    let norm = |m: DMat3| m.to_cols_array().iter().map(|v| v * v).sum::<f64>().sqrt();
    for _ in 0..100 {
        let inverse = x.inverse();
        if !inverse.is_finite() {
            return None;
        }
        let next = 0.5 * (x + inverse.transpose());
        let step = norm(next - x);
        x = next;
        if step <= 1e-15 * norm(x) {
            break;
        }
    }
    let q = DQuat::from_mat3(&x);
    q.is_finite().then(|| q.normalize())
}

/// The mesh's triangles transformed by `linear` and `translation` into `welder`'s vertices,
/// wound the other way when the transform mirrors (so the outside stays outside).
fn place(data: &MeshData, linear: DMat3, translation: DVec3, welder: &mut Welder) -> Vec<[u32; 3]> {
    let ids: Vec<u32> = data.positions.iter().map(|&p| welder.index(linear * p + translation)).collect();
    let mirror = linear.determinant() < 0.0;
    data.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| ids[i as usize]);
            if mirror { [a, c, b] } else { [a, b, c] }
        })
        .collect()
}

fn part(
    path: &Path,
    name: String,
    welder: Welder,
    triangles: Vec<[u32; 3]>,
    color: Option<[f32; 3]>,
    warnings: &mut Vec<String>,
) -> Result<Part, GltfError> {
    let mesh = Mesh::new(welder.vertices, triangles).map_err(|source| GltfError::Mesh {
        path: path.to_path_buf(),
        part: name.clone(),
        source,
    })?;
    let at = format!("{}: part {name:?}", path.display());
    quality_warnings(
        &mesh,
        &at,
        |first, count| format!("{at}: {count} zero-area triangles are ignored (the first is triangle {first})"),
        warnings,
    );
    Ok(Part { name, mesh, color, pose: Pose::IDENTITY })
}

impl Reader<'_> {
    fn invalid(&self, message: String) -> GltfError {
        GltfError::Invalid { path: self.path.to_path_buf(), message }
    }

    fn skip(&mut self, what: &'static str, first: String) {
        match self.skipped.iter_mut().find(|s| s.what == what) {
            Some(s) => s.count += 1,
            None => self.skipped.push(Skipped { what, count: 1, first }),
        }
    }

    /// The triangles of a mesh, read on first use.
    fn mesh(&mut self, mesh: &::gltf::Mesh) -> Result<std::rc::Rc<MeshData>, GltfError> {
        if let Some(m) = self.meshes.get(&mesh.index()) {
            return Ok(m.clone());
        }
        let mut data = MeshData { positions: Vec::new(), triangles: Vec::new(), color: None };
        for prim in mesh.primitives() {
            let at = format!("mesh {} primitive {}", mesh.index(), prim.index());
            let what = match prim.mode() {
                Mode::Triangles => None,
                Mode::Points => Some("a primitive of points"),
                Mode::Lines | Mode::LineLoop | Mode::LineStrip => Some("a primitive of lines"),
                Mode::TriangleStrip | Mode::TriangleFan => {
                    Some("a triangle strip or fan (only triangle lists are read)")
                }
            };
            if let Some(what) = what {
                self.skip(what, at);
                continue;
            }
            let Some(positions) = prim.get(&::gltf::Semantic::Positions) else {
                self.skip("a primitive without POSITION", at);
                continue;
            };
            let base = data.positions.len() as u64;
            let points = self.positions(&positions)?;
            let n = points.len();
            let indices = match prim.indices() {
                Some(acc) => self.indices(&acc, n)?,
                None => (0..n as u32).collect(),
            };
            if indices.len() % 3 != 0 {
                return Err(self.invalid(format!("{at}: {} triangle corners, not a multiple of 3", indices.len())));
            }
            if base + n as u64 > u32::MAX as u64 {
                return Err(self.invalid(format!("mesh {}: more than 2³² vertices", mesh.index())));
            }
            data.positions.extend(points);
            data.triangles.extend(indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]].map(|i| i + base as u32)));
            if data.color.is_none() && prim.material().index().is_some() {
                let [r, g, b, _] = prim.material().pbr_metallic_roughness().base_color_factor();
                data.color = Some([r, g, b].map(|c| if c.is_finite() { c.clamp(0.0, 1.0) } else { 1.0 }));
            }
        }
        let data = std::rc::Rc::new(data);
        self.meshes.insert(mesh.index(), data.clone());
        Ok(data)
    }

    /// The bytes of an accessor's elements: the buffer, the first element's offset, the
    /// stride; every element checked to lie inside its buffer view and the view inside its
    /// buffer.
    fn elements(&self, acc: &::gltf::Accessor, what: &str) -> Result<(&[u8], usize, usize), GltfError> {
        let i = acc.index();
        if acc.sparse().is_some() {
            return Err(self.invalid(format!("accessor {i} ({what}) is sparse, which Mockup does not read")));
        }
        let Some(view) = acc.view() else {
            return Err(self.invalid(format!("accessor {i} ({what}) has no buffer view")));
        };
        let data = &self.buffers[view.buffer().index()];
        let v = view.index();
        let view_end = view.offset().checked_add(view.length());
        if view_end.is_none_or(|e| e > data.len()) {
            return Err(self.invalid(format!(
                "buffer view {v} (bytes {} to {}) reaches past the end of buffer {} ({} bytes)",
                view.offset(),
                view.offset() as u128 + view.length() as u128,
                view.buffer().index(),
                data.len()
            )));
        }
        let size = acc.size();
        let stride = view.stride().unwrap_or(size);
        if stride < size {
            return Err(
                self.invalid(format!("buffer view {v}: stride {stride} is less than an element ({size} bytes)"))
            );
        }
        let count = acc.count();
        if count > 0 {
            let need = (count - 1)
                .checked_mul(stride)
                .and_then(|b| b.checked_add(size))
                .and_then(|b| b.checked_add(acc.offset()));
            if need.is_none_or(|n| n > view.length()) {
                return Err(self.invalid(format!(
                    "accessor {i} ({what}): {count} elements of {size} bytes, {stride} apart from offset {}, do not fit \
                     in buffer view {v} ({} bytes)",
                    acc.offset(),
                    view.length()
                )));
            }
        }
        Ok((data, view.offset() + acc.offset(), stride))
    }

    fn positions(&self, acc: &::gltf::Accessor) -> Result<Vec<DVec3>, GltfError> {
        let i = acc.index();
        if acc.data_type() != DataType::F32 || acc.dimensions() != Dimensions::Vec3 || acc.normalized() {
            return Err(self.invalid(format!(
                "accessor {i} (POSITION) is {:?} of {:?}{}: Mockup reads VEC3 of FLOAT",
                acc.dimensions(),
                acc.data_type(),
                if acc.normalized() { ", normalized" } else { "" }
            )));
        }
        let (data, start, stride) = self.elements(acc, "POSITION")?;
        let mut out = Vec::with_capacity(acc.count());
        for k in 0..acc.count() {
            let at = start + k * stride;
            let p = DVec3::from_array(std::array::from_fn(|c| {
                let b = &data[at + 4 * c..at + 4 * c + 4];
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }));
            if !p.is_finite() {
                return Err(self.invalid(format!("accessor {i} (POSITION): element {k} is not finite ({p})")));
            }
            out.push(p);
        }
        Ok(out)
    }

    fn indices(&self, acc: &::gltf::Accessor, vertices: usize) -> Result<Vec<u32>, GltfError> {
        let i = acc.index();
        let width = match (acc.dimensions(), acc.data_type()) {
            (Dimensions::Scalar, DataType::U8) => 1,
            (Dimensions::Scalar, DataType::U16) => 2,
            (Dimensions::Scalar, DataType::U32) => 4,
            (d, t) => {
                return Err(self.invalid(format!(
                    "accessor {i} (indices) is {d:?} of {t:?}: indices are SCALAR unsigned integers"
                )));
            }
        };
        let (data, start, stride) = self.elements(acc, "indices")?;
        let mut out = Vec::with_capacity(acc.count());
        for k in 0..acc.count() {
            let b = &data[start + k * stride..start + k * stride + width];
            let index = match width {
                1 => u32::from(b[0]),
                2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            };
            if index as usize >= vertices {
                return Err(self.invalid(format!(
                    "accessor {i} (indices): element {k} is vertex {index}, but POSITION has {vertices} vertices"
                )));
            }
            out.push(index);
        }
        Ok(out)
    }
}
