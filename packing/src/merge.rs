//! Box emptying for small packings left above their bound: the units of two boxes of one
//! warehouse are packed into a single box by a wider one-box search than the constructive one
//! (each large kind held to one turn or left free, several orders, every merit), which finds
//! the layouts where a greedy turn choice wastes the strip a last few units needed.

use crate::construct::{fill, may_hold, no_load_last, sort_units, Order, MERITS};
use crate::placement::{Bin, Ctx, Placed};
use crate::problem::{BoxKind, Kind};

/// Kinds (the largest by volume) whose turn the one-box search holds fixed in turn.
const FIXED_KINDS: usize = 2;
/// Unit orders the one-box search tries.
const ORDERS: [Order; 4] = [Order::Volume, Order::Footprint, Order::Longest, Order::Area];

/// `kinds` with kind `k` held to turn `t`, or unchanged for `None`.
fn held(kinds: &[Kind], k: u32, t: Option<usize>) -> Option<Kind> {
    let t = t?;
    let mut kind = kinds[k as usize].clone();
    kind.turns = vec![kind.turns[t]];
    Some(kind)
}

/// The turns worth holding a kind to: one per distinct extent triple.
fn distinct_turns(kind: &Kind) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (t, turn) in kind.turns.iter().enumerate() {
        if !seen.contains(&turn.dim) {
            seen.push(turn.dim);
            out.push(t);
        }
    }
    out
}

/// Packs exactly `units` into one box `b` of kind `bk`, searching wider than the constructive
/// fills; `None` when no try holds them all or `stop_at` work is reached.
pub(crate) fn pack_into(
    units: &[u32],
    b: usize,
    bk: &BoxKind,
    ctx: &Ctx,
    stop_at: u64,
) -> Option<Bin> {
    if !may_hold(units, bk, ctx) {
        return None;
    }
    let mut distinct = units.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let share =
        |k: u32| units.iter().filter(|&&u| u == k).count() as i128 * ctx.kinds[k as usize].volume;
    distinct.sort_by_key(|&k| (-share(k), k));
    let big: Vec<u32> = distinct.iter().copied().take(FIXED_KINDS).collect();
    // Per big kind: free, then each distinct turn.
    let options: Vec<Vec<Option<usize>>> = big
        .iter()
        .map(|&k| {
            let turns = distinct_turns(&ctx.kinds[k as usize]);
            let mut o = vec![None];
            if turns.len() > 1 {
                o.extend(turns.into_iter().map(Some));
            }
            o
        })
        .collect();
    let mut orders: Vec<Vec<u32>> = Vec::new();
    for order in ORDERS {
        let mut sorted = units.to_vec();
        sort_units(&mut sorted, ctx.kinds, order);
        let mut last = sorted.clone();
        for v in [
            Some(sorted),
            no_load_last(&mut last, ctx.kinds).then_some(last),
        ]
        .into_iter()
        .flatten()
        {
            if !orders.contains(&v) {
                orders.push(v);
            }
        }
    }
    let combos: usize = options.iter().map(Vec::len).product();
    let taken = vec![false; units.len()];
    for c in 0..combos {
        let mut kinds = ctx.kinds.to_vec();
        let mut rest = c;
        for (i, &k) in big.iter().enumerate() {
            let o = options[i][rest % options[i].len()];
            rest /= options[i].len();
            if let Some(kind) = held(ctx.kinds, k, o) {
                kinds[k as usize] = kind;
            }
        }
        let sub = Ctx::new(&kinds, ctx.rules);
        for order in &orders {
            for merit in MERITS {
                if ctx.work.get() + sub.work.get() >= stop_at {
                    ctx.spend(sub.work.get());
                    return None;
                }
                let mut bin = Bin::new(b, bk.size, bk.cap);
                if fill(&mut bin, order, &taken, &sub, merit).len() == units.len() {
                    ctx.spend(sub.work.get());
                    return Some(restore(&bin, b, bk, ctx));
                }
            }
        }
        ctx.spend(sub.work.get());
    }
    None
}

/// `bin`, packed with some kinds held to one turn, with the turns of `ctx`'s kinds.
fn restore(bin: &Bin, b: usize, bk: &BoxKind, ctx: &Ctx) -> Bin {
    let mut out = Bin::new(b, bk.size, bk.cap);
    let mut placed = bin.placed.clone();
    // Pushed bottom up, as a fill would have placed them.
    placed.sort_by_key(|q| (q.c.pos[1], q.c.pos[2], q.c.pos[0]));
    for q in placed {
        let turns = &ctx.kinds[q.kind as usize].turns;
        let turn = turns
            .iter()
            .position(|t| t.dim == q.c.dim)
            .expect("a held turn is one of the kind's") as u8;
        out.push(Placed { turn, ..q }, ctx);
    }
    out
}

/// Empties boxes of one warehouse's packing `bins` (boxes `boxes`, `left` still in stock per
/// kind) by packing two boxes' units into one, largest box kind first, until no pair merges
/// or `stop_at` work is reached. True when a box was saved.
pub(crate) fn merge_pairs(
    bins: &mut Vec<Bin>,
    boxes: &[BoxKind],
    left: &mut [Option<u64>],
    ctx: &Ctx,
    stop_at: u64,
) -> bool {
    let mut saved = false;
    'again: loop {
        let n = bins.len();
        let mut pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect();
        pairs.sort_by_key(|&(i, j)| (bins[i].volume + bins[j].volume, i, j));
        let mut kinds: Vec<usize> = (0..boxes.len()).collect();
        kinds.sort_by_key(|&b| (-boxes[b].volume, b));
        for (i, j) in pairs {
            let units: Vec<u32> = bins[i]
                .placed
                .iter()
                .chain(&bins[j].placed)
                .map(|q| q.kind)
                .collect();
            for &b in &kinds {
                let freed = [i, j].iter().filter(|&&x| bins[x].box_kind == b).count() as u64;
                if left[b].is_some_and(|q| q + freed == 0) || boxes[b].cap < 0 {
                    continue;
                }
                if ctx.work.get() >= stop_at {
                    return saved;
                }
                if let Some(bin) = pack_into(&units, b, &boxes[b], ctx, stop_at) {
                    for x in [j, i] {
                        let old = bins.remove(x);
                        if let Some(q) = &mut left[old.box_kind] {
                            *q += 1;
                        }
                    }
                    if let Some(q) = &mut left[b] {
                        *q -= 1;
                    }
                    bins.push(bin);
                    saved = true;
                    continue 'again;
                }
            }
        }
        return saved;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_boxes_of_a_warehouse_go_into_one_with_the_big_units_turned() {
        // Cart 474: the second warehouse's six 10.5 x 6 x 9.5 units turned 9.5 across leave
        // the strip its three fixed 4.5 x 1.5 x 8.5 units need: 2 boxes, the bound.
        crate::carts::packs_at_bound(474, 2);
    }
}
