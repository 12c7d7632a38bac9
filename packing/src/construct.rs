//! Constructive packing of one warehouse's units: sort them, then fill one box at a time,
//! choosing each box kind by the goal after trying to fill every kind still in stock.

use crate::corner;
use crate::floor;
use crate::model::Goal;
use crate::placement::{Bin, Ctx, Merit};
use crate::point_first;
use crate::problem::{BoxKind, Kind};
use crate::rng::SplitMix64;
use std::cmp::Ordering;

/// Sort keys for the units before packing (largest first under each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    Volume,
    Longest,
    Area,
    /// The smallest face: the floor a unit takes standing on it, as the tallest-turn merits
    /// stand units.
    Footprint,
    Weight,
}

/// The (order, merit) pairs tried by the constructive phase, best performers first: volume
/// order packs far better than the others on the MPV set (they mainly add diversity), and the
/// tallest-turn merits suit full support, where floor space is what is scarce.
pub(crate) const CONFIGS: [(Order, Merit); 10] = [
    (Order::Volume, Merit::ContactTall),
    (Order::Volume, Merit::Spaces),
    (Order::Volume, Merit::LowestTall),
    (Order::Footprint, Merit::ContactTall),
    (Order::Volume, Merit::Contact),
    (Order::Volume, Merit::Lowest),
    (Order::Longest, Merit::ContactTall),
    (Order::Area, Merit::ContactTall),
    (Order::Longest, Merit::Contact),
    (Order::Area, Merit::LowestTall),
];

/// Merits tried when several fills of one box are compared.
pub(crate) const MERITS: [Merit; 5] = [
    Merit::ContactTall,
    Merit::Spaces,
    Merit::LowestTall,
    Merit::Contact,
    Merit::Lowest,
];

fn sort_key(k: &Kind, order: Order) -> (i128, i128) {
    let d = k.turns[0].dim;
    let longest = d[0].max(d[1]).max(d[2]) as i128;
    let area = {
        let mut s = d;
        s.sort_unstable();
        s[1] as i128 * s[2] as i128
    };
    match order {
        Order::Volume => (k.volume, longest),
        Order::Longest => (longest, k.volume),
        Order::Area => (area, k.volume),
        Order::Footprint => {
            let mut s = d;
            s.sort_unstable();
            (s[0] as i128 * s[1] as i128, k.volume)
        }
        Order::Weight => (k.weight as i128, k.volume),
    }
}

/// Sorts units (kind ids) largest first; equal units stay together so a failed kind can be
/// skipped quickly.
pub(crate) fn sort_units(units: &mut [u32], kinds: &[Kind], order: Order) {
    units.sort_by(|&a, &b| {
        let (ka, kb) = (
            sort_key(&kinds[a as usize], order),
            sort_key(&kinds[b as usize], order),
        );
        kb.cmp(&ka).then(a.cmp(&b))
    });
}

/// Moves the units nothing may rest on (`no_load`) to the end of `units`, keeping the order
/// otherwise: packed last, they can lie on top of the others instead of taking floor space
/// no other unit may cover. False (and `units` unchanged) when there are none.
pub(crate) fn no_load_last(units: &mut [u32], kinds: &[Kind]) -> bool {
    if !units.iter().any(|&k| kinds[k as usize].no_load) {
        return false;
    }
    units.sort_by_key(|&k| kinds[k as usize].no_load);
    true
}

/// Places into `bin`, in order, every unit of `order` not yet `taken` that fits; returns the
/// indices placed. A kind that failed once is not tried again in this fill: later units only
/// take room away, and the rare new position they open is not worth a retry of every kind
/// after every placement.
pub(crate) fn fill(
    bin: &mut Bin,
    order: &[u32],
    taken: &[bool],
    ctx: &Ctx,
    merit: Merit,
) -> Vec<usize> {
    if merit == Merit::Spaces {
        // Point first rescans the lowest positions after every placement: fine for a box of
        // dozens of units, too slow for thousands, which get the unit-first contact rule.
        if order.len() - taken.iter().filter(|&&t| t).count() <= BULK {
            return point_first::fill(bin, order, taken, ctx);
        }
        return fill(bin, order, taken, ctx, Merit::ContactTall);
    }
    let mut failed = FAILED.with(|f| std::mem::take(&mut *f.borrow_mut()));
    failed.resize(ctx.kinds.len(), false);
    let mut got = Vec::with_capacity(16);
    for (i, &k) in order.iter().enumerate() {
        if taken[i] || failed[k as usize] {
            continue;
        }
        match bin.best(k, ctx, merit) {
            Some(c) => {
                bin.place(k, &c, ctx);
                got.push(i);
            }
            None => failed[k as usize] = true,
        }
    }
    failed.clear();
    FAILED.with(|f| *f.borrow_mut() = failed);
    got
}

