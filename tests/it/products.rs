//! Products: validation naming each field, SKU uniqueness, soft delete and SKU reuse,
//! and list pagination rules.

use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{assert_error, body, Server};

fn mug(sku: &str) -> Value {
    json!({"sku": sku, "name": "Mug", "price": 12.5, "weight": 0.8,
           "dimensions": {"width": 4, "height": 5, "length": 4}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_validates_every_field_by_path() {
    let s = Server::start().await;
    let cases = [
        (json!({"name": "x", "price": 1}), "sku"),
        (json!({"sku": "has space", "name": "x", "price": 1}), "sku"),
        (json!({"sku": "A", "price": 1}), "name"),
        (json!({"sku": "A", "name": "x"}), "price"),
        (json!({"sku": "A", "name": "x", "price": -1}), "price"),
        (json!({"sku": "A", "name": "x", "price": 1.23456}), "price"),
        (
            json!({"sku": "A", "name": "x", "price": 1, "weight": 0}),
            "weight",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "dimensions": {"height": 1, "length": 1}}),
            "dimensions.width",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "dimensions": {"width": 1, "height": -2, "length": 1}}),
            "dimensions.height",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "hazmat": {"class": "12", "unNumber": "UN1263"}}),
            "hazmat.class",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "hazmat": {"class": "3", "unNumber": "12"}}),
            "hazmat.unNumber",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "orientation": "sideways"}),
            "orientation",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "lowStockThreshold": -1}),
            "lowStockThreshold",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "unitCost": 0.5}),
            "costCurrency",
        ),
        (
            json!({"sku": "A", "name": "x", "price": 1, "unitCost": 0.5, "costCurrency": "usd"}),
            "costCurrency",
        ),
    ];
    for (input, field) in cases {
        let (status, v) = s.post("/api/products", &input).await;
        assert_eq!(status, 422, "{input}");
        assert_error(&v, "validation_error", Some(field));
    }
    let full = json!({"sku": "PAINT-1", "name": "Paint", "description": "Red", "price": 19.99,
        "unitCost": 7.1, "costCurrency": "EUR", "weight": 2.5,
        "dimensions": {"width": 6, "height": 7, "length": 6},
        "hazmat": {"class": "3", "unNumber": "1263"}, "orientation": "upright", "lowStockThreshold": 5});
    let (status, p) = s.post("/api/products", &full).await;
    assert_eq!(status, 201);
    assert_eq!(p["price"], json!(19.99));
    assert_eq!(p["unitCost"], json!(7.1));
    assert_eq!(p["costCurrency"], "EUR");
    assert_eq!(p["hazmat"]["unNumber"], "UN1263");
    assert_eq!(p["orientation"], "upright");
    assert_eq!(p["active"], true);
    let (_, fetched) = s
        .get_json(&format!("/api/products/{}", p["id"].as_str().unwrap()))
        .await;
    assert_eq!(fetched, p);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sku_is_unique_among_live_products_and_soft_delete_frees_it() {
    let s = Server::start().await;
    let (status, first) = s.post("/api/products", &mug("MUG-1")).await;
    assert_eq!(status, 201);
    let (status, dup) = s.post("/api/products", &mug("MUG-1")).await;
    assert_eq!(status, 409);
    assert_error(&dup, "conflict", Some("sku"));

    let id = first["id"].as_str().unwrap();
    let (status, by_sku) = s.get_json("/api/products/sku/MUG-1").await;
    assert_eq!((status, &by_sku["id"]), (200, &first["id"]));

    let (status, deleted) = body(
        s.req(Method::DELETE, &format!("/api/products/{id}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(deleted["active"], false);
    assert!(deleted["deletedAt"].is_string());

    assert_eq!(s.get_json("/api/products/sku/MUG-1").await.0, 404);
    let (_, list) = s.get_json("/api/products").await;
    assert_eq!(list["pagination"]["total"], 0);
    assert_eq!(list["products"], json!([]));
    let (status, history) = s.get_json(&format!("/api/products/{id}")).await;
    assert_eq!(
        (status, &history["active"]),
        (200, &json!(false)),
        "history kept"
    );
    assert_eq!(
        s.req(Method::DELETE, &format!("/api/products/{id}"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(
        s.req(Method::PATCH, &format!("/api/products/{id}"))
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    let (status, reused) = s.post("/api/products", &mug("MUG-1")).await;
    assert_eq!(status, 201, "SKU reusable after delete");
    assert_ne!(reused["id"], first["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_updates_clears_and_guards_sku() {
    let s = Server::start().await;
    let (_, a) = s.post("/api/products", &mug("A-1")).await;
    s.post("/api/products", &mug("B-1")).await;
    let path = format!("/api/products/{}", a["id"].as_str().unwrap());
    let (status, v) = s.send(Method::PATCH, &path, &json!({"sku": "B-1"})).await;
    assert_eq!(status, 409);
    assert_error(&v, "conflict", Some("sku"));
    let (status, v) = s.send(Method::PATCH, &path, &json!({"name": null})).await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("name"));
    let (status, v) = s
        .send(
            Method::PATCH,
            &path,
            &json!({"sku": "A-2", "price": 0.1, "dimensions": null, "weight": 1.5}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        (v["sku"].as_str(), v["price"].as_f64(), v["weight"].as_f64()),
        (Some("A-2"), Some(0.1), Some(1.5))
    );
    assert!(v["dimensions"].is_null());
    assert_eq!(s.get_json("/api/products/sku/A-1").await.0, 404);
    assert_eq!(s.get_json("/api/products/sku/A-2").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_page_newest_first_and_reject_bad_limits() {
    let s = Server::start().await;
    for i in 0..5 {
        assert_eq!(
            s.post_json("/api/products", &mug(&format!("P-{i}")))
                .send()
                .await
                .unwrap()
                .status(),
            201
        );
    }
    let (_, page) = s.get_json("/api/products?limit=2&offset=1").await;
    let skus: Vec<&str> = page["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sku"].as_str().unwrap())
        .collect();
    assert_eq!(skus, ["P-3", "P-2"]);
    assert_eq!(
        page["pagination"],
        json!({"limit": 2, "offset": 1, "total": 5})
    );
    for (q, status, field) in [
        ("limit=0", 422, "limit"),
        ("limit=201", 422, "limit"),
        ("offset=-1", 422, "offset"),
        ("limit=ten", 400, "limit"),
    ] {
        let (st, v) = s.get_json(&format!("/api/products?{q}")).await;
        assert_eq!(st, status, "{q}");
        assert_eq!(v["error"]["field"], field, "{q}");
    }
}

/// The list comes from an in-memory index and a cache of rendered products: a missed
/// index update or a stale cached body shows here as a wrong page, total or field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_follows_creates_updates_deletes_and_sku_reuse() {
    let s = Server::start().await;
    let mut ids = Vec::new();
    for i in 0..6 {
        let (status, p) = s.post("/api/products", &mug(&format!("P-{i}"))).await;
        assert_eq!(status, 201);
        ids.push(p["id"].as_str().unwrap().to_string());
    }
    let list = |q: &'static str| {
        let req = s.get(&format!("/api/products?{q}"));
        async move {
            let (status, v) = body(req.send().await.unwrap()).await;
            assert_eq!(status, 200, "{q}");
            v
        }
    };
    let skus = |v: &Value| -> Vec<String> {
        v["products"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["sku"].as_str().unwrap().to_string())
            .collect()
    };
    // Warms the rendered cache, so the checks below catch stale entries.
    let v = list("limit=200").await;
    assert_eq!(skus(&v), ["P-5", "P-4", "P-3", "P-2", "P-1", "P-0"]);

    // Several quick updates: each must show, even within one millisecond.
    let path = format!("/api/products/{}", ids[3]);
    let parse = |v: &Value| {
        let t = v["updatedAt"].as_str().unwrap();
        time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).unwrap()
    };
    let mut last_updated = time::OffsetDateTime::UNIX_EPOCH;
    for round in 0..5 {
        let (status, p) = s
            .send(
                Method::PATCH,
                &path,
                &json!({"name": format!("Mug v{round}"), "price": 3.25 + round as f64}),
            )
            .await;
        assert_eq!(status, 200);
        let updated = parse(&p);
        assert!(updated > last_updated, "updatedAt strictly increases");
        last_updated = updated;
        let v = list("limit=200").await;
        let listed = &v["products"][2];
        assert_eq!(listed, &p, "the list shows the updated product as written");
    }

    // Delete: gone from the list and the total; the SKU is reused by a new, newest product.
    let (status, _) = body(
        s.req(Method::DELETE, &format!("/api/products/{}", ids[1]))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let v = list("limit=200").await;
    assert_eq!(skus(&v), ["P-5", "P-4", "P-3", "P-2", "P-0"]);
    assert_eq!(v["pagination"]["total"], 5);
    let (status, reused) = s.post("/api/products", &mug("P-1")).await;
    assert_eq!(status, 201);
    let full = list("limit=200").await;
    assert_eq!(skus(&full), ["P-1", "P-5", "P-4", "P-3", "P-2", "P-0"]);
    assert_eq!(full["products"][0]["id"], reused["id"]);
    assert_eq!(full["pagination"]["total"], 6);

    // Every item is exactly what GET by id returns (cached bytes equal a fresh render).
    for p in full["products"].as_array().unwrap() {
        let (_, fetched) = s
            .get_json(&format!("/api/products/{}", p["id"].as_str().unwrap()))
            .await;
        assert_eq!(&fetched, p);
    }

    // Pages at every offset agree with the whole list and carry the same total.
    for limit in [1usize, 2, 4] {
        let mut walked = Vec::new();
        let mut offset = 0;
        loop {
            let (_, v) = s
                .get_json(&format!("/api/products?limit={limit}&offset={offset}"))
                .await;
            assert_eq!(
                v["pagination"],
                json!({"limit": limit, "offset": offset, "total": 6})
            );
            let page = v["products"].as_array().unwrap().clone();
            if page.is_empty() {
                break;
            }
            assert!(page.len() <= limit);
            walked.extend(page);
            offset += limit;
        }
        assert_eq!(&Value::Array(walked), &full["products"], "limit {limit}");
    }

    // The index rebuilt from storage (as at start) lists the same page.
    let fresh = fulfilld::domain::product_index::ProductIndex::default();
    fulfilld::domain::products::load_index(&s.store, &fresh).unwrap();
    let (page, total) = fresh.page(0, 200);
    let listed: Vec<String> = page
        .iter()
        .map(|r| uuid::Uuid::from_u128(r.id).to_string())
        .collect();
    let expected: Vec<String> = full["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!((listed, total), (expected, 6));
}
