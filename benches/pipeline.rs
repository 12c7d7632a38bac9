//! Order-to-packages pipeline benchmark (issue 7, run by benches/pipeline.sh): creates
//! orders of 1-10 units at a fixed rate (open loop) while readers measure the API's
//! latency, samples how many orders reached `processing` each second, and reports the
//! packing throughput once the backlog is drained. Talks only to `--base`.

#[path = "common/mod.rs"]
mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argh::FromArgs;
use hdrhistogram::Histogram;
use reqwest::Method as M;
use serde_json::{json, Value};

use common::{server_options, Client, Rng};

server_options! {
    /// Pipeline benchmark for fulfilld.
    #[derive(FromArgs)]
    struct Args {
        /// orders to create (default 15000)
        #[argh(option, default = "15000")]
        orders: usize,
        /// orders created per second (default 600)
        #[argh(option, default = "600")]
        rate: u64,
        /// products in the catalog (default 200)
        #[argh(option, default = "200")]
        skus: usize,
        /// concurrent readers measuring the API meanwhile (default 8)
        #[argh(option, default = "8")]
        readers: usize,
    }
}

/// A cart of 1-10 units over 1-3 lines.
fn cart(i: usize, rng: &mut Rng, skus: usize) -> Value {
    let units = 1 + rng.below(10);
    let lines = (1 + rng.below(3)).min(units);
    let mut left = units;
    let items: Vec<Value> = (0..lines)
        .map(|l| {
            let q = if l + 1 == lines {
                left
            } else {
                1 + rng.below(left - (lines - l - 1))
            };
            left -= q;
            json!({"sku": format!("P{}", rng.below(skus)), "quantity": q})
        })
        .collect();
    json!({"externalId": format!("PIPE-{i}"), "customerEmail": format!("p{i}@example.com"),
           "items": items,
           "shippingAddresses": [{"line1": "1 Main St", "city": "Reno", "postalCode": "89501", "country": "US"}]})
}

fn percentiles(name: &str, h: &Histogram<u64>, errors: u64) {
    let q = |p: f64| h.value_at_quantile(p) as f64 / 1000.0;
    println!(
        "{name:<38} {:>7} req  p50 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms  errors {errors}",
        h.len(),
        q(0.5),
        q(0.99),
        h.max() as f64 / 1000.0
    );
}

async fn seed(c: &Client, skus: usize) {
    for w in 0..2 {
        c.post(
            "/api/warehouses",
            json!({"id": format!("W{w}"), "name": format!("Warehouse {w}"),
            "boxes": [{"boxId": "S", "width": 8, "height": 6, "length": 10, "maxWeight": 20},
                      {"boxId": "M", "width": 12, "height": 10, "length": 14, "maxWeight": 40},
                      {"boxId": "L", "width": 18, "height": 14, "length": 20, "maxWeight": 60}]}),
        )
        .await;
    }
    for i in 0..skus {
        c.post(
            "/api/products",
            json!({"sku": format!("P{i}"), "name": format!("Product {i}"),
            "price": 9.99, "weight": 1.5, "dimensions": {"width": 4, "height": 3, "length": 5},
            "orientation": if i % 4 == 0 { "upright" } else { "any" }}),
        )
        .await;
        for w in 0..2 {
            c.post(
                "/api/inventory",
                json!({"sku": format!("P{i}"), "warehouseId": format!("W{w}"),
                "onHand": 10_000_000}),
            )
            .await;
        }
    }
}

