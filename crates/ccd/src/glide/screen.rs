//! The pixel screen (seed 002 §9, steps 3–6; glide.md §5, §9): pieces are projected to
//! `(r, h, t)`, edges become per-row pixel runs, and the runs are scanned for vertices inside
//! faces and edges crossing edges.

use super::frame::GlideFrame;
use super::pieces::{Body, Piece};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Screen resolution: pixel size (a length in the `(r, h)` plane) and time resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenResolution {
    pub pixel: f64,
    pub time: f64,
}

/// A pair of features that project to the same pixels at a time difference within the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

pub type PairMap<K, V> = HashMap<K, V, BuildHasherDefault<PairHasher>>;

/// The times `[lo, hi]` of the step at which a candidate can collide, as its pixels say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub lo: f64,
    pub hi: f64,
}

impl Window {
    pub const WHOLE: Window = Window { lo: 0.0, hi: 1.0 };

    pub fn union(self, o: Window) -> Window {
        Window { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }
}

/// Records a candidate, widening its window if it is already there.
pub fn note<K: std::hash::Hash + Eq>(map: &mut PairMap<K, Window>, key: K, w: Window) {
    map.entry(key).and_modify(|x| *x = x.union(w)).or_insert(w);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A run of pixels of any side of a piece, virtual sides included: together they give
    /// the piece's extent in the row.
    Extent,
    /// A run of pixels of a (non-virtual) edge in this row.
    Edge,
    Vertex,
}

/// One pixel record (a run of pixels of one row, merged as the paper does). Which body and
/// kind it is follows from the layer it is kept in.
#[derive(Clone, Copy, Debug)]
struct Record {
    row: i64,
    /// Piece (extents), edge or vertex index.
    id: u32,
    lo: f64,
    hi: f64,
    t_lo: f64,
    t_hi: f64,
}

/// What the screen found, and how much of it there was.
#[derive(Debug, Default)]
pub struct ScreenOutput {
    pub candidates: PairMap<Candidate, Window>,
    pub records: usize,
}

/// Records of one body and kind.
type Layers = [Vec<Record>; 6];

fn layer(body: Body, kind: Kind) -> usize {
    (body as usize) * 3 + kind as usize
}

/// Buffers kept between calls on a thread: records run to hundreds of thousands, and
/// allocating them afresh each call showed in the profile (page faults).
#[derive(Default)]
struct Buffers {
    layers: Layers,
    scratch: Vec<Record>,
    line: Vec<[f64; 3]>,
    /// One piece's extent runs before they are merged per row.
    piece_runs: Vec<Record>,
    intervals: (Vec<Interval>, Vec<Interval>),
    open: Open,
}

/// The records a sweep has open, per side (indices).
type Open = (Vec<usize>, Vec<usize>);

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::new(Buffers::default());
}

/// Projects every piece and scans the screen.
pub fn scan(frame: &GlideFrame, pieces: &[Piece], res: ScreenResolution) -> ScreenOutput {
    BUFFERS.with_borrow_mut(|b| scan_with(frame, pieces, res, b))
}

