//! The crossbeam worker pools for CPU-bound work (packing): a bounded queue feeding a fixed
//! set of threads, so a burst of requests is refused (503) instead of queueing without
//! limit, and async handlers await results without blocking the runtime. Background pools
//! run their threads at a lower priority so request handling keeps its latency.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam::channel::{self, Receiver, Sender, TrySendError};
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Why a job was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The queue is full: the caller should answer 503 with Retry-After.
    Busy,
    /// The pool is shutting down.
    Closed,
}

pub struct WorkerPool {
    sender: Option<Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
    /// Workers waiting for a job.
    idle: Arc<AtomicUsize>,
    /// Keeps the queue open even with no worker threads (a pool that never drains is how
    /// tests fill the queue deterministically).
    _receiver: Receiver<Job>,
}

impl WorkerPool {
    /// `workers` threads behind a queue of `capacity` waiting jobs.
    pub fn new(name: &str, workers: usize, capacity: usize) -> WorkerPool {
        WorkerPool::with_nice(name, workers, capacity, 0)
    }

    /// How many jobs may wait in the queue.
    pub fn capacity(&self) -> usize {
        self.sender.as_ref().and_then(|s| s.capacity()).unwrap_or(0)
    }

    /// A pool whose threads run `nice` steps below the process's priority: background
    /// work that must yield the CPU to request handling.
    pub fn with_nice(name: &str, workers: usize, capacity: usize, nice: i32) -> WorkerPool {
        let (sender, receiver) = channel::bounded::<Job>(capacity);
        let idle = Arc::new(AtomicUsize::new(0));
        let threads = (0..workers)
            .map(|i| {
                let rx = receiver.clone();
                let idle = Arc::clone(&idle);
                std::thread::Builder::new()
                    .name(format!("{name}-{i}"))
                    .spawn(move || {
                        if nice > 0 {
                            lower_priority(nice);
                        }
                        loop {
                            idle.fetch_add(1, Ordering::SeqCst);
                            let job = rx.recv();
                            idle.fetch_sub(1, Ordering::SeqCst);
                            let Ok(job) = job else { break };
                            // A panicking job must not take the worker down with it.
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                        }
                    })
                    .expect("spawning a worker thread")
            })
            .collect();
        WorkerPool {
            sender: Some(sender),
            threads,
            idle,
            _receiver: receiver,
        }
    }

    /// Workers waiting for a job right now.
    pub fn idle(&self) -> usize {
        self.idle.load(Ordering::SeqCst)
    }

    /// Queues `f`; refuses at once when the queue is full. The receiver yields the result
    /// (an error if the job panicked).
    pub fn submit<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<oneshot::Receiver<T>, Refused> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        match self.sender.as_ref().map(|s| s.try_send(job)) {
            Some(Ok(())) => Ok(rx),
            Some(Err(TrySendError::Full(_))) => Err(Refused::Busy),
            Some(Err(TrySendError::Disconnected(_))) | None => Err(Refused::Closed),
        }
    }

    /// [`WorkerPool::submit`] and await the result.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        // A job that panicked drops its sender: report it as closed rather than hang.
        self.submit(f)?.await.map_err(|_| Refused::Closed)
    }

    /// Runs `first` and `second` and yields both results. `first` is queued like any job;
    /// `second` goes to another worker only when the queue is empty and at least two
    /// workers wait (an idle pool), else the thread of `first` runs it right after. Whichever
    /// thread reaches `second` first runs it, so a busy pool serves the pair on one thread and
    /// nothing waits on a helper job stuck in the queue. The results do not depend on which.
    pub async fn run_pair<A: Send + 'static, B: Send + 'static>(
        &self,
        first: impl FnOnce() -> A + Send + 'static,
        second: impl FnOnce() -> B + Send + 'static,
    ) -> Result<(A, B), Refused> {
        let spare = self.idle() >= 2 && self.sender.as_ref().is_some_and(|s| s.is_empty());
        let (tx, rx) = oneshot::channel::<B>();
        let slot = Arc::new(Mutex::new(Some((second, tx))));
        let take = |slot: &Mutex<Option<_>>| slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mine = Arc::clone(&slot);
        let a = self.submit(move || {
            let a = first();
            if let Some((second, tx)) = take(&mine) {
                let _ = tx.send(second());
            }
            a
        })?;
        if spare {
            // Refused (full or closed): the first job's thread runs `second`.
            let _ = self.submit(move || {
                if let Some((second, tx)) = take(&slot) {
                    let _ = tx.send(second());
                }
            });
        }
        let a = a.await.map_err(|_| Refused::Closed)?;
        let b = rx.await.map_err(|_| Refused::Closed)?;
        Ok((a, b))
    }

    /// Stops taking jobs, lets the queued ones finish and joins the threads.
    pub fn shutdown(&mut self) {
        self.sender.take();
        let me = std::thread::current().id();
        for t in self.threads.drain(..) {
            // The last owner of a pool may be one of its own jobs (a job holding the
            // packer when the server stops): that worker ends by itself once its job is
            // done, and joining it from itself would fail.
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
    }
}

