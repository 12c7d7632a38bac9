//! Bulk import: JSON and CSV, each order all or nothing, exact per-order results with CSV
//! row numbers, duplicates, and the size limit.

use serde_json::{json, Value};

use crate::support::{assert_error, body, import_catalog, Server};

fn json_order(ext: &str, sku: &str, qty: i64) -> Value {
    json!({"externalId": ext, "customerEmail": "a@example.com", "items": [{"sku": sku, "quantity": qty}],
           "shippingAddresses": [{"line1": "1 Main", "city": "Reno", "postalCode": "89501", "country": "US"}]})
}

fn csv_post(s: &Server, csv: String) -> reqwest::RequestBuilder {
    s.req(reqwest::Method::POST, "/api/orders/bulk-import")
        .header("content-type", "text/csv")
        .body(csv)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_import_reports_each_order() {
    let s = Server::start().await;
    import_catalog(&s).await;
    let orders = json!({"orders": [
        json_order("J-1", "MUG", 1),
        json_order("J-2", "NOPE", 1),
        json_order("J-1", "MUG", 1),
        json_order("J-1", "MUG", 5),
        {"externalId": "J-3", "customerEmail": "a@example.com", "items": [{"sku": "MUG", "quantity": "x"}]},
        json_order("J-4", "CUP", 60000),
    ]});
    let (st, v) = s.post("/api/orders/bulk-import", &orders).await;
    assert_eq!(st, 200, "{v}");
    let statuses: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["created", "error", "duplicate", "error", "error", "error"]
    );
    assert_eq!(
        v["counts"],
        json!({"total": 6, "created": 1, "duplicate": 1, "error": 4})
    );
    assert_eq!(v["results"][2]["orderId"], v["results"][0]["orderId"]);
    assert_eq!(v["results"][1]["error"]["field"], "items[0].sku");
    assert_eq!(v["results"][3]["error"]["code"], "conflict");
    assert_eq!(v["results"][4]["error"]["field"], "items[0].quantity");
    assert_eq!(v["results"][5]["error"]["code"], "insufficient_inventory");
    let (_, list) = s.get_json("/api/orders").await;
    assert_eq!(
        list["pagination"]["total"], 1,
        "failed orders left nothing behind"
    );
    let (_, inv) = s.get_json("/api/inventory?sku=CUP").await;
    assert_eq!(inv["inventory"][0]["reserved"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_order_csv_gives_exact_per_order_results() {
    let s = Server::start().await;
    import_catalog(&s).await;
    // Orders 0..50 exist already with the same content: they come back as duplicates.
    let header = "externalId,customerId,customerEmail,sku,quantity,unitPrice,shippingAddress.name,shippingAddress.line1,shippingAddress.line2,shippingAddress.city,shippingAddress.region,shippingAddress.postalCode,shippingAddress.country,billingAddress.line1,billingAddress.city,billingAddress.postalCode,billingAddress.country\n";
    let row = |n: usize, sku: &str, qty: usize, country: &str| {
        format!("C-{n},cust-{n},c{n}@example.com,{sku},{qty},,Ann,\"1 Main St, Apt {n}\",,Reno,NV,89501,{country},,,,\n")
    };
    let mut pre = String::from(header);
    for n in 0..50 {
        pre.push_str(&row(n, "MUG", 1, "US"));
        pre.push_str(&row(n, "CUP", 2, "US"));
    }
    let (st, v) = body(csv_post(&s, pre).send().await.unwrap()).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["counts"]["created"], 50);

    let mut csv = String::from(header);
    let mut expected = Vec::new(); // (status, rows)
    let mut next_row = 2u64;
    for n in 0..1000 {
        let invalid = n % 10 == 7;
        let country = if invalid { "XX" } else { "US" };
        let lines = if n < 50 { 2 } else { 1 + n % 3 };
        let mut rows = Vec::new();
        for l in 0..lines {
            let (sku, qty) = if n < 50 {
                (["MUG", "CUP"][l], l + 1)
            } else {
                (["MUG", "CUP", "MUG"][l], 1)
            };
            csv.push_str(&row(n, sku, qty, country));
            rows.push(next_row);
            next_row += 1;
        }
        let status = if invalid {
            "error"
        } else if n < 50 {
            "duplicate"
        } else {
            "created"
        };
        expected.push((status, rows));
    }
    let (st, v) = body(csv_post(&s, csv).send().await.unwrap()).await;
    assert_eq!(st, 200);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1000);
    for (i, (status, rows)) in expected.iter().enumerate() {
        let r = &results[i];
        assert_eq!(r["index"], i, "{r}");
        assert_eq!(r["externalId"], format!("C-{i}"));
        assert_eq!(r["status"], *status, "order {i}: {r}");
        assert_eq!(r["rows"], json!(rows), "order {i}");
        if *status == "error" {
            assert_eq!(r["error"]["field"], "shippingAddresses[0].country", "{r}");
        } else {
            assert!(r["orderId"].is_string());
        }
    }
    let invalid = (0..1000).filter(|n| n % 10 == 7).count() as u64;
    let duplicates = (0..50).filter(|n| n % 10 != 7).count() as u64;
    assert_eq!(
        v["counts"],
        json!({"total": 1000, "created": 1000 - invalid - duplicates, "duplicate": duplicates, "error": invalid})
    );
    let (_, list) = s.get_json("/api/orders?limit=1").await;
    assert_eq!(
        list["pagination"]["total"],
        50 + 1000 - invalid - duplicates
    );
    let id = results[53]["orderId"].as_str().unwrap();
    let (_, o) = s.get_json(&format!("/api/orders/{id}")).await;
    assert_eq!(
        o["items"].as_array().unwrap().len(),
        3,
        "rows grouped by externalId"
    );
    assert_eq!(
        o["shippingAddresses"][0]["line1"], "1 Main St, Apt 53",
        "quoted CSV field"
    );
    assert_eq!(o["customerId"], "cust-53");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_groups_must_agree_and_limits_hold() {
    let s = Server::start_with(|c| c.bulk_max_orders = 3).await;
    import_catalog(&s).await;
    let header = "externalId,customerEmail,sku,quantity,shippingAddress.line1,shippingAddress.city,shippingAddress.postalCode,shippingAddress.country\n";
    let csv = format!("{header}G-1,a@example.com,MUG,1,1 Main,Reno,1,US\nG-1,b@example.com,CUP,1,1 Main,Reno,1,US\nG-2,a@example.com,MUG,1,1 Main,Reno,1,US\n");
    let (st, v) = body(csv_post(&s, csv).send().await.unwrap()).await;
    assert_eq!(st, 200);
    assert_eq!(v["results"][0]["status"], "error");
    assert_eq!(v["results"][0]["error"]["field"], "customerEmail");
    assert_eq!(v["results"][0]["rows"], json!([2, 3]));
    assert_eq!(v["results"][1]["status"], "created");

    let four: String = (0..4)
        .map(|i| format!("L-{i},a@example.com,MUG,1,1 Main,Reno,1,US\n"))
        .collect();
    let resp = csv_post(&s, format!("{header}{four}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 413);
    assert_error(&resp.json().await.unwrap(), "payload_too_large", None);
    let four_json = json!({"orders": (0..4).map(|i| json_order(&format!("L-{i}"), "MUG", 1)).collect::<Vec<_>>()});
    assert_eq!(
        s.post_json("/api/orders/bulk-import", &four_json)
            .send()
            .await
            .unwrap()
            .status(),
        413
    );

    let (st, v) = body(
        csv_post(&s, "externalId,sku\nX,MUG\n".into())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(st, 400);
    assert_error(&v, "bad_request", Some("customerEmail"));
    let resp = s
        .req(reqwest::Method::POST, "/api/orders/bulk-import")
        .header("content-type", "text/plain")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 415);
}
