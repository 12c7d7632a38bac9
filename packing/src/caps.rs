//! Caps for columns: a column of one kind rarely reaches the box's height exactly, and the
//! room above it (up to one unit's height) is lost, about 8% of a pallet load. Units of
//! another kind that fit on the column's top within that room are stacked there, and the
//! column with its cap is packed as one piece (Fanslau and Bortfeldt's pairs of blocks, kept
//! to a block resting fully on the one below).

use crate::blocks::{Blocks, Cap};
use crate::model::Orientation;
use crate::orientation::turns;
use crate::problem::{BoxKind, Kind};

/// A cap is made only when it fills at least this share of the room above the column.
const MIN_FILL: f64 = 0.5;

/// A cap's units: their turn, and how many along x, along z and stacked.
type Grid = (u8, i64, i64, i64);

/// The cap of units of `b` filling the most of the room `room` above a column of footprint
/// `fx` by `fz`; `None` when none fits.
fn best_cap(b: &Kind, fx: i64, fz: i64, room: i64, quarter: bool) -> Option<Grid> {
    let mut best: Option<Grid> = None;
    let mut best_vol = 0i128;
    for (i, t) in b.turns.iter().enumerate() {
        let d = t.dim;
        if d[1] > room || d[0] > fx || d[2] > fz {
            continue;
        }
        // A piece that turns a quarter needs its cap's units to turn alike.
        if quarter && !b.turns.iter().any(|u| u.dim == [d[2], d[1], d[0]]) {
            continue;
        }
        let (nx, nz, ny) = (fx / d[0], fz / d[2], room / d[1]);
        let vol = (nx * nz * ny) as i128 * b.volume;
        if vol > best_vol {
            best_vol = vol;
            best = Some((i as u8, nx, nz, ny));
        }
    }
    best
}

