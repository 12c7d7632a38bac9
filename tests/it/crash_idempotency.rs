//! Idempotency across crashes: a careful client retries every `Idempotency-Key`
//! adjustment and ship (same key, same body) across kill -9 and across crashes between a
//! change and its stored response (the test-only `FULFILLD_TEST_CRASH_AFTER_CHANGE`
//! hook), and the levels, the audit trail and the packages show every request applied
//! exactly once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::{json, Value};
use storage::tables::InventoryAudit;
use tokio::sync::mpsc;

use crate::support::{boxes, packable_order_body, Crashable};

const HOOK: &str = "FULFILLD_TEST_CRASH_AFTER_CHANGE";
const ON_HAND: i64 = 1000;
const ORDERS: usize = 8;
const ADJUSTMENTS: usize = 40;
const WORKERS: usize = 4;
/// Acknowledged requests per kill -9 cycle before the kill.
const ACKS_PER_KILL: usize = 6;

#[derive(Clone, Debug)]
enum Kind {
    Adjust { delta: i64, reason: String },
    Ship { pkg: String, units: i64 },
}

#[derive(Clone, Debug)]
struct Op {
    key: String,
    kind: Kind,
}

/// What a request was finally answered.
struct Answer {
    status: u16,
    body: Value,
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
    api_key: String,
    inventory_id: String,
}

impl Client {
    fn of(c: &Crashable, inventory_id: &str) -> Client {
        Client {
            http: c.http.clone(),
            base: c.server().base.clone(),
            api_key: c.creds.api_key.clone(),
            inventory_id: inventory_id.to_string(),
        }
    }

    /// One attempt; `Err` when no complete answer came back (the server died).
    async fn send(&self, op: &Op) -> Result<Answer, reqwest::Error> {
        let req = match &op.kind {
            Kind::Adjust { delta, reason } => self
                .http
                .patch(format!(
                    "{}/api/inventory/{}/adjust",
                    self.base, self.inventory_id
                ))
                .json(&json!({"delta": delta, "reason": reason})),
            Kind::Ship { pkg, .. } => self
                .http
                .post(format!("{}/api/fulfillment/packages/{pkg}/ship", self.base))
                .json(&json!({"carrier": "UPS", "trackingNumber": format!("1Z{pkg}")})),
        };
        let resp = req
            .header("X-API-Key", &self.api_key)
            .header("Idempotency-Key", &op.key)
            .send()
            .await?;
        let status = resp.status().as_u16();
        let body = resp.json::<Value>().await?;
        Ok(Answer { status, body })
    }
}

/// Requests not yet answered, front first, the answers so far by key, and the keys
/// sent at least once.
#[derive(Default)]
struct Ledger {
    todo: VecDeque<Op>,
    answers: HashMap<String, Answer>,
    sent: HashSet<String>,
}

/// Sends requests from the ledger with `WORKERS` concurrent clients until it is empty
/// or the server dies; a request without a complete answer goes back to the front, to
/// be retried unchanged. Returns once every worker is done, or after `stop_after`
/// answers with the workers still running (the caller kills the server, then awaits them).
async fn drive(
    client: &Client,
    ledger: &Arc<Mutex<Ledger>>,
    stop_after: Option<usize>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let (enough_tx, mut enough_rx) = mpsc::channel::<()>(1);
    let answered = Arc::new(Mutex::new(0usize));
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        let (client, ledger, answered, enough) = (
            client.clone(),
            Arc::clone(ledger),
            Arc::clone(&answered),
            enough_tx.clone(),
        );
        workers.push(tokio::spawn(async move {
            loop {
                let op = {
                    let mut l = ledger.lock().unwrap();
                    let Some(op) = l.todo.pop_front() else {
                        return;
                    };
                    l.sent.insert(op.key.clone());
                    op
                };
                match client.send(&op).await {
                    Ok(answer) => {
                        ledger.lock().unwrap().answers.insert(op.key, answer);
                        let mut n = answered.lock().unwrap();
                        *n += 1;
                        if Some(*n) == stop_after {
                            let _ = enough.try_send(());
                        }
                    }
                    Err(_) => {
                        ledger.lock().unwrap().todo.push_front(op);
                        return;
                    }
                }
            }
        }));
    }
    drop(enough_tx);
    // Ends on `enough`, or when every worker has returned (queue empty or server gone).
    let _ = enough_rx.recv().await;
    workers
}

