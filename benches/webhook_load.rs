//! Webhook delivery benchmark (issue 5, run by benches/webhooks.sh). `certs` writes a test
//! CA and a leaf certificate for 127.0.0.1 so the script can start fulfilld with
//! `--webhook-ca`; `run` starts a local HTTPS receiver with that leaf (it answers 200 at
//! once, counts deliveries per subscription path and checks a sample of signatures),
//! optionally a dead endpoint (accepts TCP, never answers), seeds a small catalog,
//! subscribes, then creates orders with 64 clients for a fixed time while it measures the
//! deliveries arriving per second. With `--rate` orders are paced at that many per
//! second instead (the delivery-lag benchmark, benches/webhook_lag.sh); the lag from each
//! event's commit to its first arrival is reported either way. It ends with one `RESULT`
//! line the scripts compare.

mod webhook_receiver;

#[path = "common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use argh::FromArgs;
use hdrhistogram::Histogram;
use reqwest::Method as M;
use serde_json::{json, Value};
use webhook_receiver::{dead_endpoint, receiver, secret, write_certs, Seen};

use common::{order_body, server_options, Client, Rng};

/// Webhook delivery benchmark for fulfilld.
#[derive(FromArgs)]
struct Args {
    #[argh(subcommand)]
    cmd: Cmd,
}

#[derive(FromArgs)]
#[argh(subcommand)]
enum Cmd {
    Certs(Certs),
    Run(Run),
}

/// Write ca.pem, cert.pem and key.pem (a leaf for 127.0.0.1 signed by the CA) into a directory.
#[derive(FromArgs)]
#[argh(subcommand, name = "certs")]
struct Certs {
    /// output directory
    #[argh(option)]
    dir: PathBuf,
}

server_options! {
    /// Receiver, subscriptions, catalog, then orders for a fixed time while counting deliveries.
    #[derive(FromArgs)]
    #[argh(subcommand, name = "run")]
    struct Run {
        /// directory written by `certs` (the receiver's certificate and key)
        #[argh(option)]
        certs: PathBuf,
        /// live subscriptions (default 10)
        #[argh(option, default = "10")]
        subs: usize,
        /// event types every subscription lists, or `all` (default
        /// order.created,inventory.adjusted)
        #[argh(option, default = "String::from(\"order.created,inventory.adjusted\")")]
        events: String,
        /// add an 11th subscription to an endpoint that accepts and never answers
        #[argh(switch)]
        dead: bool,
        /// add an 11th subscription to the live receiver, not counted: the control for
        /// `--dead` (the same fan-out work, without the hanging)
        #[argh(switch)]
        extra_live: bool,
        /// seconds of order creation (default 20)
        #[argh(option, default = "20")]
        secs: u64,
        /// seconds at the start of creation left out of the delivery rate (default 3)
        #[argh(option, default = "3")]
        warmup: u64,
        /// seconds of counting after creation stopped (default 5)
        #[argh(option, default = "5")]
        after: u64,
        /// concurrent order clients (default 64, as the orders benchmark)
        #[argh(option, default = "64")]
        concurrency: usize,
        /// products in the catalog (default 50)
        #[argh(option, default = "50")]
        skus: usize,
        /// the receiver offers HTTP/2 as well as HTTP/1.1
        #[argh(switch)]
        h2: bool,
        /// orders per second, paced (default 0: as fast as `concurrency` clients go)
        #[argh(option, default = "0")]
        rate: u64,
    }
}

/// Every event kind fulfilld emits.
const ALL_KINDS: &str = "order.created,order.updated,order.cancelled,order.shipped,package.created,package.shipped,package.delivered,inventory.adjusted,inventory.low_stock";

async fn seed(c: &Client, skus: usize) {
    for w in 0..2 {
        c.post(
            "/api/warehouses",
            json!({"id": format!("W{w}"), "name": format!("Warehouse {w}")}),
        )
        .await;
    }
    for i in 0..skus {
        c.post(
            "/api/products",
            json!({"sku": format!("P{i}"), "name": format!("Product {i}"),
            "price": 9.99, "weight": 1.5, "dimensions": {"width": 4, "height": 3, "length": 5}}),
        )
        .await;
        for w in 0..2 {
            c.post(
                "/api/inventory",
                json!({"sku": format!("P{i}"), "warehouseId": format!("W{w}"),
                "onHand": 100_000_000}),
            )
            .await;
        }
    }
}

/// Events one created order emits: `order.created` plus one `inventory.adjusted` per
/// reservation (allocation) of its lines.
fn events_of(order: &Value) -> (u64, u64) {
    let allocations = order["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|l| l["allocations"].as_array().map_or(0, Vec::len))
                .sum::<usize>()
        })
        .unwrap_or(0);
    (1, allocations as u64)
}

