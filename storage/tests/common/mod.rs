//! Helpers shared by the storage integration tests: a real sled store in a temp dir,
//! sample records and events.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use storage::tables::{Meta, Outbox};
use storage::{Abort, ClientRecord, NewEvent, Store, StoreConfig, Tier};

/// A small page cache keeps many concurrently open test stores cheap.
pub fn config() -> StoreConfig {
    StoreConfig {
        cache_capacity_bytes: 8 * 1024 * 1024,
    }
}

pub fn open(dir: &Path) -> Store {
    Store::open(dir, &config()).expect("opening the store")
}

/// A fresh store in its own temp dir; keep the `TempDir` alive as long as the store.
pub fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    (dir, store)
}

pub fn client(id: &str) -> ClientRecord {
    ClientRecord {
        id: id.to_string(),
        name: format!("client {id}"),
        tier: Tier::Growth,
        secret_sha256: vec![1; 32],
        api_key_sha256: id.as_bytes().to_vec(),
        created_at_unix: 1_700_000_000,
    }
}

pub fn event(kind: &str, data_json: impl Into<String>) -> NewEvent {
    NewEvent {
        id: format!("evt_{kind}"),
        kind: kind.to_string(),
        timestamp: "2025-01-01T00:00:00Z".to_string(),
        data_json: data_json.into(),
    }
}

/// Commits record `key` (value `value`) and an outbox event naming it, in one transaction.
pub fn write_with_event(store: &Store, key: &str, value: u64) {
    store
        .transact(|tx| {
            tx.insert::<Meta>(&key.to_string(), &value)?;
            tx.emit(event("test.written", key))?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
}

/// Every outbox event's payload, i.e. the keys whose writes emitted an event.
pub fn event_keys(store: &Store) -> BTreeSet<String> {
    store
        .iter::<Outbox>()
        .map(|r| r.unwrap().1.data_json)
        .collect()
}

/// Every `Meta` record whose key starts with `prefix`.
pub fn records_with_prefix(store: &Store, prefix: &str) -> BTreeMap<String, u64> {
    store
        .scan_prefix::<Meta>(prefix.as_bytes())
        .map(|r| r.unwrap())
        .collect()
}
