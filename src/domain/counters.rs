//! The bookkeeping every stored change shares: the `Meta` counters that list pages and
//! `/health` read instead of counting, and the version rule of records (`updatedAt` moves
//! strictly forward, because rendered copies are cached under it).

use storage::tables::Meta;
use storage::{OrderRecord, OrderStatus, PackageStatus, Tx, TxFail};

/// Adds `delta` to the `Meta` counter `key` inside the caller's transaction.
pub(crate) fn bump(tx: &Tx<'_>, key: &str, delta: i64) -> Result<(), TxFail> {
    let key = key.to_string();
    let n = tx.get::<Meta>(&key)?.unwrap_or(0);
    tx.insert::<Meta>(&key, &n.saturating_add_signed(delta))
}

/// The `updated_at_ms` of the next write of a record last written at `previous`: `now`,
/// but always after the previous write.
pub(crate) fn next_version(previous: i64, now: i64) -> i64 {
    now.max(previous + 1)
}

/// The counter of orders (all, or of one status).
pub(crate) fn order_count(status: Option<OrderStatus>) -> String {
    match status {
        Some(s) => format!("orders:{}", s.as_str()),
        None => "orders".to_string(),
    }
}

/// Moves `o` to status `to` with its counters (the record is stored by the caller).
pub(crate) fn set_order_status(
    tx: &Tx<'_>,
    o: &mut OrderRecord,
    to: OrderStatus,
) -> Result<(), TxFail> {
    bump(tx, &order_count(Some(o.status)), -1)?;
    bump(tx, &order_count(Some(to)), 1)?;
    o.status = to;
    Ok(())
}

/// The counter of packages (all, or of one status).
pub(crate) fn package_count(status: Option<PackageStatus>) -> String {
    match status {
        Some(s) => format!("packages:{}", s.as_str()),
        None => "packages".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_always_moves_forward() {
        assert_eq!(next_version(100, 200), 200);
        assert_eq!(next_version(200, 200), 201);
        assert_eq!(next_version(500, 200), 501);
    }

    #[test]
    fn counter_keys_name_the_status() {
        assert_eq!(order_count(None), "orders");
        assert_eq!(order_count(Some(OrderStatus::Pending)), "orders:pending");
        assert_eq!(
            package_count(Some(PackageStatus::InTransit)),
            "packages:in_transit"
        );
    }
}
