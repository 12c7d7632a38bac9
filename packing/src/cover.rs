//! Which warehouses ship an order: the candidate sets that can supply every unit, the ways of
//! splitting the units among a set's warehouses, and the choice among them by the goal (for
//! `fewest_warehouses` the fewest warehouses, then packages; for `fewest_packages` and
//! `balanced_weight` the fewest packages, then warehouses), with packages estimated by a quick
//! construction.

use crate::model::Goal;
use crate::problem::Problem;
use crate::quick::{quick_packing, Key, CAREFUL_UNITS};
use crate::resplit;

/// Candidate splits weighed by a quick packing at most; beyond it the first ones (the most
/// preferred, most capable sets first) are kept.
const MAX_SPLITS: usize = 24;
/// Above this many units the split is not estimated by packing (it would cost as much as the
/// packing itself): the most capable smallest set is taken.
const MAX_ESTIMATED_UNITS: u64 = 1000;

/// Whether the warehouses in `set` can ship the `need` of every kind together.
fn covers(set: &[usize], usable: &[Vec<u64>], need: &[u64]) -> bool {
    need.iter()
        .enumerate()
        .all(|(k, &n)| set.iter().map(|&w| usable[w][k]).sum::<u64>() >= n)
}

/// Volume of the needed units warehouse `w` could ship.
fn shippable(w: usize, usable: &[Vec<u64>], need: &[u64], p: &Problem) -> i128 {
    need.iter()
        .enumerate()
        .map(|(k, &n)| usable[w][k].min(n) as i128 * p.kinds[k].volume)
        .sum()
}

/// The sets of `cands` of exactly `size` warehouses that cover `need`, the most preferred
/// and most capable first. Exhaustive up to 12 candidates; above, one greedy set.
fn covers_of_size(
    cands: &[usize],
    size: usize,
    usable: &[Vec<u64>],
    need: &[u64],
    p: &Problem,
) -> Vec<Vec<usize>> {
    let pref = |w: &usize| p.directives.prefer.contains(w);
    if cands.len() > 12 {
        return greedy_cover(cands, usable, need, p)
            .filter(|s| s.len() == size)
            .into_iter()
            .collect();
    }
    let mut sets: Vec<(usize, i128, Vec<usize>)> = Vec::new();
    for mask in 0u32..(1 << cands.len()) {
        if mask.count_ones() as usize != size {
            continue;
        }
        let set: Vec<usize> = (0..cands.len())
            .filter(|i| mask & 1 << i != 0)
            .map(|i| cands[i])
            .collect();
        if covers(&set, usable, need) {
            let preferred = set.iter().filter(|w| pref(w)).count();
            let vol = set.iter().map(|&w| shippable(w, usable, need, p)).sum();
            sets.push((preferred, vol, set));
        }
    }
    // Stable: equal sets keep the order of their lowest indices.
    sets.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    sets.into_iter().map(|s| s.2).collect()
}

/// A covering set built greedily, the warehouse shipping the most remaining volume first.
fn greedy_cover(
    cands: &[usize],
    usable: &[Vec<u64>],
    need: &[u64],
    p: &Problem,
) -> Option<Vec<usize>> {
    let pref = |w: &usize| p.directives.prefer.contains(w);
    let mut set: Vec<usize> = Vec::new();
    let mut rest = need.to_vec();
    while rest.iter().any(|&n| n > 0) {
        let gain = |w: usize| -> (bool, i128) {
            let v = rest
                .iter()
                .enumerate()
                .map(|(k, &n)| usable[w][k].min(n) as i128 * p.kinds[k].volume.max(1))
                .sum();
            (pref(&w), v)
        };
        let w = cands
            .iter()
            .copied()
            .filter(|w| !set.contains(w))
            .max_by_key(|&w| (gain(w), std::cmp::Reverse(w)))?;
        if gain(w).1 == 0 {
            return None;
        }
        for (k, n) in rest.iter_mut().enumerate() {
            *n -= usable[w][k].min(*n);
        }
        set.push(w);
    }
    Some(set)
}

/// The smallest covering sets of `cands` and, when `wider`, those one warehouse larger.
fn candidate_sets(
    cands: &[usize],
    usable: &[Vec<u64>],
    need: &[u64],
    p: &Problem,
    wider: bool,
) -> Vec<Vec<usize>> {
    for size in 1..=cands.len() {
        let mut sets = covers_of_size(cands, size, usable, need, p);
        if sets.is_empty() {
            continue;
        }
        if wider && size < cands.len() {
            sets.extend(covers_of_size(cands, size + 1, usable, need, p));
        }
        return sets;
    }
    Vec::new()
}

/// The warehouses of `set` in the order they are drawn from by default: avoided ones last,
/// preferred ones first, then the most capable, so units concentrate.
fn default_order(set: &[usize], usable: &[Vec<u64>], need: &[u64], p: &Problem) -> Vec<usize> {
    let d = &p.directives;
    let mut ordered = set.to_vec();
    ordered.sort_by_key(|&w| {
        (
            d.avoid.contains(&w),
            !d.prefer.contains(&w),
            std::cmp::Reverse(shippable(w, usable, need, p)),
            w,
        )
    });
    ordered
}

/// Units per warehouse when every kind is drawn from the warehouses of `order` in turn.
pub(crate) fn split(
    order: &[usize],
    usable: &[Vec<u64>],
    need: &[u64],
    nd: usize,
) -> Vec<Vec<u32>> {
    let mut units = vec![Vec::new(); nd];
    for (k, &n) in need.iter().enumerate() {
        let mut n = n;
        for &w in order {
            let take = usable[w][k].min(n);
            units[w].extend(std::iter::repeat_n(k as u32, take as usize));
            n -= take;
        }
    }
    units
}

