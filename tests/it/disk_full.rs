//! A full disk, for real: the server runs on a size-limited tmpfs mounted in its own
//! mount namespace (`unshare`), and the test fills and frees that file system from
//! outside through `/proc/<pid>/root`. Below the free-space reserve writes get 507
//! `insufficient_storage` while reads and `/health` (degraded) keep answering; once space
//! is freed writes work again without a restart, and every acknowledged order survives a
//! restart with `fulfilld check` passing.
//!
//! Needs `unshare` and `nsenter` (util-linux) and the right to mount a tmpfs in a new
//! namespace (root, or unprivileged user namespaces). Where that is missing the test says
//! so and passes, unless `FULFILLD_REQUIRE_UNSHARE` is set (CI sets it): then it fails.

use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{assert_error, bin, body, order_body, serve_command, ChildServer};

const MIB: u64 = 1 << 20;

/// A tmpfs of a given size, mounted in a mount namespace that a holder process keeps
/// alive (a `cat` reading our pipe), so that servers can come and go on it.
struct SmallDisk {
    holder: Child,
    /// The mount point, as the namespace sees it (an empty dir outside it).
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// `Err` with why when namespaces or tmpfs mounts are not available here.
    fn mount(mib: u64) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut holder = Command::new("unshare")
            .args(["-rm", "sh", "-c"])
            .arg(format!(
                "mount -t tmpfs -o size={mib}m tmpfs \"$0\" && echo mounted && exec cat"
            ))
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("running unshare: {e}"))?;
        let mut line = String::new();
        let read = BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line);
        if read.is_err() || line.trim() != "mounted" {
            let out = holder.wait_with_output().map_err(|e| e.to_string())?;
            return Err(format!(
                "unshare -rm + mount tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(SmallDisk { holder, dir })
    }

    /// `path` inside the mount, as seen from outside the namespace.
    fn outside(&self, path: &str) -> PathBuf {
        let inner = self.dir.path().strip_prefix("/").unwrap();
        Path::new(&format!("/proc/{}/root", self.holder.id()))
            .join(inner)
            .join(path)
    }

    /// `program` run inside the namespace.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new("nsenter");
        c.args(["-t", &self.holder.id().to_string()])
            .args(["-U", "-m", "--preserve-credentials", "--"])
            .arg(program);
        c
    }

    /// `fulfilld serve` on the mount with `config`.
    async fn serve(&self, config: &Path) -> ChildServer {
        let mut command = self.command(bin());
        command
            .args(serve_command(self.dir.path()).get_args())
            .arg("--config")
            .arg(config)
            .env("RUST_LOG", "warn");
        let outside = self.outside("");
        tokio::task::spawn_blocking(move || ChildServer::spawn_command(command, &outside))
            .await
            .unwrap()
    }

    fn free(&self) -> u64 {
        fulfilld::space::filesystem(&self.outside("")).unwrap().0
    }

    /// Writes a file until `leave` bytes are free.
    fn fill_to(&self, leave: u64) {
        let mut f = std::fs::File::create(self.outside("filler")).unwrap();
        let chunk = vec![0xA5u8; MIB as usize];
        while self.free() > leave + MIB {
            f.write_all(&chunk).unwrap();
        }
        f.sync_all().unwrap();
    }

    /// Writes a file until the file system is full.
    fn fill_up(&self) {
        self.fill_to(0);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.outside("filler"))
            .unwrap();
        let page = [0xA5u8; 4096];
        loop {
            match f.write_all(&page) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling: {e}"),
            }
        }
    }

    fn check(&self) {
        let out = self
            .command(bin())
            .args(["check", "--data-dir"])
            .arg(self.dir.path())
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "check failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Closing its stdin ends `cat`, and with it the namespace and the tmpfs.
        drop(self.holder.stdin.take());
        let _ = self.holder.wait();
    }
}

