//! Whether a warehouse's boxes can take one kind of unit on its own, and if not, why: the
//! first question of warehouse assignment, its lower bounds and the plain baseline.

use crate::problem::{Depot, Kind};
use crate::solution::UnfitReason;

/// How well a warehouse's boxes suit one kind, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Suit {
    TooLarge,
    TooHeavy,
    /// Fits a box kind, but none of those boxes is in stock.
    NoBox,
    Yes,
}

impl Suit {
    pub fn reason(self) -> UnfitReason {
        match self {
            Suit::TooLarge => UnfitReason::TooLarge,
            Suit::TooHeavy => UnfitReason::TooHeavy,
            Suit::NoBox | Suit::Yes => UnfitReason::NoBoxAvailable,
        }
    }
}

/// How the boxes of `depot` suit a unit of `kind` on its own.
pub(crate) fn suit(depot: &Depot, kind: &Kind) -> Suit {
    let mut best = Suit::TooLarge;
    for bk in &depot.boxes {
        if !kind
            .turns
            .iter()
            .any(|t| (0..3).all(|a| t.dim[a] <= bk.size[a]))
        {
            continue;
        }
        let s = if kind.weight > bk.cap {
            Suit::TooHeavy
        } else if bk.quantity == Some(0) {
            Suit::NoBox
        } else {
            Suit::Yes
        };
        best = best.max(s);
    }
    best
}
