//! Subscriptions: create, read, update and delete, each in one transaction that also keeps
//! the per-kind counts of active subscriptions and the subscription's fan-out cursor.

use storage::tables::{Meta, WebhookCursors, Webhooks};
use storage::{abort, Store, Tx, TxFail, WebhookRecord};

use super::types::{new_id, ok, TxResult, WebhookError};

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
