//! Subscriptions: create, read, update, rotate and delete, each in one transaction that
//! also keeps the per-kind counts of active subscriptions and the subscription's fan-out
//! cursor; and the engine's disabling of a subscription its receiver turned away.

use storage::tables::{Meta, WebhookCursors, Webhooks};
use storage::{abort, PreviousSecret, SignatureScheme, Store, Tx, TxFail, WebhookRecord};

use super::types::{new_id, ok, TxResult, WebhookError};
use crate::webhooks::sign::standard_key;

pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub secret: String,
    pub is_active: bool,
    pub scheme: SignatureScheme,
    pub ordered: bool,
}

#[derive(Default)]
pub struct WebhookPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub secret: Option<String>,
    pub is_active: Option<bool>,
    pub scheme: Option<SignatureScheme>,
    pub ordered: Option<bool>,
}

/// A Standard Webhooks subscription needs a `whsec_` secret its receivers can decode.
fn check_secret(rec: &WebhookRecord) -> Result<(), storage::Abort<WebhookError>> {
    if rec.scheme == SignatureScheme::StandardWebhooks && standard_key(&rec.secret).is_none() {
        return abort(WebhookError::SecretNotStandard);
    }
    Ok(())
}

/// Adds `delta` to the count of active subscriptions wanting each kind `rec` lists (see
/// `domain::events::emit`): +1 when it is stored, -1 when that version goes.
pub(super) fn count_wanted(tx: &Tx<'_>, rec: &WebhookRecord, delta: i64) -> Result<(), TxFail> {
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
            scheme: new.scheme,
            previous_secret: None,
            disabled_reason: None,
            disabled_at_ms: None,
            ordered: new.ordered,
            failing_since_ms: None,
        };
        check_secret(&rec)?;
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
        // A secret set by hand or a new scheme ends a rotation's grace period at once.
        if let Some(secret) = &patch.secret {
            rec.secret = secret.clone();
            rec.previous_secret = None;
        }
        if let Some(scheme) = patch.scheme.filter(|s| *s != rec.scheme) {
            rec.scheme = scheme;
            rec.previous_secret = None;
        }
        if let Some(ordered) = patch.ordered {
            rec.ordered = ordered;
        }
        if let Some(active) = patch.is_active {
            // A client's choice replaces fulfilld's: the reason goes, and a subscription
            // turned on again starts with a clean record of failures.
            if active && !rec.is_active {
                rec.failing_since_ms = None;
            }
            rec.is_active = active;
            rec.disabled_reason = None;
            rec.disabled_at_ms = None;
        }
        check_secret(&rec)?;
        rec.updated_at_ms = now;
        tx.insert::<Webhooks>(&id, &rec)?;
        count_wanted(tx, &rec, 1)?;
        ok(rec)
    })
}

/// Replaces the secret with `secret`; the old one keeps signing (beside the new one)
/// for `grace_ms` (none if 0).
pub fn rotate_secret(
    store: &Store,
    id: u128,
    secret: &str,
    grace_ms: i64,
    now: i64,
) -> TxResult<WebhookRecord> {
    store.transact(|tx| {
        let Some(mut rec) = tx.get::<Webhooks>(&id)? else {
            return abort(WebhookError::NotFound);
        };
        let old = std::mem::replace(&mut rec.secret, secret.to_string());
        rec.previous_secret = (grace_ms > 0).then(|| PreviousSecret {
            secret: old,
            expires_at_ms: now + grace_ms,
        });
        rec.updated_at_ms = now;
        check_secret(&rec)?;
        tx.insert::<Webhooks>(&id, &rec)?;
        ok(rec)
    })
}

/// Turns `rec` off for `reason` (the engine's decision, shown to clients), keeping the
/// per-kind counts; the caller stores it.
pub fn disable(tx: &Tx<'_>, rec: &mut WebhookRecord, reason: &str, now: i64) -> Result<(), TxFail> {
    count_wanted(tx, rec, -1)?;
    rec.is_active = false;
    rec.disabled_reason = Some(reason.to_string());
    rec.disabled_at_ms = Some(now);
    rec.updated_at_ms = now;
    Ok(())
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
