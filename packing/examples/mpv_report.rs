//! Benchmark report: MPV classes 1-8 (rotation allowed and fixed), e-commerce carts against the
//! plain packer, and latency, every result validated. Run in release:
//! `cargo run -p packing --release --example mpv_report [-- --time-limit MS]`.

use packing::{baseline, carts, mpv, pack, validate, Orientation, PackRequest, PackSolution};
use std::time::Instant;

const SIZES: [usize; 3] = [50, 100, 200];

fn checked(req: &PackRequest, sol: PackSolution, what: &str) -> PackSolution {
    if let Err(v) = validate(req, &sol) {
        panic!("{what}: invalid result: {:?}", &v[..v.len().min(3)]);
    }
    sol
}

fn ours(req: &PackRequest) -> PackSolution {
    checked(req, pack(req).expect("pack"), "engine")
}

fn plain(req: &PackRequest) -> PackSolution {
    checked(req, baseline::pack(req).expect("baseline"), "baseline")
}

struct Row {
    ours: usize,
    plain: usize,
    bound: u64,
}

/// Packs instances 1-5 of every class and size; `None` time limit means default options.
fn mpv_table(orientation: Orientation, time_limit: Option<u64>) -> (Vec<[Row; 3]>, f64) {
    let start = Instant::now();
    let mut table = Vec::new();
    for class in 1..=8u8 {
        let row = SIZES.map(|n| {
            let mut r = Row {
                ours: 0,
                plain: 0,
                bound: 0,
            };
            for v in 1..=5 {
                let inst = mpv::instance(class, n, v);
                let mut req = inst.request(orientation);
                req.options.time_limit_ms = time_limit;
                r.ours += ours(&req).summary.total_packages;
                r.plain += plain(&req).summary.total_packages;
                r.bound += match orientation {
                    Orientation::Any => mpv::rotation_bound(&inst),
                    _ => mpv::l2_bound(&inst),
                };
            }
            r
        });
        table.push(row);
    }
    (table, start.elapsed().as_secs_f64())
}

fn print_table(title: &str, bound: &str, table: &[[Row; 3]]) {
    println!("\n{title}");
    println!("| class | n=50 ours/FFD/{bound} | n=100 ours/FFD/{bound} | n=200 ours/FFD/{bound} | class total ours/FFD/{bound} |");
    println!("|---|---|---|---|---|");
    let (mut o, mut p, mut b) = (0, 0, 0);
    for (c, row) in table.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .map(|r| format!("{}/{}/{}", r.ours, r.plain, r.bound))
            .collect();
        let (co, cp, cb) = row.iter().fold((0, 0, 0), |(a, b, c), r| {
            (a + r.ours, b + r.plain, c + r.bound)
        });
        println!("| {} | {} | {co}/{cp}/{cb} |", c + 1, cells.join(" | "));
        (o, p, b) = (o + co, p + cp, b + cb);
    }
    println!("| all | | | | **{o}/{p}/{b}** |");
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn timed(req: &PackRequest) -> (PackSolution, f64) {
    let t = Instant::now();
    let sol = pack(req).expect("pack");
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (checked(req, sol, "engine"), ms)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let time_limit = args
        .iter()
        .position(|a| a == "--time-limit")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(5000u64);
    println!("# packing benchmark report");
    println!("Every result below passed `packing::validate`. FFD = `packing::baseline` (plain extreme-point first-fit decreasing).");

    let (rot, secs) = mpv_table(Orientation::Any, Some(time_limit));
    print_table(
        &format!("## MPV classes 1-8, instances 1-5, rotation allowed, support required (time_limit_ms = {time_limit}, {secs:.1} s)"),
        "LB",
        &rot,
    );
    println!("LB: rotation-valid bound `mpv::rotation_bound`: max(L0, big items + volume bound of the items that cannot share a bin with any big item), big = shortest side over half the bin. Published for this set: FFD 3,311, bound 3,108.");
    let (dflt, secs) = mpv_table(Orientation::Any, None);
    let total: usize = dflt.iter().flatten().map(|r| r.ours).sum();
    println!("Same instances at default options: {total} packages ({secs:.1} s for 120 instances, both packers).");

    let (fixed, secs) = mpv_table(Orientation::Fixed, Some(time_limit));
    print_table(
        &format!("## MPV classes 1-8, fixed orientation, support required (time_limit_ms = {time_limit}, {secs:.1} s)"),
        "L2",
        &fixed,
    );

    println!("\n## E-commerce carts (500 seeded carts: 1-15 SKUs, 5-60 units, 2-3 warehouses with partial stock, six box sizes in limited quantity), default options");
    let (mut po, mut pp, mut uo, mut up, mut ko, mut kp, mut co, mut cp) =
        (0, 0, 0.0, 0.0, 0, 0, 0.0, 0.0);
    let mut lat = Vec::new();
    for seed in 0..500 {
        let req = carts::cart(seed);
        let (a, ms) = timed(&req);
        let b = plain(&req);
        lat.push(ms);
        po += a.summary.total_packages;
        pp += b.summary.total_packages;
        ko += a.summary.total_items_packed;
        kp += b.summary.total_items_packed;
        uo += a.packages.iter().map(|p| p.volume_utilization).sum::<f64>();
        up += b.packages.iter().map(|p| p.volume_utilization).sum::<f64>();
        co += a.summary.total_cost;
        cp += b.summary.total_cost;
    }
    println!("| packer | packages | units packed | mean volume utilization | box cost |");
    println!("|---|---|---|---|---|");
    println!("| engine | {po} | {ko} | {:.3} | {co:.2} |", uo / po as f64);
    println!("| FFD | {pp} | {kp} | {:.3} | {cp:.2} |", up / pp as f64);
    println!(
        "Engine: {:.1}% fewer packages.",
        100.0 * (1.0 - po as f64 / pp as f64)
    );

    println!(
        "\n## Latency at default options (release build, one thread, wall clock in this process)"
    );
    let median = percentile(&mut lat, 0.5);
    let p90 = percentile(&mut lat, 0.9);
    println!(
        "- carts of 5-60 units: median {median:.2} ms, p90 {p90:.2} ms, max {:.2} ms",
        percentile(&mut lat, 1.0)
    );
    let mut big = Vec::new();
    for seed in 0..60u64 {
        let units = 100 + (seed as usize * 37) % 101;
        let req = carts::order(1000 + seed, 5 + (seed as usize % 36), units);
        big.push(timed(&req).1);
    }
    println!(
        "- orders of 100-200 units (5-40 SKUs): median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        percentile(&mut big, 0.5),
        percentile(&mut big, 0.9),
        percentile(&mut big, 1.0)
    );
    let mut huge = Vec::new();
    for seed in 0..5u64 {
        let req = carts::order(2000 + seed, 100, 2000);
        huge.push(timed(&req).1);
    }
    println!(
        "- orders of 2,000 units (100 SKUs): max {:.0} ms over 5 orders",
        percentile(&mut huge, 1.0)
    );
}
