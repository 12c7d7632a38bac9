//! Fixtures for the webhook engine's unit tests: events in the outbox, subscriptions,
//! and deliveries finished as the engine would finish them.

use super::store::{create, record_attempts, Finished, NewWebhook, Outcome, Rules};
use crate::domain::events::new_event;
use storage::tables::DeliveriesByWebhook;
use storage::tables::{DeliveryQueue, Outbox};
use storage::Attempt;
use storage::Store;

pub(super) fn emit(store: &Store, n: usize, at_ms: impl Fn(usize) -> i64) {
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

pub(super) fn subscribe(store: &Store) -> u128 {
    let hook = NewWebhook {
        url: "https://127.0.0.1:9/hook".into(),
        events: vec!["inventory.adjusted".into()],
        secret: "s".into(),
        is_active: true,
        scheme: storage::SignatureScheme::Fulfilld,
        ordered: false,
    };
    create(store, hook, 0).unwrap().id
}

pub(super) fn queued(store: &Store, id: u128) -> Vec<(u128, u64, u128)> {
    store
        .keys_with_prefix::<DeliveryQueue>(&id.to_be_bytes())
        .map(|k| k.unwrap())
        .collect()
}

pub(super) fn stored(store: &Store, id: u128) -> usize {
    store
        .keys_with_prefix::<DeliveriesByWebhook>(&id.to_be_bytes())
        .count()
}

pub(super) fn outbox(store: &Store) -> Vec<u64> {
    store.keys::<Outbox>().map(|k| k.unwrap()).collect()
}

/// A first attempt that succeeded, as the engine records it.
pub(super) fn success(delivery_id: u128, due: u64) -> Finished {
    Finished {
        delivery_id,
        due_ms: due as i64,
        outcome: Outcome::Delivered(Attempt {
            at_ms: 1,
            status_code: Some(200),
            latency_ms: 1,
            error: None,
        }),
        not_before_ms: None,
    }
}

/// No retries, and a subscription is never disabled for failing.
pub(super) fn no_retries() -> Rules {
    Rules {
        delays: Vec::new(),
        disable_after: std::time::Duration::from_secs(86_400),
    }
}

/// Marks every queued delivery of `id` delivered, as the engine would.
pub(super) fn deliver_all(store: &Store, id: u128) -> usize {
    let done: Vec<Finished> = queued(store, id)
        .into_iter()
        .map(|(_, due, delivery_id)| success(delivery_id, due))
        .collect();
    let n = record_attempts(store, &done, &no_retries(), 1)
        .unwrap()
        .attempts;
    store.durable_blocking().unwrap();
    n
}
