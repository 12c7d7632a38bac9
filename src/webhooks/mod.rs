//! Outbound webhooks: subscriptions, the persistent delivery queue, signing and the
//! engine that sends.
//!
//! - `dispatch`: reads the outbox after each subscription's persisted cursor and, in one
//!   transaction per pass, creates one delivery per (event, active subscription listing
//!   its type) with its queue entry and advances the cursors; a subscription with too
//!   many unfinished deliveries waits in the outbox (backpressure).
//! - `deliver`: the scheduler takes due entries from the in-memory copy of the
//!   `DeliveryQueue` table (`queue`, one queue per subscription) and runs each attempt
//!   as a tokio task under a global bound and a per-subscription bound;
//! - `record`: results are recorded in batches, each in a transaction that moves the
//!   queue entries.
//! - `store`: the transactions behind the API and the engine; `sign`: the signature.

pub mod deliver;
pub mod dispatch;
pub mod hints;
pub mod lag;
pub mod outbox;
mod queue;
mod record;
pub mod sign;
pub mod store;
#[cfg(test)]
mod test_support;

use std::sync::Arc;

use tokio::sync::Notify;

use queue::DueQueue;

/// Wakes the engine when new work may be due (an API call queued a delivery, the
/// dispatcher created some, an attempt finished), and holds its due queue. Wakes are
/// hints: the engine also polls.
#[derive(Clone)]
pub struct Handle {
    wake: Arc<Notify>,
    /// Recorded attempts freed room under a subscription's fan-out bound.
    room: Arc<Notify>,
    pub(crate) queue: Arc<DueQueue>,
}

impl Default for Handle {
    fn default() -> Handle {
        Handle {
            wake: Arc::default(),
            room: Arc::default(),
            queue: Arc::new(DueQueue::new()),
        }
    }
}

impl Handle {
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Wakes the engine once everything committed so far is applied and durable, so
    /// that its plain reads see a delivery a request just queued.
    pub fn wake_when_durable(&self, store: &storage::Store) {
        let (store, handle) = (store.clone(), self.clone());
        tokio::spawn(async move {
            let _ = store.durable().await;
            handle.wake();
        });
    }

    /// Wakes the engine once everything committed so far is durable, telling it to read
    /// the stored queue again: a request queued deliveries itself (test, retry,
    /// recover).
    pub fn requeued_when_durable(&self, store: &storage::Store) {
        let (store, handle) = (store.clone(), self.clone());
        tokio::spawn(async move {
            let _ = store.durable().await;
            handle.queue.request_resync();
            handle.wake();
        });
    }

    pub(crate) async fn woken(&self) {
        self.wake.notified().await;
    }

    pub(crate) fn free_room(&self) {
        self.room.notify_one();
    }

    pub(crate) async fn room_freed(&self) {
        self.room.notified().await;
    }
}
