//! The pixel screen (seed 002 §9, steps 3–6; glide.md §5, §9): pieces are projected to
//! `(r, h, t)`, edges become per-row pixel runs, and the runs are scanned for vertices inside
//! faces and edges crossing edges.

use super::frame::GlideFrame;
use super::pieces::{Body, MAX_CORNERS, Piece};
use glam::DVec3;
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
#[derive(Clone, Debug, Default)]
pub struct ScreenOutput {
    pub candidates: PairMap<Candidate, Window>,
    /// Records made.
    pub records: usize,
    /// Chords of the pieces' boundaries, and those rasterized into runs.
    pub chords: usize,
    pub chords_rasterized: usize,
}

/// Records of one body and kind.
type Layers = [Vec<Record>; 6];

/// A projected point of a piece's boundary: `r, h, t`, and a bound on how far in `t` the curve
/// strays from the chord ending here (0 at the boundary's first point).
type Point = [f64; 4];

fn layer(body: Body, kind: Kind) -> usize {
    (body as usize) * 3 + kind as usize
}

/// Buffers kept between calls on a thread: records run to hundreds of thousands, and
/// allocating them afresh each call showed in the profile (page faults).
#[derive(Default)]
struct Buffers {
    /// Every piece's boundary, projected.
    points: Vec<Point>,
    lines: Vec<Line>,
    tiles: Vec<u8>,
    /// The points' r, for choosing the row the screen is cut at.
    cut: Vec<f64>,
    rows: RowBuffers,
}

/// What scanning a band of rows needs: one per thread.
#[derive(Default)]
struct RowBuffers {
    layers: Layers,
    /// One per thread of the layers' sort.
    scratch: [Vec<Record>; 2],
    /// One piece's extent (lowest and highest h) per row.
    extent: Vec<(f64, f64)>,
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
    BUFFERS.with_borrow_mut(|b| scan_with(frame, pieces, res, b, true, Cut::Auto))
}

/// The screen without [`Tiles`]' culling: every chord rasterized. What the culled screen
/// must find the same candidates as.
#[cfg(test)]
pub fn scan_unculled(frame: &GlideFrame, pieces: &[Piece], res: ScreenResolution) -> ScreenOutput {
    scan_with(frame, pieces, res, &mut Buffers::default(), false, Cut::Never)
}

/// The screen in two bands of rows, cut at the row of the points' `quantile` in r, whatever
/// its size: what the whole screen must find the same candidates as.
#[cfg(test)]
pub fn scan_cut_at(frame: &GlideFrame, pieces: &[Piece], res: ScreenResolution, quantile: f64) -> ScreenOutput {
    scan_with(frame, pieces, res, &mut Buffers::default(), true, Cut::At(quantile))
}

/// Whether the rows are scanned in two bands on two threads.
#[derive(Clone, Copy)]
enum Cut {
    /// At the points' median r, when there are [`PARALLEL_POINTS`] or more and two cores.
    Auto,
    #[cfg(test)]
    Never,
    #[cfg(test)]
    At(f64),
}

/// Fewer projected points than this are scanned on one thread.
const PARALLEL_POINTS: usize = 4096;

fn scan_with(
    frame: &GlideFrame,
    pieces: &[Piece],
    res: ScreenResolution,
    b: &mut Buffers,
    cull: bool,
    cut: Cut,
) -> ScreenOutput {
    let mut out = ScreenOutput::default();
    let Some(grid) = project(frame, pieces, res, b, cull, &mut out) else { return out };
    let Buffers { points, lines, tiles, cut: rs, rows } = b;
    let quantile = match cut {
        Cut::Auto if points.len() >= PARALLEL_POINTS && crate::parallel::cores() >= 2 => Some(0.5),
        Cut::Auto => None,
        #[cfg(test)]
        Cut::Never => None,
        #[cfg(test)]
        Cut::At(q) => Some(q),
    };
    let screen = Screen { pieces, lines, points, grid: &grid, tiles, res };
    let Some(row) = quantile.map(|q| cut_row(points, res.pixel, q, rs)) else {
        screen.scan_rows((i64::MIN, i64::MAX), rows, true, &mut out);
        return out;
    };
    // Rows are scanned apart from each other (a record pairs only with records of its own
    // row), so the two bands' candidates together are the whole screen's (glide.md §11).
    let mut theirs = ScreenOutput::default();
    crate::parallel::join(
        || screen.scan_rows((i64::MIN, row - 1), rows, false, &mut out),
        || {
            BUFFERS.with(|cell| match cell.try_borrow_mut() {
                Ok(mut b) => screen.scan_rows((row, i64::MAX), &mut b.rows, false, &mut theirs),
                // This thread is in a screen of its own (a nested split).
                Err(_) => screen.scan_rows((row, i64::MAX), &mut RowBuffers::default(), false, &mut theirs),
            })
        },
    );
    out.records += theirs.records;
    out.chords_rasterized += theirs.chords_rasterized;
    if theirs.candidates.len() > out.candidates.len() {
        std::mem::swap(&mut theirs.candidates, &mut out.candidates);
    }
    for (c, w) in theirs.candidates {
        note(&mut out.candidates, c, w);
    }
    out
}

