//! API load generator for the catalog and order benchmarks (run by benches/api_load.sh):
//! seeds data through the real HTTPS API and measures throughput and latency percentiles
//! at a fixed concurrency. Only ever talks to the `--base` address it is given.

#[path = "common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use argh::FromArgs;
use hdrhistogram::Histogram;
use serde_json::{json, Value};

use common::{order_body, server_options, Client, Rng};

server_options! {
    /// Load generator for fulfilld.
    #[derive(FromArgs)]
    struct Args {
        /// concurrent clients (default 32)
        #[argh(option, default = "32")]
        concurrency: usize,
        #[argh(subcommand)]
        cmd: Cmd,
    }
}

#[derive(FromArgs)]
#[argh(subcommand)]
enum Cmd {
    SeedCatalog(SeedCatalog),
    ReadCatalog(ReadCatalog),
    CreateOrders(CreateOrders),
    BulkOrders(BulkOrders),
    ReadOrders(ReadOrders),
    ScrapeCost(ScrapeCost),
}

/// Create warehouses, products P0..Pn and one inventory record per product and warehouse.
#[derive(FromArgs)]
#[argh(subcommand, name = "seed-catalog")]
struct SeedCatalog {
    /// number of products
    #[argh(option)]
    products: usize,
    /// number of warehouses (default 2)
    #[argh(option, default = "2")]
    warehouses: usize,
}

/// Measure SKU lookups, inventory by SKU and 200-product pages.
#[derive(FromArgs)]
#[argh(subcommand, name = "read-catalog")]
struct ReadCatalog {
    /// number of seeded products to pick from
    #[argh(option)]
    products: usize,
    /// seconds per scenario (default 10)
    #[argh(option, default = "10")]
    secs: u64,
    /// run only this scenario: sku, inventory or list (default all three)
    #[argh(option)]
    only: Option<String>,
}

/// Create orders one request each (durable), measuring orders/s and latency.
#[derive(FromArgs)]
#[argh(subcommand, name = "create-orders")]
struct CreateOrders {
    /// number of orders
    #[argh(option)]
    n: usize,
    /// pick SKUs among the first this many products (default 100)
    #[argh(option, default = "100")]
    skus: usize,
    /// externalId prefix (default ORD)
    #[argh(option, default = "String::from(\"ORD\")")]
    prefix: String,
    /// send each order with an Idempotency-Key (its externalId)
    #[argh(switch)]
    keyed: bool,
}

/// Import orders with CSV bulk imports of `batch` orders each, timing each import.
#[derive(FromArgs)]
#[argh(subcommand, name = "bulk-orders")]
struct BulkOrders {
    /// number of orders
    #[argh(option)]
    n: usize,
    /// orders per import (default 10000)
    #[argh(option, default = "10000")]
    batch: usize,
    /// pick SKUs among the first this many products (default 100)
    #[argh(option, default = "100")]
    skus: usize,
    /// externalId prefix (default BULK)
    #[argh(option, default = "String::from(\"BULK\")")]
    prefix: String,
}

/// Measure the pending-orders page and an externalId search.
#[derive(FromArgs)]
#[argh(subcommand, name = "read-orders")]
struct ReadOrders {
    /// bulk orders seeded (externalIds BULK-0..n)
    #[argh(option)]
    n: usize,
    /// seconds per scenario (default 10)
    #[argh(option, default = "10")]
    secs: u64,
}

/// Product-by-SKU GETs without, then with, a scraper fetching /metrics once a second,
/// alternating for `rounds` rounds: the cost of being watched, as a ratio in one run.
#[derive(FromArgs)]
#[argh(subcommand, name = "scrape-cost")]
struct ScrapeCost {
    /// number of seeded products to pick from
    #[argh(option)]
    products: usize,
    /// seconds per half-round (default 10)
    #[argh(option, default = "10")]
    secs: u64,
    /// rounds of (without, with) (default 3)
    #[argh(option, default = "3")]
    rounds: usize,
}

/// Fetches /metrics every second until aborted; the scrape times in microseconds.
async fn scrape_every_second(c: Client, times: Arc<std::sync::Mutex<Vec<u64>>>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        let t0 = Instant::now();
        let r = c.http.get(format!("{}/metrics", c.base)).send().await;
        let ok = match r {
            Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
            Err(_) => false,
        };
        assert!(ok, "scrape failed");
        times.lock().unwrap().push(t0.elapsed().as_micros() as u64);
    }
}

struct Stats {
    name: String,
    ok: u64,
    errors: u64,
    elapsed: Duration,
    hist: Histogram<u64>,
}

impl Stats {
    fn print(&self) {
        let q = |p: f64| self.hist.value_at_quantile(p) as f64 / 1000.0;
        println!(
            "{:<34} {:>8} req {:>9.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms  p99.9 {:>7.2} ms  max {:>7.2} ms  errors {}",
            self.name,
            self.ok,
            self.ok as f64 / self.elapsed.as_secs_f64(),
            q(0.5),
            q(0.99),
            q(0.999),
            self.hist.max() as f64 / 1000.0,
            self.errors
        );
    }
}

