//! Composite blocks for large orders: the units of one kind stacked into columns as tall as
//! the boxes allow, and full columns set side by side in rows that span the floor, each packed
//! as one solid piece and split back into units afterwards. Fewer, larger pieces pack faster
//! and tighter (Fanslau and Bortfeldt's blocks of identical boxes, kept to columns and rows of
//! one turn, so every unit rests fully on the one below or on the floor).

use crate::model::Orientation;
use crate::orientation::{turns, Turn};
use crate::placement::{Bin, Ctx, Placed};
use crate::problem::{BoxKind, Kind, Rules};

/// Orders of fewer units are packed unit by unit.
pub(crate) const MIN_UNITS: usize = 300;

/// Columns are made only when the largest box holds this many units of the order's mean size.
const MANY_PER_BOX: i128 = 16;

/// Rows of columns are made only when they cover this much of a span across the floor.
const ROW_COVER: f64 = 0.95;

/// Which pieces a block set makes of the units of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Columns, and rows of columns where they span the floor.
    Rows,
    /// Columns only: smaller pieces that leave the floor's layout to the packing.
    Columns,
}

/// The kinds a block packing works with: the units' own kinds first, then one column kind per
/// unit kind that stacks, and what each column is made of.
pub(crate) struct Blocks {
    pub kinds: Vec<Kind>,
    /// Per kind of `kinds`: the unit kind, units side by side along x and stacked along y in
    /// the piece (unturned), and the unit's turn inside it.
    pub of: Vec<Piece>,
    /// The pieces to pack (kind ids into `kinds`).
    pub units: Vec<u32>,
}

/// A piece made of `nx` by `ny` units of kind `base` in turn `turn`: `nx` side by side along
/// x, `ny` stacked along y (before the piece itself turns).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    pub base: u32,
    pub nx: u32,
    pub ny: u32,
    pub turn: u8,
    /// Units of another kind stacked on top of a single column (see `caps.rs`).
    pub cap: Option<Cap>,
}

/// A cap on a column: `nx` by `nz` by `ny` units of kind `base` in turn `turn`, from the
/// column's corner at its top (before the piece itself turns).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cap {
    pub base: u32,
    pub nx: u32,
    pub nz: u32,
    pub ny: u32,
    pub turn: u8,
}

/// How many units of footprint width `a` to set side by side in a row across the floor:
/// the count and the share of the span they cover, the best of spanning `width` or `length`.
fn row_of(a: i64, width: i64, length: i64) -> (i64, f64) {
    [width, length]
        .iter()
        .map(|&s| (s / a, (s / a * a) as f64 / s as f64))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, 0.0))
}

/// The unit turn to stack: the one whose columns fill the most of `height` times the most of
/// a span across the `floor` (width, length) in a row, earlier turns on ties; `None` when no
/// turn stacks twice.
fn column_turn(k: &Kind, height: i64, floor: (i64, i64)) -> Option<(usize, i64)> {
    let waste = |h: i64| height - (height / h) * h;
    let (w, l) = floor;
    let score = |t: &Turn| {
        let stacked = 1.0 - waste(t.dim[1]) as f64 / height as f64;
        let across = row_of(t.dim[0], w, l).1.max(row_of(t.dim[2], w, l).1);
        stacked * across
    };
    k.turns
        .iter()
        .enumerate()
        .filter(|(_, t)| 2 * t.dim[1] <= height)
        .max_by(|a, b| score(a.1).total_cmp(&score(b.1)).then(b.0.cmp(&a.0)))
        .map(|(i, t)| (i, height / t.dim[1]))
}