/// Step 3, in three passes: every piece's boundary projected to polylines (into `b`); the
/// tiles each body's chords, vertices and faces cover; runs made only where the other body is.
/// `None` when nothing projects to a finite place.
fn project(
    frame: &GlideFrame,
    pieces: &[Piece],
    res: ScreenResolution,
    b: &mut Buffers,
    cull: bool,
    out: &mut ScreenOutput,
) -> Option<Tiles> {
    let Buffers { points, lines, tiles, .. } = b;
    points.clear();
    lines.clear();
    for piece in pieces {
        lines.push(project_piece(frame, piece, res, points));
    }
    let mut grid = Tiles::new(points, res.pixel, tiles)?;
    grid.cull = cull;
    for (line, piece) in lines.iter().zip(pieces) {
        mark(line, piece, points, &grid, tiles, out);
    }
    Some(grid)
}

/// Bands of rows a screen that may stop is scanned in, two at a time (one per thread).
pub const BANDS: usize = 8;
const _: () = assert!(BANDS.is_multiple_of(2) && BANDS >= 2);

/// [`scan`] a band of rows at a time, adding to `out`, from band `from` of [`BANDS`] on; after
/// each round of two bands (at least one round), it stops when `stop()` says so and returns
/// the band to go on from; `None` once the last band is scanned. A screen of fewer than
/// [`PARALLEL_POINTS`] points, or on one core, is scanned whole at once. Rows are scanned apart
/// from each other, so the bands' candidates together are the whole screen's; the bands are
/// cut at the points' r quantiles, which a later call over the same pieces finds again
/// (glide.md §11, "A screen that waits").
pub fn scan_from(
    frame: &GlideFrame,
    pieces: &[Piece],
    res: ScreenResolution,
    from: usize,
    stop: &dyn Fn() -> bool,
    out: &mut ScreenOutput,
) -> Option<usize> {
    BUFFERS.with_borrow_mut(|b| {
        let grid = project(frame, pieces, res, b, true, out)?;
        let Buffers { points, lines, tiles, cut: rs, rows } = b;
        let screen = Screen { pieces, lines, points, grid: &grid, tiles, res };
        if points.len() < PARALLEL_POINTS || crate::parallel::cores() < 2 {
            if from == 0 {
                screen.scan_rows((i64::MIN, i64::MAX), rows, true, out);
            }
            return None;
        }
        let cuts = band_rows(points, res.pixel, rs);
        let band = |k: usize| {
            (if k == 0 { i64::MIN } else { cuts[k - 1] }, if k == BANDS - 1 { i64::MAX } else { cuts[k] - 1 })
        };
        let mut next = from;
        while next < BANDS {
            if next > from && stop() {
                return Some(next);
            }
            let mut theirs = ScreenOutput::default();
            crate::parallel::join(
                || screen.scan_rows(band(next), rows, false, out),
                || {
                    BUFFERS.with(|cell| match cell.try_borrow_mut() {
                        Ok(mut b) => screen.scan_rows(band(next + 1), &mut b.rows, false, &mut theirs),
                        Err(_) => screen.scan_rows(band(next + 1), &mut RowBuffers::default(), false, &mut theirs),
                    })
                },
            );
            out.records += theirs.records;
            out.chords_rasterized += theirs.chords_rasterized;
            for (c, w) in theirs.candidates {
                note(&mut out.candidates, c, w);
            }
            next += 2;
        }
        None
    })
}

/// The rows the bands of [`scan_from`] start at after the first: those of the points' r at
/// the quantiles `k / BANDS`, in increasing order.
fn band_rows(points: &[Point], px: f64, rs: &mut Vec<f64>) -> [i64; BANDS - 1] {
    rs.clear();
    rs.extend(points.iter().map(|p| p[0]));
    rs.sort_unstable_by(f64::total_cmp);
    std::array::from_fn(|k| rs.get((rs.len().saturating_sub(1)) * (k + 1) / BANDS).map_or(0, |&r| row_of(r, px)))
}

