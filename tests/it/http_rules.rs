//! Cross-cutting rules on every route: rate limits and their headers, idempotency keys,
//! body size and media type, and the 404/405 envelopes.

use futures_util::stream;
use reqwest::Method;
use serde_json::{json, Value};
use storage::Tier;
use tokio::sync::mpsc;

use crate::support::{assert_error, body, tier_limits, Server};

fn rate_headers(resp: &reqwest::Response) -> (u64, u64, u64) {
    let h = |n: &str| {
        resp.headers()
            .get(n)
            .unwrap_or_else(|| panic!("{n} missing on {}", resp.status()))
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    (
        h("x-ratelimit-limit"),
        h("x-ratelimit-remaining"),
        h("x-ratelimit-reset"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_headers_on_every_response_and_429_after_the_burst() {
    let s = Server::start_with(|c| tier_limits(c, Tier::Starter, 60, 3)).await;
    let starter = s.client_of_tier(Tier::Starter);
    let now = time::OffsetDateTime::now_utc().unix_timestamp() as u64;
    for expected_remaining in [2, 1, 0] {
        let resp = s.get_with_key("/api/products", &starter.api_key).await;
        assert_eq!(resp.status(), 200);
        let (limit, remaining, reset) = rate_headers(&resp);
        assert_eq!((limit, remaining), (60, expected_remaining));
        assert!(
            reset > now && reset <= now + 5,
            "reset {reset} vs now {now}"
        );
    }
    let resp = s.get_with_key("/api/products", &starter.api_key).await;
    assert_eq!(resp.status(), 429);
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "one token per second: {retry}");
    assert_eq!(rate_headers(&resp).1, 0);
    assert_error(&resp.json().await.unwrap(), "rate_limited", None);

    // Other clients have their own buckets; unauthenticated traffic is limited per IP
    // and error responses carry the headers too.
    let other = s.get("/api/products").send().await.unwrap();
    assert_eq!(other.status(), 200);
    let mut answered = 0;
    loop {
        let r = s.http.get(s.url("/api/nowhere")).send().await.unwrap();
        rate_headers(&r);
        if r.status() == 429 {
            break;
        }
        assert_eq!(r.status(), 404);
        answered += 1;
        assert!(answered <= 3, "the IP bucket holds 3");
    }
    assert!(answered >= 1);
    let r = s.http.get(s.url("/api/products")).send().await.unwrap();
    assert_eq!(r.status(), 429, "the IP bucket is drained");
    rate_headers(&r);
}

fn held_body(first: &str) -> (mpsc::Sender<Result<Vec<u8>, std::io::Error>>, reqwest::Body) {
    let (tx, rx) = mpsc::channel::<Result<Vec<u8>, std::io::Error>>(4);
    tx.try_send(Ok(first.as_bytes().to_vec())).unwrap();
    let s = stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    (tx, reqwest::Body::wrap_stream(s))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_key_replays_refuses_reuse_and_reports_in_flight() {
    let s = Server::start().await;
    let create = |key: &str, body: &Value| {
        s.post_json("/api/products", body)
            .header("Idempotency-Key", key)
    };
    let mug = json!({"sku": "MUG", "name": "Mug", "price": 12.5});
    let first = create("k-1", &mug).send().await.unwrap();
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let (_, first_body) = body(first).await;

    let again = create("k-1", &mug).send().await.unwrap();
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(body(again).await.1, first_body, "the stored response");

    let (_, list) = s.get_json("/api/products").await;
    assert_eq!(list["pagination"]["total"], 1, "created once");

    let reused = create("k-1", &json!({"sku": "CUP", "name": "Cup", "price": 3}))
        .send()
        .await
        .unwrap();
    assert_eq!(reused.status(), 422);
    assert_error(
        &reused.json().await.unwrap(),
        "idempotency_key_reused",
        Some("Idempotency-Key"),
    );

    // Errors are stored too (only 5xx are not): a repeated invalid request replays.
    let bad = create("k-2", &json!({"name": "no sku"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let bad_again = create("k-2", &json!({"name": "no sku"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad_again.headers()["idempotent-replayed"], "true");

    // Two uploads with one key at once: whichever the server sees second is refused
    // while the first is still in flight; the first then completes.
    let send = |tx_body: reqwest::Body| {
        s.req(Method::POST, "/api/products")
            .header("Idempotency-Key", "k-3")
            .header("content-type", "application/json")
            .body(tx_body)
            .send()
    };
    let (tx_a, body_a) = held_body("{\"sku\":\"BOWL\",");
    let (tx_b, body_b) = held_body("{\"sku\":\"BOWL\",");
    let a = tokio::spawn(send(body_a));
    let b = tokio::spawn(send(body_b));
    let (loser, winner_tx, winner) = match futures_util::future::select(a, b).await {
        futures_util::future::Either::Left((r, b)) => (r, tx_b, b),
        futures_util::future::Either::Right((r, a)) => (r, tx_a, a),
    };
    let loser = loser.unwrap().unwrap();
    assert_eq!(loser.status(), 409);
    assert_error(
        &loser.json().await.unwrap(),
        "idempotency_in_progress",
        Some("Idempotency-Key"),
    );
    winner_tx
        .send(Ok(b"\"name\":\"Bowl\",\"price\":4}".to_vec()))
        .await
        .unwrap();
    drop(winner_tx);
    let done = winner.await.unwrap().unwrap();
    assert_eq!(done.status(), 201);
}

/// `POST /api/products` with this content type and raw body.
async fn raw_product(
    s: &Server,
    content_type: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    s.req(Method::POST, "/api/products")
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_are_413_and_other_media_types_415() {
    let s = Server::start_with(|c| c.limits.body_max_bytes = 2048).await;
    let big = json!({"sku": "BIG", "name": "x".repeat(4000), "price": 1});
    let resp = s.post_json("/api/products", &big).send().await.unwrap();
    assert_eq!(resp.status(), 413);
    assert_error(&resp.json().await.unwrap(), "payload_too_large", None);

    // Without a Content-Length (streamed), the limit still holds.
    let (tx, streamed) = held_body(&"x".repeat(3000));
    drop(tx);
    let resp = raw_product(&s, "application/json", streamed).await;
    assert_eq!(resp.status(), 413);

    let resp = raw_product(&s, "text/plain", "sku=1").await;
    assert_eq!(resp.status(), 415);
    assert_error(&resp.json().await.unwrap(), "unsupported_media_type", None);

    let resp = raw_product(&s, "application/json", "{\"sku\": ").await;
    assert_eq!(resp.status(), 400);
    assert_error(&resp.json().await.unwrap(), "bad_request", None);

    let resp = s
        .post_json(
            "/api/products",
            &json!({"sku": "A", "name": "A", "price": "cheap"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400, "wrong type");
    assert_error(&resp.json().await.unwrap(), "bad_request", Some("price"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_are_404_and_wrong_methods_405_with_allow() {
    let s = Server::start().await;
    let resp = s.get("/api/nothing-here").send().await.unwrap();
    assert_eq!(resp.status(), 404);
    assert_error(&resp.json().await.unwrap(), "not_found", None);

    let resp = s.req(Method::PUT, "/api/products").send().await.unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET, POST");
    assert_error(&resp.json().await.unwrap(), "method_not_allowed", None);

    let resp = s.http.delete(s.url("/health")).send().await.unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET");

    let resp = s
        .http
        .get(format!("{}/api/products", s.packing))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.status(),
        404,
        "fulfillment routes are not on the packing listener"
    );
}

/// Query strings and bodies are read as the OpenAPI document describes them: one value per
/// query parameter, an integral float as an integer, names counted as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_are_read_as_the_document_describes_them() {
    let s = Server::start().await;
    let resp = s.get("/api/products?limit=5&limit=6").send().await.unwrap();
    assert_eq!(resp.status(), 400);
    assert_error(&resp.json().await.unwrap(), "bad_request", Some("limit"));
    let resp = s.get("/api/orders?fromDate=").send().await.unwrap();
    assert_eq!(resp.status(), 200, "an empty filter is no filter");

    let product = |name: &str, threshold: Value| json!({"sku": "MUG-1", "name": name, "price": 3, "lowStockThreshold": threshold});
    let resp = s
        .post_json("/api/products", &product("Mug", json!(4.0)))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    assert_eq!(resp.json::<Value>().await.unwrap()["lowStockThreshold"], 4);
    for (p, status, field) in [
        (product("Mug", json!(4.5)), 400, "lowStockThreshold"),
        (product(" ", json!(1)), 422, "name"),
        (
            product(&format!("{} ", "m".repeat(200)), json!(1)),
            422,
            "name",
        ),
        (
            json!({"sku": "CUP", "name": "Cup", "price": 1, "dimensions": [1, 2, 3]}),
            400,
            "dimensions",
        ),
    ] {
        let resp = s.post_json("/api/products", &p).send().await.unwrap();
        assert_eq!(resp.status(), status, "{p}");
        let code = if status == 400 {
            "bad_request"
        } else {
            "validation_error"
        };
        assert_error(&resp.json().await.unwrap(), code, Some(field));
    }
}
