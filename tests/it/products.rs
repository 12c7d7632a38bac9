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
        let (status, v) = body(s.post_json("/api/products", &input).send().await.unwrap()).await;
        assert_eq!(status, 422, "{input}");
        assert_error(&v, "validation_error", Some(field));
    }
    let full = json!({"sku": "PAINT-1", "name": "Paint", "description": "Red", "price": 19.99,
        "unitCost": 7.1, "costCurrency": "EUR", "weight": 2.5,
        "dimensions": {"width": 6, "height": 7, "length": 6},
        "hazmat": {"class": "3", "unNumber": "1263"}, "orientation": "upright", "lowStockThreshold": 5});
    let (status, p) = body(s.post_json("/api/products", &full).send().await.unwrap()).await;
    assert_eq!(status, 201);
    assert_eq!(p["price"], json!(19.99));
    assert_eq!(p["unitCost"], json!(7.1));
    assert_eq!(p["costCurrency"], "EUR");
    assert_eq!(p["hazmat"]["unNumber"], "UN1263");
    assert_eq!(p["orientation"], "upright");
    assert_eq!(p["active"], true);
    let (_, fetched) = body(
        s.get(&format!("/api/products/{}", p["id"].as_str().unwrap()))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(fetched, p);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sku_is_unique_among_live_products_and_soft_delete_frees_it() {
    let s = Server::start().await;
    let (status, first) = body(
        s.post_json("/api/products", &mug("MUG-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201);
    let (status, dup) = body(
        s.post_json("/api/products", &mug("MUG-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 409);
    assert_error(&dup, "conflict", Some("sku"));

    let id = first["id"].as_str().unwrap();
    let (status, by_sku) = body(s.get("/api/products/sku/MUG-1").send().await.unwrap()).await;
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

    assert_eq!(
        s.get("/api/products/sku/MUG-1")
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let (_, list) = body(s.get("/api/products").send().await.unwrap()).await;
    assert_eq!(list["pagination"]["total"], 0);
    assert_eq!(list["products"], json!([]));
    let (status, history) = body(s.get(&format!("/api/products/{id}")).send().await.unwrap()).await;
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

    let (status, reused) = body(
        s.post_json("/api/products", &mug("MUG-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "SKU reusable after delete");
    assert_ne!(reused["id"], first["id"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_updates_clears_and_guards_sku() {
    let s = Server::start().await;
    let (_, a) = body(
        s.post_json("/api/products", &mug("A-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    body(
        s.post_json("/api/products", &mug("B-1"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let path = format!("/api/products/{}", a["id"].as_str().unwrap());
    let (status, v) = body(
        s.req(Method::PATCH, &path)
            .json(&json!({"sku": "B-1"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 409);
    assert_error(&v, "conflict", Some("sku"));
    let (status, v) = body(
        s.req(Method::PATCH, &path)
            .json(&json!({"name": null}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("name"));
    let (status, v) = body(
        s.req(Method::PATCH, &path)
            .json(&json!({"sku": "A-2", "price": 0.1, "dimensions": null, "weight": 1.5}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (v["sku"].as_str(), v["price"].as_f64(), v["weight"].as_f64()),
        (Some("A-2"), Some(0.1), Some(1.5))
    );
    assert!(v["dimensions"].is_null());
    assert_eq!(
        s.get("/api/products/sku/A-1")
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(
        s.get("/api/products/sku/A-2")
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
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
    let (_, page) = body(
        s.get("/api/products?limit=2&offset=1")
            .send()
            .await
            .unwrap(),
    )
    .await;
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
        let (st, v) = body(s.get(&format!("/api/products?{q}")).send().await.unwrap()).await;
        assert_eq!(st, status, "{q}");
        assert_eq!(v["error"]["field"], field, "{q}");
    }
}
