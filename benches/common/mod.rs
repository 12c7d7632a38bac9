//! What the load generators (`loadgen`, `pipeline`, `webhook_load`) share: the options
//! that reach the server, an HTTPS client that trusts the server's certificate and sends
//! the API key, a repeatable PRNG, and the orders benchmark's cart. Included with
//! `#[path]`; not every example uses all.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::{json, Value};

/// Declares a load generator's argh options struct: the options that reach the server
/// (`--base`, `--cert`, `--api-key`, what `benches/server.sh` hands back) first, then its
/// own fields. A macro because argh cannot flatten one options struct into another.
macro_rules! server_options {
    ($(#[$attr:meta])* struct $name:ident { $($own:tt)* }) => {
        $(#[$attr])*
        struct $name {
            /// base URL of fulfilld, e.g. https://127.0.0.1:8443
            #[argh(option)]
            base: String,
            /// the server's certificate (PEM) to trust
            #[argh(option)]
            cert: ::std::path::PathBuf,
            /// API key of an `unlimited` client
            #[argh(option)]
            api_key: String,
            $($own)*
        }
    };
}
pub(crate) use server_options;

#[derive(Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
    pub key: String,
}

impl Client {
    /// HTTP/1.1 over TLS trusting exactly `cert`, a connection per concurrent request (as
    /// a WMS or storefront pool does; one shared HTTP/2 connection tripped the client's
    /// own reset guard under load), keeping up to `concurrency` idle.
    pub fn connect(base: &str, cert: &Path, key: &str, concurrency: usize) -> Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(cert).expect("cert file") {
            roots.add(c.expect("cert")).expect("root");
        }
        let mut tls = rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .http1_only()
            .pool_max_idle_per_host(concurrency)
            .timeout(Duration::from_secs(600))
            .build()
            .expect("client");
        Client {
            http,
            base: base.to_string(),
            key: key.to_string(),
        }
    }

    pub fn req(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", &self.key)
    }

    /// POSTs `body`; a 409 (the record exists from an earlier seed) counts as done.
    pub async fn post(&self, path: &str, body: Value) -> Value {
        let r = self
            .req(Method::POST, path)
            .json(&body)
            .send()
            .await
            .expect(path);
        let status = r.status();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        assert!(
            status.is_success() || status == 409,
            "POST {path}: {status} {v}"
        );
        v
    }

    /// `pagination.total` of a list.
    pub async fn total(&self, path: &str) -> u64 {
        let v: Value = self
            .req(Method::GET, path)
            .send()
            .await
            .expect("count request")
            .json()
            .await
            .expect("count body");
        v["pagination"]["total"].as_u64().expect("a list")
    }
}

/// A small deterministic PRNG (xorshift64*), so runs are repeatable without a crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The orders benchmark's cart: 1-3 lines of 1-3 units of products `P0..P{skus}`.
pub fn order_body(ext: &str, rng: &mut Rng, skus: usize) -> Value {
    let lines = 1 + rng.below(3);
    let items: Vec<Value> = (0..lines)
        .map(|_| json!({"sku": format!("P{}", rng.below(skus)), "quantity": 1 + rng.below(3)}))
        .collect();
    json!({"externalId": ext, "customerEmail": format!("{}@example.com", ext.to_ascii_lowercase()),
           "customerId": format!("C{}", rng.below(50_000)), "items": items,
           "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "region": "NV", "postalCode": "89501", "country": "US"}]})
}
