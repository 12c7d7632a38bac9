//! `/health`, the OpenAPI documents (checked against the route table) and the docs page.

use std::collections::BTreeSet;

use fulfilld::http::routes::{Service, ROUTES};
use serde_json::Value;

use crate::support::{body, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_storage_and_turns_503_when_storage_fails() {
    let s = Server::start().await;
    let resp = s.http.get(s.url("/health")).send().await.unwrap();
    assert!(resp.headers().contains_key("x-ratelimit-limit"));
    let (status, v) = body(resp).await;
    assert_eq!(status, 200);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["uptimeSeconds"].is_u64());
    assert_eq!(v["storage"]["status"], "ok");

    let (status, v) = body(
        s.http
            .get(format!("{}/api/v1/health", s.packing))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, v["status"].as_str()), (200, Some("ok")));

    s.store.mark_failed("disk on fire");
    let (status, v) = body(s.http.get(s.url("/health")).send().await.unwrap()).await;
    assert_eq!(status, 503);
    assert_eq!(v["status"], "unavailable");
    assert_eq!(v["storage"]["status"], "failed");
    assert_eq!(v["error"]["code"], "unavailable");

    // A write that cannot be made durable is not acknowledged.
    let resp = s
        .post_json(
            "/api/products",
            &serde_json::json!({"sku": "X", "name": "X", "price": 1}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(
        resp.json::<Value>().await.unwrap()["error"]["code"],
        "unavailable"
    );
}

fn operations(doc: &Value) -> BTreeSet<(String, String)> {
    doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |m| (m.to_ascii_uppercase(), path.clone()))
        })
        .collect()
}

fn routes_of(service: Service) -> BTreeSet<(String, String)> {
    ROUTES
        .iter()
        .filter(|r| r.service == service && r.documented())
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect()
}

/// Every `$ref` in the document points at something that exists.
fn check_refs(doc: &Value, node: &Value) {
    match node {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                let target = r
                    .trim_start_matches("#/")
                    .split('/')
                    .fold(doc, |n, k| &n[k]);
                assert!(!target.is_null(), "dangling $ref {r}");
            }
            m.values().for_each(|v| check_refs(doc, v));
        }
        Value::Array(a) => a.iter().for_each(|v| check_refs(doc, v)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_documents_are_3_1_and_match_the_router_exactly() {
    let s = Server::start().await;
    for (url, service) in [
        (s.url("/api/openapi.json"), Service::Fulfillment),
        (
            format!("{}/api/v1/openapi.json", s.packing),
            Service::Packing,
        ),
    ] {
        let resp = s.http.get(&url).send().await.unwrap();
        assert_eq!(resp.status(), 200, "{url} needs no credentials");
        let doc: Value = resp.json().await.unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(
            operations(&doc),
            routes_of(service),
            "{url} disagrees with the router"
        );
        check_refs(&doc, &doc);
        for (_, item) in doc["paths"].as_object().unwrap() {
            for (_, op) in item.as_object().unwrap() {
                assert!(op["responses"].as_object().is_some_and(|r| !r.is_empty()));
                assert!(op["operationId"].is_string());
            }
        }
    }
    // Every route the router answers is documented: a request to each path template
    // reaches a handler, never the router's 404.
    for r in ROUTES.iter().filter(|r| r.service == Service::Fulfillment) {
        let path = r
            .path
            .replace("{id}", "00000000-0000-0000-0000-000000000000")
            .replace("{sku}", "NONE");
        let resp = s.req(r.method.clone(), &path).send().await.unwrap();
        let v: Value = resp.json().await.unwrap_or(Value::Null);
        assert!(
            !v["error"]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("No route"),
            "{} {} is not routed",
            r.method,
            r.path
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_page_is_self_contained_html_covering_every_route() {
    let s = Server::start().await;
    let resp = s.http.get(s.url("/api/docs")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = resp.text().await.unwrap();
    assert!(html.starts_with("<!doctype html>"));
    for forbidden in ["<script src", "<link", "http://", "https://cdn", "@import"] {
        assert!(!html.contains(forbidden), "external asset: {forbidden}");
    }
    for r in ROUTES
        .iter()
        .filter(|r| r.service == Service::Fulfillment && r.documented())
    {
        assert!(
            html.contains(&format!("<code>{}</code>", r.path)),
            "{} missing",
            r.path
        );
    }
}
