//! The pixel screen (seed 002 §9, steps 3–6; glide.md §5, §9): pieces are projected to
//! `(r, h, t)`, edges become per-row pixel runs, and the runs are scanned for vertices inside
//! faces and edges crossing edges.

use super::frame::GlideFrame;
use super::pieces::{Body, Piece};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Screen resolution: pixel size (a length in the `(r, h)` plane) and time resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenResolution {
    pub pixel: f64,
    pub time: f64,
}

/// A pair of features that project to the same pixels at a time difference within the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Candidate {
    /// Face of A, vertex of B.
    FaceVertex(u32, u32),
    /// Vertex of A, face of B.
    VertexFace(u32, u32),
    EdgeEdge(u32, u32),
    EdgeVertex(u32, u32),
    VertexEdge(u32, u32),
    VertexVertex(u32, u32),
}

/// A small multiplicative hash: candidate keys are a few integers, and SipHash's cost shows
/// at the microsecond scale of the paper's table.
#[derive(Default)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
}

pub type PairSet<T> = HashSet<T, BuildHasherDefault<PairHasher>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Where a piece's boundary crosses the row's centre line (enters or leaves the face).
    Crossing,
    /// A run of pixels of a (non-virtual) edge in this row.
    Edge,
    Vertex,
}

/// One pixel record (a run of pixels of one row, merged as the paper does). Which body and
/// kind it is follows from the layer it is kept in.
#[derive(Clone, Copy, Debug)]
struct Record {
    row: i64,
    /// Piece (crossings), edge or vertex index.
    id: u32,
    lo: f64,
    hi: f64,
    t_lo: f64,
    t_hi: f64,
}

/// What the screen found, and how much of it there was.
#[derive(Debug, Default)]
pub struct ScreenOutput {
    pub candidates: PairSet<Candidate>,
    pub records: usize,
}

/// Records of one body and kind.
type Layers = [Vec<Record>; 6];

fn layer(body: Body, kind: Kind) -> usize {
    (body as usize) * 3 + kind as usize
}

/// Projects every piece and scans the screen.
pub fn scan(frame: &GlideFrame, pieces: &[Piece], res: ScreenResolution) -> ScreenOutput {
    let mut layers: Layers = Default::default();
    let mut line = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        project_piece(frame, piece, index as u32, res, &mut layers, &mut line);
    }
    // Seed §9 step 4: by row, then (crossings) by piece, then by h. Integer keys keep the
    // comparisons cheap; `ordered` maps an f64 to bits that sort the same way.
    let mut scratch = Vec::new();
    for (l, records) in layers.iter_mut().enumerate() {
        let crossing = l % 3 == Kind::Crossing as usize;
        sort_by_row(records, &mut scratch);
        for row in records.chunk_by_mut(|a, b| a.row == b.row) {
            row.sort_unstable_by_key(|r| (if crossing { r.id } else { 0 }, ordered(r.lo)));
        }
    }
    let mut out = ScreenOutput { records: layers.iter().map(Vec::len).sum(), ..ScreenOutput::default() };
    let mut intervals = (Vec::new(), Vec::new());
    let mut cursor = [0usize; 6];
    while let Some(row) = (0..6).filter_map(|l| layers[l].get(cursor[l]).map(|r| r.row)).min() {
        let mut rows: [&[Record]; 6] = Default::default();
        for l in 0..6 {
            let start = cursor[l];
            let records = &layers[l];
            let mut end = start;
            while end < records.len() && records[end].row == row {
                end += 1;
            }
            rows[l] = &records[start..end];
            cursor[l] = end;
        }
        scan_row(&rows, pieces, res, &mut intervals, &mut out.candidates);
    }
    out
}

/// Bucket sort by row (seed §9 step 4), stable; a comparison sort when the rows are too
/// spread out for buckets.
fn sort_by_row(records: &mut Vec<Record>, scratch: &mut Vec<Record>) {
    let Some(lo) = records.iter().map(|r| r.row).min() else { return };
    let hi = records.iter().map(|r| r.row).max().unwrap_or(lo);
    let span = (hi - lo) as usize + 1;
    if span > 4 * records.len() + 64 {
        records.sort_by_key(|r| r.row);
        return;
    }
    let mut start = vec![0usize; span + 1];
    for r in records.iter() {
        start[(r.row - lo) as usize + 1] += 1;
    }
    for i in 0..span {
        start[i + 1] += start[i];
    }
    scratch.clear();
    scratch.resize(records.len(), records[0]);
    for r in records.iter() {
        let slot = &mut start[(r.row - lo) as usize];
        scratch[*slot] = *r;
        *slot += 1;
    }
    std::mem::swap(records, scratch);
}