/// The row of the points' `quantile` in r (0: the lowest, 1: the highest); 0 without points.
fn cut_row(points: &[Point], px: f64, quantile: f64, rs: &mut Vec<f64>) -> i64 {
    rs.clear();
    rs.extend(points.iter().map(|p| p[0]));
    if rs.is_empty() {
        return 0;
    }
    let k = ((rs.len() - 1) as f64 * quantile.clamp(0.0, 1.0)) as usize;
    row_of(*rs.select_nth_unstable_by(k, f64::total_cmp).1, px)
}

/// One screen's projected pieces and tiles, shared by the threads that scan its rows.
#[derive(Clone, Copy)]
struct Screen<'a> {
    pieces: &'a [Piece],
    lines: &'a [Line],
    points: &'a [Point],
    grid: &'a Tiles,
    tiles: &'a [u8],
    res: ScreenResolution,
}

impl Screen<'_> {
    /// Rasterizes, sorts and scans the rows `[band.0, band.1]`, adding to `out`: the records of
    /// these rows are the whole screen's in them, in the same order, so each row's scan is the
    /// one the whole screen makes. `threads`: the sort may use two.
    fn scan_rows(&self, band: (i64, i64), b: &mut RowBuffers, threads: bool, out: &mut ScreenOutput) {
        let RowBuffers { layers, scratch, extent, intervals, open } = b;
        for l in layers.iter_mut() {
            l.clear();
        }
        let Screen { pieces, lines, points, grid, tiles, res } = *self;
        for (index, (line, piece)) in lines.iter().zip(pieces).enumerate() {
            if line.rows.1 < band.0 || line.rows.0 > band.1 {
                continue;
            }
            rasterize(line, piece, index as u32, points, grid, tiles, res.pixel, band, layers, extent, out);
        }
        out.records += layers.iter().map(Vec::len).sum::<usize>();
        // Seed §9 step 4: by row, then (where a row holds enough records for it to pay) by h.
        sort_layers(layers, scratch, threads);
        let mut cursor = [0usize; 6];
        while let Some(row) = (0..6).filter_map(|l| layers[l].get(cursor[l]).map(|r| r.row)).min() {
            let ranges: [std::ops::Range<usize>; 6] = std::array::from_fn(|l| {
                let (records, start) = (&layers[l], cursor[l]);
                let end = start + records[start..].iter().take_while(|r| r.row == row).count();
                cursor[l] = end;
                start..end
            });
            let n: [usize; 6] = std::array::from_fn(|l| ranges[l].len());
            let [a_ext, a_edge, a_vert, b_ext, b_edge, b_vert] = n;
            // Comparisons the row scans make when every pair is looked at.
            let pairs = (a_edge + a_vert) * (b_edge + b_vert) + a_vert * b_ext + b_vert * a_ext;
            let sorted = pairs > SWEEP_ABOVE;
            if sorted {
                // `ordered` maps an f64 to bits that sort the same way: integer keys compare
                // cheaply.
                for (records, range) in layers.iter_mut().zip(&ranges) {
                    records[range.clone()].sort_unstable_by_key(|r| crate::geometry::ordered_bits(r.lo));
                }
            }
            let rows: [&[Record]; 6] = std::array::from_fn(|l| &layers[l][ranges[l].clone()]);
            scan_row(&rows, sorted, pieces, res, intervals, open, &mut out.candidates);
        }
    }
}

/// A tile is `2^TILE_ROWS_LOG2` rows by `TILE_PIXELS` pixels along h, unless the screen would
/// need more than `MAX_TILES` of them.
const TILE_ROWS_LOG2: u32 = 2;
const TILE_PIXELS: f64 = 4.0;
const MAX_TILES: usize = 1 << 16;

/// A coarse grid over the screen, to make runs only where the other body projects too (not in
/// the paper, whose §9.1 screens everything; glide.md §11). Each tile holds a bit per layer:
/// a layer marks the tiles its records could cover, widened by the margin `m` along h; a chord,
/// vertex or face is rasterized only when its own tiles hold a mark of a layer it can pair
/// with. Two records that the row scans pair (same row, h ranges within `m`) share such a
/// tile, so nothing they would find is lost; most of the tori's chords lie where only one body
/// projects.
struct Tiles {
    /// The pixel, also the margin along h within which the row scans pair records.
    px: f64,
    row_lo: i64,
    shift: u32,
    h_lo: f64,
    inv_width: f64,
    /// Columns per tile row.
    nh: usize,
    /// False: every tile counts as holding every mark.
    cull: bool,
}

