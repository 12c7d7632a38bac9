//! Seed data through the real API: catalogs of products, warehouses and stock for each
//! kind of test, order bodies, and the catch-all webhook subscription.

use serde_json::{json, Value};

use super::{Mode, Receiver, Server, TestCa};

/// A subscription to every event kind at an address nothing listens on. Events are
/// stored only while an active subscription lists their kind, so tests that read the
/// outbox subscribe first; the sink's deliveries just fail and wait for their retries.
pub fn sink_subscription() -> Value {
    serde_json::json!({
        "url": "https://127.0.0.1:9/events",
        "events": fulfilld::domain::events::KINDS,
        "secret": "sink-secret-0123456789",
    })
}

/// A full shipping address.
pub fn address() -> Value {
    json!({"name": "Ann", "line1": "1 Main St", "city": "Reno", "region": "NV", "postalCode": "89501", "country": "US"})
}

/// An order body for `POST /api/orders` with these lines, to one address.
pub fn order_body(ext: &str, items: Value) -> Value {
    json!({"externalId": ext, "customerEmail": "ann@example.com", "customerId": "C-1", "items": items, "shippingAddresses": [address()]})
}

/// Asserts 201 for each (path, body) creation.
async fn create_all(s: &Server, items: impl IntoIterator<Item = (&str, Value)>) {
    for (path, v) in items {
        let (status, answer) = s.post(path, &v).await;
        assert_eq!(status, 201, "POST {path} {v}: {answer}");
    }
}

/// Products `skus` (price 5, low-stock threshold 3) and empty warehouses `warehouses`.
pub async fn catalog(s: &Server, skus: &[&str], warehouses: &[&str]) {
    let products = skus
        .iter()
        .map(|sku| json!({"sku": sku, "name": sku, "price": 5, "lowStockThreshold": 3}));
    create_all(s, products.map(|p| ("/api/products", p))).await;
    let warehouses = warehouses.iter().map(|w| json!({"id": w, "name": w}));
    create_all(s, warehouses.map(|w| ("/api/warehouses", w))).await;
}

/// Products MUG (19.99, with a cost), CUP (0.1), BOWL (0.2); warehouses A, B, C; and
/// the given (sku, warehouse, onHand) stock.
pub async fn order_catalog(s: &Server, stock: &[(&str, &str, i64)]) {
    let products = [
        json!({"sku": "MUG", "name": "Mug", "price": 19.99, "unitCost": 7.5, "costCurrency": "USD"}),
        json!({"sku": "CUP", "name": "Cup", "price": 0.1}),
        json!({"sku": "BOWL", "name": "Bowl", "price": 0.2}),
    ];
    create_all(s, products.map(|p| ("/api/products", p))).await;
    let warehouses = ["A", "B", "C"].map(|w| json!({"id": w, "name": w}));
    create_all(s, warehouses.map(|w| ("/api/warehouses", w))).await;
    for (sku, wh, n) in stock {
        s.stock(sku, wh, *n).await;
    }
}

/// A product `sku` with no low-stock threshold, its own warehouse `W-{sku}` and 100 in
/// stock there (the creation emits one `inventory.adjusted`); the inventory id.
pub async fn stocked_sku(s: &Server, sku: &str) -> String {
    let p = json!({"sku": sku, "name": sku, "price": 5, "lowStockThreshold": 0});
    let w = json!({"id": format!("W-{sku}"), "name": "Main"});
    create_all(s, [("/api/products", p), ("/api/warehouses", w)]).await;
    let v = s.stock(sku, &format!("W-{sku}"), 100).await;
    v["id"].as_str().unwrap().to_string()
}

/// The two box sizes of the packing warehouses.
pub fn boxes() -> Value {
    json!([
        {"boxId": "S", "width": 6, "height": 6, "length": 6, "maxWeight": 20},
        {"boxId": "M", "width": 12, "height": 10, "length": 12, "maxWeight": 40}
    ])
}

/// Two warehouses with boxes: MUG (upright) is stocked only in W1, LAMP only in W2 (10
/// each), so an order of both ships from two warehouses.
pub async fn packable_catalog(s: &Server) {
    let warehouses = [("W1", "East"), ("W2", "West")]
        .map(|(id, name)| json!({"id": id, "name": name, "boxes": boxes()}));
    create_all(s, warehouses.map(|w| ("/api/warehouses", w))).await;
    let products = [
        json!({"sku": "MUG", "name": "Mug", "price": 9.5, "weight": 1,
               "dimensions": {"width": 4, "height": 4, "length": 4}, "orientation": "upright"}),
        json!({"sku": "LAMP", "name": "Lamp", "price": 30, "weight": 3,
               "dimensions": {"width": 5, "height": 9, "length": 5}}),
    ];
    create_all(s, products.map(|p| ("/api/products", p))).await;
    for (sku, wh) in [("MUG", "W1"), ("LAMP", "W2")] {
        s.stock(sku, wh, 10).await;
    }
}