/// The bootstrap client of a server on the small disk.
struct Api {
    http: reqwest::Client,
    key: String,
    base: String,
}

impl Api {
    fn of(s: &ChildServer) -> Api {
        Api {
            http: s.client(),
            key: s.bootstrap().api_key,
            base: s.base.clone(),
        }
    }

    async fn send(&self, method: Method, path: &str, v: &Value, key: Option<&str>) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("X-API-Key", &self.key);
        if let Some(k) = key {
            req = req.header("Idempotency-Key", k);
        }
        if !v.is_null() {
            req = req.json(v);
        }
        body(req.send().await.unwrap()).await
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(Method::GET, path, &Value::Null, None).await
    }

    async fn order(&self, ext: &str, key: Option<&str>) -> (u16, Value) {
        let v = order_body(ext, json!([{"sku": "DISK-1", "quantity": 1}]));
        self.send(Method::POST, "/api/orders", &v, key).await
    }

    async fn health(&self) -> Value {
        let (status, v) = self.get("/health").await;
        assert_eq!(status, 200, "{v}");
        v
    }

    /// Every acknowledged order answers, and the list counts exactly them.
    async fn assert_orders(&self, acked: &[String]) {
        for id in acked {
            let (status, v) = self.get(&format!("/api/orders/{id}")).await;
            assert_eq!(status, 200, "acknowledged order {id}: {v}");
        }
        let (status, list) = self.get("/api/orders?limit=200").await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["pagination"]["total"], acked.len(), "{list}");
    }
}

/// A small disk, or `None` (the test then passes, saying why) where namespaces are not
/// available and `FULFILLD_REQUIRE_UNSHARE` is not set.
fn small_disk(mib: u64) -> Option<SmallDisk> {
    match SmallDisk::mount(mib) {
        Ok(d) => Some(d),
        Err(why) if std::env::var_os("FULFILLD_REQUIRE_UNSHARE").is_none() => {
            eprintln!("skipping the disk-full test: {why}");
            None
        }
        Err(why) => panic!("FULFILLD_REQUIRE_UNSHARE is set but {why}"),
    }
}

