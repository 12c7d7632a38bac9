//! A deterministic portfolio: the same request packed with different search seeds, the best
//! packing kept by the request's goal. Variants are pure functions of (request, variant), and
//! the choice between two packings depends only on them, ties going to the lower variant, so
//! a caller running variants on several threads and folding them in variant order gets the
//! same answer as [`pack_portfolio`] on one thread.

use crate::model::{Goal, PackRequest};
use crate::solution::PackSolution;
use crate::{problem, solve_checked, Result};

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

/// Packs `req` as variants `0..k` one after the other and keeps the best by
/// [`better_solution`], folded in variant order. `k` = 1 is [`crate::pack`].
pub fn pack_portfolio(req: &PackRequest, k: u32) -> Result<PackSolution> {
    let mut best = pack_variant(req, 0)?;
    for v in 1..k.max(1) {
        best = better_solution(req, best, pack_variant(req, v)?)?;
    }
    Ok(best)
}