thread_local! {
    /// The kinds that failed in a [`fill`], kept per thread between fills (one fill's list is
    /// a whole allocation of the kinds' size, and fills run by the hundred thousand).
    static FAILED: std::cell::RefCell<Vec<bool>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Boxes holding more units than this are filled once (see [`build`]).
pub(crate) const BULK: usize = 256;

/// Preference between trial fills of different box kinds: smaller is better.
type Key = [f64; 3];

fn box_key(goal: Goal, packed: i128, bk: &BoxKind) -> Key {
    let (pv, bv, cost) = (packed as f64, bk.volume as f64, bk.cost);
    match goal {
        // Most volume per unit of cost; free boxes by volume packed.
        Goal::LowestCost => [-pv / cost.max(1e-9), -pv, bv],
        // Fullest box first, even if that takes more boxes.
        Goal::BestFit => [-pv / bv, -pv, cost],
        _ => [-pv, bv, cost],
    }
}

fn cmp_key(a: &Key, b: &Key) -> Ordering {
    a.partial_cmp(b).unwrap_or(Ordering::Equal)
}

/// How hard [`build`] works on each box once its kind is chosen: `tries` fills with the merits
/// (the given one first), then `restarts` fills in randomly perturbed orders; the fullest
/// fill is kept. Filling each box as full as possible before the next is the 3D form of the
/// minimum-bin-slack rule, which beats plain first fit decreasing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Effort {
    pub tries: usize,
    pub restarts: usize,
    pub seed: u64,
}

