//! One box filled from a level floor: the units that share one side value H stand H tall on
//! the floor, placed by most contact, so their tops form one level floor at H on which plates
//! can lie flat with their whole base resting; the extreme-point fill places the rest. Full
//! support leaves standing plates of mixed heights with nothing above them; this fill is
//! what lays plates flat on a level top.

use crate::corner::Fill;
use crate::geometry::Cuboid;
use crate::placement::{Bin, Ctx, Merit};
use crate::problem::BoxKind;

/// Fill ratio from which the constructive phase takes a floor fill that beats its others.
pub(crate) const FULL: f64 = 0.97;

/// Floor heights tried per box (those whose units cover the most floor volume).
const HEIGHTS: usize = 3;

/// The candidate floor heights among the units of `order` not yet `taken`: sides under the
/// box's height whose units, standing that tall, could cover at least nine tenths of the
/// floor; the `HEIGHTS` of most floor volume (covered area, at most the floor, times H).
fn heights(bk: &BoxKind, order: &[u32], taken: &[bool], ctx: &Ctx) -> Vec<i64> {
    let [bx, by, bz] = bk.size;
    let floor = bx as i128 * bz as i128;
    let mut area: Vec<(i64, i128)> = Vec::new();
    for (i, &k) in order.iter().enumerate() {
        if taken[i] {
            continue;
        }
        let kind = &ctx.kinds[k as usize];
        if kind.fragile || kind.no_load {
            continue;
        }
        let mut seen: Vec<i64> = Vec::with_capacity(3);
        for t in &kind.turns {
            let [w, h, d] = t.dim;
            if h >= by || w > bx || d > bz || seen.contains(&h) {
                continue;
            }
            seen.push(h);
            let a = w as i128 * d as i128;
            match area.iter_mut().find(|(s, _)| *s == h) {
                Some(e) => e.1 += a,
                None => area.push((h, a)),
            }
        }
    }
    ctx.spend(order.len() as u64);
    let mut hs: Vec<(i128, i64)> = area
        .into_iter()
        .filter(|&(_, a)| 10 * a >= 9 * floor)
        .map(|(h, a)| (a.min(floor) * h as i128, h))
        .collect();
    hs.sort_unstable_by(|a, b| b.cmp(a));
    hs.into_iter().take(HEIGHTS).map(|(_, h)| h).collect()
}

/// Stands the units of `order` not yet `used` that have a side `h` on the floor of `bin`, `h`
/// tall, each where it touches most (walls and units), in order; marks and returns them.
fn lay_floor(bin: &mut Bin, h: i64, order: &[u32], used: &mut [bool], ctx: &Ctx) -> Vec<usize> {
    let mut got = Vec::new();
    for (i, &k) in order.iter().enumerate() {
        if used[i] || !bin.admits(k, ctx) {
            continue;
        }
        let kind = &ctx.kinds[k as usize];
        if kind.fragile || kind.no_load {
            continue;
        }
        let mut best: Option<(i128, [i64; 3], u8)> = None;
        for pt in bin.points().iter().take_while(|p| p.at[1] == 0) {
            for (t, turn) in kind.turns.iter().enumerate() {
                let dim = turn.dim;
                if dim[1] != h || dim[0] > pt.room[0] || dim[2] > pt.room[2] {
                    continue;
                }
                let c = Cuboid { pos: pt.at, dim };
                if let Some(contact) = bin.fits(&c, k, ctx) {
                    if best.is_none_or(|(bc, _, _)| contact > bc) {
                        best = Some((contact, pt.at, t as u8));
                    }
                }
            }
        }
        if let Some((_, pos, t)) = best {
            if bin.put_turn_at(k, t, pos, ctx) {
                used[i] = true;
                got.push(i);
            }
        }
    }
    got
}

/// The fullest fill of a new box of kind `bk` (index `b`) from a level floor at one of the
/// candidate heights, the rest by each of `merits`; the box and the indices of `order` placed.
/// `None` when no height could cover the floor. `fill` is the constructive phase's fill of a box
/// by a merit (passed in, as that phase calls this one).
pub(crate) fn fill_from_floor(
    b: usize,
    bk: &BoxKind,
    order: &[u32],
    taken: &[bool],
    ctx: &Ctx,
    merits: &[Merit],
    fill: Fill,
) -> Option<(Bin, Vec<usize>)> {
    let mut best: Option<(Bin, Vec<usize>)> = None;
    for h in heights(bk, order, taken, ctx) {
        let mut start = Bin::new(b, bk.size, bk.cap);
        let mut used = taken.to_vec();
        let floor = lay_floor(&mut start, h, order, &mut used, ctx);
        if floor.is_empty() {
            continue;
        }
        for &m in merits {
            let mut bin = start.clone();
            let rest = fill(&mut bin, order, &used, ctx, m);
            if best.as_ref().is_none_or(|(bb, _)| bin.volume > bb.volume) {
                let mut got = floor.clone();
                got.extend(rest);
                best = Some((bin, got));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    #[test]
    fn plates_of_one_height_make_a_floor_for_a_plate_lying_flat() {
        // Plates 40 and 60 thick standing 70 tall cover the floor; the 30-thick plate, the
        // largest unit, lies on their tops and the box is full.
        let kinds = vec![
            Kind::plain([100, 30, 100], Orientation::Any, 1),
            Kind::plain([100, 60, 70], Orientation::Any, 1),
            Kind::plain([70, 100, 40], Orientation::Any, 1),
        ];
        let rules = Rules::full_support();
        let ctx = Ctx::new(&kinds, &rules);
        let bk = BoxKind::test_box([100; 3]);
        let merits = [Merit::ContactTall, Merit::Spaces];
        let none = [false; 3];
        let mut order = vec![0, 1, 2];
        crate::construct::sort_units(&mut order, &kinds, crate::construct::Order::Volume);
        let (bin, got) =
            fill_from_floor(0, &bk, &order, &none, &ctx, &merits, crate::construct::fill)
                .expect("a floor height");
        assert_eq!(got.len(), 3, "the floor carries the plate");
        assert_eq!(bin.volume, bk.volume);
        let flat = bin.placed.iter().find(|p| p.kind == 0).unwrap();
        assert_eq!((flat.c.pos[1], flat.c.dim[1]), (70, 30));
        assert!(crate::placement::all_rest(&bin.placed, &rules));
    }
}