/// The orders worth trying for a set: the default one, then (for up to three warehouses,
/// avoided ones kept last) every other, since which warehouse is drawn from first decides
/// where the units go.
fn orders_of(set: &[usize], usable: &[Vec<u64>], need: &[u64], p: &Problem) -> Vec<Vec<usize>> {
    let first = default_order(set, usable, need, p);
    let mut out = vec![first.clone()];
    if set.len() <= 3 {
        let n = first.len();
        let perms: &[&[usize]] = match n {
            2 => &[&[1, 0]],
            3 => &[&[0, 2, 1], &[1, 0, 2], &[1, 2, 0], &[2, 0, 1], &[2, 1, 0]],
            _ => &[],
        };
        for perm in perms {
            let o: Vec<usize> = perm.iter().map(|&i| first[i]).collect();
            let avoid_ok = o
                .windows(2)
                .all(|w| !p.directives.avoid.contains(&w[0]) || p.directives.avoid.contains(&w[1]));
            if avoid_ok {
                out.push(o);
            }
        }
    }
    out
}

/// Boxes and left-over units of a quick packing (no search) of a split.
fn estimate(p: &Problem, units: &[Vec<u32>]) -> (usize, usize) {
    let (bins, left_over) = quick_packing(p, units);
    (bins.iter().map(Vec::len).sum(), left_over)
}

/// Splits of `need` among sets of `cands` for the goal (see [`Ranked`]); `best` is empty when
/// no set covers `need`.
pub(crate) fn ranked(
    cands: &[usize],
    usable: &[Vec<u64>],
    need: &[u64],
    p: &Problem,
    floor: usize,
) -> Ranked {
    let nd = p.depots.len();
    let packages_first = matches!(p.goal, Goal::FewestPackages | Goal::BalancedWeight);
    let estimated = matches!(p.goal, Goal::FewestWarehouses) || packages_first;
    let sets = candidate_sets(cands, usable, need, p, packages_first);
    let Some(first) = sets.first() else {
        return Ranked::default();
    };
    let total: u64 = need.iter().sum();
    if !estimated || total > MAX_ESTIMATED_UNITS {
        return Ranked::one(split(
            &default_order(first, usable, need, p),
            usable,
            need,
            nd,
        ));
    }
    let mut splits: Vec<Vec<Vec<u32>>> = Vec::new();
    for o in sets.iter().flat_map(|s| orders_of(s, usable, need, p)) {
        let units = split(&o, usable, need, nd);
        // A wider set whose first warehouses ship everything is a smaller set again.
        if !splits.contains(&units) {
            splits.push(units);
        }
        if splits.len() == MAX_SPLITS {
            break;
        }
    }
    let fine = packages_first && total as usize <= CAREFUL_UNITS;
    // One split is the answer unless units may move to another warehouse (`resplit`).
    if splits.len() == 1 && (!fine || cands.len() == 1) {
        return Ranked::one(splits.remove(0));
    }
    // Units shipped come first under every goal; ties keep the earlier (more preferred, more
    // capable) split.
    let mut keyed: Vec<(Key, Vec<Vec<u32>>)> = splits
        .into_iter()
        .map(|units| {
            let (boxes, left_over) = estimate(p, &units);
            let used = units.iter().filter(|u| !u.is_empty()).count();
            let key = if packages_first {
                (left_over, boxes, used)
            } else {
                (left_over, used, boxes)
            };
            (key, units)
        })
        .collect();
    keyed.sort_by_key(|k| k.0);
    // A split whose quick packing ships everything in `floor` boxes is optimal.
    if fine && !(keyed[0].0 .0 == 0 && keyed[0].0 .1 <= floor) {
        if let Some(better) = resplit::improve(p, cands, usable, &keyed[0].1) {
            keyed.insert(0, better);
        }
    }
    let best = keyed[0].0;
    let within = |k: &Key, boxes: usize| packages_first && k.0 == best.0 && k.1 <= best.1 + boxes;
    let mut out = Ranked::one(keyed.remove(0).1);
    for (k, units) in keyed {
        if out.close.len() < MAX_ALTERNATIVES && within(&k, 1) {
            out.close.push(units);
        } else if fine && within(&k, FAR_BOXES) {
            out.far.push(units);
        }
    }
    out
}

/// Splits besides the best one that are packed in full (see [`ranked`]).
const MAX_ALTERNATIVES: usize = 3;
/// How many boxes more than the best a split's quick packing may need to be kept in
/// [`Ranked::far`].
const FAR_BOXES: usize = 3;

/// The splits of an order, best first by the quick packing.
#[derive(Default)]
pub(crate) struct Ranked {
    /// The best split; empty when no set of warehouses covers the order.
    pub best: Vec<Vec<u32>>,
    /// For the package goals, the other splits whose quick packing ships as much with at most
    /// one box more (the quick packing misjudges close calls), next best first.
    pub close: Vec<Vec<Vec<u32>>>,
    /// For small orders under the package goals, the rest of the splits that ship as much
    /// with a few boxes more: packed in full only when the others stay above the bound.
    pub far: Vec<Vec<Vec<u32>>>,
}

impl Ranked {
    fn one(best: Vec<Vec<u32>>) -> Self {
        Ranked {
            best,
            ..Ranked::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.best.is_empty()
    }
}