/// A rectangle of tiles: rows and columns, inclusive.
#[derive(Clone, Copy)]
struct Rect {
    rows: (usize, usize),
    cols: (usize, usize),
}

impl Tiles {
    /// The grid over every projected point (rows with `runs`' slack), cleared; `None` when
    /// there is nothing to cover or the points are not finite.
    fn new(points: &[Point], px: f64, tiles: &mut Vec<u8>) -> Option<Tiles> {
        let (mut r_lo, mut r_hi, mut h_lo, mut h_hi) =
            (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for p in points {
            r_lo = r_lo.min(p[0]);
            r_hi = r_hi.max(p[0]);
            h_lo = h_lo.min(p[1]);
            h_hi = h_hi.max(p[1]);
        }
        let (h_lo, h_hi) = (h_lo - px, h_hi + px);
        if !(r_hi - r_lo).is_finite() || !(h_hi - h_lo).is_finite() {
            return None;
        }
        let (row_lo, row_hi) = rows_with_slack(r_lo, r_hi, px);
        let (mut shift, mut width) = (TILE_ROWS_LOG2, TILE_PIXELS * px);
        let dims =
            |shift: u32, width: f64| (((row_hi - row_lo) >> shift) as usize + 1, ((h_hi - h_lo) / width) as usize + 1);
        while dims(shift, width).0.saturating_mul(dims(shift, width).1) > MAX_TILES {
            shift += 1;
            width *= 2.0;
        }
        let (nr, nh) = dims(shift, width);
        tiles.clear();
        tiles.resize(nr * nh, 0);
        Some(Tiles { px, row_lo, shift, h_lo, inv_width: 1.0 / width, nh, cull: true })
    }

    /// The tiles of pixel rows `rows` and heights `[lo, hi]` widened by `widen`. Every row and
    /// h handed in lies within the points the grid was made over, so the indices are in
    /// range but for rounding at the edges: the clamps, and `mark` and `any` skipping rows
    /// past the end, catch that.
    fn rect(&self, rows: (i64, i64), lo: f64, hi: f64, widen: f64) -> Rect {
        let row = |r: i64| ((r - self.row_lo).max(0) >> self.shift) as usize;
        let top = self.nh as i32 - 1;
        let col = |h: f64| (((h - self.h_lo) * self.inv_width) as i32).clamp(0, top) as usize;
        Rect { rows: (row(rows.0), row(rows.1)), cols: (col(lo - widen), col(hi + widen)) }
    }

    /// The rows a chord's runs cover (`runs` adds a pixel's slack at each end).
    fn chord_rows(&self, a: Point, b: Point) -> (i64, i64) {
        rows_with_slack(a[0].min(b[0]), a[0].max(b[0]), self.px)
    }

    fn chord(&self, a: Point, b: Point, widen: f64) -> Rect {
        self.rect(self.chord_rows(a, b), a[1].min(b[1]), a[1].max(b[1]), widen)
    }

    fn point(&self, p: Point, widen: f64) -> Rect {
        let row = row_of(p[0], self.px);
        self.rect((row, row), p[1], p[1], widen)
    }

    fn mark(&self, tiles: &mut [u8], rect: Rect, bit: u8) {
        for row in rect.rows.0..=rect.rows.1 {
            let base = row * self.nh;
            if let Some(ts) = tiles.get_mut(base + rect.cols.0..=base + rect.cols.1) {
                ts.iter_mut().for_each(|t| *t |= bit);
            }
        }
    }

    fn any(&self, tiles: &[u8], rect: Rect, bits: u8) -> bool {
        !self.cull
            || (rect.rows.0..=rect.rows.1).any(|row| {
                let base = row * self.nh;
                tiles.get(base + rect.cols.0..=base + rect.cols.1).is_some_and(|ts| ts.iter().any(|&t| t & bits != 0))
            })
    }
}

/// The layers of the other body a record of each layer can pair with: edges with edges and
/// vertices (EE, EV, VE, VV), vertices also with face extents (VF, FV), extents with vertices.
const PARTNERS: [u8; 6] = {
    let (a_ext, a_edge, a_vert) = (1 << 0, 1 << 1, 1 << 2);
    let (b_ext, b_edge, b_vert) = (1 << 3, 1 << 4, 1 << 5);
    [b_vert, b_edge | b_vert, b_ext | b_edge | b_vert, a_vert, a_edge | a_vert, a_ext | a_edge | a_vert]
};

/// A piece's boundary in `points`: side `i` runs from `ends[i - 1]` (from `start` for side 0)
/// to `ends[i]`, the last side back to the first corner.
#[derive(Clone, Copy, Debug)]
struct Line {
    start: u32,
    ends: [u32; MAX_CORNERS],
    /// The piece's extent in the screen: rows (with slack) and h.
    rows: (i64, i64),
    h: (f64, f64),
}

impl Line {
    fn sides(&self, n: usize) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
        (0..n).map(move |i| {
            let from = if i == 0 { self.start } else { self.ends[i - 1] };
            (i, from as usize..self.ends[i] as usize)
        })
    }
}

