//! Every way an order changes keeps `q` search and the status pages current: create,
//! bulk import, PATCH, cancel, pack (on request and by the background packer), ship, and
//! the WMS and carrier callbacks. After each change the order is found by its text with
//! its new status, on its new status page, and on no other.

use std::time::Duration;

use serde_json::{json, Value};
use storage::OrderStatus;

use crate::support::{
    auto_packing_with_receiver, now, packable_catalog, packable_order, packable_order_body, verify,
    Server, TestCa, UPS, UPS_SECRET, WMS, WMS_SECRET,
};

const SECRET: &str = "whsec-paths-0123456789";
const GUARD: Duration = Duration::from_secs(30);

/// Asserts that the list endpoints, which answer from the in-memory order index, show
/// order `id` with `status`: found once by `q` (alone and with its status, so the index
/// holds that status for it), on its status page, and on no other status page.
async fn assert_listed(s: &Server, id: &str, q: &str, status: &str) {
    let ids = |v: &Value| -> Vec<String> {
        v["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    let found = s.get_ok(&format!("/api/orders?q={q}&limit=200")).await;
    let hit: Vec<&Value> = found["orders"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["id"] == id)
        .collect();
    assert_eq!(hit.len(), 1, "q={q} finds {id} once: {found}");
    assert_eq!(hit[0]["status"], status, "q={q}: {found}");
    let filtered = s
        .get_ok(&format!("/api/orders?q={q}&status={status}&limit=200"))
        .await;
    assert!(
        ids(&filtered).contains(&id.to_string()),
        "q={q}&status={status} finds {id}: {filtered}"
    );
    for other in OrderStatus::ALL.map(OrderStatus::as_str) {
        let page = s
            .get_ok(&format!("/api/orders?status={other}&limit=200"))
            .await;
        let listed = ids(&page);
        assert_eq!(
            listed.contains(&id.to_string()),
            other == status,
            "{id} ({status}) on the {other} page: {page}"
        );
        assert_eq!(
            page["pagination"]["total"],
            listed.len(),
            "{other} page total"
        );
    }
}

fn id_of(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_that_changes_an_order_keeps_search_and_status_pages_current() {
    let s = Server::start().await;
    packable_catalog(&s).await;
    s.set_secret("wms", WMS_SECRET);
    s.set_secret("carrier:ups", UPS_SECRET);

    // Create.
    let a = id_of(&packable_order(&s, "PATH-A", 1, 0).await);
    assert_listed(&s, &a, "PATH-A", "pending").await;

    // Bulk import.
    let (status, v) = s
        .post(
            "/api/orders/bulk-import",
            &json!({"orders": [packable_order_body("PATH-B", 1, 0)]}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["results"][0]["status"], "created", "{v}");
    let b = v["results"][0]["orderId"].as_str().unwrap().to_string();
    assert_listed(&s, &b, "PATH-B", "pending").await;

    // PATCH: an edit is searchable by its new text, then a status move.
    let (status, v) = s
        .patch_order(&a, &json!({"customerEmail": "moved@patched.example"}))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_listed(&s, &a, "moved@patched", "pending").await;
    let (status, v) = s.patch_order(&a, &json!({"status": "processing"})).await;
    assert_eq!(status, 200, "{v}");
    assert_listed(&s, &a, "PATH-A", "processing").await;

    // Cancel.
    let (status, v) = s.cancel(&b, &json!({"reason": "paths"})).await;
    assert_eq!(status, 200, "{v}");
    assert_listed(&s, &b, "PATH-B", "cancelled").await;

    // Pack on request, then ship its two packages (the order ships with the last).
    let c = id_of(&packable_order(&s, "PATH-C", 1, 1).await);
    assert_listed(&s, &c, "PATH-C", "pending").await;
    s.pack(&c).await;
    assert_listed(&s, &c, "PATH-C", "processing").await;
    let packages = s.packages_of(&c).await;
    assert_eq!(packages.len(), 2, "one package per warehouse");
    for (i, p) in packages.iter().enumerate() {
        let (status, v) = s
            .ship(p["id"].as_str().unwrap(), &format!("1ZPATHC{i}"))
            .await;
        assert_eq!(status, 200, "{v}");
    }
    assert_listed(&s, &c, "PATH-C", "shipped").await;

    // The WMS ships a package; the carrier delivers it.
    let d = id_of(&packable_order(&s, "PATH-D", 1, 0).await);
    s.pack(&d).await;
    let pkg = s.packages_of(&d).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let shipped = json!({"eventId": "paths-w1", "packageId": pkg, "status": "shipped",
                         "occurredAt": "2026-11-22T09:00:00Z", "carrier": "ups",
                         "trackingNumber": "1ZPATHD"});
    let (status, v) = s.signed(WMS, WMS_SECRET, now(), &shipped).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "applied", "{v}");
    assert_listed(&s, &d, "PATH-D", "shipped").await;
    let delivered = json!({"eventId": "paths-c1", "trackingNumber": "1ZPATHD",
                           "status": "delivered", "occurredAt": "2026-11-22T11:00:00Z"});
    let (status, v) = s.signed(UPS, UPS_SECRET, now(), &delivered).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["package"]["status"], "delivered", "{v}");
    assert_listed(&s, &d, "PATH-D", "delivered").await;

    // The others kept their places meanwhile.
    assert_listed(&s, &a, "PATH-A", "processing").await;
    assert_listed(&s, &b, "PATH-B", "cancelled").await;
    assert_listed(&s, &c, "PATH-C", "shipped").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_the_background_packer_packs_move_to_the_processing_page() {
    let ca = TestCa::new();
    let (s, mut r) = auto_packing_with_receiver(&ca, SECRET, &["order.updated"]).await;
    let e = id_of(&packable_order(&s, "PATH-E", 2, 1).await);
    // The packer's order.updated is emitted by the transaction that packed the order
    // and delivered after it: the signal that the packer is done with it.
    loop {
        let hit = r.next(GUARD).await;
        assert!(verify(SECRET, &hit));
        let v = hit.json();
        if v["data"]["id"] == e.as_str() && v["data"]["status"] == "processing" {
            break;
        }
    }
    assert_eq!(s.order(&e).await["status"], "processing");
    assert_listed(&s, &e, "PATH-E", "processing").await;
}
