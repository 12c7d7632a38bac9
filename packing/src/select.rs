//! Warehouse assignment: which warehouse ships each unit. It respects stock, ships from as few
//! warehouses as possible (preferred ones first, avoided ones only when needed), and gives the
//! reason for every unit that no warehouse can ship.

use crate::problem::{Depot, Kind, Problem};
use crate::solution::UnfitReason;

/// How well a warehouse's boxes suit one kind, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Suit {
    TooLarge,
    TooHeavy,
    /// Fits a box kind, but none of those boxes is in stock.
    NoBox,
    Yes,
}

impl Suit {
    pub fn reason(self) -> UnfitReason {
        match self {
            Suit::TooLarge => UnfitReason::TooLarge,
            Suit::TooHeavy => UnfitReason::TooHeavy,
            Suit::NoBox | Suit::Yes => UnfitReason::NoBoxAvailable,
        }
    }
}

/// How the boxes of `depot` suit a unit of `kind` on its own.
pub(crate) fn suit(depot: &Depot, kind: &Kind) -> Suit {
    let mut best = Suit::TooLarge;
    for bk in &depot.boxes {
        if !kind
            .turns
            .iter()
            .any(|t| (0..3).all(|a| t.dim[a] <= bk.size[a]))
        {
            continue;
        }
        let s = if kind.weight > bk.cap {
            Suit::TooHeavy
        } else if bk.quantity == Some(0) {
            Suit::NoBox
        } else {
            Suit::Yes
        };
        best = best.max(s);
    }
    best
}

/// Units per warehouse (kind ids, with repetition) and the units nobody can ship.
pub(crate) struct Assignment {
    pub units: Vec<Vec<u32>>,
    pub unfitted: Vec<(u32, UnfitReason)>,
}

/// Whether the warehouses in `set` can ship the `need` of every kind together.
fn covers(set: &[usize], usable: &[Vec<u64>], need: &[u64]) -> bool {
    need.iter()
        .enumerate()
        .all(|(k, &n)| set.iter().map(|&w| usable[w][k]).sum::<u64>() >= n)
}

/// The smallest set of `cands` covering `need`; among equal sizes the one with most preferred
/// warehouses, then the most shippable volume, then the lowest indices. Exhaustive up to 12
/// candidates, greedy above.
fn smallest_cover(
    cands: &[usize],
    usable: &[Vec<u64>],
    need: &[u64],
    p: &Problem,
) -> Option<Vec<usize>> {
    let vol = |w: usize| -> i128 {
        need.iter()
            .enumerate()
            .map(|(k, &n)| usable[w][k].min(n) as i128 * p.kinds[k].volume)
            .sum()
    };
    let pref = |w: &usize| p.directives.prefer.contains(w);
    if cands.len() <= 12 {
        for size in 1..=cands.len() {
            let mut best: Option<(usize, i128, Vec<usize>)> = None;
            for mask in 0u32..(1 << cands.len()) {
                if mask.count_ones() as usize != size {
                    continue;
                }
                let set: Vec<usize> = (0..cands.len())
                    .filter(|i| mask & 1 << i != 0)
                    .map(|i| cands[i])
                    .collect();
                if !covers(&set, usable, need) {
                    continue;
                }
                let score = (
                    set.iter().filter(|w| pref(w)).count(),
                    set.iter().map(|&w| vol(w)).sum(),
                );
                if best.as_ref().is_none_or(|(a, b, _)| score > (*a, *b)) {
                    best = Some((score.0, score.1, set));
                }
            }
            if let Some((_, _, set)) = best {
                return Some(set);
            }
        }
        return None;
    }
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

/// Assigns every unit to a warehouse or to the unfitted list.
pub(crate) fn assign(p: &Problem) -> Assignment {
    let nd = p.depots.len();
    let suits: Vec<Vec<Suit>> = p
        .depots
        .iter()
        .map(|d| p.kinds.iter().map(|k| suit(d, k)).collect())
        .collect();
    let usable: Vec<Vec<u64>> = (0..nd)
        .map(|w| {
            (0..p.kinds.len())
                .map(|k| {
                    if suits[w][k] == Suit::Yes {
                        p.depots[w].stock[k]
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect();
    let mut unfitted = Vec::new();
    let mut need = vec![0u64; p.kinds.len()];
    for (k, q) in p.kinds.iter().map(|k| k.quantity).enumerate() {
        let stock: u64 = p.depots.iter().map(|d| d.stock[k]).sum();
        let ship: u64 = usable.iter().map(|u| u[k]).sum();
        need[k] = q.min(ship);
        let in_stock = q.min(stock);
        for _ in in_stock..q {
            unfitted.push((k as u32, UnfitReason::NoInventory));
        }
        // Units in stock only where they cannot ship take the reason of the warehouse they
        // would come from, the most nearly suitable warehouses first.
        let mut short = in_stock - need[k];
        let mut blocked: Vec<usize> = (0..nd)
            .filter(|&w| p.depots[w].stock[k] > 0 && suits[w][k] != Suit::Yes)
            .collect();
        blocked.sort_by_key(|&w| (std::cmp::Reverse(suits[w][k]), w));
        for w in blocked {
            let take = short.min(p.depots[w].stock[k]);
            unfitted.extend(std::iter::repeat_n(
                (k as u32, suits[w][k].reason()),
                take as usize,
            ));
            short -= take;
        }
    }
    let cands: Vec<usize> = (0..nd)
        .filter(|&w| usable[w].iter().zip(&need).any(|(&u, &n)| u > 0 && n > 0))
        .collect();
    let free: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|w| !p.directives.avoid.contains(w))
        .collect();
    let set = smallest_cover(&free, &usable, &need, p)
        .or_else(|| smallest_cover(&cands, &usable, &need, p))
        .unwrap_or(cands);
    // Fill the most capable warehouses first so units concentrate; avoided ones come last.
    let mut ordered = set.clone();
    ordered.sort_by_key(|&w| {
        let vol: i128 = need
            .iter()
            .enumerate()
            .map(|(k, &n)| usable[w][k].min(n) as i128 * p.kinds[k].volume)
            .sum();
        (
            p.directives.avoid.contains(&w),
            !p.directives.prefer.contains(&w),
            std::cmp::Reverse(vol),
            w,
        )
    });
    let mut units = vec![Vec::new(); nd];
    for (k, &n) in need.iter().enumerate() {
        let mut n = n;
        for &w in &ordered {
            let take = usable[w][k].min(n);
            units[w].extend(std::iter::repeat_n(k as u32, take as usize));
            n -= take;
        }
    }
    Assignment { units, unfitted }
}
