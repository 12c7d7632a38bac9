//! `GET /api/orders/{id}/events` against a real server: every change of an order (created,
//! edited, packed, a package shipped and delivered, the order shipped and delivered,
//! cancelled) and the callbacks about its packages, oldest first, with who made them.

use serde_json::{json, Value};

use crate::support::*;

fn kinds(v: &Value) -> Vec<String> {
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect()
}

// Multi-threaded: `set_secret` blocks on the admin socket of the in-process server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_holds_every_change_and_callback_of_the_order_in_time_order() {
    let s = Server::start().await;
    packable_catalog(&s).await;
    s.set_secret("wms", WMS_SECRET);
    s.set_secret("carrier:ups", UPS_SECRET);
    let o = packable_order(&s, "EV-1", 2, 0).await;
    let id = o["id"].as_str().unwrap().to_string();
    let path = format!("/api/orders/{id}/events");

    let (status, v) = s
        .patch_order(&id, &json!({"customerEmail": "bo@example.com"}))
        .await;
    assert_eq!(status, 200, "{v}");
    s.pack(&id).await;
    let pkg = s.packages_of(&id).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, v) = s.ship(&pkg, "1Z-EV-1").await;
    assert_eq!(status, 200, "{v}");
    // A WMS event after shipping is ignored (never backwards) but still on the timeline.
    let wms = json!({"eventId": "w1", "packageId": pkg, "status": "picking", "occurredAt": "2026-11-22T09:00:00Z"});
    assert_eq!(s.signed(WMS, WMS_SECRET, now(), &wms).await.0, 200);
    let ups = json!({"eventId": "u1", "trackingNumber": "1Z-EV-1", "status": "delivered", "occurredAt": "2026-11-22T11:00:00Z"});
    let (status, v) = s.signed(UPS, UPS_SECRET, now(), &ups).await;
    assert_eq!(status, 200, "{v}");

    let v = s.get_ok(&path).await;
    assert_eq!(v["orderId"], id.as_str());
    assert_eq!(v["recorded"], true);
    let changes: Vec<String> = kinds(&v)
        .into_iter()
        .filter(|k| k != "package.callback")
        .collect();
    assert_eq!(
        changes,
        [
            "order.created",
            "order.updated",
            "order.packed",
            "package.shipped",
            "order.shipped",
            "package.delivered",
            "order.delivered"
        ],
        "{v}"
    );
    let events = v["events"].as_array().unwrap();
    let rfc3339 = &time::format_description::well_known::Rfc3339;
    let at: Vec<time::OffsetDateTime> = events
        .iter()
        .map(|e| time::OffsetDateTime::parse(e["at"].as_str().unwrap(), rfc3339).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] <= w[1]), "oldest first: {at:?}");
    let by_kind = |k: &str| events.iter().find(|e| e["kind"] == k).unwrap();
    assert_eq!(by_kind("order.created")["status"], "pending");
    assert_eq!(by_kind("order.updated")["note"], "customerEmail edited");
    // Requests name their client; the packing and shipping consequences say what moved.
    let client = by_kind("order.created")["actor"].as_str().unwrap();
    assert!(!client.is_empty());
    assert_eq!(by_kind("order.updated")["actor"], client);
    assert_eq!(by_kind("order.packed")["status"], "processing");
    let shipped = by_kind("package.shipped")["note"].as_str().unwrap();
    assert!(
        shipped.contains("UPS") && shipped.contains("1Z-EV-1"),
        "{shipped}"
    );
    assert_eq!(by_kind("order.delivered")["status"], "delivered");
    // Moved by a signed callback (no client): the callback entry beside it names the source.
    assert_eq!(by_kind("order.delivered")["actor"], json!(null));
    let callbacks: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "package.callback")
        .collect();
    assert_eq!(callbacks.len(), 2, "{v}");
    assert_eq!(callbacks[0]["actor"], "wms");
    assert_eq!(callbacks[0]["packageId"], pkg.as_str());
    assert!(callbacks[0]["note"].as_str().unwrap().contains("ignored"));
    assert_eq!(callbacks[1]["status"], "delivered");

    // A status move by PATCH and a cancel with its reason.
    let o2 = packable_order(&s, "EV-2", 1, 0).await;
    let id2 = o2["id"].as_str().unwrap();
    let (status, v) = s.patch_order(id2, &json!({"status": "processing"})).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = s.cancel(id2, &json!({"reason": "customer called"})).await;
    assert_eq!(status, 200, "{v}");
    let v = s.get_ok(&format!("/api/orders/{id2}/events")).await;
    assert_eq!(
        kinds(&v),
        ["order.created", "order.updated", "order.cancelled"]
    );
    assert_eq!(v["events"][1]["note"], "pending -> processing");
    assert_eq!(v["events"][2]["note"], "customer called");
    assert_eq!(v["events"][2]["status"], "cancelled");

    let (status, v) = s
        .get_json("/api/orders/0193a1b2-c3d4-7e8f-9a0b-1c2d3e4f5a6b/events")
        .await;
    assert_eq!(status, 404);
    assert_error(&v, "not_found", None);
}
