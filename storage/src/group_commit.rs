//! Batched single-writer commit: closures run one at a time under our writer lock and
//! fill an open batch; a commit thread applies each batch as one sled transaction and
//! flushes it, and a sync thread fdatasyncs once for every writer in it.

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use sled::IVec;
use tokio::sync::watch;

use crate::capture::Capture;
use crate::error::{Error, Result, TxError};
use crate::hold;
use crate::ids::Ids;
use crate::mirror::Mirror;
use crate::observe::{CommitObserver, Observer};
use crate::txn::{self, Abort, Layers, Tx};

mod shared;
mod threads;

use shared::{lock, Shared, State, Writer};
use threads::{commit_loop, sync_loop};

/// How large the open batch may grow before `transact` waits for the committer. A
/// closure runs only while the batch is below both limits, so a batch exceeds them by at
/// most one closure's writes (a single large closure never deadlocks).
#[derive(Debug, Clone, Copy)]
pub struct BatchLimits {
    /// Distinct keys written.
    pub max_entries: usize,
    /// Key plus value bytes written.
    pub max_bytes: usize,
}

impl Default for BatchLimits {
    fn default() -> Self {
        // Far above what 64 waiting writers produce per flush (a few hundred entries),
        // so only writers that never wait for durability meet the limit.
        BatchLimits {
            max_entries: 4096,
            max_bytes: 4 * 1024 * 1024,
        }
    }
}

pub(crate) struct GroupCommit {
    shared: Arc<Shared>,
    trees: Vec<sled::Tree>,
    mirror: Arc<Mirror>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl GroupCommit {
    /// Sets the observer of batches and syncs; `false` if one was set already.
    pub(crate) fn observe(&self, o: std::sync::Arc<dyn CommitObserver>) -> bool {
        self.shared.observer.set(o)
    }

    pub(crate) fn start(
        db: sled::Db,
        trees: Vec<sled::Tree>,
        log: Arc<File>,
        limits: BatchLimits,
        mirror: Arc<Mirror>,
        seal: Option<(usize, IVec)>,
        ids: Ids,
    ) -> GroupCommit {
        let (done, _) = watch::channel(0);
        let shared = Arc::new(Shared {
            writer: Mutex::new(Writer {
                seal,
                ids,
                ..Writer::default()
            }),
            work: Condvar::new(),
            room: Condvar::new(),
            applied: Condvar::new(),
            committed: AtomicU64::new(0),
            applied_batches: AtomicU64::new(0),
            limits,
            state: Mutex::new(State::default()),
            to_sync: Condvar::new(),
            flushed: Condvar::new(),
            done,
            observer: Observer::default(),
            #[cfg(test)]
            hooked: Condvar::new(),
        });
        let committer = {
            let shared = Arc::clone(&shared);
            let (db, trees, mirror) = (db.clone(), trees.clone(), Arc::clone(&mirror));
            std::thread::Builder::new()
                .name("storage-commit".into())
                .spawn(move || {
                    commit_loop(&shared, &db, &trees, &mirror);
                    shared.stop_sync();
                })
                .expect("spawning the commit thread")
        };
        let syncer = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("storage-sync".into())
                .spawn(move || sync_loop(&shared, &log))
                .expect("spawning the sync thread")
        };
        GroupCommit {
            shared,
            trees,
            mirror,
            threads: Mutex::new(vec![committer, syncer]),
        }
    }

