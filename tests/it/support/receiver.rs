//! A real HTTPS webhook receiver for the delivery tests: hyper over tokio-rustls on
//! 127.0.0.1:0 with a leaf certificate issued by its own test CA (whose PEM the server
//! under test is given as `--webhook-ca`). It records every request (headers, raw body,
//! arrival time) in a channel the test awaits, and answers as told: succeed, fail the
//! next N requests, always fail, answer one status (with extra headers), or hang.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{HeaderMap, Request, Response};
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::Value;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Succeed,
    /// Fail (HTTP 500) this many more requests, then succeed.
    FailNext(u32),
    AlwaysFail,
    /// Never answer.
    Hang,
    /// Answer this status (with the headers of `set_headers`) to every request.
    Status(u16),
    /// Answer this status to the next request, then succeed.
    StatusOnce(u16),
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub struct Hit {
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
    /// The status the receiver answered (0 when it hung).
    pub answered: u16,
}

impl Hit {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }

    pub fn event_id(&self) -> String {
        self.header("x-webhook-id").to_string()
    }
}

/// A test certificate authority; `pem` is the file the server trusts.
pub struct TestCa {
    _dir: TempDir,
    pub pem: PathBuf,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "fulfilld test webhook CA");
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let pem = dir.path().join("ca.pem");
        std::fs::write(&pem, cert.pem()).unwrap();
        TestCa {
            _dir: dir,
            pem,
            issuer: Issuer::new(params, key),
        }
    }

    /// A server certificate for 127.0.0.1 and localhost, signed by this CA.
    fn leaf(&self) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "webhook receiver");
        params
            .extended_key_usages
            .push(rcgen::ExtendedKeyUsagePurpose::ServerAuth);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (
            cert.der().clone(),
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
    }
}

pub struct Receiver {
    pub url: String,
    mode: Arc<Mutex<Mode>>,
    /// Extra headers on every answer (`Retry-After`, `Location`).
    headers: Arc<Mutex<Vec<(String, String)>>>,
    hits: mpsc::UnboundedReceiver<Hit>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    pub async fn start(ca: &TestCa, mode: Mode) -> Receiver {
        fulfilld::install_crypto_provider();
        let (cert, key) = ca.leaf();
        let mut tls = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = TlsAcceptor::from(Arc::new(tls));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}/hooks/fulfilld", listener.local_addr().unwrap());
        let mode = Arc::new(Mutex::new(mode));
        let headers = Arc::new(Mutex::new(Vec::new()));
        let (tx, hits) = mpsc::unbounded_channel();
        let task = {
            let mode = Arc::clone(&mode);
            let headers = Arc::clone(&headers);
            tokio::spawn(async move {
                loop {
                    let Ok((tcp, _)) = listener.accept().await else {
                        continue;
                    };
                    let acceptor = acceptor.clone();
                    let mode = Arc::clone(&mode);
                    let headers = Arc::clone(&headers);
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        let Ok(tls) = acceptor.accept(tcp).await else {
                            return;
                        };
                        let service = hyper::service::service_fn(move |req| {
                            answer(req, Arc::clone(&mode), Arc::clone(&headers), tx.clone())
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(tls), service)
                            .await;
                    });
                }
            })
        };
        Receiver {
            url,
            mode,
            headers,
            hits,
            task,
        }
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// Headers added to every answer from now on.
    pub fn set_headers(&self, headers: &[(&str, &str)]) {
        *self.headers.lock().unwrap() = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
    }

    /// The next request, waiting at most `guard` (a failure guard, not a pace).
    pub async fn next(&mut self, guard: Duration) -> Hit {
        tokio::time::timeout(guard, self.hits.recv())
            .await
            .expect("the receiver got a request in time")
            .expect("receiver running")
    }

    /// The next request if one is already recorded.
    pub fn try_next(&mut self) -> Option<Hit> {
        self.hits.try_recv().ok()
    }
}

async fn answer(
    req: Request<Incoming>,
    mode: Arc<Mutex<Mode>>,
    headers: Arc<Mutex<Vec<(String, String)>>>,
    tx: mpsc::UnboundedSender<Hit>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let at = Instant::now();
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let decided = {
        let mut m = mode.lock().unwrap();
        match *m {
            Mode::Succeed => Some(200),
            Mode::AlwaysFail => Some(500),
            Mode::FailNext(n) => {
                *m = if n <= 1 {
                    Mode::Succeed
                } else {
                    Mode::FailNext(n - 1)
                };
                Some(500)
            }
            Mode::Hang => None,
            Mode::Status(code) => Some(code),
            Mode::StatusOnce(code) => {
                *m = Mode::Succeed;
                Some(code)
            }
        }
    };
    let _ = tx.send(Hit {
        headers: parts.headers,
        body,
        at,
        answered: decided.unwrap_or(0),
    });
    match decided {
        Some(code) => {
            let mut resp = Response::builder().status(code);
            for (name, value) in headers.lock().unwrap().iter() {
                resp = resp.header(name.as_str(), value.as_str());
            }
            Ok(resp.body(Full::new(Bytes::from_static(b"ok"))).unwrap())
        }
        None => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(Response::new(Full::new(Bytes::new())))
        }
    }
}

/// Lowercase hex HMAC-SHA256 of `message`, computed independently of the server's code.
pub fn hmac_hex(secret: &str, message: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(message);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The document's four rules, as a receiver applies them.
pub fn verify(secret: &str, hit: &Hit) -> bool {
    let ts = hit.header("x-webhook-timestamp");
    let mut signed = ts.as_bytes().to_vec();
    signed.push(b'.');
    signed.extend_from_slice(&hit.body);
    let expected = hmac_hex(secret, &signed);
    let sig = hit.header("x-webhook-signature");
    let same = expected.len() == sig.len()
        && expected
            .bytes()
            .zip(sig.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let fresh = ts.parse::<i64>().is_ok_and(|t| (now - t).abs() <= 300);
    same && fresh
}
