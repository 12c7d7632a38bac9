//! The schema version key and the migrations that bring an older database up to date.
//! A migration runs once, in order, before the store is handed out.

use crate::codec;
use crate::error::{Error, Result};
use crate::keys::Key;
use crate::records::{wanted_kind_key, SignatureScheme, WebhookRecord};
use crate::tables::{DeliveryQueue, Meta, Table, WebhookCursors, Webhooks};

/// The schema this binary writes.
pub const CURRENT: u32 = 6;

pub(crate) const VERSION_KEY: &str = "schema_version";

/// One step from `from` to `from + 1`.
type Migration = fn(&sled::Db) -> Result<()>;
const MIGRATIONS: &[(u32, Migration)] = &[
    (1, per_subscription_delivery_queue),
    (2, per_subscription_fan_out_cursor),
    (3, drop_orders_by_status),
    (4, count_wanted_kinds),
    (5, subscription_delivery_rules),
];

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

/// Schema 2's one fan-out cursor for every subscription, in `Meta`.
const OLD_FAN_OUT_CURSOR: &str = "webhook_outbox_cursor";

/// 2 -> 3: every subscription gets its own fan-out cursor, starting where the shared
/// one stood (0 if nothing was fanned out yet), and the shared one goes. Existing
/// deliveries keep their keys. Re-running it after a crash is harmless: a cursor
/// already written is never overwritten, and the shared one is removed last.
fn per_subscription_fan_out_cursor(db: &sled::Db) -> Result<()> {
    let meta = db.open_tree(Meta::NAME)?;
    let old_key = OLD_FAN_OUT_CURSOR.to_string().encode();
    let shared: u64 = match meta.get(&old_key)? {
        Some(bytes) => codec::decode(Meta::NAME, &bytes)?,
        None => 0,
    };
    let hooks = db.open_tree(Webhooks::NAME)?;
    let cursors = db.open_tree(WebhookCursors::NAME)?;
    for key in hooks.iter().keys() {
        let key = key?;
        if !cursors.contains_key(&key)? {
            cursors.insert(key, codec::encode(&shared))?;
        }
    }
    db.flush()?;
    meta.remove(&old_key)?;
    db.flush()?;
    Ok(())
}

/// Schema 3's (status, order id) index: written with every order but never read (status
/// lists come from the in-memory search index), and at 1M orders it cost sled ~1M
/// entries of per-page state in memory.
const OLD_ORDERS_BY_STATUS: &str = "orders_by_status";

/// 3 -> 4: the unread status index goes. Dropping a tree that is already gone (a crash
/// before the version was written) is a no-op.
fn drop_orders_by_status(db: &sled::Db) -> Result<()> {
    db.drop_tree(OLD_ORDERS_BY_STATUS)?;
    db.flush()?;
    Ok(())
}

/// 4 -> 5: events are stored only for kinds an active subscription lists, counted per
/// kind in `Meta` (see [`wanted_kind_key`]); this writes the counts of the existing
/// subscriptions. Re-running it after a crash writes the same counts.
fn count_wanted_kinds(db: &sled::Db) -> Result<()> {
    let hooks = db.open_tree(Webhooks::NAME)?;
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    for entry in hooks.iter().values() {
        let hook: WebhookRecord = codec::decode(Webhooks::NAME, &entry?)?;
        if hook.is_active {
            for kind in hook.events {
                *counts.entry(kind).or_default() += 1;
            }
        }
    }
    let meta = db.open_tree(Meta::NAME)?;
    for (kind, n) in counts {
        meta.insert(wanted_kind_key(&kind).encode(), codec::encode(&n))?;
    }
    db.flush()?;
    Ok(())
}

/// A subscription as schema 5 stored it.
#[derive(serde::Deserialize)]
struct WebhookRecordV5 {
    id: u128,
    url: String,
    events: Vec<String>,
    secret: String,
    is_active: bool,
    created_seq: u64,
    created_at_ms: i64,
    updated_at_ms: i64,
}

