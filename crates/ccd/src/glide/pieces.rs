//! Facing (glide.md §4) and doppeling (§6): the parts of faces that are projected to the
//! screen, as convex polygons with a continuous azimuth.

use super::frame::{Flow, GlideFrame};
use glam::DVec3;
use std::f64::consts::PI;

/// Which body a piece belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Body {
    /// The stationary body: its backward-facing parts, doppeled.
    A,
    /// The moving body (at the start of the step): its forward-facing parts.
    B,
}

/// Corners a piece can have: a triangle cut by at most four planes (facing, the x = 0 split,
/// two azimuth limits), each adding at most one corner to a convex polygon.
pub const MAX_CORNERS: usize = 8;

/// A convex polygon, in glide coordinates, with what each corner and side came from. Side
/// `i` runs from corner `i` to corner `i + 1`. Stored inline: pieces are made by the
/// thousand per call.
#[derive(Clone, Copy, Debug)]
pub struct Poly {
    len: usize,
    pts: [DVec3; MAX_CORNERS],
    /// The mesh vertex at each corner; `None` for corners made by clipping.
    vertex: [Option<u32>; MAX_CORNERS],
    /// The mesh edge each side lies on; `None` for virtual sides (facing and doppeling cuts).
    edge: [Option<u32>; MAX_CORNERS],
}

impl Poly {
    fn empty() -> Poly {
        Poly { len: 0, pts: [DVec3::ZERO; MAX_CORNERS], vertex: [None; MAX_CORNERS], edge: [None; MAX_CORNERS] }
    }

    fn push(&mut self, p: DVec3, v: Option<u32>, e: Option<u32>) {
        if self.len < MAX_CORNERS {
            self.pts[self.len] = p;
            self.vertex[self.len] = v;
            self.edge[self.len] = e;
            self.len += 1;
        }
    }

    pub fn pts(&self) -> &[DVec3] {
        &self.pts[..self.len]
    }
    pub fn vertices(&self) -> &[Option<u32>] {
        &self.vertex[..self.len]
    }
    pub fn edges(&self) -> &[Option<u32>] {
        &self.edge[..self.len]
    }

    /// Keeps the part where `f ≥ 0` (Sutherland–Hodgman); the side along the cut is virtual.
    fn clip(&self, f: impl Fn(DVec3) -> f64) -> Option<Poly> {
        let n = self.len;
        let mut vals = [0.0; MAX_CORNERS];
        for i in 0..n {
            vals[i] = f(self.pts[i]);
        }
        let vals = &vals[..n];
        if vals.iter().all(|&v| v >= 0.0) {
            return Some(*self);
        }
        if vals.iter().all(|&v| v <= 0.0) {
            return None;
        }
        let mut out = Poly::empty();
        for i in 0..n {
            let j = (i + 1) % n;
            let (vi, vj) = (vals[i], vals[j]);
            let cut = || self.pts[i].lerp(self.pts[j], vi / (vi - vj));
            if vi >= 0.0 {
                // A kept corner; its side leads on along its edge unless the corner is on the
                // cut and the side leaves the kept region (then the cut side starts here).
                out.push(self.pts[i], self.vertex[i], if vj < 0.0 && vi == 0.0 { None } else { self.edge[i] });
                if vj < 0.0 && vi > 0.0 {
                    out.push(cut(), None, None);
                }
            } else if vj > 0.0 {
                // Re-entering: the rest of side i starts at the cut.
                out.push(cut(), None, self.edge[i]);
            }
        }
        if out.len < 3 { None } else { Some(out) }
    }
}

/// A piece of one face, ready for the screen.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub body: Body,
    pub face: u32,
    pub poly: Poly,
    /// Azimuths are taken continuous around this one (glide.md §6).
    pub phi_ref: f64,
    /// Added to every azimuth: 0, or ±2π for a doppeled copy.
    pub shift: f64,
}

impl Piece {
    /// The continuous azimuth of a point of this piece, shift included.
    pub fn phi(&self, p: DVec3) -> f64 {
        continuous_phi(self.phi_ref, p) + self.shift
    }
}

/// The azimuth of `p`, taken within π of `phi_ref`.
fn continuous_phi(phi_ref: f64, p: DVec3) -> f64 {
    let raw = if p.x == 0.0 && p.z == 0.0 { phi_ref } else { p.x.atan2(p.z) };
    phi_ref + wrap(raw - phi_ref)
}

/// Maps an angle to `(−π, π]`.
fn wrap(a: f64) -> f64 {
    // Differences of two azimuths, the only use, are within ±2π, where `%` changes nothing.
    let mut a = if a.abs() > 2.0 * PI { a % (2.0 * PI) } else { a };
    if a > PI {
        a -= 2.0 * PI;
    } else if a <= -PI {
        a += 2.0 * PI;
    }
    a
}

