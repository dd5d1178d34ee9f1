//! CAD-like assemblies of any size, for tests and benchmarks on what real exports have: bolts
//! in holes with zero clearance and nuts on them, dowels and bearings pressed in with a little
//! interference (and facets that do not match), a stepped shaft in its bearing, plates on
//! plates (coincident faces), a thin shell cover over a gear (nested), and that cover exported
//! the way CAD tools split a mesh at sharp edges: open, each face its own sheet. Deterministic.
//!
//! An assembly is a grid of modules of [`MODULE_PARTS`] parts each, in millimetres, every part
//! in its assembled position (identity pose), none fixed (as an OBJ import).

use crate::document::{self, PartDocument, PoseDocument, SCENE_VERSION, SceneDocument, SolverDocument};
use crate::obj::{self, WritePart};
use glam::DVec3;
use mockup_ccd::Mesh;
use std::f64::consts::TAU;

/// Parts in one module.
pub const MODULE_PARTS: usize = 17;
/// A module's footprint, square (mm).
pub const MODULE_SIZE: f64 = 200.0;
/// Between modules.
const MODULE_GAP: f64 = 40.0;

pub struct CadPart {
    pub name: String,
    pub mesh: Mesh,
    pub color: [f32; 3],
}

pub struct CadAssembly {
    pub parts: Vec<CadPart>,
}

impl CadAssembly {
    pub fn triangles(&self) -> usize {
        self.parts.iter().map(|p| p.mesh.triangles().len()).sum()
    }
}

/// `parts` parts (whole modules, the last one cut short), tessellated at `detail` (≥ 1):
/// plates are tiled at 20 mm with `detail + 2` segments a tile side, round features have
/// `4 (detail + 2)` facets. `detail` 2 gives about 1,050 triangles a part, 4 about 2,150.
pub fn assembly(parts: usize, detail: u32) -> CadAssembly {
    let modules = parts.div_ceil(MODULE_PARTS);
    let columns = (modules as f64).sqrt().ceil().max(1.0) as usize;
    let mut out = Vec::with_capacity(parts);
    for m in 0..modules {
        let origin = DVec3::new(
            (m % columns) as f64 * (MODULE_SIZE + MODULE_GAP),
            (m / columns) as f64 * (MODULE_SIZE + MODULE_GAP),
            0.0,
        );
        for part in module(origin, detail) {
            if out.len() == parts {
                break;
            }
            out.push(CadPart { name: format!("m{m}_{}", part.name), ..part });
        }
    }
    CadAssembly { parts: out }
}

/// The OBJ text, MTL text and scene of an assembly written as `NAME.obj` beside `NAME.ron`.
pub fn files(a: &CadAssembly, name: &str) -> (String, String, SceneDocument) {
    let write: Vec<WritePart> =
        a.parts.iter().map(|p| WritePart { name: &p.name, mesh: &p.mesh, color: Some(p.color) }).collect();
    let (obj_text, mtl_text) = obj::write(&write, &format!("{name}.mtl"));
    let scene = SceneDocument {
        version: SCENE_VERSION,
        size: None,
        parts: a
            .parts
            .iter()
            .map(|p| PartDocument {
                name: p.name.clone(),
                mesh: format!("{name}.obj"),
                object: Some(p.name.clone()),
                scale: Default::default(),
                pose: PoseDocument::from_pose(&mockup_ccd::Pose::IDENTITY),
                fixed: false,
                color: p.color,
                visible: true,
            })
            .collect(),
        solver: SolverDocument::default(),
        camera: None,
    };
    (obj_text, mtl_text, scene)
}

/// Writes `NAME.obj`, `NAME.mtl` and `NAME.ron` into `dir`; returns the scene's path.
pub fn write(a: &CadAssembly, dir: &std::path::Path, name: &str) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir)?;
    let (obj_text, mtl_text, scene) = files(a, name);
    document::write_atomic(&dir.join(format!("{name}.obj")), obj_text.as_bytes())?;
    document::write_atomic(&dir.join(format!("{name}.mtl")), mtl_text.as_bytes())?;
    let path = dir.join(format!("{name}.ron"));
    document::write_atomic(&path, document::to_text(&scene).as_bytes())?;
    Ok(path)
}

