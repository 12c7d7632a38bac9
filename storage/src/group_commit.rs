//! Batched single-writer commit: closures run one at a time under our writer lock and
//! fill an open batch; a commit thread applies each batch as one sled transaction and
//! flushes it, and a sync thread fdatasyncs once for every writer in it.

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
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
use crate::write_set::{self, WriteSet};

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

/// What the writer lock guards.
#[derive(Default)]
struct Writer {
    /// Writes of closures that returned `Ok` since the committer last took a batch.
    open: WriteSet,
    /// Generation of the last closure merged into `open`.
    open_gen: u64,
    /// The batch being applied to sled; closures read through it until sled has it.
    committing: Option<Arc<WriteSet>>,
    /// The export in progress, if any: batches taken while it is set record what they
    /// overwrite (see `backup.rs`).
    capture: Option<Arc<Capture>>,
    /// The seal's (table, key) while it is stored and no write has followed it: the
    /// next closure with writes removes it in its own batch (see `seal.rs`).
    seal: Option<(usize, IVec)>,
    /// The ids closures draw (`Tx::next_id`) and their persisted reservation.
    ids: Ids,
    /// Polls of held futures (`hold.rs`) whose writes are in `open`: it is not taken
    /// while any is running.
    pins: usize,
    /// The committer waits for `pins` to drain: no new pin may start meanwhile.
    sealing: bool,
    stop: bool,
    #[cfg(test)]
    hooks: hooks::Hooks,
}

#[derive(Default)]
struct State {
    /// Generation that sled has written to the log; durable after the next fdatasync.
    written: u64,
    /// Generation covered by the last successful fdatasync.
    durable: u64,
    /// Set when the commit thread has stopped: the sync thread stops once caught up.
    sync_stop: bool,
    /// Sticky: once an apply or flush fails nothing is acknowledged again (a failed fsync
    /// may have dropped dirty pages, so retrying could report data durable that is not;
    /// and sled 0.34 keeps a failed log write as a global error until it is reopened).
    failed: Option<Failure>,
}

/// Why the store failed; a full disk keeps its kind so the server can say so.
#[derive(Clone)]
struct Failure {
    msg: String,
    no_space: bool,
}

impl Failure {
    fn error(&self) -> Error {
        if self.no_space {
            Error::NoSpace(self.msg.clone())
        } else {
            Error::Flush(self.msg.clone())
        }
    }
}

struct Shared {
    writer: Mutex<Writer>,
    /// The committer sleeps here (on `writer`) until the open batch has writes.
    work: Condvar,
    /// `transact` sleeps here (on `writer`) while the open batch is full.
    room: Condvar,
    /// An export waits here (on `writer`) until no batch is being applied.
    applied: Condvar,
    /// Generation of the last closure that committed writes. Written under `writer`.
    committed: AtomicU64,
    /// Batches sled has taken whose `committing` layer is gone (see `Preread`).
    /// Written under `writer`.
    applied_batches: AtomicU64,
    limits: BatchLimits,
    state: Mutex<State>,
    /// The sync thread sleeps here (on `state`) until sled has written a new batch.
    to_sync: Condvar,
    /// Blocking durable waiters sleep here (on `state`) until a flush completes.
    flushed: Condvar,
    /// Broadcasts `durable` to async waiters.
    done: watch::Sender<u64>,
    pub(crate) observer: Observer,
    /// Tests wait here (on `writer`) for the committer or a writer to reach a hook.
    #[cfg(test)]
    hooked: Condvar,
}

