//! One box packed around a level stack: the units that cover over half the floor both ways lie
//! one on another in a corner, each on its thinnest such face and nested inside the top of the
//! one below, so every one rests fully and the stack's top stays level for a thin plate; the
//! extreme-point fill places the rest beside and above them.

use crate::construct::{fill, held_in_order, Order};
use crate::placement::{Bin, Ctx, Merit};
use crate::problem::BoxKind;

/// Units weighed for the stack; a box rarely holds more plates than this.
const MAX_STACKED: usize = 16;
/// Chains kept per top unit (lowest first, each more voluminous than the lower ones).
const MAX_STATES: usize = 32;

/// A unit that may join the stack: its index in the request, the turn lying on its thinnest
/// face that covers over half the floor both ways (shorter floor side along x), that turn's
/// height, floor sides and volume.
#[derive(Clone, Copy)]
struct Layer {
    at: usize,
    turn: u8,
    h: i64,
    w: i64,
    d: i64,
    vol: i128,
}

fn layer(at: usize, k: u32, bk: &BoxKind, ctx: &Ctx) -> Option<Layer> {
    let [bx, by, bz] = bk.size;
    let kind = &ctx.kinds[k as usize];
    if kind.fragile || kind.no_load {
        return None;
    }
    kind.turns
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            let [w, h, d] = t.dim;
            w * 2 > bx && d * 2 > bz && w <= bx && d <= bz && h <= by && w <= d
        })
        .min_by_key(|(i, t)| (t.dim[1], *i))
        .map(|(i, t)| Layer {
            at,
            turn: i as u8,
            h: t.dim[1],
            w: t.dim[0],
            d: t.dim[2],
            vol: kind.volume,
        })
}

/// The stack of most volume whose layers nest (each no wider nor deeper than the one below)
/// and whose heights fit the box: a longest path over the nesting order with Pareto states of
/// (height, volume).
fn chain(layers: &[Layer], height: i64, ctx: &Ctx) -> Vec<Layer> {
    // Widest first: a layer can only stand on one before it.
    let mut ls = layers.to_vec();
    ls.sort_by(|a, b| (b.w, b.d, b.h, a.at).cmp(&(a.w, a.d, a.h, b.at)));
    // (height, volume, previous layer, its state)
    let mut states: Vec<Vec<(i64, i128, usize, usize)>> = Vec::with_capacity(ls.len());
    // One buffer for every layer's candidate states (this runs in the search's inner loop).
    let mut mine = Vec::new();
    for j in 0..ls.len() {
        let lj = ls[j];
        mine.clear();
        mine.push((lj.h, lj.vol, usize::MAX, 0));
        for (i, li) in ls[..j].iter().enumerate() {
            if lj.w > li.w || lj.d > li.d {
                continue;
            }
            for (s, &(h, v, _, _)) in states[i].iter().enumerate() {
                if h + lj.h <= height {
                    mine.push((h + lj.h, v + lj.vol, i, s));
                }
            }
        }
        ctx.spend(mine.len() as u64);
        mine.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut kept: Vec<(i64, i128, usize, usize)> = Vec::with_capacity(mine.len());
        for &st in &mine {
            if kept.last().is_none_or(|l| st.1 > l.1) {
                kept.push(st);
            }
        }
        if kept.len() > MAX_STATES {
            // Keep the most voluminous.
            let cut = kept.len() - MAX_STATES;
            kept.drain(..cut);
        }
        states.push(kept);
    }
    let mut best: Option<(i128, i64, usize, usize)> = None;
    for (j, st) in states.iter().enumerate() {
        for (s, &(h, v, _, _)) in st.iter().enumerate() {
            if best.is_none_or(|(bv, bh, _, _)| v > bv || (v == bv && h < bh)) {
                best = Some((v, h, j, s));
            }
        }
    }
    let mut out = Vec::new();
    let Some((_, _, mut j, mut s)) = best else {
        return out;
    };
    loop {
        out.push(ls[j]);
        let (_, _, pj, ps) = states[j][s];
        if pj == usize::MAX {
            break;
        }
        (j, s) = (pj, ps);
    }
    out.reverse();
    out
}

/// Packs exactly `units` into one box of kind `bk` around the level stack of most volume among
/// them; `None` when some unit is left over or no stack of two layers exists.
pub(crate) fn repack(units: &[u32], b: usize, bk: &BoxKind, ctx: &Ctx) -> Option<Bin> {
    let sorted = held_in_order(units, bk, ctx, Order::Volume)?;
    for merit in [Merit::ContactTall, Merit::Lowest, Merit::Spaces] {
        let Some((bin, got)) = around(b, bk, &sorted, ctx, merit) else {
            break;
        };
        if got.len() == sorted.len() {
            return Some(bin);
        }
    }
    None
}

/// Fills a new box of kind `bk` from the units of `order`: the level stack of most volume
/// among them, then the others in order by `merit`. Returns the box and the indices placed;
/// `None` when no stack of two layers exists.
fn around(
    b: usize,
    bk: &BoxKind,
    order: &[u32],
    ctx: &Ctx,
    merit: Merit,
) -> Option<(Bin, Vec<usize>)> {
    let layers: Vec<Layer> = order
        .iter()
        .enumerate()
        .filter_map(|(i, &k)| layer(i, k, bk, ctx))
        .take(MAX_STACKED)
        .collect();
    if layers.len() < 2 {
        return None;
    }
    let stack = chain(&layers, bk.size[1], ctx);
    if stack.len() < 2 {
        return None;
    }
    let mut bin = Bin::new(b, bk.size, bk.cap);
    let mut used = vec![false; order.len()];
    let mut got = Vec::with_capacity(stack.len() + 8);
    let mut y = 0;
    for l in &stack {
        if !bin.put_turn_at(order[l.at], l.turn, [0, y, 0], ctx) {
            return None;
        }
        used[l.at] = true;
        got.push(l.at);
        y += l.h;
    }
    got.extend(fill(&mut bin, order, &used, ctx, merit));
    Some((bin, got))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    #[test]
    fn nested_plates_stack_level_to_the_lid_and_small_units_fill_beside() {
        let kinds = vec![
            Kind::plain([4, 9, 10], Orientation::Any, 1),
            Kind::plain([8, 3, 9], Orientation::Any, 1),
            Kind::plain([7, 8, 3], Orientation::Any, 1),
            Kind::plain([1, 1, 1], Orientation::Any, 1),
        ];
        let rules = Rules::full_support();
        let ctx = Ctx::new(&kinds, &rules);
        let bk = BoxKind::test_box([10; 3]);
        let bin = repack(&[3, 2, 1, 0], 0, &bk, &ctx).expect("the stack fills the height");
        assert_eq!(bin.placed.len(), 4);
        let mut ys: Vec<(i64, i64)> = bin
            .placed
            .iter()
            .filter(|p| p.kind != 3)
            .map(|p| (p.c.pos[1], p.c.dim[1]))
            .collect();
        ys.sort_unstable();
        assert_eq!(ys, vec![(0, 4), (4, 3), (7, 3)]);
        for p in &bin.placed {
            assert!((0..3).all(|a| p.c.pos[a] >= 0 && p.c.end(a) <= 10));
        }
    }
}
