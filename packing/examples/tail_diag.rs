//! Per-instance diagnosis of MPV gaps: the bound's parts, and the pair's packing box by box
//! (fill, units, units over half the bin on every side, the first dozen units' sides).
//! `cargo run -p packing --release --example tail_diag -- [--time-limit MS | --bounds-only]
//! [--absorb K [--absorb-ms MS]] 5:100:1 7:50:3 ...` (class:n:index; the pair of variants 0
//! and 1, as the server races them). `--absorb K` asks whether the weakest package's units
//! could join one other package, or two or three of the K next weakest, packed afresh (MS per
//! set, default 20): a local move that no such subproblem admits cannot remove the weakest
//! package.

mod support;

use packing::{mpv, pack_variant, validate, Orientation, PackSolution};
use support::pack_pair;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut limit = 0u64;
    let mut absorb = 0usize;
    let mut absorb_ms = 20u64;
    let mut it = args.iter();
    let mut ids = Vec::new();
    while let Some(a) = it.next() {
        if a == "--time-limit" {
            limit = it.next().expect("ms").parse().expect("ms");
        } else if a == "--absorb-ms" {
            absorb_ms = it.next().expect("ms").parse().expect("ms");
        } else if a == "--absorb" {
            absorb = it.next().expect("K").parse().expect("K");
        } else if a == "--bounds-only" {
            limit = u64::MAX;
        } else {
            let p: Vec<u64> = a.split(':').map(|x| x.parse().expect("c:n:v")).collect();
            ids.push((p[0] as u8, p[1] as usize, p[2] as u32));
        }
    }
    for (c, n, v) in ids {
        let inst = mpv::instance(c, n, v);
        let b = inst.bin;
        let vol: i64 = inst.items.iter().map(|d| d[0] * d[1] * d[2]).sum();
        let big = inst
            .items
            .iter()
            .filter(|d| 2 * d.iter().min().unwrap() > b)
            .count();
        println!(
            "class {c} n {n} v {v}: volume {:.3} bins, L0 {}, dff {} (ccm {}), stack {}, fixed-orientation L2 {}, bound {}, big {big}, fill needed {:.3}",
            vol as f64 / (b * b * b) as f64,
            mpv::volume_bound(&inst),
            mpv::dff_bound(&inst),
            mpv::ccm_bound(&inst),
            mpv::stack_bound(&inst),
            mpv::l2_bound(&inst),
            mpv::rotation_bound(&inst),
            vol as f64 / (b * b * b) as f64 / mpv::rotation_bound(&inst) as f64
        );
        if limit == u64::MAX {
            continue;
        }
        let mut req = inst.request(Orientation::Any);
        req.options.time_limit_ms = (limit > 0).then_some(limit);
        let sol = pack_pair(&req);
        assert!(validate(&req, &sol).is_ok());
        let mut rows: Vec<(f64, usize, usize, String)> = sol
            .packages
            .iter()
            .map(|p| {
                let bigs = p
                    .items
                    .iter()
                    .filter(|u| {
                        let d = &u.dimensions;
                        2.0 * d.width.min(d.height).min(d.length) > b as f64
                    })
                    .count();
                let mut dims: Vec<String> = p
                    .items
                    .iter()
                    .map(|u| {
                        let d = &u.dimensions;
                        format!("{}x{}x{}", d.width, d.height, d.length)
                    })
                    .collect();
                dims.truncate(12);
                (p.volume_utilization, p.items.len(), bigs, dims.join(" "))
            })
            .collect();
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        println!("  {} packages:", sol.packages.len());
        for r in &rows {
            println!("   fill {:.3} units {:3} big {}  {}", r.0, r.1, r.2, r.3);
        }
        if absorb > 0 {
            absorb_weakest(&inst, &sol, absorb, absorb_ms);
        }
    }
}

/// Whether the units of the weakest package of `sol` fit, packed afresh, into one package
/// with the units of one other package, or into two (three) with those of two (three) of the
/// `k` next weakest; prints how many such sets (within the boxes' volume) do.
fn absorb_weakest(inst: &mpv::Instance, sol: &PackSolution, k: usize, ms: u64) {
    let cap = inst.bin.pow(3);
    let mut boxes: Vec<(f64, Vec<usize>)> = sol
        .packages
        .iter()
        .map(|p| {
            let ids = p
                .items
                .iter()
                .map(|u| u.item_id[1..].parse().expect("i<n>"));
            (p.volume_utilization, ids.collect())
        })
        .collect();
    boxes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(((_, weakest), rest)) = boxes.split_first() else {
        return;
    };
    let fits = |sets: &[&Vec<usize>], packages: usize| -> Option<bool> {
        let mut sub = inst.clone();
        sub.items = sets
            .iter()
            .flat_map(|s| s.iter())
            .chain(weakest)
            .map(|&i| inst.items[i])
            .collect();
        sub.n = sub.items.len();
        let vol: i64 = sub.items.iter().map(|d| d[0] * d[1] * d[2]).sum();
        if vol > packages as i64 * cap {
            return None;
        }
        let mut req = sub.request(Orientation::Any);
        req.options.time_limit_ms = Some(ms);
        let got = pack_variant(&req, 0).expect("pack");
        assert!(validate(&req, &got).is_ok());
        Some(got.summary.total_packages == packages)
    };
    let singles: Vec<bool> = rest.iter().filter_map(|(_, b)| fits(&[b], 1)).collect();
    let near = &rest[..rest.len().min(k)];
    let mut pairs = Vec::new();
    for (i, (_, a)) in near.iter().enumerate() {
        for (_, b) in &near[i + 1..] {
            pairs.extend(fits(&[a, b], 2));
        }
    }
    let mut triples = Vec::new();
    for (i, (_, a)) in near.iter().enumerate() {
        for (j, (_, b)) in near.iter().enumerate().skip(i + 1) {
            for (_, c) in &near[j + 1..] {
                triples.extend(fits(&[a, b, c], 3));
            }
        }
    }
    let yes = |v: &[bool]| v.iter().filter(|&&t| t).count();
    println!(
        "  weakest package's units ({}): join {} of {} packages alone, {} of {} pairs and {} of {} triples of the {} next weakest",
        weakest.len(),
        yes(&singles),
        singles.len(),
        yes(&pairs),
        pairs.len(),
        yes(&triples),
        triples.len(),
        near.len()
    );
}
