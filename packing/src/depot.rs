//! Packs the units one warehouse ships: the lower bound that stops its search, the first
//! packings from several orders and merits, the search within the budget, downsizing, and for
//! `balanced_weight` each box's best balanced construction; and why a unit was left out.

use crate::apart;
use crate::balance;
use crate::bound;
use crate::construct::{
    build, no_load_last, repack_with, sort_units, Effort, Order, CONFIGS, MERITS,
};
use crate::hazmat;
use crate::improve::{better, score, Packing, Search};
use crate::kind_cap;
use crate::model::Goal;
use crate::placement::{Bin, Ctx, Merit};
use crate::problem::{Depot, Problem};
use crate::solution::UnfitReason;
use crate::stack;

/// No packing of `units` in `depot` can use fewer boxes: by volume, by weight, by units that
/// exceed half of the largest box along every axis in every turn (no two share a box), by the
/// units of each kind against what one box holds of them ([`kind_cap`]), by kinds that may
/// not share a box ([`apart`]), and, when one box kind contains all the others, by
/// dual-feasible functions and by the units that can only stack ([`stack::bound`]).
pub(crate) fn lower_bound(units: &[u32], depot: &Depot, ctx: &Ctx) -> usize {
    let usable: Vec<_> = depot
        .boxes
        .iter()
        .filter(|b| b.cap >= 0 && b.quantity != Some(0))
        .collect();
    let Some(vmax) = usable.iter().map(|b| b.volume).max() else {
        return 0;
    };
    let cmax = usable.iter().map(|b| b.cap).max().unwrap_or(0).max(1);
    let big_axes = [0, 1, 2].map(|a| usable.iter().map(|b| b.size[a]).max().unwrap_or(0));
    let vol: i128 = units.iter().map(|&k| ctx.kinds[k as usize].volume).sum();
    let wt: i64 = units.iter().map(|&k| ctx.kinds[k as usize].weight).sum();
    let big = units
        .iter()
        .filter(|&&k| {
            ctx.kinds[k as usize]
                .turns
                .iter()
                .all(|t| (0..3).all(|a| 2 * t.dim[a] > big_axes[a]))
        })
        .count();
    let by_vol = ((vol + vmax - 1) / vmax) as usize;
    let by_wt = ((wt + cmax - 1) / cmax) as usize;
    // Boxes that all fit inside one of them: no packing needs fewer than into that one.
    let outer = usable.iter().find(|o| {
        usable
            .iter()
            .all(|b| (0..3).all(|a| b.size[a] <= o.size[a]))
    });
    let by_dff = outer.map_or(0, |o| bound::dff(units, ctx.kinds, o.size));
    let by_stack = outer.map_or(0, |o| stack::bound(units, ctx.kinds, o.size));
    let floor = by_vol.max(by_wt).max(big).max(by_dff).max(by_stack);
    let mut count = vec![0u64; ctx.kinds.len()];
    for &k in units {
        count[k as usize] += 1;
    }
    let alone = |k: usize| {
        kind_cap::boxes_alone(&ctx.kinds[k], count[k], &depot.boxes, ctx.rules.max_units)
    };
    // Kinds that may not share a box each need their own boxes.
    let by_apart = apart::boxes(ctx.kinds, alone);
    // A kind's units need at most one box each: fewer than `floor` say nothing new.
    let by_kind = (0..ctx.kinds.len())
        .filter(|&k| count[k] > 1 && count[k] as usize > floor)
        .map(alone)
        .max()
        .unwrap_or(0);
    floor.max(by_kind).max(by_apart)
}

/// Most randomised fills per box in the search's moves. Long budgets (5 s) searched better
/// with more, cheaper moves than with the 32 fills their budget would give (BENCHMARKS.md,
/// session 12); the default budget gets 4.
const SEARCH_RESTARTS: usize = 8;

