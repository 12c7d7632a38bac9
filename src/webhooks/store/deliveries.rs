//! Deliveries: their records with the per-subscription index and the `DeliveryQueue`
//! entry, and the API's transactions on them (test event, listing, retry, recover,
//! retention pruning).

use storage::tables::{Deliveries, DeliveriesByWebhook, DeliveryQueue, Webhooks};
use storage::{abort, DeliveryRecord, DeliveryStatus, Store, Tx, TxError, TxFail};

use crate::domain::events::INVENTORY_ADJUSTED;
use crate::domain::time_fmt::rfc3339;

use super::types::{new_id, ok, TxResult, WebhookError};
use crate::webhooks::sign::envelope;

/// Puts `d` in the queue at its `next_attempt_ms` (callers removed any older entry).
pub fn enqueue(tx: &Tx<'_>, d: &DeliveryRecord) -> Result<(), TxFail> {
    if let Some(due) = d.next_attempt_ms {
        tx.insert::<DeliveryQueue>(&(d.webhook_id, due.max(0) as u64, d.id), &())?;
    }
    Ok(())
}

/// Removes `d`'s queue entry, if it has one.
pub fn dequeue(tx: &Tx<'_>, d: &DeliveryRecord) -> Result<(), TxFail> {
    if let Some(due) = d.next_attempt_ms {
        tx.remove::<DeliveryQueue>(&(d.webhook_id, due.max(0) as u64, d.id))?;
    }
    Ok(())
}

/// Stores a new delivery with its index and queue entries.
pub fn insert_delivery(tx: &Tx<'_>, d: &DeliveryRecord) -> Result<(), TxFail> {
    tx.insert::<Deliveries>(&d.id, d)?;
    tx.insert::<DeliveriesByWebhook>(&(d.webhook_id, d.id), &())?;
    enqueue(tx, d)
}

/// Removes a delivery with its index and queue entries.
pub fn remove_delivery(tx: &Tx<'_>, d: &DeliveryRecord) -> Result<(), TxFail> {
    dequeue(tx, d)?;
    tx.remove::<DeliveriesByWebhook>(&(d.webhook_id, d.id))?;
    tx.remove::<Deliveries>(&d.id)
}

pub fn pending_delivery(
    webhook_id: u128,
    event_seq: u64,
    event_id: &str,
    kind: &str,
    body: String,
    now: i64,
) -> DeliveryRecord {
    DeliveryRecord {
        id: new_id(),
        webhook_id,
        event_seq,
        event_id: event_id.to_string(),
        event_kind: kind.to_string(),
        body,
        status: DeliveryStatus::Pending,
        attempts: Vec::new(),
        round_start: 0,
        next_attempt_ms: Some(now),
        reason: None,
        created_at_ms: now,
        updated_at_ms: now,
    }
}

/// Queues a signed sample event for the subscription, due at once. Its type is the
/// first kind the subscription lists (`inventory.adjusted` if none) and its data says
/// it is a test.
pub fn create_test_delivery(store: &Store, id: u128, now: i64) -> TxResult<DeliveryRecord> {
    store.transact(|tx| {
        let Some(rec) = tx.get::<Webhooks>(&id)? else {
            return abort(WebhookError::NotFound);
        };
        let kind = rec
            .events
            .first()
            .cloned()
            .unwrap_or_else(|| INVENTORY_ADJUSTED.to_string());
        let event_id = format!("evt_{}", uuid::Uuid::now_v7().simple());
        let data = serde_json::json!({
            "test": true,
            "webhookId": uuid::Uuid::from_u128(id).to_string(),
            "message": "A sample event sent by POST /api/webhooks/{id}/test.",
        });
        let body = envelope(&event_id, &kind, &rfc3339(now), &data.to_string());
        let d = pending_delivery(id, 0, &event_id, &kind, body, now);
        insert_delivery(tx, &d)?;
        ok(d)
    })
}