/// Marks the tiles a piece's records could cover: its real edges' chords, its vertices, its
/// whole box for its extents.
fn mark(line: &Line, piece: &Piece, points: &[Point], grid: &Tiles, tiles: &mut [u8], out: &mut ScreenOutput) {
    let body = piece.body;
    let m = grid.px;
    let n = piece.poly.pts().len();
    for (i, side) in line.sides(n) {
        if piece.poly.edges()[i].is_some() {
            for k in side.clone() {
                grid.mark(tiles, grid.chord(points[k], points[k + 1], m), 1 << layer(body, Kind::Edge));
            }
        }
        out.chords += side.len();
        if piece.poly.vertices()[i].is_some() {
            grid.mark(tiles, grid.point(points[side.start], m), 1 << layer(body, Kind::Vertex));
        }
    }
    grid.mark(tiles, grid.rect(line.rows, line.h.0, line.h.1, m), 1 << layer(body, Kind::Extent));
}

#[allow(clippy::too_many_arguments)] // the screen's buffers, as the caller has them at hand
/// Makes a piece's records in the rows `band` where the tiles say the other body can pair with
/// them: vertices, the runs of real edges' chords, and the piece's extent in each row.
fn rasterize(
    line: &Line,
    piece: &Piece,
    index: u32,
    points: &[Point],
    grid: &Tiles,
    tiles: &[u8],
    px: f64,
    band: (i64, i64),
    out: &mut Layers,
    extent: &mut Vec<(f64, f64)>,
    counts: &mut ScreenOutput,
) {
    let body = piece.body;
    let (vertices, edges) = (piece.poly.vertices(), piece.poly.edges());
    let n = vertices.len();
    let needed = |kind: Kind, rect: Rect| grid.any(tiles, rect, PARTNERS[layer(body, kind)]);
    let with_extent = needed(Kind::Extent, grid.rect(line.rows, line.h.0, line.h.1, 0.0));
    let (first, last) = (line.rows.0.max(band.0), line.rows.1.min(band.1));
    if with_extent {
        // A piece spans at most its diameter over the pixel (≥ 1e-5 of the bodies' size,
        // `resolution`) plus the slack: some 2·10⁵ rows; the clamp only guards the cast.
        extent.clear();
        extent.resize((last - first + 1).clamp(1, 1 << 24) as usize, (f64::INFINITY, f64::NEG_INFINITY));
    }
    for (i, side) in line.sides(n) {
        if let Some(v) = vertices[i] {
            let s = points[side.start];
            let row = row_of(s[0], px);
            if (band.0..=band.1).contains(&row) && needed(Kind::Vertex, grid.point(s, 0.0)) {
                out[layer(body, Kind::Vertex)].push(Record { row, id: v, lo: s[1], hi: s[1], t_lo: s[2], t_hi: s[2] });
            }
        }
        for k in side {
            let (a, b) = (points[k], points[k + 1]);
            let rows = grid.chord_rows(a, b);
            if rows.1 < band.0 || rows.0 > band.1 {
                continue;
            }
            let edge = edges[i].filter(|_| needed(Kind::Edge, grid.chord(a, b, 0.0)));
            if edge.is_none() && !with_extent {
                continue;
            }
            // Counted in the band of its first row only.
            counts.chords_rasterized += usize::from(rows.0 >= band.0);
            let edge_layer = &mut out[layer(body, Kind::Edge)];
            runs(a, b, px, band, |r| {
                if with_extent && let Some(x) = extent.get_mut((r.row - first) as usize) {
                    *x = (x.0.min(r.lo), x.1.max(r.hi));
                }
                if let Some(e) = edge {
                    edge_layer.push(Record { id: e, ..r });
                }
            });
        }
    }
    // The piece's extent in each row: from the lowest to the highest h of its runs there.
    if with_extent {
        let extents = &mut out[layer(body, Kind::Extent)];
        for (k, &(lo, hi)) in extent.iter().enumerate() {
            let row = first + k as i64;
            if lo <= hi && needed(Kind::Extent, grid.rect((row, row), lo, hi, 0.0)) {
                extents.push(Record { row, id: index, lo, hi, t_lo: 0.0, t_hi: 0.0 });
            }
        }
    }
}

