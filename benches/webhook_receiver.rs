//! The receiving side of the webhook benchmark (benches/webhook_load.rs): the test CA and
//! leaf certificate, the HTTPS receiver that answers 200 at once and counts deliveries
//! per subscription path (checking a sample of signatures against an independent
//! HMAC-SHA256, and timing each event's first arrival against its envelope timestamp),
//! and the dead endpoint that accepts TCP and never answers.

use std::collections::HashSet;
use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde_json::Value;
use tokio::net::TcpListener;

pub fn write_certs(dir: &Path) {
    std::fs::create_dir_all(dir).expect("certs dir");
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "fulfilld bench webhook CA");
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    leaf.extended_key_usages
        .push(rcgen::ExtendedKeyUsagePurpose::ServerAuth);
    let key = KeyPair::generate().unwrap();
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).unwrap();
    std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
}

pub fn secret(i: usize) -> String {
    format!("whsec-bench-{i:02}-0123456789abcdef")
}

/// What the receiver saw: deliveries per subscription path, distinct ids, signatures.
pub struct Seen {
    pub per_sub: Vec<AtomicU64>,
    pub ids: Mutex<HashSet<(usize, String)>>,
    pub duplicates: AtomicU64,
    pub checked: AtomicU64,
    pub bad: AtomicU64,
    /// Milliseconds from an event's timestamp (set in the transaction that commits it)
    /// to its first arrival here, per subscription and event.
    pub lag_ms: Mutex<Histogram<u64>>,
    /// The worst of those lags per second of commit (unix s), to tell one stall from a drift.
    pub worst_by_second: Mutex<std::collections::BTreeMap<i64, u64>>,
}

impl Seen {
    pub fn new(subs: usize) -> Seen {
        Seen {
            per_sub: (0..subs).map(|_| AtomicU64::new(0)).collect(),
            ids: Mutex::new(HashSet::new()),
            duplicates: AtomicU64::new(0),
            checked: AtomicU64::new(0),
            bad: AtomicU64::new(0),
            lag_ms: Mutex::new(Histogram::new(3).unwrap()),
            worst_by_second: Mutex::new(std::collections::BTreeMap::new()),
        }
    }
}

/// Unix ms of the envelope's `timestamp` (RFC 3339).
fn event_ms(body: &[u8]) -> Option<i64> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let t = time::OffsetDateTime::parse(
        v["timestamp"].as_str()?,
        &time::format_description::well_known::Rfc3339,
    )
    .ok()?;
    Some((t.unix_timestamp_nanos() / 1_000_000) as i64)
}

fn hmac_hex(secret: &str, ts: &[u8], body: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(ts);
    mac.update(b".");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn answer(
    req: Request<Incoming>,
    seen: Arc<Seen>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let sub = req
        .uri()
        .path()
        .strip_prefix("/hooks/")
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|i| *i < seen.per_sub.len());
    let header = |n: &str| {
        req.headers()
            .get(n)
            .map(|v| v.as_bytes().to_vec())
            .unwrap_or_default()
    };
    let (id, ts, sig) = (
        header("x-webhook-id"),
        header("x-webhook-timestamp"),
        header("x-webhook-signature"),
    );
    let body = req
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let Some(sub) = sub else {
        return Ok(Response::builder()
            .status(404)
            .body(Full::default())
            .unwrap());
    };
    let n = seen.per_sub[sub].fetch_add(1, Relaxed);
    if n % 97 == 0 {
        seen.checked.fetch_add(1, Relaxed);
        let fresh = std::str::from_utf8(&ts)
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
            .is_some_and(|t| (time::OffsetDateTime::now_utc().unix_timestamp() - t).abs() <= 300);
        let id_in_body = serde_json::from_slice::<Value>(&body)
            .is_ok_and(|v| v["id"].as_str().map(str::as_bytes) == Some(&id[..]));
        if !fresh || !id_in_body || hmac_hex(&secret(sub), &ts, &body).as_bytes() != &sig[..] {
            seen.bad.fetch_add(1, Relaxed);
        }
    }
    let arrived_ms = (time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64;
    let id = String::from_utf8_lossy(&id).into_owned();
    if !seen.ids.lock().unwrap().insert((sub, id)) {
        seen.duplicates.fetch_add(1, Relaxed);
    } else if let Some(at) = event_ms(&body) {
        let lag = (arrived_ms - at).max(0) as u64;
        let _ = seen.lag_ms.lock().unwrap().record(lag);
        let mut worst = seen.worst_by_second.lock().unwrap();
        let w = worst.entry(at.div_euclid(1000)).or_insert(0);
        *w = (*w).max(lag);
    }
    Ok(Response::new(Full::new(Bytes::from_static(b"ok"))))
}

/// The HTTPS receiver on 127.0.0.1:0; returns its port.
pub async fn receiver(certs: &Path, h2: bool, seen: Arc<Seen>) -> u16 {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(certs.join("cert.pem"))
        .expect("cert.pem")
        .map(|c| c.expect("cert"))
        .collect();
    let key = PrivateKeyDer::from_pem_file(certs.join("key.pem")).expect("key.pem");
    let mut tls = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("receiver TLS");
    tls.alpn_protocols = if h2 { vec![b"h2".to_vec()] } else { vec![] };
    tls.alpn_protocols.push(b"http/1.1".to_vec());
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                continue;
            };
            let (acceptor, seen) = (acceptor.clone(), Arc::clone(&seen));
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |req| answer(req, Arc::clone(&seen)));
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    port
}

/// Accepts connections and keeps them open without reading or writing: every attempt
/// to it hangs until the sender's own timeout.
pub async fn dead_endpoint(accepted: Arc<AtomicU64>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((tcp, _)) = listener.accept().await {
            accepted.fetch_add(1, Relaxed);
            held.push(tcp);
        }
    });
    port
}