#[tokio::main]
async fn main() {
    let args: Args = argh::from_env();
    let c = Client::connect(&args.base, &args.cert, &args.api_key, 256);
    seed(&c, args.skus).await;
    let before = c.total("/api/orders?status=processing&limit=1").await;

    let creates = Arc::new(Mutex::new((Histogram::<u64>::new(3).unwrap(), 0u64)));
    let reads = Arc::new(Mutex::new((Histogram::<u64>::new(3).unwrap(), 0u64)));
    let start = Instant::now();
    let creating = {
        let (c, creates, n, rate, skus) = (
            c.clone(),
            Arc::clone(&creates),
            args.orders,
            args.rate,
            args.skus,
        );
        tokio::spawn(async move {
            // Bounds the connections an overloaded server would make us open.
            let gate = Arc::new(tokio::sync::Semaphore::new(200));
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
            let mut tasks = Vec::with_capacity(n);
            for i in 0..n {
                let due = start + Duration::from_secs_f64(i as f64 / rate as f64);
                tokio::time::sleep_until(due.into()).await;
                let permit = Arc::clone(&gate).acquire_owned().await.unwrap();
                let (c, creates, body) = (c.clone(), Arc::clone(&creates), cart(i, &mut rng, skus));
                tasks.push(tokio::spawn(async move {
                    let t0 = Instant::now();
                    let ok = match c.req(M::POST, "/api/orders").json(&body).send().await {
                        Ok(r) if r.status().is_success() => true,
                        Ok(r) => {
                            eprintln!(
                                "create: {} {}",
                                r.status(),
                                r.text().await.unwrap_or_default()
                            );
                            false
                        }
                        Err(e) => {
                            eprintln!("create failed: {e:?}");
                            false
                        }
                    };
                    let mut g = creates.lock().unwrap();
                    if ok {
                        let _ = g.0.record(t0.elapsed().as_micros() as u64);
                    } else {
                        g.1 += 1;
                    }
                    drop(permit);
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        })
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reading: Vec<_> = (0..args.readers)
        .map(|r| {
            let (c, reads, skus, stop) =
                (c.clone(), Arc::clone(&reads), args.skus, Arc::clone(&stop));
            tokio::spawn(async move {
                let mut rng = Rng(r as u64 + 17);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let path = match rng.below(3) {
                        0 => format!("/api/products/sku/P{}", rng.below(skus)),
                        1 => format!("/api/inventory?sku=P{}", rng.below(skus)),
                        _ => "/api/orders?status=processing&limit=20".to_string(),
                    };
                    let t0 = Instant::now();
                    let ok = c
                        .req(M::GET, &path)
                        .send()
                        .await
                        .is_ok_and(|r| r.status().is_success());
                    let mut g = reads.lock().unwrap();
                    if ok {
                        let _ = g.0.record(t0.elapsed().as_micros() as u64);
                    } else {
                        g.1 += 1;
                    }
                }
            })
        })
        .collect();
    // Orders reaching processing, sampled each second, until every created order has.
    let target = before + args.orders as u64;
    let mut last = before;
    let mut peak_backlog = 0u64;
    let mut per_second = Vec::new();
    let packed_at = loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = c.total("/api/orders?status=processing&limit=1").await;
        let pending = c.total("/api/orders?status=pending&limit=1").await;
        peak_backlog = peak_backlog.max(pending);
        per_second.push(now - last);
        last = now;
        if creating.is_finished() && !stop.load(std::sync::atomic::Ordering::Relaxed) {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if now >= target {
            break start.elapsed();
        }
        if creating.is_finished() && pending == 0 {
            eprintln!(
                "no order pending but only {} of {} processing",
                now - before,
                args.orders
            );
            break start.elapsed();
        }
        // Packing off (PIPELINE_AUTO_PACK=false, the baseline) or stuck: stop measuring.
        if creating.is_finished() && per_second.iter().rev().take(3).all(|n| *n == 0) {
            eprintln!(
                "no progress for 3 s: {} of {} processing",
                now - before,
                args.orders
            );
            break start.elapsed();
        }
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = creating.await;
    for r in reading {
        let _ = r.await;
    }
    let packed = last - before;
    println!(
        "pipeline: {} orders (1-10 units) offered at {}/s; {} packed in {:.1} s = {:.0} orders/s end to end; peak backlog {} pending",
        args.orders,
        args.rate,
        packed,
        packed_at.as_secs_f64(),
        packed as f64 / packed_at.as_secs_f64(),
        peak_backlog
    );
    println!("orders reaching processing per second: {per_second:?}");
    let g = creates.lock().unwrap();
    percentiles("POST /api/orders (durable, while packing)", &g.0, g.1);
    let g = reads.lock().unwrap();
    percentiles("GETs (sku, inventory, orders page)", &g.0, g.1);
}
