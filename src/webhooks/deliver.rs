//! Sending: the HTTP client (system roots plus `--webhook-ca`, no redirects, a timeout),
//! the scheduler over the `DeliveryQueue` table, and one tokio task per attempt.
//!
//! Isolation: every attempt holds a permit of a global bound and one of its
//! subscription's bound. The scheduler walks all due entries and skips those whose
//! subscription has no permit free, so a slow or dead endpoint only ever occupies its
//! own permits and never delays another subscription's deliveries.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use storage::tables::{Deliveries, DeliveryQueue, Webhooks};
use storage::{Attempt, DeliveryRecord, DeliveryStatus, Key, Store, WebhookRecord};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::sign::signature;
use super::store::{cancel_queued, record_attempt, Outcome};
use super::Handle;
use crate::config::Config;
use crate::domain::time_fmt::now_ms;
use crate::shutdown::Shutdown;

/// Attempts in flight at once, over all subscriptions.
pub const GLOBAL_CONCURRENCY: usize = 64;
/// Attempts in flight at once to one subscription.
pub const PER_WEBHOOK_CONCURRENCY: usize = 4;
/// Due entries looked at per scheduling pass.
const SCAN_LIMIT: usize = 10_000;
/// Longest sleep between passes when nothing wakes the scheduler.
const IDLE: Duration = Duration::from_secs(1);

/// The outbound HTTP client.
pub struct Sender {
    client: reqwest::Client,
    timeout: Duration,
}

