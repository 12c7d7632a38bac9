//! Deliveries: their records with the per-subscription index and the `DeliveryQueue`
//! entry, the envelope each sends (stored once per event), and the API's transactions
//! on them (test event, listing, retry, recover, retention pruning).

use std::collections::HashSet;

use storage::tables::{
    Deliveries, DeliveriesByWebhook, DeliveryQueue, Envelopes, WebhookCursors, Webhooks,
};
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

/// The envelope bytes `d` sends: a test event's own, or its event's stored once for all
/// its deliveries; `None` if that is missing (never, short of a damaged database).
pub fn stored_body(store: &Store, d: &DeliveryRecord) -> storage::Result<Option<String>> {
    match &d.own_body {
        Some(body) => Ok(Some(body.clone())),
        None => store.get::<Envelopes>(&d.event_seq),
    }
}

/// A new pending delivery of outbox event `event_seq` (whose envelope fan-out stores in
/// `Envelopes`), or with `own_body` its own envelope (a test event, sequence 0).
pub fn pending_delivery(
    webhook_id: u128,
    event_seq: u64,
    event_id: &str,
    kind: &str,
    own_body: Option<String>,
    now: i64,
) -> DeliveryRecord {
    DeliveryRecord {
        id: new_id(),
        webhook_id,
        event_seq,
        event_id: event_id.to_string(),
        event_kind: kind.to_string(),
        own_body,
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
        let d = pending_delivery(id, 0, &event_id, &kind, Some(body), now);
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

/// Removes delivered and failed deliveries last changed before `cutoff_ms`, then the
/// envelopes no delivery needs any more; returns how many deliveries.
///
/// An envelope goes once no remaining delivery is of its event and every subscription's
/// fan-out cursor has passed it (no delivery of it can be created again). The cursors
/// are read first: a delivery of an event before the lowest of them was committed
/// before that cursor moved, so the scan that follows sees it.
pub fn prune(store: &Store, cutoff_ms: i64) -> storage::Result<usize> {
    let mut passed = u64::MAX;
    for cursor in store.iter::<WebhookCursors>() {
        passed = passed.min(cursor?.1);
    }
    let mut old = Vec::new();
    let mut needed = HashSet::new();
    for entry in store.iter::<Deliveries>() {
        let (id, d) = entry?;
        if d.status != DeliveryStatus::Pending && d.updated_at_ms < cutoff_ms {
            old.push(id);
        } else {
            needed.insert(d.event_seq);
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
                    } else {
                        needed.insert(d.event_seq);
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
    let unneeded = store
        .keys::<Envelopes>()
        .take_while(|k| k.as_ref().map_or(true, |seq| *seq < passed))
        .filter(|k| k.as_ref().map_or(true, |seq| !needed.contains(seq)))
        .collect::<storage::Result<Vec<u64>>>()?;
    for chunk in unneeded.chunks(1000) {
        let r = store.transact(|tx| {
            for seq in chunk {
                tx.remove::<Envelopes>(seq)?;
            }
            ok(())
        });
        if let Err(TxError::Storage(e)) = r {
            return Err(e);
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhooks::dispatch::fan_out_all;
    use crate::webhooks::test_support::{deliver_all, emit, queued, subscribe};
    use storage::{ExportItem, Import, Key, SnapshotInfo, Table};

    /// Rewrites `from` into a new database at `to` as schema 6 stored it: every delivery
    /// with its own copy of its envelope, no `Envelopes`.
    fn as_schema_6(from: &Store, to: &std::path::Path) {
        let mut imp = Import::create(to).unwrap();
        let mut skip = false;
        let mut next_id = 0;
        from.export(&mut |item| {
            match item {
                ExportItem::Begin(info) => next_id = info.next_id,
                ExportItem::Table(name) => {
                    skip = name == Deliveries::NAME || name == Envelopes::NAME;
                    imp.table(name).unwrap();
                }
                ExportItem::Entry { key, value } if !skip => {
                    let version = "schema_version".to_string().encode();
                    let six = [1u8, 6]; // format tag, bincode varint 6
                    let value = if key == version.as_slice() {
                        &six
                    } else {
                        value
                    };
                    imp.entry(key, value).unwrap();
                }
                ExportItem::Entry { .. } => {}
            }
            Ok(())
        })
        .unwrap();
        for row in from.iter::<Deliveries>() {
            let d = row.unwrap().1;
            let body = stored_body(from, &d).unwrap().unwrap();
            let (tree, bytes) = storage::schema_6_delivery(&d, &body);
            imp.table(tree).unwrap();
            imp.entry(&d.id.encode(), &bytes).unwrap();
        }
        let info = SnapshotInfo {
            schema_version: 6,
            next_id,
        };
        imp.finish(info).unwrap();
    }

    #[test]
    fn pending_deliveries_of_a_schema_6_database_send_the_same_bytes_after_migrating() {
        let dir = tempfile::tempdir().unwrap();
        let old = Store::open(&dir.path().join("old"), &Default::default()).unwrap();
        let hook = subscribe(&old);
        emit(&old, 3, |i| i as i64);
        fan_out_all(&old, 100);
        create_test_delivery(&old, hook, 5).unwrap();
        old.durable_blocking().unwrap();
        let before: Vec<(DeliveryRecord, String)> = old
            .iter::<Deliveries>()
            .map(|r| r.unwrap().1)
            .map(|d| {
                let body = stored_body(&old, &d).unwrap().unwrap();
                (d, body)
            })
            .collect();
        assert_eq!(before.len(), 4);
        let six = dir.path().join("six");
        as_schema_6(&old, &six);
        drop(old);

        let store = Store::open(&six, &Default::default()).unwrap();
        assert_eq!(queued(&store, hook).len(), 4, "all four still queued");
        for (d, body) in &before {
            let now = store.get::<Deliveries>(&d.id).unwrap().unwrap();
            assert_eq!(&now, d, "the record as it was");
            assert_eq!(now.status, DeliveryStatus::Pending);
            let sent = stored_body(&store, &now).unwrap().unwrap();
            assert_eq!(&sent, body, "the same bytes");
            assert!(sent.contains(&now.event_id));
        }
        // One envelope per outbox event; the test event keeps its own.
        assert_eq!(store.keys::<Envelopes>().count(), 3);
        // A retry sends the same bytes again.
        let (d, body) = &before[0];
        let mut failed = d.clone();
        store
            .transact(|tx| {
                dequeue(tx, &failed)?;
                failed.status = DeliveryStatus::Failed;
                failed.next_attempt_ms = None;
                tx.insert::<Deliveries>(&failed.id, &failed)?;
                ok(())
            })
            .unwrap();
        let again = retry(&store, hook, d.id, 9).unwrap();
        assert_eq!(stored_body(&store, &again).unwrap().as_ref(), Some(body));
    }

    #[test]
    fn an_envelope_is_stored_once_per_event_and_pruned_with_its_last_delivery() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let (a, b) = (subscribe(&store), subscribe(&store));
        emit(&store, 4, |i| i as i64);
        fan_out_all(&store, 100);
        assert_eq!(store.keys::<Deliveries>().count(), 8);
        assert_eq!(store.keys::<Envelopes>().count(), 4, "one per event");
        // Delivered to one subscription only: the other's pending deliveries need them.
        assert_eq!(deliver_all(&store, a), 4);
        assert_eq!(prune(&store, i64::MAX).unwrap(), 4);
        assert_eq!(store.keys::<Envelopes>().count(), 4);
        for (_, _, id) in queued(&store, b) {
            let d = store.get::<Deliveries>(&id).unwrap().unwrap();
            assert!(stored_body(&store, &d).unwrap().is_some());
        }
        assert_eq!(deliver_all(&store, b), 4);
        assert_eq!(prune(&store, i64::MAX).unwrap(), 4);
        store.durable_blocking().unwrap();
        assert_eq!(store.keys::<Envelopes>().count(), 0);
    }
}