/// An f64's bits, mapped so that unsigned order is numeric order.
fn ordered(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Projects one piece's sides by divide and conquer (seed §9 step 3) and records, per row,
/// where its boundary crosses the row centre and which pixels its real edges cover.
fn project_piece(
    frame: &GlideFrame,
    piece: &Piece,
    index: u32,
    res: ScreenResolution,
    out: &mut Layers,
    line: &mut Vec<[f64; 3]>,
) {
    let n = piece.pts.len();
    let body = piece.body;
    for i in 0..n {
        let (p, q) = (piece.pts[i], piece.pts[(i + 1) % n]);
        let sp = frame.screen(p, piece.phi(p));
        let sq = frame.screen(q, piece.phi(q));
        if let Some(v) = piece.vertex[i] {
            let row = (sp[0] / res.pixel).floor() as i64;
            let r = Record { row, id: v, lo: sp[1], hi: sp[1], t_lo: sp[2], t_hi: sp[2] };
            out[layer(body, Kind::Vertex)].push(r);
        }
        line.clear();
        line.push(sp);
        subdivide(frame, piece, (p, sp), (q, sq), res, 0, line);
        for w in line.windows(2) {
            let (a, b) = (w[0], w[1]);
            crossings(a, b, res.pixel, index, &mut out[layer(body, Kind::Crossing)]);
            if let Some(e) = piece.edge[i] {
                runs(a, b, res.pixel, e, &mut out[layer(body, Kind::Edge)]);
            }
        }
    }
}

/// Appends the screen points after `a` up to `b`, splitting the side at its 3-D midpoint until
/// the chord is within half a pixel and the time resolution of the curve, or one pixel long.
fn subdivide(
    frame: &GlideFrame,
    piece: &Piece,
    a: (glam::DVec3, [f64; 3]),
    b: (glam::DVec3, [f64; 3]),
    res: ScreenResolution,
    depth: u32,
    line: &mut Vec<[f64; 3]>,
) {
    let (sa, sb) = (a.1, b.1);
    let chord = (sb[0] - sa[0]).hypot(sb[1] - sa[1]);
    if depth < 20 && chord > res.pixel {
        let m = 0.5 * (a.0 + b.0);
        let sm = frame.screen(m, piece.phi(m));
        let off = (sm[0] - 0.5 * (sa[0] + sb[0])).hypot(sm[1] - 0.5 * (sa[1] + sb[1]));
        let t_off = (sm[2] - 0.5 * (sa[2] + sb[2])).abs();
        if off > 0.5 * res.pixel || t_off > res.time {
            subdivide(frame, piece, a, (m, sm), res, depth + 1, line);
            subdivide(frame, piece, (m, sm), b, res, depth + 1, line);
            return;
        }
    }
    line.push(sb);
}

/// Rows whose centre line `r = (k + ½)·pixel` the chord crosses, half-open in r so that a
/// closed boundary crosses each row an even number of times.
fn crossings(a: [f64; 3], b: [f64; 3], px: f64, piece: u32, out: &mut Vec<Record>) {
    let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
    if lo[0] == hi[0] {
        return;
    }
    let mut k = (lo[0] / px - 0.5).ceil() as i64;
    loop {
        let c = (k as f64 + 0.5) * px;
        if c >= hi[0] {
            break;
        }
        if c >= lo[0] {
            let s = (c - lo[0]) / (hi[0] - lo[0]);
            let h = lo[1] + s * (hi[1] - lo[1]);
            let t = lo[2] + s * (hi[2] - lo[2]);
            out.push(Record { row: k, id: piece, lo: h, hi: h, t_lo: t, t_hi: t });
        }
        k += 1;
    }
}

/// The chord's pixels, one run per row it passes through (what Bresenham's pixels of one row
/// merge into), with the h and t ranges of the chord inside the row.
fn runs(a: [f64; 3], b: [f64; 3], px: f64, edge: u32, out: &mut Vec<Record>) {
    let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
    let first = (lo[0] / px).floor() as i64;
    let last = (hi[0] / px).floor() as i64;
    for row in first..=last {
        let (s0, s1) = if hi[0] > lo[0] {
            let band = (row as f64 * px, (row + 1) as f64 * px);
            (((band.0 - lo[0]) / (hi[0] - lo[0])).max(0.0), ((band.1 - lo[0]) / (hi[0] - lo[0])).min(1.0))
        } else {
            (0.0, 1.0)
        };
        let at = |s: f64, i: usize| lo[i] + s * (hi[i] - lo[i]);
        let (h0, h1) = (at(s0, 1), at(s1, 1));
        let (t0, t1) = (at(s0, 2), at(s1, 2));
        out.push(Record { row, id: edge, lo: h0.min(h1), hi: h0.max(h1), t_lo: t0.min(t1), t_hi: t0.max(t1) });
    }
}

/// A face's extent along one row: between an entering and a leaving crossing.
#[derive(Clone, Copy, Debug)]
struct Interval {
    face: u32,
    lo: f64,
    hi: f64,
}

/// Steps 5 and 6 of seed §9 for one row.
fn scan_row(
    rows: &[&[Record]; 6],
    pieces: &[Piece],
    res: ScreenResolution,
    intervals: &mut (Vec<Interval>, Vec<Interval>),
    found: &mut PairSet<Candidate>,
) {
    let part = |body: Body, kind: Kind| rows[layer(body, kind)];
    let (a_edges, a_verts) = (part(Body::A, Kind::Edge), part(Body::A, Kind::Vertex));
    let (b_edges, b_verts) = (part(Body::B, Kind::Edge), part(Body::B, Kind::Vertex));
    let m = res.pixel;
    face_intervals(part(Body::A, Kind::Crossing), pieces, &mut intervals.0);
    face_intervals(part(Body::B, Kind::Crossing), pieces, &mut intervals.1);

    // Step 5: vertices inside the other body's faces, both ways (within a pixel).
    for v in b_verts {
        for iv in intervals.0.iter().take_while(|iv| iv.lo - m <= v.lo) {
            if v.lo <= iv.hi + m {
                found.insert(Candidate::FaceVertex(iv.face, v.id));
            }
        }
    }
    for v in a_verts {
        for iv in intervals.1.iter().take_while(|iv| iv.lo - m <= v.lo) {
            if v.lo <= iv.hi + m {
                found.insert(Candidate::VertexFace(v.id, iv.face));
            }
        }
    }

    // Step 6: pixels shared by an edge (or vertex) of A and one of B at a time difference in
    // the step. τ = t_a − t_b (glide.md §5).
    let meet = |a: &Record, b: &Record| {
        b.lo <= a.hi + m && a.lo <= b.hi + m && a.t_hi - b.t_lo >= -res.time && a.t_lo - b.t_hi <= 1.0 + res.time
    };
    let mut pairs = |xs: &[Record], ys: &[Record], make: fn(u32, u32) -> Candidate| {
        sweep(xs, ys, m, |x, y| {
            if meet(x, y) {
                found.insert(make(x.id, y.id));
            }
        });
    };
    pairs(a_edges, b_edges, Candidate::EdgeEdge);
    pairs(a_edges, b_verts, Candidate::EdgeVertex);
    pairs(a_verts, b_edges, Candidate::VertexEdge);
    pairs(a_verts, b_verts, Candidate::VertexVertex);
}

/// Calls `f` for every pair of `xs × ys` whose h ranges, widened by `m`, overlap; both sorted
/// by `lo`. A sweep over h with the open records of each side.
fn sweep(xs: &[Record], ys: &[Record], m: f64, mut f: impl FnMut(&Record, &Record)) {
    let (mut i, mut j) = (0, 0);
    let (mut open_x, mut open_y): (Vec<&Record>, Vec<&Record>) = (Vec::new(), Vec::new());
    while i < xs.len() || j < ys.len() {
        let take_x = j >= ys.len() || (i < xs.len() && xs[i].lo <= ys[j].lo);
        if take_x {
            let x = &xs[i];
            i += 1;
            open_y.retain(|y| y.hi + m >= x.lo);
            for y in &open_y {
                f(x, y);
            }
            open_x.push(x);
        } else {
            let y = &ys[j];
            j += 1;
            open_x.retain(|x| x.hi + m >= y.lo);
            for x in &open_x {
                f(x, y);
            }
            open_y.push(y);
        }
    }
}

/// Pairs each piece's crossings in h order into the face's intervals on this row, sorted by
/// their low end.
fn face_intervals(crossings: &[Record], pieces: &[Piece], out: &mut Vec<Interval>) {
    out.clear();
    for piece in crossings.chunk_by(|a, b| a.id == b.id) {
        let face = pieces[piece[0].id as usize].face;
        for pair in piece.chunks_exact(2) {
            out.push(Interval { face, lo: pair[0].lo, hi: pair[1].lo });
        }
    }
    out.sort_unstable_by(|a, b| a.lo.total_cmp(&b.lo));
}
