//! Inbound WMS and carrier callbacks against a real server: signature, timestamp window
//! and source checks, replayed eventIds, late and out-of-order events, unknown ids, and
//! the audit trail of every event.

use serde_json::{json, Value};

use crate::support::{
    assert_error, now, packable_catalog, packable_order, Server, UPS, UPS_SECRET, WMS, WMS_SECRET,
};

/// A server with both sources' secrets set and one packed order of two MUG in one
/// package: the server, the order id and the package id.
async fn packed_order() -> (Server, String, String) {
    let s = Server::start().await;
    packable_catalog(&s).await;
    s.set_secret("wms", WMS_SECRET);
    s.set_secret("carrier:ups", UPS_SECRET);
    let o = packable_order(&s, "IN-1", 2, 0).await;
    let id = o["id"].as_str().unwrap().to_string();
    s.pack(&id).await;
    let packages = s.packages_of(&id).await;
    assert_eq!(packages.len(), 1);
    let pkg = packages[0]["id"].as_str().unwrap().to_string();
    (s, id, pkg)
}

/// A WMS status event for `pkg`.
fn wms_event(pkg: &str, event: &str, status: &str) -> Value {
    json!({"eventId": event, "packageId": pkg, "status": status,
           "occurredAt": "2026-11-22T09:00:00Z", "dock": 4})
}

/// A carrier tracking event.
fn tracking(event: &str, number: &str, status: &str) -> Value {
    json!({"eventId": event, "trackingNumber": number, "status": status,
           "occurredAt": "2026-11-22T11:00:00Z"})
}

/// The package's audit trail as (eventId, outcome), in arrival order.
async fn outcomes(s: &Server, pkg: &str) -> Vec<(String, String)> {
    let events = s.get_ok(&format!("/api/packages/{pkg}/events")).await;
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["eventId"].as_str().unwrap().to_string(),
                e["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn trail(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(e, o)| (e.to_string(), o.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthenticated_callbacks_are_401_and_leave_no_trace() {
    let (s, _, pkg) = packed_order().await;
    let wms = WMS;
    let ev = |event: &str, status: &str| wms_event(&pkg, event, status);

    // Authentication: a bad signature, a stale or future timestamp, no signature at all.
    let (status, v) = s
        .signed(wms, "not-the-secret-at-all", now(), &ev("e1", "picking"))
        .await;
    assert_eq!(status, 401, "{v}");
    assert_error(&v, "unauthorized", None);
    let (status, _) = s
        .signed(wms, WMS_SECRET, now() - 301, &ev("e1", "picking"))
        .await;
    assert_eq!(status, 401, "stale");
    let (status, _) = s
        .signed(wms, WMS_SECRET, now() + 301, &ev("e1", "picking"))
        .await;
    assert_eq!(status, 401, "from the future");
    let (status, _) = s.signed(wms, UPS_SECRET, now(), &ev("e1", "picking")).await;
    assert_eq!(status, 401, "another source's secret");
    let unsigned = s
        .http
        .post(s.url(wms))
        .json(&ev("e1", "picking"))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);
    assert!(
        s.get_ok(&format!("/api/packages/{pkg}/events")).await["events"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // The refused requests did not use up their eventId.
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &ev("e1", "picking")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "applied");
    assert_eq!(outcomes(&s, &pkg).await, trail(&[("e1", "applied")]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_change_nothing_late_events_are_recorded_not_applied_and_bad_ones_refused() {
    let (s, _, pkg) = packed_order().await;
    let wms = WMS;
    let ev = |event: &str, status: &str| wms_event(&pkg, event, status);

    // Applied once; the replay is acknowledged and changes nothing.
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &ev("e1", "picking")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "applied");
    assert_eq!(v["package"]["status"], "picking");
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &ev("e1", "packed")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "duplicate");
    assert_eq!(
        v["package"]["status"], "picking",
        "a replayed eventId changes nothing"
    );

    // A source that cannot sign uses an API key instead.
    let (status, v) = s.post(wms, &ev("e2", "packed")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["package"]["status"], "packed");

    // Out of order: a late picking is recorded, not applied.
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &ev("e3", "picking")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "ignored");
    assert_eq!(v["package"]["status"], "packed");

    // Validation and unknown ids.
    let mut missing = ev("e4", "packed");
    missing.as_object_mut().unwrap().remove("eventId");
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &missing).await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("eventId"));
    let (status, v) = s
        .signed(wms, WMS_SECRET, now(), &ev("e5", "teleported"))
        .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("status"));
    let mut unknown = ev("e6", "packed");
    unknown["packageId"] = json!("pkg_00000000000000000000000000000000");
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &unknown).await;
    assert_eq!(status, 404);
    assert_error(&v, "not_found", None);
    let (status, _) = s
        .signed(
            UPS,
            UPS_SECRET,
            now(),
            &tracking("c1", "NOPE", "in_transit"),
        )
        .await;
    assert_eq!(status, 404, "unknown tracking number");

    // Every accepted event is kept for audit, applied or not, in arrival order.
    assert_eq!(
        outcomes(&s, &pkg).await,
        trail(&[("e1", "applied"), ("e2", "applied"), ("e3", "ignored")])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wms_and_carrier_callbacks_ship_and_deliver_the_order_and_never_move_backwards() {
    let (s, id, pkg) = packed_order().await;
    let wms = WMS;
    let ev = |event: &str, status: &str| wms_event(&pkg, event, status);

    // The WMS ships it with carrier details: stock leaves, the order ships.
    let mut shipped = ev("e7", "shipped");
    shipped["carrier"] = json!("ups");
    shipped["trackingNumber"] = json!("1ZWMS");
    let (status, v) = s.signed(wms, WMS_SECRET, now(), &shipped).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["package"]["trackingNumber"], "1ZWMS");
    assert_eq!(s.order(&id).await["status"], "shipped");
    let mug = s.inventory_of("MUG").await;
    assert_eq!(
        (mug["onHand"].as_i64(), mug["reserved"].as_i64()),
        (Some(8), Some(0))
    );
    let (status, _) = s.ship(&pkg, "1ZOTHER").await;
    assert_eq!(
        status, 409,
        "a shipped package cannot ship again under another number"
    );

    // Another carrier's secret does not open this carrier's endpoint; the tracking
    // number belongs to ups only.
    s.set_secret("carrier:dhl", UPS_SECRET);
    let (status, _) = s
        .signed(
            "/api/webhooks/carriers/dhl/tracking",
            UPS_SECRET,
            now(),
            &tracking("c2", "1ZWMS", "delivered"),
        )
        .await;
    assert_eq!(status, 404);

    let (status, v) = s
        .signed(
            UPS,
            UPS_SECRET,
            now(),
            &tracking("c3", "1ZWMS", "delivered"),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["package"]["status"], "delivered");
    let (status, v) = s
        .signed(
            UPS,
            UPS_SECRET,
            now(),
            &tracking("c4", "1ZWMS", "in_transit"),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["event"]["outcome"], "ignored",
        "a late in_transit after delivered"
    );
    assert_eq!(v["package"]["status"], "delivered");
    assert_eq!(s.order(&id).await["status"], "delivered");

    // Every accepted event is kept for audit, applied or not, in arrival order.
    assert_eq!(
        outcomes(&s, &pkg).await,
        trail(&[("e7", "applied"), ("c3", "applied"), ("c4", "ignored")])
    );
}
