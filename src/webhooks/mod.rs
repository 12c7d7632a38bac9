//! Outbound webhooks: subscriptions, the persistent delivery queue, signing and the
//! engine that sends.
//!
//! - `dispatch`: reads the outbox after each subscription's progress (`progress`) and
//!   creates, in memory, one delivery per (event, active subscription listing its type);
//!   a subscription with too many unfinished deliveries waits in the outbox
//!   (backpressure). A delivery is first stored with its first attempt's result.
//! - `deliver`: the scheduler takes due entries from the in-memory copy of the
//!   `DeliveryQueue` table (`queue`, one queue per subscription) and runs each attempt
//!   as a tokio task under a global bound and a per-subscription bound;
//! - `record`: results are recorded in batches, each in a transaction that moves the
//!   queue entries and the persisted cursors past the events it recorded.
//! - `store`: the transactions behind the API and the engine; `sign`: the signature.

pub mod deliver;
pub mod dispatch;
pub mod hints;
mod ids;
pub mod lag;
pub mod outbox;
mod progress;
mod queue;
mod record;
pub mod sign;
pub mod store;
mod targets;
#[cfg(test)]
mod test_support;

use std::sync::Arc;

use tokio::sync::Notify;

use progress::Progress;
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
    /// Fan-out's progress per subscription, ahead of the persisted cursors.
    pub(crate) progress: Arc<Progress>,
}

impl Default for Handle {
    fn default() -> Handle {
        Handle {
            wake: Arc::default(),
            room: Arc::default(),
            queue: Arc::new(DueQueue::new()),
            progress: Arc::default(),
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
