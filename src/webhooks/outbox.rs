//! Outbox pruning: events every subscription's cursor has passed, and events older than
//! the delivery retention whether or not they were fanned out. Both run from housekeeping.

use storage::tables::{Outbox, WebhookCursors};
use storage::Store;

/// Keys removed per pruning transaction, to keep commit batches small.
const PRUNE_CHUNK: usize = 1000;

/// Removes one chunk of outbox events in one transaction and waits until it is durable.
fn remove_events(store: &Store, seqs: &[u64]) -> storage::Result<()> {
    store
        .transact(|tx| {
            for seq in seqs {
                tx.remove::<Outbox>(seq)?;
            }
            Ok::<_, storage::Abort<()>>(())
        })
        .map_err(|e| match e {
            storage::TxError::Storage(e) => e,
            storage::TxError::Aborted(()) => storage::Error::Flush("pruning aborted".into()),
        })?;
    store.durable_blocking()
}

/// Removes outbox events older than `cutoff_ms` (the delivery retention), oldest
/// first; stops at the first one that must stay. Without it the outbox would grow for
/// the life of the appliance.
///
/// A subscription whose cursor is still before a pruned event (an endpoint that failed
/// for longer than the retention while events kept coming) never gets those events:
/// the same horizon after which its failed deliveries are pruned. Keeping them instead would let one dead endpoint grow the
/// outbox without end. A warning names how many subscriptions lost events.
pub fn prune_outbox(store: &Store, cutoff_ms: i64) -> storage::Result<usize> {
    let cursors = store
        .iter::<WebhookCursors>()
        .map(|r| r.map(|(_, c)| c))
        .collect::<storage::Result<Vec<u64>>>()?;
    let mut last_removed = None;
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
            if at_ms >= cutoff_ms || chunk.len() == PRUNE_CHUNK {
                break;
            }
            chunk.push(seq);
        }
        if chunk.is_empty() {
            warn_lagging(&cursors, last_removed);
            return Ok(removed);
        }
        let n = chunk.len();
        last_removed = chunk.last().copied();
        remove_events(store, &chunk)?;
        removed += n;
        if n < PRUNE_CHUNK {
            warn_lagging(&cursors, last_removed);
            return Ok(removed);
        }
    }
}

/// Removes the outbox events every subscription's cursor has passed: each one became its
/// deliveries (which carry their own copy of the envelope) or was not for that
/// subscription, and a subscription created later starts after it. Without this, events
/// would stay for the whole retention although nothing reads them again. The newest key
/// is read before the cursors: a subscription not visible yet was committed after that
/// event (batches are applied in commit order), so its cursor starts past it.
pub fn prune_fanned_out(store: &Store) -> storage::Result<usize> {
    let newest = match store.keys::<Outbox>().next_back() {
        Some(k) => k?,
        None => return Ok(0),
    };
    let mut bound = newest + 1;
    for cursor in store.iter::<WebhookCursors>() {
        bound = bound.min(cursor?.1);
    }
    let mut removed = 0;
    loop {
        let chunk = store
            .keys::<Outbox>()
            .take_while(|k| k.as_ref().map_or(true, |seq| *seq < bound))
            .take(PRUNE_CHUNK)
            .collect::<storage::Result<Vec<u64>>>()?;
        if chunk.is_empty() {
            return Ok(removed);
        }
        let n = chunk.len();
        remove_events(store, &chunk)?;
        removed += n;
        if n < PRUNE_CHUNK {
            return Ok(removed);
        }
    }
}

fn warn_lagging(cursors: &[u64], last_removed: Option<u64>) {
    let Some(last) = last_removed else { return };
    let lagging = cursors.iter().filter(|&&c| c <= last).count();
    if lagging > 0 {
        tracing::warn!(
            subscriptions = lagging,
            "outbox events older than the retention were pruned before they were fanned out to every subscription"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::dispatch::fan_out_all;
    use crate::webhooks::progress::Progress;
    use crate::webhooks::store::delete;
    use crate::webhooks::test_support::{deliver_fresh, emit, outbox, stored, subscribe};
    use storage::DeliveryRecord;

    /// Records the first attempts of `hook`'s deliveries in `pending`.
    fn deliver(store: &Store, progress: &Progress, pending: &mut Vec<DeliveryRecord>, hook: u128) {
        let (mine, rest) = pending.drain(..).partition(|d| d.webhook_id == hook);
        *pending = rest;
        deliver_fresh(store, progress, mine);
    }

    #[test]
    fn events_every_subscription_has_recorded_are_pruned_and_the_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        // No subscription: nothing can ever read these.
        emit(&store, 30, |i| i as i64);
        assert_eq!(prune_fanned_out(&store).unwrap(), 30);
        assert!(outbox(&store).is_empty());

        let (slow, fast) = (subscribe(&store), subscribe(&store));
        emit(&store, 20, |i| i as i64);
        let seqs = outbox(&store);
        let progress = Progress::default();
        let mut pending = Vec::new();
        fan_out_all(&store, &progress, 8, &mut pending);
        // Both took 8 (their backlog bound), but nothing is recorded: all stay.
        assert_eq!(prune_fanned_out(&store).unwrap(), 0);
        deliver(&store, &progress, &mut pending, fast);
        assert_eq!(prune_fanned_out(&store).unwrap(), 0);
        // Recorded for both: those 8 go.
        deliver(&store, &progress, &mut pending, slow);
        assert_eq!(prune_fanned_out(&store).unwrap(), 8);
        assert_eq!(outbox(&store), seqs[8..]);
        // Both take 8 more; only the fast one's are recorded: the slow one holds them.
        fan_out_all(&store, &progress, 8, &mut pending);
        deliver(&store, &progress, &mut pending, fast);
        assert_eq!(prune_fanned_out(&store).unwrap(), 0);
        assert_eq!(outbox(&store), seqs[8..]);
        // Once the slow one is gone, what the fast one took goes too.
        delete(&store, slow).unwrap();
        pending.retain(|d| d.webhook_id != slow);
        store.durable_blocking().unwrap();
        assert_eq!(prune_fanned_out(&store).unwrap(), 8);
        assert_eq!(outbox(&store), seqs[16..]);
        // Nothing was lost for the subscription that remains.
        for _ in 0..3 {
            fan_out_all(&store, &progress, 8, &mut pending);
            deliver(&store, &progress, &mut pending, fast);
        }
        assert_eq!(stored(&store, fast), 20);
        assert_eq!(prune_fanned_out(&store).unwrap(), 4);
        assert!(outbox(&store).is_empty());
    }

    #[test]
    fn pruning_removes_events_older_than_the_cutoff_even_when_a_subscription_lags() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let hook = subscribe(&store);
        emit(&store, 5, |i| 1_000 * i as i64);
        let seqs: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        // Cutoff after the second event's time: events 0 and 1 go; 2 is too recent,
        // and everything after it stays too.
        assert_eq!(prune_outbox(&store, 1_500).unwrap(), 2);
        let left: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        assert_eq!(left, seqs[2..]);
        // The subscription never had them: fan-out resumes at the oldest one left.
        let progress = Progress::default();
        let mut made = Vec::new();
        fan_out_all(&store, &progress, 100, &mut made);
        deliver_fresh(&store, &progress, made);
        let mut got: Vec<u64> = store
            .iter::<storage::tables::Deliveries>()
            .map(|r| r.unwrap().1)
            .filter(|d| d.webhook_id == hook)
            .map(|d| d.event_seq)
            .collect();
        got.sort();
        assert_eq!(got, seqs[2..]);
    }
}
