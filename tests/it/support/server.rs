//! A real fulfilld inside the test's runtime: its temp data dir, TLS listeners on
//! 127.0.0.1:0, an `unlimited` test client, and clients made through its admin socket.

use std::path::Path;
use std::sync::Arc;

use fulfilld::admin::Request;
use fulfilld::clients::{ClientService, Credentials, Registry};
use fulfilld::config::{Config, FileConfig, Overrides, TierLimit};
use serde_json::Value;
use storage::{Store, Tier};
use tempfile::TempDir;
use tokio::sync::oneshot;

use super::{https_client, TestCa};

pub fn test_config(dir: &Path) -> Config {
    Config::build(
        FileConfig::default(),
        Overrides {
            data_dir: Some(dir.to_path_buf()),
            listen: Some("127.0.0.1:0".parse().unwrap()),
            packing_listen: Some("127.0.0.1:0".parse().unwrap()),
            ..Default::default()
        },
    )
    .map(|mut c| {
        // Orders stay pending unless a test packs them (POST /api/orders/{id}/pack) or
        // turns the background packer on: status assertions must not race it.
        c.auto_pack = false;
        c
    })
    .expect("test config")
}

/// A server running inside the test's runtime.
pub struct Server {
    pub dir: TempDir,
    pub store: Store,
    pub base: String,
    pub packing: String,
    pub http: reqwest::Client,
    /// An `unlimited` client, so tests are not rate-limited unless they ask to be.
    pub creds: Credentials,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl Server {
    pub async fn start() -> Server {
        Server::start_with(|_| {}).await
    }

    /// A server whose packer packs new orders on its own and whose webhooks trust `ca`.
    pub async fn start_auto_packing(ca: &TestCa) -> Server {
        let pem = ca.pem.clone();
        Server::start_with(move |c| {
            c.auto_pack = true;
            c.webhook_ca = vec![pem];
        })
        .await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = test_config(dir.path());
        adjust(&mut config);
        let config = Arc::new(config);
        fulfilld::install_crypto_provider();
        let store = fulfilld::open_store(&config).expect("open store");
        let registry = Arc::new(Registry::load(&store).expect("registry"));
        // Created before run() loads its registry; later clients go through the socket.
        let creds = ClientService::new(store.clone(), registry)
            .create("test", Tier::Unlimited)
            .expect("test client");
        // Generate the certificate now so the client can trust it; run() reuses it.
        fulfilld::tls::server_config(&config.tls, &config.data_dir).expect("tls");
        let listeners = fulfilld::Listeners::bind(&config).await.expect("bind");
        let scheme = if config.tls == fulfilld::config::TlsMode::Plain {
            "http"
        } else {
            "https"
        };
        let base = format!("{scheme}://{}", listeners.fulfillment.local_addr().unwrap());
        let packing = format!("{scheme}://{}", listeners.packing.local_addr().unwrap());
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(fulfilld::run(
            config.clone(),
            store.clone(),
            listeners,
            async {
                let _ = rx.await;
            },
        ));
        let http = https_client(&fulfilld::tls::self_signed_paths(dir.path()).0);
        // The listeners are bound already; the first answer means run() is serving
        // (its admin socket and bootstrap are set up before the accept loops start).
        let health = http
            .get(format!("{base}/health"))
            .send()
            .await
            .expect("server answers");
        assert!(health.status().is_success() || health.status() == 429);
        Server {
            dir,
            store,
            base,
            packing,
            http,
            creds,
            stop: Some(tx),
            task: Some(task),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with the test client's API key.
    pub fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .header("X-API-Key", &self.creds.api_key)
    }

    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.req(reqwest::Method::GET, path)
    }

    pub fn post_json(&self, path: &str, body: &Value) -> reqwest::RequestBuilder {
        self.req(reqwest::Method::POST, path).json(body)
    }

    /// Subscribes to every event kind (see [`super::sink_subscription`]), so events are stored.
    pub async fn subscribe_all(&self) {
        let (st, v) = self
            .post("/api/webhooks", &super::sink_subscription())
            .await;
        assert_eq!(st, 201, "{v}");
    }

    /// POSTs `body` with the test client's key; the status and the parsed answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        super::body(self.post_json(path, body).send().await.unwrap()).await
    }

    /// A new client of the given tier, created through the running server's admin
    /// socket as `fulfilld clients create` would.
    pub fn client_of_tier(&self, tier: Tier) -> Credentials {
        let req = Request::ClientsCreate {
            name: "extra".into(),
            tier: tier.as_str().into(),
        };
        let reply = fulfilld::admin::call(self.dir.path(), &req)
            .unwrap()
            .expect("server answers");
        assert!(reply.ok, "{:?}", reply.error);
        serde_json::from_value(reply.result).unwrap()
    }

    /// Deletes a client through the admin socket.
    pub fn delete_client(&self, id: &str) {
        let req = Request::ClientsDelete { id: id.into() };
        let reply = fulfilld::admin::call(self.dir.path(), &req)
            .unwrap()
            .expect("server answers");
        assert!(reply.ok, "{:?}", reply.error);
    }

    /// The token endpoint's answer to `creds` sent as form fields.
    pub async fn token_response(&self, creds: &Credentials) -> reqwest::Response {
        super::request_token(&self.http, self.url("/oauth/token"), creds).await
    }

    pub async fn token_for(&self, creds: &Credentials) -> String {
        super::access_token(self.token_response(creds).await).await
    }

    pub fn signal_stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }

    pub async fn join(&mut self) -> anyhow::Result<()> {
        self.task.take().expect("running").await.expect("run task")
    }
}

pub fn tier_limits(config: &mut Config, tier: Tier, rpm: u32, burst: u32) {
    config.tiers.insert(tier, TierLimit { rpm, burst });
}
