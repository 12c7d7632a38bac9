//! `/health`, the OpenAPI documents (checked against the route table, their links against
//! their operations and schemas) and the docs page.

use std::collections::{BTreeMap, BTreeSet};

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
                // Whole components only: generators cannot resolve a reference into one.
                assert_eq!(r.split('/').count(), 4, "$ref into a component: {r}");
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

/// Follows `$ref`s and `allOf` to the object schema that defines `name`, if any.
fn property<'a>(doc: &'a Value, schema: &'a Value, name: &str) -> Option<&'a Value> {
    let schema = deref(doc, schema);
    if let Some(p) = schema["properties"].get(name) {
        return Some(p);
    }
    schema["allOf"]
        .as_array()?
        .iter()
        .find_map(|s| property(doc, s, name))
}

fn deref<'a>(doc: &'a Value, mut schema: &'a Value) -> &'a Value {
    while let Some(r) = schema["$ref"].as_str() {
        schema = r
            .trim_start_matches("#/")
            .split('/')
            .fold(doc, |n, k| &n[k]);
    }
    schema
}

/// The schema a JSON pointer into a body of `schema` reaches: names through
/// `properties`, numbers through `items`; `None` when the schema has no such place.
fn schema_at<'a>(doc: &'a Value, schema: &'a Value, pointer: &str) -> Option<&'a Value> {
    pointer.split('/').skip(1).try_fold(schema, |s, segment| {
        if segment.parse::<usize>().is_ok() {
            let items = &deref(doc, s)["items"];
            (!items.is_null()).then_some(items)
        } else {
            property(doc, s, segment)
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_links_name_real_operations_and_real_response_fields() {
    let s = Server::start().await;
    let doc = s.get_ok("/api/openapi.json").await;
    let mut ops: BTreeMap<String, &Value> = BTreeMap::new();
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap().to_string();
            assert!(
                ops.insert(id.clone(), op).is_none(),
                "operationId {id} twice"
            );
        }
    }
    // Every link: its operation exists, its parameters are that operation's and cover
    // its path parameters, and each value is a pointer to a field of the response.
    let mut found: BTreeSet<(String, String, String)> = BTreeSet::new();
    for (source, op) in &ops {
        for (status, response) in op["responses"].as_object().unwrap() {
            let Some(links) = response.get("links") else {
                continue;
            };
            let schema = &response["content"]["application/json"]["schema"];
            assert!(
                schema.is_object(),
                "{source} {status}: links without a JSON body"
            );
            for (name, link) in links.as_object().unwrap() {
                let target = link["operationId"].as_str().unwrap();
                let Some(target_op) = ops.get(target) else {
                    panic!("{source} {status} {name}: no operation {target}");
                };
                let declared = |p: &Value| p["name"].as_str().map(str::to_string);
                let target_params: BTreeMap<String, &Value> = target_op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| Some((declared(p)?, p)))
                    .collect();
                let params = link["parameters"].as_object().unwrap();
                for (param, expression) in params {
                    assert!(
                        target_params.contains_key(param),
                        "{source} {status} {name}: {target} has no parameter {param}"
                    );
                    let pointer = expression
                        .as_str()
                        .and_then(|e| e.strip_prefix("$response.body#"))
                        .unwrap_or_else(|| panic!("{source} {status} {name}: {expression}"));
                    assert!(
                        schema_at(&doc, schema, pointer).is_some(),
                        "{source} {status} {name}: {pointer} is not in the response schema"
                    );
                }
                for (param, p) in &target_params {
                    if p["in"] == "path" {
                        assert!(
                            params.contains_key(param),
                            "{source} {status} {name}: path parameter {param} unset"
                        );
                    }
                }
                found.insert((source.clone(), status.clone(), target.to_string()));
            }
        }
    }
    // The resources' lifecycles are linked from the responses that create them.
    for (source, status, targets) in [
        (
            "createOrder",
            "201",
            &[
                "getOrder",
                "updateOrder",
                "cancelOrder",
                "listOrderEvents",
                "packOrder",
                "listPackages",
            ][..],
        ),
        ("createOrder", "200", &["getOrder", "cancelOrder"]),
        (
            "createProduct",
            "201",
            &[
                "getProduct",
                "updateProduct",
                "deleteProduct",
                "getProductBySku",
            ],
        ),
        (
            "createWarehouse",
            "201",
            &["getWarehouse", "updateWarehouse"],
        ),
        (
            "createInventory",
            "201",
            &[
                "getInventory",
                "adjustInventory",
                "listInventoryAdjustments",
            ],
        ),
        (
            "createWebhook",
            "201",
            &[
                "getWebhook",
                "updateWebhook",
                "deleteWebhook",
                "testWebhook",
                "listWebhookDeliveries",
                "rotateWebhookSecret",
            ],
        ),
        ("testWebhook", "202", &["retryWebhookDelivery"]),
        ("rotateWebhookSecret", "200", &["getWebhook"]),
        (
            "getPackage",
            "200",
            &[
                "shipPackage",
                "markPackagePacked",
                "listPackageEvents",
                "getOrder",
            ],
        ),
        ("markPackagePacked", "200", &["getPackage", "shipPackage"]),
    ] {
        for target in targets {
            assert!(
                found.contains(&(source.to_string(), status.to_string(), target.to_string())),
                "{source} {status} does not link to {target}"
            );
        }
    }
    // The ids go where they belong: the delivery's own id is the deliveryId, its
    // subscription's the id; a rotation's subscription is inside the answer.
    let retry = &ops["testWebhook"]["responses"]["202"]["links"]["RetryWebhookDelivery"];
    assert_eq!(
        retry["parameters"],
        serde_json::json!({"id": "$response.body#/webhookId", "deliveryId": "$response.body#/id"})
    );
    let get = &ops["rotateWebhookSecret"]["responses"]["200"]["links"]["GetWebhook"];
    assert_eq!(get["parameters"]["id"], "$response.body#/webhook/id");
}
