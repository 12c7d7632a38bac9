//! The shared state of a running server, built once at start by [`crate::run`]: the
//! configuration, the store with the domain's indexes, API clients and tokens, the
//! packing pool and the wake signals. The HTTP layer and each background task take the
//! parts they use.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use storage::Store;

use crate::accounts::AccountService;
use crate::clients::{ClientService, Registry};
use crate::config::Config;
use crate::domain::events::Shapes;
use crate::domain::Domain;
use crate::metrics::Metrics;
use crate::tokens::TokenSigner;
use crate::webhooks::Handle;
use crate::workers::WorkerPool;

pub struct App {
    pub config: Arc<Config>,
    /// The same store as `domain.store`, for the many reads that need nothing else.
    pub store: Store,
    pub domain: Arc<Domain>,
    pub clients: ClientService,
    /// Console users, their sessions and the login throttle.
    pub accounts: AccountService,
    pub tokens: TokenSigner,
    pub started: Instant,
    /// `/api/v1/optimize` and "pack now" run here, off the async runtime, behind a bounded
    /// queue.
    pub packing_pool: WorkerPool,
    /// Wakes the webhook engine when a request queued a delivery.
    pub webhooks: Handle,
    /// Wakes the order packer when orders were created.
    pub packer: Handle,
    /// Database size on disk, kept current by housekeeping (sled lists its directory to
    /// compute it, too slow for every health check).
    pub disk: DiskGauge,
    /// The free-space reserve; the store's write gate too.
    pub space: Arc<crate::space::Space>,
    pub metrics: Arc<Metrics>,
    /// What the backup schedule has done (read by `/metrics`).
    pub backups: Arc<crate::ops::schedule::Status>,
}

impl App {
    pub fn new(
        config: Arc<Config>,
        store: Store,
        registry: Arc<Registry>,
        shapes: Box<dyn Shapes>,
    ) -> anyhow::Result<App> {
        let tokens =
            TokenSigner::load_or_create(&config.data_dir, config.token_ttl.as_secs() as i64)?;
        let accounts = AccountService::load(store.clone(), &config.accounts)?;
        let loading = Instant::now();
        let snapshot = crate::index_snapshot::take(&store, &config.data_dir);
        let rebuilt = snapshot.as_ref().err().map(|why| why.as_str());
        let domain = Arc::new(Domain::load(store.clone(), shapes, snapshot.ok())?);
        let metrics = Arc::new(Metrics::new());
        metrics.index_loaded(rebuilt, loading.elapsed());
        tracing::info!(
            ms = loading.elapsed().as_millis() as u64,
            rebuilt = rebuilt.unwrap_or("no"),
            "indexes loaded"
        );
        crate::memory::trim();
        let space = crate::space::Space::new(&config.data_dir, config.min_free_space);
        store.gate(Arc::clone(&space) as Arc<dyn storage::WriteGate>);
        Ok(App {
            space,
            clients: ClientService::new(store.clone(), registry),
            accounts,
            tokens,
            started: Instant::now(),
            domain,
            packing_pool: WorkerPool::new("packing", config.packing_workers, config.packing_queue),
            webhooks: Handle::default(),
            packer: Handle::default(),
            disk: DiskGauge::new(&store, &config.data_dir),
            metrics,
            backups: Arc::new(crate::ops::schedule::Status::at_start(
                config.backups.as_ref(),
            )),
            config,
            store,
        })
    }
}

/// The database's size on disk as last measured, and the file system it lives on.
#[derive(Clone)]
pub struct DiskGauge {
    store: Store,
    dir: std::path::PathBuf,
    bytes: Arc<AtomicU64>,
}

impl DiskGauge {
    fn new(store: &Store, dir: &std::path::Path) -> DiskGauge {
        DiskGauge {
            store: store.clone(),
            dir: dir.to_path_buf(),
            bytes: Arc::new(AtomicU64::new(store.size_on_disk().unwrap_or(0))),
        }
    }

    /// Bytes available to the server and in all on the data directory's file system.
    pub fn filesystem(&self) -> Option<(u64, u64)> {
        crate::space::filesystem(&self.dir)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    pub fn refresh(&self) {
        if let Ok(n) = self.store.size_on_disk() {
            self.bytes.store(n, Ordering::Relaxed);
        }
    }
}
