//! Brute force for tests of the sides a contact reads: winding numbers, distances to a mesh,
//! and each vertex's nearest reading. Also used by the CLI's tests on real meshes.
// Each test binary that includes this uses some of it.
#![allow(dead_code)]

use glam::DVec3;
use mockup_ccd::{ContactKind, Mesh, Pose};
use mockup_solver::{ContactPoint, World};
use std::collections::BTreeMap;

/// The winding number of a closed mesh about `p` (the sum of the solid angles its triangles
/// subtend, Van Oosterom–Strackee): 1 inside one shell, 0 outside.
pub fn winding(mesh: &Mesh, pose: &Pose, p: DVec3) -> f64 {
    let mut w = 0.0;
    for t in 0..mesh.triangles().len() as u32 {
        let [a, b, c] = mesh.triangle_points(t).map(|x| pose.transform_point(x) - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        w += 2.0 * a.dot(b.cross(c)).atan2(den);
    }
    w / (4.0 * std::f64::consts::PI)
}

/// The distance from `x` to the mesh at `pose`, over every triangle.
pub fn distance_to(mesh: &Mesh, pose: &Pose, x: DVec3) -> f64 {
    (0..mesh.triangles().len() as u32)
        .map(|t| {
            let [p, q, r] = mesh.triangle_points(t).map(|y| pose.transform_point(y));
            (x - mockup_ccd::geometry::closest_point_on_triangle(x, p, q, r)).length()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Each vertex of body i (`of_i`) or of body j that a contact reads (VF, VE, VV for i's; FV,
/// EV, VV read for B for j's), with its nearest such contact (the first of equally near ones).
pub fn nearest_readings(contacts: &[ContactPoint], of_i: bool) -> BTreeMap<u32, &ContactPoint> {
    use ContactKind::*;
    let mut nearest: BTreeMap<u32, &ContactPoint> = BTreeMap::new();
    for c in contacts {
        let v = match (c.kind, of_i) {
            (VertexFace | VertexEdge | VertexVertex, true) => c.feature_i,
            (FaceVertex | EdgeVertex | VertexVertexForB, false) => c.feature_j,
            _ => continue,
        };
        nearest
            .entry(v)
            .and_modify(|n| {
                if c.distance < n.distance {
                    *n = c
                }
            })
            .or_insert(c);
    }
    nearest
}

/// How deep the points of the contacts of pairs in contact from the start are inside the other
/// part, by brute force (winding number, distance to every triangle): i's vertex, j's vertex,
/// or for an edge/edge contact both edges' closest points. The features the depth guarantee
/// speaks of (docs/contact-from-start.md §5).
pub fn seated_contacts_depth(world: &World) -> f64 {
    let depth = |point: DVec3, other: usize| {
        let b = world.body(other).unwrap();
        if winding(b.collider.mesh(), &b.pose, point) > 0.5 {
            distance_to(b.collider.mesh(), &b.pose, point)
        } else {
            0.0
        }
    };
    world
        .contacts()
        .iter()
        .filter(|c| c.seated)
        .map(|c| match c.kind {
            ContactKind::FaceVertex | ContactKind::EdgeVertex | ContactKind::VertexVertexForB => {
                depth(c.point_j, c.body_i)
            }
            ContactKind::EdgeEdge => depth(c.point_i, c.body_j).max(depth(c.point_j, c.body_i)),
            _ => depth(c.point_i, c.body_j),
        })
        .fold(0.0, f64::max)
}
