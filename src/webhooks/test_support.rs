//! Fixtures for the webhook engine's unit tests: events in the outbox, subscriptions,
//! and deliveries finished as the engine would finish them.

use super::progress::Progress;
use super::record::first_attempts;
use super::store::{create, record_attempts, Finished, NewWebhook, Outcome, Rules};
use crate::domain::events::new_event;
use storage::tables::DeliveriesByWebhook;
use storage::tables::{DeliveryQueue, Outbox};
use storage::Store;
use storage::{Attempt, DeliveryRecord};

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
        fresh: None,
    }
}

/// No retries, and a subscription is never disabled for failing.
pub(super) fn no_retries() -> Rules {
    Rules {
        delays: Vec::new(),
        disable_after: std::time::Duration::from_secs(86_400),
    }
}

/// Records a successful first attempt of each of `made` (deliveries fan-out made in
/// memory), as the recorder would: stored, and the persisted cursors moved.
pub(super) fn deliver_fresh(store: &Store, progress: &Progress, made: Vec<DeliveryRecord>) {
    let batch: Vec<Finished> = made
        .into_iter()
        .map(|d| Finished {
            fresh: Some(d.clone()),
            ..success(d.id, d.next_attempt_ms.unwrap() as u64)
        })
        .collect();
    let (firsts, cursors) = first_attempts(progress, &batch);
    let n = record_attempts(store, &batch, &cursors, &no_retries(), 1)
        .unwrap()
        .attempts;
    assert_eq!(n, batch.len());
    for (hook, seqs) in firsts {
        progress.recorded(hook, seqs);
    }
    store.durable_blocking().unwrap();
}
