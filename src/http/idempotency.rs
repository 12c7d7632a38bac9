//! `Idempotency-Key` handling for POST and PATCH: responses stored per client for 24 h
//! with a hash of the request, replayed with `Idempotent-Replayed: true`; 422 when the
//! key is reused for another request; 409 while the first is still running.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Response, StatusCode};
use sha2::{Digest, Sha256};
use storage::tables::Idempotency as IdemTable;
use storage::{IdempotencyRecord, Store};

use super::error::ApiError;
use super::response::Resp;

pub const HEADER: &str = "idempotency-key";
const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");
/// Response headers worth storing for a replay.
const KEPT_HEADERS: &[&str] = &["content-type", "location"];

type InFlightKey = (Arc<str>, String);

/// Keys whose first request is still running, per client. Bounded by the number of
/// concurrent requests, since a guard removes its entry when the request ends.
#[derive(Default)]
pub struct Idempotency {
    in_flight: Arc<Mutex<HashSet<InFlightKey>>>,
}

/// Removes the in-flight entry when the request finishes, fails or is cancelled.
pub struct Guard {
    set: Arc<Mutex<HashSet<InFlightKey>>>,
    key: InFlightKey,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(mut set) = self.set.lock() {
            set.remove(&self.key);
        }
    }
}

pub fn request_hash(method: &Method, path_and_query: &str, body: &[u8]) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(method.as_str().as_bytes());
    h.update([0]);
    h.update(path_and_query.as_bytes());
    h.update([0]);
    h.update(body);
    h.finalize().to_vec()
}

pub fn validate_key(raw: &HeaderValue) -> Result<String, ApiError> {
    let key = raw.to_str().unwrap_or("");
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(ApiError::validation(
            "Idempotency-Key",
            "Idempotency-Key must be 1 to 255 visible ASCII characters.",
        ));
    }
    Ok(key.to_string())
}

impl Idempotency {
    /// Marks the key in flight before the body is read, so a second request with the
    /// same key during a slow upload or a slow handler gets 409.
    pub fn enter(&self, client: &Arc<str>, key: String) -> Result<Guard, ApiError> {
        let entry = (Arc::clone(client), key);
        let mut set = self.in_flight.lock().expect("idempotency set poisoned");
        if !set.insert(entry.clone()) {
            return Err(ApiError::conflict(
                "idempotency_in_progress",
                "A request with this Idempotency-Key is still being processed.",
            )
            .on("Idempotency-Key"));
        }
        Ok(Guard {
            set: Arc::clone(&self.in_flight),
            key: entry,
        })
    }

    /// The stored response to replay, `None` for a first request, or 422 when the key
    /// was used for a different request.
    pub fn lookup(
        &self,
        store: &Store,
        guard: &Guard,
        request_sha256: &[u8],
        ttl_secs: i64,
        now: i64,
    ) -> Result<Option<Resp>, ApiError> {
        let key = (guard.key.0.to_string(), guard.key.1.clone());
        match store.get::<IdemTable>(&key)? {
            Some(rec) if now - rec.created_at_unix < ttl_secs => {
                if rec.request_sha256 != request_sha256 {
                    return Err(reused());
                }
                Ok(Some(replay(rec)))
            }
            _ => Ok(None),
        }
    }

    /// Stores a finished response (not a 5xx) under the guard's key. Returns whether it
    /// wrote, so the caller includes it in the durable flush.
    pub fn finish(
        &self,
        store: &Store,
        guard: &Guard,
        request_sha256: Vec<u8>,
        resp: &Resp,
        body: &Bytes,
        now: i64,
    ) -> Result<bool, ApiError> {
        if resp.status().is_server_error() {
            return Ok(false);
        }
        let rec = IdempotencyRecord {
            request_sha256,
            status: resp.status().as_u16(),
            headers: KEPT_HEADERS
                .iter()
                .filter_map(|h| {
                    let v = resp.headers().get(*h)?.to_str().ok()?;
                    Some((h.to_string(), v.to_string()))
                })
                .collect(),
            body: body.to_vec(),
            created_at_unix: now,
        };
        let key = (guard.key.0.to_string(), guard.key.1.clone());
        store.transact(|tx| {
            tx.insert::<IdemTable>(&key, &rec)?;
            Ok::<_, storage::Abort<ApiError>>(())
        })?;
        Ok(true)
    }
}

/// Test-only crash hook, read once from `FULFILLD_TEST_CRASH_AFTER_CHANGE=KEY`: the
/// request with `Idempotency-Key: KEY` that wrote aborts the process after its change
/// and before its response is stored, having first given storage half a second to make
/// the change durable on its own (which it does unless the change is held with its
/// response). Never set in production.
pub fn crash_after_change(store: &Store, guard: &Guard) {
    use std::sync::OnceLock;
    static KEY: OnceLock<Option<String>> = OnceLock::new();
    let key = KEY.get_or_init(|| std::env::var("FULFILLD_TEST_CRASH_AFTER_CHANGE").ok());
    if key.as_deref() != Some(guard.key.1.as_str()) {
        return;
    }
    // Waits on another thread: where the change and its response share a batch, that
    // batch is pinned by this very poll and the wait would never end.
    let (tx, rx) = std::sync::mpsc::channel();
    let store = store.clone();
    std::thread::spawn(move || {
        let _ = tx.send(store.durable_blocking());
    });
    let _ = rx.recv_timeout(std::time::Duration::from_millis(500));
    eprintln!(
        "FULFILLD_TEST_CRASH_AFTER_CHANGE: aborting between a change and its stored response"
    );
    std::process::abort();
}

fn reused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
        "This Idempotency-Key was used with a different request.",
    )
    .on("Idempotency-Key")
}

fn replay(rec: IdempotencyRecord) -> Resp {
    let mut resp = Response::new(Full::new(Bytes::from(rec.body)));
    *resp.status_mut() = StatusCode::from_u16(rec.status).unwrap_or(StatusCode::OK);
    let h = resp.headers_mut();
    for (name, value) in rec.headers {
        if let (Ok(n), Ok(v)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            h.insert(n, v);
        }
    }
    h.insert(REPLAYED, HeaderValue::from_static("true"));
    resp
}
