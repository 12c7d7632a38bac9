//! Attempts: the engine's results recorded in batches, each moving its delivery's queue
//! entry and keeping its subscription's record of failures (which may disable it), and
//! queued deliveries ended without sending.

use std::collections::HashMap;
use std::time::Duration;

use storage::tables::{Deliveries, DeliveriesByWebhook, DeliveryQueue, WebhookCursors, Webhooks};
use storage::{Attempt, DeliveryRecord, DeliveryStatus, Store, Tx, TxError, TxFail, WebhookRecord};

use super::deliveries::{dequeue, enqueue, insert_delivery, remove_delivery};
use super::subscriptions::disable;
use super::types::ok;
use crate::domain::time_fmt::rfc3339;
use crate::webhooks::hints::GONE;

/// How attempts are judged: the retry schedule of a round, and how long every attempt
/// to a subscription may fail before it is disabled.
#[derive(Clone, Debug)]
pub struct Rules {
    pub delays: Vec<Duration>,
    pub disable_after: Duration,
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
    /// The receiver's `Retry-After` (unix ms): the next attempt comes no earlier.
    pub not_before_ms: Option<i64>,
    /// A first attempt's delivery as fan-out made it in memory: not stored yet, so the
    /// recording stores it (with its index entry) instead of updating it.
    pub fresh: Option<DeliveryRecord>,
}

/// What a batch came to: attempts recorded, the subscriptions it disabled (id, reason)
/// for the log, and the deliveries queued again (subscription, due ms, id).
/// `cursors` of `record_attempts` are the persisted cursors (subscription, sequence
/// number) the batch moves forward: fan-out's progress past the events it records.
#[derive(Debug, Default)]
pub struct Recorded {
    pub attempts: usize,
    pub disabled: Vec<(u128, String)>,
    pub due_again: Vec<(u128, i64, u128)>,
}

/// Records a batch of attempts in one transaction and moves each queue entry:
/// delivered, failed for good after the last attempt of the round, or due again after
/// the next delay. One transaction per batch instead of per attempt, because under load
/// every transaction waits its turn at the single writer and then for a flush. An
/// attempt whose delivery changed meanwhile writes nothing.
///
/// The subscription listens to its receiver: `410 Gone` disables it, and so does a
/// failed attempt once every attempt since the last success (`failing_since_ms`) has
/// failed for `rules.disable_after`; the delivery whose attempt disabled it ends failed
/// with the reason. A `Retry-After` pushes the next attempt back to at least then.
pub fn record_attempts(
    store: &Store,
    batch: &[Finished],
    cursors: &[(u128, u64)],
    rules: &Rules,
    now: i64,
) -> storage::Result<Recorded> {
    let r = store.transact(|tx| {
        let mut out = Recorded::default();
        for (hook, to) in cursors {
            // Only forward, and never for a deleted subscription.
            if tx.get::<WebhookCursors>(hook)?.is_some_and(|at| at < *to) {
                tx.insert::<WebhookCursors>(hook, to)?;
            }
        }
        // Each subscription read once per batch, written once if it changed.
        let mut hooks: HashMap<u128, Option<(WebhookRecord, bool)>> = HashMap::new();
        for f in batch {
            out.attempts += apply_attempt(tx, f, rules, now, &mut hooks, &mut out)? as usize;
        }
        for (id, entry) in hooks {
            if let Some((rec, true)) = entry {
                tx.insert::<Webhooks>(&id, &rec)?;
            }
        }
        ok(out)
    });
    match r {
        Ok(n) => Ok(n),
        Err(TxError::Storage(e)) => Err(e),
        Err(TxError::Aborted(_)) => Ok(Recorded::default()),
    }
}

