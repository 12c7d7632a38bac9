//! The plain packer the engine is measured against: extreme-point first-fit decreasing, no
//! search and no box downsizing, obeying every hard rule so the validator accepts it.

use crate::assemble::{assemble, Plan};
use crate::construct::{sort_units, Order};
use crate::error::Result;
use crate::model::PackRequest;
use crate::placement::{Bin, Ctx, Merit};
use crate::problem;
use crate::solution::{PackSolution, UnfitReason};
use crate::suit::{suit, Suit};

/// Packs `req` the plain way: units sorted by volume go to the first warehouse with stock and
/// to the first open box where they fit (lowest, rearmost, leftmost extreme point, first
/// allowed turn); otherwise a new box of the largest kind in stock is opened.
pub fn pack(req: &PackRequest) -> Result<PackSolution> {
    let p = problem::build(req)?;
    let ctx = Ctx::new(&p.kinds, &p.rules);
    let mut units: Vec<u32> = p
        .kinds
        .iter()
        .enumerate()
        .flat_map(|(k, kind)| std::iter::repeat_n(k as u32, kind.quantity as usize))
        .collect();
    sort_units(&mut units, &p.kinds, Order::Volume);
    let mut stock: Vec<Vec<u64>> = p.depots.iter().map(|d| d.stock.clone()).collect();
    let mut left: Vec<Vec<Option<u64>>> = p
        .depots
        .iter()
        .map(|d| d.boxes.iter().map(|b| b.quantity).collect())
        .collect();
    let mut bins: Vec<Vec<Bin>> = vec![Vec::new(); p.depots.len()];
    let mut unfitted = Vec::new();
    'units: for k in units {
        let kind = &p.kinds[k as usize];
        let Some(w) = (0..p.depots.len())
            .find(|&w| stock[w][k as usize] > 0 && suit(&p.depots[w], kind) == Suit::Yes)
        else {
            // In stock only where it cannot ship: the reason of the most suitable such place.
            let from = (0..p.depots.len())
                .filter(|&w| stock[w][k as usize] > 0)
                .max_by_key(|&w| (suit(&p.depots[w], kind), std::cmp::Reverse(w)));
            let reason = match from {
                None => UnfitReason::NoInventory,
                Some(w) => {
                    stock[w][k as usize] -= 1;
                    suit(&p.depots[w], kind).reason()
                }
            };
            unfitted.push((k, reason));
            continue;
        };
        stock[w][k as usize] -= 1;
        for bin in bins[w].iter_mut() {
            if let Some(c) = bin.best(k, &ctx, Merit::Lowest) {
                bin.place(k, &c, &ctx);
                continue 'units;
            }
        }
        let depot = &p.depots[w];
        let mut kinds: Vec<usize> = (0..depot.boxes.len())
            .filter(|&b| left[w][b] != Some(0))
            .collect();
        kinds.sort_by_key(|&b| (std::cmp::Reverse(depot.boxes[b].volume), b));
        for b in kinds {
            let bk = &depot.boxes[b];
            let mut bin = Bin::new(b, bk.size, bk.cap);
            if let Some(c) = bin.best(k, &ctx, Merit::Lowest) {
                bin.place(k, &c, &ctx);
                if let Some(q) = &mut left[w][b] {
                    *q -= 1;
                }
                bins[w].push(bin);
                continue 'units;
            }
        }
        stock[w][k as usize] += 1;
        unfitted.push((k, UnfitReason::NoBoxAvailable));
    }
    Ok(assemble(req, &p, &Plan { bins, unfitted }))
}
