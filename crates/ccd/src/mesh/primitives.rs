//! Procedural meshes for tests, benchmarks and generated assets.

use super::{Mesh, MeshError};
use crate::Pose;
use glam::DVec3;
use std::f64::consts::TAU;

/// Accumulates triangles from primitives placed by poses; every primitive has outward,
/// right-handed faces.
#[derive(Clone, Debug, Default)]
pub struct MeshBuilder {
    pub vertices: Vec<DVec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl MeshBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    fn base(&self) -> u32 {
        self.vertices.len() as u32
    }

    /// Adds raw triangles whose indices start at 0 for the given vertices.
    pub fn raw(mut self, pose: Pose, vertices: &[DVec3], triangles: &[[u32; 3]]) -> Self {
        let base = self.base();
        self.vertices.extend(vertices.iter().map(|&p| pose.transform_point(p)));
        self.triangles.extend(triangles.iter().map(|t| t.map(|i| i + base)));
        self
    }

    /// [`MeshBuilder::cuboid`] wound inward: a cavity's faces, or a wrongly wound export.
    pub fn cuboid_inward(self, pose: Pose, half: DVec3) -> Self {
        let first = self.triangles.len();
        let mut b = self.cuboid(pose, half);
        for t in &mut b.triangles[first..] {
            t.swap(1, 2);
        }
        b
    }

    /// A box with half-sizes `half`, centred on the pose's origin: 8 vertices, 12 triangles.
    pub fn cuboid(self, pose: Pose, half: DVec3) -> Self {
        let v: Vec<DVec3> = (0..8)
            .map(|i| {
                DVec3::new(
                    if i & 1 == 0 { -half.x } else { half.x },
                    if i & 2 == 0 { -half.y } else { half.y },
                    if i & 4 == 0 { -half.z } else { half.z },
                )
            })
            .collect();
        const T: [[u32; 3]; 12] = [
            [0, 4, 6],
            [0, 6, 2], // -x
            [1, 3, 7],
            [1, 7, 5], // +x
            [0, 1, 5],
            [0, 5, 4], // -y
            [2, 6, 7],
            [2, 7, 3], // +y
            [0, 2, 3],
            [0, 3, 1], // -z
            [4, 5, 7],
            [4, 7, 6], // +z
        ];
        self.raw(pose, &v, &T)
    }

    /// A box subdivided into `n` segments along each side (for meshes of a chosen size).
    pub fn tessellated_cuboid(mut self, pose: Pose, half: DVec3, n: [u32; 3]) -> Self {
        // Each face is a grid; faces are built in the box frame, then placed.
        let axes = [DVec3::X, DVec3::Y, DVec3::Z];
        for (k, &normal_axis) in axes.iter().enumerate() {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            for sign in [-1.0, 1.0] {
                let (a, b) = (axes[i], axes[j]);
                let (na, nb) = (n[i].max(1), n[j].max(1));
                let base = self.base();
                for y in 0..=nb {
                    for x in 0..=na {
                        let fa = -1.0 + 2.0 * x as f64 / na as f64;
                        let fb = -1.0 + 2.0 * y as f64 / nb as f64;
                        let p = sign * half[k] * normal_axis + fa * half[i] * a + fb * half[j] * b;
                        self.vertices.push(pose.transform_point(p));
                    }
                }
                for y in 0..nb {
                    for x in 0..na {
                        let q = |x: u32, y: u32| base + y * (na + 1) + x;
                        let (p00, p10, p11, p01) = (q(x, y), q(x + 1, y), q(x + 1, y + 1), q(x, y + 1));
                        // a × b = normal_axis; flip on the negative side
                        if sign > 0.0 {
                            self.triangles.push([p00, p10, p11]);
                            self.triangles.push([p00, p11, p01]);
                        } else {
                            self.triangles.push([p00, p11, p10]);
                            self.triangles.push([p00, p01, p11]);
                        }
                    }
                }
            }
        }
        self
    }

    /// A torus around the pose's z axis: `2 · n_major · n_minor` triangles.
    pub fn torus(mut self, pose: Pose, major: f64, minor: f64, n_major: u32, n_minor: u32) -> Self {
        let base = self.base();
        for i in 0..n_major {
            let a = TAU * i as f64 / n_major as f64;
            for j in 0..n_minor {
                let b = TAU * j as f64 / n_minor as f64;
                let r = major + minor * b.cos();
                self.vertices.push(pose.transform_point(DVec3::new(r * a.cos(), r * a.sin(), minor * b.sin())));
            }
        }
        let idx = |i: u32, j: u32| base + (i % n_major) * n_minor + (j % n_minor);
        for i in 0..n_major {
            for j in 0..n_minor {
                let (p00, p10, p11, p01) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
                self.triangles.push([p00, p10, p11]);
                self.triangles.push([p00, p11, p01]);
            }
        }
        self
    }

