//! Webhooks: subscriptions and their validation, signed deliveries to a real HTTPS
//! receiver with its own CA, the retry schedule, isolation from a hanging receiver,
//! the operations endpoints, and no event lost across kill -9.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use storage::tables::Deliveries;

use crate::support::{
    assert_error, body, stocked_sku, verify, Crashable, Mode, Receiver, Server, TestCa,
};

const SECRET: &str = "whsec-test-0123456789";
const GUARD: Duration = Duration::from_secs(20);
const DELAYS_MS: [u64; 4] = [50, 100, 150, 200];

async fn server(ca: &TestCa, timeout: Duration) -> Server {
    let pem = ca.pem.clone();
    Server::start_with(move |c| {
        c.webhook_ca = vec![pem];
        c.webhook_retry_delays = DELAYS_MS
            .iter()
            .map(|ms| Duration::from_millis(*ms))
            .collect();
        c.webhook_timeout = timeout;
    })
    .await
}

async fn subscribe(s: &Server, url: &str, events: &[&str], active: bool) -> String {
    let (status, v) = s
        .post(
            "/api/webhooks",
            &json!({"url": url, "events": events, "secret": SECRET, "isActive": active}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}

/// A server and one receiver in `mode`, subscribed to `inventory.adjusted`; the hook's id.
async fn adjustments_hook(
    ca: &TestCa,
    timeout: Duration,
    mode: Mode,
) -> (Server, Receiver, String) {
    let s = server(ca, timeout).await;
    let r = Receiver::start(ca, mode).await;
    let hook = subscribe(&s, &r.url, &["inventory.adjusted"], true).await;
    (s, r, hook)
}

/// One more `inventory.adjusted`.
async fn adjust(s: &Server, inventory: &str) {
    let (status, v) = s.adjust(inventory, 1, "count").await;
    assert_eq!(status, 200, "{v}");
}

async fn deliveries(s: &Server, hook: &str, query: &str) -> Value {
    let (status, v) = s
        .get_json(&format!("/api/webhooks/{hook}/deliveries{query}"))
        .await;
    assert_eq!(status, 200, "{v}");
    v
}

/// Polls the deliveries list until `done` holds for it (the attempt result is written
/// just after the receiver answers); the deadline is only a failure guard.
async fn wait_deliveries(
    s: &Server,
    hook: &str,
    query: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + GUARD;
    loop {
        let v = deliveries(s, hook, query).await;
        if done(&v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "deliveries never reached the state: {v}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the first delivery of `hook` has an attempt; the deliveries page and
/// that first attempt.
async fn first_attempt(s: &Server, hook: &str) -> (Value, Value) {
    let v = wait_deliveries(s, hook, "", |v| {
        v["deliveries"][0]["attempts"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    })
    .await;
    let a = v["deliveries"][0]["attempts"][0].clone();
    (v, a)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_validate_input_and_never_return_the_secret() {
    let ca = TestCa::new();
    let s = server(&ca, Duration::from_secs(5)).await;
    let post = |v: Value| s.post_json("/api/webhooks", &v).send();
    let ok =
        json!({"url": "https://wms.local/hook", "events": ["order.created"], "secret": SECRET});
    for (input, field) in [
        (
            json!({"url": "http://wms.local/hook", "events": ["order.created"], "secret": SECRET}),
            "url",
        ),
        (
            json!({"url": "not a url", "events": ["order.created"], "secret": SECRET}),
            "url",
        ),
        (
            json!({"events": ["order.created"], "secret": SECRET}),
            "url",
        ),
        (
            json!({"url": "https://wms.local/hook", "events": ["order.exploded"], "secret": SECRET}),
            "events[0]",
        ),
        (
            json!({"url": "https://wms.local/hook", "events": [], "secret": SECRET}),
            "events",
        ),
        (
            json!({"url": "https://wms.local/hook", "events": ["order.created"]}),
            "secret",
        ),
        (
            json!({"url": "https://wms.local/hook", "events": ["order.created"], "secret": "short"}),
            "secret",
        ),
    ] {
        let (status, v) = body(post(input).await.unwrap()).await;
        assert_eq!(status, 422, "{v}");
        assert_error(&v, "validation_error", Some(field));
    }
    let (status, created) = body(post(ok).await.unwrap()).await;
    assert_eq!(status, 201);
    assert!(created.get("secret").is_none(), "{created}");
    assert_eq!(created["isActive"], true);
    assert_eq!(created["events"], json!(["order.created"]));
    let id = created["id"].as_str().unwrap();

    let (_, list) = s.get_json("/api/webhooks").await;
    assert_eq!(list["pagination"]["total"], 1);
    assert_eq!(list["webhooks"][0]["id"], id);
    assert!(!list.to_string().contains(SECRET));

    let (status, patched) = s.send(Method::PATCH, &format!("/api/webhooks/{id}"), &json!({"isActive": false, "events": ["order.created", "inventory.adjusted"], "secret": "another-secret-0123456"})).await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["isActive"], false);
    assert_eq!(
        patched["events"],
        json!(["order.created", "inventory.adjusted"])
    );
    assert!(patched.get("secret").is_none());
    let (status, v) = s
        .send(
            Method::PATCH,
            &format!("/api/webhooks/{id}"),
            &json!({"url": "ftp://x"}),
        )
        .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("url"));

    let (status, got) = s.get_json(&format!("/api/webhooks/{id}")).await;
    assert_eq!(status, 200);
    assert!(got.get("secret").is_none());
    let status = s
        .req(Method::DELETE, &format!("/api/webhooks/{id}"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);
    let (status, v) = s.get_json(&format!("/api/webhooks/{id}")).await;
    assert_eq!(status, 404);
    assert_error(&v, "not_found", None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_are_signed_and_respect_filters_inactive_and_deletion() {
    let ca = TestCa::new();
    let s = server(&ca, Duration::from_secs(5)).await;
    let mut wanted = Receiver::start(&ca, Mode::Succeed).await;
    let mut other_kind = Receiver::start(&ca, Mode::Succeed).await;
    let inactive = Receiver::start(&ca, Mode::Succeed).await;
    let deleted = Receiver::start(&ca, Mode::Succeed).await;
    let hook = subscribe(&s, &wanted.url, &["inventory.adjusted"], true).await;
    let orders_only = subscribe(&s, &other_kind.url, &["order.created"], true).await;
    let off = subscribe(&s, &inactive.url, &["inventory.adjusted"], false).await;
    let gone = subscribe(&s, &deleted.url, &["inventory.adjusted"], true).await;
    let status = s
        .req(Method::DELETE, &format!("/api/webhooks/{gone}"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 200);

    let inventory = stocked_sku(&s, "SIG-1").await;
    let hit = wanted.next(GUARD).await;
    assert!(verify(SECRET, &hit), "signature and timestamp verify");
    assert!(!verify("a-different-secret-value", &hit));
    let sig = hit.header("x-webhook-signature");
    assert_eq!(sig.len(), 64);
    assert!(sig
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert!(hit.header("content-type").starts_with("application/json"));
    let env = hit.json();
    assert_eq!(env["type"], "inventory.adjusted");
    assert_eq!(env["id"], hit.header("x-webhook-id"));
    assert!(env["id"].as_str().unwrap().starts_with("evt_"));
    assert!(time::OffsetDateTime::parse(
        env["timestamp"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339
    )
    .is_ok());
    assert_eq!(env["data"]["id"], inventory);
    assert_eq!(env["data"]["sku"], "SIG-1");
    let keys: HashSet<&str> = env
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, HashSet::from(["id", "type", "timestamp", "data"]));

    // The fan-out that made `hook`'s delivery made every other one in the same
    // transaction: none exists for the other kind, the inactive or the deleted one.
    let v = wait_deliveries(&s, &hook, "", |v| {
        v["deliveries"][0]["status"] == "delivered"
    })
    .await;
    let d = &v["deliveries"][0];
    assert_eq!(d["eventId"], env["id"]);
    assert_eq!(d["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(d["attempts"][0]["statusCode"], 200);
    assert_eq!(d["attempts"][0]["error"], Value::Null);
    assert!(d["attempts"][0]["latencyMs"].is_u64());
    assert_eq!(
        deliveries(&s, &orders_only, "").await["pagination"]["total"],
        0
    );
    assert_eq!(deliveries(&s, &off, "").await["pagination"]["total"], 0);
    let gone_id = uuid::Uuid::parse_str(&gone).unwrap().as_u128();
    assert!(s
        .store
        .iter::<Deliveries>()
        .all(|e| e.unwrap().1.webhook_id != gone_id));

    // Another adjustment: one more delivery, the same signing rules.
    adjust(&s, &inventory).await;
    let second = wanted.next(GUARD).await;
    assert!(verify(SECRET, &second));
    assert_ne!(second.event_id(), hit.event_id());

    // The test action sends a signed sample event, even to the order-only subscription.
    let (status, queued) = s
        .post(&format!("/api/webhooks/{orders_only}/test"), &json!({}))
        .await;
    assert_eq!(status, 202, "{queued}");
    let sample = other_kind.next(GUARD).await;
    assert!(verify(SECRET, &sample));
    assert_eq!(sample.json()["type"], "order.created");
    assert_eq!(sample.json()["data"]["test"], true);
    assert_eq!(sample.event_id(), queued["eventId"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_failing_twice_sees_three_attempts_with_one_event_id() {
    let ca = TestCa::new();
    let (s, mut r, hook) = adjustments_hook(&ca, Duration::from_secs(5), Mode::FailNext(2)).await;
    stocked_sku(&s, "RETRY-1").await;
    let hits = [
        r.next(GUARD).await,
        r.next(GUARD).await,
        r.next(GUARD).await,
    ];
    assert_eq!(
        hits.iter().map(|h| h.answered).collect::<Vec<_>>(),
        vec![500, 500, 200]
    );
    for h in &hits {
        assert_eq!(h.event_id(), hits[0].event_id());
        assert_eq!(h.body, hits[0].body, "every attempt sends the same body");
        assert!(verify(SECRET, h));
    }
    for (n, pair) in hits.windows(2).enumerate() {
        let gap = pair[1].at - pair[0].at;
        assert!(
            gap >= Duration::from_millis(DELAYS_MS[n]),
            "attempt {} came {gap:?} after the previous, before the {} ms delay",
            n + 2,
            DELAYS_MS[n]
        );
    }
    let v = wait_deliveries(&s, &hook, "", |v| {
        v["deliveries"][0]["status"] == "delivered"
    })
    .await;
    let attempts = v["deliveries"][0]["attempts"].as_array().unwrap().clone();
    assert_eq!(attempts.len(), 3, "{v}");
    assert_eq!(attempts[0]["statusCode"], 500);
    assert_eq!(attempts[0]["error"], "HTTP status 500");
    assert_eq!(attempts[2]["statusCode"], 200);
    assert!(r.try_next().is_none(), "no attempt after the success");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_always_failing_receiver_sees_five_attempts_then_retry_and_recover() {
    let ca = TestCa::new();
    let (s, mut r, hook) = adjustments_hook(&ca, Duration::from_secs(5), Mode::AlwaysFail).await;
    let inventory = stocked_sku(&s, "FAIL-1").await;
    let mut hits = Vec::new();
    for _ in 0..5 {
        hits.push(r.next(GUARD).await);
    }
    let first = hits[0].event_id();
    assert!(hits.iter().all(|h| h.event_id() == first));
    for (n, pair) in hits.windows(2).enumerate() {
        assert!(pair[1].at - pair[0].at >= Duration::from_millis(DELAYS_MS[n]));
    }
    let v = wait_deliveries(&s, &hook, "?status=failed", |v| {
        v["pagination"]["total"] == 1
    })
    .await;
    let failed = &v["deliveries"][0];
    assert_eq!(failed["attempts"].as_array().unwrap().len(), 5, "{v}");
    assert_eq!(failed["nextAttemptAt"], Value::Null);
    assert_eq!(
        deliveries(&s, &hook, "?status=pending").await["pagination"]["total"],
        0
    );

    // A second event fails too.
    adjust(&s, &inventory).await;
    let mut second = Vec::new();
    for _ in 0..5 {
        second.push(r.next(GUARD).await);
    }
    let second_id = second[0].event_id();
    assert_ne!(second_id, first);
    wait_deliveries(&s, &hook, "?status=failed", |v| {
        v["pagination"]["total"] == 2
    })
    .await;

    // The endpoint is back: a manual retry of the first...
    r.set_mode(Mode::Succeed);
    let delivery = failed["id"].as_str().unwrap();
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{hook}/deliveries/{delivery}/retry"),
            &json!({}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "pending");
    let again = r.next(GUARD).await;
    assert_eq!(again.event_id(), first);
    assert_eq!(again.body, hits[0].body);
    wait_deliveries(&s, &hook, "?status=delivered", |v| {
        v["pagination"]["total"] == 1
    })
    .await;
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{hook}/deliveries/{delivery}/retry"),
            &json!({}),
        )
        .await;
    assert_eq!(status, 409, "only failed deliveries are retried: {v}");

    // ...and a recover re-queues the rest since a time.
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{hook}/recover"),
            &json!({"since": "2000-01-01"}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["requeued"], 1);
    let recovered = r.next(GUARD).await;
    assert_eq!(recovered.event_id(), second_id);
    wait_deliveries(&s, &hook, "?status=delivered", |v| {
        v["pagination"]["total"] == 2
    })
    .await;
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{hook}/recover"),
            &json!({"since": "yesterday"}),
        )
        .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("since"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_receiver_does_not_slow_deliveries_to_another() {
    let ca = TestCa::new();
    // The hanging receiver holds each attempt for the whole 30 s timeout.
    let s = server(&ca, Duration::from_secs(30)).await;
    let mut hanging = Receiver::start(&ca, Mode::Hang).await;
    let mut healthy = Receiver::start(&ca, Mode::Succeed).await;
    subscribe(&s, &hanging.url, &["inventory.adjusted"], true).await;
    subscribe(&s, &healthy.url, &["inventory.adjusted"], true).await;
    let inventory = stocked_sku(&s, "HANG-1").await;
    hanging.next(GUARD).await;
    let started = Instant::now();
    // More events than the hanging endpoint has concurrency slots.
    for _ in 0..9 {
        adjust(&s, &inventory).await;
    }
    let mut ids = HashSet::new();
    for _ in 0..10 {
        let hit = healthy.next(Duration::from_secs(15)).await;
        ids.insert(hit.event_id());
    }
    assert_eq!(ids.len(), 10);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the healthy receiver got every event while the other still hung"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_that_times_out_is_a_failed_attempt() {
    let ca = TestCa::new();
    let (s, mut r, hook) = adjustments_hook(&ca, Duration::from_secs(1), Mode::Hang).await;
    stocked_sku(&s, "SLOW-1").await;
    r.next(GUARD).await;
    let (v, a) = first_attempt(&s, &hook).await;
    assert_eq!(a["statusCode"], Value::Null, "{v}");
    assert!(a["error"].as_str().unwrap().contains("timed out"), "{v}");
    assert!(a["latencyMs"].as_u64().unwrap() >= 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_event_is_lost_across_kill_9_with_deliveries_pending_and_mid_retry() {
    let ca = TestCa::new();
    let mut r = Receiver::start(&ca, Mode::AlwaysFail).await;
    let ca_pem = ca.pem.to_str().unwrap().to_string();
    let mut c = Crashable::start(&[
        "--webhook-ca",
        ca_pem.as_str(),
        "--webhook-retry-delays",
        "100ms,5s,5s,5s",
    ])
    .await;
    c.create(
        "/api/webhooks",
        &json!({"url": r.url, "events": ["inventory.adjusted"], "secret": SECRET}),
    )
    .await;
    c.create(
        "/api/products",
        &json!({"sku": "K9", "name": "K9", "price": 1, "lowStockThreshold": 0}),
    )
    .await;
    c.create("/api/warehouses", &json!({"id": "K9W", "name": "K9"}))
        .await;
    let inv = c
        .create(
            "/api/inventory",
            &json!({"sku": "K9", "warehouseId": "K9W", "onHand": 10}),
        )
        .await;
    let inv = inv["id"].as_str().unwrap().to_string();
    let adjust = format!("/api/inventory/{inv}/adjust");
    let mut events = 1;
    for _ in 0..4 {
        let (status, v) = c
            .send(
                Method::PATCH,
                &adjust,
                &json!({"delta": 1, "reason": "before"}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        events += 1;
    }
    // Mid-retry: some event has failed twice (its third attempt is 5 s away).
    let mut failures: std::collections::HashMap<String, u32> = Default::default();
    loop {
        let hit = r.next(GUARD).await;
        let n = failures.entry(hit.event_id()).or_default();
        *n += 1;
        if *n >= 2 {
            break;
        }
    }
    // Pending: events committed just before the kill, maybe not even fanned out yet.
    for _ in 0..3 {
        let (status, v) = c
            .send(
                Method::PATCH,
                &adjust,
                &json!({"delta": -1, "reason": "just before the kill"}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        events += 1;
    }
    c.kill9();
    r.set_mode(Mode::Succeed);
    c.restart().await;
    let mut delivered = HashSet::new();
    let deadline = Duration::from_secs(60);
    while delivered.len() < events {
        let hit = r.next(deadline).await;
        assert!(verify(SECRET, &hit));
        if hit.answered == 200 {
            delivered.insert(hit.event_id());
        }
    }
    assert_eq!(delivered.len(), events);
    // Every event failed before the kill was among them (same ids after the restart).
    for id in failures.keys() {
        assert!(delivered.contains(id), "{id} delivered after the restart");
    }
    c.terminate();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deactivating_or_deleting_a_subscription_stops_its_queued_deliveries() {
    let ca = TestCa::new();
    let pem = ca.pem.clone();
    let s = Server::start_with(move |c| {
        c.webhook_ca = vec![pem];
        c.webhook_retry_delays = vec![Duration::from_secs(1); 4];
    })
    .await;
    let mut paused = Receiver::start(&ca, Mode::AlwaysFail).await;
    let mut removed = Receiver::start(&ca, Mode::AlwaysFail).await;
    let paused_hook = subscribe(&s, &paused.url, &["inventory.adjusted"], true).await;
    let removed_hook = subscribe(&s, &removed.url, &["inventory.adjusted"], true).await;
    stocked_sku(&s, "STOP-1").await;
    paused.next(GUARD).await;
    removed.next(GUARD).await;
    // Both deliveries now wait 1 s for their second attempt.
    let resp = s
        .req(Method::PATCH, &format!("/api/webhooks/{paused_hook}"))
        .json(&json!({"isActive": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = s
        .req(Method::DELETE, &format!("/api/webhooks/{removed_hook}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);

    let v = wait_deliveries(&s, &paused_hook, "", |v| {
        v["deliveries"][0]["status"] == "failed"
    })
    .await;
    let d = &v["deliveries"][0];
    assert_eq!(d["attempts"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(d["failureReason"], "the subscription is inactive");
    let gone = uuid::Uuid::parse_str(&removed_hook).unwrap().as_u128();
    let deadline = Instant::now() + GUARD;
    while s
        .store
        .iter::<Deliveries>()
        .any(|e| e.unwrap().1.webhook_id == gone)
    {
        assert!(
            Instant::now() < deadline,
            "the deleted subscription's delivery is dropped"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(paused.try_next().is_none());
    assert!(removed.try_next().is_none());

    // Reactivated, a recover sends the paused one.
    paused.set_mode(Mode::Succeed);
    let resp = s
        .req(Method::PATCH, &format!("/api/webhooks/{paused_hook}"))
        .json(&json!({"isActive": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{paused_hook}/recover"),
            &json!({"since": "2000-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!((status, v["requeued"].as_u64()), (200, Some(1)));
    assert_eq!(paused.next(GUARD).await.answered, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_show_the_envelope_headers_and_verification_snippets() {
    let s = Server::start().await;
    let html = s.text("/api/docs").await;
    for needle in [
        "X-Webhook-Signature",
        "X-Webhook-Timestamp",
        "X-Webhook-Id",
        "hmac.compare_digest",
        "ConstantTimeEq",
        "WebhookEvent",
    ] {
        assert!(html.contains(needle), "docs mention {needle}");
    }
    let doc: Value = s
        .http
        .get(s.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let env = &doc["components"]["schemas"]["WebhookEvent"];
    assert_eq!(env["required"], json!(["id", "type", "timestamp", "data"]));
    assert!(doc["paths"]["/api/webhooks/{id}/deliveries"]["get"].is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_whose_ca_is_not_trusted_is_a_failed_attempt() {
    let ca = TestCa::new();
    // No --webhook-ca: only the system roots, which do not know the test CA.
    let s = Server::start_with(|c| {
        c.webhook_retry_delays = vec![Duration::from_secs(60); 4];
    })
    .await;
    let r = Receiver::start(&ca, Mode::Succeed).await;
    let hook = subscribe(&s, &r.url, &["inventory.adjusted"], true).await;
    stocked_sku(&s, "TLS-1").await;
    let (v, a) = first_attempt(&s, &hook).await;
    assert_eq!(a["statusCode"], Value::Null, "{v}");
    let error = a["error"].as_str().unwrap();
    assert!(
        error.contains("certificate") || error.contains("UnknownIssuer"),
        "{error}"
    );
    assert_eq!(v["deliveries"][0]["status"], "pending");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_deliveries_are_pruned_after_the_retention() {
    let ca = TestCa::new();
    let (s, mut r, hook) = adjustments_hook(&ca, Duration::from_secs(5), Mode::Succeed).await;
    stocked_sku(&s, "PRUNE-1").await;
    r.next(GUARD).await;
    wait_deliveries(&s, &hook, "?status=delivered", |v| {
        v["pagination"]["total"] == 1
    })
    .await;
    let now = time::OffsetDateTime::now_utc().unix_timestamp() * 1000;
    let store = s.store.clone();
    let kept = tokio::task::spawn_blocking(move || {
        fulfilld::webhooks::store::prune(&store, now - 86_400_000)
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(kept, 0, "younger than the retention: kept");
    let store = s.store.clone();
    let removed =
        tokio::task::spawn_blocking(move || fulfilld::webhooks::store::prune(&store, now + 1000))
            .await
            .unwrap()
            .unwrap();
    assert_eq!(removed, 1);
    s.store.durable().await.unwrap();
    assert_eq!(deliveries(&s, &hook, "").await["pagination"]["total"], 0);
}
