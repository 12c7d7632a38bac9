//! The schema version key and the migrations that bring an older database up to date.
//! A migration runs once, in order, before the store is handed out.

use crate::codec;
use crate::error::{Error, Result};
use crate::keys::Key;
use crate::tables::{DeliveryQueue, Meta, Table};

/// The schema this binary writes.
pub const CURRENT: u32 = 2;

const VERSION_KEY: &str = "schema_version";

/// One step from `from` to `from + 1`.
type Migration = fn(&sled::Db) -> Result<()>;
const MIGRATIONS: &[(u32, Migration)] = &[(1, per_subscription_delivery_queue)];

/// Schema 1's webhook queue: (due ms, delivery id) -> subscription id.
const OLD_DELIVERY_QUEUE: &str = "webhook_delivery_queue";

/// 1 -> 2: the webhook delivery queue is keyed by subscription first. Re-running it
/// after a crash is harmless: it rewrites the same keys, and drops the old tree last.
fn per_subscription_delivery_queue(db: &sled::Db) -> Result<()> {
    let old = db.open_tree(OLD_DELIVERY_QUEUE)?;
    let new = db.open_tree(DeliveryQueue::NAME)?;
    let mut batch = sled::Batch::default();
    for entry in old.iter() {
        let (key, value) = entry?;
        let (due, delivery) = <(u64, u128)>::decode(&key)?;
        let webhook: u128 = codec::decode(OLD_DELIVERY_QUEUE, &value)?;
        batch.insert((webhook, due, delivery).encode(), codec::encode(&()));
    }
    new.apply_batch(batch)?;
    db.flush()?;
    db.drop_tree(OLD_DELIVERY_QUEUE)?;
    Ok(())
}

/// Reads the stored version, refuses a newer one, runs pending migrations and records
/// the current version.
pub(crate) fn upgrade(db: &sled::Db, meta: &sled::Tree) -> Result<u32> {
    let key = VERSION_KEY.to_string().encode();
    let found = match meta.get(&key)? {
        Some(bytes) => codec::decode::<u64>(Meta::NAME, &bytes)? as u32,
        None => CURRENT,
    };
    if found > CURRENT {
        return Err(Error::SchemaTooNew {
            found,
            supported: CURRENT,
        });
    }
    for (from, step) in MIGRATIONS {
        if *from >= found && *from < CURRENT {
            step(db)?;
        }
    }
    meta.insert(key, codec::encode(&u64::from(CURRENT)))?;
    db.flush()?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_1_delivery_queue_moves_to_per_subscription_keys() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let meta = db.open_tree(Meta::NAME).unwrap();
        meta.insert(VERSION_KEY.to_string().encode(), codec::encode(&1u64))
            .unwrap();
        let old = db.open_tree(OLD_DELIVERY_QUEUE).unwrap();
        for (due, delivery, webhook) in [(5u64, 1u128, 7u128), (3, 2, 9), (4, 3, 7)] {
            old.insert((due, delivery).encode(), codec::encode(&webhook))
                .unwrap();
        }
        assert_eq!(upgrade(&db, &meta).unwrap(), 1);
        let new = db.open_tree(DeliveryQueue::NAME).unwrap();
        let keys: Vec<(u128, u64, u128)> = new
            .iter()
            .keys()
            .map(|k| <(u128, u64, u128)>::decode(&k.unwrap()).unwrap())
            .collect();
        assert_eq!(keys, vec![(7, 4, 3), (7, 5, 1), (9, 3, 2)]);
        assert!(!db
            .tree_names()
            .iter()
            .any(|n| n.as_ref() == OLD_DELIVERY_QUEUE.as_bytes()));
        assert_eq!(upgrade(&db, &meta).unwrap(), CURRENT);
    }
}
