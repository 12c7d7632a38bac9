//! The fulfillment flow: orders packed by the engine into validator-checked packages,
//! shipping to delivery end to end with signed events, cancel voiding packages, orders
//! that cannot be packed, and exactly-once packing across kill -9.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{
    assert_error, auto_packing_with_receiver, body, now, packable_catalog, packable_order,
    packable_order_body, verify, Crashable, Hit, Mode, Receiver, Server, TestCa, UPS, UPS_SECRET,
};

const SECRET: &str = "whsec-test-0123456789";
const GUARD: Duration = Duration::from_secs(30);

/// The packing engine's own answer for one warehouse of the fixture: the server must
/// have stored exactly this (the engine is deterministic and `pack` validates its result
/// with the independent validator before returning it).
fn expected_packing(sku: &str, quantity: i64) -> packing::PackSolution {
    let (w, h, l, weight, upright) = match sku {
        "MUG" => (4.0, 4.0, 4.0, 1.0, true),
        _ => (5.0, 9.0, 5.0, 3.0, false),
    };
    let mut item = packing::Item::new(sku, w, h, l, weight, quantity);
    if upright {
        item.orientation = packing::Orientation::Upright;
    }
    let mut wh = packing::Warehouse {
        warehouse_id: if sku == "MUG" { "W1" } else { "W2" }.into(),
        ..Default::default()
    };
    wh.boxes
        .push(packing::BoxType::new("S", 6.0, 6.0, 6.0, 20.0));
    wh.boxes
        .push(packing::BoxType::new("M", 12.0, 10.0, 12.0, 40.0));
    wh.inventory.insert(sku.into(), quantity);
    let req = packing::PackRequest {
        items: vec![item],
        warehouses: vec![wh],
        ..Default::default()
    };
    let sol = packing::pack(&req).expect("the fixture packs");
    packing::validate(&req, &sol).expect("valid");
    sol
}

/// Asserts that the API's packages of one warehouse are the engine's packing.
fn assert_same_packing(api: &[&Value], sol: &packing::PackSolution) {
    assert_eq!(api.len(), sol.packages.len(), "package count");
    let close = |a: &Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-3;
    for (p, e) in api.iter().zip(&sol.packages) {
        assert_eq!(p["boxId"], e.box_id.as_str());
        assert_eq!(p["warehouseId"], e.warehouse_id.as_str());
        let placements: Vec<&Value> = p["items"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|i| i["placements"].as_array().unwrap())
            .collect();
        assert_eq!(placements.len(), e.items.len());
        for (got, want) in placements.iter().zip(&e.items) {
            assert!(close(&got["position"]["x"], want.position.x), "{got}");
            assert!(close(&got["position"]["y"], want.position.y), "{got}");
            assert!(close(&got["position"]["z"], want.position.z), "{got}");
            assert!(close(&got["dimensions"]["width"], want.dimensions.width));
            assert!(close(&got["dimensions"]["height"], want.dimensions.height));
            assert!(close(&got["dimensions"]["length"], want.dimensions.length));
        }
        assert!(close(&p["weight"], e.gross_weight));
    }
}

/// Envelopes from the receiver (signature checked on each) until `done` holds for the
/// distinct events seen so far.
async fn events_until(r: &mut Receiver, seen: &mut Vec<Value>, done: impl Fn(&[Value]) -> bool) {
    let mut ids: HashSet<String> = seen
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    while !done(seen) {
        let hit = r.next(GUARD).await;
        assert!(verify(SECRET, &hit), "every delivery is signed");
        let v = hit.json();
        if ids.insert(v["id"].as_str().unwrap().to_string()) {
            seen.push(v);
        }
    }
}

