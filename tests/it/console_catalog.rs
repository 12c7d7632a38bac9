//! The console's catalog pages in a real headless Chromium against a real server: an
//! operator creates and deletes a product, creates a warehouse and edits its box
//! catalog, and the API agrees after each step.

use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn an_operator_creates_and_deletes_a_product_and_the_api_agrees() {
    let s = Server::start().await;
    let Some(b) = browser::logged_in(&s, "pia", "operator").await else {
        return;
    };
    b.click("nav a[href='/console/products']").await;
    b.text("h1", "Products").await;
    b.click("#new-product-toggle").await;
    // A bad price is the API's own error, naming the field; nothing is created.
    b.fill("#new-product input[name=sku]", "KETTLE-2").await;
    b.fill("#new-product input[name=name]", "Kettle").await;
    b.fill("#new-product input[name=price]", "12.34567").await;
    b.click("#new-product button[type=submit]").await;
    b.text("#new-product", "(field: price)").await;
    let (status, _) = s.get_json("/api/products/sku/KETTLE-2").await;
    assert_eq!(status, 404);

    b.fill("#new-product input[name=price]", "24.5").await;
    b.fill("#new-product input[name=weight]", "1.2").await;
    for (k, v) in [("width", "8"), ("height", "10"), ("length", "8")] {
        b.fill(&format!("#new-product input[name={k}]"), v).await;
    }
    b.fill("#new-product input[name=lowStockThreshold]", "4")
        .await;
    b.click("#new-product button[type=submit]").await;
    b.at("/console/products?sku=KETTLE-2&created=1").await;
    b.text("#products-list", "Product KETTLE-2 created.").await;
    let p = s.get_ok("/api/products/sku/KETTLE-2").await;
    assert_eq!(p["name"], "Kettle");
    assert_eq!(p["price"], json!(24.5));
    assert_eq!(p["weight"], json!(1.2));
    assert_eq!(
        p["dimensions"],
        json!({"width": 8.0, "height": 10.0, "length": 8.0})
    );
    assert_eq!(p["lowStockThreshold"], 4);

    b.click("button[data-sku='KETTLE-2']").await;
    b.client.accept_alert().await.unwrap();
    b.at("/console/products?deleted=KETTLE-2").await;
    b.text("#products-list", "Product KETTLE-2 deleted.").await;
    let (status, _) = s.get_json("/api/products/sku/KETTLE-2").await;
    assert_eq!(status, 404);
    let id = p["id"].as_str().unwrap();
    assert_eq!(
        s.get_ok(&format!("/api/products/{id}")).await["active"],
        false
    );
    b.close().await;
}

#[tokio::test]
async fn an_operator_creates_a_warehouse_and_edits_its_box_catalog() {
    let s = Server::start().await;
    let Some(b) = browser::logged_in(&s, "wes", "operator").await else {
        return;
    };
    b.click("nav a[href='/console/warehouses']").await;
    b.text("h1", "Warehouses").await;
    b.click("#new-warehouse-toggle").await;
    b.fill("#new-warehouse input[name=id]", "W-NORTH").await;
    b.fill("#new-warehouse input[name=name]", "North").await;
    b.click("#new-warehouse button[type=submit]").await;
    b.at("/console/warehouses/W-NORTH").await;
    b.text("h1", "North (W-NORTH)").await;
    assert_eq!(
        s.get_ok("/api/warehouses/W-NORTH").await["boxes"],
        json!([])
    );

    // Two boxes added from the keyboard-reachable table, one with a wrong size first.
    b.click("#add-box").await;
    b.click("#add-box").await;
    let row = |n: usize, k: &str| format!("#boxes-form tbody tr:nth-child({n}) input[name={k}]");
    for (n, id, w) in [(1, "SMALL", "6"), (2, "LARGE", "-1")] {
        b.fill(&row(n, "boxId"), id).await;
        for k in ["width", "height", "length"] {
            b.fill(&row(n, k), w).await;
        }
        b.fill(&row(n, "maxWeight"), "20").await;
    }
    b.fill(&row(1, "quantity"), "50").await;
    b.click("#boxes-form button[type=submit]").await;
    b.text("#boxes-result", "(field: boxes[1].width)").await;
    assert_eq!(
        s.get_ok("/api/warehouses/W-NORTH").await["boxes"],
        json!([])
    );
    for k in ["width", "height", "length"] {
        b.fill(&row(2, k), "12").await;
    }
    b.click("#boxes-form button[type=submit]").await;
    b.text("#boxes-result", "Box catalog saved.").await;
    let boxes = s.get_ok("/api/warehouses/W-NORTH").await["boxes"].clone();
    assert_eq!(boxes[0]["boxId"], "SMALL");
    assert_eq!(boxes[0]["quantity"], 50);
    assert_eq!(boxes[1]["boxId"], "LARGE");
    assert_eq!(boxes[1]["width"], json!(12.0));
    assert_eq!(boxes[1]["quantity"], json!(null));

    // Removing a row and saving replaces the catalog.
    b.click("button[aria-label='Remove box 1']").await;
    b.click("#boxes-form button[type=submit]").await;
    b.text("#boxes-result", "Box catalog saved.").await;
    let boxes = s.get_ok("/api/warehouses/W-NORTH").await["boxes"].clone();
    assert_eq!(boxes.as_array().unwrap().len(), 1);
    assert_eq!(boxes[0]["boxId"], "LARGE");
    b.close().await;
}