/// User + system CPU seconds of this process so far (Linux; `None` elsewhere), at the
/// usual 100 clock ticks per second.
fn own_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name in parentheses: utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Deliveries to the counted (first `subs`) subscriptions.
fn total(seen: &Seen) -> u64 {
    let counted = seen.per_sub.len() - 1;
    seen.per_sub[..counted]
        .iter()
        .map(|n| n.load(Relaxed))
        .sum()
}

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Args = argh::from_env();
    let a = match args.cmd {
        Cmd::Certs(c) => return write_certs(&c.dir),
        Cmd::Run(r) => r,
    };
    // One more slot for --extra-live, never counted in the rates.
    let seen = Arc::new(Seen::new(a.subs + 1));
    let port = receiver(&a.certs, a.h2, Arc::clone(&seen)).await;
    let dead_accepted = Arc::new(AtomicU64::new(0));

    let c = Client::connect(&a.base, &a.cert, &a.api_key, 64);
    seed(&c, a.skus).await;
    // Subscribed after seeding, so the catalog's own events are not delivered.
    let events = if a.events == "all" {
        ALL_KINDS
    } else {
        a.events.as_str()
    };
    let kinds: Vec<&str> = events.split(',').map(str::trim).collect();
    // The 11th (uncounted) slot of --extra-live is path /hooks/{subs}.
    for i in 0..a.subs + usize::from(a.extra_live) {
        let url = format!("https://127.0.0.1:{port}/hooks/{i}");
        c.post(
            "/api/webhooks",
            json!({"url": url, "events": kinds, "secret": secret(i), "isActive": true}),
        )
        .await;
    }
    if a.dead {
        let dead = dead_endpoint(Arc::clone(&dead_accepted)).await;
        let url = format!("https://127.0.0.1:{dead}/hooks/dead");
        c.post(
            "/api/webhooks",
            json!({"url": url, "events": kinds, "secret": secret(99), "isActive": true}),
        )
        .await;
    }
    let per_order_kinds = (
        kinds.contains(&"order.created"),
        kinds.contains(&"inventory.adjusted"),
    );

    let start = Instant::now();
    let deadline = start + Duration::from_secs(a.secs);
    let next = Arc::new(AtomicUsize::new(0));
    let offered = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..a.concurrency)
        .map(|w| {
            let (c, next, offered) = (c.clone(), Arc::clone(&next), Arc::clone(&offered));
            let (skus, rate) = (a.skus, a.rate);
            tokio::spawn(async move {
                let mut hist = Histogram::<u64>::new(3).unwrap();
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (w as u64 + 1));
                let mut errors = 0u64;
                while Instant::now() < deadline {
                    let i = next.fetch_add(1, Relaxed);
                    // Order i is due at i/rate s: an open loop while clients are free.
                    if let Some(us) = (i as u64 * 1_000_000).checked_div(rate) {
                        let due = start + Duration::from_micros(us);
                        if due >= deadline {
                            break;
                        }
                        tokio::time::sleep_until(due.into()).await;
                    }
                    let body = order_body(&format!("WH-{i}"), &mut rng, skus);
                    let t0 = Instant::now();
                    let r = c.req(M::POST, "/api/orders").json(&body).send().await;
                    match r {
                        Ok(r) if r.status().is_success() => {
                            let v: Value = r.json().await.unwrap_or(Value::Null);
                            let _ = hist.record(t0.elapsed().as_micros().max(1) as u64);
                            let (created, adjusted) = events_of(&v);
                            let n = created * per_order_kinds.0 as u64
                                + adjusted * per_order_kinds.1 as u64;
                            offered.fetch_add(n, Relaxed);
                        }
                        Ok(r) => {
                            errors += 1;
                            if errors <= 3 {
                                eprintln!(
                                    "create: {} {}",
                                    r.status(),
                                    r.text().await.unwrap_or_default()
                                );
                            }
                        }
                        Err(e) => {
                            errors += 1;
                            if errors <= 3 {
                                eprintln!("create failed: {e}");
                            }
                        }
                    }
                }
                (hist, errors)
            })
        })
        .collect();

    // Deliveries arriving per second, sampled by the clock (not by the load).
    let mut per_second = Vec::new();
    let mut last = total(&seen);
    let mut window_start = None;
    let mut window_end = None;
    let stop_at = deadline + Duration::from_secs(a.after);
    let mut tick = start;
    while tick < stop_at {
        tick += Duration::from_secs(1);
        tokio::time::sleep_until(tick.into()).await;
        let now = total(&seen);
        per_second.push(now - last);
        last = now;
        if tick == start + Duration::from_secs(a.warmup) {
            window_start = Some((now, Instant::now()));
        }
        if tick == deadline {
            window_end = Some((now, Instant::now()));
        }
    }
    let end = (total(&seen), Instant::now());
    let mut hist = Histogram::<u64>::new(3).unwrap();
    let mut errors = 0;
    for w in workers {
        let (h, e) = w.await.unwrap();
        hist.add(h).unwrap();
        errors += e;
    }
    let created = hist.len();
    let rate = |(n0, t0): (u64, Instant), (n1, t1): (u64, Instant)| {
        (n1 - n0) as f64 / (t1 - t0).as_secs_f64()
    };
    let (ws, we) = (
        window_start.expect("warmup < secs"),
        window_end.expect("deadline sampled"),
    );
    let during = rate(ws, we);
    let after = rate(we, end);
    let orders_per_s = created as f64 / a.secs as f64;
    let offered_per_s = offered.load(Relaxed) as f64 * a.subs as f64 / a.secs as f64;
    let q = |p: f64| hist.value_at_quantile(p) as f64 / 1000.0;
    let delivered = seen
        .ids
        .lock()
        .unwrap()
        .iter()
        .filter(|(sub, _)| *sub < a.subs)
        .count() as u64;
    let undelivered = (offered.load(Relaxed) * a.subs as u64).saturating_sub(delivered);
    let lag = seen.lag_ms.lock().unwrap().clone();
    let subs: Vec<u64> = seen.per_sub[..a.subs]
        .iter()
        .map(|n| n.load(Relaxed))
        .collect();
    println!(
        "run: {} live subscriptions to [{}] on HTTP/{}{}; {} order clients for {} s{}",
        a.subs,
        events,
        if a.h2 { "2 or 1.1" } else { "1.1" },
        if a.dead {
            " + 1 dead endpoint (accepts TCP, never answers)"
        } else if a.extra_live {
            " + 1 uncounted live one (control)"
        } else {
            ""
        },
        a.concurrency,
        a.secs,
        if a.rate > 0 {
            format!(", paced at {} orders/s", a.rate)
        } else {
            String::new()
        }
    );
    println!(
        "orders: {created} created = {orders_per_s:.0} orders/s; p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; errors {errors}",
        q(0.5),
        q(0.99),
        hist.max() as f64 / 1000.0
    );
    println!("deliveries offered to the live subscriptions: {offered_per_s:.0}/s (events x subscriptions)");
    println!(
        "deliveries received by the live subscriptions, s {}-{} of creation: {during:.0}/s; in the {} s after: {after:.0}/s",
        a.warmup, a.secs, a.after
    );
    println!(
        "per subscription in total: min {} max {}; per second (all live): {per_second:?}",
        subs.iter().min().unwrap_or(&0),
        subs.iter().max().unwrap_or(&0)
    );
    println!(
        "signatures checked: {} sampled, {} bad; duplicate deliveries: {}; dead endpoint connections: {}",
        seen.checked.load(Relaxed),
        seen.bad.load(Relaxed),
        seen.duplicates.load(Relaxed),
        dead_accepted.load(Relaxed)
    );
    println!(
        "lag from an event's commit to its first arrival (ms, every subscription): p50 {} p90 {} p99 {} max {} over {} deliveries; {undelivered} offered but not arrived by the end",
        lag.value_at_quantile(0.5),
        lag.value_at_quantile(0.9),
        lag.value_at_quantile(0.99),
        lag.max(),
        lag.len()
    );
    let worst: Vec<String> = seen
        .worst_by_second
        .lock()
        .unwrap()
        .values()
        .map(u64::to_string)
        .collect();
    println!(
        "worst lag per second of commit (ms), from the first event's second: {}",
        worst.join(" ")
    );
    // The receiver shares this process with the order clients: its CPU says whether the
    // receiving side could have been the bottleneck.
    if let Some(cpu) = own_cpu_seconds() {
        println!("bench process (order clients + receiver) CPU: {cpu:.1} s");
    }
    println!(
        "RESULT dead={} extra_live={} orders_per_s={orders_per_s:.0} create_p99_ms={:.2} deliveries_per_s={during:.0} after_per_s={after:.0} bad_signatures={} lag_p50_ms={} lag_p99_ms={} lag_max_ms={} undelivered={undelivered}",
        a.dead as u8,
        a.extra_live as u8,
        q(0.99),
        seen.bad.load(Relaxed),
        lag.value_at_quantile(0.5),
        lag.value_at_quantile(0.99),
        lag.max()
    );
}
