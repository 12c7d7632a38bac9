//! Fan-out: outbox events become deliveries, sent from memory. Every subscription has
//! its progress in memory (`progress.rs`: the next event to fan out, the events whose
//! first attempt is not yet recorded) and a persisted cursor in `WebhookCursors` that
//! moves, in the recording transaction, only past events whose deliveries are recorded.
//! Fan-out itself writes nothing per delivery: a delivery is stored once, with the
//! result of its first attempt, so the single writer does one record write per delivery
//! instead of three at fan-out and two at the result. After a crash the events after the
//! persisted cursor are fanned out again with the same delivery ids (derived from the
//! subscription and the event), and those recorded before it are skipped.
//!
//! A subscription is fanned out to only while its unfinished deliveries (queued, in
//! flight or waiting for a retry, counted by the in-memory due queue) are below a bound:
//! a slow or dead endpoint lags behind in the durable outbox instead of filling memory
//! and the delivery store.

use std::collections::HashMap;
use std::time::Duration;

use storage::tables::{Deliveries, Outbox, WebhookCursors};
use storage::{Abort, Key, Store, TxError};

use super::ids::delivery_id;
use super::progress::Progress;
use super::sign::envelope;
use super::store::{all, pending_delivery};
use super::Handle;
use crate::domain::time_fmt::now_ms;
use crate::shutdown::Shutdown;

/// Unfinished deliveries one subscription may have before fan-out to it pauses: small
/// enough that a dead endpoint's backlog stays a bounded number of records (a few MB),
/// large enough not to cap a live one. A delivery stays unfinished from its fan-out to
/// its recorded result, one round trip plus a commit cycle of up to ~0.3 s under load,
/// so this allows some 7,000 deliveries/s per subscription.
pub const BACKLOG: usize = 2048;
/// Outbox events looked at per subscription and pass.
const SCAN: usize = 512;
/// Envelope bytes one pass may fan out, to bound the memory a pass takes.
const BATCH_BYTES: usize = 1 << 20;
/// How often the outbox is looked at when nothing wakes the dispatcher: fan-out writes
/// nothing, so a pass over an idle outbox is a few reads.
const POLL: Duration = Duration::from_millis(20);

/// What one pass did: how many subscriptions moved on (0: nothing to do now), and the
/// deliveries it created, to be sent from memory.
#[derive(Default)]
pub struct Fanned {
    pub moved: usize,
    pub queued: Vec<storage::DeliveryRecord>,
}

