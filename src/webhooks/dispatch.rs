//! Fan-out: outbox events become deliveries. A cursor in `Meta` holds the next outbox
//! sequence number to handle; each batch creates its deliveries and moves the cursor in
//! one transaction, so after a crash every event is fanned out exactly once.

use std::time::Duration;

use storage::tables::{Meta, Outbox};
use storage::{abort, Abort, Key, OutboxEvent, Store, TxError};

use super::sign::envelope;
use super::store::{all, insert_delivery, pending_delivery};
use super::Handle;
use crate::domain::time_fmt::now_ms;
use crate::shutdown::Shutdown;

/// Meta key of the next outbox sequence number to fan out.
pub const CURSOR: &str = "webhook_outbox_cursor";
const BATCH: usize = 256;
/// Envelope bytes one fan-out transaction may write, to keep commit batches small.
const BATCH_BYTES: usize = 1 << 20;
const POLL: Duration = Duration::from_millis(100);

/// Fans out one batch from `cursor` (the next sequence number to handle); returns how
/// many events it handled.
pub fn fan_out(store: &Store, cursor: &mut u64) -> storage::Result<usize> {
    let events = store
        .range::<Outbox, _>(cursor.encode()..)
        .take(BATCH)
        .collect::<storage::Result<Vec<(u64, OutboxEvent)>>>()?;
    if events.is_empty() {
        return Ok(0);
    }
    let hooks: Vec<_> = all(store)?.into_iter().filter(|h| h.is_active).collect();
    let now = now_ms();
    // Plan outside the transaction: the deliveries of as many events as fit the byte
    // budget (at least one event).
    let mut planned = Vec::new();
    let mut handled = 0;
    let mut bytes = 0;
    for (_, e) in &events {
        if handled > 0 && bytes > BATCH_BYTES {
            break;
        }
        handled += 1;
        let mut body: Option<String> = None;
        for h in &hooks {
            if e.seq <= h.created_seq || !h.events.contains(&e.kind) {
                continue;
            }
            let body = body
                .get_or_insert_with(|| envelope(&e.id, &e.kind, &e.timestamp, &e.data_json))
                .clone();
            bytes += body.len();
            planned.push(pending_delivery(h.id, e.seq, &e.id, &e.kind, body, now));
        }
    }
    let next = events[handled - 1].0 + 1;
    let expected = *cursor;
    let r = store.transact(|tx| {
        let stored = tx.get::<Meta>(&CURSOR.to_string())?.unwrap_or(0);
        if stored != expected {
            return abort(stored);
        }
        for d in &planned {
            insert_delivery(tx, d)?;
        }
        tx.insert::<Meta>(&CURSOR.to_string(), &next)?;
        Ok::<_, Abort<u64>>(())
    });
    match r {
        Ok(()) => {
            *cursor = next;
            Ok(handled)
        }
        Err(TxError::Aborted(stored)) => {
            *cursor = stored;
            Ok(0)
        }
        Err(TxError::Storage(e)) => Err(e),
    }
}

/// Runs until shutdown: polls the outbox, fans out, makes the deliveries durable and
/// wakes the scheduler.
pub async fn run(store: Store, handle: Handle, mut shutdown: Shutdown) {
    let mut cursor = store
        .get::<Meta>(&CURSOR.to_string())
        .ok()
        .flatten()
        .unwrap_or(0);
    loop {
        if shutdown.is_set() {
            return;
        }
        match fan_out(&store, &mut cursor) {
            Ok(0) => {}
            Ok(n) => {
                tracing::debug!(events = n, cursor, "webhook events fanned out");
                if let Err(e) = store.durable().await {
                    tracing::warn!(error = %e, "webhook fan-out not durable");
                }
                handle.wake();
                continue;
            }
            Err(e) => tracing::warn!(error = %e, "webhook fan-out failed"),
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Keys removed per pruning transaction, to keep commit batches small.
const PRUNE_CHUNK: usize = 1000;

/// Removes outbox events that were fanned out (deliveries keep their own envelope bytes)
/// and are older than `cutoff_ms`, oldest first; stops at the first one that must stay.
/// Without it the outbox would grow for the life of the appliance.
pub fn prune_outbox(store: &Store, cutoff_ms: i64) -> storage::Result<usize> {
    let cursor = store.get::<Meta>(&CURSOR.to_string())?.unwrap_or(0);
    let mut removed = 0;
    loop {
        let mut chunk = Vec::with_capacity(PRUNE_CHUNK);
        for row in store.iter::<Outbox>() {
            let (seq, event) = row?;
            let at_ms = time::OffsetDateTime::parse(
                &event.timestamp,
                &time::format_description::well_known::Rfc3339,
            )
            .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
            .unwrap_or(i64::MAX);
            if seq >= cursor || at_ms >= cutoff_ms || chunk.len() == PRUNE_CHUNK {
                break;
            }
            chunk.push(seq);
        }
        if chunk.is_empty() {
            return Ok(removed);
        }
        let n = chunk.len();
        store
            .transact(|tx| {
                for seq in &chunk {
                    tx.remove::<Outbox>(seq)?;
                }
                Ok::<_, storage::Abort<()>>(())
            })
            .map_err(|e| match e {
                storage::TxError::Storage(e) => e,
                storage::TxError::Aborted(()) => storage::Error::Flush("pruning aborted".into()),
            })?;
        store.durable_blocking()?;
        removed += n;
        if n < PRUNE_CHUNK {
            return Ok(removed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::events::new_event;

    #[test]
    fn pruning_removes_only_fanned_out_events_older_than_the_cutoff() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        for i in 0..5 {
            store
                .transact(|tx| {
                    tx.emit(new_event(
                        "inventory.adjusted",
                        format!("{{\"n\":{i}}}"),
                        1_000 * i,
                    ))?;
                    Ok::<_, storage::Abort<()>>(())
                })
                .unwrap();
        }
        store.durable_blocking().unwrap();
        let seqs: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        // Fanned out up to (not including) the fourth event.
        store
            .transact(|tx| {
                tx.insert::<Meta>(&CURSOR.to_string(), &seqs[3])?;
                Ok::<_, storage::Abort<()>>(())
            })
            .unwrap();
        store.durable_blocking().unwrap();
        // Cutoff after the second event's time: events 0 and 1 go; 2 is too recent.
        assert_eq!(prune_outbox(&store, 1_500).unwrap(), 2);
        let left: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        assert_eq!(left, seqs[2..]);
        // Everything old, but events at or past the cursor always stay.
        assert_eq!(prune_outbox(&store, i64::MAX).unwrap(), 1);
        let left: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        assert_eq!(left, seqs[3..]);
    }
}