    /// A UV sphere: `2 · n_lon · (n_lat − 1)` triangles.
    pub fn sphere(mut self, pose: Pose, radius: f64, n_lat: u32, n_lon: u32) -> Self {
        let n_lat = n_lat.max(2);
        let n_lon = n_lon.max(3);
        let base = self.base();
        self.vertices.push(pose.transform_point(DVec3::new(0.0, 0.0, -radius)));
        for i in 1..n_lat {
            let polar = std::f64::consts::PI * i as f64 / n_lat as f64;
            for j in 0..n_lon {
                let az = TAU * j as f64 / n_lon as f64;
                let p = radius * DVec3::new(polar.sin() * az.cos(), polar.sin() * az.sin(), -polar.cos());
                self.vertices.push(pose.transform_point(p));
            }
        }
        let top = self.base();
        self.vertices.push(pose.transform_point(DVec3::new(0.0, 0.0, radius)));
        let ring = |i: u32, j: u32| base + 1 + (i - 1) * n_lon + (j % n_lon);
        for j in 0..n_lon {
            self.triangles.push([base, ring(1, j + 1), ring(1, j)]);
            self.triangles.push([top, ring(n_lat - 1, j), ring(n_lat - 1, j + 1)]);
        }
        for i in 1..n_lat - 1 {
            for j in 0..n_lon {
                let (a, b, c, d) = (ring(i, j), ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j));
                self.triangles.push([a, b, c]);
                self.triangles.push([a, c, d]);
            }
        }
        self
    }

    /// A ring of quads between two circles of `n` points (`z0` radius `r0`, `z1` radius
    /// `r1`), facing outward, or inward when `inward`.
    fn band(&mut self, pose: Pose, (r0, z0): (f64, f64), (r1, z1): (f64, f64), n: u32, inward: bool) {
        let base = self.base();
        for (r, z) in [(r0, z0), (r1, z1)] {
            for i in 0..n {
                let a = TAU * i as f64 / n as f64;
                self.vertices.push(pose.transform_point(DVec3::new(r * a.cos(), r * a.sin(), z)));
            }
        }
        for i in 0..n {
            let j = (i + 1) % n;
            let (p0, p1, q0, q1) = (base + i, base + j, base + n + i, base + n + j);
            if inward {
                self.triangles.push([p0, q1, p1]);
                self.triangles.push([p0, q0, q1]);
            } else {
                self.triangles.push([p0, p1, q1]);
                self.triangles.push([p0, q1, q0]);
            }
        }
    }

    /// A closed cylinder along the pose's z axis, centred on its origin: `n_around` sides,
    /// `n_along` rings of quads, fan caps. `2 n_around (n_along + 1)` triangles.
    pub fn cylinder(mut self, pose: Pose, radius: f64, length: f64, n_around: u32, n_along: u32) -> Self {
        let n_along = n_along.max(1);
        for k in 0..n_along {
            let z0 = length * (k as f64 / n_along as f64 - 0.5);
            let z1 = length * ((k + 1) as f64 / n_along as f64 - 0.5);
            self.band(pose, (radius, z0), (radius, z1), n_around, false);
        }
        for (z, up) in [(-0.5 * length, false), (0.5 * length, true)] {
            let centre = self.base();
            self.vertices.push(pose.transform_point(DVec3::new(0.0, 0.0, z)));
            let ring = self.base();
            for i in 0..n_around {
                let a = TAU * i as f64 / n_around as f64;
                self.vertices.push(pose.transform_point(DVec3::new(radius * a.cos(), radius * a.sin(), z)));
            }
            for i in 0..n_around {
                let (p, q) = (ring + i, ring + (i + 1) % n_around);
                self.triangles.push(if up { [centre, p, q] } else { [centre, q, p] });
            }
        }
        self
    }

    /// A thick tube (a bored cylinder) along the pose's z axis: inner radius `inner`, outer
    /// `outer`. `4 n_around (n_along + 1)` triangles.
    pub fn tube(mut self, pose: Pose, inner: f64, outer: f64, length: f64, n_around: u32, n_along: u32) -> Self {
        let n_along = n_along.max(1);
        for k in 0..n_along {
            let z0 = length * (k as f64 / n_along as f64 - 0.5);
            let z1 = length * ((k + 1) as f64 / n_along as f64 - 0.5);
            self.band(pose, (outer, z0), (outer, z1), n_around, false);
            self.band(pose, (inner, z0), (inner, z1), n_around, true);
        }
        let h = 0.5 * length;
        // end rings: outward normals −z at the bottom, +z at the top
        self.band(pose, (inner, -h), (outer, -h), n_around, false);
        self.band(pose, (outer, h), (inner, h), n_around, false);
        self
    }

    /// An open flat sheet in the pose's xy plane, normal +z, `2 · nx · ny` triangles.
    pub fn grid(mut self, pose: Pose, size_x: f64, size_y: f64, nx: u32, ny: u32) -> Self {
        let (nx, ny) = (nx.max(1), ny.max(1));
        let base = self.base();
        for y in 0..=ny {
            for x in 0..=nx {
                let p = DVec3::new(size_x * (x as f64 / nx as f64 - 0.5), size_y * (y as f64 / ny as f64 - 0.5), 0.0);
                self.vertices.push(pose.transform_point(p));
            }
        }
        let q = |x: u32, y: u32| base + y * (nx + 1) + x;
        for y in 0..ny {
            for x in 0..nx {
                self.triangles.push([q(x, y), q(x + 1, y), q(x + 1, y + 1)]);
                self.triangles.push([q(x, y), q(x + 1, y + 1), q(x, y + 1)]);
            }
        }
        self
    }

    /// A closed plate of thickness `thickness` over an `nx × ny` grid of cells spanning
    /// `size_x × size_y` in the pose's xy plane, without the cells whose centre `hole`
    /// accepts (windows, slots), bent by `z += bend · x²`. Cells touching only at a corner
    /// make a non-manifold vertex, not an open edge.
    pub fn perforated_plate(
        mut self,
        pose: Pose,
        size: [f64; 2],
        thickness: f64,
        cells: [u32; 2],
        bend: f64,
        hole: impl Fn(f64, f64) -> bool,
    ) -> Self {
        let [nx, ny] = cells.map(|n| n.max(1));
        let at = |x: u32, y: u32| (size[0] * (x as f64 / nx as f64 - 0.5), size[1] * (y as f64 / ny as f64 - 0.5));
        let kept = |x: i64, y: i64| {
            if x < 0 || y < 0 || x >= nx as i64 || y >= ny as i64 {
                return false;
            }
            let (x0, y0) = at(x as u32, y as u32);
            let (x1, y1) = at(x as u32 + 1, y as u32 + 1);
            !hole(0.5 * (x0 + x1), 0.5 * (y0 + y1))
        };
        let base = self.base();
        let row = (nx + 1) * (ny + 1);
        for side in [0.5, -0.5] {
            for y in 0..=ny {
                for x in 0..=nx {
                    let (px, py) = at(x, y);
                    let p = DVec3::new(px, py, bend * px * px + side * thickness);
                    self.vertices.push(pose.transform_point(p));
                }
            }
        }
        let top = |x: u32, y: u32| base + y * (nx + 1) + x;
        let bottom = |x: u32, y: u32| top(x, y) + row;
        for y in 0..ny {
            for x in 0..nx {
                if !kept(x as i64, y as i64) {
                    continue;
                }
                self.triangles.push([top(x, y), top(x + 1, y), top(x + 1, y + 1)]);
                self.triangles.push([top(x, y), top(x + 1, y + 1), top(x, y + 1)]);
                self.triangles.push([bottom(x, y), bottom(x + 1, y + 1), bottom(x + 1, y)]);
                self.triangles.push([bottom(x, y), bottom(x, y + 1), bottom(x + 1, y + 1)]);
                // The cell's boundary counter-clockwise seen from +z, with the neighbour
                // across each edge; a wall where that neighbour is missing.
                let corners = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)];
                let across = [(0, -1), (1, 0), (0, 1), (-1, 0)];
                for k in 0..4 {
                    if kept(x as i64 + across[k].0, y as i64 + across[k].1) {
                        continue;
                    }
                    let (p, q) = (corners[k], corners[(k + 1) % 4]);
                    self.triangles.push([bottom(p.0, p.1), bottom(q.0, q.1), top(q.0, q.1)]);
                    self.triangles.push([bottom(p.0, p.1), top(q.0, q.1), top(p.0, p.1)]);
                }
            }
        }
        self
    }

    /// Appends another mesh placed by `pose`.
    pub fn mesh(self, pose: Pose, mesh: &Mesh) -> Self {
        self.raw(pose, mesh.vertices(), mesh.triangles())
    }

    /// The mesh, with vertices at exactly the same position merged, so that faces built
    /// separately (cylinder sides and caps, cuboid faces) share their edges and a closed
    /// shape is closed topologically too (BM-culling needs that, docs/bm-culling.md §1).
    pub fn build(self) -> Result<Mesh, MeshError> {
        let (vertices, triangles) = weld(self.vertices, self.triangles);
        Mesh::new(vertices, triangles)
    }
}