/// Fans out one pass: for every subscription with room under `backlog` (given
/// `unfinished`, its deliveries not yet finished), the events after its progress, as
/// many as fit. Then persists the cursor of every subscription with nothing open that
/// moved on (one that lists few kinds, or is inactive), so the outbox can be pruned.
pub fn fan_out(
    store: &Store,
    progress: &Progress,
    backlog: usize,
    unfinished: impl Fn(u128) -> usize,
) -> storage::Result<Fanned> {
    let hooks = all(store)?;
    let now = now_ms();
    let newest = match store.keys::<Outbox>().next_back() {
        Some(k) => k?,
        None => return Ok(Fanned::default()),
    };
    // An envelope is built once per event and pass.
    let mut envelopes: HashMap<u64, String> = HashMap::new();
    let mut fanned = Fanned::default();
    let mut settle = Vec::new();
    let mut bytes = 0;
    for h in &hooks {
        let Some(stored) = store.get::<WebhookCursors>(&h.id)? else {
            progress.forget(h.id); // deleted meanwhile
            continue;
        };
        let (from, recover_below) = progress.start(h.id, stored, newest);
        if from > newest || bytes > BATCH_BYTES {
            settle.extend(
                progress
                    .settled_cursor(h.id, stored)
                    .map(|c| (h.id, stored, c)),
            );
            continue;
        }
        if !h.is_active {
            // Events emitted while a subscription is inactive are not delivered to it.
            progress.fanned(h.id, [], newest + 1);
            settle.extend(
                progress
                    .settled_cursor(h.id, stored)
                    .map(|c| (h.id, stored, c)),
            );
            fanned.moved += 1;
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
        let mut seqs = Vec::new();
        for row in store.range::<Outbox, _>(from.encode()..).take(SCAN) {
            let (seq, e) = row?;
            if seqs.len() == room || bytes > BATCH_BYTES {
                break;
            }
            next = seq + 1;
            if seq <= h.created_seq || !h.events.contains(&e.kind) {
                continue;
            }
            let id = delivery_id(h.id, seq, &e);
            // Recorded before a restart, with the cursor not yet past it.
            if seq < recover_below && store.get::<Deliveries>(&id)?.is_some() {
                continue;
            }
            let body = envelopes
                .entry(seq)
                .or_insert_with(|| envelope(&e.id, &e.kind, &e.timestamp, &e.data_json))
                .clone();
            bytes += body.len();
            let mut d = pending_delivery(h.id, seq, &e.id, &e.kind, body, now);
            d.id = id;
            fanned.queued.push(d);
            seqs.push(seq);
        }
        if next != from {
            progress.fanned(h.id, seqs, next);
            settle.extend(
                progress
                    .settled_cursor(h.id, stored)
                    .map(|c| (h.id, stored, c)),
            );
            fanned.moved += 1;
        }
    }
    if !settle.is_empty() {
        persist_cursors(store, &settle)?;
    }
    Ok(fanned)
}

/// Moves persisted cursors `(subscription, from, to)` whose subscription has nothing
/// open; one a recording moved meanwhile, or deleted, is left alone.
fn persist_cursors(store: &Store, moves: &[(u128, u64, u64)]) -> storage::Result<()> {
    let r = store.transact(|tx| {
        for (hook, from, to) in moves {
            if tx.get::<WebhookCursors>(hook)? == Some(*from) {
                tx.insert::<WebhookCursors>(hook, to)?;
            }
        }
        Ok::<_, Abort<()>>(())
    });
    match r {
        Ok(()) | Err(TxError::Aborted(())) => Ok(()),
        Err(TxError::Storage(e)) => Err(e),
    }
}

/// Runs until shutdown: fans out while there is room and hands the deliveries to the
/// scheduler at once (nothing of theirs is stored yet); sleeps until the recorder frees
/// room or the poll interval ends.
///
/// A pass runs on the blocking pool: its outbox scans are sled reads, which wait while
/// the commit thread applies a batch, and must not hold an async worker meanwhile.
pub async fn run(store: Store, handle: Handle, mut shutdown: Shutdown) {
    loop {
        if shutdown.is_set() {
            return;
        }
        let pass = {
            let (store, handle) = (store.clone(), handle.clone());
            tokio::task::spawn_blocking(move || {
                // A resync asked for (by the API, or a failed write) is merged before
                // counting.
                if let Err(e) = handle.queue.resync_if_asked(&store) {
                    tracing::warn!(error = %e, "webhook queue resync failed");
                }
                fan_out(&store, &handle.progress, BACKLOG, |hook| {
                    handle.queue.unfinished(hook)
                })
            })
        };
        match pass.await {
            Ok(Ok(f)) if f.moved == 0 => {}
            Ok(Ok(f)) => {
                tracing::debug!(subscriptions = f.moved, "webhook events fanned out");
                if !f.queued.is_empty() {
                    handle.queue.add_fanned(f.queued);
                    handle.wake();
                }
                continue;
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "webhook fan-out failed"),
            Err(e) => tracing::warn!(error = %e, "webhook fan-out pass failed"),
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = handle.room_freed() => {}
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

#[cfg(test)]
/// Fans out until nothing moves, as the dispatcher does between wakes, with `pending`
/// (deliveries made and not yet recorded) as each subscription's unfinished ones; adds
/// what it made to `pending`.
pub(super) fn fan_out_all(
    store: &Store,
    progress: &Progress,
    backlog: usize,
    pending: &mut Vec<storage::DeliveryRecord>,
) {
    loop {
        let count = |hook| pending.iter().filter(|d| d.webhook_id == hook).count();
        let f = fan_out(store, progress, backlog, count).unwrap();
        pending.extend(f.queued);
        if f.moved == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::test_support::{deliver_fresh, emit, outbox, queued, stored, subscribe};

    /// Takes `hook`'s deliveries out of `pending`.
    fn take(
        pending: &mut Vec<storage::DeliveryRecord>,
        hook: u128,
    ) -> Vec<storage::DeliveryRecord> {
        let (mine, rest) = pending.drain(..).partition(|d| d.webhook_id == hook);
        *pending = rest;
        mine
    }

    fn cursor(store: &Store, hook: u128) -> u64 {
        store.get::<WebhookCursors>(&hook).unwrap().unwrap()
    }

    #[test]
    fn a_stuck_subscription_stops_at_its_backlog_while_another_keeps_getting_events() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let (stuck, live) = (subscribe(&store), subscribe(&store));
        emit(&store, 40, |i| i as i64);
        let seqs = outbox(&store);
        let progress = Progress::default();
        let mut pending = Vec::new();
        fan_out_all(&store, &progress, 8, &mut pending);
        assert_eq!(pending.len(), 16, "8 each");
        // Nothing is stored until a first attempt is recorded.
        assert_eq!((stored(&store, stuck), stored(&store, live)), (0, 0));
        assert!(queued(&store, live).is_empty());
        // The live endpoint's deliveries succeed, round after round; the stuck one's
        // stay unfinished (a dead endpoint's attempts hanging).
        for _ in 0..10 {
            let done = take(&mut pending, live);
            deliver_fresh(&store, &progress, done);
            fan_out_all(&store, &progress, 8, &mut pending);
        }
        assert_eq!(stored(&store, live), 40);
        assert_eq!(cursor(&store, live), seqs[39] + 1);
        // The stuck subscription has 8 deliveries in memory, none stored, and its
        // persisted cursor still at its first event: a crash now sends them again.
        assert_eq!(pending.len(), 8);
        assert_eq!(stored(&store, stuck), 0);
        let at_start = cursor(&store, stuck);
        assert!(at_start <= seqs[0]);
        // Recorded out of order: the cursor stops at the first one still open.
        let mut mine = take(&mut pending, stuck);
        let rest = mine.split_off(3);
        deliver_fresh(&store, &progress, rest[2..].to_vec());
        assert_eq!(cursor(&store, stuck), seqs[0]);
        deliver_fresh(&store, &progress, mine);
        assert_eq!(cursor(&store, stuck), seqs[3], "the 4th and 5th are open");
        pending.extend(rest[..2].iter().cloned());
        // Room again: it goes on exactly where it stopped, each event once.
        while !pending.is_empty() {
            let done = take(&mut pending, stuck);
            deliver_fresh(&store, &progress, done);
            fan_out_all(&store, &progress, 100, &mut pending);
        }
        assert_eq!(stored(&store, stuck), 40);
        assert_eq!(cursor(&store, stuck), seqs[39] + 1);
        let mut got: Vec<u64> = store
            .iter::<storage::tables::Deliveries>()
            .map(|r| r.unwrap().1)
            .filter(|d| d.webhook_id == stuck)
            .map(|d| d.event_seq)
            .collect();
        got.sort();
        assert_eq!(got, seqs);
    }

    #[test]
    fn after_a_crash_exactly_the_unrecorded_events_are_sent_again_with_the_same_ids() {
        let dir = tempfile::tempdir().unwrap();
        let (hook, made) = {
            let store = Store::open(dir.path(), &Default::default()).unwrap();
            let hook = subscribe(&store);
            emit(&store, 5, |i| i as i64);
            let progress = Progress::default();
            let mut made = Vec::new();
            fan_out_all(&store, &progress, 100, &mut made);
            assert_eq!(made.len(), 5);
            // The 2nd and 4th are recorded; the others were in flight at the crash.
            deliver_fresh(&store, &progress, vec![made[1].clone(), made[3].clone()]);
            (hook, made)
        };
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let progress = Progress::default();
        let mut again = Vec::new();
        fan_out_all(&store, &progress, 100, &mut again);
        let ids = |ds: &[storage::DeliveryRecord]| ds.iter().map(|d| d.id).collect::<Vec<_>>();
        assert_eq!(
            ids(&again),
            ids(&[made[0].clone(), made[2].clone(), made[4].clone()])
        );
        assert_eq!(again[1].body, made[2].body);
        deliver_fresh(&store, &progress, again);
        assert_eq!(stored(&store, hook), 5);
        assert_eq!(cursor(&store, hook), outbox(&store)[4] + 1);
    }

    #[test]
    fn a_subscription_listing_other_kinds_moves_its_cursor_without_deliveries() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let hook = subscribe(&store);
        store
            .transact(|tx| {
                tx.emit(crate::domain::events::new_event(
                    "order.created",
                    "{}".into(),
                    1,
                ))?;
                Ok::<_, storage::Abort<()>>(())
            })
            .unwrap();
        store.durable_blocking().unwrap();
        let progress = Progress::default();
        let mut made = Vec::new();
        fan_out_all(&store, &progress, 100, &mut made);
        assert!(made.is_empty());
        store.durable_blocking().unwrap();
        assert_eq!(cursor(&store, hook), outbox(&store)[0] + 1);
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
        let progress = Progress::default();
        let mut made = Vec::new();
        fan_out_all(&store, &progress, 100, &mut made);
        deliver_fresh(&store, &progress, made);
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
