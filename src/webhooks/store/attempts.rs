//! Attempts: the engine's results recorded in batches, each moving its delivery's queue
//! entry, and queued deliveries ended without sending.

use storage::tables::{Deliveries, DeliveryQueue};
use storage::{Attempt, DeliveryStatus, Store, Tx, TxError, TxFail};

use super::deliveries::{dequeue, enqueue, remove_delivery};
use super::types::ok;

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