/// 5 -> 6: subscriptions gain their signature scheme (the spec's, as before), secret
/// rotation, the reason fulfilld disabled them, ordered delivery and the start of their
/// current run of failures, all empty. One sled batch rewrites every record, so a crash
/// leaves either all old or all new records; a re-run reads a new record's old prefix
/// (bincode ignores the rest) and writes the same empty fields again.
fn subscription_delivery_rules(db: &sled::Db) -> Result<()> {
    let hooks = db.open_tree(Webhooks::NAME)?;
    let mut batch = sled::Batch::default();
    for entry in hooks.iter() {
        let (key, value) = entry?;
        let old: WebhookRecordV5 = codec::decode(Webhooks::NAME, &value)?;
        let new = WebhookRecord {
            id: old.id,
            url: old.url,
            events: old.events,
            secret: old.secret,
            is_active: old.is_active,
            created_seq: old.created_seq,
            created_at_ms: old.created_at_ms,
            updated_at_ms: old.updated_at_ms,
            scheme: SignatureScheme::Fulfilld,
            previous_secret: None,
            disabled_reason: None,
            disabled_at_ms: None,
            ordered: false,
            failing_since_ms: None,
        };
        batch.insert(key, codec::encode(&new));
    }
    hooks.apply_batch(batch)?;
    db.flush()?;
    Ok(())
}

/// The stored version (`CURRENT` for a new database); an error if it is newer than
/// this binary. Reads only, so a refused database is left as it was.
pub(crate) fn refuse_newer(meta: &sled::Tree) -> Result<u32> {
    let found = match meta.get(VERSION_KEY.to_string().encode())? {
        Some(bytes) => codec::decode::<u64>(Meta::NAME, &bytes)? as u32,
        None => CURRENT,
    };
    if found > CURRENT {
        return Err(Error::SchemaTooNew {
            found,
            supported: CURRENT,
        });
    }
    Ok(found)
}

/// A file beside sled's own naming the schema version, so that a database written by a
/// newer binary is refused before sled opens it: sled rewrites its files on every open
/// (recovery persists its id generator), which a refusal must not do. A database
/// without it was written before the file existed, by an older binary.
const MARKER: &str = "fulfilld-schema";

