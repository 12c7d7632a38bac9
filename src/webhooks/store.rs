//! Subscriptions and deliveries in storage: the transactions behind the API and the
//! engine. Every change of a delivery's schedule moves its `DeliveryQueue` entry in the
//! same transaction, so the queue always matches the records, across crashes.

use storage::tables::{
    Deliveries, DeliveriesByWebhook, DeliveryQueue, Meta, WebhookCursors, Webhooks,
};
use storage::{
    abort, Abort, Attempt, DeliveryRecord, DeliveryStatus, Store, Tx, TxError, TxFail,
    WebhookRecord,
};

use crate::domain::events::INVENTORY_ADJUSTED;
use crate::domain::time_fmt::rfc3339;

use super::sign::envelope;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    NotFound,
    DeliveryNotFound,
    /// Only a failed delivery can be retried by hand.
    NotFailed,
}

pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub secret: String,
    pub is_active: bool,
}

#[derive(Default)]
pub struct WebhookPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub secret: Option<String>,
    pub is_active: Option<bool>,
}

type TxResult<T> = Result<T, TxError<WebhookError>>;

fn ok<T>(v: T) -> Result<T, Abort<WebhookError>> {
    Ok(v)
}

pub fn new_id() -> u128 {
    uuid::Uuid::now_v7().as_u128()
}

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

/// Adds `delta` to the count of active subscriptions wanting each kind `rec` lists (see
/// `domain::events::emit`): +1 when it is stored, -1 when that version goes.
fn count_wanted(tx: &Tx<'_>, rec: &WebhookRecord, delta: i64) -> Result<(), TxFail> {
    if !rec.is_active {
        return Ok(());
    }
    for kind in &rec.events {
        let key = storage::wanted_kind_key(kind);
        let n = tx
            .get::<Meta>(&key)?
            .unwrap_or(0)
            .saturating_add_signed(delta);
        if n == 0 {
            tx.remove::<Meta>(&key)?;
        } else {
            tx.insert::<Meta>(&key, &n)?;
        }
    }
    Ok(())
}

pub fn create(store: &Store, new: NewWebhook, now: i64) -> TxResult<WebhookRecord> {
    store.transact(|tx| {
        let rec = WebhookRecord {
            id: new_id(),
            url: new.url.clone(),
            events: new.events.clone(),
            secret: new.secret.clone(),
            is_active: new.is_active,
            created_seq: tx.next_id()?,
            created_at_ms: now,
            updated_at_ms: now,
        };
        tx.insert::<Webhooks>(&rec.id, &rec)?;
        count_wanted(tx, &rec, 1)?;
        // Fan-out to it starts after the events that existed before it.
        tx.insert::<WebhookCursors>(&rec.id, &(rec.created_seq + 1))?;
        ok(rec)
    })
}

pub fn get(store: &Store, id: u128) -> storage::Result<Option<WebhookRecord>> {
    store.get::<Webhooks>(&id)
}

/// Every subscription (they are few), oldest first.
pub fn all(store: &Store) -> storage::Result<Vec<WebhookRecord>> {
    store
        .iter::<Webhooks>()
        .map(|r| r.map(|(_, v)| v))
        .collect()
}

/// A page of subscriptions, newest first, and the total.
pub fn list(
    store: &Store,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<WebhookRecord>, u64)> {
    let all = all(store)?;
    let total = all.len() as u64;
    Ok((
        all.into_iter().rev().skip(offset).take(limit).collect(),
        total,
    ))
}

pub fn update(store: &Store, id: u128, patch: WebhookPatch, now: i64) -> TxResult<WebhookRecord> {
    store.transact(|tx| {
        let Some(mut rec) = tx.get::<Webhooks>(&id)? else {
            return abort(WebhookError::NotFound);
        };
        count_wanted(tx, &rec, -1)?;
        if let Some(url) = &patch.url {
            rec.url = url.clone();
        }
        if let Some(events) = &patch.events {
            rec.events = events.clone();
        }
        if let Some(secret) = &patch.secret {
            rec.secret = secret.clone();
        }
        if let Some(active) = patch.is_active {
            rec.is_active = active;
        }
        rec.updated_at_ms = now;
        tx.insert::<Webhooks>(&id, &rec)?;
        count_wanted(tx, &rec, 1)?;
        ok(rec)
    })
}