/// Column pieces for `units` (kind ids), in rows too for [`Shape::Rows`], or `None` when
/// blocks do not apply: few units, boxes of different heights or holding few units, or rules
/// that count or compare units one by one (unit caps, heavy at the bottom).
pub(crate) fn make(
    kinds: &[Kind],
    units: &[u32],
    boxes: &[BoxKind],
    rules: &Rules,
    shape: Shape,
) -> Option<Blocks> {
    if units.len() < MIN_UNITS || rules.max_units.is_some() || rules.heavy_bottom {
        return None;
    }
    // Columns as tall as the lowest box, so that every box kind can take them; not when the
    // boxes differ much in height, as the taller ones would be left partly empty.
    let heights = boxes
        .iter()
        .filter(|b| b.cap >= 0 && b.quantity != Some(0))
        .map(|b| b.size[1]);
    let height = heights.clone().min()?;
    if 4 * heights.max()? > 5 * height {
        return None;
    }
    // Columns no heavier than any box carries.
    let cap = boxes
        .iter()
        .filter(|b| b.cap >= 0 && b.quantity != Some(0))
        .map(|b| b.cap)
        .min()?;
    // Only where a box holds many units: in small boxes a column takes the room that units
    // of other kinds would have filled.
    let vmax = boxes
        .iter()
        .filter(|b| b.cap >= 0 && b.quantity != Some(0))
        .map(|b| b.volume)
        .max()?;
    let total: i128 = units.iter().map(|&u| kinds[u as usize].volume).sum();
    if vmax * (units.len() as i128) < MANY_PER_BOX * total {
        return None;
    }
    let (width, length) = boxes
        .iter()
        .filter(|b| b.cap >= 0 && b.quantity != Some(0))
        .map(|b| (b.size[0], b.size[2]))
        .max_by_key(|&(w, l)| w * l)?;
    let mut count = vec![0usize; kinds.len()];
    for &u in units {
        count[u as usize] += 1;
    }
    let mut out = Blocks {
        kinds: kinds.to_vec(),
        of: (0..kinds.len())
            .map(|k| Piece {
                base: k as u32,
                nx: 1,
                ny: 1,
                turn: 0,
                cap: None,
            })
            .collect(),
        units: Vec::new(),
    };
    for (k, kind) in kinds.iter().enumerate() {
        let n = count[k];
        if n < 2 || kind.no_load {
            out.units.extend(std::iter::repeat_n(k as u32, n));
            continue;
        }
        let Some((t, m)) = column_turn(kind, height, (width, length)) else {
            out.units.extend(std::iter::repeat_n(k as u32, n));
            continue;
        };
        let m = m.min(n as i64).min(cap / kind.weight.max(1)).max(1) as usize;
        if m < 2 {
            out.units.extend(std::iter::repeat_n(k as u32, n));
            continue;
        }
        let d = kind.turns[t].dim;
        // The column turns about the vertical axis only if its units may.
        let quarter = kind.turns.iter().any(|u| u.dim == [d[2], d[1], d[0]]);
        // Whether a footprint of `a` along x by `b` along z fits the floor.
        let fits =
            |a: i64, b: i64| (a <= width && b <= length) || (quarter && b <= width && a <= length);
        if !fits(d[0], d[2]) {
            out.units.extend(std::iter::repeat_n(k as u32, n));
            continue;
        }
        let rule = if quarter {
            Orientation::Upright
        } else {
            Orientation::Fixed
        };
        // Full columns go side by side in rows across the floor, the footprint side that
        // covers more of a span across it.
        let (mut row, mut eff) = row_of(d[0], width, length);
        let mut t = t;
        if quarter {
            let (r2, e2) = row_of(d[2], width, length);
            if e2 > eff + 1e-9 {
                (row, eff) = (r2, e2);
                t = kind
                    .turns
                    .iter()
                    .position(|u| u.dim == [d[2], d[1], d[0]])
                    .expect("checked above");
            }
        }
        let d = kind.turns[t].dim;
        let columns = n / m;
        let mut row = (row.max(1) as usize)
            .min(columns)
            .min((cap / (kind.weight.max(1) * m as i64)).max(1) as usize);
        if !fits(d[0] * row as i64, d[2]) {
            row = 1;
        }
        let add = |nx: usize, count: usize, out: &mut Blocks| {
            if count == 0 {
                return;
            }
            let dims = [d[0] * nx as i64, d[1] * m as i64, d[2]];
            let id = out.kinds.len() as u32;
            out.kinds.push(Kind {
                turns: turns(dims, rule),
                volume: kind.volume * (m * nx) as i128,
                weight: kind.weight * (m * nx) as i64,
                quantity: count as u64,
                ..kind.clone()
            });
            out.of.push(Piece {
                base: k as u32,
                nx: nx as u32,
                ny: m as u32,
                turn: t as u8,
                cap: None,
            });
            out.units.extend(std::iter::repeat_n(id, count));
        };
        if shape == Shape::Rows && row >= 2 && eff >= ROW_COVER {
            add(row, columns / row, &mut out);
            add(1, columns % row, &mut out);
        } else {
            add(1, columns, &mut out);
        }
        out.units
            .extend(std::iter::repeat_n(k as u32, n - columns * m));
    }
    out.set_conflicts(kinds);
    Some(out)
}