fn count(seen: &[Value], kind: &str) -> usize {
    seen.iter().filter(|e| e["type"] == kind).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_goes_from_pending_to_delivered_without_a_person() {
    let ca = TestCa::new();
    let events = [
        "order.created",
        "order.updated",
        "order.shipped",
        "package.created",
        "package.shipped",
        "package.delivered",
    ];
    let (s, mut r) = auto_packing_with_receiver(&ca, SECRET, &events).await;
    s.set_secret("carrier:ups", UPS_SECRET);

    // Created, then packed in the background: one package.created per package and the
    // order to processing.
    let o = packable_order(&s, "E2E-1", 3, 2).await;
    assert_eq!(o["status"], "pending");
    let id = o["id"].as_str().unwrap().to_string();
    let mut seen = Vec::new();
    events_until(&mut r, &mut seen, |e| {
        e.iter()
            .any(|e| e["type"] == "order.updated" && e["data"]["status"] == "processing")
    })
    .await;
    let order_now = s.order(&id).await;
    assert_eq!(order_now["status"], "processing");
    let packages = s.packages_of(&id).await;
    let w1: Vec<&Value> = packages
        .iter()
        .filter(|p| p["warehouseId"] == "W1")
        .collect();
    let w2: Vec<&Value> = packages
        .iter()
        .filter(|p| p["warehouseId"] == "W2")
        .collect();
    assert_same_packing(&w1, &expected_packing("MUG", 3));
    assert_same_packing(&w2, &expected_packing("LAMP", 2));
    events_until(&mut r, &mut seen, |e| {
        count(e, "package.created") == packages.len()
    })
    .await;
    for p in &packages {
        assert_eq!(p["status"], "created");
        assert_eq!(p["orderId"], id.as_str());
        assert!(p["id"].as_str().unwrap().starts_with("pkg_"));
        let one = s
            .get_ok(&format!("/api/packages/{}", p["id"].as_str().unwrap()))
            .await;
        assert_eq!(&one, p);
    }

    // Ship every package: stock leaves (onHand and reserved drop), package.shipped each,
    // and with the last one the order ships with all tracking numbers.
    let mut tracking = Vec::new();
    for (i, p) in packages.iter().enumerate() {
        let number = format!("1Z{i:04}");
        let (status, shipped) = s.ship(p["id"].as_str().unwrap(), &number).await;
        assert_eq!(status, 200, "{shipped}");
        assert_eq!(shipped["status"], "shipped");
        assert_eq!(shipped["trackingNumber"], number.as_str());
        assert!(shipped["shippedAt"].is_string());
        tracking.push(number);
        let o = s.order(&id).await;
        let last = i + 1 == packages.len();
        assert_eq!(o["status"], if last { "shipped" } else { "processing" });
    }
    let (status, again) = s
        .ship(packages[0]["id"].as_str().unwrap(), &tracking[0])
        .await;
    assert_eq!(status, 200, "the same shipment again is a no-op: {again}");
    for (sku, left) in [("MUG", 7), ("LAMP", 8)] {
        let inv = s.inventory_of(sku).await;
        assert_eq!(
            (inv["onHand"].as_i64(), inv["reserved"].as_i64()),
            (Some(left), Some(0))
        );
    }
    events_until(&mut r, &mut seen, |e| count(e, "order.shipped") == 1).await;
    let shipped_event = seen.iter().find(|e| e["type"] == "order.shipped").unwrap();
    assert_eq!(shipped_event["data"]["orderId"], id.as_str());
    assert_eq!(shipped_event["data"]["status"], "shipped");
    let mut numbers: Vec<String> = shipped_event["data"]["trackingNumbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    numbers.sort();
    assert_eq!(numbers, tracking);

    // The carrier reports each package delivered; with the last the order is delivered.
    for (i, number) in tracking.iter().enumerate() {
        let update = |event: &str, status: &str| {
            json!({"eventId": event, "trackingNumber": number, "status": status,
                   "occurredAt": "2026-11-22T10:00:00Z", "location": "Springfield"})
        };
        let path = UPS;
        let (status, v) = s
            .signed(
                path,
                UPS_SECRET,
                now(),
                &update(&format!("t{i}"), "in_transit"),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["event"]["outcome"], "applied");
        let (status, v) = s
            .signed(
                path,
                UPS_SECRET,
                now(),
                &update(&format!("d{i}"), "delivered"),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["package"]["status"], "delivered");
    }
    assert_eq!(s.order(&id).await["status"], "delivered");
    events_until(&mut r, &mut seen, |e| {
        count(e, "package.delivered") == packages.len()
            && e.iter()
                .any(|e| e["type"] == "order.updated" && e["data"]["status"] == "delivered")
    })
    .await;
    assert_eq!(count(&seen, "order.created"), 1);
    assert_eq!(count(&seen, "package.shipped"), packages.len());
    assert_eq!(count(&seen, "package.created"), packages.len());
    assert_eq!(count(&seen, "order.shipped"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_voids_unshipped_packages_and_releases_their_stock() {
    let s = Server::start().await;
    packable_catalog(&s).await;
    let o = packable_order(&s, "CX-1", 2, 1).await;
    let id = o["id"].as_str().unwrap().to_string();
    s.pack(&id).await;
    let (status, v) = s.cancel(&id, &json!({"reason": "changed mind"})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "cancelled");
    for p in s.packages_of(&id).await {
        assert_eq!(p["status"], "voided");
        let (status, v) = s.ship(p["id"].as_str().unwrap(), "1ZVOID").await;
        assert_eq!(status, 409, "{v}");
        assert_error(&v, "invalid_transition", Some("status"));
    }
    for sku in ["MUG", "LAMP"] {
        assert_eq!(s.inventory_of(sku).await["reserved"], 0, "{sku} released");
    }
    let voided = s.get_ok("/api/packages?status=voided").await;
    assert_eq!(voided["pagination"]["total"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_with_a_shipped_package_cannot_be_cancelled() {
    let s = Server::start().await;
    packable_catalog(&s).await;
    // Once one package shipped, its stock has left: the order cannot be cancelled.
    let o = packable_order(&s, "CX-2", 1, 1).await;
    let id = o["id"].as_str().unwrap().to_string();
    s.pack(&id).await;
    let first = s.packages_of(&id).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(s.ship(&first, "1ZPART").await.0, 200);
    let (status, v) = s.cancel(&id, &json!({})).await;
    assert_eq!(status, 409, "{v}");
    assert_error(&v, "invalid_transition", Some("status"));
    assert_eq!(s.order(&id).await["status"], "processing");
    let (status, v) = s.ship("pkg_nope", "1Z").await;
    assert_eq!(status, 404, "{v}");
    let (status, v) = s
        .post(
            &format!("/api/fulfillment/packages/{first}/ship"),
            &json!({"carrier": "ups"}),
        )
        .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("trackingNumber"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_that_cannot_be_packed_stays_pending_with_a_reason() {
    let s = Server::start().await;
    packable_catalog(&s).await;
    let (status, v) = s
        .post(
            "/api/products",
            &json!({"sku": "BARE", "name": "No size", "price": 1}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let product = v["id"].as_str().unwrap().to_string();
    let (status, _) = s
        .post(
            "/api/inventory",
            &json!({"sku": "BARE", "warehouseId": "W1", "onHand": 5}),
        )
        .await;
    assert_eq!(status, 201);
    let (status, o) = s.post("/api/orders",
            &json!({"externalId": "BARE-1", "customerEmail": "b@example.com",
                    "items": [{"sku": "BARE", "quantity": 1}],
                    "shippingAddresses": [{"line1": "1 Main St", "city": "X", "postalCode": "1", "country": "US"}]})).await;
    assert_eq!(status, 201, "{o}");
    let id = o["id"].as_str().unwrap().to_string();
    let (status, v) = body(
        s.req(Method::POST, &format!("/api/orders/{id}/pack"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("BARE"),
        "{v}"
    );
    let o = s.order(&id).await;
    assert_eq!(o["status"], "pending");
    assert!(
        o["pendingReason"].as_str().unwrap().contains("dimensions"),
        "{o}"
    );
    assert!(s.packages_of(&id).await.is_empty());

    // Fixed, it packs.
    let (status, v) = s
        .send(
            Method::PATCH,
            &format!("/api/products/{product}"),
            &json!({"weight": 2, "dimensions": {"width": 3, "height": 3, "length": 3}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let packed = s.pack(&id).await;
    assert!(packed["pendingReason"].is_null());
    assert_eq!(s.packages_of(&id).await.len(), 1);
    // Packing a processing order again changes nothing.
    s.pack(&id).await;
    assert_eq!(s.packages_of(&id).await.len(), 1);
}

/// kill -9 with orders created but not packed (packing off), then again while the
/// packer works through them: after the last restart every order is packed exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_are_packed_exactly_once_across_kill_9() {
    const ORDERS: usize = 40;
    let ca = TestCa::new();
    let mut r = Receiver::start(&ca, Mode::Succeed).await;
    let config = tempfile::tempdir().unwrap();
    let no_pack = config.path().join("no-pack.toml");
    std::fs::write(&no_pack, "auto_pack = false\n").unwrap();
    let ca_pem = ca.pem.to_str().unwrap().to_string();
    let packing = ["--webhook-ca".to_string(), ca_pem.clone()];
    let no_packing = [
        "--webhook-ca",
        &ca_pem,
        "--config",
        no_pack.to_str().unwrap(),
    ];
    let mut c = Crashable::start(&no_packing).await;
    c.create(
        "/api/webhooks",
        &json!({"url": r.url, "events": ["order.updated"], "secret": SECRET}),
    )
    .await;
    c.mug_catalog(json!(2), 10000).await;
    let mut units = HashMap::new();
    for i in 0..ORDERS {
        let n = 1 + (i % 10) as i64;
        let mut o = packable_order_body(&format!("K9-{i}"), n as u32, 0);
        o["customerEmail"] = json!("k@example.com");
        let v = c.create("/api/orders", &o).await;
        units.insert(v["id"].as_str().unwrap().to_string(), n);
    }
    c.kill9();

    let mut processing: HashSet<String> = HashSet::new();
    let take = |hit: Hit, processing: &mut HashSet<String>| {
        assert!(verify(SECRET, &hit));
        let v = hit.json();
        if v["data"]["status"] == "processing" {
            processing.insert(v["data"]["id"].as_str().unwrap().to_string());
        }
    };
    // Packing on: kill again as soon as the packer is under way.
    c.restart_with(&packing).await;
    while processing.len() < 3 {
        take(r.next(GUARD).await, &mut processing);
    }
    c.kill9();
    c.restart().await;
    while processing.len() < ORDERS {
        take(r.next(GUARD).await, &mut processing);
    }
    let mut packages_total = 0;
    for (id, n) in &units {
        let (_, v) = c
            .send(
                Method::GET,
                &format!("/api/packages?orderId={id}"),
                &Value::Null,
            )
            .await;
        let packages = v["packages"].as_array().unwrap();
        let packed: i64 = packages
            .iter()
            .flat_map(|p| p["items"].as_array().unwrap())
            .map(|i| i["quantity"].as_i64().unwrap())
            .sum();
        assert_eq!(packed, *n, "order {id} packed exactly once: {v}");
        packages_total += packages.len();
    }
    let (_, all) = c
        .send(Method::GET, "/api/packages?limit=1", &Value::Null)
        .await;
    assert_eq!(
        all["pagination"]["total"], packages_total,
        "no stray packages"
    );
    let (_, pending) = c
        .send(Method::GET, "/api/orders?status=pending", &Value::Null)
        .await;
    assert_eq!(pending["pagination"]["total"], 0);
    c.terminate();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_spell_out_the_inbound_signing_rules_and_every_package_route() {
    let s = Server::start().await;
    let html = s.text("/api/docs").await;
    for needle in [
        "Inbound callbacks (for WMS and carrier integrators)",
        "fulfilld inbound set-secret --source wms",
        "more than 300 seconds",
        "openssl dgst -sha256 -hmac",
        "/api/fulfillment/packages/{id}/ship",
        "/api/webhooks/carriers/{carrier}/tracking",
        "Signed with the source's HMAC secret",
    ] {
        assert!(html.contains(needle), "docs mention {needle}");
    }
    let doc = s.get_ok("/api/openapi.json").await;
    let security = &doc["paths"]["/api/wms/webhooks/package-status"]["post"]["security"];
    assert_eq!(
        security[0],
        json!({"webhookSignature": [], "webhookTimestamp": []})
    );
    for schema in [
        "Package",
        "ShipPackage",
        "WmsPackageStatus",
        "CarrierTracking",
        "InboundResult",
    ] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema}");
    }
}