/// A page of one subscription's deliveries, newest first, optionally of one status.
pub fn list_deliveries(
    store: &Store,
    webhook_id: u128,
    status: Option<DeliveryStatus>,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<DeliveryRecord>, u64)> {
    let prefix = webhook_id.to_be_bytes();
    let mut page = Vec::new();
    let mut total = 0u64;
    for key in store.keys_with_prefix::<DeliveriesByWebhook>(&prefix).rev() {
        let (_, delivery_id) = key?;
        if status.is_none() {
            total += 1;
            if total as usize > offset && page.len() < limit {
                if let Some(d) = store.get::<Deliveries>(&delivery_id)? {
                    page.push(d);
                }
            }
            continue;
        }
        let Some(d) = store.get::<Deliveries>(&delivery_id)? else {
            continue;
        };
        if Some(d.status) == status {
            total += 1;
            if total as usize > offset && page.len() < limit {
                page.push(d);
            }
        }
    }
    Ok((page, total))
}

fn requeue(tx: &Tx<'_>, d: &mut DeliveryRecord, now: i64) -> Result<(), TxFail> {
    dequeue(tx, d)?;
    d.status = DeliveryStatus::Pending;
    d.round_start = d.attempts.len() as u32;
    d.next_attempt_ms = Some(now);
    d.reason = None;
    d.updated_at_ms = now;
    tx.insert::<Deliveries>(&d.id, d)?;
    enqueue(tx, d)
}

/// Re-queues one failed delivery for a new round of the retry schedule, due at once.
pub fn retry(
    store: &Store,
    webhook_id: u128,
    delivery_id: u128,
    now: i64,
) -> TxResult<DeliveryRecord> {
    store.transact(|tx| {
        if !tx.contains::<Webhooks>(&webhook_id)? {
            return abort(WebhookError::NotFound);
        }
        let Some(mut d) = tx
            .get::<Deliveries>(&delivery_id)?
            .filter(|d| d.webhook_id == webhook_id)
        else {
            return abort(WebhookError::DeliveryNotFound);
        };
        if d.status != DeliveryStatus::Failed {
            return abort(WebhookError::NotFailed);
        }
        requeue(tx, &mut d, now)?;
        ok(d)
    })
}

/// Re-queues every failed delivery of the subscription created at or after `since_ms`;
/// returns how many. Candidates are listed first (transactions read points only), then
/// re-checked inside the transactions, in chunks.
pub fn recover(store: &Store, webhook_id: u128, since_ms: i64, now: i64) -> TxResult<u64> {
    if store
        .get::<Webhooks>(&webhook_id)
        .map_err(TxError::Storage)?
        .is_none()
    {
        return Err(TxError::Aborted(WebhookError::NotFound));
    }
    let mut candidates = Vec::new();
    for key in store.keys_with_prefix::<DeliveriesByWebhook>(&webhook_id.to_be_bytes()) {
        let (_, id) = key.map_err(TxError::Storage)?;
        if let Some(d) = store.get::<Deliveries>(&id).map_err(TxError::Storage)? {
            if d.status == DeliveryStatus::Failed && d.created_at_ms >= since_ms {
                candidates.push(id);
            }
        }
    }
    let mut n = 0;
    for chunk in candidates.chunks(256) {
        n += store.transact(|tx| {
            let mut n = 0u64;
            for id in chunk {
                if let Some(mut d) = tx.get::<Deliveries>(id)? {
                    if d.status == DeliveryStatus::Failed {
                        requeue(tx, &mut d, now)?;
                        n += 1;
                    }
                }
            }
            ok(n)
        })?;
    }
    Ok(n)
}

/// Removes delivered and failed deliveries last changed before `cutoff_ms`; returns
/// how many.
pub fn prune(store: &Store, cutoff_ms: i64) -> storage::Result<usize> {
    let mut old = Vec::new();
    for entry in store.iter::<Deliveries>() {
        let (id, d) = entry?;
        if d.status != DeliveryStatus::Pending && d.updated_at_ms < cutoff_ms {
            old.push(id);
        }
    }
    let mut n = 0;
    for chunk in old.chunks(256) {
        let r = store.transact(|tx| {
            let mut n = 0;
            for id in chunk {
                if let Some(d) = tx.get::<Deliveries>(id)? {
                    if d.status != DeliveryStatus::Pending && d.updated_at_ms < cutoff_ms {
                        remove_delivery(tx, &d)?;
                        n += 1;
                    }
                }
            }
            ok(n)
        });
        match r {
            Ok(k) => n += k,
            Err(TxError::Storage(e)) => return Err(e),
            Err(TxError::Aborted(_)) => {}
        }
    }
    Ok(n)
}
