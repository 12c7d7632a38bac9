//! Instances with a known optimum, shaped like MPV classes 1-3: `k` bins of side 100 are each
//! cut into plates (shortest side 1-50, the others 67-100) and, in one bin of ten, a big unit,
//! so that the units fill the bins exactly with every base fully supported; the optimum is `k`
//! packages. Packs them with rotation and full support (variants 0 and 1 raced, as the server
//! does) and prints each result against `k`, every result validated: how far the engine's
//! search stays from a perfect packing tells how much of its MPV gap to the bound is search.
//! `cargo run -p packing --release --example perfect_plates -- [--bins 30] [--seeds 5]
//! [--time-limit MS] [--min-support S] [--fills]` (a time limit of 0, the default, packs at default
//! options; `--min-support` lets units rest on a share S of their base; `--fills` prints each
//! package's fill and how many plates in it stand or lie flat).

mod support;

use packing::mpv::Lrand48;
use packing::{mpv, validate, Orientation, PackSolution};
use support::pack_pair;

fn arg(args: &[String], flag: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |s| s.parse().expect("a number"))
}

/// Strips of thickness 1-50 that add up to `total`.
fn strips(r: &mut Lrand48, total: i64) -> Vec<i64> {
    let mut left = total;
    let mut out = Vec::new();
    while left > 50 {
        let t = r.rint(1, 50);
        out.push(t);
        left -= t;
    }
    if left > 0 {
        out.push(left);
    }
    out
}

/// One bin cut into plates: standing plates of height `h` side by side across `[0, l]`, one
/// standing plate in the strip `[l, 100]`, and the layer above `h` a flat plate (cut once more
/// in half the bins, leaving a small slab). Every piece above the floor rests on tops at `h`.
fn plate_bin(r: &mut Lrand48, out: &mut Vec<[i64; 3]>) {
    let (h, l) = (r.rint(67, 100), r.rint(67, 100));
    for t in strips(r, 100) {
        out.push([t, l, h]);
    }
    if l < 100 {
        out.push([100 - l, 100, h]);
    }
    if h < 100 {
        let cut = r.rint(67, 100);
        if r.rint(0, 1) == 0 || cut == 100 {
            out.push([100, 100, 100 - h]);
        } else {
            out.push([cut, 100, 100 - h]);
            out.push([100 - cut, 100, 100 - h]);
        }
    }
}

/// One bin around a big unit `w x d x h` (67-95) in a corner: a flat plate on its top, a
/// standing plate beside it along each of the two other sides.
fn big_bin(r: &mut Lrand48, out: &mut Vec<[i64; 3]>) {
    let (w, d, h) = (r.rint(67, 95), r.rint(67, 95), r.rint(67, 95));
    out.push([w, d, h]);
    out.push([w, d, 100 - h]);
    out.push([100 - w, 100, 100]);
    out.push([w, 100 - d, 100]);
}

fn instance(bins: usize, seed: u32) -> mpv::Instance {
    let mut r = Lrand48::new(seed);
    let mut items = Vec::new();
    for b in 0..bins {
        if b % 10 == 9 {
            big_bin(&mut r, &mut items);
        } else {
            plate_bin(&mut r, &mut items);
        }
    }
    // Shuffle and turn every unit, so that nothing of the cut is left in the order.
    for i in (1..items.len()).rev() {
        let j = r.rint(0, i as i64) as usize;
        items.swap(i, j);
        let k = r.rint(0, 2) as usize;
        items[i].swap(0, k);
    }
    mpv::Instance {
        class: 0,
        n: items.len(),
        index: seed,
        bin: 100,
        items,
    }
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
        let inst = instance(bins, seed);
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
