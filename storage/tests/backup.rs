//! Exports and imports on a real sled in temp dirs: a round trip keeps every table and
//! the id generator, an export taken while a writer commits between its steps holds
//! exactly the state at its start, and a database from a newer schema is left untouched.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;

use common::{event, open, temp_store};
use storage::tables::{ApiKeys, Meta, Outbox, WebhookCursors, TABLE_NAMES};
use storage::{Abort, Error, ExportItem, Import, SnapshotInfo, Store};

type Dump = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

/// Exports `store` into memory, calling `between` after each item.
fn export_with(store: &Store, mut between: impl FnMut(&ExportItem<'_>)) -> (SnapshotInfo, Dump) {
    let mut dump = Dump::new();
    let mut table = String::new();
    let mut info = None;
    let summary = store
        .export(&mut |item| {
            match &item {
                ExportItem::Begin(i) => info = Some(*i),
                ExportItem::Table(name) => {
                    table = name.to_string();
                    dump.entry(table.clone()).or_default();
                }
                ExportItem::Entry { key, value } => {
                    let fresh = dump
                        .get_mut(&table)
                        .unwrap()
                        .insert(key.to_vec(), value.to_vec());
                    assert!(fresh.is_none(), "a key emitted twice in {table}");
                }
            }
            between(&item);
            Ok(())
        })
        .unwrap();
    let entries: usize = dump.values().map(BTreeMap::len).sum();
    assert_eq!(summary.entries as usize, entries);
    (info.unwrap(), dump)
}

fn import(dir: &Path, info: SnapshotInfo, dump: &Dump) {
    let mut im = Import::create(dir).unwrap();
    for (table, entries) in dump {
        im.table(table).unwrap();
        for (k, v) in entries {
            im.entry(k, v).unwrap();
        }
    }
    im.finish(info).unwrap();
}

/// Step `i` of the writer: one transaction across tables near the start, middle and
/// end of the export's walk, with an insert, an overwrite and a delete of an older key.
fn step(store: &Store, i: u64) {
    store
        .transact(|tx| {
            tx.insert::<Meta>(&"n".to_string(), &i)?;
            tx.insert::<ApiKeys>(&i.to_be_bytes().to_vec(), &format!("c{i}"))?;
            tx.emit(event("step", i.to_string()))?;
            tx.insert::<WebhookCursors>(&u128::from(i), &i)?;
            if i > 1 {
                tx.remove::<WebhookCursors>(&u128::from(i - 1))?;
                tx.remove::<ApiKeys>(&(i - 1).to_be_bytes().to_vec())?;
            }
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.durable_blocking().unwrap();
}

/// Every table of `store` as raw bytes, through a second export.
fn dump(store: &Store) -> Dump {
    export_with(store, |_| {}).1
}

/// What the state after step `n` holds, as the store's typed reads see it.
fn assert_state_after(store: &Store, n: u64) {
    assert_eq!(store.get::<Meta>(&"n".to_string()).unwrap(), Some(n));
    let cursors: Vec<(u128, u64)> = store.iter::<WebhookCursors>().map(|r| r.unwrap()).collect();
    assert_eq!(cursors, vec![(u128::from(n), n)]);
    let keys: Vec<Vec<u8>> = store.keys::<ApiKeys>().map(|r| r.unwrap()).collect();
    assert_eq!(keys, vec![n.to_be_bytes().to_vec()]);
    let events: Vec<String> = store
        .iter::<Outbox>()
        .map(|r| r.unwrap().1.data_json)
        .collect();
    let expected: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    assert_eq!(events, expected, "exactly the events of steps 1..={n}");
}

#[test]
fn a_round_trip_keeps_every_table_and_ids_continue_above_the_snapshot() {
    let (_dir, store) = temp_store();
    for i in 1..=50 {
        step(&store, i);
    }
    let before = dump(&store);
    let (info, exported) = export_with(&store, |_| {});
    assert_eq!(info.schema_version, storage::SCHEMA_VERSION);
    assert_eq!(exported, before);
    assert_eq!(
        exported.keys().map(String::as_str).collect::<Vec<_>>(),
        {
            let mut names = TABLE_NAMES.to_vec();
            names.sort();
            names
        },
        "every table is in the export, even empty ones"
    );
    let last_seq = store.keys::<Outbox>().next_back().unwrap().unwrap();
    assert!(info.next_id > last_seq);

    let target = tempfile::tempdir().unwrap();
    let db = target.path().join("db");
    import(&db, info, &exported);
    assert!(matches!(Import::create(&db), Err(Error::Backup(_))));
    let restored = open(&db);
    assert_eq!(dump(&restored), before);
    assert_state_after(&restored, 50);
    // The outbox goes on after the snapshot's ids, never repeating one.
    step(&restored, 51);
    let seqs: Vec<u64> = restored.keys::<Outbox>().map(|r| r.unwrap()).collect();
    assert_eq!(seqs.len(), 51);
    assert!(seqs[50] >= info.next_id, "{seqs:?} vs {}", info.next_id);
}

#[test]
fn an_export_holds_the_state_at_its_start_while_a_writer_commits_between_its_steps() {
    let (_dir, store) = temp_store();
    for i in 1..=20 {
        step(&store, i);
    }
    // The writer commits (durably) three steps whenever the export moves to a new table
    // or passes the first entry of one, so writes land behind, at and ahead of the walk.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let writer = {
        let store = store.clone();
        std::thread::spawn(move || {
            let mut i = 20;
            while go_rx.recv().is_ok() {
                for _ in 0..3 {
                    i += 1;
                    step(&store, i);
                }
                done_tx.send(()).unwrap();
            }
            i
        })
    };
    let mut first_of_table = false;
    let (info, exported) = export_with(&store, |item| {
        let nudge = match item {
            ExportItem::Begin(_) => false,
            ExportItem::Table(_) => {
                first_of_table = true;
                true
            }
            ExportItem::Entry { .. } => std::mem::take(&mut first_of_table),
        };
        if nudge {
            go_tx.send(()).unwrap();
            done_rx.recv().unwrap();
        }
    });
    drop(go_tx);
    let written = writer.join().unwrap();
    assert!(written > 20 + 3 * TABLE_NAMES.len() as u64);
    assert_state_after(&store, written);

    let target = tempfile::tempdir().unwrap();
    import(&target.path().join("db"), info, &exported);
    let restored = open(&target.path().join("db"));
    assert_state_after(&restored, 20);
}

#[test]
fn a_second_export_at_once_is_refused_and_the_first_completes() {
    let (_dir, store) = temp_store();
    step(&store, 1);
    let mut refused = None;
    let (_, exported) = export_with(&store, |item| {
        if matches!(item, ExportItem::Begin(_)) {
            refused = Some(store.export(&mut |_| Ok(())));
        }
    });
    assert!(matches!(refused, Some(Err(Error::Backup(_)))));
    assert!(!exported["meta"].is_empty());
    // Both have ended: a third one runs.
    assert_eq!(dump(&store), exported);
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            for (k, v) in files(&path) {
                out.insert(format!("{name}/{k}"), v);
            }
        } else {
            out.insert(name, std::fs::read(&path).unwrap());
        }
    }
    out
}

#[test]
fn a_database_from_a_newer_schema_is_refused_and_left_byte_for_byte_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        step(&store, 1);
        store
            .transact(|tx| {
                tx.insert::<Meta>(&"schema_version".to_string(), &99)?;
                Ok::<_, Abort<()>>(())
            })
            .unwrap();
    }
    // What a newer binary's open leaves beside sled's files.
    std::fs::write(dir.path().join("fulfilld-schema"), "99\n").unwrap();
    let before = files(dir.path());
    for _ in 0..2 {
        assert!(matches!(
            Store::open(dir.path(), &common::config()),
            Err(Error::SchemaTooNew { found: 99, .. })
        ));
    }
    let after = files(dir.path());
    assert!(
        after == before,
        "the refused database was modified: {:?} became {:?}",
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
}
