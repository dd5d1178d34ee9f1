//! Indexed triangle meshes with the adjacency the collision tests need.

mod primitives;
mod sides;

pub use primitives::MeshBuilder;
pub use sides::{
    CONE_SLACK, Orientation, Place, STRAIGHT, Side, Sides, crossing_normal, crossing_separation, edges_cross,
};

use glam::DVec3;
use thiserror::Error;

/// Marks "no triangle/edge" in index arrays.
pub const NONE: u32 = u32::MAX;

/// A triangle is degenerate when its area is below this fraction of its longest edge squared:
/// its normal is then noise, so it is left out of every test.
const DEGENERATE_RATIO: f64 = 1e-12;

/// The largest coordinate magnitude accepted: the contact conditions multiply up to six
/// coordinates, which must not overflow an f64 (1e50⁶ = 1e300).
pub const MAX_COORDINATE: f64 = 1e50;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum MeshError {
    #[error("the mesh has no triangles")]
    NoTriangles,
    #[error("vertex {index} has a non-finite coordinate {position:?}")]
    NonFiniteVertex { index: usize, position: [f64; 3] },
    #[error("vertex {index} has a coordinate beyond ±1e50 {position:?}: too large to compute with")]
    VertexTooLarge { index: usize, position: [f64; 3] },
    #[error("triangle {triangle} refers to vertex {index}, but the mesh has only {vertex_count} vertices")]
    IndexOutOfRange { triangle: usize, index: u32, vertex_count: usize },
    #[error("all {count} triangles have zero area")]
    AllDegenerate { count: usize },
}

/// Counts that describe a mesh's quality; reported to users on import.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshStats {
    pub vertices: usize,
    pub triangles: usize,
    /// Zero-area triangles, excluded from every test.
    pub degenerate_triangles: usize,
    pub edges: usize,
    /// Edges with a single adjacent face: the mesh is open there.
    pub boundary_edges: usize,
    /// Edges with more than two adjacent faces.
    pub non_manifold_edges: usize,
    /// Vertices no non-degenerate triangle uses.
    pub unreferenced_vertices: usize,
}

impl MeshStats {
    pub fn is_closed(&self) -> bool {
        self.boundary_edges == 0 && self.non_manifold_edges == 0
    }
}

/// A validated triangle mesh: unique edges with their adjacent faces, the edges incident to
/// each vertex, unit face normals, and which triangle owns each vertex and edge (every
/// feature is tested through its owner only, so each feature pair is tested once).
#[derive(Clone, Debug)]
pub struct Mesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    normals: Vec<DVec3>,
    edges: Vec<[u32; 2]>,
    edge_face_offsets: Vec<u32>,
    edge_faces: Vec<u32>,
    triangle_edges: Vec<[u32; 3]>,
    vertex_edge_offsets: Vec<u32>,
    vertex_edges: Vec<u32>,
    owned: Vec<u8>,
    stats: MeshStats,
}

impl Mesh {
    /// Validates and indexes a mesh. Errors on non-finite coordinates, out-of-range indices,
    /// no triangles, or only zero-area triangles; open and non-manifold meshes are accepted.
    pub fn new(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> Result<Mesh, MeshError> {
        if triangles.is_empty() {
            return Err(MeshError::NoTriangles);
        }
        if let Some((index, p)) = vertices.iter().enumerate().find(|(_, p)| !p.is_finite()) {
            return Err(MeshError::NonFiniteVertex { index, position: p.to_array() });
        }
        if let Some((index, p)) = vertices.iter().enumerate().find(|(_, p)| p.abs().max_element() > MAX_COORDINATE) {
            return Err(MeshError::VertexTooLarge { index, position: p.to_array() });
        }
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(MeshError::IndexOutOfRange { triangle: t, index, vertex_count: vertices.len() });
            }
        }

