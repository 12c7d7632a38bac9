//! Operations through the real binary: an online backup while writers create orders
//! restores every order acknowledged before it began and passes `check`; a backup killed
//! mid-write leaves no complete-looking file; damaged and foreign files are refused with
//! nothing written; an older schema migrates on first start; `check` finds planted
//! inconsistencies (order histories too); scheduled backups rotate, and the newest
//! complete one is the last backup after a restart; closed pipes and newer schemas.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use storage::tables::{Inventory, Meta, OrdersByExternalId};
use storage::{Abort, Store};

use crate::support::{assert_check_passes, bin, ChildServer, Server};

fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run fulfilld")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// `fulfilld backup` of `data` into `file`, running (its output is not read).
fn start_backup(data: &Path, file: &Path) -> std::process::Child {
    Command::new(bin())
        .args(["backup", "--data-dir", path(data), "--out", path(file)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until the backup has written into `partial`, while `backup` still runs (polled:
/// a file growing sends no signal).
fn wait_until_writing(partial: &Path, backup: &mut std::process::Child) {
    while !std::fs::metadata(partial).is_ok_and(|m| m.len() > 0) {
        assert!(
            backup.try_wait().unwrap().is_none(),
            "the backup ended before the kill"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn order(ext: &str) -> Value {
    json!({"externalId": ext, "customerEmail": "ann@example.com", "items": [{"sku": "MUG", "quantity": 1}],
           "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "postalCode": "89501", "country": "US"}]})
}

async fn catalog(s: &Server) {
    s.subscribe_all().await;
    let (st, v) = s
        .post(
            "/api/products",
            &json!({"sku": "MUG", "name": "Mug", "price": 2}),
        )
        .await;
    assert_eq!(st, 201, "{v}");
    for wh in ["A", "B"] {
        let (st, _) = s
            .post("/api/warehouses", &json!({"id": wh, "name": wh}))
            .await;
        assert_eq!(st, 201);
        let (st, _) = s
            .post(
                "/api/inventory",
                &json!({"sku": "MUG", "warehouseId": wh, "onHand": 1_000_000}),
            )
            .await;
        assert_eq!(st, 201);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_online_backup_while_orders_are_created_restores_every_order_acknowledged_before_it() {
    let s = Server::start().await;
    catalog(&s).await;
    let acked: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (enough_tx, mut enough_rx) = tokio::sync::mpsc::channel::<()>(1);
    let mut writers = Vec::new();
    for w in 0..8 {
        let (http, url, key) = (
            s.http.clone(),
            s.url("/api/orders"),
            s.creds.api_key.clone(),
        );
        let (acked, stop, enough) = (acked.clone(), stop.clone(), enough_tx.clone());
        writers.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let ext = format!("B-{w}-{i}");
                i += 1;
                let r = http
                    .post(&url)
                    .header("X-API-Key", &key)
                    .json(&order(&ext))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 201);
                let v: Value = r.json().await.unwrap();
                let mut a = acked.lock().unwrap();
                a.push((ext, v["id"].as_str().unwrap().to_string()));
                if a.len() == 100 {
                    let _ = enough.try_send(());
                }
            }
        }));
    }
    drop(enough_tx);
    enough_rx.recv().await.unwrap();
    // A small database backs up in milliseconds, so on a loaded machine one backup may
    // begin and end between two acknowledgements; take backups until one overlaps writes
    // that were served meanwhile (each is checked the same way; the overlapping one is kept).
    let backups = tempfile::tempdir().unwrap();
    let mut overlapped = None;
    for attempt in 0..20 {
        let before: Vec<(String, String)> = acked.lock().unwrap().clone();
        let file = backups.path().join(format!("live-{attempt}.backup"));
        let out = {
            let (dir, file) = (s.dir.path().to_path_buf(), file.clone());
            tokio::task::spawn_blocking(move || {
                run(&["backup", "--data-dir", path(&dir), "--out", path(&file)])
            })
            .await
            .unwrap()
        };
        let during = acked.lock().unwrap().len();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            report["schema_version"].as_u64(),
            Some(u64::from(storage::SCHEMA_VERSION))
        );
        if during > before.len() {
            overlapped = Some((before, file));
            break;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    let (before, file) = overlapped.expect("writes were served while a backup ran");
    // An online backup counts as the last successful backup for the "backup too old" alert.
    let metrics = s.http.get(s.url("/metrics")).send().await.unwrap();
    let text = metrics.text().await.unwrap();
    let last: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("fulfilld_last_backup_timestamp_seconds "))
        .expect("the last-backup gauge is exported")
        .parse()
        .unwrap();
    assert!(
        last > 0.0,
        "an online backup moves the last-backup time: {last}"
    );
    // And /health, which the console's dashboard shows, reports it.
    let health = s.get_ok("/health").await;
    let b = &health["backups"];
    assert_eq!(b["lastResult"], "succeeded", "{health}");
    assert!(b["lastSuccessAt"].as_str().unwrap().ends_with('Z'), "{b}");
    assert_eq!(b["lastFailureAt"], Value::Null);
    assert_eq!(b["scheduled"], false);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the backup holds keys");

    let restored = tempfile::tempdir().unwrap();
    let target = restored.path().join("data");
    let out = run(&[
        "restore",
        "--from",
        path(&file),
        "--data-dir",
        path(&target),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_check_passes(&target);
    {
        let store = Store::open(&target.join("db"), &Default::default()).unwrap();
        for (ext, _) in &before {
            assert!(
                store.get::<OrdersByExternalId>(ext).unwrap().is_some(),
                "acknowledged {ext} missing from the backup"
            );
        }
    }
    // The restored server serves them, with the original keys and clients.
    let server = ChildServer::spawn(&target, &[]);
    assert_eq!(
        std::fs::read(target.join("tls/cert.pem")).unwrap(),
        std::fs::read(s.dir.path().join("tls/cert.pem")).unwrap()
    );
    let http = server.client();
    for (_, id) in before.iter().step_by(10) {
        let r = http
            .get(server.url(&format!("/api/orders/{id}")))
            .header("X-API-Key", &s.creds.api_key)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "order {id}");
    }
}

/// A data dir with about 20 MB of outbox events, so a backup takes a while.
fn big_data_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = fulfilld::open_store(&crate::support::test_config(dir.path())).unwrap();
    let blob = "x".repeat(100_000);
    for i in 0..200 {
        store
            .transact(|tx| {
                tx.emit(storage::NewEvent {
                    id: format!("evt_{i}"),
                    kind: "test.blob".into(),
                    timestamp: "2026-01-01T00:00:00Z".into(),
                    data_json: blob.clone(),
                })?;
                Ok::<_, Abort<()>>(())
            })
            .unwrap();
    }
    store.flush().unwrap();
    dir
}

#[test]
fn a_backup_killed_mid_write_leaves_no_file_that_looks_complete() {
    let data = big_data_dir();
    let backups = tempfile::tempdir().unwrap();
    let file = backups.path().join("killed.backup");
    let partial = fulfilld::ops::backup::partial_path(&file);
    let mut child = start_backup(data.path(), &file);
    // Kill -9 the backup itself once it is writing.
    wait_until_writing(&partial, &mut child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !file.exists(),
        "a killed backup must not have its final name"
    );
    let target = backups.path().join("restored");
    let out = run(&[
        "restore",
        "--from",
        path(&partial),
        "--data-dir",
        path(&target),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated"), "{err}");
    assert!(!target.exists());
    // A later backup to the same name completes and replaces the leftover.
    let out = run(&[
        "backup",
        "--data-dir",
        path(data.path()),
        "--out",
        path(&file),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!partial.exists());
    fulfilld::ops::restore::verify(&file).unwrap();
}

#[test]
fn a_server_killed_during_an_online_backup_leaves_no_file_that_looks_complete() {
    let data = big_data_dir();
    let server = ChildServer::spawn(data.path(), &[]);
    let backups = tempfile::tempdir().unwrap();
    let file = backups.path().join("online.backup");
    let partial = fulfilld::ops::backup::partial_path(&file);
    let mut cli = start_backup(data.path(), &file);
    // The server writes the file; kill -9 it once it is writing.
    wait_until_writing(&partial, &mut cli);
    server.kill9();
    assert!(
        !cli.wait().unwrap().success(),
        "the CLI reports the lost backup"
    );
    assert!(
        !file.exists(),
        "a killed backup must not have its final name"
    );
    let err = fulfilld::ops::restore::verify(&partial).unwrap_err();
    assert!(format!("{err:#}").contains("truncated"), "{err:#}");
}

/// A small but complete backup of a server with one order.
async fn small_backup(dir: &Path) -> (PathBuf, Server) {
    let s = Server::start().await;
    catalog(&s).await;
    let (st, _) = s.post("/api/orders", &order("ONE")).await;
    assert_eq!(st, 201);
    let file = dir.join("small.backup");
    let out = {
        let (d, f) = (s.dir.path().to_path_buf(), file.clone());
        tokio::task::spawn_blocking(move || {
            run(&["backup", "--data-dir", path(&d), "--out", path(&f)])
        })
        .await
        .unwrap()
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (file, s)
}

#[tokio::test]
async fn corrupt_truncated_and_foreign_files_are_refused_with_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (file, _server) = small_backup(tmp.path()).await;
    let good = std::fs::read(&file).unwrap();
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0x40;
    let mut version = good.clone();
    version[16..20].copy_from_slice(&99u32.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", Vec::new(), "not a fulfilld backup"),
        (
            "foreign",
            b"PK\x03\x04 a zip file, not ours at all".to_vec(),
            "not a fulfilld backup",
        ),
        ("magic only", good[..16].to_vec(), "truncated"),
        ("half", good[..mid].to_vec(), "truncated"),
        (
            "last byte gone",
            good[..good.len() - 1].to_vec(),
            "truncated",
        ),
        ("flipped byte", flipped, "corrupt"),
        ("future format", version, "format version 99"),
        (
            "trailing bytes",
            [good.clone(), b"junk".to_vec()].concat(),
            "follow the end marker",
        ),
    ];
    for (name, bytes, expected) in cases {
        let bad = tmp.path().join(format!("{name}.backup"));
        std::fs::write(&bad, &bytes).unwrap();
        let target = tmp.path().join(format!("restore-{name}"));
        let out = run(&["restore", "--from", path(&bad), "--data-dir", path(&target)]);
        assert!(!out.status.success(), "{name} was restored");
        let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert!(
            err.contains(expected) || (expected == "corrupt" && err.contains("checksum mismatch")),
            "{name}: {err}"
        );
        assert!(!target.exists(), "{name}: something was written");
        let staging: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".restoring"))
            .collect();
        assert!(staging.is_empty(), "{name}: a staging dir was left");
    }
    // A non-empty target is refused and left alone, even with a good file.
    let busy = tmp.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("keep.txt"), b"mine").unwrap();
    let out = run(&["restore", "--from", path(&file), "--data-dir", path(&busy)]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
    assert_eq!(std::fs::read_dir(&busy).unwrap().count(), 1);
}

type Entries = BTreeMap<Vec<u8>, Vec<u8>>;

/// Rewrites a backup through `edit` (entries per table), recomputing its checksum.
fn rewrite(
    from: &Path,
    to: &Path,
    header: impl Fn(&mut fulfilld::ops::archive::Header),
    edit: impl Fn(&str, &mut BTreeMap<Vec<u8>, Vec<u8>>),
) {
    use fulfilld::ops::archive::{read, Item, Writer};
    let mut head = None;
    let mut files = Vec::new();
    let mut tables: Vec<(String, Entries)> = Vec::new();
    read(from, &mut |item| {
        match item {
            Item::Header(h) => head = Some(h.clone()),
            Item::File { name, bytes } => files.push((name.to_string(), bytes.to_vec())),
            Item::Table(name) => tables.push((name.to_string(), BTreeMap::new())),
            Item::Entry { key, value } => {
                tables
                    .last_mut()
                    .unwrap()
                    .1
                    .insert(key.to_vec(), value.to_vec());
            }
        }
        Ok(())
    })
    .unwrap();
    let mut head = head.unwrap();
    header(&mut head);
    let mut w = Writer::new(std::fs::File::create(to).unwrap()).unwrap();
    w.header(&head).unwrap();
    for (name, bytes) in &files {
        w.file(name, bytes).unwrap();
    }
    for (name, mut entries) in tables {
        edit(&name, &mut entries);
        w.table(&name).unwrap();
        for (k, v) in entries {
            w.entry(&k, &v).unwrap();
        }
    }
    w.finish().unwrap();
}

fn meta_key(k: &str) -> Vec<u8> {
    storage::keys::Key::encode(&k.to_string())
}

#[tokio::test]
async fn a_backup_of_an_older_schema_restores_and_is_migrated_on_first_start() {
    let tmp = tempfile::tempdir().unwrap();
    let (file, _server) = small_backup(tmp.path()).await;
    // Schema 4 had no per-kind counts of wanting subscriptions (5 added them).
    let old = tmp.path().join("schema4.backup");
    rewrite(
        &file,
        &old,
        |h| h.schema_version = 4,
        |table, entries| {
            if table == "meta" {
                entries.retain(|k, _| !k.starts_with(&meta_key("webhooks_wanting:")[..17]));
                let mut four = vec![1u8];
                four.extend(bincode_u64(4));
                entries.insert(meta_key("schema_version"), four);
            }
        },
    );
    let target = tmp.path().join("data");
    let out = run(&["restore", "--from", path(&old), "--data-dir", path(&target)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["migrates_on_start"], true, "{report}");
    let server = ChildServer::spawn(&target, &[]);
    assert_eq!(server.terminate().code(), Some(0));
    let store = Store::open(&target.join("db"), &Default::default()).unwrap();
    assert_eq!(
        store.get::<Meta>(&"schema_version".to_string()).unwrap(),
        Some(u64::from(storage::SCHEMA_VERSION))
    );
    assert!(
        store
            .get::<Meta>(&storage::wanted_kind_key("order.created"))
            .unwrap()
            .is_some(),
        "the migration counted the subscription's kinds"
    );
    drop(store);
    assert_check_passes(&target);
}

/// bincode 2's standard varint encoding of a small u64, as `codec` writes it.
fn bincode_u64(n: u64) -> Vec<u8> {
    assert!(n < 251);
    vec![n as u8]
}

/// A server with the catalog and one order `ext`, stopped so its store can be planted in
/// before `check` runs; the created order's JSON.
async fn stopped_with_one_order(ext: &str) -> (Server, Value) {
    let mut s = Server::start().await;
    catalog(&s).await;
    let (st, created) = s.post("/api/orders", &order(ext)).await;
    assert_eq!(st, 201);
    s.signal_stop();
    s.join().await.unwrap();
    (s, created)
}

#[tokio::test]
async fn check_reports_planted_inconsistencies_and_exits_non_zero() {
    let (s, _) = stopped_with_one_order("PLANT").await;
    let dir = s.dir.path().to_path_buf();
    let store = s.store.clone();
    let inv = store.iter::<Inventory>().next().unwrap().unwrap().1;
    store
        .transact(|tx| {
            let mut rec = inv.clone();
            rec.reserved += 1;
            tx.insert::<Inventory>(&rec.id, &rec)?;
            tx.remove::<OrdersByExternalId>(&"PLANT".to_string())?;
            tx.insert::<Meta>(&"orders".to_string(), &7)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    store.flush().unwrap();
    drop(store);
    drop(s.store);
    let out = tokio::task::spawn_blocking(move || run(&["check", "--data-dir", path(&dir)]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    let problems: Vec<String> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    let has = |s: &str| problems.iter().any(|p| p.contains(s));
    assert!(has("orders_by_external_id"), "{problems:?}");
    assert!(has("\"orders\" is 7"), "{problems:?}");
    assert!(has("the open orders hold"), "{problems:?}");
    assert!(has("audit trail"), "{problems:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduled_backups_rotate_and_a_failing_one_is_counted_without_stopping() {
    use fulfilld::config::BackupSchedule;
    use fulfilld::ops::schedule::{listed, run as schedule, Status};
    use std::sync::atomic::Ordering;
    let data = tempfile::tempdir().unwrap();
    let store = fulfilld::open_store(&crate::support::test_config(data.path())).unwrap();
    let backups = tempfile::tempdir().unwrap();
    let plan = BackupSchedule {
        dir: backups.path().join("scheduled"),
        interval: std::time::Duration::from_millis(20),
        keep: 2,
    };
    let (trigger, signal) = fulfilld::shutdown::channel();
    let status = Arc::new(Status::default());
    let task = tokio::spawn(schedule(
        store.clone(),
        data.path().to_path_buf(),
        plan.clone(),
        status.clone(),
        signal.clone(),
    ));
    let mut attempts = status.attempts();
    attempts.wait_for(|n| *n >= 4).await.unwrap();
    trigger.fire();
    task.await.unwrap();
    assert_eq!(status.failed.load(Ordering::Relaxed), 0);
    assert!(status.succeeded.load(Ordering::Relaxed) >= 4);
    assert!(status.last_success_unix.load(Ordering::Relaxed) > 0);
    assert_eq!(status.last_failure_unix.load(Ordering::Relaxed), 0);
    let kept = listed(&plan.dir).unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    for f in &kept {
        fulfilld::ops::restore::verify(f).unwrap();
    }

    // A backup_dir that cannot be created: counted, logged, and the schedule goes on.
    let blocked = backups.path().join("a-file");
    std::fs::write(&blocked, b"not a dir").unwrap();
    let failing = BackupSchedule {
        dir: blocked.join("sub"),
        ..plan
    };
    let (trigger, signal) = fulfilld::shutdown::channel();
    let status = Arc::new(Status::default());
    let task = tokio::spawn(schedule(
        store.clone(),
        data.path().to_path_buf(),
        failing,
        status.clone(),
        signal,
    ));
    status.attempts().wait_for(|n| *n >= 2).await.unwrap();
    trigger.fire();
    task.await.unwrap();
    assert_eq!(status.failed.load(Ordering::Relaxed), 2);
    assert!(status.last_error.lock().unwrap().is_some());
    assert!(status.last_failure_unix.load(Ordering::Relaxed) > 0);
    store.check().unwrap();
}

/// Runs the binary with a stdout whose reading end is already closed.
fn with_closed_stdout(args: &[&str]) -> Output {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills two new descriptors we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Command::new(bin())
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .expect("run fulfilld")
}

#[test]
fn every_subcommand_exits_quietly_on_a_closed_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let data = path(dir.path());
    let file = dir.path().join("b.backup");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["clients", "list", "--data-dir", data],
        vec!["backup", "--data-dir", data, "--out", path(&file)],
        vec!["check", "--data-dir", data],
        vec!["restore", "--help"],
    ];
    for args in cases {
        let out = with_closed_stdout(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    // Unknown words still fail, with their message on stderr.
    let out = with_closed_stdout(&["nonsense"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unrecognized"));
}

fn file_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(file_bytes(&p));
        } else {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}

#[test]
fn a_database_from_a_newer_schema_is_refused_at_start_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = fulfilld::open_store(&crate::support::test_config(dir.path())).unwrap();
        store
            .transact(|tx| {
                tx.insert::<Meta>(&"schema_version".to_string(), &99)?;
                Ok::<_, Abort<()>>(())
            })
            .unwrap();
        store.flush().unwrap();
    }
    // As a newer binary leaves it.
    std::fs::write(dir.path().join("db/fulfilld-schema"), "99\n").unwrap();
    let before = file_bytes(dir.path());
    let out = run(&[
        "serve",
        "--data-dir",
        path(dir.path()),
        "--listen",
        "127.0.0.1:0",
        "--packing-listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("schema version 99 is newer than this binary supports"),
        "{err}"
    );
    assert!(
        file_bytes(dir.path()) == before,
        "the refused data dir was modified"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("b.backup");
    let out = run(&[
        "backup",
        "--data-dir",
        path(dir.path()),
        "--out",
        path(&file),
    ]);
    assert!(!out.status.success(), "backup opened a newer schema");
    assert!(!file.exists());
    let out = run(&["check", "--data-dir", path(dir.path())]);
    assert!(!out.status.success(), "check opened a newer schema");
    assert!(
        file_bytes(dir.path()) == before,
        "a refused command modified the data dir"
    );
}

/// A backup file with `created_at`, complete or cut before its end marker.
fn planted_backup(path: &Path, created_at: &str, complete: bool) {
    use fulfilld::ops::archive::{Header, Writer};
    let mut w = Writer::new(Vec::new()).unwrap();
    w.header(&Header {
        fulfilld_version: "0.0.0".into(),
        schema_version: 1,
        next_id: 1,
        created_at: created_at.into(),
    })
    .unwrap();
    w.table("orders").unwrap();
    w.entry(b"k", b"v").unwrap();
    let (mut bytes, _, _) = w.finish().unwrap();
    if !complete {
        bytes.truncate(bytes.len() - 10);
    }
    std::fs::write(path, bytes).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_complete_scheduled_backup_is_still_in_health_after_a_restart() {
    use fulfilld::config::BackupSchedule;
    use fulfilld::ops::schedule::{listed, run as schedule, Status};
    let data = tempfile::tempdir().unwrap();
    let backups = tempfile::tempdir().unwrap();
    let plan = BackupSchedule {
        dir: backups.path().to_path_buf(),
        interval: std::time::Duration::from_millis(20),
        keep: 3,
    };
    // The first life: one scheduled backup, then the process ends.
    {
        let store = fulfilld::open_store(&crate::support::test_config(data.path())).unwrap();
        let (trigger, signal) = fulfilld::shutdown::channel();
        let status = Arc::new(Status::default());
        let task = tokio::spawn(schedule(
            store.clone(),
            data.path().to_path_buf(),
            plan.clone(),
            status.clone(),
            signal,
        ));
        status.attempts().wait_for(|n| *n >= 1).await.unwrap();
        trigger.fire();
        task.await.unwrap();
    }
    let taken = listed(&plan.dir).unwrap();
    let real = taken.last().expect("a scheduled backup").clone();
    let created = fulfilld::ops::restore::verify(&real)
        .unwrap()
        .header
        .created_at;
    // Newer-looking files that must not count: cut before its end marker, foreign bytes,
    // a complete file under a temporary name.
    let dir = &plan.dir;
    planted_backup(
        &dir.join("fulfilld-20990101T000000.000000Z.backup"),
        "2099-01-01T00:00:00Z",
        false,
    );
    std::fs::write(
        dir.join("fulfilld-20980101T000000.000000Z.backup"),
        b"FULFILLD-BACKUP\nnot really",
    )
    .unwrap();
    planted_backup(
        &dir.join(".fulfilld-20970101T000000.000000Z.backup.partial"),
        "2097-01-01T00:00:00Z",
        true,
    );
    // A complete file whose name sorts newest but whose header is old: its header decides.
    planted_backup(
        &dir.join("fulfilld-20960101T000000.000000Z.backup"),
        "2001-01-01T00:00:00Z",
        true,
    );

    // The restart: a server with the same backup_dir and an interval that does not come.
    let s = Server::start_with(|c| {
        c.backups = Some(BackupSchedule {
            interval: std::time::Duration::from_secs(3600),
            ..plan.clone()
        })
    })
    .await;
    let health = s.get_ok("/health").await;
    let b = &health["backups"];
    assert_eq!(b["scheduled"], true, "{health}");
    assert_eq!(b["lastResult"], "succeeded", "{health}");
    assert_eq!(b["lastFailureAt"], Value::Null, "{health}");
    // /health shows whole seconds; the header has milliseconds.
    let shown = b["lastSuccessAt"].as_str().expect("a last success");
    assert_eq!(
        shown.trim_end_matches('Z'),
        &created[..19],
        "{b} vs {created}"
    );

    // With only damaged or temporary files left, there is no last backup. (A loaded
    // machine may have let the 20 ms schedule take a second one before the shutdown.)
    for taken in &taken {
        std::fs::remove_file(taken).unwrap();
    }
    std::fs::remove_file(dir.join("fulfilld-20960101T000000.000000Z.backup")).unwrap();
    assert_eq!(fulfilld::ops::schedule::newest_complete(dir), None);
}

#[tokio::test]
async fn check_reports_a_stray_order_history_entry() {
    use storage::tables::OrderEvents;
    let (s, created) = stopped_with_one_order("HIST").await;
    let dir = s.dir.path().to_path_buf();
    // The order's own entry is copied under wrong keys; it alone raises nothing.
    let order_id = uuid::Uuid::parse_str(created["id"].as_str().unwrap())
        .unwrap()
        .as_u128();
    let (_, real) = s
        .store
        .scan_prefix::<OrderEvents>(&order_id.to_be_bytes())
        .next()
        .expect("the order has a history")
        .unwrap();
    let stray_order = uuid::Uuid::now_v7().as_u128();
    let not_v7 = uuid::Uuid::new_v4().as_u128();
    s.store
        .transact(|tx| {
            tx.insert::<OrderEvents>(&(stray_order, uuid::Uuid::now_v7().as_u128()), &real)?;
            tx.insert::<OrderEvents>(&(order_id, not_v7), &real)?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    s.store.flush().unwrap();
    drop(s.store);
    let out = tokio::task::spawn_blocking(move || run(&["check", "--data-dir", path(&dir)]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    // The order's own entries and the two planted ones were all read.
    assert!(
        report["records"]["order_events"].as_u64().unwrap() >= 3,
        "{report}"
    );
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{report}");
    let stray = uuid::Uuid::from_u128(stray_order).to_string();
    let has = |end: &str, id: &str| {
        problems.iter().any(|p| {
            let p = p.as_str().unwrap();
            p.starts_with("order_events[") && p.contains(id) && p.ends_with(end)
        })
    };
    assert!(has("no such order", &stray), "{report}");
    let not_v7 = uuid::Uuid::from_u128(not_v7).to_string();
    assert!(has("not a UUIDv7", &not_v7), "{report}");
}
