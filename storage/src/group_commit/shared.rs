//! The state the writers, the committer and the syncer share: the writer lock with the
//! open batch, the durability state, and the failure that, once set, stops every
//! acknowledgement.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use sled::IVec;
use tokio::sync::watch;

#[cfg(test)]
use super::hooks;
use super::BatchLimits;
use crate::capture::Capture;
use crate::error::Error;
use crate::ids::Ids;
use crate::observe::Observer;
use crate::write_set::WriteSet;

/// What the writer lock guards.
#[derive(Default)]
pub(super) struct Writer {
    /// Writes of closures that returned `Ok` since the committer last took a batch.
    pub(super) open: WriteSet,
    /// Generation of the last closure merged into `open`.
    pub(super) open_gen: u64,
    /// The batch being applied to sled; closures read through it until sled has it.
    pub(super) committing: Option<Arc<WriteSet>>,
    /// The export in progress, if any: batches taken while it is set record what they
    /// overwrite (see `backup.rs`).
    pub(super) capture: Option<Arc<Capture>>,
    /// The seal's (table, key) while it is stored and no write has followed it: the
    /// next closure with writes removes it in its own batch (see `seal.rs`).
    pub(super) seal: Option<(usize, IVec)>,
    /// The ids closures draw (`Tx::next_id`) and their persisted reservation.
    pub(super) ids: Ids,
    /// Polls of held futures (`hold.rs`) whose writes are in `open`: it is not taken
    /// while any is running.
    pub(super) pins: usize,
    /// The committer waits for `pins` to drain: no new pin may start meanwhile.
    pub(super) sealing: bool,
    pub(super) stop: bool,
    #[cfg(test)]
    pub(super) hooks: hooks::Hooks,
}

#[derive(Default)]
pub(super) struct State {
    /// Generation that sled has written to the log; durable after the next fdatasync.
    pub(super) written: u64,
    /// Generation covered by the last successful fdatasync.
    pub(super) durable: u64,
    /// Set when the commit thread has stopped: the sync thread stops once caught up.
    pub(super) sync_stop: bool,
    /// Sticky: once an apply or flush fails nothing is acknowledged again (a failed fsync
    /// may have dropped dirty pages, so retrying could report data durable that is not;
    /// and sled 0.34 keeps a failed log write as a global error until it is reopened).
    pub(super) failed: Option<Failure>,
}

/// Why the store failed; a full disk keeps its kind so the server can say so.
#[derive(Clone)]
pub(super) struct Failure {
    pub(super) msg: String,
    pub(super) no_space: bool,
}

impl Failure {
    pub(super) fn error(&self) -> Error {
        if self.no_space {
            Error::NoSpace(self.msg.clone())
        } else {
            Error::Flush(self.msg.clone())
        }
    }
}

pub(super) struct Shared {
    pub(super) writer: Mutex<Writer>,
    /// The committer sleeps here (on `writer`) until the open batch has writes.
    pub(super) work: Condvar,
    /// `transact` sleeps here (on `writer`) while the open batch is full.
    pub(super) room: Condvar,
    /// An export waits here (on `writer`) until no batch is being applied.
    pub(super) applied: Condvar,
    /// Generation of the last closure that committed writes. Written under `writer`.
    pub(super) committed: AtomicU64,
    /// Batches sled has taken whose `committing` layer is gone (see `Preread`).
    /// Written under `writer`.
    pub(super) applied_batches: AtomicU64,
    pub(super) limits: BatchLimits,
    pub(super) state: Mutex<State>,
    /// The sync thread sleeps here (on `state`) until sled has written a new batch.
    pub(super) to_sync: Condvar,
    /// Blocking durable waiters sleep here (on `state`) until a flush completes.
    pub(super) flushed: Condvar,
    /// Broadcasts `durable` to async waiters.
    pub(super) done: watch::Sender<u64>,
    pub(super) observer: Observer,
    /// Tests wait here (on `writer`) for the committer or a writer to reach a hook.
    #[cfg(test)]
    pub(super) hooked: Condvar,
}

/// The poison of a panicking closure is harmless: its writes were never merged.
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(super) fn failure(&self) -> Option<Error> {
        lock(&self.state).failed.as_ref().map(Failure::error)
    }

    /// Counts what was just added to the open batch as the next generation (the one a
    /// durable wait started now targets), releases the writer, and wakes the committer if
    /// the batch was empty before.
    pub(super) fn open_next(&self, mut w: MutexGuard<'_, Writer>, was_idle: bool) {
        let generation = self.committed.load(Ordering::Relaxed) + 1;
        self.committed.store(generation, Ordering::Release);
        w.open_gen = generation;
        drop(w);
        if was_idle {
            self.work.notify_one();
        }
    }

    pub(super) fn fail(&self, msg: String) {
        self.fail_with(Failure {
            msg,
            no_space: false,
        });
    }

    /// Fails with `e`, keeping whether it was a full disk.
    pub(super) fn fail_on(&self, e: &Error) {
        let msg = match e {
            Error::NoSpace(m) => m.clone(),
            other => other.to_string(),
        };
        self.fail_with(Failure {
            msg,
            no_space: e.is_no_space(),
        });
    }

    pub(super) fn fail_with(&self, failure: Failure) {
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

    pub(super) fn written(&self, generation: u64) {
        lock(&self.state).written = generation;
        self.to_sync.notify_one();
    }

    pub(super) fn stop_sync(&self) {
        lock(&self.state).sync_stop = true;
        self.to_sync.notify_one();
    }

    pub(super) fn publish(&self, generation: u64) {
        lock(&self.state).durable = generation;
        self.flushed.notify_all();
        self.done.send_replace(generation);
    }

    pub(super) fn full(&self, batch: &WriteSet) -> bool {
        batch.entries() >= self.limits.max_entries || batch.bytes() >= self.limits.max_bytes
    }
}
