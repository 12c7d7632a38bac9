use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn shots() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 10)]).await;
    s.post(
        "/api/warehouses",
        &json!({"id": "BOXY", "name": "Boxy", "boxes": boxes()}),
    )
    .await;
    let (_, o) = s
        .create_order(&order_body(
            "SHOP-1",
            json!([{"sku": "MUG", "quantity": 2}]),
        ))
        .await;
    s.post("/api/webhooks", &sink_subscription()).await;
    let b = browser::logged_in(&s, "ada", "admin").await.unwrap();
    let errs = "return window.__errs || []";
    for (name, path, wait) in [
        ("dash", "/console/", "#orders-today table"),
        ("orders", "/console/orders", "table"),
        (
            "order",
            &format!("/console/orders/{}", o["id"].as_str().unwrap()) as &str,
            "#order-events table",
        ),
        ("inv", "/console/inventory", "table"),
        ("wh", "/console/warehouses/BOXY", "#boxes-form"),
        ("hooks", "/console/webhooks", "table"),
        ("products", "/console/products", "table"),
        ("clients", "/console/clients", "#clients-list table"),
        ("ref", "/console/reference", "details"),
    ] {
        b.goto(&format!("{}{}", s.base, path)).await;
        b.css(wait).await;
        let png = b.client.screenshot().await.unwrap();
        std::fs::write(format!("/tmp/shot-{name}.png"), png).unwrap();
        let logs = b.client.execute(errs, vec![]).await.unwrap();
        eprintln!("{name}: {logs}");
    }
    b.client.set_window_size(768, 1024).await.unwrap();
    b.goto(&format!(
        "{}/console/orders/{}",
        s.base,
        o["id"].as_str().unwrap()
    ))
    .await;
    b.css("#order-events table").await;
    std::fs::write("/tmp/shot-tablet.png", b.client.screenshot().await.unwrap()).unwrap();
    b.close().await;
}
