//! The quick packing (construction only, no search) that weighs warehouse splits: `cover`
//! ranks splits by it and `resplit` tries finer ones with it.

use crate::construct::{build, sort_units, Effort, Order, MERITS};
use crate::placement::{Bin, Ctx, Merit};
use crate::problem::Problem;

/// How a split ranks, smaller first: units left over, then boxes and warehouses used in the
/// goal's order.
pub(crate) type Key = (usize, usize, usize);

/// Up to this many units the splits are weighed by a careful construction (every merit per
/// box and a dozen reordered fills), which picks better splits for carts at a fraction of a
/// millisecond each; larger orders get one pass.
pub(crate) const CAREFUL_UNITS: usize = 60;

/// A quick packing (no search) of a split: the boxes per warehouse and the units left over.
pub(crate) fn quick_packing(p: &Problem, units: &[Vec<u32>]) -> (Vec<Vec<Bin>>, usize) {
    let ctx = Ctx::new(&p.kinds, &p.rules);
    let careful = units.iter().map(Vec::len).sum::<usize>() <= CAREFUL_UNITS;
    let mut left_over = 0;
    let mut out = Vec::with_capacity(units.len());
    for (w, u) in units.iter().enumerate() {
        if u.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let depot = &p.depots[w];
        let mut sorted = u.clone();
        sort_units(&mut sorted, &p.kinds, Order::Volume);
        let mut left: Vec<Option<u64>> = depot.boxes.iter().map(|b| b.quantity).collect();
        let effort = Effort {
            tries: if careful { MERITS.len() } else { 1 },
            restarts: if careful { 12 } else { 0 },
            seed: 0,
        };
        let (bins, rest) = build(
            &sorted,
            &depot.boxes,
            &mut left,
            &ctx,
            p.goal,
            Merit::ContactTall,
            effort,
        );
        out.push(bins);
        left_over += rest.len();
    }
    (out, left_over)
}