/// Runs `make(i)` for i in 0..total (or until `secs` pass) on `concurrency` workers.
async fn run<F>(
    name: &str,
    c: &Client,
    concurrency: usize,
    total: Option<usize>,
    secs: Option<u64>,
    make: F,
) -> Stats
where
    F: Fn(&Client, usize, &mut Rng) -> reqwest::RequestBuilder + Send + Sync + 'static,
{
    let make = Arc::new(make);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let deadline = secs.map(|s| start + Duration::from_secs(s));
    let mut tasks = Vec::new();
    for w in 0..concurrency {
        let (c, make, next) = (c.clone(), Arc::clone(&make), Arc::clone(&next));
        tasks.push(tokio::spawn(async move {
            let mut hist = Histogram::<u64>::new(3).expect("histogram");
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (w as u64 + 1));
            let (mut ok, mut errors) = (0u64, 0u64);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if total.is_some_and(|t| i >= t) || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                let t0 = Instant::now();
                let result = make(&c, i, &mut rng).send().await;
                let micros = t0.elapsed().as_micros() as u64;
                match result {
                    Ok(r) if r.status().is_success() => {
                        let _ = r.bytes().await;
                        ok += 1;
                        let _ = hist.record(micros.max(1));
                    }
                    Ok(r) => {
                        errors += 1;
                        if errors <= 3 {
                            eprintln!("{} -> {}", r.status(), r.text().await.unwrap_or_default());
                        }
                    }
                    Err(e) => {
                        errors += 1;
                        if errors <= 3 {
                            eprintln!("request failed: {e}");
                        }
                    }
                }
            }
            (ok, errors, hist)
        }));
    }
    let mut stats = Stats {
        name: name.to_string(),
        ok: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        hist: Histogram::new(3).expect("histogram"),
    };
    for t in tasks {
        let (ok, errors, hist) = t.await.expect("worker");
        stats.ok += ok;
        stats.errors += errors;
        stats.hist.add(hist).expect("same histogram shape");
    }
    stats.elapsed = start.elapsed();
    stats.print();
    stats
}

/// Runs GETs of `path(rng)` on `concurrency` workers for `secs` seconds.
async fn read<P>(name: &str, c: &Client, concurrency: usize, secs: u64, path: P) -> Stats
where
    P: Fn(&mut Rng) -> String + Send + Sync + 'static,
{
    run(name, c, concurrency, None, Some(secs), move |c, _, rng| {
        c.req(reqwest::Method::GET, &path(rng))
    })
    .await
}

