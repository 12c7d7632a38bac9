//! The due queue in memory: every subscription's queued deliveries by due time, and the
//! deliveries taken for an attempt whose result is not yet durable. The scheduler reads
//! this instead of range scans of the `DeliveryQueue` table.
//!
//! Storage stays the truth for every stored delivery; a first attempt's delivery lives
//! only here until its result is recorded (the outbox and the persisted cursor cover it
//! across a crash, see `dispatch.rs`). The engine's own writers keep this copy current:
//! fan-out adds its new deliveries, the recorder puts back a delivery due again once
//! that is durable. Anything else that queues a delivery (the
//! API's test, retry and recover) asks for a resync, a merge of the table into this copy,
//! which the scheduler also does at start and every `RESYNC`. An entry here that storage
//! no longer has is harmless: its attempt finds the delivery moved on and drops it.
//!
//! It also answers, without storage reads, the two questions asked per delivery: the
//! record fan-out just made (handed to its first attempt) and how many unfinished
//! deliveries a subscription has (queued plus in flight, for fan-out's bound).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use storage::tables::DeliveryQueue;
use storage::{DeliveryRecord, Store};

/// The longest a queued delivery that only storage knows of (one a failed transaction
/// left there) waits to be seen.
pub const RESYNC: Duration = Duration::from_secs(10);

/// One queued delivery: its subscription, due time (unix ms) and id.
pub type Entry = (u128, i64, u128);

#[derive(Default)]
pub struct DueQueue {
    inner: Mutex<Inner>,
    resync: AtomicBool,
}

#[derive(Default)]
struct Inner {
    /// Per subscription, its queued deliveries as (due ms, delivery id).
    by_hook: HashMap<u128, BTreeSet<(i64, u128)>>,
    /// Taken for an attempt, by id: (subscription, due ms). Their stored queue entry
    /// stays until the result is durable.
    in_flight: HashMap<u128, (u128, i64)>,
    /// Per subscription, how many of `in_flight` are its.
    flying: HashMap<u128, usize>,
    /// Deliveries fan-out made, stored nowhere yet, until their first attempt takes
    /// them (its recording stores them).
    records: HashMap<u128, DeliveryRecord>,
}

impl Inner {
    fn queue(&mut self, hook: u128, due: i64, id: u128) {
        self.by_hook.entry(hook).or_default().insert((due, id));
    }

    /// Out of flight; returns where it was queued.
    fn land(&mut self, id: u128) -> Option<(u128, i64)> {
        let (hook, due) = self.in_flight.remove(&id)?;
        if let Some(n) = self.flying.get_mut(&hook) {
            *n -= 1;
            if *n == 0 {
                self.flying.remove(&hook);
            }
        }
        self.records.remove(&id);
        Some((hook, due))
    }
}

impl DueQueue {
    /// An empty queue that resyncs at its first pass.
    pub fn new() -> DueQueue {
        let q = DueQueue::default();
        q.request_resync();
        q
    }

    /// Entries that are durable in storage.
    #[cfg(test)]
    pub fn add(&self, entries: impl IntoIterator<Item = Entry>) {
        let mut inner = self.inner.lock().unwrap();
        for (hook, due, id) in entries {
            inner.queue(hook, due, id);
        }
    }

    /// Pending deliveries fan-out just made (in memory only): queued, each with its
    /// record for its first attempt. One already in flight is not queued again.
    pub fn add_fanned(&self, records: impl IntoIterator<Item = DeliveryRecord>) {
        let mut inner = self.inner.lock().unwrap();
        for d in records {
            let Some(due) = d.next_attempt_ms else {
                continue;
            };
            if inner.in_flight.contains_key(&d.id) {
                continue;
            }
            inner.queue(d.webhook_id, due.max(0), d.id);
            inner.records.insert(d.id, d);
        }
    }

    /// The record fan-out made for this delivery, if its first attempt has not taken it
    /// yet (none for a delivery storage has).
    pub fn take_record(&self, id: u128) -> Option<DeliveryRecord> {
        self.inner.lock().unwrap().records.remove(&id)
    }

    /// Deliveries fan-out made that wait for their first attempt: storage has none of
    /// them yet (the `webhook_queue_depth` metric adds them to the stored queue).
    pub fn unstored(&self) -> usize {
        self.inner.lock().unwrap().records.len()
    }

    /// The subscription's unfinished deliveries: queued plus in flight. Storage holds as
    /// many queue entries once everything this copy was told is durable; entries only
    /// storage has (queued by the API) count from the resync it asks for.
    pub fn unfinished(&self, hook: u128) -> usize {
        let inner = self.inner.lock().unwrap();
        inner.by_hook.get(&hook).map_or(0, BTreeSet::len)
            + inner.flying.get(&hook).copied().unwrap_or(0)
    }

