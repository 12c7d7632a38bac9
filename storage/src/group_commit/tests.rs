//! Tests of the batched writer against a real sled in a temp dir, stopping the committer
//! at chosen points (see `hooks.rs`) to see batches that are open or being applied.

use super::hooks::Hooks;
use super::*;
use crate::records::NewEvent;
use crate::tables::{Meta, Outbox};
use crate::txn::abort;
use crate::{Store, StoreConfig};

impl GroupCommit {
    fn hooks(&self, set: impl FnOnce(&mut Hooks)) {
        set(&mut lock(&self.shared.writer).hooks);
        self.shared.work.notify_all();
    }

    fn wait_until(&self, reached: impl Fn(&Writer) -> bool) {
        let mut w = lock(&self.shared.writer);
        while !reached(&w) {
            w = self.shared.hooked.wait(w).unwrap();
        }
    }
}

fn open(dir: &std::path::Path, limits: BatchLimits) -> Store {
    let config = StoreConfig {
        cache_capacity_bytes: 8 * 1024 * 1024,
    };
    Store::open_with_limits(dir, &config, limits).unwrap()
}

fn event(data: &str) -> NewEvent {
    NewEvent {
        id: format!("evt_{data}"),
        kind: "test.written".into(),
        timestamp: "2025-01-01T00:00:00Z".into(),
        data_json: data.into(),
    }
}

fn meta(store: &Store, key: &str) -> Option<u64> {
    store.get::<Meta>(&key.to_string()).unwrap()
}

fn try_put(store: &Store, key: &str, value: u64) -> std::result::Result<(), TxError<()>> {
    store.transact(|tx| {
        tx.insert::<Meta>(&key.to_string(), &value)?;
        Ok::<_, Abort<()>>(())
    })
}

fn put(store: &Store, key: &str, value: u64) {
    try_put(store, key, value).unwrap();
}

#[test]
fn closures_see_the_open_batch_and_an_abort_drops_only_its_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    commits.hooks(|h| h.hold_before_take = true);

    store
        .transact(|tx| {
            tx.insert::<Meta>(&"a".into(), &1)?;
            tx.emit(event("a"))?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    // Committed but not applied: plain reads do not see it yet, closures do.
    assert_eq!(meta(&store, "a"), None);
    let seen = store
        .transact(|tx| {
            let a = tx.get::<Meta>(&"a".into())?;
            tx.insert::<Meta>(&"b".into(), &(a.unwrap_or(0) + 1))?;
            Ok::<_, Abort<()>>(a)
        })
        .unwrap();
    assert_eq!(seen, Some(1));

    let aborted = store.transact(|tx| {
        tx.insert::<Meta>(&"a".into(), &99)?;
        tx.remove::<Meta>(&"b".into())?;
        tx.insert::<Meta>(&"c".into(), &3)?;
        tx.emit(event("c"))?;
        assert_eq!(tx.get::<Meta>(&"a".into())?, Some(99));
        assert!(!tx.contains::<Meta>(&"b".into())?);
        abort::<(), _>("refused")
    });
    assert!(matches!(aborted, Err(TxError::Aborted("refused"))));

    store
        .transact(|tx| {
            assert_eq!(tx.get::<Meta>(&"a".into())?, Some(1));
            assert_eq!(tx.get::<Meta>(&"b".into())?, Some(2));
            assert!(!tx.contains::<Meta>(&"c".into())?);
            tx.insert::<Meta>(&"d".into(), &4)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    // Every write above waits in one open batch, with the reservation of the event's id.
    commits.wait_until(|w| w.committing.is_none() && w.open.entries() == 5);

    commits.hooks(|h| h.hold_before_take = false);
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "a"), Some(1));
    assert_eq!(meta(&store, "b"), Some(2));
    assert_eq!(meta(&store, "c"), None);
    assert_eq!(meta(&store, "d"), Some(4));
    let events: Vec<String> = store
        .iter::<Outbox>()
        .map(|r| r.unwrap().1.data_json)
        .collect();
    assert_eq!(events, vec!["a".to_string()]);
}

#[test]
fn closures_read_through_the_batch_being_applied() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    commits.hooks(|h| h.hold_before_apply = true);

    put(&store, "a", 1);
    commits.wait_until(|w| w.committing.is_some());
    assert_eq!(meta(&store, "a"), None);
    store
        .transact(|tx| {
            let a = tx.get::<Meta>(&"a".into())?.unwrap();
            tx.insert::<Meta>(&"b".into(), &(a + 1))?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();

    commits.hooks(|h| h.hold_before_apply = false);
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "a"), Some(1));
    assert_eq!(meta(&store, "b"), Some(2));
}

/// A store whose open batch is full (two entries, `a` and `b`) and held before the
/// committer takes it, with a writer of `c` started that has to wait for room.
fn full_batch_and_a_waiting_writer(
    dir: &std::path::Path,
) -> (Store, JoinHandle<std::result::Result<(), TxError<()>>>) {
    let limits = BatchLimits {
        max_entries: 2,
        max_bytes: 1 << 20,
    };
    let store = open(dir, limits);
    store.inner.commits.hooks(|h| h.hold_before_take = true);
    put(&store, "a", 1);
    put(&store, "b", 2);
    let writer = {
        let store = store.clone();
        std::thread::spawn(move || try_put(&store, "c", 3))
    };
    store
        .inner
        .commits
        .wait_until(|w| w.hooks.waited_for_room == 1);
    (store, writer)
}

