//! Inventory: creation rules, filters, adjustments with their audit trail, outbox events
//! in the same transaction, exact sums under concurrency, and a kill -9 test.

use std::collections::HashSet;

use reqwest::Method;
use serde_json::{json, Value};
use storage::tables::{Inventory, InventoryAudit, Outbox};
use storage::OutboxEvent;

use crate::support::{assert_error, catalog, sink_subscription, Crashable, Load, Server, Write};

fn events(store: &storage::Store) -> Vec<OutboxEvent> {
    store.iter::<Outbox>().map(|r| r.unwrap().1).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inventory_records_are_validated_unique_per_pair_and_filterable() {
    let s = Server::start().await;
    catalog(&s, &["MUG", "CUP"], &["RNO", "ATL"]).await;
    let cases = [
        (json!({"warehouseId": "RNO", "onHand": 1}), 422, "sku"),
        (
            json!({"sku": "NOPE", "warehouseId": "RNO", "onHand": 1}),
            422,
            "sku",
        ),
        (
            json!({"sku": "MUG", "warehouseId": "NOPE", "onHand": 1}),
            422,
            "warehouseId",
        ),
        (json!({"sku": "MUG", "warehouseId": "RNO"}), 422, "onHand"),
        (
            json!({"sku": "MUG", "warehouseId": "RNO", "onHand": -1}),
            422,
            "onHand",
        ),
        (
            json!({"sku": "MUG", "warehouseId": "RNO", "onHand": 1, "lowStockThreshold": -2}),
            422,
            "lowStockThreshold",
        ),
        (
            json!({"sku": "MUG", "warehouseId": "RNO", "onHand": 1.5}),
            400,
            "onHand",
        ),
    ];
    for (input, status, field) in cases {
        let (st, v) = s.post("/api/inventory", &input).await;
        assert_eq!(st, status, "{input}");
        assert_eq!(v["error"]["field"], field, "{input}: {v}");
    }
    let mug_rno = s.stock("MUG", "RNO", 10).await;
    assert_eq!(
        (
            mug_rno["onHand"].as_i64(),
            mug_rno["reserved"].as_i64(),
            mug_rno["available"].as_i64()
        ),
        (Some(10), Some(0), Some(10))
    );
    assert_eq!(mug_rno["lowStockThreshold"], 3, "defaults to the product's");
    s.stock("MUG", "ATL", 4).await;
    s.stock("CUP", "RNO", 7).await;
    let (st, v) = s
        .post(
            "/api/inventory",
            &json!({"sku": "MUG", "warehouseId": "RNO", "onHand": 1}),
        )
        .await;
    assert_eq!(st, 409);
    assert_error(&v, "conflict", Some("sku"));

    for (q, total) in [
        ("", 3),
        ("?sku=MUG", 2),
        ("?warehouseId=RNO", 2),
        ("?sku=MUG&warehouseId=ATL", 1),
        ("?sku=NONE", 0),
    ] {
        let (st, v) = s.get_json(&format!("/api/inventory{q}")).await;
        assert_eq!(st, 200);
        assert_eq!(v["pagination"]["total"], total, "{q}");
        assert_eq!(
            v["inventory"].as_array().unwrap().len(),
            total as usize,
            "{q}"
        );
    }
    let (_, page) = s.get_json("/api/inventory?sku=MUG&limit=1").await;
    assert_eq!(page["inventory"][0]["warehouseId"], "ATL", "newest first");
    let id = mug_rno["id"].as_str().unwrap();
    let (st, got) = s.get_json(&format!("/api/inventory/{id}")).await;
    assert_eq!((st, &got), (200, &mug_rno));
    assert_eq!(
        s.get_json("/api/inventory/00000000-0000-0000-0000-000000000000")
            .await
            .0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adjustments_keep_an_audit_trail_and_emit_exactly_their_events() {
    let s = Server::start().await;
    s.subscribe_all().await;
    catalog(&s, &["MUG"], &["RNO"]).await;
    let rec = s.stock("MUG", "RNO", 5).await;
    let id = rec["id"].as_str().unwrap().to_string();
    let before = events(&s.store);
    assert_eq!(before.len(), 1, "creation is a stock change");
    assert_eq!(before[0].kind, "inventory.adjusted");

    for (input, field) in [
        (json!({"reason": "x"}), "delta"),
        (json!({"delta": 0, "reason": "x"}), "delta"),
        (json!({"delta": 1}), "reason"),
        (json!({"delta": 1, "reason": " "}), "reason"),
    ] {
        let (st, v) = s
            .send(
                Method::PATCH,
                &format!("/api/inventory/{id}/adjust"),
                &input,
            )
            .await;
        assert_eq!(st, 422, "{input}");
        assert_error(&v, "validation_error", Some(field));
    }

    // 5 -> 3: still at the threshold (3), no low-stock event.
    let (st, v) = s.adjust(&id, -2, "cycle count").await;
    assert_eq!((st, v["onHand"].as_i64()), (200, Some(3)));
    // 3 -> 2: crosses below 3: adjusted + exactly one low_stock.
    s.adjust(&id, -1, "damaged").await;
    // 2 -> 1: still below, no second low_stock.
    s.adjust(&id, -1, "damaged").await;
    // Refused: would go negative. No event, no audit entry.
    let (st, v) = s.adjust(&id, -2, "too much").await;
    assert_eq!(st, 409);
    assert_error(&v, "insufficient_inventory", Some("delta"));
    // 1 -> 11: back above, re-armed; 11 -> 0 crosses again.
    s.adjust(&id, 10, "restock").await;
    s.adjust(&id, -11, "shrinkage").await;

    let all = events(&s.store);
    let kinds: Vec<&str> = all.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "inventory.adjusted",
            "inventory.adjusted",
            "inventory.adjusted",
            "inventory.low_stock",
            "inventory.adjusted",
            "inventory.adjusted",
            "inventory.adjusted",
            "inventory.low_stock",
        ]
    );
    let levels: Vec<i64> = all
        .iter()
        .filter(|e| e.kind == "inventory.adjusted")
        .map(|e| {
            serde_json::from_str::<Value>(&e.data_json).unwrap()["onHand"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(
        levels,
        [5, 3, 2, 1, 11, 0],
        "each event carries the new levels"
    );
    let ids: HashSet<&str> = all.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), all.len(), "event ids are unique");
    assert!(all.iter().all(|e| e.id.starts_with("evt_")));
    let low: Value = serde_json::from_str(&all[3].data_json).unwrap();
    assert_eq!(
        (low["available"].as_i64(), low["id"].as_str()),
        (Some(2), Some(id.as_str()))
    );

    let (st, h) = s
        .get_json(&format!("/api/inventory/{id}/adjustments?limit=2"))
        .await;
    assert_eq!(st, 200);
    assert_eq!(h["pagination"]["total"], 6);
    assert_eq!(h["adjustments"][0]["reason"], "shrinkage");
    assert_eq!(h["adjustments"][0]["delta"], -11);
    assert_eq!(h["adjustments"][0]["onHand"], 0);
    assert_eq!(h["adjustments"][1]["reason"], "restock");
    assert_eq!(h["adjustments"][0]["clientId"], s.creds.client_id.as_str());
    let (_, last) = s
        .get_json(&format!("/api/inventory/{id}/adjustments?offset=5"))
        .await;
    assert_eq!(last["adjustments"][0]["change"], "created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_adjustments_end_at_the_exact_sum_and_never_below_zero() {
    let s = Server::start().await;
    s.subscribe_all().await;
    catalog(&s, &["MUG"], &["RNO"]).await;
    let id = s.stock("MUG", "RNO", 20).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    // 25 withdrawals of 3 and 25 deposits of 2, each on its own connection.
    let mut tasks = Vec::new();
    for i in 0..50 {
        let http = s.new_client();
        let url = s.url(&format!("/api/inventory/{id}/adjust"));
        let key = s.creds.api_key.clone();
        let delta = if i % 2 == 0 { -3 } else { 2 };
        tasks.push(tokio::spawn(async move {
            let r = http
                .patch(url)
                .header("X-API-Key", key)
                .json(&json!({"delta": delta, "reason": format!("c{i}")}))
                .send()
                .await
                .unwrap();
            (delta, r.status().as_u16(), r.json::<Value>().await.unwrap())
        }));
    }
    let mut sum = 20;
    for t in tasks {
        let (delta, status, v) = t.await.unwrap();
        match status {
            200 => {
                sum += delta;
                assert!(v["onHand"].as_i64().unwrap() >= 0);
            }
            409 => assert_eq!(v["error"]["code"], "insufficient_inventory"),
            other => panic!("status {other}: {v}"),
        }
    }
    let (_, rec) = s.get_json(&format!("/api/inventory/{id}")).await;
    assert_eq!(rec["onHand"].as_i64(), Some(sum));
    // The audit trail replays to the same level and never dips below zero.
    let rec_id = uuid::Uuid::parse_str(&id).unwrap().as_u128();
    let trail: Vec<_> = s
        .store
        .scan_prefix::<InventoryAudit>(&rec_id.to_be_bytes())
        .map(|r| r.unwrap().1)
        .collect();
    assert!(trail
        .iter()
        .all(|a| a.on_hand >= a.reserved && a.reserved >= 0));
    assert_eq!(trail.iter().map(|a| a.on_hand_delta).sum::<i64>(), sum);
    let adjusted = events(&s.store)
        .iter()
        .filter(|e| e.kind == "inventory.adjusted")
        .count();
    assert_eq!(adjusted, trail.len(), "one inventory.adjusted per change");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_adjustments_keeps_levels_and_events_of_every_acknowledged_one() {
    let mut c = Crashable::start(&[]).await;
    // Events are stored only while a subscription wants them.
    c.create("/api/webhooks", &sink_subscription()).await;
    c.create(
        "/api/products",
        &json!({"sku": "MUG", "name": "Mug", "price": 1}),
    )
    .await;
    c.create("/api/warehouses", &json!({"id": "RNO", "name": "Reno"}))
        .await;
    let rec = c
        .create(
            "/api/inventory",
            &json!({"sku": "MUG", "warehouseId": "RNO", "onHand": 1000}),
        )
        .await;
    let id = rec["id"].as_str().unwrap().to_string();
    let path = format!("/api/inventory/{id}/adjust");
    let acked = c
        .kill_9_during(Load {
            writers: 6,
            kill_after: 150,
            ok: &[200],
            write: move |w, i| {
                let reason = format!("w{w}-{i}");
                let delta = if i % 3 == 0 { -2 } else { 1 };
                let body = json!({"delta": delta, "reason": reason});
                Write::new(Method::PATCH, &path, body, reason)
            },
        })
        .await;

    // Read the database the dead server left behind.
    let store = c.store();
    let rec_id = uuid::Uuid::parse_str(&id).unwrap().as_u128();
    let level = store.get::<Inventory>(&rec_id).unwrap().unwrap();
    let trail: Vec<_> = store
        .scan_prefix::<InventoryAudit>(&rec_id.to_be_bytes())
        .map(|r| r.unwrap().1)
        .collect();
    let applied: HashSet<&str> = trail.iter().map(|a| a.reason.as_str()).collect();
    for reason in &acked {
        assert!(
            applied.contains(reason.as_str()),
            "acknowledged adjustment {reason} lost"
        );
    }
    assert_eq!(
        level.on_hand,
        trail.iter().map(|a| a.on_hand_delta).sum::<i64>(),
        "levels equal the applied changes"
    );
    assert_eq!(level.audit_seq as usize, trail.len());
    let adjusted = events(&store)
        .into_iter()
        .filter(|e| e.kind == "inventory.adjusted")
        .count();
    assert_eq!(
        adjusted,
        trail.len(),
        "every applied change has its event, and only those"
    );
}
