//! Periodic upkeep that no request waits for: pruning idempotency records past their TTL
//! and delivered or failed webhook deliveries past their retention (hourly), outbox events
//! every subscription has taken (every ten minutes), refreshing the database size that
//! `/health` reports and returning free heap to the kernel (every minute).

use std::sync::Arc;
use std::time::Duration;

use storage::Store;

use crate::app::DiskGauge;
use crate::config::Config;
use crate::domain::idempotency;
use crate::shutdown::Shutdown;
use crate::webhooks::{self, outbox};

pub async fn run(store: Store, config: Arc<Config>, disk: DiskGauge, mut shutdown: Shutdown) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    let mut minutes = 0u64;
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = tick.tick() => {}
        }
        disk.refresh();
        // Free heap left by bursts (list pages, imports, sled's node copies) goes back to
        // the kernel: ~20 MB of resident memory at a million orders, a few ms of work.
        let _ = tokio::task::spawn_blocking(crate::memory::trim).await;
        minutes += 1;
        if minutes % 10 == 0 {
            // Fan-out keeps up within seconds; every ten minutes keeps the outbox small
            // without adding deletes to every burst of orders.
            prune(&store, "fanned-out outbox events", outbox::prune_fanned_out).await;
        }
        if minutes % 60 != 1 {
            continue;
        }
        let ttl = config.idempotency_ttl.as_secs() as i64;
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let cutoff = now * 1000 - config.webhook_retention.as_millis() as i64;
        prune(&store, "idempotency records", move |s| {
            idempotency::prune(s, ttl, now)
        })
        .await;
        prune(&store, "webhook deliveries", move |s| {
            webhooks::store::prune(s, cutoff)
        })
        .await;
        prune(&store, "delivered outbox events", move |s| {
            outbox::prune_outbox(s, cutoff)
        })
        .await;
    }
}

/// Runs one pruning pass off the async runtime and logs what it removed or why it failed.
async fn prune<F>(store: &Store, what: &'static str, pass: F)
where
    F: FnOnce(&Store) -> storage::Result<usize> + Send + 'static,
{
    let store = store.clone();
    match tokio::task::spawn_blocking(move || pass(&store)).await {
        Ok(Ok(n)) if n > 0 => tracing::info!(removed = n, "pruned {what}"),
        Ok(Err(e)) => tracing::warn!(error = %e, "pruning {what} failed"),
        _ => {}
    }
}