    /// The next pass merges the stored queue into this copy.
    pub fn request_resync(&self) {
        self.resync.store(true, Ordering::Release);
    }

    /// Merges the stored queue into this copy if asked to: every stored entry not in
    /// flight is added (entries only this copy has stay; their attempts sort them out).
    pub fn resync_if_asked(&self, store: &Store) -> storage::Result<()> {
        if !self.resync.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let mut stored = Vec::new();
        for key in store.keys::<DeliveryQueue>() {
            match key {
                Ok((hook, due, id)) => stored.push((hook, due as i64, id)),
                Err(e) => {
                    self.request_resync();
                    return Err(e);
                }
            }
        }
        let mut inner = self.inner.lock().unwrap();
        for (hook, due, id) in stored {
            if !inner.in_flight.contains_key(&id) {
                inner.queue(hook, due, id);
            }
        }
        Ok(())
    }

    /// The subscriptions with queued deliveries.
    pub fn hooks(&self) -> Vec<u128> {
        let mut inner = self.inner.lock().unwrap();
        inner.by_hook.retain(|_, q| !q.is_empty());
        inner.by_hook.keys().copied().collect()
    }

    /// Takes up to `max` of the subscription's deliveries due at `now` (earliest first),
    /// marking them in flight; returns them and when the first one due later is due.
    pub fn take_due(&self, hook: u128, now: i64, max: usize) -> (Vec<(i64, u128)>, Option<i64>) {
        let mut inner = self.inner.lock().unwrap();
        let Inner {
            by_hook,
            in_flight,
            flying,
            ..
        } = &mut *inner;
        let Some(q) = by_hook.get_mut(&hook) else {
            return (Vec::new(), None);
        };
        let mut taken = Vec::new();
        let mut skipped = Vec::new();
        while taken.len() < max {
            let Some(&(due, id)) = q.first() else { break };
            if due > now {
                break;
            }
            q.pop_first();
            // A second entry of a delivery in flight (a resync saw its old one) waits
            // until that attempt is settled.
            if let std::collections::hash_map::Entry::Vacant(e) = in_flight.entry(id) {
                e.insert((hook, due));
                *flying.entry(hook).or_default() += 1;
                taken.push((due, id));
            } else {
                skipped.push((due, id));
            }
        }
        q.extend(skipped);
        let next = q
            .range((now.saturating_add(1), 0)..)
            .next()
            .map(|(due, _)| *due);
        (taken, next)
    }

    /// Returns a taken entry that was not started.
    pub fn put_back(&self, hook: u128, due: i64, id: u128) {
        let mut inner = self.inner.lock().unwrap();
        let record = inner.records.remove(&id);
        inner.land(id);
        inner.queue(hook, due, id);
        if let Some(d) = record {
            inner.records.insert(id, d);
        }
    }

    /// The attempts of `ids` are settled in storage (durable): they leave the in-flight
    /// set, and those due again are queued at their new time.
    pub fn settle(&self, ids: impl IntoIterator<Item = u128>, due_again: &[Entry]) {
        let mut inner = self.inner.lock().unwrap();
        for id in ids {
            inner.land(id);
        }
        for &(hook, due, id) in due_again {
            inner.queue(hook, due, id);
        }
    }

    /// An attempt whose outcome could not be recorded: its stored entry is still there,
    /// so it is queued again as it was (and a resync checks the rest).
    pub fn abandon(&self, id: u128) {
        let mut inner = self.inner.lock().unwrap();
        if let Some((hook, due)) = inner.land(id) {
            inner.queue(hook, due, id);
        }
        drop(inner);
        self.request_resync();
    }

    /// A first attempt whose result could not be stored: queued again with its record,
    /// which exists nowhere else.
    pub fn restore(&self, d: DeliveryRecord) {
        let mut inner = self.inner.lock().unwrap();
        if let Some(due) = d.next_attempt_ms {
            inner.land(d.id);
            inner.queue(d.webhook_id, due.max(0), d.id);
            inner.records.insert(d.id, d);
        }
    }

