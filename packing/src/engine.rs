//! The packing pipeline: check and normalise the request, assign units to warehouses, pack
//! each warehouse's share (`depot.rs`, or `large.rs` for orders of blocks), move units between
//! warehouses and merge small packings while budget lasts, and assemble the response.

use crate::assemble::{assemble, Plan};
use crate::depot::{leftover_reason, lower_bound, pack_depot};
use crate::error::Result;
use crate::large;
use crate::merge;
use crate::model::PackRequest;
use crate::placement::{Bin, Ctx};
use crate::problem::{self, Problem};
use crate::race::Race;
use crate::select;
use crate::shift;
use crate::solution::PackSolution;
use crate::solution::UnfitReason;

/// Boxes per warehouse and the units left out of them, for units split as `split`.
type Plan2 = (Vec<Vec<Bin>>, Vec<(u32, UnfitReason)>);

/// Packs each warehouse's share of `split` (see [`solve`]); true when every warehouse's
/// packing is provably optimal (then so is the plan, for this split).
fn pack_split(p: &Problem, ctx: &Ctx, split: &[Vec<u32>], variant: u64) -> (Plan2, bool) {
    let busy = split.iter().filter(|u| !u.is_empty()).count().max(1) as u64;
    let mut optimal = true;
    let mut unfitted = Vec::new();
    let mut bins = Vec::with_capacity(p.depots.len());
    for (w, units) in split.iter().enumerate() {
        if units.is_empty() {
            bins.push(Vec::new());
            continue;
        }
        let ((pk, left), done) = pack_one(p, ctx, w, units, p.budget / busy, variant);
        optimal &= done;
        unfitted.extend(left);
        bins.push(pk);
    }
    ((bins, unfitted), optimal)
}

/// Packs warehouse `w`'s `units` within `budget`; true when provably optimal.
fn pack_one(
    p: &Problem,
    ctx: &Ctx,
    w: usize,
    units: &[u32],
    budget: u64,
    variant: u64,
) -> (shift::Part, bool) {
    let seed = 0x9E37_79B9
        ^ (units.len() as u64) << 20
        ^ w as u64
        ^ variant.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let depot = &p.depots[w];
    let engine = large::Engine {
        pack: &|c, u, b, s| pack_depot(p, c, depot, u, b, s).0,
        bound: &|c, u| lower_bound(u, depot, c),
    };
    let (pk, done) = match large::pack(p, ctx, depot, units, budget, seed, &engine) {
        // The bound of the pieces is no bound of the units: never optimal here.
        Some(pk) => (pk, false),
        // Units fill the gaps pieces cannot when blocks leave some piece out.
        None => pack_depot(p, ctx, depot, units, budget, seed),
    };
    let left = pk
        .leftover
        .iter()
        .map(|&k| (k, leftover_reason(k, &pk.bins, ctx)))
        .collect();
    ((pk.bins, left), done)
}

/// Ranking of a plan under a package goal, smaller first: units left out, boxes, box volume.
fn plan_rank(plan: &Plan2, p: &Problem) -> (usize, usize, i128) {
    let boxes = plan.0.iter().map(Vec::len).sum();
    let volume = plan
        .0
        .iter()
        .enumerate()
        .flat_map(|(w, bins)| {
            bins.iter()
                .map(move |b| p.depots[w].boxes[b.box_kind].volume)
        })
        .sum();
    (plan.1.len(), boxes, volume)
}

/// How many times the request's patience the harder search of small orders gets when the
/// first packings stay above the bound over every split (BENCHMARKS.md, session 10).
const HARD_PATIENCE: usize = 16;
/// Search seeds the harder search tries per split.
const HARD_SEEDS: u64 = 2;
/// Budgets the moves between warehouses ([`shift`]) may spend over all splits together.
const SHIFT_BUDGETS: u64 = 6;

/// `split`, packed as `bins` with every unit in, after [`shift::refine`] while two more
/// budgets last (each warehouse packed again at the request's patience).
fn shifted(
    p: &Problem,
    ctx: &Ctx,
    split: &[Vec<u32>],
    bins: Vec<Vec<Bin>>,
    variant: u64,
    hard: bool,
) -> Plan2 {
    let busy = split.iter().filter(|u| !u.is_empty()).count().max(1) as u64;
    let pack = |w: usize, units: &[u32]| pack_one(p, ctx, w, units, p.budget / busy, variant).0;
    let harder = Problem {
        patience: p.patience * HARD_PATIENCE,
        ..p.clone()
    };
    let pack_hard =
        |w: usize, units: &[u32]| pack_one(&harder, ctx, w, units, p.budget / busy, variant).0;
    let mut split = split.to_vec();
    let mut parts: Vec<shift::Part> = bins.into_iter().map(|b| (b, Vec::new())).collect();
    let start = ctx.work.get();
    let spent = || ctx.work.get() - start > 2 * p.budget || ctx.done();
    let pack_hard: Option<shift::Packer> = hard.then_some(&pack_hard);
    shift::refine(p, &mut split, &mut parts, &pack, pack_hard, &spent);
    let mut unfitted = Vec::new();
    let bins = parts
        .into_iter()
        .map(|(b, left)| {
            unfitted.extend(left);
            b
        })
        .collect();
    (bins, unfitted)
}