/// The poison of a panicking closure is harmless: its writes were never merged.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn failure(&self) -> Option<Error> {
        lock(&self.state).failed.as_ref().map(Failure::error)
    }

    /// Counts what was just added to the open batch as the next generation (the one a
    /// durable wait started now targets), releases the writer, and wakes the committer if
    /// the batch was empty before.
    fn open_next(&self, mut w: MutexGuard<'_, Writer>, was_idle: bool) {
        let generation = self.committed.load(Ordering::Relaxed) + 1;
        self.committed.store(generation, Ordering::Release);
        w.open_gen = generation;
        drop(w);
        if was_idle {
            self.work.notify_one();
        }
    }

    fn fail(&self, msg: String) {
        self.fail_with(Failure {
            msg,
            no_space: false,
        });
    }

    /// Fails with `e`, keeping whether it was a full disk.
    fn fail_on(&self, e: &Error) {
        let msg = match e {
            Error::NoSpace(m) => m.clone(),
            other => other.to_string(),
        };
        self.fail_with(Failure {
            msg,
            no_space: e.is_no_space(),
        });
    }

    fn fail_with(&self, failure: Failure) {
        lock(&self.state).failed.get_or_insert(failure);
        // Taking the writer lock orders this after any writer that checked for failure
        // and is about to wait, so none sleeps through the wake-up.
        drop(lock(&self.writer));
        self.work.notify_all();
        self.room.notify_all();
        self.to_sync.notify_all();
        self.flushed.notify_all();
        self.done.send_modify(|_| {});
    }

    fn written(&self, generation: u64) {
        lock(&self.state).written = generation;
        self.to_sync.notify_one();
    }

    fn stop_sync(&self) {
        lock(&self.state).sync_stop = true;
        self.to_sync.notify_one();
    }

    fn publish(&self, generation: u64) {
        lock(&self.state).durable = generation;
        self.flushed.notify_all();
        self.done.send_replace(generation);
    }

    fn full(&self, batch: &WriteSet) -> bool {
        batch.entries() >= self.limits.max_entries || batch.bytes() >= self.limits.max_bytes
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

/// Marks the store failed if a storage thread unwinds, so no waiter hangs on it.
struct PanicGuard<'a>(&'a Shared);

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.fail("a storage thread panicked".into());
        }
    }
}

/// Batches applied back to back before one flush writes them all, at most.
const FLUSH_EVERY_BATCHES: u32 = 4;
/// How long the first of them waits for that flush, at most.
const FLUSH_WITHIN: std::time::Duration = std::time::Duration::from_millis(2);

/// Batches applied but not yet written to the log: the newest's generation, how many, and
/// when the first was applied.
struct Unflushed {
    generation: u64,
    batches: u32,
    since: std::time::Instant,
}

/// Takes each open batch, applies it and has sled write it to the log, then hands it to
/// the sync thread. While that fdatasyncs, the next batch is already being applied.
///
/// When the next batch is already waiting, it is applied before the flush, which then
/// writes both (up to `FLUSH_EVERY_BATCHES`, the first waiting at most `FLUSH_WITHIN`):
/// under load each sled flush (a write handed to sled's IO threads, which wakes all of
/// them, then a `sync_file_range`) had cost more than the batch it wrote. Nothing waits
/// unflushed while the thread would sleep.
fn commit_loop(shared: &Shared, db: &sled::Db, trees: &[sled::Tree], mirror: &Mirror) {
    let _guard = PanicGuard(shared);
    let mut unflushed: Option<Unflushed> = None;
    loop {
        let taken = {
            let mut w = lock(&shared.writer);
            let takeable = loop {
                if shared.failure().is_some() {
                    // Nothing is acknowledged after a failure: drop what is open.
                    w.open = WriteSet::default();
                    return;
                }
                #[cfg(test)]
                let held = w.hooks.hold_before_take && !w.stop;
                #[cfg(not(test))]
                let held = false;
                if !w.open.is_empty() && !held {
                    if w.pins == 0 {
                        break true;
                    }
                    w.sealing = true;
                    #[cfg(test)]
                    shared.hooked.notify_all();
                } else if w.stop && unflushed.is_none() {
                    return;
                }
                if unflushed.is_some() {
                    break false;
                }
                w = shared.work.wait(w).unwrap_or_else(|e| e.into_inner());
            };
            takeable.then(|| take_batch(shared, w))
        };
        let Some((batch, generation, capture, inject)) = taken else {
            // What was applied is flushed before the thread waits for anything.
            if !flush(shared, db, unflushed.take()) {
                return;
            }
            continue;
        };
        if let Some(capture) = &capture {
            capture.record(trees, &batch);
        }
        let applied = match inject {
            Some(msg) => Err(Error::Engine(msg)),
            None => write_set::apply(trees, &batch),
        };
        match &applied {
            // Before `committing` goes, so a closure never reads the mirror without it.
            Ok(()) => {
                mirror.apply(&batch);
                shared.observer.batch_applied(batch.entries());
            }
            Err(e) => shared.fail_on(e),
        }
        // sled holds the batch now (or the store has failed): read through to it.
        let next_waiting = {
            let mut w = lock(&shared.writer);
            w.committing = None;
            shared.applied_batches.fetch_add(1, Ordering::Release);
            !w.open.is_empty() && w.pins == 0 && !w.stop
        };
        shared.applied.notify_all();
        drop(batch);
        if applied.is_err() {
            return;
        }
        let u = unflushed.get_or_insert(Unflushed {
            generation,
            batches: 0,
            since: std::time::Instant::now(),
        });
        u.generation = generation;
        u.batches += 1;
        let defer =
            next_waiting && u.batches < FLUSH_EVERY_BATCHES && u.since.elapsed() < FLUSH_WITHIN;
        if !defer && !flush(shared, db, unflushed.take()) {
            return;
        }
    }
}