/// Packs `order` box by box with `effort`. `left` holds the boxes still available per box kind
/// (`None`: unlimited) and is decremented. Returns the boxes and the units no box could take.
pub(crate) fn build(
    order: &[u32],
    boxes: &[BoxKind],
    left: &mut [Option<u64>],
    ctx: &Ctx,
    goal: Goal,
    merit: Merit,
    effort: Effort,
) -> (Vec<Bin>, Vec<u32>) {
    let mut rng = SplitMix64::new(effort.seed);
    let mut taken = vec![false; order.len()];
    let mut remaining = order.len();
    let mut bins = Vec::new();
    while remaining > 0 {
        let mut best: Option<(Key, Bin, Vec<usize>)> = None;
        for (b, bk) in boxes.iter().enumerate() {
            if left[b] == Some(0)
                || bk.cap < 0
                || (goal_is_count(goal) && dominated(b, boxes, left))
            {
                continue;
            }
            let mut bin = Bin::new(b, bk.size, bk.cap);
            let got = fill(&mut bin, order, &taken, ctx, merit);
            if got.is_empty() {
                continue;
            }
            let all = got.len() == remaining;
            let key = box_key(goal, bin.volume, bk);
            if best
                .as_ref()
                .is_none_or(|(k, _, _)| cmp_key(&key, k) == Ordering::Less)
            {
                best = Some((key, bin, got));
            }
            // Nothing packs more than everything; the downsizing pass later looks for the
            // smallest box that still holds it.
            if all && goal_is_count(goal) {
                break;
            }
        }
        // The chosen box kind is filled again; the fullest fill stays. Not when the box took
        // every unit left (no fill packs more), nor when it holds hundreds of units: another
        // fill of it costs as much as a whole order, for little.
        if let Some((key, bin, got)) = best
            .as_mut()
            .filter(|(_, _, got)| got.len() < remaining && got.len() <= BULK)
        {
            let (b, bk) = (bin.box_kind, &boxes[bin.box_kind]);
            let others = MERITS.into_iter().filter(|&m| m != merit);
            for m in others.take(effort.tries.saturating_sub(1)) {
                let mut alt = Bin::new(b, bk.size, bk.cap);
                let alt_got = fill(&mut alt, order, &taken, ctx, m);
                if alt.volume > bin.volume {
                    (*key, *bin, *got) = (box_key(goal, alt.volume, bk), alt, alt_got);
                }
            }
            let free: Vec<usize> = (0..order.len()).filter(|&i| !taken[i]).collect();
            let none = vec![false; free.len()];
            let (mut perm, mut sub) = (Vec::new(), Vec::with_capacity(free.len()));
            for _ in 0..effort.restarts {
                perturb_into(&free, &mut rng, &mut perm);
                sub.clear();
                sub.extend(perm.iter().map(|&i| order[i]));
                let mut alt = Bin::new(b, bk.size, bk.cap);
                let m = MERITS[rng.below(MERITS.len())];
                let alt_got = fill(&mut alt, &sub, &none, ctx, m);
                if alt.volume > bin.volume {
                    let mapped = alt_got.iter().map(|&i| perm[i]).collect();
                    (*key, *bin, *got) = (box_key(goal, alt.volume, bk), alt, mapped);
                }
            }
            // A loose box of several units in the first packing also tries its first unit in
            // the corner in every turn (see `corner`). Not in the search's moves, where it did
            // not pay, nor for a unit alone in its box: there turning it rarely lets a second
            // one in, and requests whose units mostly go one to a box stop at the bound.
            if effort.tries > 1 && got.len() > 1 && bin.volume * 20 < bk.volume * 17 {
                let merits = [Merit::ContactTall, Merit::Spaces];
                if let Some((alt, alt_got)) =
                    corner::fill_around_first(b, bk.size, bk.cap, order, &taken, ctx, &merits, fill)
                {
                    if alt.volume > bin.volume {
                        (*key, *bin, *got) = (box_key(goal, alt.volume, bk), alt, alt_got);
                    }
                }
            }
            // The same box from a level floor of units of one height, for plates to lie flat
            // on (see `floor`); one box kind only, as the platform repack. Kept only when
            // nearly full: a fuller but loose floor box takes the units that match best and
            // leaves worse boxes after it (MPV classes 1-3, n = 200, first packing: 672
            // boxes taking every gain, 663-664 from 0.95 up, 664 without).
            if effort.tries > 1 && boxes.len() == 1 && bin.volume < bk.volume {
                let merits = [Merit::ContactTall, Merit::Spaces];
                if let Some((alt, alt_got)) =
                    floor::fill_from_floor(b, bk, order, &taken, ctx, &merits, fill)
                {
                    if alt.volume > bin.volume && alt.fill_ratio() >= floor::FULL {
                        (*key, *bin, *got) = (box_key(goal, alt.volume, bk), alt, alt_got);
                    }
                }
            }
        }
        let Some((_, bin, got)) = best else { break };
        for &i in &got {
            taken[i] = true;
        }
        remaining -= got.len();
        if let Some(q) = &mut left[bin.box_kind] {
            *q -= 1;
        }
        bins.push(bin);
    }
    let rest = order
        .iter()
        .zip(&taken)
        .filter(|(_, t)| !**t)
        .map(|(&k, _)| k)
        .collect();
    (bins, rest)
}

/// Whether another available box kind is at least as large on every axis and carries at least
/// as much: for a count goal the larger one is tried instead (downsizing comes later).
fn dominated(b: usize, boxes: &[BoxKind], left: &[Option<u64>]) -> bool {
    let me = &boxes[b];
    boxes.iter().enumerate().any(|(c, o)| {
        c != b
            && left[c] != Some(0)
            && (0..3).all(|a| o.size[a] >= me.size[a])
            && o.cap >= me.cap
            && (o.size != me.size || o.cap != me.cap || c < b)
    })
}

fn goal_is_count(goal: Goal) -> bool {
    matches!(
        goal,
        Goal::FewestPackages | Goal::FewestWarehouses | Goal::BalancedWeight
    )
}