fn part(name: &str, mesh: Mesh, color: [f32; 3]) -> CadPart {
    CadPart { name: name.to_string(), mesh, color }
}

const STEEL: [f32; 3] = [0.55, 0.57, 0.6];
const DARK: [f32; 3] = [0.2, 0.22, 0.25];
const BRASS: [f32; 3] = [0.75, 0.6, 0.25];
const BLUE: [f32; 3] = [0.2, 0.35, 0.7];

/// One module at `o` (its corner): a base plate and a cover plate on it, bolted by four cap
/// screws with nuts, located by two dowels; a bearing housing on the cover plate with a
/// bearing pressed in and a stepped shaft through it; a thin shell cover over a gear.
fn module(o: DVec3, detail: u32) -> Vec<CadPart> {
    let k = detail.max(1) + 2;
    let n = 4 * k;
    // Hole phase: a hole's first corner points at its tile's first corner (−135°).
    let phase = -0.75 * std::f64::consts::PI;
    let half_facet = std::f64::consts::PI / n as f64;
    let at = |x: f64, y: f64| o + DVec3::new(x, y, 0.0);
    let bolts = [(30.0, 30.0), (170.0, 30.0), (30.0, 170.0), (170.0, 170.0)];
    let dowels = [(70.0, 30.0), (130.0, 170.0)];
    let mut holes: Vec<Hole> = bolts.iter().map(|&(x, y)| Hole { x, y, r: 5.0 }).collect();
    holes.extend(dowels.iter().map(|&(x, y)| Hole { x, y, r: 4.0 }));
    let mut parts = Vec::new();
    parts.push(part("base", holed_plate(o, [0.0, 200.0, 0.0, 200.0], [0.0, 15.0], 20.0, &holes, k, phase), DARK));
    parts.push(part("cover", holed_plate(o, [0.0, 200.0, 0.0, 200.0], [15.0, 27.0], 20.0, &holes, k, phase), STEEL));
    for (b, &(x, y)) in bolts.iter().enumerate() {
        // A cap screw: shank in its hole with zero clearance (same facets), head on the
        // cover's top face.
        let profile = [(5.0, -10.0), (5.0, 27.0), (8.0, 27.0), (8.0, 33.0)];
        parts.push(part(&format!("bolt{b}"), lathe(at(x, y), &profile, n, phase, 3), STEEL));
    }
    for (b, &(x, y)) in bolts.iter().enumerate() {
        // A nut under the base plate, on the screw's end with zero clearance.
        let profile = [(5.0, -8.0), (9.0, -8.0), (9.0, 0.0), (5.0, 0.0)];
        parts.push(part(&format!("nut{b}"), lathe_ring(at(x, y), &profile, n, phase), DARK));
    }
    for (d, &(x, y)) in dowels.iter().enumerate() {
        // Pressed in: 0.02 larger than its hole, facets half a facet off.
        let profile = [(4.02, 5.0), (4.02, 22.0)];
        parts.push(part(&format!("dowel{d}"), lathe(at(x, y), &profile, n, phase + half_facet, 2), BRASS));
    }
    let bore = Hole { x: 100.0, y: 100.0, r: 15.0 };
    parts.push(part(
        "housing",
        holed_plate(o, [70.0, 130.0, 70.0, 130.0], [27.0, 67.0], 60.0, &[bore], k, phase),
        BLUE,
    ));
    // The bearing's outer ring pressed into the housing's bore (0.02, facets off by half).
    let ring = [(10.0, 47.0), (15.02, 47.0), (15.02, 67.0), (10.0, 67.0)];
    parts.push(part("bearing", lathe_ring(at(100.0, 100.0), &ring, n, phase + half_facet), BRASS));
    // A stepped shaft through the bearing with zero clearance, its shoulder on the bearing.
    let shaft = [(10.0, 30.0), (10.0, 67.0), (14.0, 67.0), (14.0, 95.0)];
    parts.push(part("shaft", lathe(at(100.0, 100.0), &shaft, n, phase + half_facet, 4), STEEL));
    // A thin shell cover on the cover plate over a gear, exported split at its sharp edges.
    parts.push(part("shell", open_shell(at(15.0, 75.0) + DVec3::Z * 27.0, DVec3::new(50.0, 50.0, 30.0), 1.5, k), BLUE));
    let gear = [(18.0, 27.0), (18.0, 45.0)];
    parts.push(part("gear", lathe(at(40.0, 100.0), &gear, 2 * n, 0.0, 2), BRASS));
    debug_assert_eq!(parts.len(), MODULE_PARTS);
    parts
}

