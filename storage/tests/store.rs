//! Integration tests of the store's data path on real sled: multi-table transactions and
//! aborts, the outbox, concurrent read-modify-write, schema versioning and key ordering.
//! Plain reads see a transaction once its batch is applied, so tests that read their own
//! writes back through `Store::get`/`iter`/`scan_prefix` call `durable_blocking()` first.

mod common;

use std::collections::BTreeSet;

use common::{client, event, open, temp_store};
use storage::keys::{self, Key};
use storage::tables::{
    ApiKeys, Clients, Idempotency, InventoryBySku, Meta, OrdersByExternalId, Outbox, ProductsBySku,
    WebhookCursors,
};
use storage::{
    abort, Abort, Error, IdempotencyRecord, InboundSecretRecord, OutboxEvent, Store, Table,
    TxError, SCHEMA_VERSION,
};

fn all<T: Table>(store: &Store) -> Vec<(T::Key, T::Value)> {
    store.iter::<T>().collect::<Result<_, _>>().unwrap()
}

fn outbox(store: &Store) -> Vec<OutboxEvent> {
    all::<Outbox>(store)
        .into_iter()
        .map(|(seq, ev)| {
            assert_eq!(seq, ev.seq, "outbox key and stored seq disagree");
            ev
        })
        .collect()
}

#[derive(Debug, PartialEq)]
struct Refused {
    code: u16,
}

// ---------------------------------------------------------------- transactions

