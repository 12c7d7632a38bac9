//! Sending: the HTTP client (system roots plus `--webhook-ca`, no redirects, a timeout),
//! the scheduler over the in-memory due queue (`queue.rs`), and one tokio task per
//! attempt.
//!
//! Isolation: every attempt holds a permit of a global bound and one of its
//! subscription's bound while it sends. The scheduler reads only the queues of
//! subscriptions with a free permit, so a slow or dead endpoint only ever occupies its
//! own permits and never delays another subscription's deliveries. An `ordered`
//! subscription has one permit (and fan-out gives it one delivery at a time), and one
//! whose receiver answered 429 / 503 with `Retry-After` is held until then. Results are
//! recorded in batches by `record.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use storage::tables::Deliveries;
use storage::{Attempt, DeliveryRecord, DeliveryStatus, Store};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::hints::not_before;
use super::queue::RESYNC;
use super::record;
use super::sign::headers;
use super::store::{cancel_queued, fail_unsent, Finished, Outcome, Rules};
use super::targets::{Target, Targets};
use super::Handle;
use crate::config::Config;
use crate::domain::time_fmt::now_ms;
use crate::metrics::Metrics;
use crate::shutdown::Shutdown;

/// Attempts in flight at once, over all subscriptions.
pub const GLOBAL_CONCURRENCY: usize = 64;
/// Attempts in flight at once to one subscription (one if it is ordered). Enough that a
/// subscription keeps up with thousands of events a second over a round trip of a few
/// milliseconds; a hanging endpoint still holds only these.
pub const PER_WEBHOOK_CONCURRENCY: usize = 16;
/// Longest sleep between passes when nothing wakes the scheduler.
const IDLE: Duration = Duration::from_secs(1);