#[tokio::main]
async fn main() {
    let args: Args = argh::from_env();
    let c = Client::connect(&args.base, &args.cert, &args.api_key, args.concurrency);
    let n = args.concurrency;
    use reqwest::Method as M;
    match args.cmd {
        Cmd::SeedCatalog(a) => {
            let start = Instant::now();
            for w in 0..a.warehouses {
                let body = json!({"id": format!("W{w}"), "name": format!("Warehouse {w}"),
                    "boxes": [{"boxId": "S", "width": 8, "height": 6, "length": 10, "maxWeight": 20},
                              {"boxId": "M", "width": 12, "height": 10, "length": 14, "maxWeight": 40},
                              {"boxId": "L", "width": 18, "height": 14, "length": 20, "maxWeight": 60}]});
                let r = c
                    .req(M::POST, "/api/warehouses")
                    .json(&body)
                    .send()
                    .await
                    .expect("warehouse");
                assert!(
                    r.status().is_success() || r.status() == 409,
                    "warehouse: {}",
                    r.status()
                );
            }
            let products = run(
                "POST /api/products",
                &c,
                n,
                Some(a.products),
                None,
                |c, i, _| {
                    c.req(M::POST, "/api/products").json(
                        &json!({"sku": format!("P{i}"), "name": format!("Product {i}"),
                    "price": 9.99, "weight": 1.5, "lowStockThreshold": 5,
                    "dimensions": {"width": 4, "height": 3, "length": 5}}),
                    )
                },
            )
            .await;
            let wh = a.warehouses;
            let inventory = run("POST /api/inventory", &c, n, Some(a.products * wh), None, move |c, i, _| {
                c.req(M::POST, "/api/inventory").json(&json!({"sku": format!("P{}", i / wh), "warehouseId": format!("W{}", i % wh), "onHand": 1_000_000}))
            })
            .await;
            let total = start.elapsed();
            println!(
                "seed-catalog: {} products + {} inventory records in {:.1} s ({:.0} writes/s), errors {}",
                products.ok,
                inventory.ok,
                total.as_secs_f64(),
                (products.ok + inventory.ok) as f64 / total.as_secs_f64(),
                products.errors + inventory.errors
            );
        }
        Cmd::ReadCatalog(a) => {
            let p = a.products;
            let on = |name: &str| a.only.as_deref().is_none_or(|o| o == name);
            if on("sku") {
                read("GET /api/products/sku/{sku}", &c, n, a.secs, move |rng| {
                    format!("/api/products/sku/P{}", rng.below(p))
                })
                .await;
            }
            if on("inventory") {
                read("GET /api/inventory?sku=", &c, n, a.secs, move |rng| {
                    format!("/api/inventory?sku=P{}", rng.below(p))
                })
                .await;
            }
            if on("list") {
                read("GET /api/products?limit=200", &c, n, a.secs, |rng| {
                    format!("/api/products?limit=200&offset={}", 200 * rng.below(50))
                })
                .await;
            }
        }
        Cmd::CreateOrders(a) => {
            let (prefix, keyed) = (a.prefix.clone(), a.keyed);
            run(
                if keyed {
                    "POST /api/orders with Idempotency-Key (durable)"
                } else {
                    "POST /api/orders (durable)"
                },
                &c,
                n,
                Some(a.n),
                None,
                move |c, i, rng| {
                    let external = format!("{prefix}-{i}");
                    let req = c.req(M::POST, "/api/orders");
                    let req = if keyed {
                        req.header("Idempotency-Key", &external)
                    } else {
                        req
                    };
                    req.json(&order_body(&external, rng, a.skus))
                },
            )
            .await;
        }
        Cmd::BulkOrders(a) => {
            let start = Instant::now();
            let mut rng = Rng(7);
            let mut hist = Histogram::<u64>::new(3).expect("histogram");
            let mut done = 0;
            while done < a.n {
                let count = a.batch.min(a.n - done);
                let mut csv = String::from("externalId,customerId,customerEmail,sku,quantity,shippingAddress.line1,shippingAddress.city,shippingAddress.postalCode,shippingAddress.country\n");
                for i in done..done + count {
                    // Order-level columns must repeat identically on every row of an order.
                    let customer = rng.below(50_000);
                    for _ in 0..1 + rng.below(3) {
                        csv.push_str(&format!(
                            "{}-{i},C{customer},b{i}@example.com,P{},{},1 Main St,Reno,89501,US\n",
                            a.prefix,
                            rng.below(a.skus),
                            1 + rng.below(3)
                        ));
                    }
                }
                let t0 = Instant::now();
                let r = c
                    .req(M::POST, "/api/orders/bulk-import")
                    .header("content-type", "text/csv")
                    .body(csv)
                    .send()
                    .await
                    .expect("import");
                let status = r.status();
                let v: Value = r.json().await.unwrap_or(Value::Null);
                let _ = hist.record(t0.elapsed().as_millis() as u64);
                assert!(status.is_success(), "bulk import: {status} {v}");
                if v["counts"]["error"].as_u64().unwrap_or(0) > 0 {
                    eprintln!("errors in batch: {}", v["counts"]);
                }
                done += count;
            }
            let total = start.elapsed();
            println!(
                "bulk-orders: {} orders in {:.1} s ({:.0} orders/s); per import of {}: median {} ms, max {} ms",
                a.n,
                total.as_secs_f64(),
                a.n as f64 / total.as_secs_f64(),
                a.batch,
                hist.value_at_quantile(0.5),
                hist.max()
            );
        }
        Cmd::ScrapeCost(a) => {
            let p = a.products;
            let (mut without, mut with) = (Vec::new(), Vec::new());
            let get = move |c: &Client, _: usize, rng: &mut Rng| {
                c.req(M::GET, &format!("/api/products/sku/P{}", rng.below(p)))
            };
            for _ in 0..a.rounds {
                let s = run("GET sku, no scraper", &c, n, None, Some(a.secs), get).await;
                without.push(s.ok as f64 / s.elapsed.as_secs_f64());
                let times = Arc::new(std::sync::Mutex::new(Vec::new()));
                let scraper = tokio::spawn(scrape_every_second(c.clone(), Arc::clone(&times)));
                let s = run("GET sku, scraper at 1 s", &c, n, None, Some(a.secs), get).await;
                scraper.abort();
                with.push(s.ok as f64 / s.elapsed.as_secs_f64());
                let t = times.lock().unwrap();
                let max = t.iter().max().copied().unwrap_or(0) as f64 / 1000.0;
                let mean = t.iter().sum::<u64>() as f64 / t.len().max(1) as f64 / 1000.0;
                println!("  {} scrapes: mean {mean:.1} ms, max {max:.1} ms", t.len());
            }
            let (w, s) = (without.iter().sum::<f64>(), with.iter().sum::<f64>());
            println!(
                "scrape-cost: {:.0} req/s without, {:.0} req/s with a scraper at 1 s: ratio {:.3}",
                w / a.rounds as f64,
                s / a.rounds as f64,
                s / w
            );
        }
        Cmd::ReadOrders(a) => {
            read(
                "GET /api/orders?status=pending&limit=50",
                &c,
                n,
                a.secs,
                |rng| {
                    format!(
                        "/api/orders?status=pending&limit=50&offset={}",
                        50 * rng.below(100)
                    )
                },
            )
            .await;
            let orders = a.n;
            read(
                "GET /api/orders?q=<externalId>",
                &c,
                n,
                a.secs,
                move |rng| format!("/api/orders?q=BULK-{}&limit=50", rng.below(orders)),
            )
            .await;
        }
    }
}
