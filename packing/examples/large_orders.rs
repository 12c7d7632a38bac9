//! Large-order benchmark: `packing::pallets::large` orders (500-2,000 cartons of 10-30 SKUs,
//! three pallet sizes) at default options against the plain packer, every result validated.
//! `cargo run -p packing --release --example large_orders [-- --seeds 100]`. Times are per
//! request in this process: wall clock, and the thread's CPU time where Linux reports it
//! (a loaded machine inflates the first, hardly the second).

use packing::{baseline, pack, pallets, split_bound, validate};
use std::time::Instant;

/// CPU time of this thread in ms (`CLOCK_THREAD_CPUTIME_ID`, exact to the microsecond, unlike
/// the scheduler statistics, which move only at ticks and context switches).
fn cpu_ms() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6)
}

fn at(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args
        .iter()
        .position(|a| a == "--seeds")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let (mut ours, mut plain, mut units, mut asked, mut bound) = (0, 0, 0, 0, 0);
    let verbose = args.iter().any(|a| a == "--verbose");
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for seed in 0..seeds {
        let req = pallets::large(seed);
        let (t, c) = (Instant::now(), cpu_ms());
        let sol = pack(&req).expect("pack");
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(a), Some(b)) = (c, cpu_ms()) {
            cpu.push(b - a);
        }
        let ffd = baseline::pack(&req).expect("baseline");
        asked += req
            .items
            .iter()
            .map(|it| it.quantity as usize)
            .sum::<usize>();
        assert_eq!(
            ffd.summary.total_items_packed, sol.summary.total_items_packed,
            "seed {seed}: both packers must ship every carton"
        );
        for (what, s) in [("engine", &sol), ("baseline", &ffd)] {
            if let Err(v) = validate(&req, s) {
                panic!("seed {seed}: {what}: invalid: {:?}", &v[..v.len().min(3)]);
            }
        }
        let lb = split_bound::lower_bound(&req).expect("bound");
        if verbose {
            println!(
                "seed {seed}: engine {} FFD {} bound {lb} cartons {} ms {:.0}",
                sol.summary.total_packages,
                ffd.summary.total_packages,
                sol.summary.total_items_packed,
                wall.last().copied().unwrap_or(0.0)
            );
        }
        bound += lb;
        ours += sol.summary.total_packages;
        plain += ffd.summary.total_packages;
        units += sol.summary.total_items_packed;
    }
    println!("## Large orders ({seeds} seeded orders: 500-2,000 cartons of 10-30 SKUs, three pallet sizes), default options");
    println!("{asked} cartons ordered.");
    println!("| packer | pallets | cartons packed |");
    println!("|---|---|---|");
    println!("| engine | {ours} | {units} |");
    println!("| FFD | {plain} | |");
    println!("| lower bound | {bound} | |");
    println!(
        "Engine: {:.1}% fewer pallets.",
        100.0 * (1.0 - ours as f64 / plain as f64)
    );
    println!(
        "Wall clock per order: median {:.0} ms, p95 {:.0} ms, max {:.0} ms.",
        at(&mut wall, 0.5),
        at(&mut wall, 0.95),
        at(&mut wall, 1.0)
    );
    if !cpu.is_empty() {
        println!(
            "CPU time per order: median {:.0} ms, p95 {:.0} ms, max {:.0} ms.",
            at(&mut cpu, 0.5),
            at(&mut cpu, 0.95),
            at(&mut cpu, 1.0)
        );
    }
}