/// Fewer records than this are sorted on one thread.
const PARALLEL_RECORDS: usize = 16_384;

/// Each layer sorted by row (`sort_by_row`); the layers apart on two threads when `threads`
/// allows and there are many records (a door pressed on a car body: about 100,000), the
/// larger layers dealt first to the less loaded thread. Each layer's order is the one a single
/// thread gives.
fn sort_layers(layers: &mut Layers, [mine, theirs]: &mut [Vec<Record>; 2], threads: bool) {
    let total: usize = layers.iter().map(Vec::len).sum();
    if !threads || total < PARALLEL_RECORDS || crate::parallel::cores() < 2 {
        layers.iter_mut().for_each(|records| sort_by_row(records, mine));
        return;
    }
    let mut by_size: Vec<&mut Vec<Record>> = layers.iter_mut().collect();
    by_size.sort_by_key(|records| std::cmp::Reverse(records.len()));
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let mut load = [0usize; 2];
    for records in by_size {
        let side = usize::from(load[1] < load[0]);
        load[side] += records.len();
        if side == 0 { first.push(records) } else { second.push(records) }
    }
    crate::parallel::join(
        || first.into_iter().for_each(|records| sort_by_row(records, mine)),
        || second.into_iter().for_each(|records| sort_by_row(records, theirs)),
    );
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

/// Projects one piece's sides by divide and conquer (seed §9 step 3), appending its closed
/// boundary polyline to `points`.
fn project_piece(frame: &GlideFrame, piece: &Piece, res: ScreenResolution, points: &mut Vec<Point>) -> Line {
    let pts = piece.poly.pts();
    let n = pts.len();
    let corners: [Sample; MAX_CORNERS] = std::array::from_fn(|i| {
        if i < n { Sample::new(frame, piece, pts[i]) } else { Sample { p: DVec3::ZERO, phi: 0.0, s: [0.0; 3] } }
    });
    let start = points.len();
    let [r, h, t] = corners[0].s;
    points.push([r, h, t, 0.0]);
    let mut ends = [0u32; MAX_CORNERS];
    for i in 0..n {
        // Only edges' runs are paired in time: a virtual side's t is never read.
        let with_t = piece.poly.edges()[i].is_some();
        subdivide(frame, piece, (corners[i], corners[(i + 1) % n]), with_t, res, 0, points);
        ends[i] = (points.len() - 1) as u32;
    }
    let (mut r, mut h) = ((f64::INFINITY, f64::NEG_INFINITY), (f64::INFINITY, f64::NEG_INFINITY));
    for p in &points[start..] {
        r = (r.0.min(p[0]), r.1.max(p[0]));
        h = (h.0.min(p[1]), h.1.max(p[1]));
    }
    let px = res.pixel;
    let rows = rows_with_slack(r.0, r.1, px);
    Line { start: start as u32, ends, rows, h }
}

/// A point of a side: glide coordinates, continuous azimuth, screen coordinates.
#[derive(Clone, Copy)]
struct Sample {
    p: DVec3,
    phi: f64,
    s: [f64; 3],
}

impl Sample {
    fn new(frame: &GlideFrame, piece: &Piece, p: DVec3) -> Sample {
        let phi = piece.phi(p);
        Sample { p, phi, s: frame.screen(p, phi) }
    }
}

/// Splitting a side deeper than this stops (within 2⁻²⁰ of its length of the axis, where the
/// screen coordinates are singular) without the chord's error bound met.
const MAX_DEPTH: u32 = 20;

/// Appends the screen points after `a` up to `b`, halving the side in 3-D until each chord is
/// within half a pixel (in `(r, h)`) of the curve it stands for, by [`GlideFrame::chord_error`]'s
/// bound, which each point also keeps for `t` on an edge (glide.md §15).
fn subdivide(
    frame: &GlideFrame,
    piece: &Piece,
    (a, b): (Sample, Sample),
    with_t: bool,
    res: ScreenResolution,
    depth: u32,
    line: &mut Vec<Point>,
) {
    let (e_rh, e_t) = frame.chord_error(a.p, b.p, (a.phi, b.phi), with_t);
    if depth < MAX_DEPTH && e_rh > 0.5 * res.pixel {
        let m = Sample::new(frame, piece, 0.5 * (a.p + b.p));
        subdivide(frame, piece, (a, m), with_t, res, depth + 1, line);
        subdivide(frame, piece, (m, b), with_t, res, depth + 1, line);
        return;
    }
    let [r, h, t] = b.s;
    line.push([r, h, t, e_t]);
}

/// The pixel row of radius `r`: `⌊r / px⌋`.
fn row_of(r: f64, px: f64) -> i64 {
    // `f64::floor` is a library call on baseline x86-64; truncation corrected for negatives is
    // the same (NaN → 0, saturating at the ends, as `floor() as i64` is).
    let x = r / px;
    let t = x as i64;
    if (t as f64) > x { t.saturating_sub(1) } else { t }
}

/// The rows from `lo`'s to `hi`'s, each widened by a pixel: those a chord's runs cover (see
/// `runs`).
fn rows_with_slack(lo: f64, hi: f64, px: f64) -> (i64, i64) {
    (row_of(lo - px, px), row_of(hi + px, px))
}

/// The chord's pixels, one run per row it passes through (what Bresenham's pixels of one row
/// merge into), with the h and t ranges of the chord inside the row; a pixel's slack in r. The
/// t ranges are widened by the chord's error bound in t, which its second point keeps. Only
/// the runs of the rows `band`: each run depends on its row alone.
fn runs(a: Point, b: Point, px: f64, band: (i64, i64), mut out: impl FnMut(Record)) {
    let t_err = b[3];
    let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
    // The chord stands for a curve within half a pixel of it (`subdivide`), so the curve's
    // points in a row are near the chord's points in the row's band widened by half a pixel
    // each side (glide.md §15): each run is the chord over that widened band, and the rows
    // beyond its ends get its end's h.
    let half = 0.5 * px;
    let (first, last) = rows_with_slack(lo[0], hi[0], px);
    let inv = if hi[0] > lo[0] { 1.0 / (hi[0] - lo[0]) } else { 0.0 };
    for row in first.max(band.0)..=last.min(band.1) {
        let (s0, s1) = if inv > 0.0 {
            // Clamped at both ends: a slack row beyond the chord's end gets the end's h, not
            // the chord extrapolated (which, for a chord almost level in r, reached h ≈ 1e14).
            let at = |band: f64| ((band - lo[0]) * inv).clamp(0.0, 1.0);
            (at(row as f64 * px - half), at((row + 1) as f64 * px + half))
        } else {
            (0.0, 1.0)
        };
        let at = |s: f64, i: usize| lo[i] + s * (hi[i] - lo[i]);
        let (h0, h1) = (at(s0, 1), at(s1, 1));
        let (t0, t1) = (at(s0, 2), at(s1, 2));
        let (t_lo, t_hi) = (t0.min(t1) - t_err, t0.max(t1) + t_err);
        out(Record { row, id: 0, lo: h0.min(h1), hi: h0.max(h1), t_lo, t_hi });
    }
}

/// Points sampled along the pieces' true sides (`samples + 1` per side) that no run of the
/// side's chords in their row holds, within half a pixel in h: none, if the screen is to be
/// conservative (glide.md §15).
#[cfg(test)]
pub fn uncovered_side_points(
    frame: &GlideFrame,
    pieces: &[Piece],
    res: ScreenResolution,
    samples: usize,
) -> Vec<[f64; 3]> {
    let (mut points, mut uncovered) = (Vec::new(), Vec::new());
    let half = 0.5 * res.pixel;
    for piece in pieces {
        points.clear();
        let line = project_piece(frame, piece, res, &mut points);
        let pts = piece.poly.pts();
        for (i, side) in line.sides(pts.len()) {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            for j in 0..=samples {
                let p = a.lerp(b, j as f64 / samples as f64);
                let s = frame.screen(p, piece.phi(p));
                let row = row_of(s[0], res.pixel);
                // Rounding aside (the chord's t against the point's own).
                let t_round = 1e-9 * (1.0 + s[2].abs());
                let mut covered = false;
                for k in side.clone() {
                    runs(points[k], points[k + 1], res.pixel, (i64::MIN, i64::MAX), |r| {
                        covered |= r.row == row
                            && (r.lo - half..=r.hi + half).contains(&s[1])
                            && (r.t_lo - t_round..=r.t_hi + t_round).contains(&s[2]);
                    });
                }
                if !covered {
                    uncovered.push(s);
                }
            }
        }
    }
    uncovered
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
    sorted: bool,
    pieces: &[Piece],
    res: ScreenResolution,
    intervals: &mut (Vec<Interval>, Vec<Interval>),
    open: &mut Open,
    found: &mut PairMap<Candidate, Window>,
) {
    let part = |body: Body, kind: Kind| rows[layer(body, kind)];
    let (a_edges, a_verts) = (part(Body::A, Kind::Edge), part(Body::A, Kind::Vertex));
    let (b_edges, b_verts) = (part(Body::B, Kind::Edge), part(Body::B, Kind::Vertex));
    // A point of a side's curve lies within half a pixel of its runs in its row, a vertex
    // exactly on its record (glide.md §15): records of two features that meet are within a
    // pixel of each other when both are runs, half a pixel when one is a vertex.
    let (both, one) = (res.pixel, 0.5 * res.pixel);
    face_intervals(part(Body::A, Kind::Extent), pieces, &mut intervals.0);
    face_intervals(part(Body::B, Kind::Extent), pieces, &mut intervals.1);

    // Step 5: vertices inside the other body's faces, both ways.
    for v in b_verts {
        for f in faces_at(&intervals.0, v.lo, one, sorted) {
            note(found, Candidate::FaceVertex(f, v.id), Window::WHOLE);
        }
    }
    for v in a_verts {
        for f in faces_at(&intervals.1, v.lo, one, sorted) {
            note(found, Candidate::VertexFace(v.id, f), Window::WHOLE);
        }
    }

    // Step 6: pixels shared by an edge (or vertex) of A and one of B at a time difference in
    // the step. τ = t_a − t_b (glide.md §5), which the records' t ranges bound; the time
    // resolution is kept as a margin for rounding.
    let slack = 2.0 * res.time;
    let mut pairs = |xs: &[Record], ys: &[Record], m: f64, make: fn(u32, u32) -> Candidate| {
        let mut f = |x: &Record, y: &Record| {
            if y.lo <= x.hi + m && x.lo <= y.hi + m && x.t_hi - y.t_lo >= -slack && x.t_lo - y.t_hi <= 1.0 + slack {
                let w = Window { lo: x.t_lo - y.t_hi - slack, hi: x.t_hi - y.t_lo + slack };
                note(found, make(x.id, y.id), w);
            }
        };
        if sorted {
            sweep(xs, ys, m, open, f);
        } else {
            for x in xs {
                for y in ys {
                    f(x, y);
                }
            }
        }
    };
    pairs(a_edges, b_edges, both, Candidate::EdgeEdge);
    pairs(a_edges, b_verts, one, Candidate::EdgeVertex);
    pairs(a_verts, b_edges, one, Candidate::VertexEdge);
    pairs(a_verts, b_verts, one, Candidate::VertexVertex);
}

/// The faces whose extents in a row, widened by `m`, hold `h`. Extents sorted by their low
/// ends are searched only up to the first that starts beyond `h`.
fn faces_at(faces: &[Interval], h: f64, m: f64, sorted: bool) -> impl Iterator<Item = u32> + '_ {
    let end = if sorted { faces.partition_point(|iv| iv.lo - m <= h) } else { faces.len() };
    faces[..end].iter().filter(move |iv| iv.lo - m <= h && h <= iv.hi + m).map(|iv| iv.face)
}