/// What one attempt came to, with the receiver's `Retry-After` (unix ms) if it gave one.
pub struct Sent {
    pub outcome: Outcome,
    pub not_before_ms: Option<i64>,
}

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
    pub async fn send(&self, target: &Target, d: &DeliveryRecord) -> Sent {
        let at_ms = now_ms();
        let hook = &target.record;
        let request = match &target.url {
            Some(url) => self.client.post(url.clone()),
            None => self.client.post(&hook.url),
        };
        let mut request = request.header("content-type", "application/json");
        for (name, value) in headers(hook, &d.event_id, d.body.as_bytes(), at_ms) {
            request = request.header(name, value);
        }
        let started = Instant::now();
        let result = request.body(d.body.clone()).send().await;
        let latency_ms = started.elapsed().as_millis() as u64;
        let attempt = |status_code: Option<u16>, error: Option<String>| Attempt {
            at_ms,
            status_code,
            latency_ms,
            error,
        };
        let mut not_before_ms = None;
        let outcome = match result {
            Ok(resp) if resp.status().is_success() => {
                Outcome::Delivered(attempt(Some(resp.status().as_u16()), None))
            }
            Ok(resp) => {
                let code = resp.status().as_u16();
                let retry_after = resp.headers().get("retry-after");
                not_before_ms =
                    not_before(code, retry_after.and_then(|v| v.to_str().ok()), now_ms());
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
        };
        Sent {
            outcome,
            not_before_ms,
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
    /// Finished attempts go to the recorder (`record.rs`).
    recorder: mpsc::Sender<Finished>,
    /// Subscriptions whose receiver asked (`Retry-After`) not to be sent to before a
    /// time (unix ms). In memory: after a restart the delivery's own due time still
    /// honours it.
    held: Mutex<HashMap<u128, i64>>,
}

/// What the scheduler keeps per subscription: its permits and how many it was given
/// (1 when ordered).
struct Permits {
    sem: Arc<Semaphore>,
    size: usize,
}

impl Permits {
    fn new(size: usize) -> Permits {
        Permits {
            sem: Arc::new(Semaphore::new(size)),
            size,
        }
    }
}

/// Runs until shutdown. Attempts still in flight then are abandoned: their queue entries
/// remain, so they are sent again after the restart (receivers de-duplicate on the id).
pub async fn run(
    store: Store,
    sender: Sender,
    handle: Handle,
    rules: Rules,
    metrics: Arc<Metrics>,
    mut shutdown: Shutdown,
) {
    let (recorder, finished) = mpsc::channel(record::CHANNEL);
    let recording = tokio::spawn(record::run(
        record::Recording {
            store: store.clone(),
            handle: handle.clone(),
            rules,
            metrics,
        },
        finished,
    ));
    let shared = Arc::new(Shared {
        store,
        sender,
        handle,
        recorder,
        held: Mutex::new(HashMap::new()),
    });
    let global = Arc::new(Semaphore::new(GLOBAL_CONCURRENCY));
    let mut per_hook: HashMap<u128, Permits> = HashMap::new();
    let mut targets = Targets::default();
    let mut tasks = JoinSet::new();
    let mut resynced = Instant::now();
    loop {
        if shutdown.is_set() {
            break;
        }
        if resynced.elapsed() >= RESYNC {
            shared.handle.queue.request_resync();
            resynced = Instant::now();
        }
        let now = now_ms();
        let passes = (&mut per_hook, &mut targets);
        let next_due = match schedule(&shared, &global, passes, &mut tasks, now) {
            Ok(next) => next,
            Err(e) => {
                tracing::warn!(error = %e, "webhook scheduling failed");
                None
            }
        };
        if per_hook.len() > 1024 {
            per_hook.retain(|_, p| p.sem.available_permits() < p.size);
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
    recording.abort();
}

/// Starts every due attempt that has permits; returns when the next entry that is not
/// yet due will be.
///
/// It walks the in-memory queue (`queue.rs`) subscription by subscription and takes a
/// subscription's due entries only while it has free permits, so a pass costs a few
/// map operations per subscription, whatever the backlog of a busy or dead endpoint.
fn schedule(
    shared: &Arc<Shared>,
    global: &Arc<Semaphore>,
    (per_hook, targets): (&mut HashMap<u128, Permits>, &mut Targets),
    tasks: &mut JoinSet<()>,
    now: i64,
) -> storage::Result<Option<i64>> {
    let queue = &shared.handle.queue;
    queue.resync_if_asked(&shared.store)?;
    targets.refresh(&shared.store);
    let mut next: Option<i64> = None;
    let mut sooner = |at: i64| next = Some(next.map_or(at, |n: i64| n.min(at)));
    for webhook_id in queue.hooks() {
        let held = shared.held.lock().unwrap().get(&webhook_id).copied();
        let held = held.filter(|until| *until > now);
        if let Some(until) = held {
            sooner(until);
        }
        // Handed to the attempts it starts; re-read once the table changes.
        let hook = targets.get(&shared.store, webhook_id)?;
        let size = match &hook {
            Some(h) if h.record.ordered => 1,
            _ => PER_WEBHOOK_CONCURRENCY,
        };
        let permits = per_hook
            .entry(webhook_id)
            .or_insert_with(|| Permits::new(size));
        // A subscription switched to or from ordered gets its new permits once idle.
        if permits.size != size && permits.sem.available_permits() == permits.size {
            *permits = Permits::new(size);
        }
        let sem = &permits.sem;
        let free = match held {
            Some(_) => 0,
            None => sem.available_permits().min(global.available_permits()),
        };
        let (taken, later) = queue.take_due(webhook_id, now, free);
        if let Some(at) = later {
            sooner(at);
        }
        for (due, delivery_id) in taken {
            // Only this loop takes permits, so what was free above still is.
            let (Ok(own), Ok(all)) = (
                Arc::clone(sem).try_acquire_owned(),
                Arc::clone(global).try_acquire_owned(),
            ) else {
                queue.put_back(webhook_id, due, delivery_id);
                continue;
            };
            let (shared, hook) = (Arc::clone(shared), hook.clone());
            tasks.spawn(async move {
                attempt(&shared, delivery_id, (webhook_id, hook), due, (own, all)).await;
            });
        }
    }
    Ok(next)
}

/// A subscription's id and its record as the scheduler read it (none: deleted).
type Hook = (u128, Option<Arc<Target>>);

async fn attempt(
    shared: &Shared,
    delivery_id: u128,
    hook: Hook,
    due: i64,
    (own, all): (OwnedSemaphorePermit, OwnedSemaphorePermit),
) {
    let webhook_id = hook.0;
    match attempt_inner(shared, delivery_id, hook, due).await {
        Ok(Some((sent, fresh))) => {
            if let Some(until) = sent.not_before_ms {
                let mut held = shared.held.lock().unwrap();
                let h = held.entry(webhook_id).or_insert(until);
                *h = (*h).max(until);
                held.retain(|_, until| *until > now_ms());
            }
            // The exchange is over: the subscription may send its next delivery while
            // this one waits to be recorded.
            drop(own);
            let finished = Finished {
                delivery_id,
                due_ms: due,
                outcome: sent.outcome,
                not_before_ms: sent.not_before_ms,
                fresh,
            };
            if shared.recorder.send(finished).await.is_ok() {
                // The recorder settles it in the queue once the result is durable.
                drop(all);
                shared.handle.wake();
                return;
            }
            // No recorder: the engine is stopping; a stored entry stays queued, and a
            // first attempt's event is fanned out again after the restart.
            shared.handle.queue.abandon(delivery_id);
        }
        // Ended without sending: its stored entry is gone once durable.
        Ok(None) => {
            let _ = shared.store.durable().await;
            shared.handle.queue.settle([delivery_id], &[]);
        }
        Err(e) => {
            tracing::warn!(error = %e, "webhook attempt could not be recorded");
            shared.handle.queue.abandon(delivery_id);
        }
    }
    drop(all);
    shared.handle.wake();
}

/// Sends the delivery and returns the outcome to record, with the delivery itself when
/// only memory has it (a first attempt), or ends a delivery that must not be sent (stale
/// entry, deleted or inactive subscription) in its own transaction.
///
/// A first attempt sends the record fan-out handed over in memory; any other attempt
/// reads the stored one, which only the engine changes while it is pending, except
/// deleting its subscription (which the hook record shows), and the recorder checks it
/// again in its transaction.
async fn attempt_inner(
    shared: &Shared,
    delivery_id: u128,
    (webhook_id, hook): Hook,
    due: i64,
) -> storage::Result<Option<(Sent, Option<DeliveryRecord>)>> {
    let store = &shared.store;
    let handed = shared.handle.queue.take_record(delivery_id);
    let fresh = handed.is_some();
    let delivery = match handed {
        Some(d) => Some(d),
        None => store.get::<Deliveries>(&delivery_id)?,
    };
    let now = now_ms();
    let d = match delivery {
        Some(d) if d.status == DeliveryStatus::Pending && d.next_attempt_ms == Some(due) => d,
        // A stale queue entry (its delivery moved on): remove it.
        _ => return cancel_queued(store, webhook_id, delivery_id, due, None, now).map(|()| None),
    };
    let Some(hook) = hook else {
        // The subscription was deleted: its deliveries are dropped.
        if fresh {
            return Ok(None);
        }
        return cancel_queued(store, webhook_id, delivery_id, due, None, now).map(|()| None);
    };
    // Test events are sent even to an inactive subscription; real ones are not.
    if !hook.record.is_active && d.event_seq != 0 {
        let reason = hook
            .record
            .disabled_reason
            .as_deref()
            .unwrap_or("the subscription is inactive");
        if fresh {
            let seq = d.event_seq;
            fail_unsent(store, d, reason, now)?;
            shared.handle.progress.recorded(webhook_id, [seq]);
            return Ok(None);
        }
        return cancel_queued(store, webhook_id, delivery_id, due, Some(reason), now)
            .map(|()| None);
    }
    let sent = shared.sender.send(&hook, &d).await;
    Ok(Some((sent, fresh.then_some(d))))
}