impl Blocks {
    /// Each piece conflicts with whatever the unit kinds in it conflict with, in any piece.
    pub fn set_conflicts(&mut self, unit_kinds: &[Kind]) {
        let bases = |p: &Piece| [Some(p.base), p.cap.map(|c| c.base)].into_iter().flatten();
        let n = self.kinds.len();
        for a in 0..n {
            let conflicts = (0..n as u32)
                .filter(|&b| {
                    bases(&self.of[a]).any(|x| {
                        bases(&self.of[b as usize])
                            .any(|y| unit_kinds[x as usize].conflicts.binary_search(&y).is_ok())
                    })
                })
                .collect();
            self.kinds[a].conflicts = conflicts;
        }
    }

    /// `bin` with every column split into its units, in the units' own kinds and turns.
    pub fn split(&self, bin: &Bin, unit_ctx: &Ctx) -> Bin {
        let mut placed: Vec<Placed> = Vec::new();
        for q in &bin.placed {
            let pc = self.of[q.kind as usize];
            if pc.nx * pc.ny == 1 {
                placed.push(*q);
                continue;
            }
            let unit = &unit_ctx.kinds[pc.base as usize];
            let d = unit.turns[pc.turn as usize].dim;
            // A piece turned a quarter about the vertical axis turns its units alike, and its
            // row then runs along z.
            let along_x = q.c.dim[0] == d[0] * pc.nx as i64 && q.c.dim[2] == d[2];
            let ud = if along_x { d } else { [d[2], d[1], d[0]] };
            let turn = unit
                .turns
                .iter()
                .position(|t| t.dim == ud)
                .expect("a piece's units keep an allowed turn") as u8;
            if let Some(cap) = pc.cap {
                let top = q.c.pos[1] + pc.ny as i64 * ud[1];
                placed.extend(cap_units(&cap, unit_ctx, q, top, along_x));
            }
            for i in 0..pc.nx as i64 {
                for j in 0..pc.ny as i64 {
                    let mut c = q.c;
                    c.dim = ud;
                    c.pos[1] += j * ud[1];
                    if along_x {
                        c.pos[0] += i * ud[0];
                    } else {
                        c.pos[2] += i * ud[2];
                    }
                    placed.push(Placed {
                        kind: pc.base,
                        turn,
                        c,
                    });
                }
            }
        }
        placed.sort_by_key(|p| (p.c.pos[1], p.c.pos[2], p.c.pos[0]));
        let mut out = Bin::new(bin.box_kind, bin.size, bin.cap);
        for p in placed {
            out.push(p, unit_ctx);
        }
        out
    }
}

/// The units of `cap` on the column placed as `q`, from height `top`; `along_x` when the
/// piece stands unturned.
fn cap_units(cap: &Cap, unit_ctx: &Ctx, q: &Placed, top: i64, along_x: bool) -> Vec<Placed> {
    let unit = &unit_ctx.kinds[cap.base as usize];
    let d = unit.turns[cap.turn as usize].dim;
    let ud = if along_x { d } else { [d[2], d[1], d[0]] };
    let turn = unit
        .turns
        .iter()
        .position(|t| t.dim == ud)
        .expect("a cap's units keep an allowed turn") as u8;
    let mut out = Vec::new();
    for i in 0..cap.nx as i64 {
        for k in 0..cap.nz as i64 {
            for j in 0..cap.ny as i64 {
                let mut c = q.c;
                c.dim = ud;
                c.pos[1] = top + j * ud[1];
                let (dx, dz) = if along_x { (i, k) } else { (k, i) };
                c.pos[0] += dx * ud[0];
                c.pos[2] += dz * ud[2];
                out.push(Placed {
                    kind: cap.base,
                    turn,
                    c,
                });
            }
        }
    }
    out
}