/// Packs two boxes of a warehouse into one ([`merge`]) where the warehouse is above its own
/// bound, while one more budget lasts.
fn merged(p: &Problem, ctx: &Ctx, bins: &mut [Vec<Bin>]) {
    let stop_at = (ctx.work.get() + p.budget).min(ctx.limit);
    for (w, wb) in bins.iter_mut().enumerate() {
        let depot = &p.depots[w];
        let units: Vec<u32> = wb
            .iter()
            .flat_map(|b| b.placed.iter().map(|q| q.kind))
            .collect();
        if wb.len() < 2 || wb.len() <= lower_bound(&units, depot, ctx) {
            continue;
        }
        let mut left: Vec<Option<u64>> = depot.boxes.iter().map(|b| b.quantity).collect();
        for b in wb.iter() {
            if let Some(q) = &mut left[b.box_kind] {
                *q -= 1;
            }
        }
        merge::merge_pairs(wb, &depot.boxes, &mut left, ctx, stop_at);
    }
}

/// What a variant of a race came to: its plan (and the work after which it was provably
/// optimal, if it was), or nothing when another variant settled the race with less work.
pub(crate) enum Solved {
    Packed(PackSolution, Option<u64>),
    Beaten,
}

/// The whole pipeline (see the module comment); `variant` 0 is the packing [`crate::pack`]
/// returns, others search from other seeds.
pub(crate) fn solve(req: &PackRequest, variant: u64) -> Result<PackSolution> {
    match solve_in(req, variant, None)? {
        Solved::Packed(sol, _) => Ok(sol),
        Solved::Beaten => unreachable!("a packing outside a race is never beaten"),
    }
}

/// [`solve`] as a variant of `race`. When the warehouse choice is a close call, the close
/// splits are packed in full and the best kept.
pub(crate) fn solve_in(req: &PackRequest, variant: u64, race: Option<&Race>) -> Result<Solved> {
    let p = problem::build(req)?;
    let mut ctx = Ctx::new(&p.kinds, &p.rules);
    ctx.race = race;
    ctx.limit = p.total;
    let Some((plan, optimal)) = best_plan(&p, &ctx, variant) else {
        return Ok(Solved::Beaten);
    };
    let settled = optimal.then(|| ctx.work.get());
    if let (Some(r), Some(w)) = (race, settled) {
        r.settle(w);
    }
    Ok(Solved::Packed(assemble(req, &p, &plan), settled))
}

