//! Group commit: a writer is acknowledged only after its transaction is flushed, and
//! every writer that arrives while a flush runs shares the next one. One thread owns
//! flushing, so N concurrent writers cost about two fsyncs, not N.

use std::fs::File;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use tokio::sync::watch;

use crate::error::{Error, Result};

#[derive(Default)]
struct State {
    /// Generation handed to the most recent writer.
    requested: u64,
    /// Generation covered by the last successful flush.
    flushed: u64,
    /// Sticky: once a flush fails nothing is acknowledged again (a failed fsync may have
    /// dropped dirty pages, so retrying could report data durable that is not).
    failed: Option<String>,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    /// The flush thread sleeps here until a writer arrives.
    wake: Condvar,
    /// Blocking waiters sleep here until a flush completes.
    flushed: Condvar,
    /// Broadcasts `flushed` to async waiters; `u64::MAX` never appears.
    done: watch::Sender<u64>,
}

pub(crate) struct GroupCommit {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl GroupCommit {
    pub(crate) fn start(db: sled::Db, log: Arc<File>) -> GroupCommit {
        let (done, _) = watch::channel(0);
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            flushed: Condvar::new(),
            done,
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("storage-flush".into())
            .spawn(move || flush_loop(&worker, &db, &log))
            .expect("spawning the flush thread");
        GroupCommit {
            shared,
            thread: Mutex::new(Some(thread)),
        }
    }

    /// Registers a writer whose transaction has committed; the returned generation is
    /// durable once `flushed >= generation`.
    fn request(&self) -> Result<u64> {
        let mut st = self.shared.state.lock().expect("flush state poisoned");
        if let Some(msg) = &st.failed {
            return Err(Error::Flush(msg.clone()));
        }
        st.requested += 1;
        let generation = st.requested;
        drop(st);
        self.shared.wake.notify_one();
        Ok(generation)
    }

    fn outcome(&self, generation: u64) -> Option<Result<()>> {
        let st = self.shared.state.lock().expect("flush state poisoned");
        if st.flushed >= generation {
            Some(Ok(()))
        } else if let Some(msg) = &st.failed {
            Some(Err(Error::Flush(msg.clone())))
        } else if st.stop {
            Some(Err(Error::Flush("store is shutting down".into())))
        } else {
            None
        }
    }

    pub(crate) async fn wait_durable(&self) -> Result<()> {
        let mut rx = self.shared.done.subscribe();
        let generation = self.request()?;
        loop {
            if let Some(out) = self.outcome(generation) {
                return out;
            }
            if rx.changed().await.is_err() {
                return Err(Error::Flush("flush thread stopped".into()));
            }
        }
    }

    pub(crate) fn wait_durable_blocking(&self) -> Result<()> {
        let generation = self.request()?;
        let mut st = self.shared.state.lock().expect("flush state poisoned");
        loop {
            if st.flushed >= generation {
                return Ok(());
            }
            if let Some(msg) = &st.failed {
                return Err(Error::Flush(msg.clone()));
            }
            st = self.shared.flushed.wait(st).expect("flush state poisoned");
        }
    }

    pub(crate) fn failure(&self) -> Option<String> {
        self.shared.state.lock().ok()?.failed.clone()
    }

    pub(crate) fn fail(&self, msg: String) {
        let mut st = self.shared.state.lock().expect("flush state poisoned");
        st.failed = Some(msg);
        drop(st);
        self.shared.wake.notify_all();
        self.shared.flushed.notify_all();
        self.shared.done.send_modify(|_| {});
    }

    /// Stops the thread after a last flush of everything requested so far.
    pub(crate) fn stop(&self) {
        if let Ok(mut st) = self.shared.state.lock() {
            st.stop = true;
        }
        self.shared.wake.notify_all();
        self.shared.flushed.notify_all();
        if let Some(t) = self.thread.lock().ok().and_then(|mut t| t.take()) {
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
        .map_err(|e| Error::Engine(format!("fdatasync of the log: {e}")))
}

fn flush_loop(shared: &Shared, db: &sled::Db, log: &File) {
    loop {
        let target = {
            let mut st = shared.state.lock().expect("flush state poisoned");
            while st.requested == st.flushed && !st.stop && st.failed.is_none() {
                st = shared.wake.wait(st).expect("flush state poisoned");
            }
            if st.failed.is_some() || (st.stop && st.requested == st.flushed) {
                return;
            }
            st.requested
        };
        let result = sync(db, log);
        let mut st = shared.state.lock().expect("flush state poisoned");
        match result {
            Ok(_) => st.flushed = target,
            Err(e) => st.failed = Some(e.to_string()),
        }
        drop(st);
        shared.flushed.notify_all();
        shared.done.send_replace(target);
    }
}
