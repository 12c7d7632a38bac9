//! Finer warehouse splits for small orders: the splits `cover` weighs draw each kind from one
//! warehouse before the next, so a box holding a few units that another warehouse also stocks
//! stays open. Here the units of the emptiest boxes move to other warehouses that stock them,
//! as long as the quick packing needs fewer boxes.

use crate::placement::Bin;
use crate::problem::Problem;
use crate::quick::{quick_packing, Key};

/// Rounds of moves, at most (each keeps one move that saves a box).
const MAX_ROUNDS: usize = 4;
/// The emptiest boxes whose units are offered to other warehouses per round.
const WEAK_BOXES: usize = 3;

/// Units left over, boxes and warehouses used by a quick packing of `split`.
fn key_of(bins: &[Vec<Bin>], left_over: usize, split: &[Vec<u32>]) -> Key {
    let boxes = bins.iter().map(Vec::len).sum();
    let used = split.iter().filter(|u| !u.is_empty()).count();
    (left_over, boxes, used)
}

/// Volume share of the emptiest box.
fn weakest(bins: &[Vec<Bin>]) -> f64 {
    bins.iter()
        .flatten()
        .map(Bin::fill_ratio)
        .fold(f64::INFINITY, f64::min)
}

/// `split` with up to `counts[k]` units of each kind `k` moved from warehouse `from` to `to`
/// (as far as `to` stocks them); `None` when nothing moves.
fn moved(
    split: &[Vec<u32>],
    usable: &[Vec<u64>],
    counts: &[(u32, usize)],
    from: usize,
    to: usize,
) -> Option<Vec<Vec<u32>>> {
    let mut next = split.to_vec();
    let mut any = false;
    for &(k, c) in counts {
        let there = next[to].iter().filter(|&&x| x == k).count() as u64;
        let m = (c as u64).min(usable[to][k as usize].saturating_sub(there)) as usize;
        for _ in 0..m {
            let at = next[from].iter().position(|&x| x == k)?;
            next[from].remove(at);
            next[to].push(k);
            any = true;
        }
    }
    for u in &mut next {
        u.sort_unstable();
    }
    any.then_some(next)
}

/// Units per kind in `bin`, kinds in order.
fn contents(bin: &Bin) -> Vec<(u32, usize)> {
    let mut kinds: Vec<u32> = bin.placed.iter().map(|q| q.kind).collect();
    kinds.sort_unstable();
    let mut out: Vec<(u32, usize)> = Vec::new();
    for k in kinds {
        match out.last_mut() {
            Some((last, c)) if *last == k => *c += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// A split of the same units as `split` (units per warehouse, taken from `usable` stock and
/// sent only from and to warehouses of `cands`) whose quick packing ranks better, with its
/// key; `None` when no move of a weak box's units helps.
pub(crate) fn improve(
    p: &Problem,
    cands: &[usize],
    usable: &[Vec<u64>],
    split: &[Vec<u32>],
) -> Option<(Key, Vec<Vec<u32>>)> {
    let (mut bins, left_over) = quick_packing(p, split);
    let mut cur = split.to_vec();
    let mut key = key_of(&bins, left_over, &cur);
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let mut weak: Vec<(f64, usize, usize)> = bins
            .iter()
            .enumerate()
            .flat_map(|(w, bs)| {
                bs.iter()
                    .enumerate()
                    .map(move |(i, b)| (b.fill_ratio(), w, i))
            })
            .collect();
        weak.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        let mut found = None;
        'search: for &(_, w, i) in weak.iter().take(WEAK_BOXES) {
            let all = contents(&bins[w][i]);
            // The whole box first, then each of its kinds alone.
            let mut offers = vec![all.clone()];
            if all.len() > 1 {
                offers.extend(all.iter().map(|&c| vec![c]));
            }
            for offer in &offers {
                for &to in cands.iter().filter(|&&v| v != w) {
                    let Some(next) = moved(&cur, usable, offer, w, to) else {
                        continue;
                    };
                    let (nb, lo) = quick_packing(p, &next);
                    let nk = key_of(&nb, lo, &next);
                    // Sideways too: as many boxes, but a weakest box closer to empty.
                    if nk < key || (nk == key && weakest(&nb) < weakest(&bins) - 1e-9) {
                        found = Some((nk, next, nb));
                        break 'search;
                    }
                }
            }
        }
        let Some((nk, next, nb)) = found else { break };
        (key, cur, bins) = (nk, next, nb);
        changed = true;
    }
    changed.then_some((key, cur))
}

#[cfg(test)]
mod tests {
    use crate::model::{BoxType, Item, PackRequest, Warehouse};

    #[test]
    fn a_half_empty_box_moves_to_a_warehouse_that_stocks_its_units() {
        // Slabs of half a box. "f" ships from w1 only; four of the five "c" must come from w2,
        // which takes them in two boxes: three boxes in all. Drawing every "c" from one
        // warehouse first needs four (w1: f + 2 c in two boxes, w2: 3 c in two; or w1: f
        // alone, w2: 5 c in three).
        let wh = |id: &str, stock: &[(&str, i64)]| Warehouse {
            warehouse_id: id.into(),
            boxes: vec![BoxType::new("cube", 10.0, 10.0, 10.0, 100.0)],
            inventory: stock.iter().map(|(k, q)| ((*k).into(), *q)).collect(),
        };
        let req = PackRequest {
            items: vec![
                Item::new("f", 10.0, 5.0, 10.0, 1.0, 1),
                Item::new("c", 10.0, 5.0, 10.0, 1.0, 5),
            ],
            warehouses: vec![wh("w1", &[("f", 1), ("c", 2)]), wh("w2", &[("c", 5)])],
            ..PackRequest::default()
        };
        let sol = crate::pack(&req).unwrap();
        assert_eq!(sol.summary.total_items_packed, 6);
        assert_eq!(sol.summary.total_packages, 3);
    }
}
