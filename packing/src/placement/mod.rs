//! Placement of units inside one box: extreme points as candidate positions, every allowed turn
//! tried at each, hard rules (inside, no overlap, support, stacking, weight, segregation)
//! checked exactly, and a merit choosing among the feasible candidates.

mod bin;
mod points;

pub(crate) use bin::{all_rest, Bin, Placed};

use crate::problem::{Kind, Rules};
use crate::race::Race;
use std::cell::Cell;

/// How the best of the feasible candidates in one box is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merit {
    /// Lowest, then rearmost (smallest z), then leftmost; earlier turns first. The plain rule.
    Lowest,
    /// As `Lowest`, but among turns at one position the tallest first: a unit standing on its
    /// smallest face leaves the most floor, and floor is where full support is easy.
    LowestTall,
    /// Most face contact with walls, floor and other units; then as `Lowest`.
    Contact,
    /// As `Contact`, ties going to the tallest turn.
    ContactTall,
    /// Point first: the lowest candidate position takes the first unit (in the given order)
    /// that fits there, turned as under `ContactTall`.
    Spaces,
}

/// What every placement decision needs to see: the unit kinds, the request-wide rules, a
/// counter of candidate evaluations, which is the deterministic unit of the work budget, and
/// the race this packing runs in, if any.
pub(crate) struct Ctx<'a> {
    pub kinds: &'a [Kind],
    pub rules: &'a Rules,
    pub work: Cell<u64>,
    pub race: Option<&'a Race>,
    /// Work the whole request may spend (every pass and search together); `u64::MAX` for
    /// contexts of their own (tests, sub-packings charged to a request's context).
    pub limit: u64,
}

impl<'a> Ctx<'a> {
    pub fn new(kinds: &'a [Kind], rules: &'a Rules) -> Self {
        Ctx {
            kinds,
            rules,
            work: Cell::new(0),
            race: None,
            limit: u64::MAX,
        }
    }

    /// Whether the request has spent all the work it may: no further pass starts, and
    /// searches stop.
    pub fn exhausted(&self) -> bool {
        self.work.get() >= self.limit
    }

    /// Whether no further pass should start: another variant has won, or the budget is spent.
    pub fn done(&self) -> bool {
        self.beaten() || self.exhausted()
    }

    /// Whether another variant of the race finished unbeatable with less work than this
    /// packing has spent: this one can no longer win.
    pub fn beaten(&self) -> bool {
        self.race.is_some_and(|r| self.work.get() > r.settled())
    }

    pub fn spend(&self, n: u64) {
        self.work.set(self.work.get() + n);
    }
}