/// Takes the open batch for applying; the next one starts filling meanwhile.
fn take_batch(shared: &Shared, mut w: MutexGuard<'_, Writer>) -> Taken {
    let batch = Arc::new(std::mem::take(&mut w.open));
    let generation = w.open_gen;
    w.committing = Some(Arc::clone(&batch));
    w.sealing = false;
    let capture = w.capture.clone();
    shared.room.notify_all();
    #[cfg(test)]
    let (_w, inject) = before_apply(shared, w);
    #[cfg(not(test))]
    let inject: Option<String> = None;
    (batch, generation, capture, inject)
}

/// A taken batch: its writes, generation, the export recording it, and (tests) the
/// failure to inject instead of applying it.
type Taken = (Arc<WriteSet>, u64, Option<Arc<Capture>>, Option<String>);

/// Has sled write what was applied to the log and hands it to the sync thread; `false`
/// once the store failed.
fn flush(shared: &Shared, db: &sled::Db, unflushed: Option<Unflushed>) -> bool {
    let Some(u) = unflushed else {
        return true;
    };
    match db.flush() {
        Ok(_) => {
            shared.written(u.generation);
            true
        }
        Err(e) => {
            shared.fail_on(&Error::from(e));
            false
        }
    }
}

/// fdatasyncs the log whenever sled has written a new batch to it (see [`sync`]); one
/// fdatasync covers every batch written before it starts.
fn sync_loop(shared: &Shared, log: &File) {
    let _guard = PanicGuard(shared);
    loop {
        let target = {
            let mut st = lock(&shared.state);
            loop {
                if st.failed.is_some() {
                    return;
                }
                if st.written > st.durable {
                    break st.written;
                }
                if st.sync_stop {
                    return;
                }
                st = shared.to_sync.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let started = std::time::Instant::now();
        match log.sync_data() {
            Ok(()) => {
                shared.observer.synced(started.elapsed());
                shared.publish(target)
            }
            Err(e) => {
                shared.fail_on(&Error::io("fdatasync of the log", e));
                return;
            }
        }
    }
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

/// Tells tests that a batch was taken; holds it while they ask, and returns the failure
/// they asked for.
#[cfg(test)]
fn before_apply<'a>(
    shared: &'a Shared,
    mut w: MutexGuard<'a, Writer>,
) -> (MutexGuard<'a, Writer>, Option<String>) {
    shared.hooked.notify_all();
    while w.hooks.hold_before_apply && !w.stop {
        w = shared.work.wait(w).unwrap();
    }
    let inject = w.hooks.fail_next.take();
    (w, inject)
}
