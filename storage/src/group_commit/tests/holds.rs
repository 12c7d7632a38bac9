//! Holds (`hold.rs`): a held poll's writes stay in one batch while the committer waits
//! for the poll, new holds do not starve the committer, and a pin never outlives a poll.

use super::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

/// Entries of the batch the committer holds before applying it.
fn committing_entries(commits: &GroupCommit) -> usize {
    commits.wait_until(|w| w.committing.is_some());
    lock(&commits.shared.writer)
        .committing
        .as_ref()
        .unwrap()
        .entries()
}

#[test]
fn without_a_hold_the_committer_takes_a_change_without_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    commits.hooks(|h| h.hold_before_apply = true);
    put(&store, "change", 1);
    assert_eq!(committing_entries(commits), 1);
    // The record lands in the next batch: a crash in between keeps only the change.
    put(&store, "record", 2);
    commits.hooks(|h| h.hold_before_apply = false);
    store.durable_blocking().unwrap();
}

#[test]
fn a_held_poll_keeps_its_writes_in_one_batch_while_the_committer_waits() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    commits.hooks(|h| h.hold_before_apply = true);
    runtime().block_on(store.hold(async {
        put(&store, "change", 1);
        // The committer has writes to take and waits for this poll instead.
        commits.wait_until(|w| w.sealing);
        assert!(lock(&commits.shared.writer).committing.is_none());
        put(&store, "record", 2);
    }));
    assert_eq!(
        committing_entries(commits),
        2,
        "the change and its record are one batch"
    );
    commits.hooks(|h| h.hold_before_apply = false);
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "change"), Some(1));
    assert_eq!(meta(&store, "record"), Some(2));
}

#[test]
fn a_new_hold_waits_while_the_committer_drains_pins() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let first = {
        let store = store.clone();
        std::thread::spawn(move || {
            runtime().block_on(store.hold(async {
                put(&store, "first", 1);
                release_rx.recv().unwrap();
            }))
        })
    };
    commits.wait_until(|w| w.sealing);
    let second = {
        let store = store.clone();
        std::thread::spawn(move || {
            runtime().block_on(store.hold(async { put(&store, "second", 2) }))
        })
    };
    // The second hold may not pin the batch the committer is waiting for.
    commits.wait_until(|w| w.hooks.waited_for_room == 1);
    // Writes without a hold still join it.
    put(&store, "plain", 3);
    commits.hooks(|h| h.hold_before_apply = true);
    release_tx.send(()).unwrap();
    first.join().unwrap();
    assert_eq!(committing_entries(commits), 2, "first and plain");
    commits.hooks(|h| h.hold_before_apply = false);
    second.join().unwrap();
    store.durable_blocking().unwrap();
    for (k, v) in [("first", 1), ("second", 2), ("plain", 3)] {
        assert_eq!(meta(&store, k), Some(v));
    }
}

#[test]
fn an_unheld_write_before_an_await_is_committed_while_the_held_future_waits() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    let (go_tx, go_rx) = tokio::sync::oneshot::channel::<()>();
    let (wrote_tx, wrote_rx) = std::sync::mpsc::channel::<()>();
    let held = {
        let store = store.clone();
        std::thread::spawn(move || {
            runtime().block_on(store.hold(async {
                crate::unheld(|| put(&store, "requeue", 1));
                wrote_tx.send(()).unwrap();
                go_rx.await.unwrap();
                put(&store, "change", 2);
                put(&store, "record", 3);
            }))
        })
    };
    // Durable while the held future is suspended: nothing pins its batch.
    wrote_rx.recv().unwrap();
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "requeue"), Some(1));
    commits.hooks(|h| h.hold_before_take = true);
    go_tx.send(()).unwrap();
    held.join().unwrap();
    commits.hooks(|h| {
        h.hold_before_take = false;
        h.hold_before_apply = true;
    });
    assert_eq!(committing_entries(commits), 2, "change and record");
    commits.hooks(|h| h.hold_before_apply = false);
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "record"), Some(3));
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "awaited after writing")]
fn a_held_future_that_awaits_after_writing_is_caught_in_debug_builds() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    runtime().block_on(store.hold(async {
        put(&store, "change", 1);
        tokio::task::yield_now().await;
        put(&store, "record", 2);
    }));
}

/// Refuses every transaction once `closed` is set.
struct Switch(std::sync::atomic::AtomicBool);

impl crate::WriteGate for Switch {
    fn admit(&self) -> std::result::Result<(), String> {
        if self.0.load(Ordering::SeqCst) {
            Err("below the reserve".into())
        } else {
            Ok(())
        }
    }
}

#[test]
fn the_write_gate_closing_after_a_held_change_still_admits_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let gate = Arc::new(Switch(Default::default()));
    assert!(store.gate(gate.clone()));
    let recorded = runtime().block_on(store.hold(async {
        put(&store, "change", 1);
        gate.0.store(true, Ordering::SeqCst);
        store.transact(|tx| {
            tx.insert::<Meta>(&"record".to_string(), &2)?;
            Ok::<_, Abort<()>>(())
        })
    }));
    assert!(recorded.is_ok(), "{recorded:?}");
    // Outside a pinned poll the gate refuses, before anything is written.
    let refused = store.transact(|tx| {
        tx.insert::<Meta>(&"later".to_string(), &3)?;
        Ok::<_, Abort<()>>(())
    });
    assert!(matches!(refused, Err(TxError::Storage(Error::NoSpace(_)))));
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "record"), Some(2));
    assert_eq!(meta(&store, "later"), None);
}
