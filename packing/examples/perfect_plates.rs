//! Instances with a known optimum, shaped like MPV classes 1-3 (`support/plates.rs`: `k` bins
//! of side 100 cut into plates and big units, so the optimum is `k` packages). Packs them with
//! rotation and full support (variants 0 and 1 raced, as the server does) and prints each
//! result against `k`, every result validated: how far the engine's search stays from a perfect
//! packing tells how much of its MPV gap to the bound is search.
//! `cargo run -p packing --release --example perfect_plates -- [--bins 30] [--seeds 5]
//! [--time-limit MS] [--min-support S] [--fills]` (a time limit of 0, the default, packs at
//! default options; `--min-support` lets units rest on a share S of their base; `--fills`
//! prints each package's fill and how many plates in it stand or lie flat).

#[path = "support/plates.rs"]
mod plates;
mod support;

use packing::{mpv, validate, Orientation, PackSolution};
use support::pack_pair;

fn arg(args: &[String], flag: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |s| s.parse().expect("a number"))
}

/// Per package, lowest fill first: its fill, and its plates (shortest side 50 or less, the
/// others over 50) standing (shortest side horizontal) and lying flat.
fn print_fills(sol: &PackSolution) {
    let mut rows: Vec<(f64, usize, usize, usize)> = sol
        .packages
        .iter()
        .map(|p| {
            let (mut stand, mut flat) = (0, 0);
            for it in &p.items {
                let d = &it.dimensions;
                let mut s = [d.width, d.height, d.length];
                s.sort_by(f64::total_cmp);
                if s[0] <= 50.0 && s[1] > 50.0 {
                    if d.height == s[0] {
                        flat += 1;
                    } else {
                        stand += 1;
                    }
                }
            }
            (p.volume_utilization, p.items.len(), stand, flat)
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (fill, n, stand, flat) in rows {
        println!("  fill {fill:.3}: {n} units, {stand} plates standing, {flat} flat");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bins = arg(&args, "--bins", 30) as usize;
    let seeds = arg(&args, "--seeds", 5) as u32;
    let time_limit = arg(&args, "--time-limit", 0);
    let fills = args.iter().any(|a| a == "--fills");
    let min_support = args
        .iter()
        .position(|a| a == "--min-support")
        .and_then(|i| args.get(i + 1))
        .map_or(1.0, |s| s.parse::<f64>().expect("a share from 0.5 to 1"));
    let (mut got, mut opt, mut bound) = (0, 0, 0);
    for seed in 1..=seeds {
        let inst = plates::instance(bins, seed);
        let volume: i64 = inst.items.iter().map(|d| d[0] * d[1] * d[2]).sum();
        assert_eq!(volume, bins as i64 * 1_000_000, "the cut fills every bin");
        let mut req = inst.request(Orientation::Any);
        req.options.time_limit_ms = (time_limit > 0).then_some(time_limit);
        req.options.min_support = min_support;
        let sol = pack_pair(&req);
        if let Err(e) = validate(&req, &sol) {
            panic!("seed {seed}: invalid: {:?}", &e[..e.len().min(3)]);
        }
        if fills {
            print_fills(&sol);
        }
        let n = sol.summary.total_packages;
        let lb = mpv::rotation_bound(&inst);
        println!(
            "seed {seed}: {} units, {n} packages, optimum {bins}, bound {lb}",
            inst.n
        );
        (got, opt, bound) = (got + n, opt + bins, bound + lb as usize);
    }
    println!(
        "total: {got} packages, optimum {opt} (+{:.1}%), rotation bound {bound}",
        100.0 * (got as f64 / opt as f64 - 1.0)
    );
}
