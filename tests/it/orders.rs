//! Orders: validation paths, externalId idempotency, reservation from the fewest
//! warehouses (all or nothing), the status machine, cancel, list filters, no overselling
//! under concurrency, and nothing lost or doubled across kill -9.

use std::collections::{HashMap, HashSet};

use reqwest::Method;
use serde_json::{json, Value};
use storage::tables::{Inventory, Orders, Outbox};

use crate::support::{
    address, assert_error, order_body, order_catalog, sink_subscription, Crashable, Load, Server,
    Write,
};

async fn levels(s: &Server, sku: &str) -> HashMap<String, (i64, i64)> {
    let (_, v) = s.get_json(&format!("/api/inventory?sku={sku}")).await;
    v["inventory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["warehouseId"].as_str().unwrap().to_string(),
                (
                    r["onHand"].as_i64().unwrap(),
                    r["reserved"].as_i64().unwrap(),
                ),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_validates_each_field_by_path() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 10)]).await;
    let ok_items = json!([{"sku": "MUG", "quantity": 1}]);
    let mut cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"customerEmail": "a@b.co", "items": ok_items, "shippingAddresses": [address()]}),
            422,
            "externalId",
        ),
        (
            json!({"externalId": "E", "items": ok_items, "shippingAddresses": [address()]}),
            422,
            "customerEmail",
        ),
        (
            json!({"externalId": "E", "customerEmail": "not-an-email", "items": ok_items, "shippingAddresses": [address()]}),
            422,
            "customerEmail",
        ),
        (
            json!({"externalId": "E", "customerEmail": "a@b.co", "shippingAddresses": [address()]}),
            422,
            "items",
        ),
        (
            json!({"externalId": "E", "customerEmail": "a@b.co", "items": [], "shippingAddresses": [address()]}),
            422,
            "items",
        ),
        (
            json!({"externalId": "E", "customerEmail": "a@b.co", "items": ok_items}),
            422,
            "shippingAddresses",
        ),
        (
            json!({"externalId": "E", "customerEmail": "a@b.co", "items": ok_items, "shippingAddresses": []}),
            422,
            "shippingAddresses",
        ),
        (
            order_body("E", json!([{"quantity": 1}])),
            422,
            "items[0].sku",
        ),
        (
            order_body(
                "E",
                json!([{"sku": "MUG", "quantity": 1}, {"sku": "NOPE", "quantity": 1}]),
            ),
            422,
            "items[1].sku",
        ),
        (
            order_body("E", json!([{"sku": "MUG", "quantity": 0}])),
            422,
            "items[0].quantity",
        ),
        (
            order_body("E", json!([{"sku": "MUG"}])),
            422,
            "items[0].quantity",
        ),
        (
            order_body("E", json!([{"sku": "MUG", "quantity": 1, "unitPrice": -1}])),
            422,
            "items[0].unitPrice",
        ),
        (
            order_body("E", json!([{"sku": "MUG", "quantity": "two"}])),
            400,
            "items[0].quantity",
        ),
    ];
    let mut no_line1 = order_body("E", ok_items.clone());
    no_line1["shippingAddresses"] = json!([{"city": "Reno", "postalCode": "1", "country": "US"}]);
    cases.push((no_line1, 422, "shippingAddresses[0].line1"));
    let mut bad_country = order_body("E", ok_items.clone());
    bad_country["shippingAddresses"] =
        json!([address(), {"line1": "x", "city": "y", "postalCode": "1", "country": "ZZ"}]);
    cases.push((bad_country, 422, "shippingAddresses[1].country"));
    let mut bad_billing = order_body("E", ok_items.clone());
    bad_billing["billingAddress"] = json!({"line1": "x", "postalCode": "1", "country": "US"});
    cases.push((bad_billing, 422, "billingAddress.city"));
    for (input, status, field) in cases {
        let (st, v) = s.create_order(&input).await;
        assert_eq!(st, status, "{input}: {v}");
        assert_eq!(v["error"]["field"], field, "{input}: {v}");
    }
    // A deleted product cannot be ordered.
    let (_, mug) = s.get_json("/api/products/sku/MUG").await;
    s.req(
        Method::DELETE,
        &format!("/api/products/{}", mug["id"].as_str().unwrap()),
    )
    .send()
    .await
    .unwrap();
    let (st, v) = s.create_order(&order_body("E", ok_items)).await;
    assert_eq!(st, 422);
    assert_error(&v, "validation_error", Some("items[0].sku"));
    let (_, list) = s.get_json("/api/orders").await;
    assert_eq!(
        list["pagination"]["total"], 0,
        "nothing created by invalid requests"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn totals_are_exact_prices_default_and_costs_appear_only_when_known() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 10), ("CUP", "A", 10), ("BOWL", "A", 10)]).await;
    let mut o = order_body(
        "T-1",
        json!([{"sku": "MUG", "quantity": 3}, {"sku": "CUP", "quantity": 1}, {"sku": "BOWL", "quantity": 1, "unitPrice": 0.2}]),
    );
    o["shippingAddresses"] =
        json!([{"street1": "9 Side St", "city": "Reno", "postalCode": "89501", "country": "us"}]);
    let (st, v) = s.create_order(&o).await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["status"], "pending");
    assert_eq!(v["total"], json!(60.27), "3 x 19.99 + 0.1 + 0.2 exactly");
    assert_eq!(v["itemCount"], 5);
    assert_eq!(
        v["items"][0]["unitPrice"],
        json!(19.99),
        "defaults to the product price"
    );
    assert_eq!(v["items"][0]["lineTotal"], json!(59.97));
    assert_eq!(v["items"][0]["unitCost"], json!(7.5));
    assert_eq!(v["items"][0]["lineCost"], json!(22.5));
    assert_eq!(v["items"][0]["costCurrency"], "USD");
    assert!(v["items"][1].get("unitCost").is_none(), "CUP has no cost");
    assert_eq!(
        v["shippingAddresses"][0]["line1"], "9 Side St",
        "street1 accepted"
    );
    assert!(uuid::Uuid::parse_str(v["id"].as_str().unwrap()).is_ok());
    let (_, got) = s
        .get_json(&format!("/api/orders/{}", v["id"].as_str().unwrap()))
        .await;
    assert_eq!(got, v);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_id_makes_create_idempotent_and_refuses_other_requests() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 10)]).await;
    let first = order_body("X-1", json!([{"sku": "MUG", "quantity": 2}]));
    let (st, a) = s.create_order(&first).await;
    assert_eq!(st, 201);
    // The same request spelled differently (street1 alias) is the same request.
    let mut same = first.clone();
    same["shippingAddresses"] = json!([{"street1": "1 Main St", "name": "Ann", "city": "Reno", "region": "NV", "postalCode": "89501", "country": "US"}]);
    let (st, b) = s.create_order(&same).await;
    assert_eq!(st, 200);
    assert_eq!(a["id"], b["id"]);
    let (st, v) = s
        .create_order(&order_body("X-1", json!([{"sku": "MUG", "quantity": 3}])))
        .await;
    assert_eq!(st, 409);
    assert_error(&v, "conflict", Some("externalId"));
    assert_eq!(levels(&s, "MUG").await["A"], (10, 2), "reserved once");

    // Idempotency-Key works beside it.
    let keyed = order_body("X-2", json!([{"sku": "MUG", "quantity": 1}]));
    let r1 = s
        .post_json("/api/orders", &keyed)
        .header("Idempotency-Key", "ik-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r1.status(), 201);
    let r2 = s
        .post_json("/api/orders", &keyed)
        .header("Idempotency-Key", "ik-1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (
            r2.status().as_u16(),
            r2.headers()["idempotent-replayed"].to_str().unwrap()
        ),
        (201, "true")
    );
    assert_eq!(levels(&s, "MUG").await["A"], (10, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reservations_use_the_fewest_warehouses_and_are_all_or_nothing() {
    let s = Server::start().await;
    s.subscribe_all().await;
    // A has much MUG, but only B holds both MUG and CUP.
    order_catalog(
        &s,
        &[
            ("MUG", "A", 50),
            ("MUG", "B", 5),
            ("CUP", "B", 5),
            ("CUP", "C", 50),
            ("BOWL", "C", 1),
        ],
    )
    .await;
    let (st, o) = s
        .create_order(&order_body(
            "R-1",
            json!([{"sku": "MUG", "quantity": 2}, {"sku": "CUP", "quantity": 3}]),
        ))
        .await;
    assert_eq!(st, 201);
    for line in o["items"].as_array().unwrap() {
        assert_eq!(
            line["allocations"],
            json!([{"warehouseId": "B", "quantity": line["quantity"]}]),
            "{o}"
        );
    }
    assert_eq!(levels(&s, "MUG").await["B"], (5, 2));
    assert_eq!(levels(&s, "CUP").await["B"], (5, 3));

    // BOWL is short: nothing of the order is reserved.
    let before = (levels(&s, "MUG").await, levels(&s, "CUP").await);
    let (st, v) = s
        .create_order(&order_body(
            "R-2",
            json!([{"sku": "MUG", "quantity": 1}, {"sku": "BOWL", "quantity": 2}]),
        ))
        .await;
    assert_eq!(st, 409);
    assert_error(&v, "insufficient_inventory", Some("items[1].quantity"));
    assert_eq!((levels(&s, "MUG").await, levels(&s, "CUP").await), before);
    assert_eq!(
        s.get("/api/orders?q=R-2")
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()["pagination"]["total"],
        0
    );

    // A line larger than any one warehouse is split.
    let (st, o) = s
        .create_order(&order_body("R-3", json!([{"sku": "CUP", "quantity": 51}])))
        .await;
    assert_eq!(st, 201);
    assert_eq!(o["items"][0]["allocations"].as_array().unwrap().len(), 2);

    // Cancel releases everything; cancelling again changes nothing.
    let id = o["id"].as_str().unwrap();
    let (st, c) = s.cancel(id, &json!({"reason": "customer asked"})).await;
    assert_eq!(
        (st, c["status"].as_str(), c["cancelReason"].as_str()),
        (200, Some("cancelled"), Some("customer asked"))
    );
    assert_eq!(levels(&s, "CUP").await["B"], (5, 3));
    assert_eq!(levels(&s, "CUP").await["C"], (50, 0));
    let events_before = s.store.iter::<Outbox>().count();
    let (st, again) = s.cancel(id, &Value::Null).await;
    assert_eq!((st, &again), (200, &c), "unchanged");
    assert_eq!(
        s.store.iter::<Outbox>().count(),
        events_before,
        "no events for a no-op cancel"
    );

    let kinds: Vec<String> = s
        .store
        .iter::<Outbox>()
        .map(|r| r.unwrap().1.kind)
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "order.created").count(), 2);
    assert_eq!(kinds.iter().filter(|k| *k == "order.cancelled").count(), 1);
    let created: Value = serde_json::from_str(
        &s.store
            .iter::<Outbox>()
            .map(|r| r.unwrap().1)
            .find(|e| e.kind == "order.created")
            .unwrap()
            .data_json,
    )
    .unwrap();
    assert_eq!(
        created["externalId"], "R-1",
        "order.created carries the order as the API returns it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_moves_follow_the_machine_and_edits_need_pending() {
    let s = Server::start().await;
    s.subscribe_all().await;
    order_catalog(&s, &[("MUG", "A", 10)]).await;
    let (_, o) = s
        .create_order(&order_body("S-1", json!([{"sku": "MUG", "quantity": 1}])))
        .await;
    let id = o["id"].as_str().unwrap();

    let edit =
        json!({"customerEmail": "new@example.com", "shippingAddresses": [address(), address()]});
    let (st, v) = s.patch_order(id, &edit).await;
    assert_eq!(
        (st, v["customerEmail"].as_str()),
        (200, Some("new@example.com"))
    );
    assert_eq!(v["shippingAddresses"].as_array().unwrap().len(), 2);
    let (st, v) = s.patch_order(id, &json!({"status": "shipped"})).await;
    assert_eq!(st, 409);
    assert_error(&v, "invalid_transition", Some("status"));
    let (st, v) = s.patch_order(id, &json!({"status": "flying"})).await;
    assert_eq!(st, 422);
    assert_error(&v, "validation_error", Some("status"));
    let (st, v) = s.patch_order(id, &json!({"status": "processing"})).await;
    assert_eq!((st, v["status"].as_str()), (200, Some("processing")));
    let (st, v) = s
        .patch_order(id, &json!({"customerEmail": "late@example.com"}))
        .await;
    assert_eq!(st, 409);
    assert_error(&v, "invalid_transition", Some("customerEmail"));
    let (st, _) = s.patch_order(id, &json!({"status": "pending"})).await;
    assert_eq!(st, 409, "no way back");
    assert_eq!(
        s.patch_order(id, &json!({"status": "shipped"})).await.0,
        200
    );
    let (st, v) = s.cancel(id, &Value::Null).await;
    assert_eq!(st, 409, "shipped orders cannot be cancelled");
    assert_error(&v, "invalid_transition", Some("status"));
    assert_eq!(
        s.patch_order(id, &json!({"status": "delivered"})).await.0,
        200
    );
    let updates = s
        .store
        .iter::<Outbox>()
        .filter(|e| e.as_ref().unwrap().1.kind == "order.updated")
        .count();
    assert_eq!(updates, 4, "one order.updated per successful PATCH");
    assert_eq!(
        s.get_json("/api/orders/00000000-0000-0000-0000-000000000000")
            .await
            .0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_filter_by_status_text_and_date() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 100)]).await;
    let mut ids = Vec::new();
    for (ext, email, cust) in [
        ("SHOP-1", "ann@example.com", "C-1"),
        ("shop-2", "bob@Example.com", "C-2"),
        ("AMZ-9", "cy@shop.io", "VIP"),
    ] {
        let mut o = order_body(ext, json!([{"sku": "MUG", "quantity": 1}]));
        o["customerEmail"] = json!(email);
        o["customerId"] = json!(cust);
        let (_, v) = s.create_order(&o).await;
        ids.push(v["id"].as_str().unwrap().to_string());
    }
    s.post_json(&format!("/api/orders/{}/cancel", ids[0]), &json!({}))
        .send()
        .await
        .unwrap();
    let exts = |v: &Value| {
        v["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["externalId"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    for (q, want) in [
        ("", vec!["AMZ-9", "shop-2", "SHOP-1"]),
        ("?q=shop", vec!["AMZ-9", "shop-2", "SHOP-1"]),
        ("?q=SHOP-", vec!["shop-2", "SHOP-1"]),
        ("?q=example.COM", vec!["shop-2", "SHOP-1"]),
        ("?q=vip", vec!["AMZ-9"]),
        ("?status=cancelled", vec!["SHOP-1"]),
        ("?status=pending&q=shop", vec!["AMZ-9", "shop-2"]),
        ("?fromDate=2000-01-01", vec!["AMZ-9", "shop-2", "SHOP-1"]),
        ("?fromDate=2999-01-01", vec![]),
        (
            "?status=pending&fromDate=2000-01-01T00:00:00Z&limit=1",
            vec!["AMZ-9"],
        ),
    ] {
        let (st, v) = s.get_json(&format!("/api/orders{q}")).await;
        assert_eq!(st, 200, "{q}");
        assert_eq!(exts(&v), want, "{q}");
    }
    let (_, v) = s
        .get_json(&format!("/api/orders?q={}", &ids[1][24..]))
        .await;
    assert_eq!(exts(&v), ["shop-2"], "id substring");
    let (_, v) = s
        .get_json("/api/orders?status=pending&limit=1&offset=1")
        .await;
    assert_eq!(
        v["pagination"],
        json!({"limit": 1, "offset": 1, "total": 2})
    );
    for (q, field) in [
        ("?status=lost", "status"),
        ("?fromDate=yesterday", "fromDate"),
    ] {
        let (st, v) = s.get_json(&format!("/api/orders{q}")).await;
        assert_eq!(st, 400, "{q}");
        assert_error(&v, "bad_request", Some(field));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_clients_racing_for_the_last_ten_units_never_oversell() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 6), ("MUG", "B", 4)]).await;
    let mut tasks = Vec::new();
    for i in 0..64 {
        let http = s.new_client();
        let (url, key) = (s.url("/api/orders"), s.creds.api_key.clone());
        tasks.push(tokio::spawn(async move {
            let o = order_body(&format!("RACE-{i}"), json!([{"sku": "MUG", "quantity": 1}]));
            let r = http
                .post(url)
                .header("X-API-Key", key)
                .json(&o)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }));
    }
    let mut created = 0;
    for t in tasks {
        let (status, v) = t.await.unwrap();
        match status {
            201 => created += 1,
            409 => assert_error(&v, "insufficient_inventory", Some("items[0].quantity")),
            other => panic!("{other}: {v}"),
        }
    }
    assert_eq!(created, 10);
    let l = levels(&s, "MUG").await;
    assert_eq!(l["A"].1 + l["B"].1, 10, "exactly the stock reserved");
    assert!(l["A"].1 <= 6 && l["B"].1 <= 4);
    assert_eq!(
        s.store.iter::<Orders>().count(),
        10,
        "no half-created orders"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_while_clients_create_with_retries_loses_and_doubles_nothing() {
    let mut c = Crashable::start(&[]).await;
    // Events are stored only while a subscription wants them.
    c.create("/api/webhooks", &sink_subscription()).await;
    c.create(
        "/api/products",
        &json!({"sku": "MUG", "name": "Mug", "price": 2}),
    )
    .await;
    for wh in ["A", "B"] {
        c.create("/api/warehouses", &json!({"id": wh, "name": wh}))
            .await;
        c.create(
            "/api/inventory",
            &json!({"sku": "MUG", "warehouseId": wh, "onHand": 100000}),
        )
        .await;
    }
    let acked: HashSet<String> = c
        .kill_9_during(Load {
            writers: 32,
            kill_after: 200,
            ok: &[200, 201],
            write: |c, i| {
                let ext = format!("K-{c}-{i}");
                let body = order_body(&ext, json!([{"sku": "MUG", "quantity": 1 + (i % 3)}]));
                // Each order is sent twice, as a client retrying after a timeout would.
                Write::new(Method::POST, "/api/orders", body, ext).sent(2)
            },
        })
        .await
        .into_iter()
        .collect();

    {
        let store = c.store();
        let orders: Vec<_> = store.iter::<Orders>().map(|r| r.unwrap().1).collect();
        let mut by_ext: HashMap<&str, usize> = HashMap::new();
        for o in &orders {
            *by_ext.entry(o.external_id.as_str()).or_default() += 1;
        }
        assert!(
            by_ext.values().all(|n| *n == 1),
            "an externalId exists twice"
        );
        for ext in &acked {
            assert_eq!(
                by_ext.get(ext.as_str()),
                Some(&1),
                "acknowledged {ext} lost"
            );
        }
        let reserved: i64 = store
            .iter::<Inventory>()
            .map(|r| r.unwrap().1.reserved)
            .sum();
        let ordered: i64 = orders.iter().map(|o| i64::from(o.item_count)).sum();
        assert_eq!(
            reserved, ordered,
            "reservations equal the live orders' lines"
        );
        let created: HashSet<String> = store
            .iter::<Outbox>()
            .map(|r| r.unwrap().1)
            .filter(|e| e.kind == "order.created")
            .map(|e| {
                serde_json::from_str::<Value>(&e.data_json).unwrap()["externalId"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(created.len(), orders.len(), "one order.created per order");
    }
    // And the restarted server serves them.
    c.restart().await;
    let some = acked.iter().next().unwrap();
    let (_, v) = c
        .send(Method::GET, &format!("/api/orders?q={some}"), &Value::Null)
        .await;
    assert!(
        v["pagination"]["total"].as_u64().unwrap() >= 1,
        "search index rebuilt at start"
    );
}

/// An event is stored only while an active subscription lists its kind: nobody could
/// ever receive the others (a subscription gets the events committed after it).
#[tokio::test]
async fn events_are_stored_only_while_an_active_subscription_lists_their_kind() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 100)]).await;
    let kinds = |s: &Server| -> Vec<String> {
        let mut k: Vec<String> = s
            .store
            .iter::<Outbox>()
            .map(|r| r.unwrap().1.kind)
            .collect();
        k.sort();
        k
    };
    let srv = &s;
    let create = move |ext: &'static str| {
        let body = order_body(ext, json!([{"sku": "MUG", "quantity": 1}]));
        async move { srv.post("/api/orders", &body).await }
    };
    assert_eq!(create("E-1").await.0, 201);
    assert!(kinds(&s).is_empty(), "no subscription: no event stored");

    let (st, hook) = s
        .post(
            "/api/webhooks",
            &json!({"url": "https://127.0.0.1:9/h", "events": ["order.created"],
                    "secret": "0123456789abcdef-hook"}),
        )
        .await;
    assert_eq!(st, 201, "{hook}");
    let path = format!("/api/webhooks/{}", hook["id"].as_str().unwrap());
    assert_eq!(create("E-2").await.0, 201);
    assert_eq!(kinds(&s), ["order.created"], "only the kind it lists");

    let patch = |v: Value| s.req(Method::PATCH, &path).json(&v).send();
    assert_eq!(
        patch(json!({"isActive": false})).await.unwrap().status(),
        200
    );
    assert_eq!(create("E-3").await.0, 201);
    assert_eq!(kinds(&s).len(), 1, "an inactive subscription wants nothing");

    let both = json!({"isActive": true, "events": ["order.created", "inventory.adjusted"]});
    assert_eq!(patch(both).await.unwrap().status(), 200);
    assert_eq!(create("E-4").await.0, 201);
    assert_eq!(
        kinds(&s),
        ["inventory.adjusted", "order.created", "order.created"]
    );

    let st = s.req(Method::DELETE, &path).send().await.unwrap().status();
    assert!(st.is_success(), "{st}");
    assert_eq!(create("E-5").await.0, 201);
    assert_eq!(kinds(&s).len(), 3, "a deleted subscription wants nothing");
}