/// Adds capped columns to `bl` (a block set of single columns, unit kinds `kinds`): for each
/// column kind, the richest cap that fills at least half the room above it, made of loose
/// units or of units taken from the columns of the cap's kind, for as many columns as those
/// units allow.
pub(crate) fn add(kinds: &[Kind], bl: &mut Blocks, boxes: &[BoxKind]) {
    let usable = || boxes.iter().filter(|b| b.cap >= 0 && b.quantity != Some(0));
    let (Some(height), Some(wcap)) = (
        usable().map(|b| b.size[1]).min(),
        usable().map(|b| b.cap).min(),
    ) else {
        return;
    };
    let n0 = bl.kinds.len();
    let mut count = vec![0usize; n0];
    for &u in &bl.units {
        count[u as usize] += 1;
    }
    // Units of each unit kind available for caps: loose ones, then those of its columns.
    let mut loose: Vec<usize> = (0..kinds.len()).map(|k| count[k]).collect();
    let mut columns: Vec<Vec<usize>> = vec![Vec::new(); kinds.len()];
    for c in kinds.len()..n0 {
        columns[bl.of[c].base as usize].push(c);
    }
    let size_of = |c: usize| (bl.of[c].nx * bl.of[c].ny) as usize;
    let sizes: Vec<usize> = (0..n0).map(size_of).collect();
    let pool = |k: usize, count: &[usize], loose: &[usize]| {
        loose[k]
            + columns[k]
                .iter()
                .map(|&c| count[c] * sizes[c])
                .sum::<usize>()
    };
    let mut col_ids: Vec<usize> = (kinds.len()..n0)
        .filter(|&c| bl.of[c].nx == 1 && bl.of[c].cap.is_none())
        .collect();
    // The columns with the most room lost above them first.
    let lost = |c: usize| {
        let d = bl.kinds[c].turns[0].dim;
        (height - d[1]) as i128 * (d[0] * d[2]) as i128 * count[c] as i128
    };
    col_ids.sort_by_key(|&c| std::cmp::Reverse(lost(c)));
    for c in col_ids {
        let a = bl.kinds[c].clone();
        let pc = bl.of[c];
        let base = &kinds[pc.base as usize];
        let d = a.turns[0].dim;
        let room = height - d[1];
        if room <= 0 || count[c] == 0 {
            continue;
        }
        let quarter = a.turns.len() > 1;
        let mut choice: Option<(usize, Grid, i128)> = None;
        for (k, b) in kinds.iter().enumerate() {
            let pool = pool(k, &count, &loose);
            if k == pc.base as usize
                || pool == 0
                || b.no_load
                || b.fragile != base.fragile
                || base.conflicts.binary_search(&(k as u32)).is_ok()
            {
                continue;
            }
            let Some(cap) = best_cap(b, d[0], d[2], room, quarter) else {
                continue;
            };
            let size = (cap.1 * cap.2 * cap.3) as usize;
            let vol = size as i128 * b.volume;
            let fill = vol as f64 / (room as f64 * (d[0] * d[2]) as f64);
            if fill < MIN_FILL || pool < size || a.weight + b.weight * size as i64 > wcap {
                continue;
            }
            if choice.as_ref().is_none_or(|x| vol > x.2) {
                choice = Some((k, cap, vol));
            }
        }
        let Some((k, (turn, nx, nz, ny), _)) = choice else {
            continue;
        };
        let size = (nx * nz * ny) as usize;
        // Break columns of kind `k` into loose units while the loose ones fall short.
        let mut want = count[c].min(pool(k, &count, &loose) / size);
        for &cc in &columns[k] {
            while loose[k] < want * size && count[cc] > 0 {
                count[cc] -= 1;
                loose[k] += sizes[cc];
            }
        }
        want = want.min(loose[k] / size);
        if want == 0 {
            continue;
        }
        loose[k] -= want * size;
        count[c] -= want;
        let b = &kinds[k];
        let dims = [d[0], d[1] + ny * b.turns[turn as usize].dim[1], d[2]];
        let rule = if quarter {
            Orientation::Upright
        } else {
            Orientation::Fixed
        };
        bl.kinds.push(Kind {
            turns: turns(dims, rule),
            volume: a.volume + b.volume * size as i128,
            weight: a.weight + b.weight * size as i64,
            quantity: want as u64,
            // The cap may not cover the column's top: nothing rests on it.
            no_load: true,
            ..a.clone()
        });
        let mut piece = pc;
        piece.cap = Some(Cap {
            base: k as u32,
            nx: nx as u32,
            nz: nz as u32,
            ny: ny as u32,
            turn,
        });
        bl.of.push(piece);
        count.push(want);
    }
    for (k, n) in loose.iter().enumerate() {
        count[k] = *n;
    }
    bl.units = count
        .iter()
        .enumerate()
        .flat_map(|(id, &n)| std::iter::repeat_n(id as u32, n))
        .collect();
    for (id, &n) in count.iter().enumerate() {
        bl.kinds[id].quantity = n as u64;
    }
    bl.set_conflicts(kinds);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::{self, Shape};
    use crate::geometry::Cuboid;
    use crate::placement::{Bin, Ctx, Placed};
    use crate::problem::Rules;

    fn pallet() -> BoxKind {
        BoxKind {
            cost: 1.0,
            ..BoxKind::test_box([120, 150, 120])
        }
    }

    /// Units of each unit kind in the pieces of `bl`.
    fn units_per_kind(bl: &Blocks, n: usize) -> Vec<usize> {
        let mut out = vec![0; n];
        for &u in &bl.units {
            let pc = bl.of[u as usize];
            out[pc.base as usize] += (pc.nx * pc.ny) as usize;
            if let Some(c) = pc.cap {
                out[c.base as usize] += (c.nx * c.nz * c.ny) as usize;
            }
        }
        out
    }

    /// Columns of three 40-high units leave 30 of the pallet's 150 above them; four 30-high
    /// units of a quarter of their footprint fill that room, so 40 of them cap 10 columns,
    /// taken from their own columns, and no unit is lost or made up on the way.
    #[test]
    fn columns_are_capped_with_units_that_fill_the_room_above() {
        let kinds = vec![
            Kind::plain([50, 40, 50], Orientation::Upright, 300),
            Kind::plain([25, 30, 25], Orientation::Upright, 40),
        ];
        let rules = Rules::full_support();
        let units: Vec<u32> = [0u32; 300].into_iter().chain([1u32; 40]).collect();
        let boxes = [pallet()];
        let mut bl = blocks::make(&kinds, &units, &boxes, &rules, Shape::Columns).expect("blocks");
        assert!(bl.of.iter().all(|p| p.cap.is_none()));
        add(&kinds, &mut bl, &boxes);
        assert_eq!(units_per_kind(&bl, 2), vec![300, 40]);
        let capped: Vec<usize> = (0..bl.of.len())
            .filter(|&i| bl.of[i].cap.is_some())
            .collect();
        assert_eq!(capped.len(), 1);
        let id = capped[0];
        let cap = bl.of[id].cap.expect("cap");
        assert_eq!((cap.base, cap.nx, cap.nz, cap.ny), (1, 2, 2, 1));
        assert_eq!(bl.units.iter().filter(|&&u| u as usize == id).count(), 10);
        assert_eq!(bl.kinds[id].turns[0].dim, [50, 150, 50]);
        // Split back, the cap's four units lie side by side on the column's top.
        let bctx = Ctx::new(&bl.kinds, &rules);
        let mut bin = Bin::new(0, boxes[0].size, boxes[0].cap);
        let c = Cuboid {
            pos: [0, 0, 0],
            dim: [50, 150, 50],
        };
        bin.push(
            Placed {
                kind: id as u32,
                turn: 0,
                c,
            },
            &bctx,
        );
        let uctx = Ctx::new(&kinds, &rules);
        let split = bl.split(&bin, &uctx);
        let tops: Vec<[i64; 3]> = split
            .placed
            .iter()
            .filter(|p| p.kind == 1)
            .map(|p| p.c.pos)
            .collect();
        assert_eq!(split.placed.len(), 7);
        assert_eq!(
            tops,
            vec![[0, 120, 0], [25, 120, 0], [0, 120, 25], [25, 120, 25]]
        );
    }

    /// A cap kind that conflicts with the column's kind, or fills too little of the room,
    /// makes no cap.
    #[test]
    fn no_cap_from_conflicting_kinds_or_for_little_room_filled() {
        let rules = Rules::full_support();
        let units: Vec<u32> = [0u32; 300].into_iter().chain([1u32; 40]).collect();
        let boxes = [pallet()];
        let mut conflicting = vec![
            Kind::plain([50, 40, 50], Orientation::Upright, 300),
            Kind::plain([25, 30, 25], Orientation::Upright, 40),
        ];
        conflicting[0].conflicts = vec![1];
        conflicting[1].conflicts = vec![0];
        // Four units of 20 x 20 x 20 fill 43% of the room above a column.
        let small = vec![
            Kind::plain([50, 40, 50], Orientation::Upright, 300),
            Kind::plain([20, 20, 20], Orientation::Fixed, 40),
        ];
        for kinds in [conflicting, small] {
            let mut bl =
                blocks::make(&kinds, &units, &boxes, &rules, Shape::Columns).expect("blocks");
            add(&kinds, &mut bl, &boxes);
            assert!(bl.of.iter().all(|p| p.cap.is_none()));
            assert_eq!(units_per_kind(&bl, 2), vec![300, 40]);
        }
    }
}
