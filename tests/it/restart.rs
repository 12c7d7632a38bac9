//! Restarts of the real binary: a clean stop leaves an order index snapshot that the next
//! start loads, and `q` search and status pages answer exactly as before; a snapshot that
//! no longer matches the database (written to since, an older copy, damaged, after a
//! kill -9) is rebuilt from storage with the same answers. `fulfilld_index_load_info`
//! says which way each start went.

use std::path::PathBuf;

use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{admin, Crashable};

/// A server without the background packer, so statuses change only when the test asks.
async fn start() -> (Crashable, tempfile::TempDir) {
    let conf = tempfile::tempdir().unwrap();
    let path = conf.path().join("config.toml");
    std::fs::write(&path, "auto_pack = false\n").unwrap();
    let c = Crashable::start(&["--config", path.to_str().unwrap()]).await;
    (c, conf)
}

fn snapshot(c: &Crashable) -> PathBuf {
    fulfilld::index_snapshot::path(c.dir.path())
}

/// Orders in every way the index follows: created, cancelled, packed, e-mail changed.
async fn seed(c: &Crashable, prefix: &str, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..n {
        let order = json!({"externalId": format!("{prefix}-{i}"),
            "customerEmail": format!("buyer{i}@example.com"), "customerId": format!("C-{}", i % 4),
            "items": [{"sku": "MUG", "quantity": 1 + i % 3}],
            "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "postalCode": "89501", "country": "US"}]});
        let v = c.create("/api/orders", &order).await;
        let id = v["id"].as_str().unwrap().to_string();
        let (status, answer) = match i % 6 {
            1 => {
                c.post(
                    &format!("/api/orders/{id}/cancel"),
                    &json!({"reason": "test"}),
                )
                .await
            }
            2 => {
                c.post(&format!("/api/orders/{id}/pack"), &Value::Null)
                    .await
            }
            3 => {
                let patch = json!({"customerEmail": format!("new{i}@mail.test")});
                c.send(Method::PATCH, &format!("/api/orders/{id}"), &patch)
                    .await
            }
            _ => (200, Value::Null),
        };
        assert_eq!(status, 200, "order {i}: {answer}");
        ids.push(id);
    }
    ids
}

async fn catalog(c: &Crashable) {
    c.mug_catalog(json!(9.5), 100000).await;
}

/// What `q` search and the status pages answer, whole.
async fn answers(c: &Crashable, some_id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let id_part = &some_id[..8];
    for query in [
        "limit=100".to_string(),
        "status=pending&limit=7&offset=3".into(),
        "status=cancelled&limit=100".into(),
        "status=processing&limit=100".into(),
        "q=shop-1&limit=100".into(),
        "q=MAIL.TEST&limit=100".into(),
        "q=c-2&limit=5&offset=2".into(),
        "q=buyer1&status=pending&limit=100".into(),
        format!("q={id_part}&limit=100"),
    ] {
        let (status, v) = c
            .send(Method::GET, &format!("/api/orders?{query}"), &Value::Null)
            .await;
        assert_eq!(status, 200, "{query}: {v}");
        out.push(v);
    }
    out
}

/// `source/reason` of `fulfilld_index_load_info`, e.g. `snapshot/none`.
async fn index_source(c: &Crashable) -> String {
    let text = c
        .http
        .get(c.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("fulfilld_index_load_info{") && l.ends_with(" 1"))
        .unwrap_or_else(|| panic!("no index_load_info in {text}"));
    let label = |name: &str| {
        let start = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        line[start..].split('"').next().unwrap().to_string()
    };
    format!("{}/{}", label("source"), label("reason"))
}

/// Damage done to a snapshot file's bytes.
type Harm = fn(&mut Vec<u8>);

fn stop(c: &mut Crashable) {
    assert!(c.terminate().success(), "a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_stop_leaves_a_snapshot_the_next_start_loads_with_the_same_answers() {
    let (mut c, _conf) = start().await;
    assert_eq!(index_source(&c).await, "rebuild/no_file");
    catalog(&c).await;
    let ids = seed(&c, "SHOP", 30).await;
    let before = answers(&c, &ids[5]).await;
    assert!(
        before[4]["orders"].as_array().unwrap().len() > 5,
        "the sample matches"
    );
    stop(&mut c);
    assert!(snapshot(&c).exists(), "a clean stop writes the snapshot");

    c.restart().await;
    assert_eq!(index_source(&c).await, "snapshot/none");
    assert_eq!(answers(&c, &ids[5]).await, before);
    assert!(!snapshot(&c).exists(), "a loaded snapshot is removed");

    // The loaded index keeps following writes.
    let more = seed(&c, "SHOP-1x", 6).await;
    let after = answers(&c, &ids[5]).await;
    assert_ne!(after, before);
    let (_, found) = c
        .send(Method::GET, "/api/orders?q=shop-1x-5", &Value::Null)
        .await;
    assert_eq!(found["orders"][0]["id"], more[5].as_str());
    stop(&mut c);
    c.restart().await;
    assert_eq!(index_source(&c).await, "snapshot/none");
    assert_eq!(answers(&c, &ids[5]).await, after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_that_no_longer_matches_is_rebuilt_with_the_same_answers() {
    let (mut c, _conf) = start().await;
    catalog(&c).await;
    let ids = seed(&c, "SHOP", 24).await;
    stop(&mut c);
    let older = std::fs::read(snapshot(&c)).unwrap();

    // An older copy of the snapshot put back after the database moved on.
    c.restart().await;
    seed(&c, "LATE", 3).await;
    let expected = answers(&c, &ids[0]).await;
    stop(&mut c);
    std::fs::write(snapshot(&c), &older).unwrap();
    c.restart().await;
    assert_eq!(index_source(&c).await, "rebuild/stale");
    assert_eq!(answers(&c, &ids[0]).await, expected);
    assert!(!snapshot(&c).exists(), "a rejected snapshot is removed too");

    // A write while the server is down (an offline admin command) unseals the store.
    stop(&mut c);
    let dir = c.dir.path().to_str().unwrap().to_string();
    let (ok, _) = admin(&["clients", "create", "--name", "x", "--data-dir", &dir]);
    assert!(ok);
    c.restart().await;
    assert_eq!(index_source(&c).await, "rebuild/not_sealed");
    assert_eq!(answers(&c, &ids[0]).await, expected);

    // Damaged files: cut short, one byte flipped, not a snapshot at all.
    let damage: [(&str, Harm); 3] = [
        ("truncated", |b| b.truncate(b.len() - 9)),
        ("flipped", |b| {
            let at = b.len() / 2;
            b[at] ^= 0x40;
        }),
        ("foreign", |b| b[..8].copy_from_slice(b"NOTASNAP")),
    ];
    for (what, harm) in damage {
        stop(&mut c);
        let mut bytes = std::fs::read(snapshot(&c)).unwrap();
        harm(&mut bytes);
        std::fs::write(snapshot(&c), &bytes).unwrap();
        c.restart().await;
        assert_eq!(index_source(&c).await, "rebuild/damaged", "{what}");
        assert_eq!(answers(&c, &ids[0]).await, expected, "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_kill_9_the_index_is_rebuilt_with_every_acknowledged_order() {
    let (mut c, _conf) = start().await;
    catalog(&c).await;
    let ids = seed(&c, "SHOP", 18).await;
    stop(&mut c);
    let sealed = std::fs::read(snapshot(&c)).unwrap();
    c.restart().await;
    assert_eq!(index_source(&c).await, "snapshot/none");
    seed(&c, "AFTER", 4).await;
    let expected = answers(&c, &ids[0]).await;
    c.kill9();
    // Even the snapshot the crashed server started from, put back, is not used: its
    // first write removed the seal.
    std::fs::write(snapshot(&c), &sealed).unwrap();
    c.restart().await;
    assert_eq!(index_source(&c).await, "rebuild/not_sealed");
    assert_eq!(answers(&c, &ids[0]).await, expected);
    c.kill9();
    c.restart().await;
    assert_eq!(index_source(&c).await, "rebuild/no_file");
    assert_eq!(answers(&c, &ids[0]).await, expected);
}
