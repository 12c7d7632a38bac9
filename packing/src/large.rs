//! Large orders packed from blocks: each block set ([`Shape`], its columns capped where units of
//! another kind fill the room above them: `caps.rs`) gets a trial (its first packing and a short
//! search), and the best trial goes on searching with the rest of the budget. Which pieces suit
//! an order (rows of columns, or columns alone) varies from order to order by whole pallets,
//! and a short search tells them apart better than the first packing alone.

use crate::blocks::{self, Blocks, Shape};
use crate::caps;
use crate::improve::{better, score, Packing, Search};
use crate::placement::Ctx;
use crate::problem::{Depot, Problem};

/// The block sets tried, in order of preference on ties.
const SHAPES: [Shape; 2] = [Shape::Rows, Shape::Columns];

/// Each block set's trial gets `1 / TRIAL_SHARE` of the budget per set tried twice over:
/// with two sets, a quarter each, and the winner half the budget more.
const TRIAL_SHARE: u64 = 2;

/// Packs units (kind ids of the context) within a budget from a seed.
pub(crate) type PackFn<'a> = dyn Fn(&Ctx, &[u32], u64, u64) -> Packing + 'a;

/// How the engine packs one warehouse's units (its first packings and search, within a
/// budget, from a seed) and bounds the boxes they need, lent to this module so that it need
/// not import the engine.
pub(crate) struct Engine<'a> {
    pub pack: &'a PackFn<'a>,
    pub bound: &'a dyn Fn(&Ctx, &[u32]) -> usize,
}

/// The block sets of `units`, capped, that differ from each other (an order without rows
/// gives one).
fn block_sets(p: &Problem, depot: &Depot, units: &[u32]) -> Vec<Blocks> {
    let mut sets: Vec<Blocks> = Vec::new();
    for shape in SHAPES {
        let made = blocks::make(&p.kinds, units, &depot.boxes, &p.rules, shape);
        if let Some(mut bl) = made {
            caps::add(&p.kinds, &mut bl, &depot.boxes);
            if !sets
                .iter()
                .any(|s| s.units == bl.units && s.kinds.len() == bl.kinds.len())
            {
                sets.push(bl);
            }
        }
    }
    sets
}

/// Packs `units` of `depot` from blocks within `budget`, split back into units of `ctx`;
/// `None` when blocks do not apply or some piece was left out (units then fill gaps that
/// pieces cannot).
pub(crate) fn pack(
    p: &Problem,
    ctx: &Ctx,
    depot: &Depot,
    units: &[u32],
    budget: u64,
    seed: u64,
    engine: &Engine,
) -> Option<Packing> {
    let sets = block_sets(p, depot, units);
    if sets.is_empty() {
        return None;
    }
    let ctxs: Vec<Ctx> = sets.iter().map(|s| Ctx::new(&s.kinds, &p.rules)).collect();
    let (i, mut pk, used) = if sets.len() == 1 {
        let pk = (engine.pack)(&ctxs[0], &sets[0].units, budget, seed);
        (0, pk, budget)
    } else {
        let trial = budget / (TRIAL_SHARE * sets.len() as u64);
        let mut best: Option<(usize, Packing)> = None;
        for (i, (bl, bctx)) in sets.iter().zip(&ctxs).enumerate() {
            let pk = (engine.pack)(bctx, &bl.units, trial, seed);
            let s = score(&pk.bins, pk.leftover.len(), &depot.boxes, p.goal);
            let beats = |(_, b): &(usize, Packing)| {
                better(&s, &score(&b.bins, b.leftover.len(), &depot.boxes, p.goal))
            };
            if best.as_ref().is_none_or(beats) {
                best = Some((i, pk));
            }
        }
        let (i, pk) = best?;
        let used = ctxs.iter().map(|c| c.work.get()).sum::<u64>();
        (i, pk, used)
    };
    let (bl, bctx) = (&sets[i], &ctxs[i]);
    if budget > used && pk.leftover.is_empty() {
        let search = Search {
            ctx: bctx,
            boxes: &depot.boxes,
            goal: p.goal,
            stop_at: bctx.work.get() + (budget - used),
            patience: p.patience,
            restarts: p.restarts / 2,
            // As long without gain as one trial took.
            idle_work: budget / (TRIAL_SHARE * sets.len() as u64),
            lower_bound: (engine.bound)(bctx, &bl.units),
        };
        search.run(&mut pk, seed ^ 0x5EA2_C4ED);
        search.downsize(&mut pk);
    }
    // The block sets count their own work; the request's passes after this one see it.
    ctx.spend(ctxs.iter().map(|c| c.work.get()).sum());
    pk.leftover.is_empty().then(|| Packing {
        bins: pk.bins.iter().map(|b| bl.split(b, ctx)).collect(),
        leftover: Vec::new(),
        left: pk.left,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{BoxType, Item, Orientation, PackRequest, Warehouse};

    /// 300 cartons of 50 x 40 x 50 stand four columns of three to a pallet of 100 x 150 x 100
    /// (25 pallets), each column with 30 to spare above it; 400 cartons of 25 x 30 x 25 fill
    /// that room exactly, four to a column. In plain columns of five they would need five
    /// pallets of their own (30 without caps); capped columns ship everything on the 25.
    #[test]
    fn caps_fill_the_room_above_columns() {
        let mut items = vec![
            Item::new("A", 50.0, 40.0, 50.0, 5.0, 300),
            Item::new("B", 25.0, 30.0, 25.0, 1.0, 400),
        ];
        for it in &mut items {
            it.orientation = Orientation::Upright;
        }
        let mut wh = Warehouse {
            warehouse_id: "DC".into(),
            boxes: vec![BoxType::new("P", 100.0, 150.0, 100.0, 1000.0)],
            ..Warehouse::default()
        };
        for it in &items {
            wh.inventory.insert(it.item_id.clone(), it.quantity);
        }
        let req = PackRequest {
            items,
            warehouses: vec![wh],
            ..PackRequest::default()
        };
        let sol = crate::pack(&req).expect("pack");
        assert_eq!(sol.summary.total_items_packed, 700);
        assert_eq!(sol.summary.total_packages, 25);
    }
}
