//! The bare hyper + rustls "hello" server: the throughput ceiling of the HTTP load
//! benchmark (`benches/load.sh`, results in BENCHMARKS.md).
//!
//! It serves the same stack as `src/server.rs` (multi-thread tokio, tokio-rustls with the
//! ring provider, ALPN h2 + http/1.1, hyper_util's auto builder with HTTP/1.1 keep-alive,
//! TCP_NODELAY) and answers every request with a tiny JSON body, doing no application
//! work: the gap between it and fulfilld is what fulfilld itself costs.
//!
//! Usage: `cargo run --release --example bare_hello -- 127.0.0.1:9443 [BODY_BYTES]`
//! (self-signed certificate generated at start; prints `bare_hello ready: https://ADDR`).
//! With BODY_BYTES the JSON body is padded to that size, so the cost of a payload as
//! large as a real response (TLS encryption, copies, kernel) can be told apart from the
//! cost of producing it.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use rustls::ServerConfig;
use rustls_pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

const BODY: &[u8] = br#"{"status":"ok"}"#;
static PADDED: OnceLock<Bytes> = OnceLock::new();

/// `{"status":"ok","pad":"xxx..."}` of exactly `len` bytes (or the bare body if shorter).
fn padded_body(len: usize) -> Bytes {
    let frame = r#"{"status":"ok","pad":""}"#.len();
    if len <= frame {
        return Bytes::from_static(BODY);
    }
    Bytes::from(format!(
        r#"{{"status":"ok","pad":"{}"}}"#,
        "x".repeat(len - frame)
    ))
}

fn tls_config() -> Arc<ServerConfig> {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
            .expect("generating a self-signed certificate");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let mut config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .expect("certificate and key match");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Arc::new(config)
}

async fn hello(_req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = PADDED
        .get()
        .cloned()
        .unwrap_or_else(|| Bytes::from_static(BODY));
    let mut resp = Response::new(Full::new(body));
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(resp)
}

fn main() {
    let usage = "usage: bare_hello ADDR [BODY_BYTES] (e.g. 127.0.0.1:9443 4096)";
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:9443".into())
        .parse()
        .expect(usage);
    if let Some(len) = args.next() {
        let _ = PADDED.set(padded_body(len.parse().expect(usage)));
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let acceptor = TlsAcceptor::from(tls_config());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("building the tokio runtime");
    runtime.block_on(async move {
        let listener = TcpListener::bind(addr).await.expect("binding the listener");
        println!(
            "bare_hello ready: https://{}",
            listener.local_addr().expect("local address")
        );
        loop {
            let Ok((stream, _peer)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(stream).await else {
                    return;
                };
                let mut builder = auto::Builder::new(TokioExecutor::new());
                builder.http1().timer(TokioTimer::new()).keep_alive(true);
                let _ = builder
                    .serve_connection(TokioIo::new(tls), service_fn(hello))
                    .await;
            });
        }
    });
}