fn scan_with(frame: &GlideFrame, pieces: &[Piece], res: ScreenResolution, b: &mut Buffers) -> ScreenOutput {
    let Buffers { layers, scratch, line, piece_runs, intervals, open } = b;
    for l in layers.iter_mut() {
        l.clear();
    }
    for (index, piece) in pieces.iter().enumerate() {
        project_piece(frame, piece, index as u32, res, layers, line, piece_runs);
    }
    // Seed §9 step 4: by row, then by h. Integer keys keep the comparisons cheap; `ordered`
    // maps an f64 to bits that sort the same way.
    for records in layers.iter_mut() {
        sort_by_row(records, scratch);
        for row in records.chunk_by_mut(|a, b| a.row == b.row) {
            row.sort_unstable_by_key(|r| ordered(r.lo));
        }
    }
    let mut out = ScreenOutput { records: layers.iter().map(Vec::len).sum(), ..ScreenOutput::default() };
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
        scan_row(&rows, pieces, res, intervals, open, &mut out.candidates);
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
    piece_runs: &mut Vec<Record>,
) {
    let (pts, vertices, edges) = (piece.poly.pts(), piece.poly.vertices(), piece.poly.edges());
    piece_runs.clear();
    let n = pts.len();
    let body = piece.body;
    for i in 0..n {
        let (p, q) = (pts[i], pts[(i + 1) % n]);
        let sp = frame.screen(p, piece.phi(p));
        let sq = frame.screen(q, piece.phi(q));
        if let Some(v) = vertices[i] {
            let row = (sp[0] / res.pixel).floor() as i64;
            let r = Record { row, id: v, lo: sp[1], hi: sp[1], t_lo: sp[2], t_hi: sp[2] };
            out[layer(body, Kind::Vertex)].push(r);
        }
        line.clear();
        line.push(sp);
        subdivide(frame, piece, (p, sp), (q, sq), res, 0, line);
        for w in line.windows(2) {
            let (a, b) = (w[0], w[1]);
            runs(a, b, res.pixel, index, piece_runs);
            if let Some(e) = edges[i] {
                runs(a, b, res.pixel, e, &mut out[layer(body, Kind::Edge)]);
            }
        }
    }
    // The piece's extent in each row: from the lowest to the highest h of its runs there.
    piece_runs.sort_unstable_by_key(|r| r.row);
    let extents = &mut out[layer(body, Kind::Extent)];
    for row in piece_runs.chunk_by(|a, b| a.row == b.row) {
        let lo = row.iter().map(|r| r.lo).fold(f64::INFINITY, f64::min);
        let hi = row.iter().map(|r| r.hi).fold(f64::NEG_INFINITY, f64::max);
        extents.push(Record { row: row[0].row, id: index, lo, hi, t_lo: 0.0, t_hi: 0.0 });
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

/// The chord's pixels, one run per row it passes through (what Bresenham's pixels of one row
/// merge into), with the h and t ranges of the chord inside the row; a pixel's slack in r.
fn runs(a: [f64; 3], b: [f64; 3], px: f64, id: u32, out: &mut Vec<Record>) {
    let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
    // The chord stands for a curve within half a pixel of it (divide and conquer's
    // tolerance): it also covers the rows a pixel beyond its ends in r, there with its end's
    // h. (A face tangent to a cylinder r = const, on its facing cut, is met at its extreme r.)
    let first = ((lo[0] - px) / px).floor() as i64;
    let last = ((hi[0] + px) / px).floor() as i64;
    for row in first..=last {
        let (s0, s1) = if hi[0] > lo[0] {
            let band = (row as f64 * px, (row + 1) as f64 * px);
            // Clamped at both ends: a slack row beyond the chord's end gets the end's h, not
            // the chord extrapolated (which, for a chord almost level in r, reached h ≈ 1e14).
            let at = |band: f64| ((band - lo[0]) / (hi[0] - lo[0])).clamp(0.0, 1.0);
            (at(band.0), at(band.1))
        } else {
            (0.0, 1.0)
        };
        let at = |s: f64, i: usize| lo[i] + s * (hi[i] - lo[i]);
        let (h0, h1) = (at(s0, 1), at(s1, 1));
        let (t0, t1) = (at(s0, 2), at(s1, 2));
        out.push(Record { row, id, lo: h0.min(h1), hi: h0.max(h1), t_lo: t0.min(t1), t_hi: t0.max(t1) });
    }
}

/// A face's extent along one row.
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
    open: &mut Open,
    found: &mut PairMap<Candidate, Window>,
) {
    let part = |body: Body, kind: Kind| rows[layer(body, kind)];
    let (a_edges, a_verts) = (part(Body::A, Kind::Edge), part(Body::A, Kind::Vertex));
    let (b_edges, b_verts) = (part(Body::B, Kind::Edge), part(Body::B, Kind::Vertex));
    let m = res.pixel;
    face_intervals(part(Body::A, Kind::Extent), pieces, &mut intervals.0);
    face_intervals(part(Body::B, Kind::Extent), pieces, &mut intervals.1);

    // Step 5: vertices inside the other body's faces, both ways (within a pixel).
    for v in b_verts {
        for iv in intervals.0.iter().take_while(|iv| iv.lo - m <= v.lo) {
            if v.lo <= iv.hi + m {
                note(found, Candidate::FaceVertex(iv.face, v.id), Window::WHOLE);
            }
        }
    }
    for v in a_verts {
        for iv in intervals.1.iter().take_while(|iv| iv.lo - m <= v.lo) {
            if v.lo <= iv.hi + m {
                note(found, Candidate::VertexFace(v.id, iv.face), Window::WHOLE);
            }
        }
    }

    // Step 6: pixels shared by an edge (or vertex) of A and one of B at a time difference in
    // the step. τ = t_a − t_b (glide.md §5).
    let meet = |a: &Record, b: &Record| {
        b.lo <= a.hi + m && a.lo <= b.hi + m && a.t_hi - b.t_lo >= -res.time && a.t_lo - b.t_hi <= 1.0 + res.time
    };
    // The time window of a pair: τ between the records' extremes, widened by the time
    // resolution (the records' times are chord interpolations to that accuracy).
    let slack = 2.0 * res.time;
    let mut pairs = |xs: &[Record], ys: &[Record], make: fn(u32, u32) -> Candidate| {
        sweep(xs, ys, m, open, |x, y| {
            if meet(x, y) {
                let w = Window { lo: x.t_lo - y.t_hi - slack, hi: x.t_hi - y.t_lo + slack };
                note(found, make(x.id, y.id), w);
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
fn sweep(xs: &[Record], ys: &[Record], m: f64, open: &mut Open, mut f: impl FnMut(&Record, &Record)) {
    let (open_x, open_y) = open;
    open_x.clear();
    open_y.clear();
    let (mut i, mut j) = (0, 0);
    while i < xs.len() || j < ys.len() {
        let take_x = j >= ys.len() || (i < xs.len() && xs[i].lo <= ys[j].lo);
        if take_x {
            let x = &xs[i];
            open_y.retain(|&k| ys[k].hi + m >= x.lo);
            for &k in open_y.iter() {
                f(x, &ys[k]);
            }
            open_x.push(i);
            i += 1;
        } else {
            let y = &ys[j];
            open_x.retain(|&k| xs[k].hi + m >= y.lo);
            for &k in open_x.iter() {
                f(&xs[k], y);
            }
            open_y.push(j);
            j += 1;
        }
    }
}

/// Each piece's extent on this row (one record per piece, from the lowest to the highest `h`
/// of its sides' runs, sorted by the low end), as faces. The part of a face inside a row band
/// is bounded by its sides there and by the band's edges, whose ends are on the sides: so
/// this holds the whole face's part of the row. (A face's projection folds only where the
/// flow is tangent to it, on its facing cut, which is a side of the piece.)
fn face_intervals(extents: &[Record], pieces: &[Piece], out: &mut Vec<Interval>) {
    out.clear();
    out.extend(extents.iter().map(|r| Interval { face: pieces[r.id as usize].face, lo: r.lo, hi: r.hi }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run of a chord lies within the chord's h and t ranges, in its rows and in the
    /// slack row beyond each end; a chord almost level in r once extrapolated h to ≈ 1e14 there.
    #[test]
    fn runs_stay_within_their_chord() {
        for (a, b) in [
            ([1.0, 0.0, 0.0], [1.0 + 1e-12, 2.0, 1.0]),
            ([1.03, -0.5, 0.2], [1.47, 0.3, 0.4]),
            ([2.0, 1.0, 0.9], [1.0, 1.0, 0.1]),
            ([0.5, 0.25, 0.5], [0.5, 0.75, 0.5]),
        ] {
            let mut out = Vec::new();
            runs(a, b, 0.1, 7, &mut out);
            let (r_lo, r_hi) = (a[0].min(b[0]), a[0].max(b[0]));
            let rows: Vec<i64> = out.iter().map(|r| r.row).collect();
            assert_eq!(rows.first(), Some(&(((r_lo - 0.1) / 0.1).floor() as i64)), "{a:?} {b:?}");
            assert_eq!(rows.last(), Some(&(((r_hi + 0.1) / 0.1).floor() as i64)), "{a:?} {b:?}");
            for r in &out {
                assert!(r.lo >= a[1].min(b[1]) - 1e-12 && r.hi <= a[1].max(b[1]) + 1e-12, "{r:?} of {a:?} {b:?}");
                assert!(r.t_lo >= a[2].min(b[2]) - 1e-12 && r.t_hi <= a[2].max(b[2]) + 1e-12, "{r:?} of {a:?} {b:?}");
            }
        }
    }
}
