//! Warehouse assignment: which warehouse ships each unit. It respects stock, chooses the
//! warehouses by the goal (see `cover`; preferred ones first among equals, avoided ones only
//! when needed), and gives the reason for every unit that no warehouse can ship.

use crate::cover;
use crate::model::Goal;
use crate::problem::Problem;
use crate::quick;
use crate::solution::UnfitReason;
use crate::split_bound;
use crate::suit::{suit, Suit};

/// Units per warehouse (kind ids, with repetition) and the units nobody can ship.
pub(crate) struct Assignment {
    pub units: Vec<Vec<u32>>,
    /// Other splits worth packing in full, next best first (see `cover::ranked`).
    pub others: Vec<Vec<Vec<u32>>>,
    /// Splits worth a harder search when the others stay above `floor` (`cover::Ranked::far`).
    pub far: Vec<Vec<Vec<u32>>>,
    /// No packing of the shippable units uses fewer boxes (0 when not worked out).
    pub floor: usize,
    pub unfitted: Vec<(u32, UnfitReason)>,
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
    // Small orders weigh several splits; none can beat the bound over all splits. With one
    // warehouse to ship from there is one split and nothing to weigh.
    let total: u64 = need.iter().sum();
    let packages_first = matches!(p.goal, Goal::FewestPackages | Goal::BalancedWeight);
    let floor = if packages_first && total as usize <= quick::CAREFUL_UNITS && cands.len() > 1 {
        split_bound::bound_of(p)
    } else {
        0
    };
    let mut ranked = cover::ranked(&free, &usable, &need, p, floor);
    if ranked.is_empty() {
        ranked = cover::ranked(&cands, &usable, &need, p, floor);
    }
    if ranked.is_empty() {
        ranked.best = cover::split(&cands, &usable, &need, nd);
    }
    Assignment {
        units: ranked.best,
        others: ranked.close,
        far: ranked.far,
        floor,
        unfitted,
    }
}
