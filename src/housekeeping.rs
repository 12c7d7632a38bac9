//! Periodic upkeep that no request waits for: pruning idempotency records past their TTL
//! and delivered or failed webhook deliveries past their retention (hourly), outbox events
//! every subscription has taken (every ten minutes), refreshing the database size that
//! `/health` reports and returning free heap to the kernel (every minute).

use std::sync::Arc;
use std::time::Duration;

use crate::http::{idempotency, App};
use crate::shutdown::Shutdown;

pub async fn run(app: Arc<App>, mut shutdown: Shutdown) {
    let mut tick = tokio::time::interval(Duration::from_secs(60));
    let mut minutes = 0u64;
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = tick.tick() => {}
        }
        app.refresh_disk_bytes();
        // Free heap left by bursts (list pages, imports, sled's node copies) goes back to
        // the kernel: ~20 MB of resident memory at a million orders, a few ms of work.
        let _ = tokio::task::spawn_blocking(crate::memory::trim).await;
        minutes += 1;
        if minutes % 10 == 0 {
            // Fan-out keeps up within seconds; every ten minutes keeps the outbox small
            // without adding deletes to every burst of orders.
            let store = app.store.clone();
            match tokio::task::spawn_blocking(move || {
                crate::webhooks::dispatch::prune_fanned_out(&store)
            })
            .await
            {
                Ok(Ok(n)) if n > 0 => {
                    tracing::info!(removed = n, "pruned fanned-out outbox events")
                }
                Ok(Err(e)) => tracing::warn!(error = %e, "pruning fanned-out outbox events failed"),
                _ => {}
            }
        }
        if minutes % 60 != 1 {
            continue;
        }
        let ttl = app.config.idempotency_ttl.as_secs() as i64;
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let store = app.store.clone();
        match tokio::task::spawn_blocking(move || idempotency::prune(&store, ttl, now)).await {
            Ok(Ok(n)) if n > 0 => tracing::info!(removed = n, "pruned idempotency records"),
            Ok(Err(e)) => tracing::warn!(error = %e, "pruning idempotency records failed"),
            _ => {}
        }
        let store = app.store.clone();
        let cutoff = now * 1000 - app.config.webhook_retention.as_millis() as i64;
        match tokio::task::spawn_blocking(move || crate::webhooks::store::prune(&store, cutoff))
            .await
        {
            Ok(Ok(n)) if n > 0 => tracing::info!(removed = n, "pruned webhook deliveries"),
            Ok(Err(e)) => tracing::warn!(error = %e, "pruning webhook deliveries failed"),
            _ => {}
        }
        let store = app.store.clone();
        match tokio::task::spawn_blocking(move || {
            crate::webhooks::dispatch::prune_outbox(&store, cutoff)
        })
        .await
        {
            Ok(Ok(n)) if n > 0 => tracing::info!(removed = n, "pruned delivered outbox events"),
            Ok(Err(e)) => tracing::warn!(error = %e, "pruning the outbox failed"),
            _ => {}
        }
    }
}