/// A server that packs new orders on its own, with a receiver (answering 2xx) subscribed
/// with `secret` to `events`, then [`packable_catalog`].
pub async fn auto_packing_with_receiver(
    ca: &TestCa,
    secret: &str,
    events: &[&str],
) -> (Server, Receiver) {
    let r = Receiver::start(ca, Mode::Succeed).await;
    let s = Server::start_auto_packing(ca).await;
    let (status, v) = s
        .post(
            "/api/webhooks",
            &json!({"url": r.url, "secret": secret, "events": events}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    packable_catalog(&s).await;
    (s, r)
}

/// Creates an order of `mugs` MUG and `lamps` LAMP from [`packable_catalog`]; asserts 201.
pub async fn packable_order(s: &Server, external: &str, mugs: u32, lamps: u32) -> Value {
    let (status, v) = s
        .post("/api/orders", &packable_order_body(external, mugs, lamps))
        .await;
    assert_eq!(status, 201, "{v}");
    v
}

/// The body of [`packable_order`].
pub fn packable_order_body(external: &str, mugs: u32, lamps: u32) -> Value {
    let mut items = Vec::new();
    if mugs > 0 {
        items.push(json!({"sku": "MUG", "quantity": mugs}));
    }
    if lamps > 0 {
        items.push(json!({"sku": "LAMP", "quantity": lamps}));
    }
    json!({"externalId": external, "customerEmail": "a@example.com", "items": items,
           "shippingAddresses": [{"line1": "1 Main St", "city": "Springfield",
                                  "postalCode": "12345", "country": "US"}]})
}

/// Products MUG (2.5) and CUP (1), warehouse A with 50000 of each: enough for any import.
pub async fn import_catalog(s: &Server) {
    let products = [
        json!({"sku": "MUG", "name": "Mug", "price": 2.5}),
        json!({"sku": "CUP", "name": "Cup", "price": 1}),
    ];
    create_all(s, products.map(|p| ("/api/products", p))).await;
    create_all(s, [("/api/warehouses", json!({"id": "A", "name": "A"}))]).await;
    for sku in ["MUG", "CUP"] {
        s.stock(sku, "A", 50000).await;
    }
}

/// Warehouse ST whose only box (TALL, 6 x 12 x 6) takes one PLATE (6 x 2 x 6, upright) per
/// layer, so plates stack; CUP (3 x 3 x 3, upright, hazmat class 3) fits two to a layer. Ten
/// of each in stock.
pub async fn stacking_catalog(s: &Server) {
    let box_ = json!({"boxId": "TALL", "width": 6, "height": 12, "length": 6, "maxWeight": 50});
    let w = json!({"id": "ST", "name": "Station", "boxes": [box_]});
    let products = [
        json!({"sku": "PLATE", "name": "Dinner plate", "price": 4, "weight": 1,
               "dimensions": {"width": 6, "height": 2, "length": 6}, "orientation": "upright"}),
        json!({"sku": "CUP", "name": "Paint cup", "price": 2, "weight": 0.5,
               "dimensions": {"width": 3, "height": 3, "length": 3}, "orientation": "upright",
               "hazmat": {"class": "3", "unNumber": "UN1263"}}),
    ];
    create_all(s, [("/api/warehouses", w)]).await;
    create_all(s, products.map(|p| ("/api/products", p))).await;
    for sku in ["PLATE", "CUP"] {
        s.stock(sku, "ST", 10).await;
    }
}

/// An order of `plates` PLATE and `cups` CUP from [`stacking_catalog`] to [`address`],
/// packed now; the order.
pub async fn stacked_order(s: &Server, external: &str, plates: u32, cups: u32) -> Value {
    let items = json!([{"sku": "PLATE", "quantity": plates}, {"sku": "CUP", "quantity": cups}]);
    let (status, o) = s.create_order(&order_body(external, items)).await;
    assert_eq!(status, 201, "{o}");
    s.pack(o["id"].as_str().unwrap()).await
}
