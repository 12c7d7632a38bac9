//! fulfilld: one process serving the fulfillment and packing APIs over one sled store.
//! [`run`] is the injectable entry point: tests bind port 0 and pass their own shutdown.

pub mod accounts;
pub mod admin;
pub mod app;
pub mod cli;
pub mod clients;
pub mod config;
pub mod domain;
mod fsutil;
pub mod housekeeping;
pub mod http;
pub mod index_snapshot;
pub mod memory;
pub mod metrics;
pub mod ops;
pub mod packer;
pub mod server;
pub mod shutdown;
pub mod space;
pub mod stdio;
pub mod tls;
pub mod tokens;
pub mod webhooks;
pub mod workers;

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use storage::{Store, StoreConfig};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::app::App;
use crate::clients::Registry;
use crate::config::Config;
use crate::http::{routes::Service, Api, ApiShapes};
use crate::packer::Packer;

/// The two bound listeners, bound by the caller so tests can use port 0.
pub struct Listeners {
    pub fulfillment: TcpListener,
    pub packing: TcpListener,
}

impl Listeners {
    pub async fn bind(config: &Config) -> anyhow::Result<Listeners> {
        let fulfillment = TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("binding the fulfillment listener to {}", config.listen))?;
        let packing = TcpListener::bind(config.packing_listen)
            .await
            .with_context(|| {
                format!("binding the packing listener to {}", config.packing_listen)
            })?;
        Ok(Listeners {
            fulfillment,
            packing,
        })
    }
}

/// Installs ring as the process-wide rustls provider; later calls are no-ops.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Creates the data directory (0700) and opens the store in it.
pub fn open_store(config: &Config) -> anyhow::Result<Store> {
    fsutil::create_data_dir(&config.data_dir)?;
    let started = std::time::Instant::now();
    let store = Store::open(
        &config.data_dir.join("db"),
        &StoreConfig {
            cache_capacity_bytes: config.cache_capacity_bytes,
        },
    )
    .with_context(|| format!("opening the database in {}", config.data_dir.display()))?;
    // Part of the time to ready after a restart (sled's recovery after a crash).
    tracing::info!(ms = started.elapsed().as_millis() as u64, "database opened");
    Ok(store)
}

async fn run_backup_schedule(
    store: Store,
    config: Arc<Config>,
    status: Arc<ops::schedule::Status>,
    shutdown: shutdown::Shutdown,
) {
    if let Some(plan) = config.backups.clone() {
        ops::schedule::run(store, config.data_dir.clone(), plan, status, shutdown).await;
    }
}

/// Serves both listeners until `shutdown` completes, then stops accepting, lets the
/// requests in flight finish, flushes the store and returns.
pub async fn run(
    config: Arc<Config>,
    store: Store,
    listeners: Listeners,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    install_crypto_provider();
    let registry = Arc::new(Registry::load(&store)?);
    let app = Arc::new(App::new(
        Arc::clone(&config),
        store.clone(),
        registry,
        Box::new(ApiShapes),
    )?);
    // A store outlives one server only in tests; its first server's metrics keep the window.
    store.observe(Arc::clone(&app.metrics) as Arc<dyn storage::CommitObserver>);
    let api = Arc::new(Api::new(Arc::clone(&app)));
    let packer = Arc::new(Packer::new(
        &config,
        Arc::clone(&app.domain),
        app.packer.clone(),
        Arc::clone(&app.metrics),
    ));
    if let Some(path) = app.clients.ensure_bootstrap(&config.data_dir)? {
        tracing::info!(path = %path.display(), "first start: bootstrap credentials written");
    }
    if let Some(path) = app.accounts.ensure_bootstrap(&config.data_dir)? {
        tracing::info!(path = %path.display(), "bootstrap admin user written");
    }
    let tls = tls::server_config(&config.tls, &config.data_dir)?.map(TlsAcceptor::from);
    let scheme = if tls.is_some() { "https" } else { "http" };
    let addrs = (
        listeners.fulfillment.local_addr()?,
        listeners.packing.local_addr()?,
    );

    let sender = webhooks::deliver::Sender::new(&config)?;
    let (trigger, signal) = shutdown::channel();
    let admin = admin::spawn(
        &config.data_dir,
        app.clients.clone(),
        app.accounts.clone(),
        store.clone(),
        Arc::clone(&app.backups),
        signal.clone(),
    )?;
    let tasks = [
        tokio::spawn(server::serve(
            listeners.fulfillment,
            tls.clone(),
            Arc::clone(&api),
            Service::Fulfillment,
            signal.clone(),
        )),
        tokio::spawn(server::serve(
            listeners.packing,
            tls,
            Arc::clone(&api),
            Service::Packing,
            signal.clone(),
        )),
        tokio::spawn(housekeeping::run(
            store.clone(),
            Arc::clone(&config),
            app.disk.clone(),
            signal.clone(),
        )),
        tokio::spawn(packer::run(packer, signal.clone())),
        admin,
        tokio::spawn(webhooks::dispatch::run(
            store.clone(),
            app.webhooks.clone(),
            signal.clone(),
        )),
        // Its status is where metrics will read the last backup time and failures.
        tokio::spawn(run_backup_schedule(
            store.clone(),
            Arc::clone(&config),
            Arc::clone(&app.backups),
            signal.clone(),
        )),
        tokio::spawn(webhooks::deliver::run(
            store.clone(),
            sender,
            app.webhooks.clone(),
            webhooks::store::Rules {
                delays: config.webhook_retry_delays.clone(),
                disable_after: config.webhook_disable_after,
            },
            Arc::clone(&app.metrics),
            signal.clone(),
        )),
    ];
    stdio::out(&format!(
        "fulfilld ready: fulfillment={scheme}://{} packing={scheme}://{}",
        addrs.0, addrs.1
    ));
    tracing::info!(fulfillment = %addrs.0, packing = %addrs.1, "listening");
    shutdown::notify_ready();

    shutdown.await;
    shutdown::notify_stopping();
    trigger.fire();
    for t in tasks {
        let _ = t.await;
    }
    // Nothing changes orders any more: the next start can load the index instead.
    index_snapshot::save_logged(&app.domain, &config.data_dir);
    store.flush().context("final flush")?;
    tracing::info!("stopped cleanly");
    Ok(())
}
