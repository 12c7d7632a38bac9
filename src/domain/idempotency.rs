//! Expiry of stored idempotent responses (the `Idempotency` table); what is stored and
//! replayed is the HTTP layer's business (`src/http/idempotency.rs`).

use storage::tables::Idempotency;
use storage::Store;

/// Deletes stored responses older than the TTL; run periodically.
pub fn prune(store: &Store, ttl_secs: i64, now: i64) -> storage::Result<usize> {
    let mut removed = 0;
    for row in store.iter::<Idempotency>() {
        let (key, rec) = row?;
        if now - rec.created_at_unix >= ttl_secs {
            store.remove::<Idempotency>(&key)?;
            removed += 1;
        }
    }
    Ok(removed)
}