fn apply_attempt(
    tx: &Tx<'_>,
    f: &Finished,
    rules: &Rules,
    now: i64,
    hooks: &mut HashMap<u128, Option<(WebhookRecord, bool)>>,
    out: &mut Recorded,
) -> Result<bool, TxFail> {
    let mut d = match &f.fresh {
        Some(d) => d.clone(),
        None => {
            let Some(d) = tx.get::<Deliveries>(&f.delivery_id)? else {
                return Ok(false);
            };
            if d.status != DeliveryStatus::Pending || d.next_attempt_ms != Some(f.due_ms) {
                return Ok(false);
            }
            dequeue(tx, &d)?;
            d
        }
    };
    d.updated_at_ms = now;
    let hook = match hooks.entry(d.webhook_id) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            e.insert(tx.get::<Webhooks>(&d.webhook_id)?.map(|h| (h, false)))
        }
    };
    if f.fresh.is_some() {
        if hook.is_none() {
            return Ok(false); // its subscription was deleted: nothing to keep
        }
        tx.insert::<DeliveriesByWebhook>(&(d.webhook_id, d.id), &())?;
    }
    match &f.outcome {
        Outcome::Delivered(a) => {
            d.attempts.push(a.clone());
            d.status = DeliveryStatus::Delivered;
            d.next_attempt_ms = None;
            if let Some((h, dirty)) = hook {
                if h.failing_since_ms.take().is_some() {
                    *dirty = true;
                }
            }
        }
        Outcome::Failed(a) => {
            d.attempts.push(a.clone());
            let reason = match hook {
                Some((h, dirty)) => judge(tx, h, dirty, a, rules, now)?,
                None => None,
            };
            if let Some(reason) = reason {
                out.disabled.push((d.webhook_id, reason.clone()));
                end_failed(&mut d, Some(reason));
            } else {
                schedule_next(&mut d, f.not_before_ms, rules, now);
            }
        }
    }
    tx.insert::<Deliveries>(&d.id, &d)?;
    enqueue(tx, &d)?;
    if let Some(due) = d.next_attempt_ms {
        out.due_again.push((d.webhook_id, due.max(0), d.id));
    }
    Ok(true)
}

/// Notes a failed attempt on its subscription and disables it if its receiver said
/// `410 Gone` or every attempt has failed for `disable_after`; returns the reason then.
fn judge(
    tx: &Tx<'_>,
    h: &mut WebhookRecord,
    dirty: &mut bool,
    a: &Attempt,
    rules: &Rules,
    now: i64,
) -> Result<Option<String>, TxFail> {
    let since = match h.failing_since_ms {
        Some(since) => since,
        None => {
            h.failing_since_ms = Some(a.at_ms);
            *dirty = true;
            a.at_ms
        }
    };
    if !h.is_active {
        return Ok(None); // a test event to an inactive subscription
    }
    let reason = if a.status_code == Some(GONE) {
        "the endpoint answered 410 Gone".to_string()
    } else if now.saturating_sub(since) >= rules.disable_after.as_millis() as i64 {
        format!(
            "every delivery attempt failed for {} (since {})",
            span(rules.disable_after),
            rfc3339(since)
        )
    } else {
        return Ok(None);
    };
    disable(tx, h, &reason, now)?;
    *dirty = true;
    Ok(Some(reason))
}

/// `5 days`, `36 h`, `90 s` or `400 ms`: the largest whole unit.
fn span(d: Duration) -> String {
    let ms = d.as_millis();
    for (unit, size) in [(" days", 86_400_000), (" h", 3_600_000), (" s", 1000)] {
        if ms >= size && ms % size == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms} ms")
}

/// Due again after the round's next delay (and no earlier than the receiver asked), or
/// failed for good after the round's last attempt.
fn schedule_next(d: &mut DeliveryRecord, not_before: Option<i64>, rules: &Rules, now: i64) {
    let in_round = d.attempts.len().saturating_sub(d.round_start as usize);
    match rules.delays.get(in_round - 1) {
        Some(delay) => {
            let due = now + delay.as_millis() as i64;
            d.next_attempt_ms = Some(not_before.map_or(due, |nb| nb.max(due)));
        }
        None => end_failed(d, None),
    }
}

fn end_failed(d: &mut DeliveryRecord, reason: Option<String>) {
    d.status = DeliveryStatus::Failed;
    d.next_attempt_ms = None;
    d.reason = reason;
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

/// Stores a delivery only memory had, failed without an attempt: its subscription
/// became inactive before its first attempt.
pub fn fail_unsent(
    store: &Store,
    mut d: DeliveryRecord,
    reason: &str,
    now: i64,
) -> storage::Result<()> {
    d.status = DeliveryStatus::Failed;
    d.next_attempt_ms = None;
    d.reason = Some(reason.to_string());
    d.updated_at_ms = now;
    let r = store.transact(|tx| {
        if tx.get::<Webhooks>(&d.webhook_id)?.is_some() && tx.get::<Deliveries>(&d.id)?.is_none() {
            insert_delivery(tx, &d)?;
        }
        ok(())
    });
    match r {
        Ok(()) | Err(TxError::Aborted(_)) => Ok(()),
        Err(TxError::Storage(e)) => Err(e),
    }
}