        let mut normals = Vec::with_capacity(triangles.len());
        let mut degenerate = Vec::with_capacity(triangles.len());
        for tri in &triangles {
            let [a, b, c] = tri.map(|i| vertices[i as usize]);
            let cross = (b - a).cross(c - a);
            let longest = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared());
            let bad = !(cross.length() > DEGENERATE_RATIO * longest);
            degenerate.push(bad);
            normals.push(if bad { DVec3::ZERO } else { cross.normalize() });
        }
        let degenerate_count = degenerate.iter().filter(|&&d| d).count();
        if degenerate_count == triangles.len() {
            return Err(MeshError::AllDegenerate { count: triangles.len() });
        }

        // Unique edges, by sorting (min, max, triangle, corner) records.
        let mut records: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(3 * triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            if degenerate[t] {
                continue;
            }
            for i in 0..3 {
                let (a, b) = (tri[i], tri[(i + 1) % 3]);
                records.push((a.min(b), a.max(b), t as u32, i as u8));
            }
        }
        records.sort_unstable();
        let mut edges: Vec<[u32; 2]> = Vec::new();
        let mut edge_face_offsets = vec![0u32];
        let mut edge_faces = Vec::with_capacity(records.len());
        let mut triangle_edges = vec![[NONE; 3]; triangles.len()];
        for (k, &(a, b, t, i)) in records.iter().enumerate() {
            let new_edge = k == 0 || (records[k - 1].0, records[k - 1].1) != (a, b);
            if new_edge {
                if k > 0 {
                    edge_face_offsets.push(edge_faces.len() as u32);
                }
                edges.push([a, b]);
            }
            edge_faces.push(t);
            triangle_edges[t as usize][i as usize] = (edges.len() - 1) as u32;
        }
        edge_face_offsets.push(edge_faces.len() as u32);

        // Incident edges of each vertex (CSR).
        let mut counts = vec![0u32; vertices.len() + 1];
        for e in &edges {
            counts[e[0] as usize + 1] += 1;
            counts[e[1] as usize + 1] += 1;
        }
        for i in 0..vertices.len() {
            counts[i + 1] += counts[i];
        }
        let vertex_edge_offsets = counts.clone();
        let mut fill = counts;
        let mut vertex_edges = vec![0u32; 2 * edges.len()];
        for (k, e) in edges.iter().enumerate() {
            for &v in e {
                vertex_edges[fill[v as usize] as usize] = k as u32;
                fill[v as usize] += 1;
            }
        }

        // Ownership: the first non-degenerate triangle that uses a vertex or edge owns it.
        let mut owned = vec![0u8; triangles.len()];
        let mut vertex_owner = vec![NONE; vertices.len()];
        for (t, tri) in triangles.iter().enumerate() {
            if degenerate[t] {
                continue;
            }
            for i in 0..3 {
                let v = tri[i] as usize;
                if vertex_owner[v] == NONE {
                    vertex_owner[v] = t as u32;
                    owned[t] |= 1 << i;
                }
            }
        }
        for (e, _) in edges.iter().enumerate() {
            let first = edge_faces[edge_face_offsets[e] as usize] as usize;
            let corner = triangle_edges[first].iter().position(|&x| x == e as u32).unwrap();
            owned[first] |= 1 << (3 + corner);
        }

        let face_count = |e: usize| edge_face_offsets[e + 1] - edge_face_offsets[e];
        let stats = MeshStats {
            vertices: vertices.len(),
            triangles: triangles.len(),
            degenerate_triangles: degenerate_count,
            edges: edges.len(),
            boundary_edges: (0..edges.len()).filter(|&e| face_count(e) == 1).count(),
            non_manifold_edges: (0..edges.len()).filter(|&e| face_count(e) > 2).count(),
            unreferenced_vertices: vertex_owner.iter().filter(|&&o| o == NONE).count(),
        };

        Ok(Mesh {
            vertices,
            triangles,
            normals,
            edges,
            edge_face_offsets,
            edge_faces,
            triangle_edges,
            vertex_edge_offsets,
            vertex_edges,
            owned,
            stats,
        })
    }

    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }
    pub fn vertex(&self, v: u32) -> DVec3 {
        self.vertices[v as usize]
    }
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }
    pub fn triangle(&self, t: u32) -> [u32; 3] {
        self.triangles[t as usize]
    }
    pub fn triangle_points(&self, t: u32) -> [DVec3; 3] {
        self.triangles[t as usize].map(|i| self.vertices[i as usize])
    }
    /// Unit normal (right-handed order of the corners); zero for a degenerate triangle.
    pub fn normal(&self, t: u32) -> DVec3 {
        self.normals[t as usize]
    }
    pub fn is_degenerate(&self, t: u32) -> bool {
        self.normals[t as usize] == DVec3::ZERO
    }
    /// Unique edges, each as its two vertex indices (smaller first).
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }
    pub fn edge(&self, e: u32) -> [u32; 2] {
        self.edges[e as usize]
    }
    pub fn edge_points(&self, e: u32) -> [DVec3; 2] {
        self.edges[e as usize].map(|i| self.vertices[i as usize])
    }
    /// Non-degenerate faces adjacent to an edge: one on a boundary, two on a manifold edge,
    /// more on a non-manifold one.
    pub fn edge_faces(&self, e: u32) -> &[u32] {
        let e = e as usize;
        &self.edge_faces[self.edge_face_offsets[e] as usize..self.edge_face_offsets[e + 1] as usize]
    }
    /// Edge ids of a triangle's sides `(c0, c1)`, `(c1, c2)`, `(c2, c0)`; [`NONE`] for
    /// degenerate triangles.
    pub fn triangle_edges(&self, t: u32) -> [u32; 3] {
        self.triangle_edges[t as usize]
    }
    /// Edges incident to a vertex.
    pub fn vertex_edges(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.vertex_edges[self.vertex_edge_offsets[v] as usize..self.vertex_edge_offsets[v + 1] as usize]
    }
    /// The edge into which edge `e` goes on straight through its end `v`: another edge of `v`
    /// leaving it within `angle` (radians) of `e`'s own direction there, as a straight edge
    /// split by a vertex does (docs/contact-from-start.md §3, "A crossing at a vertex").
    pub fn straight_continuation(&self, e: u32, v: u32, angle: f64) -> Option<u32> {
        let [a, b] = self.edge(e);
        let from = if a == v { b } else { a };
        let ahead = (self.vertex(v) - self.vertex(from)).normalize_or_zero();
        let cos = angle.cos();
        self.vertex_edges(v).iter().copied().find(|&f| {
            let [c, d] = self.edge(f);
            let to = if c == v { d } else { c };
            f != e && (self.vertex(to) - self.vertex(v)).normalize_or_zero().dot(ahead) >= cos
        })
    }
    /// Vertices this triangle owns (tested through it).
    pub fn owned_vertices(&self, t: u32) -> impl Iterator<Item = u32> + '_ {
        let bits = self.owned[t as usize];
        let tri = self.triangles[t as usize];
        (0..3).filter(move |i| bits & (1 << i) != 0).map(move |i| tri[i])
    }
    /// Edges this triangle owns (tested through it).
    pub fn owned_edges(&self, t: u32) -> impl Iterator<Item = u32> + '_ {
        let bits = self.owned[t as usize];
        let edges = self.triangle_edges[t as usize];
        (0..3).filter(move |i| bits & (8 << i) != 0).map(move |i| edges[i])
    }
    pub fn stats(&self) -> MeshStats {
        self.stats
    }
    /// The volume enclosed, signed by the winding: positive when the triangles wind
    /// outward. Meaningful for closed meshes only.
    pub fn signed_volume(&self) -> f64 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|v| self.vertices[v as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    /// Axis-aligned bounds of all vertices.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        self.vertices
            .iter()
            .fold((DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)), |(lo, hi), &p| (lo.min(p), hi.max(p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra() -> Mesh {
        Mesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z], vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
            .unwrap()
    }

    #[test]
    fn closed_tetrahedron_topology() {
        let m = tetra();
        let s = m.stats();
        assert_eq!((s.edges, s.boundary_edges, s.non_manifold_edges), (6, 0, 0));
        assert!(s.is_closed());
        for e in 0..6 {
            assert_eq!(m.edge_faces(e).len(), 2);
        }
        for v in 0..4 {
            assert_eq!(m.vertex_edges(v).len(), 3);
            for &e in m.vertex_edges(v) {
                assert!(m.edge(e).contains(&v));
            }
        }
        // outward normals: the centroid is behind every face
        let c = DVec3::splat(0.25);
        for t in 0..4 {
            let p = m.triangle_points(t)[0];
            assert!((c - p).dot(m.normal(t)) < 0.0);
        }
    }

    #[test]
    fn every_feature_has_exactly_one_owner() {
        let m = MeshBuilder::new().torus(crate::Pose::IDENTITY, 2.0, 0.5, 12, 8).build().unwrap();
        let mut vertex_hits = vec![0; m.vertices().len()];
        let mut edge_hits = vec![0; m.edges().len()];
        for t in 0..m.triangles().len() as u32 {
            for v in m.owned_vertices(t) {
                assert!(m.triangle(t).contains(&v));
                vertex_hits[v as usize] += 1;
            }
            for e in m.owned_edges(t) {
                assert!(m.triangle_edges(t).contains(&e));
                edge_hits[e as usize] += 1;
            }
        }
        assert!(vertex_hits.iter().all(|&h| h == 1));
        assert!(edge_hits.iter().all(|&h| h == 1));
        assert!(m.stats().is_closed());
    }

    #[test]
    fn open_and_non_manifold_meshes_are_accepted() {
        // three triangles sharing edge (0, 1): non-manifold; all edges else are boundary
        let m = Mesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z, -DVec3::Y],
            vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]],
        )
        .unwrap();
        let s = m.stats();
        assert_eq!(s.non_manifold_edges, 1);
        assert_eq!(s.boundary_edges, 6);
        assert!(!s.is_closed());
    }

    #[test]
    fn degenerate_triangles_are_counted_and_excluded() {
        let m = Mesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y, 2.0 * DVec3::X], vec![[0, 1, 2], [0, 1, 3], [2, 2, 1]])
            .unwrap();
        assert_eq!(m.stats().degenerate_triangles, 2);
        assert!(m.is_degenerate(1) && m.is_degenerate(2) && !m.is_degenerate(0));
        assert_eq!(m.owned_vertices(1).count() + m.owned_edges(1).count(), 0);
        assert_eq!(m.stats().unreferenced_vertices, 1); // vertex 3 is only in a degenerate one
    }

    #[test]
    fn invalid_input_is_an_error() {
        assert_eq!(Mesh::new(vec![DVec3::ZERO], vec![]).unwrap_err(), MeshError::NoTriangles);
        assert!(matches!(
            Mesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::new(0.0, f64::NAN, 0.0)], vec![[0, 1, 2]]),
            Err(MeshError::NonFiniteVertex { index: 2, .. })
        ));
        assert!(matches!(
            Mesh::new(vec![DVec3::ZERO, DVec3::X * 1e300, DVec3::Y * 1e300], vec![[0, 1, 2]]),
            Err(MeshError::VertexTooLarge { index: 1, .. })
        ));
        assert!(matches!(
            Mesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 7]]),
            Err(MeshError::IndexOutOfRange { triangle: 0, index: 7, vertex_count: 3 })
        ));
        assert!(matches!(
            Mesh::new(vec![DVec3::ZERO, DVec3::X, 2.0 * DVec3::X], vec![[0, 1, 2]]),
            Err(MeshError::AllDegenerate { count: 1 })
        ));
        let msg = Mesh::new(vec![DVec3::ZERO, DVec3::X, DVec3::Y], vec![[0, 1, 9]]).unwrap_err().to_string();
        assert!(msg.contains("vertex 9") && msg.contains("3 vertices"), "{msg}");
    }
}
