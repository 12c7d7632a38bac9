//! Improvement phase of one warehouse's packing within a deterministic work budget: repack a
//! weak box with a few others, or move units out of a weak box, keeping changes that improve
//! the goal or concentrate the load (so the weakest box keeps emptying); then box downsizing.

use crate::construct::{
    build, fill, held_in_order, perturbed, repack_one, sort_units, Effort, Order, CONFIGS,
};
use crate::eject::eject;
use crate::floor;
use crate::levels;
use crate::model::Goal;
use crate::placement::{Bin, Ctx, Merit};
use crate::platform;
use crate::problem::BoxKind;
use crate::rng::SplitMix64;

/// Packs one box again with the given units: `(units, box kind index, box kind, ctx)`.
type Repack = fn(&[u32], usize, &BoxKind, &Ctx) -> Option<Bin>;

/// A packing of one warehouse's units under construction.
#[derive(Clone)]
pub(crate) struct Packing {
    pub bins: Vec<Bin>,
    /// Units no box could take.
    pub leftover: Vec<u32>,
    /// Boxes still available per box kind.
    pub left: Vec<Option<u64>>,
}

/// Lexicographic objective, smaller is better: units left out, then the goal's measure, then a
/// tie-break, then minus the sum of squared fill ratios (rewarding concentration).
pub(crate) type Score = (usize, f64, f64, f64);

pub(crate) fn score(bins: &[Bin], leftover: usize, boxes: &[BoxKind], goal: Goal) -> Score {
    let n = bins.len() as f64;
    let cost: f64 = bins.iter().map(|b| boxes[b.box_kind].cost).sum();
    let vol: f64 = bins.iter().map(|b| boxes[b.box_kind].volume as f64).sum();
    let sq: f64 = bins.iter().map(|b| b.fill_ratio().powi(2)).sum();
    match goal {
        Goal::LowestCost => (leftover, cost, n, -sq),
        Goal::BestFit => (leftover, vol, n, -sq),
        _ => (leftover, n, vol, -sq),
    }
}

/// Whether `a` is strictly better than `b`, float noise aside.
pub(crate) fn better(a: &Score, b: &Score) -> bool {
    const EPS: f64 = 1e-9;
    if a.0 != b.0 {
        return a.0 < b.0;
    }
    for (x, y) in [(a.1, b.1), (a.2, b.2), (a.3, b.3)] {
        if (x - y).abs() > EPS * (1.0 + x.abs().max(y.abs())) {
            return x < y;
        }
    }
    false
}

/// Search settings derived from the request.
pub(crate) struct Search<'a> {
    pub ctx: &'a Ctx<'a>,
    pub boxes: &'a [BoxKind],
    pub goal: Goal,
    /// Work counter value at which the search stops.
    pub stop_at: u64,
    /// No packing of these units can use fewer boxes (count goals stop there).
    pub lower_bound: usize,
    /// Moves without gain tolerated before the search ends, besides 10 per box.
    pub patience: usize,
    /// Randomised extra fills per box when a move packs units again.
    pub restarts: usize,
    /// Work without gain tolerated before the search ends: a multiple of what building the
    /// first packing cost, so large requests do not search for long when nothing improves.
    pub idle_work: u64,
}

/// Starting threshold of the threshold accepting in [`Search::run`], in sum of squared fill
/// ratios: about what moving an eighth of a box between two half-full boxes changes. Tuned on
/// the MPV set (0.01 and 0.05 did worse at default options, over three seeds).
const THRESHOLD: f64 = 0.03;

/// Box indices from the emptiest to the fullest.
fn by_fill(bins: &[Bin]) -> Vec<usize> {
    let fill: Vec<f64> = bins.iter().map(Bin::fill_ratio).collect();
    let mut order: Vec<usize> = (0..bins.len()).collect();
    order.sort_by(|&a, &b| fill[a].total_cmp(&fill[b]).then(a.cmp(&b)));
    order
}

/// A rank among `n` boxes ordered from the emptiest, biased to the empty end (the square of a
/// uniform draw) but reaching every box: the emptiest ones may be unremovable, like a box
/// holding one unit too large to share.
fn weak_pick(n: usize, rng: &mut SplitMix64) -> usize {
    let u = rng.unit();
    ((n as f64 * u * u) as usize).min(n - 1)
}

fn sum_sq(bins: &[Bin]) -> f64 {
    bins.iter().map(|b| b.fill_ratio().powi(2)).sum()
}

