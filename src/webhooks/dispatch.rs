//! Fan-out: outbox events become deliveries. Every subscription has its own cursor in
//! `WebhookCursors` (the next outbox sequence number to handle for it), and is fanned
//! out to only while its unfinished deliveries (queued, in flight or waiting for a
//! retry) are below a bound: a slow or dead endpoint lags behind in the durable outbox
//! instead of filling the delivery store, and the fan-out work (the writer's main
//! webhook cost) tracks what is delivered, not how fast events are emitted. Each pass
//! writes its deliveries and moves the cursors in one transaction, so after a crash
//! every event is fanned out to each subscription exactly once.

use std::collections::HashMap;
use std::time::Duration;

use storage::tables::{DeliveryQueue, Outbox, WebhookCursors};
use storage::{abort, Abort, Key, Store, TxError};

use super::sign::envelope;
use super::store::{all, insert_delivery, pending_delivery};
use super::Handle;
use crate::domain::time_fmt::now_ms;
use crate::shutdown::Shutdown;

/// Unfinished deliveries one subscription may have before fan-out to it pauses: a few
/// seconds of sending at full speed (4 permits per subscription), small enough that a
/// dead endpoint's backlog stays a bounded number of records.
pub const BACKLOG: usize = 512;
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

/// Fans out one pass: for every subscription with room under `backlog`, the events
/// after its cursor, as many as fit. Returns how many subscriptions' cursors moved (0:
/// nothing to do now).
pub fn fan_out(store: &Store, backlog: usize) -> storage::Result<usize> {
    let hooks = all(store)?;
    let now = now_ms();
    let newest = match store.keys::<Outbox>().next_back() {
        Some(k) => k?,
        None => return Ok(0),
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
        let unfinished = store
            .keys_with_prefix::<DeliveryQueue>(&h.id.to_be_bytes())
            .take(backlog)
            .count();
        let room = backlog.saturating_sub(unfinished);
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
        return Ok(0);
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
        Ok(()) => Ok(plans.len()),
        Err(TxError::Aborted(())) => Ok(0),
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
        match fan_out(&store, BACKLOG) {
            Ok(0) => {}
            Ok(n) => {
                tracing::debug!(subscriptions = n, "webhook events fanned out");
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
            _ = handle.room_freed() => {}
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

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
/// the same horizon after which its failed deliveries would have been pruned before
/// fan-out was bounded. Keeping them instead would let one dead endpoint grow the
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
    use crate::domain::events::new_event;
    use crate::webhooks::store::{create, delete, record_attempts, Finished, NewWebhook, Outcome};
    use storage::tables::DeliveriesByWebhook;
    use storage::Attempt;

    fn emit(store: &Store, n: usize, at_ms: impl Fn(usize) -> i64) {
        for i in 0..n {
            store
                .transact(|tx| {
                    tx.emit(new_event(
                        "inventory.adjusted",
                        format!("{{\"n\":{i}}}"),
                        at_ms(i),
                    ))?;
                    Ok::<_, storage::Abort<()>>(())
                })
                .unwrap();
        }
        store.durable_blocking().unwrap();
    }

    fn subscribe(store: &Store) -> u128 {
        let hook = NewWebhook {
            url: "https://127.0.0.1:9/hook".into(),
            events: vec!["inventory.adjusted".into()],
            secret: "s".into(),
            is_active: true,
        };
        create(store, hook, 0).unwrap().id
    }

    fn queued(store: &Store, id: u128) -> Vec<(u128, u64, u128)> {
        store
            .keys_with_prefix::<DeliveryQueue>(&id.to_be_bytes())
            .map(|k| k.unwrap())
            .collect()
    }

    fn stored(store: &Store, id: u128) -> usize {
        store
            .keys_with_prefix::<DeliveriesByWebhook>(&id.to_be_bytes())
            .count()
    }

    /// Fans out until nothing moves, as the dispatcher does between wakes.
    fn fan_out_all(store: &Store, backlog: usize) {
        while fan_out(store, backlog).unwrap() > 0 {
            store.durable_blocking().unwrap();
        }
    }

    fn outbox(store: &Store) -> Vec<u64> {
        store.keys::<Outbox>().map(|k| k.unwrap()).collect()
    }

    /// A first attempt that succeeded, as the engine records it.
    fn success(delivery_id: u128, due: u64) -> Finished {
        Finished {
            delivery_id,
            due_ms: due as i64,
            outcome: Outcome::Delivered(Attempt {
                at_ms: 1,
                status_code: Some(200),
                latency_ms: 1,
                error: None,
            }),
        }
    }

    /// Marks every queued delivery of `id` delivered, as the engine would.
    fn deliver_all(store: &Store, id: u128) -> usize {
        let done: Vec<Finished> = queued(store, id)
            .into_iter()
            .map(|(_, due, delivery_id)| success(delivery_id, due))
            .collect();
        let n = record_attempts(store, &done, &[], 1).unwrap();
        store.durable_blocking().unwrap();
        n
    }

    #[test]
    fn events_every_subscription_has_taken_are_pruned_and_the_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        // No subscription: nothing can ever read these.
        emit(&store, 30, |i| i as i64);
        assert_eq!(prune_fanned_out(&store).unwrap(), 30);
        assert!(outbox(&store).is_empty());

        let (slow, fast) = (subscribe(&store), subscribe(&store));
        emit(&store, 20, |i| i as i64);
        let seqs = outbox(&store);
        fan_out_all(&store, 8);
        // Both took 8 (their backlog bound): only those 8 go.
        assert_eq!(prune_fanned_out(&store).unwrap(), 8);
        assert_eq!(outbox(&store), seqs[8..]);
        // The fast one takes 8 more; the slow one still holds the rest in place.
        assert_eq!(deliver_all(&store, fast), 8);
        fan_out_all(&store, 8);
        assert_eq!(prune_fanned_out(&store).unwrap(), 0);
        assert_eq!(outbox(&store), seqs[8..]);
        // Once the slow one is gone, what the fast one took goes too.
        delete(&store, slow).unwrap();
        store.durable_blocking().unwrap();
        assert_eq!(prune_fanned_out(&store).unwrap(), 8);
        assert_eq!(outbox(&store), seqs[16..]);
        // Nothing was lost for the subscription that remains.
        for _ in 0..3 {
            deliver_all(&store, fast);
            fan_out_all(&store, 8);
        }
        assert_eq!(stored(&store, fast), 20);
        assert_eq!(prune_fanned_out(&store).unwrap(), 4);
        assert!(outbox(&store).is_empty());
    }

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
            record_attempts(&store, &[success(delivery_id, due)], &[], 1).unwrap();
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
        fan_out_all(&store, 100);
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