/// Lowers the calling thread's scheduling priority by `nice` (Linux applies `setpriority`
/// to one thread when given its tid). Best effort: a refusal leaves the thread at normal priority.
fn lower_priority(nice: i32) {
    // SAFETY: plain syscalls on the calling thread's own id.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        // Relative to the process's own niceness (a service started under `nice` stays
        // ordered the same way); 19 is the lowest priority there is.
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        if libc::setpriority(libc::PRIO_PROCESS, tid, (current + nice).min(19)) != 0 {
            tracing::debug!("could not lower a worker thread's priority");
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_pool_dropped_by_its_own_job_does_not_join_that_worker() {
        use std::sync::{Arc, Mutex};
        let slot: Arc<Mutex<Option<WorkerPool>>> = Arc::default();
        let pool = WorkerPool::new("self-drop", 1, 1);
        let (tx, rx) = mpsc::channel();
        let in_job = Arc::clone(&slot);
        pool.submit(move || {
            // Wait until the pool is in the slot, then drop it from inside its own job.
            let pool = loop {
                if let Some(p) = in_job.lock().unwrap().take() {
                    break p;
                }
                std::thread::yield_now();
            };
            let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(pool)));
            tx.send(dropped.is_ok()).unwrap();
        })
        .unwrap();
        *slot.lock().unwrap() = Some(pool);
        assert!(
            rx.recv().unwrap(),
            "dropping the pool from its job panicked"
        );
    }

    #[tokio::test]
    async fn runs_jobs_and_refuses_when_the_queue_is_full() {
        let pool = WorkerPool::new("t", 1, 1);
        assert_eq!(pool.run(|| 2 + 2).await, Ok(4));
        // Block the only worker, fill the one queue slot, then the next is refused.
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let first = pool
            .submit(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                1
            })
            .unwrap();
        started_rx.recv().unwrap();
        let second = pool.submit(|| 2).unwrap();
        assert_eq!(pool.submit(|| 3).err(), Some(Refused::Busy));
        release_tx.send(()).unwrap();
        assert_eq!(first.await, Ok(1));
        assert_eq!(second.await, Ok(2));
        assert_eq!(pool.run(|| 5).await, Ok(5), "room again");
    }

    #[tokio::test]
    async fn a_background_pool_runs_its_jobs_at_the_lower_priority() {
        fn own_nice() -> i32 {
            // SAFETY: plain syscalls on the calling thread's own id.
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::getpriority(libc::PRIO_PROCESS, tid)
            }
        }
        let base = own_nice();
        let background = WorkerPool::with_nice("bg", 1, 1, 10);
        let normal = WorkerPool::new("fg", 1, 1);
        assert_eq!(background.run(own_nice).await, Ok((base + 10).min(19)));
        assert_eq!(normal.run(own_nice).await, Ok(base));
    }

    fn me() -> std::thread::ThreadId {
        std::thread::current().id()
    }

    #[tokio::test]
    async fn a_pair_runs_on_two_workers_when_the_pool_is_idle() {
        let pool = WorkerPool::new("pair", 2, 4);
        while pool.idle() < 2 {
            std::thread::yield_now();
        }
        // The first waits for the second to start: only a second worker can run it.
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (a, b) = pool
            .run_pair(
                move || {
                    let started = started_rx.recv_timeout(std::time::Duration::from_secs(60));
                    (me(), started.is_ok())
                },
                move || {
                    started_tx.send(()).unwrap();
                    me()
                },
            )
            .await
            .unwrap();
        assert!(a.1, "the second job never started beside the first");
        assert_ne!(a.0, b);
    }

    #[tokio::test]
    async fn a_busy_pool_runs_a_pair_on_one_thread() {
        let pool = WorkerPool::new("pair", 1, 4);
        let (a, b) = pool.run_pair(me, me).await.unwrap();
        assert_eq!(a, b);
        // Two workers, one of them held: no spare, so the pair stays on one thread and
        // queues nothing behind the held job.
        let pool = WorkerPool::new("pair", 2, 4);
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (held_tx, held_rx) = mpsc::channel::<()>();
        let held = pool
            .submit(move || {
                held_tx.send(()).unwrap();
                release_rx.recv().unwrap();
            })
            .unwrap();
        held_rx.recv().unwrap();
        let (a, b) = pool.run_pair(me, me).await.unwrap();
        assert_eq!(a, b);
        release_tx.send(()).unwrap();
        held.await.unwrap();
    }

    #[tokio::test]
    async fn a_panicking_job_does_not_kill_the_worker() {
        let pool = WorkerPool::new("t", 1, 4);
        assert_eq!(
            pool.run(|| -> i32 { panic!("boom") }).await,
            Err(Refused::Closed)
        );
        assert_eq!(pool.run(|| 7).await, Ok(7));
    }
}
