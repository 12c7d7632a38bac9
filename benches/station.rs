//! Packer station benchmark (issue 18, run by benches/station.sh): orders of 200 units of 12
//! household SKUs (`packing::carts::order(11, 12, 200)`, the `views` bench's package), each
//! packed by the server into one 60 x 48 x 48 carton; then, per package, what a packer's
//! screen asks for: the instructions, the diagram of every step and of the packed box, one
//! request after another. Reports the server's time for them (the sums of
//! `fulfilld_http_request_duration_seconds` of the two routes, read from /metrics before and
//! after each package), the client's wall time, and the sizes. The first pass over a package
//! builds its scene; a second pass finds it kept. Talks only to `--base`.

#[path = "common/mod.rs"]
mod common;

use std::time::Instant;

use argh::FromArgs;
use reqwest::Method as M;
use serde_json::{json, Value};

use common::{server_options, Client};

server_options! {
    /// Packer station benchmark for fulfilld.
    #[derive(FromArgs)]
    struct Args {
        /// packages (orders of 200 units) to step through (default 5)
        #[argh(option, default = "5")]
        packages: usize,
    }
}

const ROUTES: [&str; 2] = [
    "/api/packages/{id}/instructions",
    "/api/packages/{id}/diagram.svg",
];

/// Seconds the server spent answering the two routes so far.
async fn server_seconds(c: &Client) -> f64 {
    let text = c
        .req(M::GET, "/metrics")
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics body");
    text.lines()
        .filter(|l| l.starts_with("fulfilld_http_request_duration_seconds_sum{"))
        .filter(|l| ROUTES.iter().any(|r| l.contains(&format!("route=\"{r}\""))))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

async fn get(c: &Client, path: &str) -> String {
    let r = c.req(M::GET, path).send().await.expect(path);
    assert!(r.status().is_success(), "GET {path}: {}", r.status());
    r.text().await.expect(path)
}

/// Seeds the catalog, creates and packs `n` orders; the largest package of each.
async fn packages(c: &Client, n: usize) -> Vec<String> {
    let cart = packing::carts::order(11, 12, 200);
    let box_ = json!({"boxId": "PALLET-BOX", "width": 60, "height": 48, "length": 48, "maxWeight": 100000});
    c.post(
        "/api/warehouses",
        json!({"id": "BENCH", "name": "Bench", "boxes": [box_]}),
    )
    .await;
    for it in &cart.items {
        let mut p = json!({"sku": it.item_id, "name": format!("Item {}", it.item_id), "price": 1,
            "weight": it.weight, "dimensions": {"width": it.width, "height": it.height, "length": it.length},
            "orientation": if it.orientation == packing::Orientation::Any { "any" } else { "upright" }});
        if let Some(h) = &it.hazmat {
            p["hazmat"] = json!({"class": h.class, "unNumber": "UN1993"});
        }
        c.post("/api/products", p).await;
        let stock =
            json!({"sku": it.item_id, "warehouseId": "BENCH", "onHand": it.quantity * n as i64});
        c.post("/api/inventory", stock).await;
    }
    let items: Vec<Value> = cart
        .items
        .iter()
        .map(|it| json!({"sku": it.item_id, "quantity": it.quantity}))
        .collect();
    let mut out = Vec::new();
    for i in 0..n {
        let order = c
            .post(
                "/api/orders",
                json!({"externalId": format!("STATION-{i}"), "customerEmail": "bench@example.com", "items": items,
                "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "postalCode": "89501", "country": "US"}]}),
            )
            .await;
        let id = order["id"].as_str().expect("order id").to_string();
        let packed: Value = c
            .req(M::POST, &format!("/api/orders/{id}/pack"))
            .send()
            .await
            .expect("pack")
            .json()
            .await
            .expect("pack body");
        assert_eq!(packed["status"], "processing", "{packed}");
        let list: Value = c
            .req(M::GET, &format!("/api/packages?orderId={id}"))
            .send()
            .await
            .expect("packages")
            .json()
            .await
            .expect("packages body");
        let units = |p: &Value| -> u64 {
            p["items"].as_array().map_or(0, |i| {
                i.iter().map(|i| i["quantity"].as_u64().unwrap_or(0)).sum()
            })
        };
        let best = list["packages"]
            .as_array()
            .expect("a list")
            .iter()
            .max_by_key(|p| units(p))
            .expect("a package");
        eprintln!(
            "order {i}: {} package(s), the largest {} units",
            list["packages"].as_array().map_or(0, Vec::len),
            units(best)
        );
        out.push(best["id"].as_str().expect("package id").to_string());
    }
    out
}

/// One pass over a package as a packer steps through it: (server ms, client ms, steps,
/// instructions bytes, largest step SVG bytes, packed box SVG bytes).
async fn step_through(c: &Client, pkg: &str) -> (f64, f64, usize, usize, usize, usize) {
    let before = server_seconds(c).await;
    let started = Instant::now();
    let instructions = get(c, &format!("/api/packages/{pkg}/instructions")).await;
    let steps = serde_json::from_str::<Value>(&instructions).expect("JSON")["steps"]
        .as_array()
        .map_or(0, Vec::len);
    let mut largest = 0;
    for k in 1..=steps {
        let svg = get(c, &format!("/api/packages/{pkg}/diagram.svg?step={k}")).await;
        largest = largest.max(svg.len());
    }
    let complete = get(c, &format!("/api/packages/{pkg}/diagram.svg")).await;
    let client = started.elapsed().as_secs_f64() * 1000.0;
    let server = (server_seconds(c).await - before) * 1000.0;
    (
        server,
        client,
        steps,
        instructions.len(),
        largest,
        complete.len(),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Args = argh::from_env();
    let c = Client::connect(&args.base, &args.cert, &args.api_key, 1);
    let pkgs = packages(&c, args.packages).await;
    println!("| pass | package | steps | server ms (1 + steps + 1 requests) | client ms | instructions bytes | largest step SVG | packed box SVG |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for pass in ["first (scene built)", "again (scene kept)"] {
        for (i, pkg) in pkgs.iter().enumerate() {
            let (server, client, steps, json, largest, complete) = step_through(&c, pkg).await;
            println!(
                "| {pass} | {i} | {steps} | {server:.2} | {client:.1} | {json} | {largest} | {complete} |"
            );
        }
    }
}
