//! A race between portfolio variants of one request, packed side by side or one after the
//! other: the first provably optimal packing by work spent wins, and a variant that has spent
//! more than that stops, since it can no longer win. Work is counted, not timed, so the winner
//! depends only on the request, whichever variant runs first or faster.

use std::sync::atomic::{AtomicU64, Ordering};

/// What the variants of one request share while they pack: the least work after which one of
/// them finished with a packing no other can beat (`u64::MAX` until then).
#[derive(Debug)]
pub struct Race {
    settled: AtomicU64,
}

impl Race {
    pub fn new() -> Self {
        Race {
            settled: AtomicU64::new(u64::MAX),
        }
    }

    /// The least work after which a variant finished unbeatable so far.
    pub(crate) fn settled(&self) -> u64 {
        self.settled.load(Ordering::Relaxed)
    }

    /// A variant finished unbeatable after `work`.
    pub(crate) fn settle(&self, work: u64) {
        self.settled.fetch_min(work, Ordering::Relaxed);
    }
}

impl Default for Race {
    fn default() -> Self {
        Race::new()
    }
}
