//! Test support: a real fulfilld on 127.0.0.1:0 over real TLS in a temp data dir, an
//! HTTPS client that trusts its certificate, and a child-process server for crash and
//! command-line tests. Nothing here mocks storage or HTTP.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use fulfilld::admin::Request;
use fulfilld::clients::{ClientService, Credentials, Registry};
use fulfilld::config::{Config, FileConfig, Overrides, TierLimit};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::Value;
use storage::{Store, Tier};
use tempfile::TempDir;
use tokio::sync::oneshot;

/// An HTTPS client that trusts exactly the certificate at `cert` (HTTP/2 by ALPN).
pub fn https_client(cert: &Path) -> reqwest::Client {
    fulfilld::install_crypto_provider();
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(cert).expect("cert file") {
        roots.add(c.expect("cert pem")).expect("trust anchor");
    }
    let mut cfg = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .tls_backend_preconfigured(cfg)
        .build()
        .expect("https client")
}

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

    /// Subscribes to every event kind (see [`sink_subscription`]), so events are stored.
    pub async fn subscribe_all(&self) {
        let (st, v) = self.post("/api/webhooks", &sink_subscription()).await;
        assert_eq!(st, 201, "{v}");
    }

    /// POSTs `body` with the test client's key; the status and the parsed answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        crate::support::body(self.post_json(path, body).send().await.unwrap()).await
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

    pub async fn token_for(&self, creds: &Credentials) -> String {
        let resp = self
            .http
            .post(self.url("/oauth/token"))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", &creds.client_id),
                ("client_secret", &creds.client_secret),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        resp.json::<Value>().await.unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_string()
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

pub async fn body(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let v = resp.json::<Value>().await.unwrap_or(Value::Null);
    (status, v)
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

/// A subscription to every event kind at an address nothing listens on. Events are
/// stored only while an active subscription lists their kind, so tests that read the
/// outbox subscribe first; the sink's deliveries just fail and wait for their retries.
pub fn sink_subscription() -> Value {
    serde_json::json!({
        "url": "https://127.0.0.1:9/events",
        "events": fulfilld::domain::events::KINDS,
        "secret": "sink-secret-0123456789",
    })
}

/// The real `fulfilld` binary as a child process.
pub struct ChildServer {
    pub child: Child,
    pub base: String,
    pub packing: String,
    pub dir: PathBuf,
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_fulfilld")
}

impl ChildServer {
    /// Starts `fulfilld serve` on port 0 and waits for its ready line.
    pub fn spawn(dir: &Path, extra: &[&str]) -> ChildServer {
        ChildServer::spawn_with_env(dir, extra, &[])
    }

    pub fn spawn_with_env(dir: &Path, extra: &[&str], env: &[(&str, &Path)]) -> ChildServer {
        let mut child = Command::new(bin())
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--packing-listen",
                "127.0.0.1:0",
                "--data-dir",
            ])
            .arg(dir)
            .args(extra)
            .env("RUST_LOG", "warn")
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn fulfilld");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let ready = lines
            .next()
            .expect("a ready line")
            .expect("stdout readable");
        let base = ready
            .split_whitespace()
            .find_map(|w| w.strip_prefix("fulfillment="))
            .unwrap_or_else(|| panic!("unexpected first line {ready:?}"))
            .to_string();
        let packing = ready
            .split_whitespace()
            .find_map(|w| w.strip_prefix("packing="))
            .unwrap_or_else(|| panic!("unexpected first line {ready:?}"))
            .to_string();
        ChildServer {
            child,
            base,
            packing,
            dir: dir.to_path_buf(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn client(&self) -> reqwest::Client {
        https_client(&fulfilld::tls::self_signed_paths(&self.dir).0)
    }

    pub fn bootstrap(&self) -> Credentials {
        let text = std::fs::read_to_string(self.dir.join("bootstrap-credentials.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    pub fn kill9(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    pub fn terminate(mut self) -> std::process::ExitStatus {
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().expect("wait")
    }
}

/// A failing test must not leave its server running (it would hold the test's output
/// pipe and the data dir): kill whatever is still alive.
impl Drop for ChildServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs an admin subcommand of the real binary and parses its JSON output.
pub fn admin(args: &[&str]) -> (bool, Value) {
    let out = Command::new(bin())
        .args(args)
        .output()
        .expect("run fulfilld");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.success(), v)
}