#[test]
fn a_full_batch_makes_writers_wait_until_the_committer_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, writer) = full_batch_and_a_waiting_writer(dir.path());
    let commits = &store.inner.commits;
    // The waiting writer has not run its closure.
    commits.wait_until(|w| w.open.entries() == 2);

    commits.hooks(|h| h.hold_before_take = false);
    writer.join().unwrap().unwrap();
    store.durable_blocking().unwrap();
    for (k, v) in [("a", 1), ("b", 2), ("c", 3)] {
        assert_eq!(meta(&store, k), Some(v));
    }
}

#[test]
fn a_failure_wakes_writers_waiting_for_room() {
    let dir = tempfile::tempdir().unwrap();
    let (store, writer) = full_batch_and_a_waiting_writer(dir.path());
    store.mark_failed("disk gone");
    assert!(matches!(
        writer.join().unwrap(),
        Err(TxError::Storage(Error::Flush(m))) if m == "disk gone"
    ));
}

#[test]
fn a_failed_apply_fails_its_waiters_and_everything_after_it() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path(), BatchLimits::default());
        put(&store, "before", 1);
        store.durable_blocking().unwrap();

        let commits = &store.inner.commits;
        commits.hooks(|h| {
            h.hold_before_apply = true;
            h.fail_next = Some("injected apply failure".into());
        });
        put(&store, "lost", 2);
        let waiter = {
            let store = store.clone();
            std::thread::spawn(move || store.durable_blocking())
        };
        commits.wait_until(|w| w.committing.is_some());
        commits.hooks(|h| h.hold_before_apply = false);

        let is_injected =
            |r: Result<()>| matches!(r, Err(Error::Flush(m)) if m.contains("injected"));
        assert!(is_injected(waiter.join().unwrap()));
        // Sticky: every later transaction, wait and health check fails too.
        assert!(is_injected(store.durable_blocking()));
        assert!(is_injected(store.check()));
        assert!(matches!(
            store.transact(|_| Ok::<_, Abort<()>>(())),
            Err(TxError::Storage(Error::Flush(_)))
        ));
    }
    let store = open(dir.path(), BatchLimits::default());
    store.check().unwrap();
    assert_eq!(meta(&store, "before"), Some(1));
    assert_eq!(meta(&store, "lost"), None);
}

#[test]
fn a_write_merged_after_the_seal_into_the_same_batch_removes_it() {
    use crate::keys::Key;
    use crate::tables::{IndexSeal, Table};
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let commits = &store.inner.commits;
    let seal = |n: u128| {
        let key = sled::IVec::from("seal".to_string().encode());
        commits
            .seal(IndexSeal::INDEX, key, crate::codec::encode(&n).into())
            .unwrap();
    };
    commits.hooks(|h| h.hold_before_take = true);
    put(&store, "before", 1);
    seal(1);
    put(&store, "after", 2);
    commits.hooks(|h| h.hold_before_take = false);
    store.flush().unwrap();
    assert_eq!(
        store.seal().unwrap(),
        None,
        "the write after it took it out"
    );
    assert_eq!(meta(&store, "after"), Some(2));

    commits.hooks(|h| h.hold_before_take = true);
    put(&store, "before", 3);
    seal(2);
    commits.hooks(|h| h.hold_before_take = false);
    store.flush().unwrap();
    assert_eq!(store.seal().unwrap(), Some(2), "writes before it leave it");
}

mod holds;

/// Counts the batches applied and the fdatasyncs.
#[derive(Default)]
struct Counts {
    applied: std::sync::atomic::AtomicUsize,
    synced: std::sync::atomic::AtomicUsize,
}

impl crate::CommitObserver for Counts {
    fn batch_applied(&self, _writes: usize) {
        self.applied.fetch_add(1, Ordering::SeqCst);
    }
    fn synced(&self, _took: std::time::Duration) {
        self.synced.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_batch_already_waiting_is_applied_before_the_flush_that_writes_both() {
    // Each flush of sled wakes its IO threads and syncs a file range; under load the
    // committer applies the waiting batch first, so one flush and one fdatasync cover
    // both. Neither may be left unflushed when nothing more comes.
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let counts = Arc::new(Counts::default());
    assert!(store.observe(Arc::clone(&counts) as Arc<dyn crate::CommitObserver>));
    put(&store, "warm", 1);
    store.durable_blocking().unwrap();
    let (applied, synced) = (
        counts.applied.load(Ordering::SeqCst),
        counts.synced.load(Ordering::SeqCst),
    );
    let commits = &store.inner.commits;
    commits.hooks(|h| h.hold_before_apply = true);
    put(&store, "a", 1);
    commits.wait_until(|w| w.committing.is_some());
    put(&store, "b", 2);
    commits.hooks(|h| h.hold_before_apply = false);
    store.durable_blocking().unwrap();
    assert_eq!(
        counts.applied.load(Ordering::SeqCst) - applied,
        2,
        "two batches"
    );
    assert_eq!(
        counts.synced.load(Ordering::SeqCst) - synced,
        1,
        "one fdatasync after one flush"
    );
    assert_eq!((meta(&store, "a"), meta(&store, "b")), (Some(1), Some(2)));
}

#[test]
fn a_held_closure_pins_the_batch_of_its_commits_until_it_returns() {
    // What a plain thread does after committing under `Store::held` (the packer updating
    // the order index) must happen before the commit is applied, durable or delivered.
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path(), BatchLimits::default());
    let pins = || lock(&store.inner.commits.shared.writer).pins;
    store.held(|| {
        put(&store, "a", 1);
        assert_eq!(pins(), 1, "pinned while the closure runs");
        assert_eq!(meta(&store, "a"), None, "not applied while held");
    });
    assert_eq!(pins(), 0, "released when it returns");
    store.durable_blocking().unwrap();
    assert_eq!(meta(&store, "a"), Some(1));
}
