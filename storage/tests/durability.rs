//! Integration tests of durable commit in one process: concurrent group-commit waiters
//! (async and blocking), reopening after them, backpressure, failure reporting and the
//! write gate.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{event, event_keys, open, records_with_prefix, temp_store, write_with_event};
use storage::tables::Meta;
use storage::{Abort, BatchLimits, Error, Store, TxError, WriteGate};

/// Commits a record and its event like [`write_with_event`], returning the outcome.
fn try_write(store: &Store, key: &str, value: u64) -> Result<(), TxError<()>> {
    store.transact(|tx| {
        tx.insert::<Meta>(&key.to_string(), &value)?;
        tx.emit(event("test.written", key))?;
        Ok::<_, Abort<()>>(())
    })
}

fn is_flush_error<E: std::fmt::Debug>(r: &Result<(), TxError<E>>, want: &str) -> bool {
    matches!(r, Err(TxError::Storage(Error::Flush(m))) if m.contains(want))
}

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
    // A failed store takes no new transactions (they could never be acknowledged).
    assert!(is_flush_error(
        &try_write(&store, "after", 2),
        "simulated fsync EIO"
    ));

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
    assert_eq!(store.get::<Meta>(&"after".into()).unwrap(), None);
}

#[test]
fn concurrent_blocking_waiters_on_a_failed_store_all_return() {
    let (_dir, store) = temp_store();
    store.mark_failed("disk gone");
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            std::thread::spawn(move || {
                (
                    try_write(&store, &format!("k{i}"), i),
                    store.durable_blocking(),
                )
            })
        })
        .collect();
    for h in handles {
        let (written, durable) = h.join().unwrap();
        assert!(is_flush_error(&written, "disk gone"), "{written:?}");
        assert!(matches!(durable, Err(Error::Flush(m)) if m == "disk gone"));
    }
}

/// With a batch bound of one entry, every write of 8 threads (half of them never wait for
/// durability, so only the bound holds them back) and one closure larger than the bound
/// all complete.
#[test]
fn writers_held_back_by_a_tiny_batch_bound_all_complete() {
    const THREADS: u64 = 8;
    const PER_THREAD: u64 = 40;
    let dir = tempfile::tempdir().unwrap();
    let limits = BatchLimits {
        max_entries: 1,
        max_bytes: 1,
    };
    let store = Store::open_with_limits(dir.path(), &common::config(), limits).unwrap();
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..PER_THREAD {
                    write_with_event(&store, &format!("bp/{t}/{i:03}"), i);
                    if t % 2 == 0 {
                        store.durable_blocking().unwrap();
                    }
                }
            })
        })
        .collect();
    store
        .transact(|tx| {
            for i in 0..100u64 {
                tx.insert::<Meta>(&format!("big/{i:03}"), &i)?;
            }
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    for h in handles {
        h.join().unwrap();
    }
    store.durable_blocking().unwrap();
    drop(store);

    let store = open(dir.path());
    let records = records_with_prefix(&store, "bp/");
    assert_eq!(records.len() as u64, THREADS * PER_THREAD);
    assert_eq!(records_with_prefix(&store, "big/").len(), 100);
    assert_eq!(
        event_keys(&store),
        records.keys().cloned().collect::<BTreeSet<_>>()
    );
}

/// Refuses while `full` is set.
struct Switch(AtomicBool);

impl WriteGate for Switch {
    fn admit(&self) -> Result<(), String> {
        if self.0.load(Ordering::Relaxed) {
            Err("below the reserve".into())
        } else {
            Ok(())
        }
    }
}

#[test]
fn the_write_gate_refuses_before_the_closure_runs_and_admits_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let gate = Arc::new(Switch(AtomicBool::new(true)));
    assert!(store.gate(gate.clone()));
    let mut ran = false;
    let refused = store.transact(|tx| {
        ran = true;
        tx.insert::<Meta>(&"k".to_string(), &1)?;
        Ok::<_, Abort<()>>(())
    });
    assert!(
        matches!(refused, Err(TxError::Storage(Error::NoSpace(ref m))) if m == "below the reserve")
    );
    assert!(!ran, "a refused closure never runs");
    // A refusal is not a failure of the store: reads, health and later writes are fine.
    store.check().unwrap();
    gate.0.store(false, Ordering::Relaxed);
    write_with_event(&store, "k000001", 1);
    store.durable_blocking().unwrap();
    assert_eq!(store.get::<Meta>(&"k000001".to_string()).unwrap(), Some(1));
    assert_eq!(store.get::<Meta>(&"k".to_string()).unwrap(), None);
}
