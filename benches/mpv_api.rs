//! MPV through the API (issue 20's latency target, run by benches/mpv_api.sh): the MPV
//! instances (classes 1-8, n = 50, 100, 200, instances 1-5; rotation allowed, full support,
//! default options) posted one at a time to the packing listener's `POST /api/v1/optimize`,
//! as a client would send them. Reports the packages per class (the in-process
//! `mpv_subset -- --time-limit 0 --pair` packs the same) and, per instance, the server's
//! `summary.solve_ms` and the client's wall time: median, p95 and max. Talks only to `--base`.

#[path = "common/mod.rs"]
mod common;

use std::time::Instant;

use argh::FromArgs;
use reqwest::Method as M;
use serde_json::{json, Map, Value};

use common::{server_options, Client};

server_options! {
    /// MPV instances through the packing API of fulfilld.
    #[derive(FromArgs)]
    struct Args {
        /// classes to pack, comma-separated (default all eight)
        #[argh(option, default = "String::from(\"1,2,3,4,5,6,7,8\")")]
        classes: String,
        /// sizes to pack, comma-separated (default 50,100,200)
        #[argh(option, default = "String::from(\"50,100,200\")")]
        sizes: String,
    }
}

fn list(s: &str) -> Vec<u64> {
    s.split(',')
        .map(|p| p.trim().parse().expect("a comma-separated list of numbers"))
        .collect()
}

/// The request body of one instance, as `packing::mpv::Instance::request` builds it in-process:
/// one warehouse with bins in unlimited supply, every unit its own item of weight zero.
fn body(inst: &packing::mpv::Instance) -> Value {
    let b = inst.bin;
    let mut inventory = Map::new();
    let items: Vec<Value> = inst
        .items
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let id = format!("i{i}");
            inventory.insert(id.clone(), json!(1));
            json!({"item_id": id, "width": d[0], "height": d[1], "length": d[2],
                   "weight": 0, "quantity": 1})
        })
        .collect();
    json!({
        "items": items,
        "warehouses": [{"warehouse_id": "mpv",
            "boxes": [{"box_id": "bin", "width": b, "height": b, "length": b, "max_weight": 1}],
            "inventory": inventory}],
    })
}

/// Median, p95 and max of `v`, as the in-process reports round them.
fn spread(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    format!(
        "median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.95),
        at(1.0)
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Args = argh::from_env();
    let c = Client::connect(&args.base, &args.cert, &args.api_key, 1);
    let (mut solve, mut wall) = (Vec::new(), Vec::new());
    let mut total = 0u64;
    for class in list(&args.classes) {
        let mut in_class = 0u64;
        for &n in &list(&args.sizes) {
            for v in 1..=5u32 {
                let inst = packing::mpv::instance(class as u8, n as usize, v);
                let req = body(&inst);
                let t = Instant::now();
                let r = c
                    .req(M::POST, "/api/v1/optimize")
                    .json(&req)
                    .send()
                    .await
                    .expect("optimize");
                let status = r.status();
                let out: Value = r.json().await.expect("optimize body");
                wall.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(
                    status.is_success(),
                    "class {class} n {n} v {v}: {status} {out}"
                );
                let unfitted = out["unfitted_items"].as_array().map_or(0, Vec::len);
                assert_eq!(unfitted, 0, "class {class} n {n} v {v}: units left out");
                in_class += out["summary"]["total_packages"].as_u64().expect("packages");
                solve.push(out["summary"]["solve_ms"].as_f64().expect("solve_ms"));
            }
        }
        println!("class {class} total: {in_class}");
        total += in_class;
    }
    println!(
        "server time per instance (summary.solve_ms): {}",
        spread(&mut solve)
    );
    println!(
        "client time per instance (request to parsed answer): {}",
        spread(&mut wall)
    );
    println!("all: {total} packages in {} instances", solve.len());
}