/// Packs the units one warehouse ships; true when the packing is provably optimal under a
/// count goal (every unit in, as few boxes as the lower bound).
pub(crate) fn pack_depot(
    p: &Problem,
    ctx: &Ctx,
    depot: &Depot,
    units: &[u32],
    budget: u64,
    seed: u64,
) -> (Packing, bool) {
    let start = ctx.work.get();
    let quantities: Vec<Option<u64>> = depot.boxes.iter().map(|b| b.quantity).collect();
    let mut best: Option<Packing> = None;
    // Heavy units first when they must not rest on lighter ones.
    let heavy = (Order::Weight, Merit::ContactTall);
    // Units nothing may rest on also go last, on top of the others, in the second start.
    let on_top = units.iter().any(|&k| ctx.kinds[k as usize].no_load);
    let configs = p
        .rules
        .heavy_bottom
        .then_some((heavy, false))
        .into_iter()
        .chain(CONFIGS.iter().take(1).map(|&c| (c, false)))
        .chain(on_top.then_some((CONFIGS[0], true)))
        .chain(CONFIGS.iter().skip(1).map(|&c| (c, false)));
    let bound = lower_bound(units, depot, ctx);
    let count_goal = !matches!(p.goal, Goal::LowestCost | Goal::BestFit);
    for (i, ((order, merit), last)) in configs.enumerate() {
        // Past the first start, more starts only while they are cheap next to the budget and
        // the best one is not provably optimal.
        let optimal = best
            .as_ref()
            .is_some_and(|b| count_goal && b.leftover.is_empty() && b.bins.len() <= bound);
        if i > 0 && (optimal || ctx.work.get() - start > budget / 32 || ctx.exhausted())
            || ctx.beaten()
        {
            break;
        }
        let mut sorted = units.to_vec();
        sort_units(&mut sorted, ctx.kinds, order);
        if last {
            no_load_last(&mut sorted, ctx.kinds);
        }
        let mut left = quantities.clone();
        let (bins, leftover) = build(
            &sorted,
            &depot.boxes,
            &mut left,
            ctx,
            p.goal,
            merit,
            Effort {
                tries: MERITS.len(),
                restarts: p.restarts,
                seed: seed ^ i as u64,
            },
        );
        let cand = Packing {
            bins,
            leftover,
            left,
        };
        let s = score(&cand.bins, cand.leftover.len(), &depot.boxes, p.goal);
        let beats =
            |b: &Packing| better(&s, &score(&b.bins, b.leftover.len(), &depot.boxes, p.goal));
        if best.as_ref().is_none_or(beats) {
            best = Some(cand);
        }
    }
    let mut pk = best.unwrap_or(Packing {
        bins: Vec::new(),
        leftover: units.to_vec(),
        left: quantities,
    });
    let search = Search {
        ctx,
        boxes: &depot.boxes,
        goal: p.goal,
        stop_at: (start + budget).min(ctx.limit),
        patience: p.patience,
        restarts: (p.restarts / 2).min(SEARCH_RESTARTS),
        idle_work: (p.patience as u64 / 12).max(2) * (ctx.work.get() - start).max(1),
        lower_bound: bound,
    };
    search.run(&mut pk, seed);
    let optimal = count_goal && pk.leftover.is_empty() && pk.bins.len() <= bound;
    if ctx.beaten() {
        // Another variant won the race: this packing is thrown away.
        return (pk, false);
    }
    search.downsize(&mut pk);
    if p.goal == Goal::BalancedWeight {
        for bin in &mut pk.bins {
            balance_bin(bin, depot, ctx);
        }
    }
    (pk, optimal)
}

/// Distance of a box's centre of gravity from its floor centre, relative to the floor size.
fn imbalance(bin: &Bin, ctx: &Ctx) -> f64 {
    let mut w = 0.0;
    let mut c = [0.0f64; 2];
    for q in &bin.placed {
        let m = ctx.kinds[q.kind as usize].weight.max(1) as f64;
        c[0] += m * (q.c.pos[0] as f64 + q.c.dim[0] as f64 / 2.0);
        c[1] += m * (q.c.pos[2] as f64 + q.c.dim[2] as f64 / 2.0);
        w += m;
    }
    if w == 0.0 {
        return 0.0;
    }
    let dx = (c[0] / w - bin.size[0] as f64 / 2.0) / bin.size[0] as f64;
    let dz = (c[1] / w - bin.size[2] as f64 / 2.0) / bin.size[2] as f64;
    dx.abs() + dz.abs()
}

/// Tries each construction of the box's units and keeps the best balanced one, centred.
fn balance_bin(bin: &mut Bin, depot: &Depot, ctx: &Ctx) {
    balance::center_load(bin, ctx.kinds);
    let units: Vec<u32> = bin.placed.iter().map(|q| q.kind).collect();
    let bk = &depot.boxes[bin.box_kind];
    let mut best = imbalance(bin, ctx);
    for config in CONFIGS {
        if let Some(mut alt) = repack_with(&units, bin.box_kind, bk, ctx, config) {
            balance::center_load(&mut alt, ctx.kinds);
            let s = imbalance(&alt, ctx);
            if s < best - 1e-12 {
                best = s;
                *bin = alt;
            }
        }
    }
}

/// Why a unit that some box could take was left out: hazmat when a package it could have
/// joined holds a class it must be segregated from, else the boxes ran out.
pub(crate) fn leftover_reason(k: u32, bins: &[Bin], ctx: &Ctx) -> UnfitReason {
    let Some(mine) = &ctx.kinds[k as usize].hazmat else {
        return UnfitReason::NoBoxAvailable;
    };
    let blocked = bins.iter().flat_map(|b| &b.placed).any(|q| {
        let other = &ctx.kinds[q.kind as usize].hazmat;
        other.as_ref().is_some_and(|o| !hazmat::compatible(mine, o))
    });
    if blocked {
        UnfitReason::HazmatRestriction
    } else {
        UnfitReason::NoBoxAvailable
    }
}