/// Deletes the subscription. Its deliveries are removed lazily: the scheduler drops a
/// queued one when it comes due, and retention pruning removes the finished ones.
pub fn delete(store: &Store, id: u128) -> TxResult<WebhookRecord> {
    store.transact(|tx| {
        let Some(rec) = tx.get::<Webhooks>(&id)? else {
            return abort(WebhookError::NotFound);
        };
        tx.remove::<Webhooks>(&id)?;
        tx.remove::<WebhookCursors>(&id)?;
        count_wanted(tx, &rec, -1)?;
        ok(rec)
    })
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

/// What became of one attempt.
pub enum Outcome {
    Delivered(Attempt),
    Failed(Attempt),
}

/// One finished attempt of the delivery that was due at `due_ms`.
pub struct Finished {
    pub delivery_id: u128,
    pub due_ms: i64,
    pub outcome: Outcome,
}

/// Records a batch of attempts in one transaction and moves each queue entry:
/// delivered, failed for good after the last attempt of the round, or due again after
/// the next delay. One transaction per batch instead of per attempt, because under load
/// every transaction waits its turn at the single writer and then for a flush. An
/// attempt whose delivery changed meanwhile writes nothing; returns how many were
/// recorded.
pub fn record_attempts(
    store: &Store,
    batch: &[Finished],
    delays: &[std::time::Duration],
    now: i64,
) -> storage::Result<usize> {
    let r = store.transact(|tx| {
        let mut n = 0;
        for f in batch {
            n += apply_attempt(tx, f, delays, now)? as usize;
        }
        ok(n)
    });
    match r {
        Ok(n) => Ok(n),
        Err(TxError::Storage(e)) => Err(e),
        Err(TxError::Aborted(_)) => Ok(0),
    }
}

fn apply_attempt(
    tx: &Tx<'_>,
    f: &Finished,
    delays: &[std::time::Duration],
    now: i64,
) -> Result<bool, TxFail> {
    let Some(mut d) = tx.get::<Deliveries>(&f.delivery_id)? else {
        return Ok(false);
    };
    if d.status != DeliveryStatus::Pending || d.next_attempt_ms != Some(f.due_ms) {
        return Ok(false);
    }
    dequeue(tx, &d)?;
    d.updated_at_ms = now;
    match &f.outcome {
        Outcome::Delivered(a) => {
            d.attempts.push(a.clone());
            d.status = DeliveryStatus::Delivered;
            d.next_attempt_ms = None;
        }
        Outcome::Failed(a) => {
            d.attempts.push(a.clone());
            let in_round = d.attempts.len().saturating_sub(d.round_start as usize);
            match delays.get(in_round - 1) {
                Some(delay) => d.next_attempt_ms = Some(now + delay.as_millis() as i64),
                None => {
                    d.status = DeliveryStatus::Failed;
                    d.next_attempt_ms = None;
                }
            }
        }
    }
    tx.insert::<Deliveries>(&d.id, &d)?;
    enqueue(tx, &d)?;
    Ok(true)
}

/// Ends a queued delivery without sending it: dropped when its subscription is gone,
/// failed with `reason` when the subscription is inactive.
pub fn cancel_queued(
    store: &Store,
    webhook_id: u128,
    delivery_id: u128,
    due_ms: i64,
    reason: Option<&str>,
    now: i64,
) -> storage::Result<()> {
    let r = store.transact(|tx| {
        let Some(mut d) = tx.get::<Deliveries>(&delivery_id)? else {
            tx.remove::<DeliveryQueue>(&(webhook_id, due_ms.max(0) as u64, delivery_id))?;
            return ok(());
        };
        if d.next_attempt_ms != Some(due_ms) {
            tx.remove::<DeliveryQueue>(&(webhook_id, due_ms.max(0) as u64, delivery_id))?;
            return ok(());
        }
        match reason {
            None => remove_delivery(tx, &d)?,
            Some(reason) => {
                dequeue(tx, &d)?;
                d.status = DeliveryStatus::Failed;
                d.next_attempt_ms = None;
                d.reason = Some(reason.to_string());
                d.updated_at_ms = now;
                tx.insert::<Deliveries>(&d.id, &d)?;
            }
        }
        ok(())
    });
    match r {
        Ok(()) | Err(TxError::Aborted(_)) => Ok(()),
        Err(TxError::Storage(e)) => Err(e),
    }
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