impl Sender {
    /// Trusts the system's roots plus every certificate in the `webhook_ca` files.
    pub fn new(config: &Config) -> anyhow::Result<Sender> {
        let mut roots = rustls::RootCertStore::empty();
        let native = rustls_native_certs::load_native_certs();
        roots.add_parsable_certificates(native.certs);
        for path in &config.webhook_ca {
            let mut n = 0;
            for cert in CertificateDer::pem_file_iter(path)
                .with_context(|| format!("reading webhook CA {}", path.display()))?
            {
                let cert =
                    cert.with_context(|| format!("parsing webhook CA {}", path.display()))?;
                roots
                    .add(cert)
                    .with_context(|| format!("webhook CA {} is not a usable CA", path.display()))?;
                n += 1;
            }
            if n == 0 {
                anyhow::bail!("webhook CA {} holds no certificate", path.display());
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS versions")?
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.webhook_timeout)
            .connect_timeout(config.webhook_timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("fulfilld-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .context("building the webhook HTTP client")?;
        Ok(Sender {
            client,
            timeout: config.webhook_timeout,
        })
    }

    /// One signed POST of the delivery's envelope; never returns an error, only an
    /// outcome.
    pub async fn send(&self, hook: &WebhookRecord, d: &DeliveryRecord) -> Outcome {
        let at_ms = now_ms();
        let ts = (at_ms / 1000).to_string();
        let sig = signature(&hook.secret, &ts, d.body.as_bytes());
        let started = Instant::now();
        let result = self
            .client
            .post(&hook.url)
            .header("content-type", "application/json")
            .header("x-webhook-signature", sig)
            .header("x-webhook-timestamp", &ts)
            .header("x-webhook-id", &d.event_id)
            .body(d.body.clone())
            .send()
            .await;
        let latency_ms = started.elapsed().as_millis() as u64;
        let attempt = |status_code: Option<u16>, error: Option<String>| Attempt {
            at_ms,
            status_code,
            latency_ms,
            error,
        };
        match result {
            Ok(resp) if resp.status().is_success() => {
                Outcome::Delivered(attempt(Some(resp.status().as_u16()), None))
            }
            Ok(resp) => {
                let code = resp.status().as_u16();
                Outcome::Failed(attempt(Some(code), Some(format!("HTTP status {code}"))))
            }
            Err(e) => {
                let what = if e.is_timeout() {
                    format!("timed out after {} s", self.timeout.as_secs_f64())
                } else if e.is_connect() {
                    format!("connection failed: {}", chain(&e))
                } else {
                    format!("request failed: {}", chain(&e))
                };
                Outcome::Failed(attempt(None, Some(what.chars().take(500).collect())))
            }
        }
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        cur = inner.source();
    }
    s
}

struct Shared {
    store: Store,
    sender: Sender,
    handle: Handle,
    delays: Vec<Duration>,
    /// Deliveries whose attempt runs now: their queue entry stays until the result is
    /// recorded, and must not be picked twice.
    in_flight: Mutex<HashSet<u128>>,
}

/// Runs until shutdown. Attempts still in flight then are abandoned: their queue entries
/// remain, so they are sent again after the restart (receivers de-duplicate on the id).
pub async fn run(
    store: Store,
    sender: Sender,
    handle: Handle,
    delays: Vec<Duration>,
    mut shutdown: Shutdown,
) {
    let shared = Arc::new(Shared {
        store,
        sender,
        handle,
        delays,
        in_flight: Mutex::new(HashSet::new()),
    });
    let global = Arc::new(Semaphore::new(GLOBAL_CONCURRENCY));
    let mut per_hook: HashMap<u128, Arc<Semaphore>> = HashMap::new();
    let mut tasks = JoinSet::new();
    loop {
        if shutdown.is_set() {
            break;
        }
        let now = now_ms();
        let next_due = match schedule(&shared, &global, &mut per_hook, &mut tasks, now) {
            Ok(next) => next,
            Err(e) => {
                tracing::warn!(error = %e, "webhook scheduling failed");
                None
            }
        };
        if per_hook.len() > 1024 {
            per_hook.retain(|_, s| s.available_permits() < PER_WEBHOOK_CONCURRENCY);
        }
        let wait = next_due
            .map(|due| Duration::from_millis((due - now).clamp(1, IDLE.as_millis() as i64) as u64))
            .unwrap_or(IDLE);
        tokio::select! {
            _ = shutdown.wait() => break,
            _ = shared.handle.woken() => {}
            _ = tokio::time::sleep(wait) => {}
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    tasks.abort_all();
    while tasks.join_next().await.is_some() {}
}

/// Starts every due attempt that has permits; returns when the next future entry is due.
fn schedule(
    shared: &Arc<Shared>,
    global: &Arc<Semaphore>,
    per_hook: &mut HashMap<u128, Arc<Semaphore>>,
    tasks: &mut JoinSet<()>,
    now: i64,
) -> storage::Result<Option<i64>> {
    let end = (now.max(0) as u64 + 1, 0u128).encode();
    for entry in shared
        .store
        .range::<DeliveryQueue, _>(..end.clone())
        .take(SCAN_LIMIT)
    {
        let ((due, delivery_id), webhook_id) = entry?;
        if shared.in_flight.lock().unwrap().contains(&delivery_id) {
            continue;
        }
        let sem = per_hook
            .entry(webhook_id)
            .or_insert_with(|| Arc::new(Semaphore::new(PER_WEBHOOK_CONCURRENCY)));
        let Ok(own) = Arc::clone(sem).try_acquire_owned() else {
            continue;
        };
        let Ok(all) = Arc::clone(global).try_acquire_owned() else {
            break;
        };
        shared.in_flight.lock().unwrap().insert(delivery_id);
        let shared = Arc::clone(shared);
        tasks.spawn(async move {
            attempt(&shared, delivery_id, webhook_id, due as i64, (own, all)).await;
        });
    }
    let next = shared
        .store
        .range::<DeliveryQueue, _>(end..)
        .next()
        .transpose()?
        .map(|((due, _), _)| due as i64);
    Ok(next)
}

async fn attempt(
    shared: &Shared,
    delivery_id: u128,
    webhook_id: u128,
    due: i64,
    permits: (OwnedSemaphorePermit, OwnedSemaphorePermit),
) {
    if let Err(e) = attempt_inner(shared, delivery_id, webhook_id, due).await {
        tracing::warn!(error = %e, "webhook attempt could not be recorded");
    }
    // Plain reads see the result only once it is applied: wait for that before the
    // scheduler may look at this delivery again.
    let _ = shared.store.durable().await;
    shared.in_flight.lock().unwrap().remove(&delivery_id);
    drop(permits);
    shared.handle.wake();
}

async fn attempt_inner(
    shared: &Shared,
    delivery_id: u128,
    webhook_id: u128,
    due: i64,
) -> storage::Result<()> {
    let store = &shared.store;
    let delivery = store.get::<Deliveries>(&delivery_id)?;
    let hook = store.get::<Webhooks>(&webhook_id)?;
    let now = now_ms();
    let d = match delivery {
        Some(d) if d.status == DeliveryStatus::Pending && d.next_attempt_ms == Some(due) => d,
        // A stale queue entry (its delivery moved on): remove it.
        _ => return cancel_queued(store, delivery_id, due, None, now),
    };
    let Some(hook) = hook else {
        // The subscription was deleted: its deliveries are dropped.
        return cancel_queued(store, delivery_id, due, None, now);
    };
    // Test events are sent even to an inactive subscription; real ones are not.
    if !hook.is_active && d.event_seq != 0 {
        return cancel_queued(
            store,
            delivery_id,
            due,
            Some("the subscription is inactive"),
            now,
        );
    }
    let outcome = shared.sender.send(&hook, &d).await;
    if let Some(rec) = record_attempt(store, delivery_id, due, outcome, &shared.delays, now_ms())? {
        tracing::debug!(
            delivery = %uuid::Uuid::from_u128(rec.id),
            status = ?rec.status,
            attempts = rec.attempts.len(),
            "webhook attempt recorded"
        );
    }
    Ok(())
}