/// `items` with a few random short-range swaps: close to the original order, which is good,
/// but different enough to pack differently.
pub(crate) fn perturbed<T: Copy>(items: &[T], rng: &mut SplitMix64) -> Vec<T> {
    let mut v = Vec::new();
    perturb_into(items, rng, &mut v);
    v
}

/// [`perturbed`] into `v` (its allocation reused).
fn perturb_into<T: Copy>(items: &[T], rng: &mut SplitMix64, v: &mut Vec<T>) {
    v.clear();
    v.extend_from_slice(items);
    if v.len() > 1 {
        for _ in 0..1 + rng.below(v.len()) {
            let i = rng.below(v.len());
            let j = (i + 1 + rng.below(4)).min(v.len() - 1);
            v.swap(i, j);
        }
    }
}

/// Whether `units` could fit in one box of kind `bk` by volume and weight alone: the cheap
/// test before any placement is tried.
pub(crate) fn may_hold(units: &[u32], bk: &BoxKind, ctx: &Ctx) -> bool {
    let total: i128 = units.iter().map(|&k| ctx.kinds[k as usize].volume).sum();
    let weight: i64 = units.iter().map(|&k| ctx.kinds[k as usize].weight).sum();
    total <= bk.volume && weight <= bk.cap
}

/// `units` sorted by `order` if they could fit one box of kind `bk` by volume and weight
/// ([`may_hold`]); `None` if not. The start of every exact repack of one box.
pub(crate) fn held_in_order(
    units: &[u32],
    bk: &BoxKind,
    ctx: &Ctx,
    order: Order,
) -> Option<Vec<u32>> {
    if !may_hold(units, bk, ctx) {
        return None;
    }
    let mut sorted = units.to_vec();
    sort_units(&mut sorted, ctx.kinds, order);
    Some(sorted)
}

/// Packs exactly `units` into one box of kind `bk` with one configuration; `None` when some
/// unit is left over.
pub(crate) fn repack_with(
    units: &[u32],
    b: usize,
    bk: &BoxKind,
    ctx: &Ctx,
    (order, merit): (Order, Merit),
) -> Option<Bin> {
    let sorted = held_in_order(units, bk, ctx, order)?;
    let mut bin = Bin::new(b, bk.size, bk.cap);
    let taken = vec![false; sorted.len()];
    (fill(&mut bin, &sorted, &taken, ctx, merit).len() == sorted.len()).then_some(bin)
}

/// Packs exactly `units` into one box of kind `bk`, trying the first configurations (the
/// others rarely succeed where these fail).
pub(crate) fn repack_one(units: &[u32], b: usize, bk: &BoxKind, ctx: &Ctx) -> Option<Bin> {
    CONFIGS[..4]
        .iter()
        .find_map(|&c| repack_with(units, b, bk, ctx, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::Rules;

    /// Work spent by [`build`] packing `n` unit cubes into cubic boxes of side `side` with
    /// `effort`, and the boxes used.
    fn work_of(n: usize, side: i64, effort: Effort) -> (u64, usize) {
        let kinds = vec![Kind::plain([1, 1, 1], Orientation::Any, n as u64)];
        let rules = Rules::full_support();
        let ctx = Ctx::new(&kinds, &rules);
        let bk = BoxKind::test_box([side; 3]);
        let units = vec![0u32; n];
        let (bins, rest) = build(
            &units,
            &[bk],
            &mut [None],
            &ctx,
            Goal::FewestPackages,
            Merit::ContactTall,
            effort,
        );
        assert!(rest.is_empty());
        (ctx.work.get(), bins.len())
    }

    #[test]
    fn boxes_of_hundreds_of_units_are_filled_once() {
        let once = Effort {
            tries: 1,
            restarts: 0,
            seed: 1,
        };
        let hard = Effort {
            tries: MERITS.len(),
            restarts: 8,
            seed: 1,
        };
        // Everything in one box; then a full box of 1,000 and the rest in a second one.
        for (n, boxes) in [(600, 1), (1300, 2)] {
            assert_eq!(work_of(n, 10, hard), work_of(n, 10, once));
            assert_eq!(work_of(n, 10, hard).1, boxes);
        }
        // A box of a few dozen units, with more to come, is still filled several ways.
        assert!(work_of(40, 3, hard).0 > work_of(40, 3, once).0);
    }
}