    /// Queued entries (not in flight) and attempts in flight, for tests.
    #[cfg(test)]
    pub fn sizes(&self) -> (usize, usize) {
        let inner = self.inner.lock().unwrap();
        (
            inner.by_hook.values().map(BTreeSet::len).sum(),
            inner.in_flight.len(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::store::create_test_delivery;
    use crate::webhooks::test_support::{queued, subscribe};

    #[test]
    fn due_entries_are_taken_earliest_first_and_once_until_settled() {
        let q = DueQueue::default();
        q.add([(1, 30, 3), (1, 10, 1), (1, 20, 2), (1, 50, 5)]);
        let (taken, next) = q.take_due(1, 25, 8);
        assert_eq!(taken, vec![(10, 1), (20, 2)]);
        assert_eq!(next, Some(30));
        // At most `max`, and nothing for no permits.
        assert_eq!(q.take_due(1, 40, 0), (vec![], Some(50)));
        assert_eq!(q.take_due(1, 60, 1).0, vec![(30, 3)]);
        // A second entry of a delivery in flight waits (a resync can add one).
        q.add([(1, 15, 1)]);
        assert_eq!(q.take_due(1, 60, 8).0, vec![(50, 5)]);
        assert_eq!(q.sizes(), (1, 4));
        // Settled: out of flight; one failed attempt is due again.
        q.settle([1, 2, 3], &[(1, 70, 2)]);
        assert_eq!(q.take_due(1, 60, 8).0, vec![(15, 1)]);
        assert_eq!(q.take_due(1, 80, 8).0, vec![(70, 2)]);
        assert_eq!(q.take_due(2, 80, 8), (vec![], None));
    }

    #[test]
    fn a_resync_adds_what_only_storage_has_and_skips_attempts_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let hook = subscribe(&store);
        // Stored with their queue entries, not told to this copy (as after a restart).
        for now in [1, 2, 3] {
            create_test_delivery(&store, hook, now).unwrap();
        }
        store.durable_blocking().unwrap();
        let stored = queued(&store, hook);
        assert_eq!(stored.len(), 3);
        let q = DueQueue::new();
        assert_eq!(q.take_due(hook, i64::MAX, 8).0, vec![]);
        q.resync_if_asked(&store).unwrap();
        let (_, due, first) = stored[0];
        assert_eq!(q.take_due(hook, i64::MAX, 1).0, vec![(due as i64, first)]);
        // Asked again while the first is in flight: the others, not it again.
        q.request_resync();
        q.resync_if_asked(&store).unwrap();
        let rest: Vec<u128> = q
            .take_due(hook, i64::MAX, 8)
            .0
            .iter()
            .map(|e| e.1)
            .collect();
        assert_eq!(rest, vec![stored[1].2, stored[2].2]);
        // Not asked: storage is not read.
        q.settle([first], &[]);
        q.resync.store(false, Ordering::Release);
        q.resync_if_asked(&store).unwrap();
        assert_eq!(q.sizes(), (0, 2));
    }

    #[test]
    fn fanned_records_go_to_their_first_attempt_and_unfinished_counts_queued_and_in_flight() {
        let record = |hook: u128, id: u128, due: i64| DeliveryRecord {
            id,
            next_attempt_ms: Some(due),
            ..crate::webhooks::store::pending_delivery(hook, 1, "e", "k", "{}".into(), due)
        };
        let q = DueQueue::default();
        q.add_fanned([record(1, 10, 5), record(1, 11, 6), record(2, 20, 5)]);
        assert_eq!(
            (q.unfinished(1), q.unfinished(2), q.unfinished(3)),
            (2, 1, 0)
        );
        let taken = q.take_due(1, 5, 8).0;
        assert_eq!(taken, vec![(5, 10)]);
        // In flight still counts; its record is there once.
        assert_eq!(q.unfinished(1), 2);
        assert_eq!(q.unstored(), 3);
        assert_eq!(q.take_record(10).map(|d| d.id), Some(10));
        assert!(q.take_record(10).is_none());
        assert_eq!(q.unstored(), 2, "taken by its first attempt");
        // Not started: back with its record.
        assert_eq!(q.take_due(1, 6, 8).0, vec![(6, 11)]);
        q.put_back(1, 6, 11);
        assert_eq!(q.unfinished(1), 2);
        assert_eq!(q.take_due(1, 6, 8).0, vec![(6, 11)]);
        // Recording failed: queued again as stored; recorded: gone, or due again.
        q.abandon(10);
        assert_eq!(q.sizes(), (2, 1));
        assert_eq!(q.take_due(1, 6, 8).0, vec![(5, 10)]);
        q.settle([10, 11], &[(1, 90, 11)]);
        assert_eq!(q.unfinished(1), 1);
        assert!(
            q.take_record(11).is_none(),
            "a second attempt reads storage"
        );
        // Fanned out again while a resync's copy is in flight: not queued twice.
        q.add_fanned([record(2, 20, 5)]);
        assert_eq!(q.take_due(2, 5, 8).0, vec![(5, 20)]);
        q.add_fanned([record(2, 20, 5)]);
        assert_eq!((q.unfinished(2), q.sizes()), (1, (1, 1)));
    }
}
