//! Integration tests of durable commit in one process: concurrent group-commit waiters
//! (async and blocking), reopening after them, and failure reporting.

mod common;

use std::collections::BTreeSet;

use common::{event_keys, open, records_with_prefix, temp_store, write_with_event};
use storage::tables::Meta;
use storage::Error;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_async_and_blocking_writers_all_become_durable() {
    const TASKS: u64 = 64;
    const THREADS: u64 = 8;
    const ROUNDS: u64 = 5;
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());

    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let store = store.clone();
            tokio::spawn(async move {
                for r in 0..ROUNDS {
                    write_with_event(&store, &format!("w/task{t:03}/{r}"), t * 100 + r);
                    store.durable().await.expect("durable commit");
                }
            })
        })
        .collect();
    // OS threads waiting with the blocking variant share the same flushes.
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for r in 0..ROUNDS {
                    write_with_event(&store, &format!("w/thread{t:03}/{r}"), t * 100 + r);
                    store.durable_blocking().expect("durable commit");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    for t in threads {
        t.join().unwrap();
    }
    // With nothing new committed a wait still completes.
    store.durable().await.unwrap();
    store.durable_blocking().unwrap();
    store.check().unwrap();
    drop(store);

    let store = open(dir.path());
    let records = records_with_prefix(&store, "w/");
    assert_eq!(records.len() as u64, (TASKS + THREADS) * ROUNDS);
    for t in 0..TASKS {
        for r in 0..ROUNDS {
            assert_eq!(
                records.get(&format!("w/task{t:03}/{r}")),
                Some(&(t * 100 + r))
            );
        }
    }
    for t in 0..THREADS {
        for r in 0..ROUNDS {
            assert_eq!(
                records.get(&format!("w/thread{t:03}/{r}")),
                Some(&(t * 100 + r))
            );
        }
    }
    assert_eq!(
        event_keys(&store),
        records.keys().cloned().collect::<BTreeSet<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_store_refuses_every_durable_wait_and_health_check() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    write_with_event(&store, "before", 1);
    store.durable().await.unwrap();
    store.check().unwrap();

    let other_handle = store.clone();
    store.mark_failed("x: simulated fsync EIO");
    write_with_event(&store, "after", 2);

    match store.durable().await {
        Err(Error::Flush(msg)) => assert!(msg.contains("simulated fsync EIO"), "{msg}"),
        other => panic!("durable() after failure returned {other:?}"),
    }
    assert!(matches!(
        other_handle.durable_blocking(),
        Err(Error::Flush(_))
    ));
    match other_handle.check() {
        Err(Error::Flush(msg)) => assert!(msg.contains("simulated fsync EIO"), "{msg}"),
        other => panic!("check() after failure returned {other:?}"),
    }
    // Sticky: still failed on the next attempt.
    assert!(store.durable().await.is_err());
    assert!(store.check().is_err());
    drop((store, other_handle));

    // Reopening is the recovery path: a fresh store is healthy and kept the durable write.
    let store = open(dir.path());
    store.check().unwrap();
    store.durable().await.unwrap();
    assert_eq!(store.get::<Meta>(&"before".into()).unwrap(), Some(1));
}

#[test]
fn concurrent_blocking_waiters_on_a_failed_store_all_return() {
    let (_dir, store) = temp_store();
    store.mark_failed("disk gone");
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || {
                write_with_event(&store, &format!("k{i}"), i);
                store.durable_blocking()
            })
        })
        .collect();
    for h in handles {
        assert!(matches!(h.join().unwrap(), Err(Error::Flush(m)) if m == "disk gone"));
    }
}
