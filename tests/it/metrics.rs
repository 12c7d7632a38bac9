//! `GET /metrics`: counters that move with traffic, the exposition accepted by `promtool`,
//! who may scrape, and the request id every answer carries.

use std::process::Command;

use serde_json::{json, Value};
use storage::tables::Meta;
use storage::Abort;

use crate::support::{assert_error, body, run_checker, tier_limits, Crashable, Server};

async fn scrape(s: &Server) -> (u16, String, String) {
    let resp = s.http.get(s.url("/metrics")).send().await.unwrap();
    let status = resp.status().as_u16();
    let content_type = resp.headers()["content-type"].to_str().unwrap().to_string();
    (status, content_type, resp.text().await.unwrap())
}

/// The value of the sample `name{labels}` (labels as rendered, sorted by name).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
        .map(|v| v.trim().parse().unwrap())
}

/// `promtool check metrics` on `text`.
fn promtool_accepts(text: &str) {
    promtool(&["check", "metrics"], text);
}

/// Runs promtool with `args` and `stdin`, and asserts it succeeds. CI installs promtool
/// (Debian `prometheus`) and sets `FULFILLD_REQUIRE_PROMTOOL=1`; elsewhere a missing
/// promtool skips only this check.
fn promtool(args: &[&str], stdin: &str) {
    let Some(out) = run_checker(
        Command::new("promtool").args(args),
        stdin.as_bytes(),
        "FULFILLD_REQUIRE_PROMTOOL",
        "install the Debian package prometheus",
    ) else {
        return;
    };
    assert!(
        out.status.success(),
        "promtool {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_move_with_traffic_and_promtool_accepts_the_exposition() {
    let s = Server::start().await;
    let product = json!({"sku": "M-1", "name": "Mug", "price": 12.5, "weight": 0.8,
                         "dimensions": {"width": 4, "height": 5, "length": 4}});
    let (st, p) = s.post("/api/products", &product).await;
    assert_eq!(st, 201, "{p}");
    let id = p["id"].as_str().unwrap();
    for _ in 0..2 {
        let resp = s.get(&format!("/api/products/{id}")).send().await.unwrap();
        assert_eq!(resp.status(), 200);
    }
    let (st, _) = s.get_json("/api/products/nope").await;
    assert_eq!(st, 404);

    let (st, content_type, text) = scrape(&s).await;
    assert_eq!(st, 200, "{text}");
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let requests = |route: &str, method: &str, status: u16| {
        sample(
            &text,
            &format!("fulfilld_http_requests_total{{method=\"{method}\",route=\"{route}\",service=\"fulfillment\",status=\"{status}\"}}"),
        )
    };
    assert_eq!(requests("/api/products", "POST", 201), Some(1.0));
    // Ids do not split the series: both reads count under the route template.
    assert_eq!(requests("/api/products/{id}", "GET", 200), Some(2.0));
    assert_eq!(requests("/api/products/{id}", "GET", 404), Some(1.0));
    assert_eq!(
        sample(
            &text,
            "fulfilld_http_request_duration_seconds_count{method=\"GET\",route=\"/api/products/{id}\",service=\"fulfillment\"}"
        ),
        Some(3.0)
    );
    assert_eq!(sample(&text, "fulfilld_orders_created_total"), Some(0.0));
    assert!(sample(&text, "fulfilld_database_size_bytes").unwrap() > 0.0);
    assert!(sample(&text, "fulfilld_storage_commit_batch_writes_count").unwrap() >= 1.0);
    assert!(sample(&text, "process_resident_memory_bytes").unwrap() > 0.0);
    promtool_accepts(&text);

    // The scrape itself is counted by the next one.
    let (_, _, again) = scrape(&s).await;
    assert_eq!(
        sample(
            &again,
            "fulfilld_http_requests_total{method=\"GET\",route=\"/metrics\",service=\"fulfillment\",status=\"200\"}"
        ),
        Some(1.0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_are_refused_outside_the_allowed_networks() {
    let s = Server::start_with(|c| c.metrics.allow = vec!["10.0.0.0/8".parse().unwrap()]).await;
    let (st, v) = body(s.http.get(s.url("/metrics")).send().await.unwrap()).await;
    assert_eq!(st, 403);
    assert_error(&v, "forbidden", None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_token_is_required_even_from_loopback() {
    let token = "0123456789abcdef";
    let s = Server::start_with(|c| c.metrics.token = Some(token.into())).await;
    let (st, v) = body(s.http.get(s.url("/metrics")).send().await.unwrap()).await;
    assert_eq!(st, 403, "{v}");
    for (bearer, want) in [("fedcba9876543210", 403), (token, 200)] {
        let req = s.http.get(s.url("/metrics")).bearer_auth(bearer);
        assert_eq!(req.send().await.unwrap().status(), want, "{bearer}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_do_not_use_up_the_anonymous_limit_and_refusals_are_counted() {
    let s = Server::start_with(|c| tier_limits(c, storage::Tier::Starter, 1, 2)).await;
    // Empty this address's anonymous bucket (a token comes back only every minute).
    let mut refused = 0;
    for _ in 0..4 {
        if s.http.get(s.url("/health")).send().await.unwrap().status() == 429 {
            refused += 1;
        }
    }
    assert!(refused >= 2, "{refused}");
    // Scrapes still pass: they are not anonymous traffic.
    for _ in 0..3 {
        let (st, _, _) = scrape(&s).await;
        assert_eq!(st, 200);
    }
    let (_, _, text) = scrape(&s).await;
    assert_eq!(
        sample(&text, "fulfilld_rate_limited_total{tier=\"starter\"}"),
        Some(refused as f64)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_request_id_it_was_given_or_a_new_one() {
    let s = Server::start().await;
    let resp = s
        .http
        .get(s.url("/health"))
        .header("X-Request-Id", "req-42")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["x-request-id"], "req-42");
    let resp = s.get("/api/nothing-here").send().await.unwrap();
    assert_eq!(resp.status(), 404);
    let made = resp.headers()["x-request-id"].to_str().unwrap();
    assert!(uuid::Uuid::parse_str(made).is_ok(), "{made}");
}

fn monitoring(file: &str) -> String {
    std::fs::read_to_string(format!("{}/monitoring/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn the_alert_rules_pass_promtool() {
    let path = format!("{}/monitoring/alerts.yml", env!("CARGO_MANIFEST_DIR"));
    promtool(&["check", "rules", &path], "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_and_the_alerts_use_only_metrics_the_server_exports() {
    let s = Server::start().await;
    let (_, _, text) = scrape(&s).await;
    let exported: std::collections::BTreeSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let dashboard: serde_json::Value =
        serde_json::from_str(&monitoring("grafana-dashboard.json")).unwrap();
    let mut queries: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().unwrap().clone())
        .map(|t| t["expr"].as_str().unwrap().to_string())
        .collect();
    assert!(queries.len() >= 12);
    queries.push(monitoring("alerts.yml"));
    let mut used = 0;
    for q in &queries {
        for word in q.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !(word.starts_with("fulfilld_") || word.starts_with("process_")) {
                continue;
            }
            let name = ["_bucket", "_count", "_sum"]
                .iter()
                .find_map(|suffix| word.strip_suffix(suffix))
                .filter(|base| exported.contains(base))
                .unwrap_or(word);
            assert!(exported.contains(name), "{name} is not exported (in {q})");
            used += 1;
        }
    }
    assert!(used > 20, "{used}");
}

/// `fulfilld_packing_backlog` of the running server `c`.
async fn backlog(c: &Crashable) -> f64 {
    let resp = c.http.get(c.url("/metrics")).send().await.unwrap();
    sample(&resp.text().await.unwrap(), "fulfilld_packing_backlog").expect("backlog gauge")
}

/// The packing backlog is a counter kept by the transactions that queue and consume
/// packing jobs (a scrape reads one value instead of walking the queue); a database
/// without it, as an older build left it, has its jobs counted once at start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_packing_backlog_follows_the_jobs_and_is_counted_on_an_older_database() {
    let conf = tempfile::tempdir().unwrap();
    let config = conf.path().join("config.toml");
    std::fs::write(&config, "auto_pack = false\n").unwrap();
    let mut c = Crashable::start(&["--config", config.to_str().unwrap()]).await;
    c.mug_catalog(json!(9.5), 1000).await;
    let mut ids = Vec::new();
    for i in 0..4 {
        let order = json!({"externalId": format!("B-{i}"), "customerEmail": "b@example.com",
            "items": [{"sku": "MUG", "quantity": 1}],
            "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "postalCode": "89501", "country": "US"}]});
        ids.push(
            c.create("/api/orders", &order).await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(backlog(&c).await, 4.0);
    let (st, v) = c
        .post(&format!("/api/orders/{}/pack", ids[0]), &Value::Null)
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(backlog(&c).await, 3.0);

    assert!(c.terminate().success());
    let store = c.store();
    store
        .transact(|tx| {
            tx.remove::<Meta>(&"packing_jobs".to_string())?;
            Ok::<_, Abort<()>>(())
        })
        .unwrap();
    drop(store);
    c.restart().await;
    assert_eq!(backlog(&c).await, 3.0);
    // `fulfilld check` (run after the kill) compares the counter with the jobs.
    c.kill9();
}
