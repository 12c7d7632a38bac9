//! Point-first filling of one box (`Merit::Spaces`): instead of taking units in order and
//! finding each its best position, take positions lowest first and give each the first unit
//! in order (the largest, as orders go) that fits there. It packs differently from the
//! unit-first rules, which is what the constructive phase and the search want from it.

use crate::geometry::V3;
use crate::placement::{Bin, Ctx, Merit};

/// Point-first fill: the lowest live candidate position takes the first unit of `order` (the
/// largest, as orders go) that fits there; a position where nothing fits is dead for good,
/// as later units only take room away.
pub(crate) fn fill(bin: &mut Bin, order: &[u32], taken: &[bool], ctx: &Ctx) -> Vec<usize> {
    // Units still free, grouped by kind in order of first appearance: per group its kind and
    // its next index (the first free one of that kind), `next[i]` the one after index `i`.
    const NONE: usize = usize::MAX;
    let mut next = vec![NONE; order.len()];
    let mut groups: Vec<(u32, usize)> = Vec::with_capacity(ctx.kinds.len().min(order.len()));
    // Per kind, the last free index seen so far.
    let mut tail = vec![NONE; ctx.kinds.len()];
    for (i, &k) in order.iter().enumerate() {
        if taken[i] {
            continue;
        }
        match std::mem::replace(&mut tail[k as usize], i) {
            NONE => groups.push((k, i)),
            last => next[last] = i,
        }
    }
    // Sized for a box's worth, so that the search's many fills seldom regrow them.
    let mut dead: Vec<V3> = Vec::with_capacity(16);
    let mut got = Vec::with_capacity(order.len().min(64));
    'outer: loop {
        groups.retain(|g| g.1 != NONE && bin.admits(g.0, ctx));
        if groups.is_empty() {
            break;
        }
        for at in 0..bin.points().len() {
            let p = bin.points()[at].at;
            if dead.contains(&p) {
                continue;
            }
            for g in groups.iter_mut() {
                if let Some(c) = bin.best_at(at, g.0, ctx, Merit::Spaces) {
                    bin.place(g.0, &c, ctx);
                    got.push(g.1);
                    g.1 = next[g.1];
                    continue 'outer;
                }
            }
            dead.push(p);
        }
        break;
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    fn kind(dims: V3) -> Kind {
        Kind::plain(dims, Orientation::Fixed, 1)
    }

    #[test]
    fn lowest_positions_take_the_first_unit_that_fits() {
        // Kind 0 is 2 wide, kind 1 a unit cube; the second 2-wide unit is already taken.
        let kinds = vec![kind([2, 1, 1]), kind([1, 1, 1])];
        let rules = Rules::full_support();
        let ctx = Ctx::new(&kinds, &rules);
        let mut bin = Bin::new(0, [3, 2, 1], 100);
        let order = [0, 0, 1, 1, 1];
        let got = fill(&mut bin, &order, &[false, true, false, false, false], &ctx);
        // The floor: the wide unit at the corner, a cube beside it; then, lowest and leftmost
        // first, the other two cubes side by side on the wide unit.
        assert_eq!(got, [0, 2, 3, 4]);
        let at: Vec<V3> = bin.placed.iter().map(|p| p.c.pos).collect();
        assert_eq!(at, [[0, 0, 0], [2, 0, 0], [0, 1, 0], [1, 1, 0]]);
    }
}
