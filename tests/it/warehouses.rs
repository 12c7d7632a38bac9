//! Warehouses: box catalogs validated by field path, caller-chosen or generated ids,
//! duplicate 409, PATCH replacing the catalog.

use reqwest::Method;
use serde_json::json;

use crate::support::{assert_error, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warehouses_validate_boxes_by_path_and_keep_ids_unique() {
    let s = Server::start().await;
    let good_box = json!({"boxId": "S", "width": 8, "height": 6, "length": 10, "maxWeight": 20});
    let cases = [
        (json!({"boxes": []}), "name"),
        (json!({"id": "has space", "name": "x"}), "id"),
        (
            json!({"name": "x", "boxes": [good_box, {"boxId": "M", "width": 8, "height": 6, "length": 10, "maxWeight": 0}]}),
            "boxes[1].maxWeight",
        ),
        (
            json!({"name": "x", "boxes": [good_box, good_box]}),
            "boxes[1].boxId",
        ),
        (
            json!({"name": "x", "boxes": [{"boxId": "S", "height": 6, "length": 10, "maxWeight": 5}]}),
            "boxes[0].width",
        ),
        (
            json!({"name": "x", "boxes": [{"boxId": "S", "width": 1, "height": 6, "length": 10, "maxWeight": 5, "quantity": -1}]}),
            "boxes[0].quantity",
        ),
        (
            json!({"name": "x", "address": {"line1": "1 Main", "city": "Reno", "postalCode": "89501", "country": "XX"}}),
            "address.country",
        ),
        (
            json!({"name": "x", "address": {"city": "Reno", "postalCode": "89501", "country": "US"}}),
            "address.line1",
        ),
    ];
    for (input, field) in cases {
        let (status, v) = s.post("/api/warehouses", &input).await;
        assert_eq!(status, 422, "{input}");
        assert_error(&v, "validation_error", Some(field));
    }

    let rno = json!({"id": "RNO", "name": "Reno DC",
        "address": {"street1": "1 Main St", "city": "Reno", "region": "NV", "postalCode": "89501", "country": "us"},
        "boxes": [good_box, {"boxId": "L", "width": 20, "height": 20, "length": 20, "maxWeight": 50, "quantity": 10, "cost": 1.25, "tareWeight": 0.5}]});
    let (status, w) = s.post("/api/warehouses", &rno).await;
    assert_eq!(status, 201, "{w}");
    assert_eq!(w["id"], "RNO");
    assert_eq!(
        w["address"]["line1"], "1 Main St",
        "street1 is an alias of line1"
    );
    assert_eq!(w["address"]["country"], "US");
    assert_eq!(
        w["boxes"][0]["quantity"],
        serde_json::Value::Null,
        "absent quantity is unlimited"
    );
    assert_eq!(w["boxes"][1]["cost"], json!(1.25));

    let (status, v) = s.post("/api/warehouses", &rno).await;
    assert_eq!(status, 409);
    assert_error(&v, "conflict", Some("id"));

    let (status, gen) = s
        .post("/api/warehouses", &json!({"name": "Overflow"}))
        .await;
    assert_eq!(status, 201);
    assert!(gen["id"].as_str().unwrap().starts_with("WH-"));

    let (status, patched) = s
        .send(
            Method::PATCH,
            "/api/warehouses/RNO",
            &json!({"boxes": [good_box], "name": "Reno"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(patched["boxes"].as_array().unwrap().len(), 1);
    assert_eq!(patched["name"], "Reno");
    assert_eq!(patched["address"]["city"], "Reno", "untouched fields stay");

    assert_eq!(s.get_json("/api/warehouses/NOPE").await.0, 404);
    let (_, list) = s.get_json("/api/warehouses?limit=1").await;
    assert_eq!(list["pagination"]["total"], 2);
    assert_eq!(list["warehouses"][0]["name"], "Overflow", "newest first");
}
