//! A deterministic portfolio: the same request packed with different search seeds, the best
//! packing kept by the request's goal. Variants are pure functions of (request, variant), and
//! the choice between two packings depends only on them, ties going to the lower variant.
//! Run as a [`Race`], a variant stops once another one finished provably optimal with less
//! work, and the first such by work wins; so a caller racing variants on several threads
//! gets the same answer as [`pack_portfolio`] on one thread.

use crate::engine::{self, Solved};
use crate::error::{Error, Result};
use crate::model::{Goal, PackRequest};
use crate::problem;
use crate::race::Race;
use crate::solution::PackSolution;
use crate::validate::validate;

/// Packs `req` as variant `variant` of the portfolio: variant 0 is [`crate::pack`], the others
/// search from other seeds with the same budget. Validated like [`crate::pack`].
pub fn pack_variant(req: &PackRequest, variant: u32) -> Result<PackSolution> {
    solve_checked(req, variant as u64)
}

/// Ranking of a packing under `goal`, smaller first: units packed first, then the goal's own
/// measure, then packages and box volume.
fn rank(sol: &PackSolution, goal: Goal) -> (i64, f64, f64, f64) {
    let packed = -(sol.summary.total_items_packed as i64);
    let n = sol.summary.total_packages as f64;
    let volume: f64 = sol
        .packages
        .iter()
        .map(|p| {
            let d = p.box_dimensions;
            d.width * d.height * d.length
        })
        .sum();
    let cost = sol.summary.total_cost;
    let warehouses = sol.summary.warehouses_used.len() as f64;
    match goal {
        Goal::LowestCost => (packed, cost, n, volume),
        Goal::BestFit => (packed, volume, n, cost),
        Goal::FewestWarehouses => (packed, warehouses, n, volume),
        Goal::FewestPackages | Goal::BalancedWeight => (packed, n, volume, cost),
    }
}

/// The better of two packings of `req` under its goal (the instructions' goal if they set
/// one); `a` on ties. Errors only when the request itself is invalid.
pub fn better_solution(
    req: &PackRequest,
    a: PackSolution,
    b: PackSolution,
) -> Result<PackSolution> {
    let goal = problem::build(req)?.goal;
    let (ra, rb) = (rank(&a, goal), rank(&b, goal));
    let b_wins = match ra.0.cmp(&rb.0) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => {
            let pairs = [(ra.1, rb.1), (ra.2, rb.2), (ra.3, rb.3)];
            pairs
                .iter()
                .find(|(x, y)| (x - y).abs() > 1e-9 * (1.0 + x.abs().max(y.abs())))
                .is_some_and(|(x, y)| y < x)
        }
    };
    Ok(if b_wins { b } else { a })
}

/// One variant's result in a [`Race`], for [`race_winner`].
#[derive(Debug)]
pub struct Entry(Option<(PackSolution, Option<u64>)>);

impl Entry {
    /// Whether the variant stopped because another one had won.
    pub fn beaten(&self) -> bool {
        self.0.is_none()
    }
}

/// Packs `req` as variant `variant` of `race`: like [`pack_variant`], but it stops as soon
/// as another variant of the race finished provably optimal with less work (the same
/// request and budget give the same winner whatever runs first, see [`race_winner`]).
pub fn pack_racing(req: &PackRequest, variant: u32, race: &Race) -> Result<Entry> {
    match engine::solve_in(req, variant as u64, Some(race))? {
        Solved::Packed(sol, settled) => Ok(Entry(Some((checked(req, sol)?, settled)))),
        Solved::Beaten => Ok(Entry(None)),
    }
}

/// The answer of a race whose entries are given in variant order: the provably optimal
/// packing found with the least work (the lower variant on ties), else the best by
/// [`better_solution`], folded in variant order.
pub fn race_winner(req: &PackRequest, entries: Vec<Entry>) -> Result<PackSolution> {
    let mut first: Option<(u64, PackSolution)> = None;
    let mut packed = Vec::new();
    for (sol, settled) in entries.into_iter().flat_map(|e| e.0) {
        match settled {
            Some(w) if first.as_ref().is_none_or(|(f, _)| w < *f) => first = Some((w, sol)),
            Some(_) => {}
            None => packed.push(sol),
        }
    }
    if let Some((_, sol)) = first {
        return Ok(sol);
    }
    let mut packed = packed.into_iter();
    let best = packed
        .next()
        .ok_or_else(|| Error::Internal("every variant of the race was beaten".into()))?;
    packed.try_fold(best, |a, b| better_solution(req, a, b))
}

/// Races variants `0..k` of `req` one after the other (see [`race_winner`]). `k` = 1 is
/// [`crate::pack`].
pub fn pack_portfolio(req: &PackRequest, k: u32) -> Result<PackSolution> {
    let race = Race::new();
    let entries = (0..k.max(1))
        .map(|v| pack_racing(req, v, &race))
        .collect::<Result<Vec<_>>>()?;
    race_winner(req, entries)
}

/// Runs the engine with search seed `variant` and validates the result (see [`crate::pack`]).
fn solve_checked(req: &PackRequest, variant: u64) -> Result<PackSolution> {
    checked(req, engine::solve(req, variant)?)
}

/// `sol` if it passes [`validate`] for `req`, else an internal error naming what failed.
fn checked(req: &PackRequest, sol: PackSolution) -> Result<PackSolution> {
    match validate(req, &sol) {
        Ok(()) => Ok(sol),
        Err(v) => {
            let first: Vec<String> = v.iter().take(3).map(|v| v.to_string()).collect();
            Err(Error::Internal(first.join("; ")))
        }
    }
}