/// A round hole through a plate, inside one tile.
#[derive(Clone, Copy)]
struct Hole {
    x: f64,
    y: f64,
    r: f64,
}

/// A closed mesh from vertices and triangles, turned outward if it came out inward.
fn closed(vertices: Vec<DVec3>, mut triangles: Vec<[u32; 3]>) -> Mesh {
    let volume: f64 = triangles
        .iter()
        .map(|t| vertices[t[0] as usize].dot(vertices[t[1] as usize].cross(vertices[t[2] as usize])))
        .sum();
    if volume < 0.0 {
        triangles.iter_mut().for_each(|t| t.swap(1, 2));
    }
    Mesh::new(vertices, triangles).expect("generated meshes are valid")
}

/// A solid of revolution about the vertical line through `at`: `profile` `(r, z)` from the
/// bottom to the top (every r > 0), closed by flat caps, `n` facets starting at angle `phase`,
/// each straight piece of the profile cut in `along` bands.
fn lathe(at: DVec3, profile: &[(f64, f64)], n: u32, phase: f64, along: u32) -> Mesh {
    let mut rings: Vec<(f64, f64)> = Vec::new();
    for w in profile.windows(2) {
        let ((r0, z0), (r1, z1)) = (w[0], w[1]);
        // Radial steps (shoulders) in one band; straight runs in `along`.
        let pieces = if z0 == z1 { 1 } else { along.max(1) };
        for s in 0..pieces {
            let f = s as f64 / pieces as f64;
            rings.push((r0 + f * (r1 - r0), z0 + f * (z1 - z0)));
        }
    }
    rings.push(*profile.last().expect("a profile has points"));
    let mut vertices = vec![at + DVec3::Z * rings[0].1, at + DVec3::Z * rings[rings.len() - 1].1];
    for &(r, z) in &rings {
        for i in 0..n {
            let a = phase + TAU * i as f64 / n as f64;
            vertices.push(at + DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let v = |ring: usize, i: u32| 2 + ring as u32 * n + i % n;
    let mut triangles = Vec::new();
    for i in 0..n {
        triangles.push([0, v(0, i + 1), v(0, i)]);
        for ring in 0..rings.len() - 1 {
            let (a, b, c, d) = (v(ring, i), v(ring, i + 1), v(ring + 1, i + 1), v(ring + 1, i));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
        triangles.push([1, v(rings.len() - 1, i), v(rings.len() - 1, i + 1)]);
    }
    closed(vertices, triangles)
}

/// A ring of revolution (a nut, a bearing): the closed profile loop `(r, z)`, `n` facets.
fn lathe_ring(at: DVec3, profile: &[(f64, f64)], n: u32, phase: f64) -> Mesh {
    let mut vertices = Vec::new();
    for &(r, z) in profile {
        for i in 0..n {
            let a = phase + TAU * i as f64 / n as f64;
            vertices.push(at + DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let m = profile.len() as u32;
    let v = |ring: u32, i: u32| (ring % m) * n + i % n;
    let mut triangles = Vec::new();
    for ring in 0..m {
        for i in 0..n {
            let (a, b, c, d) = (v(ring, i), v(ring, i + 1), v(ring + 1, i + 1), v(ring + 1, i));
            triangles.extend([[a, b, c], [a, c, d]]);
        }
    }
    closed(vertices, triangles)
}

/// A plate over `[x0, x1] × [y0, y1]` (relative to `o`), from `z[0]` to `z[1]`, tiled in
/// squares of side `tile`, each side cut in `k` segments, with round holes (each inside one
/// tile) of `4k` facets whose first corner is at angle `phase`. Every tile shares its side
/// points with its neighbours, so the plate is one closed manifold mesh.
fn holed_plate(
    o: DVec3,
    [x0, x1, y0, y1]: [f64; 4],
    z: [f64; 2],
    tile: f64,
    holes: &[Hole],
    k: u32,
    phase: f64,
) -> Mesh {
    let (tx, ty) = (((x1 - x0) / tile).round() as u32, ((y1 - y0) / tile).round() as u32);
    let (gx, gy) = (tx * k, ty * k);
    let step = tile / k as f64;
    let mut vertices = Vec::new();
    // Lattice points on both layers: every point of the k-per-side lattice (some unused
    // inside holed tiles).
    let lattice = |layer: u32, i: u32, j: u32| layer * (gx + 1) * (gy + 1) + j * (gx + 1) + i;
    for &zl in &z {
        for j in 0..=gy {
            for i in 0..=gx {
                vertices.push(o + DVec3::new(x0 + i as f64 * step, y0 + j as f64 * step, zl));
            }
        }
    }
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    // `quad(a, b, c, d)` counter-clockwise seen from +z on the top layer; the bottom is the
    // mirror. The whole mesh is turned outward at the end if needed.
    let quad = |t: &mut Vec<[u32; 3]>, [a, b, c, d]: [u32; 4], up: bool| {
        if up {
            t.extend([[a, b, c], [a, c, d]]);
        } else {
            t.extend([[a, c, b], [a, d, c]]);
        }
    };
    for cy in 0..ty {
        for cx in 0..tx {
            let (tile_x0, tile_y0) = (x0 + cx as f64 * tile, y0 + cy as f64 * tile);
            let hole =
                holes.iter().find(|h| h.x > tile_x0 && h.x < tile_x0 + tile && h.y > tile_y0 && h.y < tile_y0 + tile);
            let (i0, j0) = (cx * k, cy * k);
            match hole {
                None => {
                    for layer in 0..2 {
                        for j in 0..k {
                            for i in 0..k {
                                let q = [
                                    lattice(layer, i0 + i, j0 + j),
                                    lattice(layer, i0 + i + 1, j0 + j),
                                    lattice(layer, i0 + i + 1, j0 + j + 1),
                                    lattice(layer, i0 + i, j0 + j + 1),
                                ];
                                quad(&mut triangles, q, layer == 1);
                            }
                        }
                    }
                }
                Some(h) => {
                    // The tile's boundary, counter-clockwise from its first corner, and the
                    // hole's corners from `phase`: 4k each, joined in quads.
                    let mut boundary = Vec::with_capacity(4 * k as usize);
                    for s in 0..k {
                        boundary.push((i0 + s, j0));
                    }
                    for s in 0..k {
                        boundary.push((i0 + k, j0 + s));
                    }
                    for s in 0..k {
                        boundary.push((i0 + k - s, j0 + k));
                    }
                    for s in 0..k {
                        boundary.push((i0, j0 + k - s));
                    }
                    let m = 4 * k;
                    let circle: [u32; 2] = [vertices.len() as u32, vertices.len() as u32 + m];
                    for &zl in &z {
                        for s in 0..m {
                            let a = phase + TAU * s as f64 / m as f64;
                            vertices.push(o + DVec3::new(h.x + h.r * a.cos(), h.y + h.r * a.sin(), zl));
                        }
                    }
                    for layer in 0..2u32 {
                        for s in 0..m {
                            let (b0, b1) = (boundary[s as usize], boundary[((s + 1) % m) as usize]);
                            let q = [
                                lattice(layer, b0.0, b0.1),
                                lattice(layer, b1.0, b1.1),
                                circle[layer as usize] + (s + 1) % m,
                                circle[layer as usize] + s,
                            ];
                            quad(&mut triangles, q, layer == 1);
                        }
                    }
                    for s in 0..m {
                        let (a, b) = (circle[0] + s, circle[0] + (s + 1) % m);
                        let (c, d) = (circle[1] + (s + 1) % m, circle[1] + s);
                        // The hole's wall faces its axis.
                        triangles.extend([[a, c, b], [a, d, c]]);
                    }
                }
            }
        }
    }
    // The outer walls.
    let mut rim: Vec<(u32, u32)> = Vec::new();
    rim.extend((0..gx).map(|i| (i, 0)));
    rim.extend((0..gy).map(|j| (gx, j)));
    rim.extend((0..gx).map(|i| (gx - i, gy)));
    rim.extend((0..gy).map(|j| (0, gy - j)));
    for s in 0..rim.len() {
        let (p, q) = (rim[s], rim[(s + 1) % rim.len()]);
        let (a, b) = (lattice(0, p.0, p.1), lattice(0, q.0, q.1));
        let (c, d) = (lattice(1, q.0, q.1), lattice(1, p.0, p.1));
        triangles.extend([[a, b, c], [a, c, d]]);
    }
    // Drop the lattice points holed tiles do not use, so no vertex hangs free.
    let mut used = vec![false; vertices.len()];
    for t in &triangles {
        for &v in t {
            used[v as usize] = true;
        }
    }
    let mut remap = vec![0u32; vertices.len()];
    let mut kept = Vec::with_capacity(vertices.len());
    for (v, p) in vertices.into_iter().enumerate() {
        if used[v] {
            remap[v] = kept.len() as u32;
            kept.push(p);
        }
    }
    let triangles = triangles.into_iter().map(|t| t.map(|v| remap[v as usize])).collect();
    closed(kept, triangles)
}

/// A box-shaped thin shell with no bottom (a cover), from `corner` (its lower corner) over
/// `size`, walls `thickness` thick, exported the way CAD tools split meshes at sharp edges:
/// every flat face (outside, inside, the rim) its own sheet with its own vertices, so the mesh
/// is open along every crease. Each face is cut in about `k` cells a 10 mm.
fn open_shell(corner: DVec3, size: DVec3, thickness: f64, k: u32) -> Mesh {
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    // A sheet: origin, two edge vectors, outward normal side given by u × v.
    let mut sheet = |origin: DVec3, u: DVec3, v: DVec3| {
        let (nu, nv) =
            (((u.length() / 10.0).ceil() as u32 * k / 2).max(1), ((v.length() / 10.0).ceil() as u32 * k / 2).max(1));
        let base = vertices.len() as u32;
        for j in 0..=nv {
            for i in 0..=nu {
                vertices.push(origin + u * (i as f64 / nu as f64) + v * (j as f64 / nv as f64));
            }
        }
        let at = |i: u32, j: u32| base + j * (nu + 1) + i;
        for j in 0..nv {
            for i in 0..nu {
                triangles
                    .extend([[at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]]);
            }
        }
    };
    let (x, y, z) = (DVec3::X * size.x, DVec3::Y * size.y, DVec3::Z * size.z);
    let t = thickness;
    let (ix, iy) = (DVec3::X * (size.x - 2.0 * t), DVec3::Y * (size.y - 2.0 * t));
    let inner = corner + DVec3::new(t, t, 0.0);
    let iz = DVec3::Z * (size.z - t);
    // Outside: top (+z), and the four sides, each wound so u × v points out.
    sheet(corner + z, x, y);
    sheet(corner, x, z); // −y side: x × z = −y
    sheet(corner + y + x, -x, z); // +y side
    sheet(corner + x, y, z); // +x side
    sheet(corner + y, -y, z); // −x side
    // Inside: the ceiling faces down, the walls face the cavity.
    sheet(inner + iz, iy, ix);
    sheet(inner, z.normalize() * iz.length(), ix); // faces +y
    sheet(inner + iy + ix, iz, -ix); // faces −y
    sheet(inner + ix, iz, iy); // faces −x
    sheet(inner + iy, iz, -iy); // faces +x
    // The rim the cover stands on (faces −z): four strips, `thickness` wide.
    let (ty, tx) = (DVec3::Y * t, DVec3::X * t);
    sheet(corner, ty, x);
    sheet(corner + y - ty, ty, x);
    sheet(corner + ty, iy, tx);
    sheet(corner + x - tx + ty, iy, tx);
    Mesh::new(vertices, triangles).expect("the shell has faces")
}
