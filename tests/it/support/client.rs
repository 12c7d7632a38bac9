//! HTTP helpers: a client that trusts the server's certificate, reading an answer as
//! (status, JSON), the error envelope check, and one helper per endpoint that tests call
//! again and again (so a changed route or body shape is fixed in one place).

use std::path::Path;

use fulfilld::clients::Credentials;
use reqwest::Method;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::{json, Value};

use super::Server;

/// An HTTPS client that trusts exactly the certificate at `cert` (HTTP/2 by ALPN).
pub fn https_client(cert: &Path) -> reqwest::Client {
    https_builder(cert).build().expect("https client")
}

/// The builder of [`https_client`], for clients that need more (no redirects).
pub fn https_builder(cert: &Path) -> reqwest::ClientBuilder {
    fulfilld::install_crypto_provider();
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(cert).expect("cert file") {
        roots.add(c.expect("cert pem")).expect("trust anchor");
    }
    let mut cfg = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    reqwest::Client::builder().tls_backend_preconfigured(cfg)
}

pub async fn body(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let v = resp.json::<Value>().await.unwrap_or(Value::Null);
    (status, v)
}

/// POSTs `creds` as form fields to the token endpoint at `url`; the answer.
pub async fn request_token(
    http: &reqwest::Client,
    url: String,
    creds: &Credentials,
) -> reqwest::Response {
    http.post(url)
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", &creds.client_id),
            ("client_secret", &creds.client_secret),
        ])
        .send()
        .await
        .unwrap()
}

/// Asserts that the token endpoint answered 200; the access token it issued.
pub async fn access_token(resp: reqwest::Response) -> String {
    assert_eq!(resp.status(), 200);
    resp.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Asserts the error envelope with this code (and field, when given).
pub fn assert_error(v: &Value, code: &str, field: Option<&str>) {
    assert_eq!(v["error"]["code"], code, "in {v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    match field {
        Some(f) => assert_eq!(v["error"]["field"], f, "in {v}"),
        None => assert!(v["error"].get("field").is_some(), "field key present: {v}"),
    }
}

impl Server {
    /// A fresh HTTPS client of its own (its own connections) trusting this server.
    pub fn new_client(&self) -> reqwest::Client {
        https_client(&fulfilld::tls::self_signed_paths(self.dir.path()).0)
    }

    /// GETs `path`, asserts 200 and returns the answer.
    pub async fn get_ok(&self, path: &str) -> Value {
        let (status, v) = self.get_json(path).await;
        assert_eq!(status, 200, "GET {path}: {v}");
        v
    }

    /// GETs `path` with another client's API key.
    pub async fn get_with_key(&self, path: &str, api_key: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .header("X-API-Key", api_key)
            .send()
            .await
            .unwrap()
    }

    /// GETs `path` with a Bearer token.
    pub async fn get_with_token(&self, path: &str, token: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    /// GETs `path` without credentials; the answer as text.
    pub async fn text(&self, path: &str) -> String {
        self.http
            .get(self.url(path))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// GETs `path`; the status and answer.
    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        body(self.get(path).send().await.unwrap()).await
    }

    /// A request with a JSON body and the test client's key; the status and answer.
    pub async fn send(&self, method: Method, path: &str, v: &Value) -> (u16, Value) {
        body(self.req(method, path).json(v).send().await.unwrap()).await
    }

    /// `POST /api/inventory` for (sku, warehouse, onHand); asserts 201.
    pub async fn stock(&self, sku: &str, warehouse: &str, on_hand: i64) -> Value {
        let (status, v) = self
            .post(
                "/api/inventory",
                &json!({"sku": sku, "warehouseId": warehouse, "onHand": on_hand}),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        v
    }

    /// `PATCH /api/inventory/{id}/adjust`.
    pub async fn adjust(&self, id: &str, delta: i64, reason: &str) -> (u16, Value) {
        self.send(
            Method::PATCH,
            &format!("/api/inventory/{id}/adjust"),
            &json!({"delta": delta, "reason": reason}),
        )
        .await
    }

    /// `POST /api/orders`.
    pub async fn create_order(&self, v: &Value) -> (u16, Value) {
        self.post("/api/orders", v).await
    }

    /// `PATCH /api/orders/{id}`.
    pub async fn patch_order(&self, id: &str, v: &Value) -> (u16, Value) {
        self.send(Method::PATCH, &format!("/api/orders/{id}"), v)
            .await
    }

    /// `POST /api/orders/{id}/cancel` with an optional body.
    pub async fn cancel(&self, id: &str, v: &Value) -> (u16, Value) {
        let req = self.req(Method::POST, &format!("/api/orders/{id}/cancel"));
        let req = if v.is_null() { req } else { req.json(v) };
        body(req.send().await.unwrap()).await
    }

    /// `POST /api/orders/{id}/pack`.
    pub async fn try_pack(&self, id: &str) -> (u16, Value) {
        body(
            self.req(Method::POST, &format!("/api/orders/{id}/pack"))
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// `POST /api/orders/{id}/pack`; asserts 200 and a processing order.
    pub async fn pack(&self, id: &str) -> Value {
        let (status, v) = self.try_pack(id).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["status"], "processing", "{v}");
        v
    }

    /// `POST /api/fulfillment/packages/{pkg}/ship` with UPS ground.
    pub async fn ship(&self, pkg: &str, tracking: &str) -> (u16, Value) {
        self.post(
            &format!("/api/fulfillment/packages/{pkg}/ship"),
            &json!({"carrier": "UPS", "trackingNumber": tracking, "service": "ground"}),
        )
        .await
    }

    /// `GET /api/orders/{id}`; asserts 200.
    pub async fn order(&self, id: &str) -> Value {
        self.get_ok(&format!("/api/orders/{id}")).await
    }

    /// The packages of an order (`GET /api/packages?orderId=`).
    pub async fn packages_of(&self, order_id: &str) -> Vec<Value> {
        let v = self
            .get_ok(&format!("/api/packages?orderId={order_id}"))
            .await;
        v["packages"].as_array().unwrap().clone()
    }

    /// The first inventory record of a SKU (`GET /api/inventory?sku=`).
    pub async fn inventory_of(&self, sku: &str) -> Value {
        let v = self.get_ok(&format!("/api/inventory?sku={sku}")).await;
        v["inventory"][0].clone()
    }
}

/// A raw TLS connection to `s`'s fulfillment listener, trusting its generated certificate:
/// for tests that must see bytes and the end of the stream as a client would.
pub async fn raw_tls(s: &Server) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    for c in
        CertificateDer::pem_file_iter(fulfilld::tls::self_signed_paths(s.dir.path()).0).unwrap()
    {
        roots.add(c.unwrap()).unwrap();
    }
    let cfg = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let addr = s.base.trim_start_matches("https://").to_string();
    let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
    tokio_rustls::TlsConnector::from(std::sync::Arc::new(cfg))
        .connect(
            rustls_pki_types::ServerName::try_from("localhost").unwrap(),
            tcp,
        )
        .await
        .unwrap()
}
