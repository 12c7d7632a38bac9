//! kill -9 tests: a child server on its own data dir that a test crashes (while writers
//! send requests, or at a moment of its choosing), reads the database of while it is
//! down, and restarts, running the test's after-restart checks after every restart.

use std::collections::HashSet;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};

use fulfilld::clients::Credentials;
use reqwest::Method;
use serde_json::{json, Value};
use storage::Store;
use tempfile::TempDir;
use tokio::sync::mpsc;

use super::{assert_check_passes, body, boxes, ChildServer};

/// A check run on the restarted server after every restart (e.g. a consistency check).
type AfterRestart = Box<dyn FnMut(&ChildServer) + Send>;

/// The real binary on a data dir that outlives its processes.
pub struct Crashable {
    pub dir: TempDir,
    args: Vec<String>,
    server: Option<ChildServer>,
    /// The bootstrap client, valid across restarts.
    pub creds: Credentials,
    pub http: reqwest::Client,
    after_restart: Vec<AfterRestart>,
}

/// One request a writer sends; `id` names it in the acknowledged list.
pub struct Write {
    pub method: Method,
    pub path: String,
    pub body: Value,
    pub headers: Vec<(&'static str, String)>,
    pub id: String,
    /// How often it is sent: 2 is a client retrying after a timeout.
    pub sends: usize,
}

impl Write {
    pub fn new(method: Method, path: &str, body: Value, id: String) -> Write {
        Write {
            method,
            path: path.to_string(),
            body,
            headers: Vec::new(),
            id,
            sends: 1,
        }
    }

    /// Each send repeated: every answer must acknowledge it.
    pub fn sent(mut self, times: usize) -> Write {
        self.sends = times;
        self
    }
}

/// Concurrent writers: writer `w` sends `write(w, i)` for i = 0, 1, ... until the
/// server is gone. Statuses outside `ok` fail the test.
pub struct Load<F> {
    pub writers: usize,
    /// The kill comes once this many distinct writes are acknowledged.
    pub kill_after: usize,
    pub ok: &'static [u16],
    pub write: F,
}

impl Crashable {
    /// Starts `fulfilld serve` with `args` on a new data dir.
    pub async fn start(args: &[&str]) -> Crashable {
        let dir = tempfile::tempdir().unwrap();
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let server = ChildServer::start(dir.path(), &args).await;
        Crashable {
            creds: server.bootstrap(),
            http: server.client(),
            server: Some(server),
            dir,
            args,
            after_restart: Vec::new(),
        }
    }

    /// Runs `check` on the server after every later restart.
    pub fn after_restart(&mut self, check: impl FnMut(&ChildServer) + Send + 'static) {
        self.after_restart.push(Box::new(check));
    }

    /// The running server.
    pub fn server(&self) -> &ChildServer {
        self.server.as_ref().expect("server running")
    }

    pub fn url(&self, path: &str) -> String {
        self.server().url(path)
    }

    /// A request with the bootstrap key; a null body sends none.
    pub async fn send(&self, method: Method, path: &str, v: &Value) -> (u16, Value) {
        let req = self
            .http
            .request(method, self.url(path))
            .header("X-API-Key", &self.creds.api_key);
        let req = if v.is_null() { req } else { req.json(v) };
        body(req.send().await.unwrap()).await
    }

    pub async fn post(&self, path: &str, v: &Value) -> (u16, Value) {
        self.send(Method::POST, path, v).await
    }

    /// POSTs `v` and asserts 201.
    pub async fn create(&self, path: &str, v: &Value) -> Value {
        let (status, answer) = self.post(path, v).await;
        assert_eq!(status, 201, "POST {path} {v}: {answer}");
        answer
    }

    /// Warehouse `W1` with the standard boxes, and product `MUG` at `price` with `on_hand`
    /// of it there: the catalog the crash tests' orders draw on.
    pub async fn mug_catalog(&self, price: Value, on_hand: u64) {
        self.create(
            "/api/warehouses",
            &json!({"id": "W1", "name": "East", "boxes": boxes()}),
        )
        .await;
        self.create(
            "/api/products",
            &json!({"sku": "MUG", "name": "Mug", "price": price, "weight": 1,
                    "dimensions": {"width": 4, "height": 4, "length": 4}}),
        )
        .await;
        self.create(
            "/api/inventory",
            &json!({"sku": "MUG", "warehouseId": "W1", "onHand": on_hand}),
        )
        .await;
    }

