//! Fan-out: outbox events become deliveries. Every subscription has its own cursor in
//! `WebhookCursors` (the next outbox sequence number to handle for it), and is fanned
//! out to only while its unfinished deliveries (queued, in flight or waiting for a
//! retry) are below a bound: a slow or dead endpoint lags behind in the durable outbox
//! instead of filling the delivery store, and the fan-out work (the writer's main
//! webhook cost) tracks what is delivered, not how fast events are emitted. Each pass
//! writes its deliveries and moves the cursors in one transaction, so after a crash
//! every event is fanned out to each subscription exactly once. The unfinished count
//! comes from the engine's in-memory due queue (`queue.rs`), not a storage scan.

use std::collections::HashMap;
use std::time::Duration;

#[cfg(test)]
use storage::tables::DeliveryQueue;
use storage::tables::{Outbox, WebhookCursors};
use storage::{abort, Abort, Key, Store, TxError};

use super::sign::envelope;
use super::store::{all, insert_delivery, pending_delivery};
use super::Handle;
use crate::domain::time_fmt::now_ms;
use crate::shutdown::Shutdown;

/// Unfinished deliveries one subscription may have before fan-out to it pauses: small
/// enough that a dead endpoint's backlog stays a bounded number of records (a few MB),
/// large enough not to cap a live one. A delivery stays unfinished from its fan-out to
/// its recorded result, two commit cycles of up to ~0.3 s under load, so this allows
/// some 7,000 deliveries/s per subscription (512: ~1,700/s, below the ~3,000/s that
/// 1,000 orders/s offer each subscription of every kind).
pub const BACKLOG: usize = 2048;
/// Outbox events looked at per subscription and pass.
const SCAN: usize = 512;
/// Envelope bytes one fan-out transaction may write, to keep commit batches small.
const BATCH_BYTES: usize = 1 << 20;
const POLL: Duration = Duration::from_millis(100);

/// One subscription's share of a pass.
struct Planned {
    webhook_id: u128,
    from: u64,
    next: u64,
    deliveries: Vec<storage::DeliveryRecord>,
}

/// What one pass did: how many subscriptions' cursors moved (0: nothing to do now),
/// and the deliveries it created.
#[derive(Default)]
pub struct Fanned {
    pub moved: usize,
    pub queued: Vec<storage::DeliveryRecord>,
}

/// Fans out one pass: for every subscription with room under `backlog` (given
/// `unfinished`, its deliveries not yet finished), the events after its cursor, as many
/// as fit.
pub fn fan_out(
    store: &Store,
    backlog: usize,
    unfinished: impl Fn(u128) -> usize,
) -> storage::Result<Fanned> {
    let hooks = all(store)?;
    let now = now_ms();
    let newest = match store.keys::<Outbox>().next_back() {
        Some(k) => k?,
        None => return Ok(Fanned::default()),
    };
    // Plan outside the transaction; an envelope is built once per event and pass.
    let mut envelopes: HashMap<u64, String> = HashMap::new();
    let mut plans = Vec::new();
    let mut bytes = 0;
    for h in &hooks {
        if bytes > BATCH_BYTES {
            break;
        }
        let Some(from) = store.get::<WebhookCursors>(&h.id)? else {
            continue; // deleted meanwhile
        };
        if from > newest {
            continue;
        }
        if !h.is_active {
            // Events emitted while a subscription is inactive are not delivered to it.
            plans.push(Planned {
                webhook_id: h.id,
                from,
                next: newest + 1,
                deliveries: Vec::new(),
            });
            continue;
        }
        // An ordered subscription gets its next event only once the one before it is
        // delivered or failed for good: one delivery at a time, in commit order.
        let backlog = if h.ordered { 1 } else { backlog };
        let room = backlog.saturating_sub(unfinished(h.id));
        if room == 0 {
            continue;
        }
        let mut next = from;
        let mut deliveries = Vec::new();
        for row in store.range::<Outbox, _>(from.encode()..).take(SCAN) {
            let (seq, e) = row?;
            if deliveries.len() == room || bytes > BATCH_BYTES {
                break;
            }
            next = seq + 1;
            if seq <= h.created_seq || !h.events.contains(&e.kind) {
                continue;
            }
            let body = envelopes
                .entry(seq)
                .or_insert_with(|| envelope(&e.id, &e.kind, &e.timestamp, &e.data_json))
                .clone();
            bytes += body.len();
            deliveries.push(pending_delivery(h.id, seq, &e.id, &e.kind, body, now));
        }
        if next != from {
            plans.push(Planned {
                webhook_id: h.id,
                from,
                next,
                deliveries,
            });
        }
    }
    if plans.is_empty() {
        return Ok(Fanned::default());
    }
    let r = store.transact(|tx| {
        for p in &plans {
            // A subscription deleted (cursor gone) or fanned out elsewhere meanwhile:
            // the next pass plans again.
            if tx.get::<WebhookCursors>(&p.webhook_id)? != Some(p.from) {
                return abort(());
            }
            for d in &p.deliveries {
                insert_delivery(tx, d)?;
            }
            tx.insert::<WebhookCursors>(&p.webhook_id, &p.next)?;
        }
        Ok::<_, Abort<()>>(())
    });
    match r {
        Ok(()) => Ok(Fanned {
            moved: plans.len(),
            queued: plans.into_iter().flat_map(|p| p.deliveries).collect(),
        }),
        Err(TxError::Aborted(())) => Ok(Fanned::default()),
        Err(TxError::Storage(e)) => Err(e),
    }
}

