//! The bookkeeping every stored change shares: the `Meta` counters that list pages and
//! `/health` read instead of counting, and the version rule of records (`updatedAt` moves
//! strictly forward, because rendered copies are cached under it).

use storage::tables::{Meta, PackingJobs};
use storage::{OrderRecord, OrderStatus, PackageStatus, Store, Tx, TxFail};

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

/// The `Meta` counter of `PackingJobs` entries: the packing backlog `/metrics` reports
/// without walking the table.
pub(crate) const PACKING_JOBS: &str = "packing_jobs";

/// Queues order `id` for packing in the caller's transaction (once: a queued order stays
/// one job).
pub(crate) fn add_packing_job(tx: &Tx<'_>, id: u128) -> Result<(), TxFail> {
    if tx.contains::<PackingJobs>(&id)? {
        return Ok(());
    }
    new_packing_job(tx, id)
}

/// Queues a new order, which has no job yet, without reading the jobs: a sled read in
/// order creation's closure would hold the writer lock while a batch is applied.
pub(crate) fn new_packing_job(tx: &Tx<'_>, id: u128) -> Result<(), TxFail> {
    tx.insert::<PackingJobs>(&id, &())?;
    bump(tx, PACKING_JOBS, 1)
}

/// Consumes order `id`'s packing job in the caller's transaction; `false` if it had none.
pub(crate) fn take_packing_job(tx: &Tx<'_>, id: u128) -> Result<bool, TxFail> {
    if !tx.contains::<PackingJobs>(&id)? {
        return Ok(false);
    }
    tx.remove::<PackingJobs>(&id)?;
    bump(tx, PACKING_JOBS, -1)?;
    Ok(true)
}

/// Counts the packing jobs into [`PACKING_JOBS`] once, on a database that lacks the
/// counter (written by a build that did not keep it). Call at start, before anything else
/// writes: the count and the counter then describe the same state.
pub(crate) fn count_packing_jobs_once(store: &Store) -> storage::Result<()> {
    let key = PACKING_JOBS.to_string();
    if store.get::<Meta>(&key)?.is_some() {
        return Ok(());
    }
    let mut n = 0u64;
    for k in store.keys::<PackingJobs>() {
        k?;
        n += 1;
    }
    let stored = store.transact(|tx| {
        if tx.get::<Meta>(&key)?.is_none() {
            tx.insert::<Meta>(&key, &n)?;
        }
        Ok::<_, storage::Abort<std::convert::Infallible>>(())
    });
    match stored {
        Ok(()) => {
            tracing::info!(jobs = n, "packing backlog counted");
            Ok(())
        }
        Err(storage::TxError::Storage(e)) => Err(e),
        Err(storage::TxError::Aborted(never)) => match never {},
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