#[test]
fn aborted_transaction_writes_nothing_in_any_table() {
    let (_dir, store) = temp_store();
    // Existing state the aborted closure overwrites and removes.
    store
        .transact(|tx| {
            tx.insert::<Clients>(&"old".into(), &client("old"))?;
            tx.insert::<Meta>(&"clients".into(), &1)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();
    let events_before = outbox(&store).len();

    let result = store.transact(|tx| {
        tx.insert::<Clients>(&"c1".into(), &client("c1"))?;
        tx.insert::<ApiKeys>(&b"key-1".to_vec(), &"c1".to_string())?;
        tx.insert::<Meta>(&"clients".into(), &2)?;
        tx.remove::<Clients>(&"old".into())?;
        tx.emit(event("client.created", "{}"))?;
        // The closure sees its own writes before it gives up.
        assert_eq!(tx.get::<Meta>(&"clients".into())?, Some(2));
        assert!(!tx.contains::<Clients>(&"old".into())?);
        abort::<(), _>(Refused { code: 409 })
    });

    match result {
        Err(TxError::Aborted(e)) => assert_eq!(e, Refused { code: 409 }),
        other => panic!("expected Aborted, got {other:?}"),
    }
    store.durable_blocking().unwrap();
    assert_eq!(store.get::<Clients>(&"c1".into()).unwrap(), None);
    assert_eq!(store.get::<ApiKeys>(&b"key-1".to_vec()).unwrap(), None);
    assert_eq!(store.get::<Meta>(&"clients".into()).unwrap(), Some(1));
    assert_eq!(
        store.get::<Clients>(&"old".into()).unwrap(),
        Some(client("old"))
    );
    assert_eq!(outbox(&store).len(), events_before);
}

#[test]
fn committed_transaction_writes_every_table_and_returns_the_closure_value() {
    let (_dir, store) = temp_store();
    store
        .transact(|tx| {
            tx.insert::<Clients>(&"gone".into(), &client("gone"))?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();

    let secret = InboundSecretRecord {
        source: "wms".into(),
        secret: "s3cret".into(),
        updated_at_unix: 5,
    };
    let idem = IdempotencyRecord {
        request_sha256: vec![7; 32],
        status: 201,
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{\"id\":1}".to_vec(),
        created_at_unix: 6,
    };
    let seq = store
        .transact(|tx| {
            tx.insert::<Clients>(&"c1".into(), &client("c1"))?;
            tx.insert::<ApiKeys>(&b"key-1".to_vec(), &"c1".to_string())?;
            tx.insert::<storage::tables::InboundSecrets>(&"wms".into(), &secret)?;
            tx.insert::<Idempotency>(&("c1".into(), "idem-1".into()), &idem)?;
            tx.remove::<Clients>(&"gone".into())?;
            Ok::<_, Abort<()>>(tx.emit(event("client.created", "{\"id\":\"c1\"}"))?)
        })
        .unwrap();
    store.durable_blocking().unwrap();

    assert_eq!(
        store.get::<Clients>(&"c1".into()).unwrap(),
        Some(client("c1"))
    );
    assert_eq!(store.get::<Clients>(&"gone".into()).unwrap(), None);
    assert_eq!(
        store.get::<ApiKeys>(&b"key-1".to_vec()).unwrap(),
        Some("c1".to_string())
    );
    assert_eq!(
        store
            .get::<storage::tables::InboundSecrets>(&"wms".into())
            .unwrap(),
        Some(secret)
    );
    assert_eq!(
        store
            .get::<Idempotency>(&("c1".into(), "idem-1".into()))
            .unwrap(),
        Some(idem)
    );
    let events = outbox(&store);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].seq, seq);
    assert_eq!(events[0].kind, "client.created");
    assert_eq!(events[0].data_json, "{\"id\":\"c1\"}");
}

/// A test-only view of the `meta` tree whose values are single bytes: a way to store a
/// value that does not decode as the real table's `u64`.
struct MetaAsByte;
impl Table for MetaAsByte {
    const NAME: &'static str = "meta";
    const INDEX: usize = Meta::INDEX;
    type Key = String;
    type Value = u8;
}

#[test]
fn corrupt_record_fails_the_transaction_as_storage_error_and_writes_nothing() {
    let (_dir, store) = temp_store();
    store
        .transact(|tx| {
            // 255 is not a valid bincode varint discriminant for a u64.
            tx.insert::<MetaAsByte>(&"broken".into(), &255)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();

    assert!(matches!(
        store.get::<Meta>(&"broken".into()),
        Err(Error::Corrupt { table: "meta", .. })
    ));
    let result = store.transact(|tx| {
        tx.insert::<Clients>(&"c1".into(), &client("c1"))?;
        tx.get::<Meta>(&"broken".into())?;
        Ok::<_, Abort<()>>(())
    });
    assert!(
        matches!(
            result,
            Err(TxError::Storage(Error::Corrupt { table: "meta", .. }))
        ),
        "{result:?}"
    );
    store.durable_blocking().unwrap();
    assert_eq!(store.get::<Clients>(&"c1".into()).unwrap(), None);
}

#[test]
fn concurrent_read_modify_write_loses_no_update() {
    const THREADS: u64 = 16;
    const PER_THREAD: u64 = 100;
    let (_dir, store) = temp_store();
    let key = "counter".to_string();

    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let store = store.clone();
            let key = key.clone();
            std::thread::spawn(move || {
                (0..PER_THREAD)
                    .map(|_| {
                        store
                            .transact(|tx| {
                                let next = tx.get::<Meta>(&key)?.unwrap_or(0) + 1;
                                tx.insert::<Meta>(&key, &next)?;
                                Ok::<_, Abort<()>>(next)
                            })
                            .unwrap()
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for h in handles {
        for v in h.join().unwrap() {
            assert!(seen.insert(v), "two increments both produced {v}");
        }
    }
    store.durable_blocking().unwrap();

    let total = THREADS * PER_THREAD;
    assert_eq!(store.get::<Meta>(&key).unwrap(), Some(total));
    assert_eq!(seen, (1..=total).collect::<BTreeSet<_>>());
}

// ---------------------------------------------------------------- outbox

#[test]
fn outbox_event_commits_with_its_change_and_never_without_it() {
    let (_dir, store) = temp_store();
    let aborted = store.transact(|tx| {
        tx.insert::<Clients>(&"c0".into(), &client("c0"))?;
        tx.emit(event("client.created", "{\"id\":\"c0\"}"))?;
        abort::<(), _>("duplicate")
    });
    assert!(matches!(aborted, Err(TxError::Aborted("duplicate"))));
    store.durable_blocking().unwrap();
    assert!(outbox(&store).is_empty());
    assert_eq!(store.get::<Clients>(&"c0".into()).unwrap(), None);

    let mut seqs = Vec::new();
    for i in 1..=5 {
        let id = format!("c{i}");
        let seq = store
            .transact(|tx| {
                tx.insert::<Clients>(&id, &client(&id))?;
                let data = format!("{{\"id\":\"{id}\"}}");
                Ok::<_, Abort<()>>(tx.emit(event("client.created", data))?)
            })
            .unwrap();
        seqs.push(seq);
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    store.durable_blocking().unwrap();

    let events = outbox(&store);
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
    for (i, ev) in events.iter().enumerate() {
        assert_eq!(ev.data_json, format!("{{\"id\":\"c{}\"}}", i + 1));
        assert_eq!(ev.id, "evt_client.created");
        assert_eq!(ev.timestamp, "2025-01-01T00:00:00Z");
    }
    // Reading the outbox from its tail works too (the delivery engine's "latest").
    let last = store.iter::<Outbox>().next_back().unwrap().unwrap();
    assert_eq!(last.0, *seqs.last().unwrap());
}

#[test]
fn concurrent_outbox_sequence_follows_commit_order() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 40;
    let (_dir, store) = temp_store();

    // Each transaction takes its sequence number first, then bumps a shared counter (which
    // serialises the commits) and records which commit that sequence number belonged to.
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..PER_THREAD {
                    store
                        .transact(|tx| {
                            let seq = tx.emit(event("inventory.adjusted", format!("{t}/{i}")))?;
                            let n = tx.get::<Meta>(&"commits".into())?.unwrap_or(0) + 1;
                            tx.insert::<Meta>(&"commits".into(), &n)?;
                            tx.insert::<Meta>(&format!("commit-of-{seq:020}"), &n)?;
                            Ok::<_, Abort<()>>(())
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    store.durable_blocking().unwrap();

    let events = outbox(&store);
    let total = (THREADS * PER_THREAD) as u64;
    assert_eq!(events.len() as u64, total);
    let commit_numbers: Vec<u64> = events
        .iter()
        .map(|ev| {
            store
                .get::<Meta>(&format!("commit-of-{:020}", ev.seq))
                .unwrap()
                .expect("every event has its commit record")
        })
        .collect();
    assert_eq!(commit_numbers, (1..=total).collect::<Vec<_>>());
    let payloads: BTreeSet<&str> = events.iter().map(|e| e.data_json.as_str()).collect();
    assert_eq!(payloads.len(), events.len(), "an event was stored twice");
}

#[test]
fn sequence_numbers_keep_rising_across_reopens_and_skip_what_aborts_drew() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for round in 0..3 {
        let store = open(dir.path());
        // An aborted closure draws ids too: a gap, never a reuse.
        let _ = store.transact(|tx| {
            tx.emit(event("x.aborted", "{}"))?;
            abort::<(), _>(())
        });
        for i in 0..3 {
            store
                .transact(|tx| {
                    tx.emit(event("x.kept", format!("{round}.{i}")))?;
                    Ok::<_, Abort<()>>(())
                })
                .unwrap();
        }
        store.durable_blocking().unwrap();
        seen = outbox(&store).into_iter().map(|e| e.seq).collect();
        assert_eq!(seen.len(), 3 * (round + 1));
    }
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
}

#[test]
fn a_preread_checked_in_a_transaction_sees_every_write_made_since() {
    let (_dir, store) = temp_store();
    let get = |pre: &storage::Preread<u64>| {
        store
            .transact(|tx| Ok::<_, Abort<()>>(tx.get_preread::<Meta>(&"k".into(), pre)?))
            .unwrap()
    };
    let absent = store.preread::<Meta>(&"k".into()).unwrap();
    assert_eq!(get(&absent), None);
    // Written after the read, still in the open batch: the layers answer.
    store
        .transact(|tx| {
            tx.insert::<Meta>(&"k".into(), &1)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    assert_eq!(get(&absent), Some(1));
    // Applied to sled since the read: no layer holds it, so it is read again.
    store.durable_blocking().unwrap();
    assert_eq!(get(&absent), Some(1));
    let present = store.preread::<Meta>(&"k".into()).unwrap();
    assert_eq!(get(&present), Some(1));
    store
        .transact(|tx| {
            tx.remove::<Meta>(&"k".into())?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    assert_eq!(get(&present), None, "removed in the open batch");
    store.durable_blocking().unwrap();
    assert_eq!(get(&present), None, "removed in sled");
}

#[test]
fn external_ids_are_found_once_written_and_after_reopen_though_misses_skip_sled() {
    // `orders_by_external_id` answers misses from its key set in memory: a key must be in
    // that set from the batch that writes it on, and again after a reopen.
    let dir = tempfile::tempdir().unwrap();
    let put = |store: &Store, ext: &str, id: u128| {
        store
            .transact(|tx| Ok::<_, Abort<()>>(tx.insert::<OrdersByExternalId>(&ext.into(), &id)?))
            .unwrap();
    };
    let in_tx = |store: &Store, ext: &str| {
        store
            .transact(|tx| Ok::<_, Abort<()>>(tx.get::<OrdersByExternalId>(&ext.into())?))
            .unwrap()
    };
    {
        let store = open(dir.path());
        store.wait_key_sets();
        assert_eq!(store.get::<OrdersByExternalId>(&"a".into()).unwrap(), None);
        put(&store, "a", 1);
        assert_eq!(in_tx(&store, "a"), Some(1), "from the open batch");
        store.durable_blocking().unwrap();
        assert_eq!(
            store.get::<OrdersByExternalId>(&"a".into()).unwrap(),
            Some(1)
        );
        assert_eq!(in_tx(&store, "a"), Some(1), "from sled");
        let pre = store.preread::<OrdersByExternalId>(&"a".into()).unwrap();
        let seen = store
            .transact(|tx| {
                Ok::<_, Abort<()>>(tx.get_preread::<OrdersByExternalId>(&"a".into(), &pre)?)
            })
            .unwrap();
        assert_eq!(seen, Some(1));
        assert_eq!(in_tx(&store, "b"), None);
        store
            .transact(|tx| Ok::<_, Abort<()>>(tx.remove::<OrdersByExternalId>(&"a".into())?))
            .unwrap();
        store.durable_blocking().unwrap();
        assert_eq!(
            store.get::<OrdersByExternalId>(&"a".into()).unwrap(),
            None,
            "removed"
        );
        put(&store, "c", 3);
        store.durable_blocking().unwrap();
    }
    let store = open(dir.path());
    store.wait_key_sets();
    assert_eq!(
        store.get::<OrdersByExternalId>(&"c".into()).unwrap(),
        Some(3)
    );
    assert_eq!(in_tx(&store, "c"), Some(3));
    assert_eq!(store.get::<OrdersByExternalId>(&"a".into()).unwrap(), None);
}

// ---------------------------------------------------------------- schema and lifecycle

#[test]
fn a_mirrored_tables_version_moves_with_each_batch_that_writes_it_and_only_then() {
    // Readers keep decoded copies of a mirrored table until its version moves: a write
    // that does not move it would leave them stale.
    let (_dir, store) = temp_store();
    assert_eq!(store.mirror_version::<Outbox>(), None, "not held in memory");
    let write = |f: &dyn Fn(&storage::Tx<'_>) -> Result<(), storage::TxFail>| {
        store.transact(|tx| Ok::<_, Abort<()>>(f(tx)?)).unwrap();
        store.durable_blocking().unwrap();
    };
    let v0 = store.mirror_version::<WebhookCursors>().unwrap();
    write(&|tx| tx.insert::<OrdersByExternalId>(&"x".into(), &1));
    assert_eq!(
        store.mirror_version::<WebhookCursors>(),
        Some(v0),
        "another table"
    );
    write(&|tx| tx.insert::<WebhookCursors>(&7, &3));
    let v1 = store.mirror_version::<WebhookCursors>().unwrap();
    assert_ne!(v1, v0, "inserted");
    assert_eq!(store.get::<WebhookCursors>(&7).unwrap(), Some(3));
    write(&|tx| tx.remove::<WebhookCursors>(&7));
    assert_ne!(
        store.mirror_version::<WebhookCursors>(),
        Some(v1),
        "removed"
    );
}

#[test]
fn reopen_keeps_data_and_records_the_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        assert_eq!(
            store.get::<Meta>(&"schema_version".into()).unwrap(),
            Some(u64::from(SCHEMA_VERSION))
        );
        store
            .transact(|tx| {
                tx.insert::<Clients>(&"c1".into(), &client("c1"))?;
                tx.emit(event("client.created", "{}"))?;
                Ok::<_, Abort<()>>(())
            })
            .unwrap();
        store.check().unwrap();
        assert!(store.size_on_disk().unwrap() > 0);
    }
    let store = open(dir.path());
    assert_eq!(
        store.get::<Meta>(&"schema_version".into()).unwrap(),
        Some(u64::from(SCHEMA_VERSION))
    );
    assert_eq!(
        store.get::<Clients>(&"c1".into()).unwrap(),
        Some(client("c1"))
    );
    assert_eq!(outbox(&store).len(), 1);
    store.check().unwrap();
}

#[test]
fn database_from_a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        store
            .transact(|tx| {
                tx.insert::<Meta>(&"schema_version".to_string(), &99)?;
                Ok::<_, Abort<()>>(())
            })
            .unwrap();
    }
    match Store::open(dir.path(), &common::config()) {
        Err(Error::SchemaTooNew { found, supported }) => {
            assert_eq!(found, 99);
            assert_eq!(supported, SCHEMA_VERSION);
        }
        Err(e) => panic!("expected SchemaTooNew, got {e}"),
        Ok(_) => panic!("a newer schema was opened"),
    }
    // Refusing must not rewrite the version: a second attempt is refused the same way.
    assert!(matches!(
        Store::open(dir.path(), &common::config()),
        Err(Error::SchemaTooNew { found: 99, .. })
    ));
}

#[test]
fn a_second_open_of_a_held_database_fails_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let clone = store.clone();
    assert!(matches!(
        Store::open(dir.path(), &common::config()),
        Err(Error::Engine(_))
    ));
    drop(store);
    // A clone still holds it.
    assert!(Store::open(dir.path(), &common::config()).is_err());
    drop(clone);
    open(dir.path()).check().unwrap();
}

// ---------------------------------------------------------------- keys and scans

/// A test-only view of the `api_keys` tree (raw byte keys) with `(group, seq)` keys, the
/// shape of the server's secondary indexes.
struct GroupIndex;
impl Table for GroupIndex {
    const NAME: &'static str = "api_keys";
    const INDEX: usize = ApiKeys::INDEX;
    type Key = (String, u64);
    type Value = String;
}

fn seed_groups(store: &Store) {
    // "sku-1" is a byte prefix of "sku-10" and "sku-1x"; seqs straddle byte boundaries.
    let entries: Vec<((String, u64), String)> = [
        ("sku-1", 256),
        ("sku-1", 1),
        ("sku-1", 255),
        ("sku-1", 1 << 40),
        ("sku-10", 2),
        ("sku-1x", 3),
        ("sku-", 4),
        ("sku-2", 0),
    ]
    .into_iter()
    .map(|(g, s)| ((g.to_string(), s), format!("{g}#{s}")))
    .collect();
    store
        .transact(|tx| {
            for (k, v) in &entries {
                tx.insert::<GroupIndex>(k, v)?;
            }
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();
}

#[test]
fn prefix_scan_selects_exactly_one_group_in_numeric_order() {
    let (_dir, store) = temp_store();
    seed_groups(&store);

    let group: Vec<(String, u64)> = store
        .scan_prefix::<GroupIndex>(&keys::prefix("sku-1"))
        .map(|r| r.unwrap().0)
        .collect();
    let expected: Vec<(String, u64)> = [1, 255, 256, 1 << 40]
        .into_iter()
        .map(|s| ("sku-1".to_string(), s))
        .collect();
    assert_eq!(group, expected);

    let reversed: Vec<u64> = store
        .scan_prefix::<GroupIndex>(&keys::prefix("sku-1"))
        .rev()
        .map(|r| r.unwrap().0 .1)
        .collect();
    assert_eq!(reversed, vec![1 << 40, 256, 255, 1]);

    let values: Vec<String> = store
        .scan_prefix::<GroupIndex>(&keys::prefix("sku-10"))
        .map(|r| r.unwrap().1)
        .collect();
    assert_eq!(values, vec!["sku-10#2".to_string()]);
    assert_eq!(
        store
            .scan_prefix::<GroupIndex>(&keys::prefix("sku-3"))
            .count(),
        0
    );
}

#[test]
fn pair_keys_group_by_their_first_part() {
    let (_dir, store) = temp_store();
    let rec = |status| IdempotencyRecord {
        request_sha256: vec![],
        status,
        headers: vec![],
        body: vec![],
        created_at_unix: 0,
    };
    store
        .transact(|tx| {
            tx.insert::<Idempotency>(&("c1".into(), "b".into()), &rec(201))?;
            tx.insert::<Idempotency>(&("c1".into(), "a".into()), &rec(200))?;
            tx.insert::<Idempotency>(&("c10".into(), "a".into()), &rec(500))?;
            tx.insert::<Idempotency>(&("c".into(), "1a".into()), &rec(404))?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();
    let got: Vec<((String, String), u16)> = store
        .scan_prefix::<Idempotency>(&keys::prefix("c1"))
        .map(|r| {
            let (k, v) = r.unwrap();
            (k, v.status)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (("c1".to_string(), "a".to_string()), 200),
            (("c1".to_string(), "b".to_string()), 201),
        ]
    );
}

#[test]
fn range_over_u64_keys_is_numeric_and_reversible() {
    let (_dir, store) = temp_store();
    let seqs = [1u64, 2, 255, 256, 1000, 65_536, 1 << 40];
    store
        .transact(|tx| {
            for &s in &seqs {
                let ev = OutboxEvent {
                    seq: s,
                    id: format!("evt_{s}"),
                    kind: "k".into(),
                    timestamp: "t".into(),
                    data_json: "{}".into(),
                };
                tx.insert::<Outbox>(&s, &ev)?;
            }
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();

    let keys_in = |r: Vec<(u64, OutboxEvent)>| r.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    let fwd = store
        .range::<Outbox, _>(2u64.encode()..65_536u64.encode())
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(keys_in(fwd), vec![2, 255, 256, 1000]);

    let back = store
        .range::<Outbox, _>(255u64.encode()..=65_536u64.encode())
        .rev()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(keys_in(back), vec![65_536, 1000, 256, 255]);

    // "Everything after the last delivered seq", the delivery engine's cursor scan.
    let after = store
        .range::<Outbox, _>(257u64.encode()..)
        .map(|r| r.unwrap().1.id)
        .collect::<Vec<_>>();
    assert_eq!(after, vec!["evt_1000", "evt_65536", "evt_1099511627776"]);

    let all_rev: Vec<u64> = store.iter::<Outbox>().rev().map(|r| r.unwrap().0).collect();
    let mut expected = seqs.to_vec();
    expected.reverse();
    assert_eq!(all_rev, expected);

    store.remove::<Outbox>(&256).unwrap();
    store.durable_blocking().unwrap();
    assert_eq!(store.get::<Outbox>(&256).unwrap(), None);
    assert_eq!(store.iter::<Outbox>().count(), seqs.len() - 1);
}

/// A store being dropped on another thread still holds sled's file lock for a moment; an
/// open meanwhile waits for it instead of failing (sled itself tries the lock once).
#[test]
fn an_open_waits_for_a_store_that_is_being_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let first = open(dir.path());
    write_one(&first);
    let (held_tx, held_rx) = std::sync::mpsc::channel();
    let dropper = std::thread::spawn(move || {
        held_tx.send(()).unwrap();
        // Keeps the lock past the open's first try, as a busy shutdown does.
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(first);
    });
    held_rx.recv().unwrap();
    let second = Store::open(dir.path(), &common::config()).expect("waited for the lock");
    dropper.join().unwrap();
    assert_eq!(
        second.get::<Meta>(&"lock/held".to_string()).unwrap(),
        Some(7)
    );
}

fn write_one(store: &Store) {
    store
        .transact(|tx| {
            tx.insert::<Meta>(&"lock/held".to_string(), &7)?;
            Ok::<_, storage::Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();
}

// ---------------------------------------------------------------- reads against a model

type Model = std::collections::BTreeMap<(String, u128), ()>;

/// Every way a plain read or a transaction can see `InventoryBySku` and `ProductsBySku`,
/// compared with what was written.
fn assert_reads_match(
    store: &Store,
    pairs: &Model,
    skus: &std::collections::BTreeMap<String, u128>,
) {
    let want: Vec<(String, u128)> = pairs.keys().cloned().collect();
    let got: Vec<(String, u128)> = all::<InventoryBySku>(store)
        .into_iter()
        .map(|(k, ())| k)
        .collect();
    assert_eq!(got, want, "iter");
    let got_rev: Vec<(String, u128)> = store
        .keys::<InventoryBySku>()
        .rev()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        got_rev,
        want.iter().rev().cloned().collect::<Vec<_>>(),
        "keys().rev()"
    );
    for sku in ["sku-0", "sku-1", "sku-2", "sku-3"] {
        let want: Vec<u128> = pairs
            .keys()
            .filter(|(s, _)| s == sku)
            .map(|(_, id)| *id)
            .collect();
        let got: Vec<u128> = store
            .keys_with_prefix::<InventoryBySku>(&keys::prefix(sku))
            .map(|k| k.map(|(_, id)| id))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(got, want, "keys_with_prefix({sku})");
        let scanned = store
            .scan_prefix::<InventoryBySku>(&keys::prefix(sku))
            .count();
        assert_eq!(scanned, want.len(), "scan_prefix({sku})");
        assert_eq!(
            store.get::<ProductsBySku>(&sku.to_string()).unwrap(),
            skus.get(sku).copied(),
            "get({sku})"
        );
    }
    let from = ("sku-1".to_string(), 0u128).encode();
    let to = ("sku-2".to_string(), u128::MAX).encode();
    let got: Vec<(String, u128)> = store
        .range::<InventoryBySku, _>(from..=to)
        .map(|e| e.map(|(k, ())| k))
        .collect::<Result<_, _>>()
        .unwrap();
    let want_range: Vec<(String, u128)> = want
        .iter()
        .filter(|(s, _)| s == "sku-1" || s == "sku-2")
        .cloned()
        .collect();
    assert_eq!(got, want_range, "range");
    store
        .transact(|tx| {
            for sku in ["sku-0", "sku-1", "sku-2", "sku-3"] {
                assert_eq!(
                    tx.get::<ProductsBySku>(&sku.to_string())?,
                    skus.get(sku).copied(),
                    "tx.get({sku})"
                );
            }
            for k in pairs.keys() {
                assert!(tx.contains::<InventoryBySku>(k)?, "tx.contains({k:?})");
            }
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
}

#[test]
fn every_read_path_agrees_with_a_model_through_changes_aborts_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Model::new();
    let mut skus = std::collections::BTreeMap::new();
    {
        let store = open(dir.path());
        let mut rng = 7u64;
        for round in 0..40u32 {
            let mut writes = Vec::new();
            for _ in 0..5 {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let sku = format!("sku-{}", (rng >> 33) % 4);
                let id = u128::from((rng >> 40) % 16);
                writes.push((sku, id, (rng >> 20) % 3 == 0));
            }
            // Every fourth transaction aborts: none of its writes may show anywhere.
            let aborts = round % 4 == 3;
            let result = store.transact(|tx| {
                for (sku, id, remove) in &writes {
                    if *remove {
                        tx.remove::<InventoryBySku>(&(sku.clone(), *id))?;
                        tx.remove::<ProductsBySku>(sku)?;
                    } else {
                        tx.insert::<InventoryBySku>(&(sku.clone(), *id), &())?;
                        tx.insert::<ProductsBySku>(sku, id)?;
                    }
                }
                if aborts {
                    return abort(());
                }
                Ok(())
            });
            assert_eq!(result.is_ok(), !aborts);
            if !aborts {
                for (sku, id, remove) in writes {
                    if remove {
                        pairs.remove(&(sku.clone(), id));
                        skus.remove(&sku);
                    } else {
                        pairs.insert((sku.clone(), id), ());
                        skus.insert(sku, id);
                    }
                }
            }
            if round % 5 == 4 {
                store.durable_blocking().unwrap();
                assert_reads_match(&store, &pairs, &skus);
            }
        }
        store.durable_blocking().unwrap();
        assert_reads_match(&store, &pairs, &skus);
        assert!(!pairs.is_empty() && !skus.is_empty());
    }
    // A fresh open reads sled (and loads the catalog mirror from it): it holds exactly
    // what was acknowledged.
    let store = open(dir.path());
    assert_reads_match(&store, &pairs, &skus);
}

#[test]
fn concurrent_read_modify_write_of_a_mirrored_table_loses_no_update() {
    const THREADS: u128 = 8;
    const PER_THREAD: u128 = 150;
    let dir = tempfile::tempdir().unwrap();
    let key = "counter-sku".to_string();
    {
        let store = open(dir.path());
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let store = store.clone();
                let key = key.clone();
                std::thread::spawn(move || {
                    for i in 0..PER_THREAD {
                        store
                            .transact(|tx| {
                                let next = tx.get::<ProductsBySku>(&key)?.unwrap_or(0) + 1;
                                tx.insert::<ProductsBySku>(&key, &next)?;
                                Ok::<_, Abort<()>>(())
                            })
                            .unwrap();
                        // Durable waits cut the stream into many small batches, so
                        // closures run both while a batch is applied and after it.
                        if (i + t) % 7 == 0 {
                            store.durable_blocking().unwrap();
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        store.durable_blocking().unwrap();
        assert_eq!(
            store.get::<ProductsBySku>(&key).unwrap(),
            Some(THREADS * PER_THREAD)
        );
    }
    let store = open(dir.path());
    assert_eq!(
        store.get::<ProductsBySku>(&key).unwrap(),
        Some(THREADS * PER_THREAD)
    );
}
