//! The two storage threads: the committer applies each open batch to sled and has it
//! written to the log, the syncer fdatasyncs the log and publishes what became durable.

use std::fs::File;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use super::shared::{lock, Shared, Writer};
use crate::capture::Capture;
use crate::error::Error;
use crate::mirror::Mirror;
use crate::write_set::{self, WriteSet};

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
pub(super) fn commit_loop(shared: &Shared, db: &sled::Db, trees: &[sled::Tree], mirror: &Mirror) {
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
pub(super) fn sync_loop(shared: &Shared, log: &File) {
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
