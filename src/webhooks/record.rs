//! The recorder: writes finished attempts in batches, one transaction per batch.
//!
//! An attempt hands its outcome here and frees its subscription's permit as soon as the
//! HTTP exchange is over; the recorder gathers whatever has finished meanwhile into one
//! transaction and waits for its durability off the loop, so several batches can be in
//! flight. Why: a transaction per attempt, with its permits held until it is durable,
//! makes every delivery slot wait a full commit cycle per delivery; while orders are
//! being created (a commit cycle then takes tens to hundreds of milliseconds) the 40
//! slots of 10 subscriptions would deliver only ~100 deliveries/s.
//!
//! Until its batch is durable a delivery stays in flight in the due queue (`queue.rs`),
//! so the scheduler never picks it twice, and only then is it queued again at its next
//! due time if it failed (plain reads see the recorded result only once it is applied).
//! A crash before the batch is durable leaves the stored queue entries, and the
//! persisted cursors before the first attempts it held: those deliveries are sent again
//! (at least once, same id and bytes).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use storage::Store;
use tokio::sync::{mpsc, Semaphore};

use super::progress::Progress;
use super::store::{record_attempts, Finished, Outcome, Rules};
use super::Handle;
use crate::domain::time_fmt::now_ms;
use crate::metrics::Metrics;

/// Outcomes waiting for the recorder; a full channel makes attempts wait (holding
/// their global permit), which bounds `in_flight`.
pub const CHANNEL: usize = 1024;
/// Attempts recorded per transaction at most.
const BATCH: usize = 512;
/// Batches recorded but not yet confirmed durable, at most.
const OUTSTANDING: usize = 4;

/// What the recorder shares with the scheduler.
pub(super) struct Recording {
    pub store: Store,
    pub handle: Handle,
    pub rules: Rules,
    pub metrics: Arc<Metrics>,
}

/// Per subscription, the events whose first attempts a batch records.
pub(super) type Firsts = HashMap<u128, BTreeSet<u64>>;

/// The events whose first attempts `batch` records, per subscription, and the
/// persisted cursors it moves in the same transaction: up to the first event of each
/// subscription still open besides them.
pub(super) fn first_attempts(
    progress: &Progress,
    batch: &[Finished],
) -> (Firsts, Vec<(u128, u64)>) {
    let mut firsts = Firsts::new();
    for d in batch.iter().filter_map(|f| f.fresh.as_ref()) {
        firsts.entry(d.webhook_id).or_default().insert(d.event_seq);
    }
    let cursors = firsts
        .iter()
        .filter_map(|(hook, seqs)| Some((*hook, progress.cursor_after(*hook, seqs)?)))
        .collect();
    (firsts, cursors)
}

/// Runs until the sending side is dropped (the engine stopped).
pub(super) async fn run(shared: Recording, mut rx: mpsc::Receiver<Finished>) {
    let shared = Arc::new(shared);
    let outstanding = Arc::new(Semaphore::new(OUTSTANDING));
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        if rx.recv_many(&mut batch, BATCH).await == 0 {
            return;
        }
        let Ok(permit) = Arc::clone(&outstanding).acquire_owned().await else {
            return;
        };
        let mut due_again = Vec::new();
        let mut failed = false;
        let progress = &shared.handle.progress;
        let (firsts, cursors) = first_attempts(progress, &batch);
        match record_attempts(&shared.store, &batch, &cursors, &shared.rules, now_ms()) {
            Ok(recorded) => {
                for (hook, seqs) in firsts {
                    progress.recorded(hook, seqs);
                }
                due_again = recorded.due_again;
                for (id, reason) in &recorded.disabled {
                    let id = uuid::Uuid::from_u128(*id);
                    tracing::warn!(webhook = %id, %reason, "webhook subscription disabled");
                }
                let delivered = batch
                    .iter()
                    .filter(|f| matches!(f.outcome, Outcome::Delivered(_)))
                    .count() as u64;
                let counter = |outcome| shared.metrics.deliveries.with_label_values(&[outcome]);
                counter("delivered").inc_by(delivered);
                counter("failed_attempt").inc_by(batch.len() as u64 - delivered);
            }
            Err(e) => {
                failed = true;
                tracing::warn!(error = %e, attempts = batch.len(), "webhook attempts could not be recorded")
            }
        }
        let mut ids = Vec::with_capacity(batch.len());
        let mut unrecorded = Vec::new();
        for f in batch.drain(..) {
            ids.push(f.delivery_id);
            // Not stored: only memory can send it again.
            if failed {
                unrecorded.extend(f.fresh);
            }
        }
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let _ = shared.store.durable().await;
            let queue = &shared.handle.queue;
            if failed {
                // Their stored entries are unchanged: a resync brings them back.
                ids.iter().for_each(|id| queue.abandon(*id));
                unrecorded.into_iter().for_each(|d| queue.restore(d));
            } else {
                queue.settle(ids, &due_again);
            }
            drop(permit);
            shared.handle.wake();
            shared.handle.free_room();
        });
    }
}
