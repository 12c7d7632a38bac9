//! The order packer: packs new orders in the background on its own low-priority crossbeam
//! worker pool.
//! Its to-do list is the `PackingJobs` table (written with each order, consumed by the
//! transaction that packs it), so a crash loses no job and the restart picks them up;
//! the in-flight set keeps one job per order at a time, and the transaction's check of
//! the job makes a second run a no-op.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::config::{Config, Units};
use crate::domain::order_packing::{self, Packed};
use crate::domain::{orders, Domain};
use crate::metrics::Metrics;
use crate::shutdown::Shutdown;
use crate::webhooks::Handle;
use crate::workers::{Refused, WorkerPool};

/// What the packer uses: the domain, its own pool and its wake signal.
pub struct Packer {
    domain: Arc<Domain>,
    pool: WorkerPool,
    units: Units,
    auto_pack: bool,
    wake: Handle,
    metrics: Arc<Metrics>,
}

impl Packer {
    /// The packer's pool runs at nice 10 with [`JOBS_PER_THREAD`] jobs queued per thread.
    pub fn new(
        config: &Config,
        domain: Arc<Domain>,
        wake: Handle,
        metrics: Arc<Metrics>,
    ) -> Packer {
        Packer {
            domain,
            pool: WorkerPool::with_nice(
                "packer",
                config.packing_workers,
                config.packing_workers * JOBS_PER_THREAD,
                10,
            ),
            units: config.units,
            auto_pack: config.auto_pack,
            wake,
            metrics,
        }
    }

    fn capacity(&self) -> usize {
        self.pool.capacity()
    }
}

/// Packs order `id` now, on the calling thread (a pool worker): plans with the engine,
/// then commits the outcome.
fn pack_one(packer: &Packer, id: u128) -> Result<Packed, storage::Error> {
    let store = &packer.domain.store;
    let Some(order) = orders::get(store, id)? else {
        // Not applied yet (the packer was woken early) or unknown: the job stays.
        return Ok(Packed::Skipped);
    };
    let plan = if order.status == storage::OrderStatus::Pending {
        let started = std::time::Instant::now();
        let plan = order_packing::plan(store, &order, packer.units)?;
        packer
            .metrics
            .packing_seconds
            .with_label_values(&["order"])
            .observe(started.elapsed().as_secs_f64());
        plan
    } else {
        // Only consumes the job: the commit refuses an order that is no longer pending.
        Err(String::new())
    };
    // Held, so the order index shows the new status before the commit can be durable
    // and its `order.updated` delivered: a receiver that then lists the order finds it.
    let packed = store.held(|| order_packing::commit(&packer.domain, id, &plan));
    let packed = packed.map_err(|e| match e {
        storage::TxError::Storage(e) => e,
        storage::TxError::Aborted(never) => match never {},
    })?;
    match &packed {
        Packed::Done(_, packages) => {
            tracing::debug!(order = %uuid::Uuid::from_u128(id), packages = packages.len(), "order packed");
        }
        Packed::Failed(o) => {
            tracing::warn!(
                order = %uuid::Uuid::from_u128(id),
                reason = o.pending_reason.as_deref().unwrap_or(""),
                "order left pending: it cannot be packed"
            );
        }
        Packed::Skipped => {}
    }
    Ok(packed)
}

/// Jobs kept queued per packer thread: a job waits on storage part of its time, so a few
/// per thread keep the threads busy.
const JOBS_PER_THREAD: usize = 4;

/// Reports the end of a job to the packer loop when dropped, even by a panic: the order id
/// and whether its job was settled (packed, given up on, or found consumed).
struct Done(u128, bool, mpsc::UnboundedSender<(u128, bool)>);

impl Drop for Done {
    fn drop(&mut self) {
        let _ = self.2.send((self.0, self.1));
    }
}

/// Runs until shutdown: keeps up to four orders per packing thread in the pool, refilled from
/// the `PackingJobs` table whenever a job ends or an order is created, and every second
/// (wakes are hints; a job whose order was not yet readable is retried then).
pub async fn run(packer: Arc<Packer>, mut shutdown: Shutdown) {
    if !packer.auto_pack {
        return;
    }
    let cap = packer.capacity();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(u128, bool)>();
    let mut in_flight: HashSet<u128> = HashSet::new();
    // Jobs whose run failed (storage) or found their order unreadable: left alone until
    // the next tick, so a failing store is not hammered in a tight loop.
    let mut resting: HashSet<u128> = HashSet::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        if in_flight.len() < cap {
            let want = cap * 4 + in_flight.len() + resting.len();
            match order_packing::pending_jobs(&packer.domain.store, want) {
                Ok(ids) => {
                    for id in ids {
                        if in_flight.len() >= cap {
                            break;
                        }
                        if in_flight.contains(&id) || resting.contains(&id) {
                            continue;
                        }
                        let (job, done_tx) = (Arc::clone(&packer), done_tx.clone());
                        // Made inside the job: a job refused by a full queue never ran
                        // and must not report an end.
                        let submitted = packer.pool.submit(move || {
                            let mut done = Done(id, false, done_tx);
                            match pack_one(&job, id) {
                                Ok(Packed::Skipped) => {}
                                Ok(_) => done.1 = true,
                                Err(e) => tracing::error!(error = %e, "packing an order failed"),
                            }
                        });
                        match submitted {
                            Ok(_) => {
                                in_flight.insert(id);
                            }
                            Err(Refused::Busy) => break,
                            Err(Refused::Closed) => return,
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "reading the packing jobs failed"),
            }
        }
        tokio::select! {
            _ = shutdown.wait() => return,
            Some(first) = done_rx.recv() => {
                let mut ended = vec![first];
                while let Ok(more) = done_rx.try_recv() {
                    ended.push(more);
                }
                for (id, settled) in ended {
                    in_flight.remove(&id);
                    if !settled {
                        resting.insert(id);
                    }
                }
            }
            // Woken once a request's orders are applied (their jobs are then visible).
            _ = packer.wake.woken() => {}
            _ = tick.tick() => resting.clear(),
        }
    }
}