/// A config file outside the small disk (its dir must outlive the servers).
fn config(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fulfilld.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// A product DISK-1 stocked in warehouse W.
async fn catalog(api: &Api) {
    for (path, v) in [
        (
            "/api/products",
            json!({"sku": "DISK-1", "name": "Disk", "price": 5}),
        ),
        ("/api/warehouses", json!({"id": "W", "name": "Main"})),
        (
            "/api/inventory",
            json!({"sku": "DISK-1", "warehouseId": "W", "onHand": 1000}),
        ),
    ] {
        let (status, answer) = api.send(Method::POST, path, &v, None).await;
        assert_eq!(status, 201, "POST {path}: {answer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_with_507_keeps_reads_and_recovers_without_restart() {
    let Some(disk) = small_disk(64) else { return };
    // A 32 MiB reserve on 64 MiB: within twice the reserve every write reads the free
    // space afresh (further away a reading is trusted for a second).
    let (_cfg, config) = config("min_free_space_mb = 32\nauto_pack = false\n");
    let server = disk.serve(&config).await;
    let api = Api::of(&server);
    catalog(&api).await;
    let mut acked = Vec::new();
    for i in 0..20 {
        let (status, v) = api.order(&format!("before-{i}"), None).await;
        assert_eq!(status, 201, "{v}");
        acked.push(v["id"].as_str().unwrap().to_string());
    }
    assert_eq!(api.health().await["status"], "ok");

    // 20 MiB left: below the reserve, far from sled's own ENOSPC.
    disk.fill_to(20 * MIB);
    let (status, v) = api.order("refused", None).await;
    assert_eq!(status, 507, "{v}");
    assert_error(&v, "insufficient_storage", None);
    let (status, v) = api.order("refused-keyed", Some("key-during-full")).await;
    assert_eq!(status, 507, "{v}");
    let (status, v) = api
        .send(
            Method::POST,
            "/api/products",
            &json!({"sku": "NEW", "name": "New", "price": 1}),
            None,
        )
        .await;
    assert_eq!(status, 507, "{v}");
    let cancel = format!("/api/orders/{}/cancel", acked[0]);
    let (status, v) = api.send(Method::POST, &cancel, &json!({}), None).await;
    assert_eq!(status, 507, "{v}");
    // Reads keep working and show exactly the acknowledged orders.
    api.assert_orders(&acked).await;
    let (status, _) = api.get("/api/products").await;
    assert_eq!(status, 200);
    let health = api.health().await;
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["storage"]["status"], "low_space", "{health}");
    assert!(
        health["reason"]
            .as_str()
            .unwrap()
            .contains("min_free_space_mb"),
        "{health}"
    );

    // Space freed: writes work again at once, same process.
    std::fs::remove_file(disk.outside("filler")).unwrap();
    let (status, v) = api.order("after-free", None).await;
    assert_eq!(status, 201, "{v}");
    acked.push(v["id"].as_str().unwrap().to_string());
    // The keyed request refused for space was not stored: the same key now creates.
    let (status, v) = api.order("refused-keyed", Some("key-during-full")).await;
    assert_eq!(status, 201, "{v}");
    acked.push(v["id"].as_str().unwrap().to_string());
    assert_eq!(api.health().await["status"], "ok");
    api.assert_orders(&acked).await;

    // Nothing acknowledged is lost across a restart, and the database is consistent.
    assert!(server.terminate().success());
    disk.check();
    let server = disk.serve(&config).await;
    Api::of(&server).assert_orders(&acked).await;
}

/// Without the reserve, sled itself meets the full disk: the write that hit it gets 507
/// and is not acknowledged, reads go on, `/health` says degraded; sled keeps the failure
/// until reopened, so writes resume after a restart with space freed, and every order
/// acknowledged before is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_reserve_a_full_disk_loses_nothing_acknowledged() {
    let Some(disk) = small_disk(48) else { return };
    let (_cfg, config) = config("min_free_space_mb = 0\nauto_pack = false\n");
    let server = disk.serve(&config).await;
    let api = Api::of(&server);
    catalog(&api).await;
    let mut acked = Vec::new();
    for i in 0..5 {
        let (status, v) = api.order(&format!("before-{i}"), None).await;
        assert_eq!(status, 201, "{v}");
        acked.push(v["id"].as_str().unwrap().to_string());
    }
    disk.fill_up();
    let mut refused = None;
    for i in 0..2000 {
        let (status, v) = api.order(&format!("filling-{i}"), None).await;
        match status {
            201 => acked.push(v["id"].as_str().unwrap().to_string()),
            _ => {
                refused = Some((status, v));
                break;
            }
        }
    }
    let (status, v) = refused.expect("the disk filled within 2000 orders");
    assert_eq!(status, 507, "{v}");
    assert_error(&v, "insufficient_storage", None);
    let health = api.health().await;
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["storage"]["status"], "failed", "{health}");
    for id in &acked {
        let (status, v) = api.get(&format!("/api/orders/{id}")).await;
        assert_eq!(status, 200, "acknowledged order {id}: {v}");
    }

    std::fs::remove_file(disk.outside("filler")).unwrap();
    let (status, v) = api.order("after-free", None).await;
    assert_eq!(status, 507, "sled holds the failure until reopened: {v}");
    server.terminate();
    disk.check();
    let server = disk.serve(&config).await;
    let api = Api::of(&server);
    for id in &acked {
        let (status, v) = api.get(&format!("/api/orders/{id}")).await;
        assert_eq!(
            status, 200,
            "acknowledged order {id} after the restart: {v}"
        );
    }
    let (status, v) = api.order("after-restart", None).await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(api.health().await["status"], "ok");
}