/// Refuses `dir` if its marker names a newer schema than this binary's.
pub(crate) fn refuse_newer_marker(dir: &std::path::Path) -> Result<()> {
    let found = match std::fs::read_to_string(dir.join(MARKER)) {
        Ok(text) => text.trim().parse::<u32>().map_err(|_| Error::Corrupt {
            table: MARKER,
            detail: format!("not a version number: {text:?}"),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::Engine(format!("reading {MARKER}: {e}"))),
    };
    if found > CURRENT {
        return Err(Error::SchemaTooNew {
            found,
            supported: CURRENT,
        });
    }
    Ok(())
}

/// Records `version` in the marker file (replaced atomically; made durable with the
/// directory by the caller's directory sync).
pub(crate) fn write_marker(dir: &std::path::Path, version: u32) -> Result<()> {
    let io = |e: std::io::Error| Error::Engine(format!("writing {MARKER}: {e}"));
    let tmp = dir.join(format!("{MARKER}.tmp"));
    std::fs::write(&tmp, format!("{version}\n")).map_err(io)?;
    std::fs::File::open(&tmp)
        .and_then(|f| f.sync_all())
        .map_err(io)?;
    std::fs::rename(&tmp, dir.join(MARKER)).map_err(io)
}

/// Reads the stored version, refuses a newer one, runs pending migrations and records
/// the current version.
pub(crate) fn upgrade(db: &sled::Db, meta: &sled::Tree) -> Result<u32> {
    let key = VERSION_KEY.to_string().encode();
    let found = refuse_newer(meta)?;
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

    /// A temporary database whose meta tree says schema `version`; the db and that tree.
    fn db_at(version: u64) -> (sled::Db, sled::Tree) {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let meta = db.open_tree(Meta::NAME).unwrap();
        meta.insert(VERSION_KEY.to_string().encode(), codec::encode(&version))
            .unwrap();
        (db, meta)
    }

    fn hook(id: u128, events: &[&str], is_active: bool) -> WebhookRecord {
        WebhookRecord {
            id,
            url: "https://wms.local/hook".into(),
            events: events.iter().map(|e| e.to_string()).collect(),
            secret: "0123456789abcdef".into(),
            is_active,
            created_seq: 1,
            created_at_ms: 0,
            updated_at_ms: 0,
            scheme: SignatureScheme::Fulfilld,
            previous_secret: None,
            disabled_reason: None,
            disabled_at_ms: None,
            ordered: false,
            failing_since_ms: None,
        }
    }

    /// A schema-5 subscription's bytes, as that binary wrote them.
    fn v5_bytes(id: u128, is_active: bool) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct V5<'a> {
            id: u128,
            url: &'a str,
            events: Vec<&'a str>,
            secret: &'a str,
            is_active: bool,
            created_seq: u64,
            created_at_ms: i64,
            updated_at_ms: i64,
        }
        codec::encode(&V5 {
            id,
            url: "https://wms.local/hook",
            events: vec!["order.created"],
            secret: "0123456789abcdef",
            is_active,
            created_seq: 3,
            created_at_ms: 10,
            updated_at_ms: 20,
        })
    }

    #[test]
    fn schema_1_delivery_queue_moves_to_per_subscription_keys() {
        let (db, meta) = db_at(1);
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

    #[test]
    fn schema_2_shared_fan_out_cursor_becomes_one_per_subscription() {
        let (db, meta) = db_at(2);
        meta.insert(
            OLD_FAN_OUT_CURSOR.to_string().encode(),
            codec::encode(&41u64),
        )
        .unwrap();
        let hooks = db.open_tree(Webhooks::NAME).unwrap();
        for id in [7u128, 9] {
            hooks
                .insert(
                    id.encode(),
                    codec::encode(&hook(id, &["order.created"], true)),
                )
                .unwrap();
        }
        // A queued schema-2 delivery keeps its key.
        let queue = db.open_tree(DeliveryQueue::NAME).unwrap();
        queue
            .insert((7u128, 5u64, 1u128).encode(), codec::encode(&()))
            .unwrap();
        assert_eq!(upgrade(&db, &meta).unwrap(), 2);
        let cursors = db.open_tree(WebhookCursors::NAME).unwrap();
        let got: Vec<(u128, u64)> = cursors
            .iter()
            .map(|e| {
                let (k, v) = e.unwrap();
                (
                    u128::decode(&k).unwrap(),
                    codec::decode(WebhookCursors::NAME, &v).unwrap(),
                )
            })
            .collect();
        assert_eq!(got, vec![(7, 41), (9, 41)]);
        assert!(meta
            .get(OLD_FAN_OUT_CURSOR.to_string().encode())
            .unwrap()
            .is_none());
        assert!(queue.contains_key((7u128, 5u64, 1u128).encode()).unwrap());
        // Running it again (a crash before the version was written) keeps the cursors,
        // even though the shared one is gone now.
        cursors
            .insert(7u128.encode(), codec::encode(&50u64))
            .unwrap();
        per_subscription_fan_out_cursor(&db).unwrap();
        let seven: u64 = codec::decode(
            WebhookCursors::NAME,
            &cursors.get(7u128.encode()).unwrap().unwrap(),
        )
        .unwrap();
        assert_eq!(seven, 50);
        assert_eq!(upgrade(&db, &meta).unwrap(), CURRENT);
    }

    #[test]
    fn schema_3_status_index_is_dropped_and_other_trees_stay() {
        let (db, meta) = db_at(3);
        let old = db.open_tree(OLD_ORDERS_BY_STATUS).unwrap();
        old.insert(("pending".to_string(), 1u128).encode(), codec::encode(&()))
            .unwrap();
        let hooks = db.open_tree(Webhooks::NAME).unwrap();
        hooks
            .insert(7u128.encode(), codec::encode(&hook(7, &[], true)))
            .unwrap();
        assert_eq!(upgrade(&db, &meta).unwrap(), 3);
        let names = db.tree_names();
        assert!(!names
            .iter()
            .any(|n| n.as_ref() == OLD_ORDERS_BY_STATUS.as_bytes()));
        assert!(hooks.contains_key(7u128.encode()).unwrap());
        // A crash before the version was written runs it again on a database without it.
        drop_orders_by_status(&db).unwrap();
        assert_eq!(upgrade(&db, &meta).unwrap(), CURRENT);
    }

    #[test]
    fn schema_4_counts_the_kinds_active_subscriptions_want() {
        let (db, meta) = db_at(4);
        let hooks = db.open_tree(Webhooks::NAME).unwrap();
        for h in [
            hook(1, &["order.created", "order.updated"], true),
            hook(2, &["order.created"], true),
            hook(3, &["inventory.adjusted"], false),
        ] {
            hooks.insert(h.id.encode(), codec::encode(&h)).unwrap();
        }
        assert_eq!(upgrade(&db, &meta).unwrap(), 4);
        let count = |kind: &str| -> Option<u64> {
            meta.get(wanted_kind_key(kind).encode())
                .unwrap()
                .map(|v| codec::decode(Meta::NAME, &v).unwrap())
        };
        assert_eq!(count("order.created"), Some(2));
        assert_eq!(count("order.updated"), Some(1));
        assert_eq!(
            count("inventory.adjusted"),
            None,
            "inactive subscriptions want nothing"
        );
        count_wanted_kinds(&db).unwrap();
        assert_eq!(
            count("order.created"),
            Some(2),
            "a re-run writes the same counts"
        );
    }

    #[test]
    fn schema_5_subscriptions_gain_the_delivery_rule_fields_empty() {
        let (db, meta) = db_at(5);
        let hooks = db.open_tree(Webhooks::NAME).unwrap();
        hooks.insert(7u128.encode(), v5_bytes(7, true)).unwrap();
        hooks.insert(9u128.encode(), v5_bytes(9, false)).unwrap();
        // A schema-5 record does not decode as a schema-6 one: the migration is needed.
        assert!(codec::decode::<WebhookRecord>(
            Webhooks::NAME,
            &hooks.get(7u128.encode()).unwrap().unwrap()
        )
        .is_err());
        assert_eq!(upgrade(&db, &meta).unwrap(), 5);
        let read = |id: u128| -> WebhookRecord {
            codec::decode(Webhooks::NAME, &hooks.get(id.encode()).unwrap().unwrap()).unwrap()
        };
        let seven = read(7);
        assert_eq!(
            (seven.id, seven.url.as_str(), seven.secret.as_str()),
            (7, "https://wms.local/hook", "0123456789abcdef")
        );
        assert_eq!(seven.events, vec!["order.created".to_string()]);
        assert_eq!(
            (seven.created_seq, seven.created_at_ms, seven.updated_at_ms),
            (3, 10, 20)
        );
        assert!(seven.is_active);
        assert!(!read(9).is_active);
        assert_eq!(seven.scheme, SignatureScheme::Fulfilld);
        assert_eq!(seven.previous_secret, None);
        assert_eq!((seven.disabled_reason, seven.disabled_at_ms), (None, None));
        assert!(!seven.ordered);
        assert_eq!(seven.failing_since_ms, None);
        // A crash before the version was written runs it again over new records.
        subscription_delivery_rules(&db).unwrap();
        assert_eq!(read(9), {
            let mut h = hook(9, &["order.created"], false);
            h.created_seq = 3;
            h.created_at_ms = 10;
            h.updated_at_ms = 20;
            h
        });
        assert_eq!(upgrade(&db, &meta).unwrap(), CURRENT);
    }
}
