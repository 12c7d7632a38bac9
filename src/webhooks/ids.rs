//! Delivery ids: derived from the subscription and the outbox event, so the delivery of an
//! event fanned out again after a crash has the id it had before (see `dispatch.rs`).

use storage::OutboxEvent;

use super::lag::rfc3339_ms;

/// The id of the delivery of outbox event `seq` to `webhook_id`: the same on every
/// fan-out of that event, so one fanned out again after a crash is recognised. A UUIDv7
/// with the event's creation time (listings go newest first by id) and bits mixed from
/// the subscription and the sequence number.
pub fn delivery_id(webhook_id: u128, seq: u64, event: &OutboxEvent) -> u128 {
    let ms = event
        .id
        .strip_prefix("evt_")
        .and_then(|hex| hex.get(..12))
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .or_else(|| rfc3339_ms(&event.timestamp).map(|ms| ms.max(0) as u64))
        .unwrap_or(0);
    let a = mix(webhook_id as u64 ^ mix((webhook_id >> 64) as u64 ^ mix(seq)));
    let b = mix(a ^ seq.rotate_left(32));
    let mut bytes = [0u8; 10];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes()[..2]);
    uuid::Builder::from_unix_timestamp_millis(ms, &bytes)
        .into_uuid()
        .as_u128()
}

/// splitmix64's finaliser: spreads every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_ids_are_stable_distinct_and_carry_the_event_time() {
        let new = crate::domain::events::new_event("order.created", "{}".into(), 1);
        let e = OutboxEvent {
            seq: 3,
            id: new.id,
            kind: new.kind,
            timestamp: new.timestamp,
            data_json: new.data_json,
        };
        let id = delivery_id(7, 3, &e);
        assert_eq!(id, delivery_id(7, 3, &e));
        let mut all: Vec<u128> = (0..50u64)
            .flat_map(|seq| (0..50u128).map(move |hook| (hook, seq)))
            .map(|(hook, seq)| delivery_id(hook << 64 | 5, seq, &e))
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 2500);
        let u = uuid::Uuid::from_u128(id);
        assert_eq!(u.get_version_num(), 7);
        let event_ms = u128::from_str_radix(&e.id[4..16], 16).unwrap();
        assert_eq!(id >> 80, event_ms);
    }
}
