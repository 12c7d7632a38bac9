//! Subscriptions and deliveries in storage: the transactions behind the API and the
//! engine. Every change of a delivery's schedule moves its `DeliveryQueue` entry in the
//! same transaction, so the queue always matches the records, across crashes.

mod attempts;
mod deliveries;
mod subscriptions;
mod types;

pub use attempts::{
    cancel_queued, fail_unsent, record_attempts, Finished, Outcome, Recorded, Rules,
};
pub use deliveries::{
    create_test_delivery, dequeue, enqueue, insert_delivery, list_deliveries, pending_delivery,
    prune, recover, remove_delivery, retry,
};
pub use subscriptions::{
    all, create, delete, disable, get, list, rotate_secret, update, NewWebhook, WebhookPatch,
};
pub use types::{new_id, WebhookError};
