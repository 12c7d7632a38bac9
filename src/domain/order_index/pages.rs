//! The per-status sets of list pages: for each order status, which id ranks have it, as
//! [`RankBits`], so newest-first pages at any offset walk memory instead of sled.

use storage::OrderStatus;

use super::rank_bits::RankBits;

/// The slot of each status in [`StatusPages`] and in an entry's `status` byte.
pub(super) fn slot(s: OrderStatus) -> usize {
    match s {
        OrderStatus::Pending => 0,
        OrderStatus::Processing => 1,
        OrderStatus::Shipped => 2,
        OrderStatus::Delivered => 3,
        OrderStatus::Cancelled => 4,
    }
}

/// The status of each slot.
pub(super) const STATUSES: [OrderStatus; 5] = [
    OrderStatus::Pending,
    OrderStatus::Processing,
    OrderStatus::Shipped,
    OrderStatus::Delivered,
    OrderStatus::Cancelled,
];

/// Per status (index [`slot`]), which ranks have it: sled's backward iteration costs a
/// page lookup and key copies per entry (it would dominate the status list). Five bits per
/// order.
#[derive(Default)]
pub(super) struct StatusPages {
    pub(super) by_status: [RankBits; 5],
}

impl StatusPages {
    /// A new order at `rank` (shifting the ranks above it) with the status of `slot`.
    pub(super) fn insert(&mut self, rank: usize, slot: usize) {
        for (s, bits) in self.by_status.iter_mut().enumerate() {
            bits.insert(rank, s == slot);
        }
    }

    /// The order at `rank` moves from status slot `from` to `to`.
    pub(super) fn moved(&mut self, rank: usize, from: usize, to: usize) {
        self.by_status[from].set(rank, false);
        self.by_status[to].set(rank, true);
    }

    /// Ranks `from..` of one status or all (`orders` of them), highest first, after
    /// skipping `offset`, at most `limit`; and how many there are. Skipped orders cost a
    /// bit each (a word per 64 when they are all skipped).
    pub(super) fn descending(
        &self,
        status: Option<OrderStatus>,
        orders: usize,
        from: usize,
        offset: usize,
        limit: usize,
    ) -> (Vec<usize>, usize) {
        match status {
            Some(s) => {
                let bits = &self.by_status[slot(s)];
                (bits.descending(from, offset, limit), bits.count_from(from))
            }
            None => {
                let top = orders.saturating_sub(offset);
                let ranks: Vec<usize> = (from.min(top)..top).rev().take(limit).collect();
                (ranks, orders - from)
            }
        }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        for bits in &mut self.by_status {
            bits.shrink_to_fit();
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.by_status.iter().map(RankBits::heap_bytes).sum()
    }
}