/// `±n · ω(x)`: ≥ 0 where a face of `body` with outward normal `n` faces the way it can collide,
/// forward for B and backward for A (glide.md §4).
pub fn facing(frame: &GlideFrame, body: Body, n: DVec3, x: DVec3) -> f64 {
    let sign = if body == Body::B { 1.0 } else { -1.0 };
    sign * n.dot(frame.velocity(x))
}

/// Whether a face slides along the flow (no point of it leads): such a face has no piece.
pub fn slides(frame: &GlideFrame, body: Body, corners: [DVec3; 3], n: DVec3) -> bool {
    let scale = corners.iter().map(|p| p.length()).fold(0.0, f64::max).max(1e-300);
    let speed = frame.max_speed(DVec3::ZERO, scale).max(1e-300);
    corners.iter().all(|&p| facing(frame, body, n, p).abs() <= 1e-12 * speed)
}

/// One triangle of body `body`, as the screen takes it: corners in glide coordinates (B at the
/// start of the step), outward unit normal, mesh vertices and the edge of each side `i → i+1`,
/// and which sides and corners it records (a mesh edge or vertex shared by several faces is
/// recorded by one of them, glide.md §11).
pub struct Face {
    pub body: Body,
    pub index: u32,
    pub corners: [DVec3; 3],
    pub normal: DVec3,
    pub vertices: [u32; 3],
    pub edges: [u32; 3],
    pub records_edge: [bool; 3],
    pub records_vertex: [bool; 3],
}

/// The pieces of one triangle that does not slide along the flow.
pub fn pieces_of_face(frame: &GlideFrame, face: &Face, out: &mut Vec<Piece>) {
    let mut poly = Poly::empty();
    for i in 0..3 {
        let vertex = face.records_vertex[i].then_some(face.vertices[i]);
        poly.push(face.corners[i], vertex, face.records_edge[i].then_some(face.edges[i]));
    }
    let (body, n) = (face.body, face.normal);
    let Some(poly) = poly.clip(|x| facing(frame, body, n, x)) else { return };
    match frame.flow {
        Flow::Glide { theta, .. } => doppel(poly, body, face.index, theta, out),
        _ => out.push(Piece { body, face: face.index, poly, phi_ref: 0.0, shift: 0.0 }),
    }
}

/// Splits a polygon so that every piece has a continuous azimuth spanning at most π, then
/// places copies so that B covers `ϕ ∈ [−π, π]` and A covers `[−π, π + θ]` (glide.md §6).
fn doppel(poly: Poly, body: Body, face: u32, theta: f64, out: &mut Vec<Piece>) {
    let straddles = poly.pts().iter().any(|p| p.x > 0.0) && poly.pts().iter().any(|p| p.x < 0.0);
    let behind = poly.pts().iter().any(|p| p.z < 0.0);
    let halves = if straddles && behind {
        // It may cross the seam ϕ = ±π or the axis: cut along the plane x = 0.
        [poly.clip(|p| p.x), poly.clip(|p| -p.x)]
    } else {
        [Some(poly), None]
    };
    let window = match body {
        Body::B => (-PI, PI),
        Body::A => (-PI, PI + theta),
    };
    for half in halves.into_iter().flatten() {
        let c = half.pts().iter().fold(DVec3::ZERO, |s, &p| s + p) / half.len as f64;
        let phi_ref = if c.x == 0.0 && c.z == 0.0 { 0.0 } else { c.x.atan2(c.z) };
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &p in half.pts().iter().filter(|p| p.x != 0.0 || p.z != 0.0) {
            let phi = continuous_phi(phi_ref, p);
            lo = lo.min(phi);
            hi = hi.max(phi);
        }
        if lo > hi {
            continue;
        }
        for k in [-1.0, 0.0, 1.0] {
            let shift = 2.0 * PI * k;
            let (wlo, whi) = (window.0 - shift, window.1 - shift);
            if hi <= wlo || lo >= whi {
                continue;
            }
            let mut part = Some(half);
            // ϕ ≥ c ⇔ x cos c − z sin c ≥ 0 while |ϕ − c| < π, true when c is inside the
            // piece's span of at most π.
            if lo < wlo {
                let (sin, cos) = wlo.sin_cos();
                part = part.and_then(|p| p.clip(|x| x.x * cos - x.z * sin));
            }
            if hi > whi {
                let (sin, cos) = whi.sin_cos();
                part = part.and_then(|p| p.clip(|x| -(x.x * cos - x.z * sin)));
            }
            if let Some(poly) = part {
                out.push(Piece { body, face, poly, phi_ref, shift });
            }
        }
    }
}
