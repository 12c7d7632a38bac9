//! What the metrics report of the delivery engine: deliveries waiting for an attempt, and
//! when the oldest event not yet delivered was created.

use storage::tables::{DeliveryQueue, Outbox, WebhookCursors};
use storage::Store;

/// The engine's backlog as stored.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    /// Stored deliveries waiting for an attempt (due now or later); those waiting for
    /// their first attempt are in memory only (`DueQueue::unstored`).
    pub queued: u64,
    /// Unix ms of the oldest event not yet delivered to every subscription that wants it:
    /// the oldest queued delivery, or the first event a subscription's cursor has not yet
    /// fanned out. `None` when nothing waits.
    pub oldest_ms: Option<i64>,
}

/// Reads the backlog: one pass over the delivery queue (bounded by the fan-out backlog of
/// each subscription) and one outbox read at the lowest cursor.
pub fn backlog(store: &Store) -> storage::Result<Backlog> {
    let mut b = Backlog::default();
    for key in store.keys::<DeliveryQueue>() {
        let (_, _, delivery) = key?;
        b.queued += 1;
        b.oldest_ms = min(b.oldest_ms, Some(uuid_v7_ms(delivery)));
    }
    let mut lowest: Option<u64> = None;
    for row in store.iter::<WebhookCursors>() {
        let (_, cursor) = row?;
        lowest = Some(lowest.map_or(cursor, |l| l.min(cursor)));
    }
    if let Some(from) = lowest {
        let start = storage::Key::encode(&from);
        if let Some(row) = store.range::<Outbox, _>(start..).next() {
            let (_, event) = row?;
            b.oldest_ms = min(b.oldest_ms, rfc3339_ms(&event.timestamp));
        }
    }
    Ok(b)
}

fn min(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The creation time of a UUIDv7 (its first 48 bits are unix ms).
fn uuid_v7_ms(id: u128) -> i64 {
    (id >> 80) as i64
}

pub(super) fn rfc3339_ms(ts: &str) -> Option<i64> {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::parse(ts, &Rfc3339)
        .ok()
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_v7_carries_its_creation_ms() {
        let before = time::OffsetDateTime::now_utc().unix_timestamp() * 1000;
        let id = uuid::Uuid::now_v7().as_u128();
        let ms = uuid_v7_ms(id);
        assert!(
            (before - 1..before + 5_000).contains(&ms),
            "{ms} vs {before}"
        );
    }

    #[test]
    fn times_parse_and_the_earlier_wins() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(rfc3339_ms("nonsense"), None);
        assert_eq!(min(Some(3), Some(2)), Some(2));
        assert_eq!(min(None, Some(2)), Some(2));
        assert_eq!(min(None, None), None);
    }
}