/// The best plan of `p` the passes find within `ctx`'s limit (see the module comment), and
/// whether it is provably optimal; `None` when another variant of the race has won.
fn best_plan(p: &Problem, ctx: &Ctx, variant: u64) -> Option<(Plan, bool)> {
    let assignment = select::assign(p);
    let (mut best, alone) = pack_split(p, ctx, &assignment.units, variant);
    let mut best_split = &assignment.units;
    let boxes = |plan: &Plan2| plan.0.iter().map(Vec::len).sum::<usize>();
    for other in &assignment.others {
        if best.1.is_empty() && boxes(&best) <= assignment.floor || ctx.done() {
            break;
        }
        let (cand, _) = pack_split(p, ctx, other, variant);
        if plan_rank(&cand, p) < plan_rank(&best, p) {
            best = cand;
            best_split = other;
        }
    }
    // A small order from several warehouses still above the bound over every split (the
    // bound is loose where a single warehouse's packing is hard, as on MPV, and a harder
    // search there costs more than it gains): search harder, on the splits packed so far and
    // then on the farther ones, while two more budgets last.
    let above = |plan: &Plan2| !plan.1.is_empty() || plan_rank(plan, p).1 > assignment.floor;
    if assignment.floor > 0 && p.depots.len() > 1 && above(&best) {
        let splits: Vec<&Vec<Vec<u32>>> = std::iter::once(&assignment.units)
            .chain(&assignment.others)
            .chain(&assignment.far)
            .collect();
        let hard = Problem {
            patience: p.patience * HARD_PATIENCE,
            budget: p.budget,
            ..p.clone()
        };
        let start = ctx.work.get();
        for &split in &splits {
            if !above(&best) || ctx.work.get() - start > 2 * p.budget || ctx.done() {
                break;
            }
            for seed in 0..HARD_SEEDS {
                let (cand, _) = pack_split(&hard, ctx, split, variant ^ seed << 32);
                if plan_rank(&cand, p) < plan_rank(&best, p) {
                    best = cand;
                    best_split = split;
                }
            }
        }
        // Then moves between warehouses judged by full packings, from the best split and from
        // each split ranked before, while SHIFT_BUDGETS more budgets last.
        if above(&best) && best.1.is_empty() && !ctx.done() {
            best = shifted(p, ctx, best_split, best.0, variant, false);
        }
        let start = ctx.work.get();
        for split in splits {
            if !above(&best) || ctx.work.get() - start > SHIFT_BUDGETS * p.budget || ctx.done() {
                break;
            }
            let (cand, _) = pack_split(p, ctx, split, variant);
            if !cand.1.is_empty() {
                continue;
            }
            let cand = shifted(p, ctx, split, cand.0, variant, false);
            if plan_rank(&cand, p) < plan_rank(&best, p) {
                best = cand;
            }
        }
        // Last, the moves from the best plan where a move one box short gets the harder
        // search on the receiving warehouse (after the others, whose budget it would eat).
        if above(&best) && best.1.is_empty() && !ctx.done() {
            let split: Vec<Vec<u32>> = best
                .0
                .iter()
                .map(|bins| {
                    let mut u: Vec<u32> = bins
                        .iter()
                        .flat_map(|b| b.placed.iter().map(|q| q.kind))
                        .collect();
                    u.sort_unstable();
                    u
                })
                .collect();
            best = shifted(p, ctx, &split, best.0, variant, true);
        }
    }
    if assignment.floor > 0 && above(&best) && best.1.is_empty() && !ctx.done() {
        merged(p, ctx, &mut best.0);
    }
    if ctx.beaten() {
        return None;
    }
    // No variant packs more units or in fewer boxes: the only split there is is optimally
    // packed, or the packing meets the bound over every split.
    let only = assignment.others.is_empty() && assignment.far.is_empty();
    let optimal = best.1.is_empty() && (alone && only || boxes(&best) <= assignment.floor);
    let (bins, found) = best;
    let mut unfitted = assignment.unfitted;
    unfitted.extend(found);
    Some((Plan { bins, unfitted }, optimal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_time_limit_caps_every_pass_together() {
        // Cart 205 (51 units from three warehouses) stays above its bound, so after the first
        // pass come the close splits, the harder search and the moves between warehouses, each
        // with a whole budget: left to themselves they spend many times the named limit.
        let mut req = crate::carts::cart(205);
        req.options.time_limit_ms = Some(20);
        let p = problem::build(&req).unwrap();
        let unlimited = Ctx::new(&p.kinds, &p.rules);
        let (free, _) = best_plan(&p, &unlimited, 0).expect("no race");
        assert!(
            unlimited.work.get() > 3 * p.total,
            "{}",
            unlimited.work.get()
        );
        let mut ctx = Ctx::new(&p.kinds, &p.rules);
        ctx.limit = p.total;
        let (plan, _) = best_plan(&p, &ctx, 0).expect("no race");
        // A pass under way when the limit is reached stops at its next move.
        assert!(
            ctx.work.get() <= p.total + p.total / 10,
            "{}",
            ctx.work.get()
        );
        // Every unit a warehouse can ship is still packed.
        assert_eq!(plan.unfitted.len(), free.unfitted.len());
        let sol = crate::pack(&req).unwrap();
        assert!(crate::validate(&req, &sol).is_ok());
    }

    #[test]
    fn the_work_of_a_large_orders_blocks_counts_against_the_request() {
        // Large orders pack composite blocks under contexts of their own; the merge pass that
        // follows must see that work, or a named limit would allow it a second budget.
        let mut req = crate::pallets::large(3);
        req.options.time_limit_ms = Some(20);
        let p = problem::build(&req).unwrap();
        let mut ctx = Ctx::new(&p.kinds, &p.rules);
        ctx.limit = p.total;
        best_plan(&p, &ctx, 0).expect("no race");
        assert!(ctx.work.get() >= p.total, "{}", ctx.work.get());
        assert!(
            ctx.work.get() <= p.total + p.total / 10,
            "{}",
            ctx.work.get()
        );
    }

    #[test]
    fn a_cart_above_the_split_bound_gets_the_harder_search() {
        // Cart 208: the close splits packed at the request's patience need 3 boxes; the bound
        // over every split is 2, and the harder search finds 2.
        let req = crate::carts::cart(208);
        let p = problem::build(&req).unwrap();
        let ctx = Ctx::new(&p.kinds, &p.rules);
        let a = select::assign(&p);
        assert_eq!(a.floor, 2);
        let first = std::iter::once(&a.units)
            .chain(&a.others)
            .map(|s| plan_rank(&pack_split(&p, &ctx, s, 0).0, &p).1)
            .min();
        assert_eq!(first, Some(3));
        let sol = crate::pack(&req).unwrap();
        assert_eq!(sol.summary.total_packages, 2);
        assert!(crate::validate(&req, &sol).is_ok());
    }
}