/// Rows whose scans would compare more pairs than this are sorted by h and swept; smaller ones
/// compare every pair, which is cheaper than sorting them.
const SWEEP_ABOVE: usize = 64;

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

    #[test]
    fn row_of_is_floor() {
        for x in [-3.5, -3.0, -2.9999999999, -0.1, -0.0, 0.0, 0.1, 2.0, 2.5, 1e300, -1e300, f64::NAN, f64::INFINITY] {
            for px in [0.1, 1.0, 3.0] {
                assert_eq!(row_of(x, px), (x / px).floor() as i64, "{x} / {px}");
            }
        }
    }

    /// Every run of a chord lies within the chord's h and t ranges, in its rows and in the
    /// slack row beyond each end; a chord almost level in r once extrapolated h to ≈ 1e14 there.
    #[test]
    fn runs_stay_within_their_chord() {
        for (a, b) in [
            ([1.0, 0.0, 0.0, 0.0], [1.0 + 1e-12, 2.0, 1.0, 0.0]),
            ([1.03, -0.5, 0.2, 0.0], [1.47, 0.3, 0.4, 0.0]),
            ([2.0, 1.0, 0.9, 0.0], [1.0, 1.0, 0.1, 0.0]),
            ([0.5, 0.25, 0.5, 0.0], [0.5, 0.75, 0.5, 0.0]),
        ] {
            let mut out = Vec::new();
            runs(a, b, 0.1, (i64::MIN, i64::MAX), |r| out.push(r));
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