/// Runs until shutdown: fans out while there is room, makes the deliveries durable and
/// wakes the scheduler; sleeps until the recorder frees room or the poll interval ends.
pub async fn run(store: Store, handle: Handle, mut shutdown: Shutdown) {
    loop {
        if shutdown.is_set() {
            return;
        }
        // A resync asked for (by the API, or a failed write) is merged before counting.
        if let Err(e) = handle.queue.resync_if_asked(&store) {
            tracing::warn!(error = %e, "webhook queue resync failed");
        }
        match fan_out(&store, BACKLOG, |hook| handle.queue.unfinished(hook)) {
            Ok(f) if f.moved == 0 => {}
            Ok(f) => {
                tracing::debug!(subscriptions = f.moved, "webhook events fanned out");
                match store.durable().await {
                    // Sent only once durable: a crash never loses a delivered event.
                    Ok(()) => handle.queue.add_fanned(f.queued),
                    Err(e) => {
                        tracing::warn!(error = %e, "webhook fan-out not durable");
                        handle.queue.request_resync();
                    }
                }
                handle.wake();
                continue;
            }
            Err(e) => tracing::warn!(error = %e, "webhook fan-out failed"),
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = handle.room_freed() => {}
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

#[cfg(test)]
/// A subscription's unfinished deliveries as storage has them: its queue entries.
pub(super) fn stored_unfinished(store: &Store) -> impl Fn(u128) -> usize + '_ {
    |hook| {
        store
            .keys_with_prefix::<DeliveryQueue>(&hook.to_be_bytes())
            .count()
    }
}

#[cfg(test)]
/// Fans out until nothing moves, as the dispatcher does between wakes.
pub(super) fn fan_out_all(store: &Store, backlog: usize) {
    while fan_out(store, backlog, stored_unfinished(store))
        .unwrap()
        .moved
        > 0
    {
        store.durable_blocking().unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::store::record_attempts;
    use crate::webhooks::test_support::{
        deliver_all, emit, no_retries, queued, stored, subscribe, success,
    };

    #[test]
    fn a_stuck_subscription_stops_at_its_backlog_while_another_keeps_getting_events() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let (stuck, live) = (subscribe(&store), subscribe(&store));
        emit(&store, 40, |i| i as i64);
        fan_out_all(&store, 8);
        assert_eq!(queued(&store, stuck).len(), 8);
        assert_eq!(queued(&store, live).len(), 8);
        // The live endpoint's deliveries succeed, round after round; the stuck one's
        // stay queued (a dead endpoint waiting for its retries).
        let mut delivered = 0;
        for _ in 0..10 {
            delivered += deliver_all(&store, live);
            fan_out_all(&store, 8);
        }
        assert_eq!(delivered, 40);
        assert_eq!(stored(&store, live), 40);
        assert!(queued(&store, live).is_empty());
        // The stuck subscription has no more delivery records than its bound; the
        // rest of its events wait in the outbox after its cursor.
        assert_eq!(stored(&store, stuck), 8);
        let seqs: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
        let cursor = store.get::<WebhookCursors>(&stuck).unwrap().unwrap();
        assert_eq!(cursor, seqs[7] + 1);
        // Room again: it goes on exactly where it stopped, each event once.
        for (_, due, delivery_id) in queued(&store, stuck) {
            record_attempts(&store, &[success(delivery_id, due)], &no_retries(), 1).unwrap();
        }
        store.durable_blocking().unwrap();
        fan_out_all(&store, 100);
        assert_eq!(stored(&store, stuck), 40);
        let mut seqs: Vec<u64> = store
            .iter::<storage::tables::Deliveries>()
            .map(|r| r.unwrap().1)
            .filter(|d| d.webhook_id == stuck)
            .map(|d| d.event_seq)
            .collect();
        seqs.sort();
        seqs.dedup();
        assert_eq!(seqs.len(), 40);
    }

    #[test]
    fn a_schema_2_database_goes_on_from_its_shared_cursor_for_every_subscription() {
        let dir = tempfile::tempdir().unwrap();
        let (hooks, seqs) = {
            let store = Store::open(dir.path(), &Default::default()).unwrap();
            let hooks = [subscribe(&store), subscribe(&store)];
            emit(&store, 5, |i| i as i64);
            let seqs: Vec<u64> = store.keys::<Outbox>().map(|k| k.unwrap()).collect();
            // What schema 2 left: one shared cursor (events 0 and 1 fanned out), no
            // per-subscription ones.
            store
                .transact(|tx| {
                    tx.insert::<storage::tables::Meta>(&"schema_version".into(), &2)?;
                    tx.insert::<storage::tables::Meta>(&"webhook_outbox_cursor".into(), &seqs[2])?;
                    for h in &hooks {
                        tx.remove::<WebhookCursors>(h)?;
                    }
                    Ok::<_, storage::Abort<()>>(())
                })
                .unwrap();
            store.durable_blocking().unwrap();
            (hooks, seqs)
        };
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        fan_out_all(&store, 100);
        for h in hooks {
            let mut got: Vec<u64> = store
                .iter::<storage::tables::Deliveries>()
                .map(|r| r.unwrap().1)
                .filter(|d| d.webhook_id == h)
                .map(|d| d.event_seq)
                .collect();
            got.sort();
            assert_eq!(got, seqs[2..], "events 0 and 1 were fanned out before");
        }
        assert_eq!(
            store
                .get::<storage::tables::Meta>(&"webhook_outbox_cursor".into())
                .unwrap(),
            None
        );
    }
}
