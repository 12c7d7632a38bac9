//! Webhooks that interoperate and listen, against a real HTTPS receiver: the Standard
//! Webhooks scheme (checked by its official Python library), secret rotation with a
//! grace period, `410 Gone`, `Retry-After`, disabling after failing too long, no
//! redirects, and ordered delivery.

use std::process::Command;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{
    assert_error, hmac_hex, run_checker, stocked_sku, verify, Hit, Mode, Receiver, Server, TestCa,
};

const SECRET: &str = "a-plain-secret-0123456789";
/// The Standard Webhooks specification's example secret (24 bytes).
const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const GUARD: Duration = Duration::from_secs(20);

async fn server(ca: &TestCa, delays_ms: &[u64], disable_after: Duration) -> Server {
    let pem = ca.pem.clone();
    let delays: Vec<Duration> = delays_ms
        .iter()
        .map(|ms| Duration::from_millis(*ms))
        .collect();
    Server::start_with(move |c| {
        c.webhook_ca = vec![pem];
        c.webhook_retry_delays = delays;
        c.webhook_timeout = Duration::from_secs(5);
        c.webhook_disable_after = disable_after;
    })
    .await
}

async fn subscribe(s: &Server, r: &Receiver, extra: Value) -> String {
    let mut body = json!({"url": r.url, "events": ["inventory.adjusted"], "secret": SECRET});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, v) = s.post("/api/webhooks", &body).await;
    assert_eq!(status, 201, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn hook(s: &Server, id: &str) -> Value {
    let (status, v) = s.get_json(&format!("/api/webhooks/{id}")).await;
    assert_eq!(status, 200, "{v}");
    v
}

async fn adjust(s: &Server, inventory: &str) {
    let (status, v) = s.adjust(inventory, 1, "count").await;
    assert_eq!(status, 200, "{v}");
}

/// Polls `path` until `done` holds (results are written just after the receiver
/// answers); the deadline is only a failure guard.
async fn wait_for(s: &Server, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + GUARD;
    loop {
        let (status, v) = s.get_json(path).await;
        assert_eq!(status, 200, "{v}");
        if done(&v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never reached the state: {v}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn ms(rfc3339: &Value) -> i64 {
    let t = time::OffsetDateTime::parse(
        rfc3339.as_str().expect("a time"),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    (t.unix_timestamp_nanos() / 1_000_000) as i64
}

/// The `v1,` entries of a Standard Webhooks delivery that verify with `secret`,
/// computed here independently of the server's code.
fn standard_matches(secret: &str, hit: &Hit) -> usize {
    use hmac::{Hmac, Mac};
    let key = B64.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(hit.header("webhook-id").as_bytes());
    mac.update(b".");
    mac.update(hit.header("webhook-timestamp").as_bytes());
    mac.update(b".");
    mac.update(&hit.body);
    let expected = format!("v1,{}", B64.encode(mac.finalize().into_bytes()));
    hit.header("webhook-signature")
        .split(' ')
        .filter(|s| *s == expected)
        .count()
}

/// Verifies `hit` with the official `standardwebhooks` package from PyPI: `Some(ok)`,
/// or `None` when no Python with it is at hand. CI (`.ci/run`) installs it in
/// `.ci/.venv` and sets `FULFILLD_REQUIRE_PYTHON_WEBHOOKS=1`, so there it cannot be
/// skipped; `FULFILLD_PYTHON` names another interpreter.
fn python_verifies(secret: &str, hit: &Hit) -> Option<bool> {
    let python = std::env::var("FULFILLD_PYTHON")
        .unwrap_or_else(|_| format!("{}/.ci/.venv/bin/python", env!("CARGO_MANIFEST_DIR")));
    let script = "import json, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        d = json.load(sys.stdin)\n\
        try:\n    Webhook(d['secret']).verify(d['body'], d['headers'])\n    print('verified')\n\
        except Exception as e:\n    print('refused', type(e).__name__, e)\n";
    let headers: serde_json::Map<String, Value> = hit
        .headers
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v.to_str().unwrap())))
        .collect();
    let input = json!({"secret": secret, "body": String::from_utf8(hit.body.to_vec()).unwrap(), "headers": headers});
    let out = run_checker(
        Command::new(&python).args(["-c", script]),
        input.to_string().as_bytes(),
        "FULFILLD_REQUIRE_PYTHON_WEBHOOKS",
        "the standardwebhooks check needs it; .ci/run installs it",
    )?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            std::env::var_os("FULFILLD_REQUIRE_PYTHON_WEBHOOKS").is_none(),
            "python failed: {stdout}{stderr}"
        );
        eprintln!("standardwebhooks check not run: {stderr}");
        return None;
    }
    Some(stdout.trim() == "verified")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standard_webhooks_deliveries_verify_with_the_official_library() {
    let ca = TestCa::new();
    let s = server(&ca, &[60_000], Duration::from_secs(3600)).await;
    let mut r = Receiver::start(&ca, Mode::Succeed).await;
    let id = subscribe(
        &s,
        &r,
        json!({"secret": WHSEC, "signatureScheme": "standard-webhooks"}),
    )
    .await;
    assert_eq!(hook(&s, &id).await["signatureScheme"], "standard-webhooks");
    stocked_sku(&s, "STD-1").await;
    let hit = r.next(GUARD).await;
    let env = hit.json();
    assert_eq!(hit.header("webhook-id"), env["id"].as_str().unwrap());
    let ts: i64 = hit.header("webhook-timestamp").parse().unwrap();
    assert!((time::OffsetDateTime::now_utc().unix_timestamp() - ts).abs() < 300);
    assert_eq!(standard_matches(WHSEC, &hit), 1, "{:?}", hit.headers);
    assert_eq!(hit.header("webhook-signature").split(' ').count(), 1);
    assert_eq!(
        hit.header("x-webhook-signature"),
        "",
        "one scheme's headers only"
    );
    if let Some(ok) = python_verifies(WHSEC, &hit) {
        assert!(ok, "the standardwebhooks package accepts our delivery");
        let other = "whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldY";
        assert_eq!(python_verifies(other, &hit), Some(false));
    }

    // The default scheme stays the spec's.
    let mut plain = Receiver::start(&ca, Mode::Succeed).await;
    let plain_id = subscribe(&s, &plain, json!({})).await;
    assert_eq!(hook(&s, &plain_id).await["signatureScheme"], "fulfilld");
    let inventory = stocked_sku(&s, "STD-2").await;
    adjust(&s, &inventory).await;
    let hit = plain.next(GUARD).await;
    assert!(verify(SECRET, &hit));
    assert_eq!(hit.header("webhook-signature"), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standard_scheme_needs_a_whsec_secret() {
    let ca = TestCa::new();
    let s = server(&ca, &[60_000], Duration::from_secs(3600)).await;
    let r = Receiver::start(&ca, Mode::Succeed).await;
    let base = json!({"url": r.url, "events": ["order.created"], "secret": SECRET});
    for (extra, field) in [
        (json!({"signatureScheme": "standard-webhooks"}), "secret"),
        (json!({"signatureScheme": "svix"}), "signatureScheme"),
        (json!({"signatureScheme": null}), "signatureScheme"),
        (json!({"ordered": "yes"}), "ordered"),
        (
            json!({"signatureScheme": "standard-webhooks", "secret": "whsec_c2hvcnQta2V5LW9ubHk="}),
            "secret",
        ),
    ] {
        let mut body = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, v) = s.post("/api/webhooks", &body).await;
        assert!(status == 422 || status == 400, "{body}: {status} {v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
    let id = subscribe(&s, &r, json!({})).await;
    let path = format!("/api/webhooks/{id}");
    let (status, v) = s
        .send(
            Method::PATCH,
            &path,
            &json!({"signatureScheme": "standard-webhooks"}),
        )
        .await;
    assert_eq!(status, 422, "{v}");
    assert_error(&v, "validation_error", Some("secret"));
    assert_eq!(
        hook(&s, &id).await["signatureScheme"],
        "fulfilld",
        "nothing applied"
    );
    let (status, v) = s
        .send(
            Method::PATCH,
            &path,
            &json!({"signatureScheme": "standard-webhooks", "secret": WHSEC, "ordered": true}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["signatureScheme"].as_str(), v["ordered"].as_bool()),
        (Some("standard-webhooks"), Some(true))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotation_signs_with_both_secrets_during_its_grace_period() {
    let ca = TestCa::new();
    let s = server(&ca, &[60_000], Duration::from_secs(3600)).await;
    let mut r = Receiver::start(&ca, Mode::Succeed).await;
    let mut std_r = Receiver::start(&ca, Mode::Succeed).await;
    let plain = subscribe(&s, &r, json!({})).await;
    let std = subscribe(
        &s,
        &std_r,
        json!({"secret": WHSEC, "signatureScheme": "standard-webhooks"}),
    )
    .await;

    // Bounds and shape of the body.
    for body in [
        json!({"gracePeriodSeconds": 604_801}),
        json!({"gracePeriodSeconds": null}),
    ] {
        let (status, v) = s
            .post(&format!("/api/webhooks/{plain}/rotate-secret"), &body)
            .await;
        assert_eq!(status, 422, "{v}");
        assert_error(&v, "validation_error", Some("gracePeriodSeconds"));
    }
    let (status, _) = s
        .post(
            &format!("/api/webhooks/{}/rotate-secret", uuid::Uuid::now_v7()),
            &json!({}),
        )
        .await;
    assert_eq!(status, 404);

    // No body: the default grace period of a day.
    let resp = s
        .req(
            Method::POST,
            &format!("/api/webhooks/{plain}/rotate-secret"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let rotated: Value = resp.json().await.unwrap();
    let new_secret = rotated["secret"].as_str().unwrap().to_string();
    assert!(
        new_secret.starts_with("whsec_") && new_secret.len() > 40,
        "{rotated}"
    );
    let grace_end = ms(&rotated["webhook"]["previousSecretExpiresAt"]);
    let now = time::OffsetDateTime::now_utc().unix_timestamp() * 1000;
    assert!((grace_end - now - 86_400_000).abs() < 60_000, "{rotated}");
    let shown = hook(&s, &plain).await;
    assert!(!shown.to_string().contains(&new_secret), "shown once only");
    assert_eq!(
        shown["previousSecretExpiresAt"],
        rotated["webhook"]["previousSecretExpiresAt"]
    );

    let (status, v) = s
        .post(
            &format!("/api/webhooks/{std}/rotate-secret"),
            &json!({"gracePeriodSeconds": 3600}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let new_std = v["secret"].as_str().unwrap().to_string();

    let inventory = stocked_sku(&s, "ROT-1").await;
    let hit = r.next(GUARD).await;
    assert!(
        verify(&new_secret, &hit),
        "X-Webhook-Signature: the new secret"
    );
    assert!(!verify(SECRET, &hit));
    let ts = hit.header("x-webhook-timestamp");
    let mut signed = ts.as_bytes().to_vec();
    signed.push(b'.');
    signed.extend_from_slice(&hit.body);
    assert_eq!(
        hit.header("x-webhook-signature-previous"),
        hmac_hex(SECRET, &signed),
        "the previous secret signs beside it"
    );
    let hit = std_r.next(GUARD).await;
    assert_eq!(
        hit.header("webhook-signature").split(' ').count(),
        2,
        "{:?}",
        hit.headers
    );
    assert_eq!(standard_matches(&new_std, &hit), 1);
    assert_eq!(standard_matches(WHSEC, &hit), 1);
    if let Some(ok) = python_verifies(&new_std, &hit) {
        assert!(ok, "a receiver with the new secret accepts it");
        assert_eq!(
            python_verifies(WHSEC, &hit),
            Some(true),
            "and one with the old"
        );
    }

    // A rotation without grace: only the newest secret signs.
    let (status, v) = s
        .post(
            &format!("/api/webhooks/{plain}/rotate-secret"),
            &json!({"gracePeriodSeconds": 0}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["webhook"]["previousSecretExpiresAt"], Value::Null);
    let newest = v["secret"].as_str().unwrap().to_string();
    assert_ne!(newest, new_secret);
    adjust(&s, &inventory).await;
    let hit = r.next(GUARD).await;
    assert!(verify(&newest, &hit));
    assert_eq!(hit.header("x-webhook-signature-previous"), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_410_gone_disables_the_subscription() {
    let ca = TestCa::new();
    let s = server(&ca, &[50, 50, 50, 50], Duration::from_secs(3600)).await;
    let mut r = Receiver::start(&ca, Mode::Status(410)).await;
    let id = subscribe(&s, &r, json!({})).await;
    let inventory = stocked_sku(&s, "GONE-1").await;
    assert_eq!(r.next(GUARD).await.answered, 410);
    let v = wait_for(&s, &format!("/api/webhooks/{id}"), |v| {
        v["isActive"] == false
    })
    .await;
    assert_eq!(v["disabledReason"], "the endpoint answered 410 Gone");
    assert!(v["disabledAt"].is_string());
    let (_, list) = s.get_json("/api/webhooks").await;
    assert_eq!(
        list["webhooks"][0]["disabledReason"], v["disabledReason"],
        "visible in the list"
    );
    let d = wait_for(&s, &format!("/api/webhooks/{id}/deliveries"), |v| {
        v["deliveries"][0]["status"] == "failed"
    })
    .await;
    let d = &d["deliveries"][0];
    assert_eq!(
        d["attempts"].as_array().unwrap().len(),
        1,
        "no retry after 410: {d}"
    );
    assert_eq!(d["failureReason"], "the endpoint answered 410 Gone");

    // No more events are queued for it; turned on again, it is clean and gets them.
    adjust(&s, &inventory).await;
    r.set_mode(Mode::Succeed);
    let (status, v) = s
        .send(
            Method::PATCH,
            &format!("/api/webhooks/{id}"),
            &json!({"isActive": true}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["disabledReason"].clone(), v["failingSince"].clone()),
        (Value::Null, Value::Null)
    );
    adjust(&s, &inventory).await;
    let hit = r.next(GUARD).await;
    assert_eq!(hit.answered, 200);
    assert_eq!(
        hit.json()["data"]["onHand"],
        102,
        "the event while disabled was not sent: {}",
        hit.json()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_on_429_and_503_pushes_the_next_attempt_back() {
    let ca = TestCa::new();
    let s = server(&ca, &[50, 50, 50, 50], Duration::from_secs(3600)).await;
    let mut r = Receiver::start(&ca, Mode::StatusOnce(429)).await;
    r.set_headers(&[("retry-after", "2")]);
    let id = subscribe(&s, &r, json!({})).await;
    let inventory = stocked_sku(&s, "RA-1").await;
    let first = r.next(GUARD).await;
    assert_eq!(first.answered, 429);
    let deliveries = format!("/api/webhooks/{id}/deliveries");
    let v = wait_for(&s, &deliveries, |v| {
        v["deliveries"][0]["attempts"]
            .as_array()
            .is_some_and(|a| a.len() == 1)
    })
    .await;
    let d = &v["deliveries"][0];
    let wait = ms(&d["nextAttemptAt"]) - ms(&d["attempts"][0]["at"]);
    assert!(
        wait >= 2000,
        "next attempt {wait} ms after a Retry-After of 2 s (delay 50 ms)"
    );
    // Another event meanwhile waits too: the receiver asked for a pause.
    adjust(&s, &inventory).await;
    let second = r.next(GUARD).await;
    let third = r.next(GUARD).await;
    assert_eq!((second.answered, third.answered), (200, 200));
    for hit in [&second, &third] {
        assert!(
            hit.at - first.at >= Duration::from_secs(2),
            "{:?} after the 429",
            hit.at - first.at
        );
    }

    // 503 with an HTTP date.
    let until = std::time::SystemTime::now() + Duration::from_secs(3);
    let date = httpdate::fmt_http_date(until);
    r.set_headers(&[("retry-after", date.as_str())]);
    r.set_mode(Mode::StatusOnce(503));
    adjust(&s, &inventory).await;
    let unavailable = r.next(GUARD).await;
    assert_eq!(unavailable.answered, 503);
    let v = wait_for(&s, &format!("{deliveries}?status=pending"), |v| {
        v["deliveries"][0]["attempts"]
            .as_array()
            .is_some_and(|a| a.len() == 1)
    })
    .await;
    let next = ms(&v["deliveries"][0]["nextAttemptAt"]);
    let until_ms = until
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // HTTP dates have whole seconds.
    assert!(
        next >= until_ms - 1000,
        "next attempt {next} before the date {until_ms}"
    );
    assert_eq!(r.next(GUARD).await.answered, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscription_failing_for_disable_after_is_disabled_and_a_success_resets_the_clock() {
    let ca = TestCa::new();
    let disable_after = Duration::from_millis(400);
    let s = server(&ca, &[150, 150, 150, 150], disable_after).await;

    // Fails once, then succeeds: failingSince is set, then cleared.
    let mut flaky = Receiver::start(&ca, Mode::FailNext(1)).await;
    let flaky_id = subscribe(&s, &flaky, json!({})).await;
    let inventory = stocked_sku(&s, "DIS-1").await;
    assert_eq!(flaky.next(GUARD).await.answered, 500);
    let v = wait_for(&s, &format!("/api/webhooks/{flaky_id}"), |v| {
        v["failingSince"].is_string()
    })
    .await;
    assert_eq!(v["isActive"], true);
    assert_eq!(flaky.next(GUARD).await.answered, 200);
    wait_for(&s, &format!("/api/webhooks/{flaky_id}"), |v| {
        v["failingSince"].is_null()
    })
    .await;
    s.send(
        Method::PATCH,
        &format!("/api/webhooks/{flaky_id}"),
        &json!({"isActive": false}),
    )
    .await;

    // Always fails: disabled once its failures span disable_after.
    let mut dead = Receiver::start(&ca, Mode::AlwaysFail).await;
    let id = subscribe(&s, &dead, json!({})).await;
    adjust(&s, &inventory).await;
    let v = wait_for(&s, &format!("/api/webhooks/{id}"), |v| {
        v["isActive"] == false
    })
    .await;
    let reason = v["disabledReason"].as_str().unwrap();
    assert!(
        reason.starts_with("every delivery attempt failed for 400 ms"),
        "{reason}"
    );
    let span = ms(&v["disabledAt"]) - ms(&v["failingSince"]);
    assert!(span >= 400, "disabled {span} ms after the first failure");
    let d = wait_for(&s, &format!("/api/webhooks/{id}/deliveries"), |v| {
        v["deliveries"][0]["status"] == "failed"
    })
    .await;
    let d = &d["deliveries"][0];
    let attempts = d["attempts"].as_array().unwrap().len();
    assert!(
        (2..5).contains(&attempts),
        "disabled before the round ended: {d}"
    );
    assert_eq!(d["failureReason"], reason);
    let mut hits = 0;
    while dead.try_next().is_some() {
        hits += 1;
    }
    assert_eq!(hits, attempts, "no attempt after it was disabled");
    let (_, list) = s.get_json("/api/webhooks").await;
    let listed = list["webhooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == id.as_str())
        .unwrap();
    assert_eq!(listed["disabledReason"], reason);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_attempt_follows_a_redirect() {
    let ca = TestCa::new();
    let s = server(&ca, &[50, 50, 50, 50], Duration::from_secs(3600)).await;
    let mut target = Receiver::start(&ca, Mode::Succeed).await;
    for code in [302u16, 307, 308] {
        let mut r = Receiver::start(&ca, Mode::Status(code)).await;
        r.set_headers(&[("location", target.url.as_str())]);
        let id = subscribe(&s, &r, json!({})).await;
        let sku = format!("REDIR-{code}");
        stocked_sku(&s, &sku).await;
        let first = r.next(GUARD).await;
        assert_eq!(first.answered, code);
        // The retry comes back to the subscriber, not to the redirect's target.
        assert_eq!(r.next(GUARD).await.event_id(), first.event_id());
        let v = wait_for(&s, &format!("/api/webhooks/{id}/deliveries"), |v| {
            v["deliveries"][0]["attempts"]
                .as_array()
                .is_some_and(|a| a.len() >= 2)
        })
        .await;
        let a = &v["deliveries"][0]["attempts"][0];
        assert_eq!(a["statusCode"], code);
        assert_eq!(a["error"], format!("HTTP status {code}"));
        assert!(target.try_next().is_none(), "{code} was followed");
        let gone = s.req(Method::DELETE, &format!("/api/webhooks/{id}"));
        assert_eq!(gone.send().await.unwrap().status(), 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordered_subscription_gets_one_delivery_at_a_time_in_commit_order() {
    let ca = TestCa::new();
    // Two attempts per round: the first event fails for good, then the rest follow.
    let s = server(&ca, &[100], Duration::from_secs(3600)).await;
    let mut r = Receiver::start(&ca, Mode::FailNext(3)).await;
    let id = subscribe(&s, &r, json!({"ordered": true})).await;
    assert_eq!(hook(&s, &id).await["ordered"], true);
    let inventory = stocked_sku(&s, "ORD-1").await;
    for _ in 0..5 {
        adjust(&s, &inventory).await;
    }
    // Six events (onHand 100..105). Event 1 fails twice (for good), event 2 fails once and
    // is retried; none behind a failing one is sent before it.
    let mut seen = Vec::new();
    for _ in 0..8 {
        let hit = r.next(GUARD).await;
        seen.push((hit.json()["data"]["onHand"].as_i64().unwrap(), hit.answered));
    }
    assert_eq!(
        seen,
        vec![
            (100, 500),
            (100, 500),
            (101, 500),
            (101, 200),
            (102, 200),
            (103, 200),
            (104, 200),
            (105, 200)
        ]
    );
    let v = wait_for(
        &s,
        &format!("/api/webhooks/{id}/deliveries?status=delivered"),
        |v| v["pagination"]["total"] == 5,
    )
    .await;
    assert_eq!(v["pagination"]["total"], 5);
    assert!(r.try_next().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_and_the_document_describe_schemes_rotation_disabling_and_ordering() {
    let s = Server::start().await;
    let html = s.text("/api/docs").await;
    for needle in [
        "standard-webhooks",
        "webhook-signature",
        "whsec_",
        "rotate-secret",
        "X-Webhook-Signature-Previous",
        "410 Gone",
        "Retry-After",
        "webhook_disable_after",
        "disabledReason",
        "ordered",
    ] {
        assert!(html.contains(needle), "docs mention {needle}");
    }
    let (_, doc) = s.get_json("/api/openapi.json").await;
    let schemas = &doc["components"]["schemas"];
    let hook = &schemas["Webhook"]["properties"];
    for field in [
        "signatureScheme",
        "ordered",
        "disabledReason",
        "failingSince",
        "previousSecretExpiresAt",
    ] {
        assert!(hook[field].is_object(), "Webhook.{field}");
    }
    assert_eq!(
        hook["signatureScheme"]["enum"],
        json!(["fulfilld", "standard-webhooks"])
    );
    assert!(schemas["WebhookCreate"]["properties"]["ordered"].is_object());
    let rotate = &doc["paths"]["/api/webhooks/{id}/rotate-secret"]["post"];
    assert_eq!(rotate["requestBody"]["required"], false);
    assert_eq!(
        rotate["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/WebhookSecretRotation"
    );
}