async fn join(workers: Vec<tokio::task::JoinHandle<()>>) {
    for w in workers {
        w.await.unwrap();
    }
}

/// Moves the first request of the wanted kind never sent to the front; its key. (One
/// in flight at a kill may have been applied and stored: its retry is replayed.)
fn next_of_kind(ledger: &Mutex<Ledger>, ship: bool) -> String {
    let mut l = ledger.lock().unwrap();
    let at = l
        .todo
        .iter()
        .position(|op| matches!(op.kind, Kind::Ship { .. }) == ship && !l.sent.contains(&op.key))
        .expect("a request of that kind left");
    let op = l.todo.remove(at).unwrap();
    let key = op.key.clone();
    l.todo.push_front(op);
    key
}

async fn get(c: &Crashable, path: &str) -> Value {
    let (status, v) = c.send(Method::GET, path, &Value::Null).await;
    assert_eq!(status, 200, "GET {path}: {v}");
    v
}

/// A catalog whose orders pack into packages, `ORDERS` orders packed by keyed pack
/// requests; the inventory id and every package with its units.
async fn setup(c: &Crashable) -> (String, Vec<(String, i64)>) {
    c.create(
        "/api/warehouses",
        &json!({"id": "W1", "name": "East", "boxes": boxes()}),
    )
    .await;
    c.create(
        "/api/products",
        &json!({"sku": "MUG", "name": "Mug", "price": 9.5, "weight": 1,
                "dimensions": {"width": 4, "height": 4, "length": 4}}),
    )
    .await;
    let inv = c
        .create(
            "/api/inventory",
            &json!({"sku": "MUG", "warehouseId": "W1", "onHand": ON_HAND}),
        )
        .await;
    let mut packages = Vec::new();
    for i in 0..ORDERS {
        let body = packable_order_body(&format!("crash-{i}"), 1 + i as u32 % 3, 0);
        let order = c.create("/api/orders", &body).await;
        let id = order["id"].as_str().unwrap();
        // Packs now, or finds it packed by the background packer. With a key: the
        // pack's requeue must not pin the commit batch across the packing.
        let pack = || {
            c.http
                .post(c.url(&format!("/api/orders/{id}/pack")))
                .header("X-API-Key", &c.creds.api_key)
                .header("Idempotency-Key", format!("pack-{i}"))
                .send()
        };
        let first = pack().await.unwrap();
        let status = first.status();
        let packed: Value = first.json().await.unwrap();
        assert_eq!(status, 200, "{packed}");
        assert_eq!(packed["status"], "processing", "{packed}");
        let again = pack().await.unwrap();
        assert_eq!(again.headers()["idempotent-replayed"], "true");
        assert_eq!(again.json::<Value>().await.unwrap(), packed);
        let list = get(c, &format!("/api/packages?orderId={id}")).await;
        for p in list["packages"].as_array().unwrap() {
            let units: i64 = p["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["quantity"].as_i64().unwrap())
                .sum();
            packages.push((p["id"].as_str().unwrap().to_string(), units));
        }
    }
    (inv["id"].as_str().unwrap().to_string(), packages)
}

/// Adjustments with a ship after every fifth, then the remaining ships.
fn requests(packages: &[(String, i64)]) -> VecDeque<Op> {
    let ship = |(pkg, units): &(String, i64)| Op {
        key: format!("ship-{pkg}"),
        kind: Kind::Ship {
            pkg: pkg.clone(),
            units: *units,
        },
    };
    let mut todo = VecDeque::new();
    let mut ships = packages.iter();
    for i in 0..ADJUSTMENTS {
        let delta = if i % 4 == 3 { -1 } else { 1 + (i as i64 % 3) };
        todo.push_back(Op {
            key: format!("adj-{i}"),
            kind: Kind::Adjust {
                delta,
                reason: format!("crash-test-{i}"),
            },
        });
        if i % 5 == 4 {
            todo.extend(ships.next().map(ship));
        }
    }
    todo.extend(ships.map(ship));
    todo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_adjustments_and_ships_retried_across_crashes_apply_exactly_once() {
    let mut c = Crashable::start(&[]).await;
    let (inventory_id, packages) = setup(&c).await;
    let level = get(&c, &format!("/api/inventory/{inventory_id}")).await;
    let reserved_before = level["reserved"].as_i64().unwrap();
    assert_eq!(
        reserved_before,
        packages.iter().map(|p| p.1).sum::<i64>(),
        "every reserved unit is in a package"
    );
    assert_eq!(c.terminate().code(), Some(0));

    let ledger = Arc::new(Mutex::new(Ledger {
        todo: requests(&packages),
        ..Ledger::default()
    }));
    let all: Vec<Op> = ledger.lock().unwrap().todo.iter().cloned().collect();

    // Crashes right after a change (adjustment, ship, adjustment), each followed by a
    // kill -9 under load; the requests in flight each time are retried next start.
    for cycle in 0..6 {
        if cycle % 2 == 0 {
            let key = next_of_kind(&ledger, cycle == 2);
            c.restart_with_env(&[(HOOK, &key)]).await;
            join(drive(&Client::of(&c, &inventory_id), &ledger, None).await).await;
            assert!(
                ledger.lock().unwrap().todo.iter().any(|op| op.key == key),
                "the crashed request is unanswered"
            );
            assert!(!c.crashed().success(), "the hook aborted the server");
        } else {
            c.restart().await;
            let workers = drive(&Client::of(&c, &inventory_id), &ledger, Some(ACKS_PER_KILL)).await;
            c.kill9();
            // Each puts back the request it had in flight.
            join(workers).await;
        }
    }
    c.restart().await;
    join(drive(&Client::of(&c, &inventory_id), &ledger, None).await).await;

    let ledger = std::mem::take(&mut *ledger.lock().unwrap());
    assert!(ledger.todo.is_empty());
    let (mut expect_on_hand, mut shipped) = (ON_HAND, 0);
    for op in &all {
        let a = &ledger.answers[&op.key];
        assert_eq!(a.status, 200, "{op:?}: {}", a.body);
        match &op.kind {
            Kind::Adjust { delta, .. } => expect_on_hand += delta,
            Kind::Ship { units, .. } => {
                assert_eq!(a.body["status"], "shipped", "{}", a.body);
                shipped += units;
            }
        }
    }
    let level = get(&c, &format!("/api/inventory/{inventory_id}")).await;
    assert_eq!(level["onHand"], expect_on_hand - shipped, "{level}");
    assert_eq!(level["reserved"], reserved_before - shipped, "{level}");
    for (pkg, _) in &packages {
        let p = get(&c, &format!("/api/packages/{pkg}")).await;
        assert_eq!(p["status"], "shipped", "{p}");
    }
    assert_eq!(c.terminate().code(), Some(0));

    // The audit trail holds each adjustment once.
    let store = c.store();
    let rec = uuid::Uuid::parse_str(&inventory_id).unwrap().as_u128();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for row in store.scan_prefix::<InventoryAudit>(&rec.to_be_bytes()) {
        *seen.entry(row.unwrap().1.reason).or_default() += 1;
    }
    for op in &all {
        if let Kind::Adjust { reason, .. } = &op.kind {
            assert_eq!(seen.get(reason), Some(&1), "{op:?} applied once");
        }
    }
}

/// The console's own routes do not take the key: their writes run off the runtime,
/// where a hold cannot keep them with a stored response, and a stored answer would
/// replay a client secret shown once. Two keyed creations make two clients.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_routes_do_not_take_the_idempotency_key() {
    let s = crate::support::Server::start().await;
    let http = s.console_client();
    let ada = s.person("ada", "admin").await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let resp = ada
            .req(&http, Method::POST, &s.url("/console/api/clients"), true)
            .header("Idempotency-Key", "console-1")
            .json(&json!({"name": "wms", "tier": "pro"}))
            .send()
            .await
            .unwrap();
        assert!(resp.headers().get("idempotent-replayed").is_none());
        let (status, v) = crate::support::body(resp).await;
        assert_eq!(status, 201, "{v}");
        ids.push(v["clientId"].as_str().unwrap().to_string());
    }
    assert_ne!(ids[0], ids[1], "each keyed console request is its own");
}