    /// Runs `f` under the writer lock and, if it returns `Ok` with writes, adds them to
    /// the open batch. Waits first while the open batch is full.
    ///
    /// Under a hold (`hold.rs`) the first write pins the open batch; a pinned poll's
    /// closures join that batch whatever its size (the committer waits for them), and an
    /// unpinned one waits while the committer is draining pins, so pins cannot starve it.
    pub(crate) fn transact<R, E>(
        &self,
        f: impl FnOnce(&Tx<'_>) -> std::result::Result<R, Abort<E>>,
    ) -> std::result::Result<R, TxError<E>> {
        let shared = &*self.shared;
        let held = hold::current(self.id());
        let mut w = lock(&shared.writer);
        loop {
            if let Some(e) = shared.failure() {
                return Err(TxError::Storage(e));
            }
            if held == Some(true) {
                break;
            }
            // A new pin must not hold up a batch the committer is already waiting for.
            let must_wait = shared.full(&w.open) || (held.is_some() && w.sealing);
            if !must_wait {
                break;
            }
            #[cfg(test)]
            waiting_for_room(shared, &mut w);
            w = shared.room.wait(w).unwrap_or_else(|e| e.into_inner());
        }
        let layers = Layers {
            open: &w.open,
            committing: w.committing.as_deref(),
            trees: &self.trees,
            mirror: &self.mirror,
            ids: w.ids.counter(),
            applied_batches: shared.applied_batches.load(Ordering::Acquire),
        };
        let (r, mut writes) = txn::run(layers, f)?;
        if !writes.is_empty() {
            if let Some((table, key, value)) = w.ids.reserve() {
                writes.put(table, key, Some(value));
            }
            if let Some((table, key)) = w.seal.take() {
                writes.put(table, key, None);
            }
            let was_idle = w.open.is_empty();
            w.open.merge(writes);
            if held == Some(false) {
                w.pins += 1;
                hold::set_pinned(true);
            }
            shared.open_next(w, was_idle);
        }
        Ok(r)
    }

    /// Writes the seal (`table`, `key` = `value`) into the open batch after every closure
    /// that committed before it; the next closure with writes removes it again.
    pub(crate) fn seal(&self, table: usize, key: IVec, value: IVec) -> Result<()> {
        let shared = &*self.shared;
        let mut w = lock(&shared.writer);
        if let Some(e) = shared.failure() {
            return Err(e);
        }
        let was_idle = w.open.is_empty();
        w.open.put(table, key.clone(), Some(value));
        w.seal = Some((table, key));
        shared.open_next(w, was_idle);
        Ok(())
    }

    /// Identifies this store's writer to holds.
    pub(crate) fn id(&self) -> usize {
        Arc::as_ptr(&self.shared) as usize
    }

    /// Ends a held poll's pin on the open batch (see `hold.rs`).
    pub(crate) fn unpin(&self) {
        let mut w = lock(&self.shared.writer);
        w.pins -= 1;
        if w.pins == 0 {
            drop(w);
            self.shared.work.notify_one();
        }
    }

    /// The generation a durable wait started now must reach, or the sticky failure.
    fn target(&self) -> Result<u64> {
        let target = self.shared.committed.load(Ordering::Acquire);
        match self.shared.failure() {
            Some(e) => Err(e),
            None => Ok(target),
        }
    }

    fn outcome(&self, target: u64) -> Option<Result<()>> {
        let st = lock(&self.shared.state);
        if st.durable >= target {
            Some(Ok(()))
        } else {
            st.failed.as_ref().map(|f| Err(f.error()))
        }
    }

    pub(crate) async fn wait_durable(&self) -> Result<()> {
        let mut rx = self.shared.done.subscribe();
        let target = self.target()?;
        loop {
            if let Some(out) = self.outcome(target) {
                return out;
            }
            if rx.changed().await.is_err() {
                return Err(Error::Flush("commit thread stopped".into()));
            }
        }
    }

    pub(crate) fn wait_durable_blocking(&self) -> Result<()> {
        let pinned = hold::current(self.id()) == Some(true);
        debug_assert!(
            !pinned,
            "a held poll waited for durability of the batch it holds open"
        );
        if pinned {
            // Its batch cannot be taken while it is pinned: the wait ends the pin.
            hold::set_pinned(false);
            self.unpin();
        }
        let target = self.target()?;
        let mut st = lock(&self.shared.state);
        loop {
            if st.durable >= target {
                return Ok(());
            }
            if let Some(f) = &st.failed {
                return Err(f.error());
            }
            st = self
                .shared
                .flushed
                .wait(st)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(crate) fn failure(&self) -> Option<Error> {
        self.shared.failure()
    }

    pub(crate) fn fail(&self, msg: String) {
        self.shared.fail(msg);
    }

    /// Batches applied so far, read before a `Preread`'s plain read.
    pub(crate) fn applied_batches(&self) -> u64 {
        self.shared.applied_batches.load(Ordering::Acquire)
    }

    /// Starts `capture` at a batch boundary: waits (off the writer lock) until no batch
    /// is being applied, then, under the writer lock, registers the capture and returns
    /// the next id closures would draw, so sled holds exactly the batches taken before it
    /// and every later batch records what it overwrites. Closures run meanwhile only
    /// while it waits.
    pub(crate) fn begin_capture(&self, capture: Arc<Capture>) -> Result<u64> {
        let mut w = lock(&self.shared.writer);
        while w.committing.is_some() {
            w = self
                .shared
                .applied
                .wait(w)
                .unwrap_or_else(|e| e.into_inner());
        }
        if w.capture.is_some() {
            return Err(Error::Backup("another backup is running".into()));
        }
        w.capture = Some(capture);
        Ok(w.ids.peek())
    }

    /// Ends the capture: batches taken from now on record nothing.
    pub(crate) fn end_capture(&self) {
        lock(&self.shared.writer).capture = None;
    }

    /// Stops the threads after committing and syncing whatever is open.
    pub(crate) fn stop(&self) {
        lock(&self.shared.writer).stop = true;
        self.shared.work.notify_all();
        // The commit thread first: it stops the sync thread once it has nothing left.
        for t in lock(&self.threads).drain(..) {
            let _ = t.join();
        }
    }
}

/// Makes everything written so far durable. sled's flush ends in `sync_file_range`, which
/// neither flushes the drive's write cache nor persists the log file's size (sled issue
/// #1452), so a power cut could lose it; `fdatasync` on the log file does both.
pub(crate) fn sync(db: &sled::Db, log: &File) -> Result<()> {
    db.flush()?;
    log.sync_data()
        .map_err(|e| Error::io("fdatasync of the log", e))
}

#[cfg(test)]
mod hooks;
#[cfg(test)]
mod tests;

/// Tells tests that a writer is waiting for room.
#[cfg(test)]
fn waiting_for_room(shared: &Shared, w: &mut Writer) {
    w.hooks.waited_for_room += 1;
    shared.hooked.notify_all();
}
