//! The order list: its filters, and pages of it answered from the in-memory order index.

use storage::OrderStatus;

use super::order_index::OrderSearch;

/// Filters of the order list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<OrderStatus>,
    pub q: Option<String>,
    /// Orders created at or after this time (unix ms).
    pub from_ms: Option<i64>,
}

/// The smallest UUIDv7 of a millisecond: ids at or above it were created then or later.
fn id_floor(ms: i64) -> u128 {
    (u128::from(ms.max(0) as u64) << 80) | (0x7u128 << 76)
}

/// A page of orders, newest first, as (id, updated_at_ms), and the number of matches.
/// Everything comes from the in-memory index (substring search with `q`, the per-status
/// id sets without it), so skipped entries are never read; the caller reads (or finds
/// rendered) only the page's records.
pub fn page(
    search: &OrderSearch,
    f: &Filter,
    limit: usize,
    offset: usize,
) -> (Vec<(u128, i64)>, u64) {
    let floor = f.from_ms.map(id_floor);
    match &f.q {
        Some(q) => {
            let hits: Vec<(u128, i64)> = search
                .find(q)
                .into_iter()
                .filter(|h| f.status.is_none_or(|s| s == h.status))
                .filter(|h| f.from_ms.is_none_or(|ms| h.created_ms >= ms))
                .map(|h| (h.id, h.updated_ms))
                .collect();
            let total = hits.len() as u64;
            (hits.into_iter().skip(offset).take(limit).collect(), total)
        }
        None => search.page(f.status, floor, offset, limit),
    }
}
