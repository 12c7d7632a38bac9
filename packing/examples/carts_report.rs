//! The carts benchmark alone: the 500 seeded carts of `packing::carts` packed by the engine at
//! default options (best of `--variants K` portfolio variants, default 1) and by the plain FFD,
//! every result validated; prints packages, the saving and the time per cart (wall and CPU).
//! `cargo run -p packing --release --example carts_report [-- --variants 2] [--verbose]
//! [--only 3,17,441] [--time-limit MS] [--slowest N]` (`--time-limit` names the carts'
//! `time_limit_ms`; `--slowest` lists the N slowest carts with their units and warehouses).

use packing::{baseline, carts, pack_portfolio, split_bound, validate};
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

fn at(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variants = args
        .iter()
        .position(|a| a == "--variants")
        .and_then(|i| args.get(i + 1))
        .map_or(1, |v| v.parse::<u32>().expect("a number of variants"));
    let (mut ours, mut plain, mut units, mut bound, mut at_bound) = (0, 0, 0, 0, 0);
    let verbose = args.iter().any(|a| a == "--verbose");
    // `--only 3,17,441`: just these seeds (for iterating on the carts above the bound).
    let only: Option<Vec<u64>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').map(|s| s.parse().expect("a seed")).collect());
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.parse::<u64>().expect("a number"))
    };
    let (time_limit, slowest) = (flag("--time-limit"), flag("--slowest").unwrap_or(0));
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    // The split bound's own CPU (the engine computes it for most carts of several warehouses).
    let mut bound_cpu: Vec<f64> = Vec::new();
    // (wall ms, seed, units, warehouses) per cart, for `--slowest`.
    let mut slow: Vec<(f64, u64, i64, usize)> = Vec::new();
    let seeds = only.unwrap_or_else(|| (0..500).collect());
    for &seed in &seeds {
        let mut req = carts::cart(seed);
        req.options.time_limit_ms = time_limit;
        let (t, c0) = (Instant::now(), cpu_ms());
        let sol = pack_portfolio(&req, variants).expect("pack");
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        let count = req.items.iter().map(|i| i.quantity).sum();
        slow.push((wall[wall.len() - 1], seed, count, req.warehouses.len()));
        if let Some(c) = c0.zip(cpu_ms()).map(|(a, b)| b - a) {
            cpu.push(c);
        }
        validate(&req, &sol).expect("valid engine packing");
        let ffd = baseline::pack(&req).expect("baseline");
        validate(&req, &ffd).expect("valid FFD packing");
        let b0 = cpu_ms();
        let lb = split_bound::lower_bound(&req).expect("bound");
        if let Some(c) = b0.zip(cpu_ms()).map(|(a, b)| b - a) {
            bound_cpu.push(c);
        }
        if verbose {
            println!(
                "seed {seed}: engine {} FFD {} bound {lb} units {}",
                sol.summary.total_packages,
                ffd.summary.total_packages,
                sol.summary.total_items_packed
            );
        }
        bound += lb;
        at_bound += usize::from(sol.summary.total_packages <= lb);
        ours += sol.summary.total_packages;
        units += sol.summary.total_items_packed;
        plain += ffd.summary.total_packages;
    }
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, seed, units, warehouses) in slow.iter().take(slowest as usize) {
        println!("slow: seed {seed}, {ms:.1} ms, {units} units, {warehouses} warehouses");
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    bound_cpu.sort_by(f64::total_cmp);
    let saving = 100.0 * (plain - ours) as f64 / plain as f64;
    println!("carts: engine {ours} packages ({units} units), FFD {plain}: {saving:.1}% fewer");
    let room = 100.0 * (plain - bound) as f64 / plain as f64;
    println!("lower bound {bound} packages ({room:.1}% under FFD at most); {at_bound} carts at it");
    println!(
        "wall per cart: median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        at(&wall, 0.5),
        at(&wall, 0.9),
        at(&wall, 1.0)
    );
    if !cpu.is_empty() {
        println!(
            "CPU per cart: median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
            at(&cpu, 0.5),
            at(&cpu, 0.9),
            at(&cpu, 1.0)
        );
        println!(
            "CPU of the split bound alone per cart: median {:.2} ms, max {:.2} ms",
            at(&bound_cpu, 0.5),
            at(&bound_cpu, 1.0)
        );
    }
}