/// Merges vertices with bit-identical coordinates (−0.0 and 0.0 alike); unused vertices are
/// kept, so indices stay valid for out-of-range checks.
pub fn weld(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let key = |p: DVec3| p.to_array().map(|c| if c == 0.0 { 0u64 } else { c.to_bits() });
    let mut first: std::collections::HashMap<[u64; 3], u32> = std::collections::HashMap::with_capacity(vertices.len());
    let mut remap = Vec::with_capacity(vertices.len());
    let mut kept = Vec::with_capacity(vertices.len());
    for &p in &vertices {
        let id = *first.entry(key(p)).or_insert_with(|| {
            kept.push(p);
            (kept.len() - 1) as u32
        });
        remap.push(id);
    }
    let triangles = triangles
        .into_iter()
        .map(|t| t.map(|v| remap.get(v as usize).copied().unwrap_or(v.max(kept.len() as u32))))
        .collect();
    (kept, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perforated_plate_is_a_solid() {
        let window = |x: f64, y: f64| x.abs() < 0.3 && y > 0.0 && y < 0.4;
        let m = MeshBuilder::new()
            .perforated_plate(Pose::IDENTITY, [1.0, 1.0], 0.05, [10, 10], 0.2, window)
            .build()
            .unwrap();
        assert!(m.stats().is_closed());
        assert!(crate::bvh::is_solid(&m));
        // 100 cells, 6×4 = 24 of them holes → 76 cells × 4 + walls.
        let walls = 2 * (4 * 10 + 2 * (6 + 4));
        assert_eq!(m.triangles().len(), 76 * 4 + walls);
    }
    use glam::DQuat;

    /// Outward orientation: the signed volume is positive and equals the expected volume.
    fn volume(m: &Mesh) -> f64 {
        m.signed_volume()
    }

    #[test]
    fn primitives_are_closed_and_outward() {
        let pose = Pose::new(DQuat::from_rotation_x(0.3), DVec3::new(1.0, 2.0, 3.0));
        let cube = MeshBuilder::new().cuboid(pose, DVec3::new(1.0, 2.0, 3.0)).build().unwrap();
        assert!(cube.stats().is_closed());
        assert!((volume(&cube) - 48.0).abs() < 1e-9);

        let tcube = MeshBuilder::new().tessellated_cuboid(pose, DVec3::new(1.0, 2.0, 3.0), [3, 4, 5]).build().unwrap();
        assert!((volume(&tcube) - 48.0).abs() < 1e-9);

        let torus = MeshBuilder::new().torus(pose, 2.0, 0.5, 64, 32).build().unwrap();
        assert!(torus.stats().is_closed());
        let exact = 2.0 * std::f64::consts::PI.powi(2) * 2.0 * 0.25;
        assert!((volume(&torus) - exact).abs() < 0.02 * exact);

        let sphere = MeshBuilder::new().sphere(pose, 1.5, 24, 48).build().unwrap();
        assert!(sphere.stats().is_closed());
        let exact = 4.0 / 3.0 * std::f64::consts::PI * 1.5f64.powi(3);
        assert!((volume(&sphere) - exact).abs() < 0.02 * exact);

        let sheet = MeshBuilder::new().grid(Pose::IDENTITY, 2.0, 1.0, 4, 2).build().unwrap();
        assert_eq!(sheet.triangles().len(), 16);
        assert!(!sheet.stats().is_closed());
        assert!((sheet.normal(0) - DVec3::Z).length() < 1e-12);
    }
}