impl Search<'_> {
    fn out_of_time(&self) -> bool {
        self.ctx.work.get() >= self.stop_at
    }

    /// Runs the neighbourhood search on `pk` until the budget is spent, the lower bound is
    /// reached, or a long run of moves changed nothing.
    pub fn run(&self, pk: &mut Packing, seed: u64) {
        let mut rng = SplitMix64::new(seed);
        let count_goal = !matches!(self.goal, Goal::LowestCost | Goal::BestFit);
        let max_stall = self.patience + 10 * pk.bins.len();
        let mut stall = 0;
        let start = self.ctx.work.get();
        let mut last_gain = start;
        while !self.out_of_time() && stall < max_stall {
            if self.ctx.work.get() - last_gain > self.idle_work || self.ctx.beaten() {
                break;
            }
            if pk.leftover.is_empty() && count_goal && pk.bins.len() <= self.lower_bound {
                break;
            }
            if pk.bins.len() + pk.leftover.len().min(1) < 2 {
                break;
            }
            // Threshold accepting: early on, a repacking may spread the load a little (by at
            // most `slack` of the sum of squared fill ratios) as long as it needs no more
            // boxes; that walks the search out of the local optima where plain descent stalls.
            // The threshold shrinks to nothing as the budget runs out.
            let slack = if count_goal {
                let left = self.stop_at.saturating_sub(self.ctx.work.get()) as f64;
                THRESHOLD * left / self.stop_at.saturating_sub(start).max(1) as f64
            } else {
                0.0
            };
            let before = score(&pk.bins, pk.leftover.len(), self.boxes, self.goal);
            if rng.below(5) == 0 {
                self.evict(pk, &mut rng);
            } else {
                self.step(pk, &mut rng, slack);
            }
            // Only a strict gain resets the patience.
            let after = score(&pk.bins, pk.leftover.len(), self.boxes, self.goal);
            if better(&after, &before) {
                stall = 0;
                last_gain = self.ctx.work.get();
            } else {
                stall += 1;
            }
        }
    }

    /// One move: unpack a weak box and 1-3 others (leaning to weak ones), pack their units
    /// again in a perturbed order; kept when better, or when it needs no more (nor larger)
    /// boxes and loses less than `slack` of concentration. True when kept.
    fn step(&self, pk: &mut Packing, rng: &mut SplitMix64, slack: f64) -> bool {
        let n = pk.bins.len();
        let weak = by_fill(&pk.bins);
        let mut chosen: Vec<usize> = Vec::new();
        if n > 0 {
            chosen.push(weak[weak_pick(n, rng)]);
        }
        let extra = if n > 1 {
            1 + rng.below((n - 1).min(3))
        } else {
            0
        };
        while chosen.len() < 1 + extra {
            let b = if rng.below(2) == 0 {
                weak[rng.below(n.div_ceil(2))]
            } else {
                rng.below(n)
            };
            if !chosen.contains(&b) {
                chosen.push(b);
            }
        }
        chosen.sort_unstable();
        let old_bins: Vec<Bin> = chosen.iter().map(|&i| pk.bins[i].clone()).collect();
        let before = score(&old_bins, pk.leftover.len(), self.boxes, self.goal);
        let mut units: Vec<u32> = old_bins
            .iter()
            .flat_map(|b| b.placed.iter().map(|p| p.kind))
            .collect();
        units.extend(&pk.leftover);
        // Mostly the strong configurations (volume order), sometimes any.
        let pick = if rng.below(5) == 0 {
            rng.below(CONFIGS.len())
        } else {
            rng.below(4)
        };
        let (order, merit) = CONFIGS[pick];
        sort_units(&mut units, self.ctx.kinds, order);
        let units = perturbed(&units, rng);
        let mut left = pk.left.clone();
        for b in &old_bins {
            if let Some(q) = &mut left[b.box_kind] {
                *q += 1;
            }
        }
        let effort = Effort {
            tries: 1,
            restarts: self.restarts,
            seed: rng.next_u64(),
        };
        let (new_bins, rest) = build(
            &units, self.boxes, &mut left, self.ctx, self.goal, merit, effort,
        );
        let after = score(&new_bins, rest.len(), self.boxes, self.goal);
        const EPS: f64 = 1e-9;
        let sideways = after.0 == before.0
            && after.1 <= before.1 + EPS
            && after.2 <= before.2 + EPS * (1.0 + before.2.abs())
            && after.3 < before.3 + slack;
        if !better(&after, &before) && !sideways {
            return false;
        }
        for &i in chosen.iter().rev() {
            pk.bins.remove(i);
        }
        pk.bins.extend(new_bins);
        pk.leftover = rest;
        pk.left = left;
        true
    }

    /// Moves units out of one of the weakest boxes (or out of the leftovers) into other boxes:
    /// into free space where possible, else by packing the receiving box again with the unit
    /// added, else in the place of smaller units of a full box that move on ([`eject`]). Kept
    /// when the box empties, or when the load got more concentrated.
    fn evict(&self, pk: &mut Packing, rng: &mut SplitMix64) -> bool {
        let n = pk.bins.len();
        let snapshot = pk.clone();
        let victim = if pk.leftover.is_empty() {
            Some(by_fill(&pk.bins)[weak_pick(n, rng)])
        } else {
            None
        };
        let mut units: Vec<u32> = match victim {
            Some(v) => pk.bins[v].placed.iter().map(|p| p.kind).collect(),
            None => pk.leftover.clone(),
        };
        sort_units(&mut units, self.ctx.kinds, CONFIGS[0].0);
        let mut moved = Vec::new();
        for (ui, &k) in units.iter().enumerate() {
            let vol = self.ctx.kinds[k as usize].volume;
            let fill: Vec<f64> = pk.bins.iter().map(Bin::fill_ratio).collect();
            let mut targets: Vec<usize> = (0..n)
                .filter(|&b| Some(b) != victim && pk.bins[b].admits(k, self.ctx))
                .collect();
            targets.reverse();
            targets.sort_by(|&a, &b| fill[b].total_cmp(&fill[a]));
            let direct = targets
                .iter()
                .find_map(|&b| pk.bins[b].best(k, self.ctx, CONFIGS[0].1).map(|c| (b, c)));
            if let Some((b, c)) = direct {
                pk.bins[b].place(k, &c, self.ctx);
                moved.push(ui);
                continue;
            }
            // One of the six emptiest receivers packed again with the unit; then the same
            // boxes around a level stack: a thin plate fits many boxes only lying across a
            // stack's top, which the plain fill rarely leaves level; then around a platform of
            // units standing side by side, of one height, for the plate to lie on (only with
            // one box kind: on carts and pallets, with several, it cost packages); then on a
            // level floor of units of one height.
            let on_platform = self.boxes.len() == 1 && platform::plate(k, &self.boxes[0], self.ctx);
            let repacks: &[Repack] = if on_platform {
                &[repack_one, levels::repack, platform::repack, floor_repack]
            } else {
                &[repack_one, levels::repack]
            };
            'repacked: for repack in repacks {
                for &b in targets.iter().rev().take(6) {
                    let bk = pk.bins[b].box_kind;
                    if pk.bins[b].capacity() - pk.bins[b].volume < vol {
                        continue;
                    }
                    let mut with: Vec<u32> = pk.bins[b].placed.iter().map(|p| p.kind).collect();
                    with.push(k);
                    if let Some(bin) = repack(&with, bk, &self.boxes[bk], self.ctx) {
                        pk.bins[b] = bin;
                        moved.push(ui);
                        break 'repacked;
                    }
                }
            }
            if moved.last() != Some(&ui) {
                if let Some(v) = victim {
                    if eject(&mut pk.bins, v, k, &targets, self.ctx) {
                        moved.push(ui);
                    }
                }
            }
        }
        if moved.is_empty() {
            return false;
        }
        match victim {
            None => {
                pk.leftover = units
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !moved.contains(i))
                    .map(|(_, &k)| k)
                    .collect();
            }
            Some(v) if moved.len() == units.len() => {
                let bin = pk.bins.remove(v);
                if let Some(q) = &mut pk.left[bin.box_kind] {
                    *q += 1;
                }
            }
            Some(v) => {
                // Drop the moved units from the victim, matching them by kind.
                let mut gone: Vec<u32> = moved.iter().map(|&i| units[i]).collect();
                let keep: Vec<usize> = (0..pk.bins[v].placed.len())
                    .filter(|&i| {
                        let k = pk.bins[v].placed[i].kind;
                        match gone.iter().position(|&g| g == k) {
                            Some(at) => {
                                gone.swap_remove(at);
                                false
                            }
                            None => true,
                        }
                    })
                    .collect();
                match pk.bins[v].keep_only(&keep, self.ctx) {
                    Some(bin) => pk.bins[v] = bin,
                    None => {
                        *pk = snapshot;
                        return false;
                    }
                }
                if sum_sq(&pk.bins) <= sum_sq(&snapshot.bins) + 1e-12 {
                    *pk = snapshot;
                    return false;
                }
            }
        }
        true
    }

    /// Moves every box into the kind the goal likes best among those that still hold its units.
    pub fn downsize(&self, pk: &mut Packing) {
        let mut prefs: Vec<usize> = (0..self.boxes.len()).collect();
        let key = |b: usize| {
            let bk = &self.boxes[b];
            match self.goal {
                Goal::LowestCost => (bk.cost, bk.volume as f64),
                _ => (bk.volume as f64, bk.cost),
            }
        };
        prefs.sort_by(|&a, &b| {
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(&b))
        });
        for i in 0..pk.bins.len() {
            let cur = pk.bins[i].box_kind;
            let units: Vec<u32> = pk.bins[i].placed.iter().map(|p| p.kind).collect();
            for &b in prefs.iter().take_while(|&&b| b != cur) {
                if pk.left[b] == Some(0) || key(b) >= key(cur) {
                    continue;
                }
                if let Some(bin) = repack_one(&units, b, &self.boxes[b], self.ctx) {
                    if let Some(q) = &mut pk.left[cur] {
                        *q += 1;
                    }
                    if let Some(q) = &mut pk.left[b] {
                        *q -= 1;
                    }
                    pk.bins[i] = bin;
                    break;
                }
            }
        }
    }
}

/// Packs exactly `units` into one box of kind `bk` from a level floor (`floor.rs`); `None` when
/// every try leaves a unit out.
fn floor_repack(units: &[u32], b: usize, bk: &BoxKind, ctx: &Ctx) -> Option<Bin> {
    let order = held_in_order(units, bk, ctx, Order::Volume)?;
    let none = vec![false; order.len()];
    let merits = [Merit::ContactTall, Merit::Spaces];
    floor::fill_from_floor(b, bk, &order, &none, ctx, &merits, fill)
        .filter(|(_, got)| got.len() == order.len())
        .map(|(bin, _)| bin)
}
