//! Corner fills of one box: the first free unit of an order stands in the box's corner in each
//! of its turns, and the rest of the order fills the space around it. The merits put that unit
//! in its tallest turn (or its first) only, yet which sides of a large unit face the free
//! space decides what fits beside and behind it.

use crate::geometry::Cuboid;
use crate::placement::{Bin, Ctx, Merit, Placed};

/// Fills a box with the units of an order not yet taken, by a merit; the indices placed.
pub(crate) type Fill = fn(&mut Bin, &[u32], &[bool], &Ctx, Merit) -> Vec<usize>;

/// The fullest fill of a box of kind `box_kind` (`size`, `cap`) that starts with the first unit
/// of `order` not yet `taken` in the corner, over its turns and `merits`; the indices of
/// `order` placed come with it. `None` when that unit fits the box in no turn. `fill` is the
/// constructive phase's fill of a box by a merit (passed in, as that phase calls this one).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fill_around_first(
    box_kind: usize,
    size: [i64; 3],
    cap: i64,
    order: &[u32],
    taken: &[bool],
    ctx: &Ctx,
    merits: &[Merit],
    fill: Fill,
) -> Option<(Bin, Vec<usize>)> {
    let first = taken.iter().position(|&t| !t)?;
    let k = order[first];
    let mut rest = taken.to_vec();
    rest[first] = true;
    let mut best: Option<(Bin, Vec<usize>)> = None;
    for (t, turn) in ctx.kinds[k as usize].turns.iter().enumerate() {
        if (0..3).any(|a| turn.dim[a] > size[a]) {
            continue;
        }
        let mut start = Bin::new(box_kind, size, cap);
        if !start.admits(k, ctx) {
            return None;
        }
        let c = Cuboid {
            pos: [0, 0, 0],
            dim: turn.dim,
        };
        start.push(
            Placed {
                kind: k,
                turn: t as u8,
                c,
            },
            ctx,
        );
        for &m in merits {
            let mut bin = start.clone();
            let mut got = fill(&mut bin, order, &rest, ctx, m);
            if best.as_ref().is_none_or(|(b, _)| bin.volume > b.volume) {
                got.insert(0, first);
                best = Some((bin, got));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::{fill, sort_units, Order, MERITS};
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    /// Every unit inside the box, no two overlapping, each resting in full on the floor or on
    /// tops directly below it.
    fn assert_valid(bin: &Bin) {
        for (i, p) in bin.placed.iter().enumerate() {
            assert!((0..3).all(|a| p.c.pos[a] >= 0 && p.c.end(a) <= bin.size[a]));
            let base = p.c.dim[0] * p.c.dim[2];
            let mut rest = 0;
            for (j, q) in bin.placed.iter().enumerate() {
                assert!(i == j || !p.c.intersects(&q.c), "{p:?} overlaps {q:?}");
                if q.c.end(1) == p.c.pos[1] {
                    rest += p.c.footprint_overlap(&q.c);
                }
            }
            assert!(p.c.pos[1] == 0 || rest == base, "{p:?} hangs");
        }
    }

    #[test]
    fn turning_the_corner_unit_makes_room_the_merits_miss() {
        let rules = Rules::full_support();
        let dims = [[9, 6, 4], [3, 8, 8], [5, 8, 4]];
        let kinds: Vec<Kind> = dims
            .iter()
            .map(|&d| Kind::plain(d, Orientation::Any, 1))
            .collect();
        let ctx = Ctx::new(&kinds, &rules);
        let mut order = vec![0, 1, 2];
        sort_units(&mut order, &kinds, Order::Volume);
        let taken = [false; 3];
        for m in MERITS {
            let mut bin = Bin::new(0, [10, 10, 10], 100);
            assert!(fill(&mut bin, &order, &taken, &ctx, m).len() < 3, "{m:?}");
        }
        let merits = [Merit::ContactTall];
        let (bin, got) =
            fill_around_first(0, [10, 10, 10], 100, &order, &taken, &ctx, &merits, fill)
                .expect("the first unit fits");
        let mut got = got;
        got.sort_unstable();
        assert_eq!(got, [0, 1, 2]);
        assert_eq!(bin.placed.len(), 3);
        assert_eq!(bin.placed[0].c.pos, [0, 0, 0]);
        assert_valid(&bin);
    }

    #[test]
    fn a_unit_too_large_for_the_box_gives_no_fill() {
        let rules = Rules::default();
        let kinds = vec![Kind::plain([11, 2, 2], Orientation::Any, 1)];
        let ctx = Ctx::new(&kinds, &rules);
        let merits = [Merit::ContactTall];
        assert!(
            fill_around_first(0, [10, 10, 10], 100, &[0], &[false], &ctx, &merits, fill).is_none()
        );
        // Taken units are skipped: nothing left to start from.
        assert!(
            fill_around_first(0, [20, 20, 20], 100, &[0], &[true], &ctx, &merits, fill).is_none()
        );
    }
}