    /// Kills the server, then runs `fulfilld check` on what it left: every crash test checks
    /// the database's integrity before its restart.
    pub fn kill9(&mut self) {
        self.server.take().expect("server running").kill9();
        assert_check_passes(self.dir.path());
    }

    /// Starts the server again on the same data dir, then runs the after-restart checks.
    pub async fn restart(&mut self) -> &ChildServer {
        let args = self.args.clone();
        self.restart_with(&args).await
    }

    /// [`Crashable::restart`] with other arguments from now on.
    pub async fn restart_with(&mut self, args: &[String]) -> &ChildServer {
        assert!(self.server.is_none(), "restart after a kill");
        self.args = args.to_vec();
        let server = ChildServer::start(self.dir.path(), args).await;
        for check in &mut self.after_restart {
            check(&server);
        }
        self.http = server.client();
        self.server.insert(server)
    }

    /// [`Crashable::restart`] with `env` set for this run only (a test hook).
    pub async fn restart_with_env(&mut self, env: &[(&str, &str)]) -> &ChildServer {
        assert!(self.server.is_none(), "restart after a kill");
        let (dir, args) = (self.dir.path().to_path_buf(), self.args.clone());
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let server = tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let e: Vec<(&str, &std::path::Path)> = env
                .iter()
                .map(|(k, v)| (k.as_str(), std::path::Path::new(v)))
                .collect();
            ChildServer::spawn_with_env(&dir, &a, &e)
        })
        .await
        .expect("spawn task");
        for check in &mut self.after_restart {
            check(&server);
        }
        self.http = server.client();
        self.server.insert(server)
    }

    /// Waits for the server to die on its own (a test hook aborted it), then checks
    /// the database it left like [`Crashable::kill9`]; its exit status.
    pub fn crashed(&mut self) -> ExitStatus {
        let mut server = self.server.take().expect("server running");
        let status = server.child.wait().expect("wait");
        assert_check_passes(self.dir.path());
        status
    }

    /// The database the dead server left behind; drop it before restarting.
    pub fn store(&self) -> Store {
        assert!(self.server.is_none(), "read the store of a stopped server");
        Store::open(&self.dir.path().join("db"), &Default::default()).unwrap()
    }

    pub fn terminate(&mut self) -> ExitStatus {
        self.server.take().expect("server running").terminate()
    }

    /// Runs the writers until `kill_after` writes are acknowledged, kills the server
    /// with SIGKILL, waits for every writer to see it gone, and returns the ids of the
    /// acknowledged writes in the order they were first acknowledged.
    pub async fn kill_9_during<F>(&mut self, load: Load<F>) -> Vec<String>
    where
        F: Fn(usize, usize) -> Write + Send + Sync + 'static,
    {
        let acked: Arc<Mutex<(Vec<String>, HashSet<String>)>> = Arc::default();
        let (enough_tx, mut enough_rx) = mpsc::channel::<()>(1);
        let write = Arc::new(load.write);
        let mut writers = Vec::new();
        for w in 0..load.writers {
            let (http, base, key, acked, enough, write) = (
                self.http.clone(),
                self.server().base.clone(),
                self.creds.api_key.clone(),
                acked.clone(),
                enough_tx.clone(),
                write.clone(),
            );
            let (ok, kill_after) = (load.ok, load.kill_after);
            writers.push(tokio::spawn(async move {
                for i in 0.. {
                    let one = write(w, i);
                    for _ in 0..one.sends {
                        let mut req = http
                            .request(one.method.clone(), format!("{base}{}", one.path))
                            .header("X-API-Key", &key)
                            .json(&one.body);
                        for (name, value) in &one.headers {
                            req = req.header(*name, value);
                        }
                        match req.send().await {
                            Ok(r) if ok.contains(&r.status().as_u16()) => {
                                let mut a = acked.lock().unwrap();
                                if a.1.insert(one.id.clone()) {
                                    a.0.push(one.id.clone());
                                    if a.0.len() == kill_after {
                                        let _ = enough.try_send(());
                                    }
                                }
                            }
                            Ok(r) => panic!("{} {}: status {}", one.method, one.path, r.status()),
                            Err(_) => return, // the server is gone
                        }
                    }
                }
            }));
        }
        drop(enough_tx);
        enough_rx
            .recv()
            .await
            .expect("the writers reach the acknowledged count");
        self.kill9();
        for w in writers {
            w.await.unwrap();
        }
        let acked = acked.lock().unwrap().0.clone();
        acked
    }
}
