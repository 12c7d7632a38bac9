//! Whether the search gains from working on parts of an order: packs an instance (variant 0,
//! default options), then for R rounds cuts its packages at random into groups of G and packs
//! each group's units afresh as an order of its own (budget T, the variant by round); a group's
//! new packing replaces the old one when it has fewer packages, or as many with the load more
//! concentrated (sum of squared fills). Prints each instance's counts by round against the
//! optimum (`--plates K`, see `support/plates.rs`) or the MPV bound, every packing validated.
//! `cargo run -p packing --release --example regroup -- (--plates K [--seeds S] | C:N:V ...)
//! [--group G] [--sub-ms T] [--rounds R]`

#[path = "support/plates.rs"]
mod plates;

use packing::mpv::{self, Lrand48};
use packing::{pack_variant, validate, Orientation};
use std::time::Instant;

/// One package: its fill and the indices of its units in the instance.
type Package = (f64, Vec<usize>);

fn flag(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |s| s.parse().expect("a number"))
}

/// Packs the units `ids` of `inst` as an order of their own.
fn pack(inst: &mpv::Instance, ids: &[usize], ms: u64, variant: u32) -> Vec<Package> {
    let mut sub = inst.clone();
    sub.items = ids.iter().map(|&i| inst.items[i]).collect();
    sub.n = sub.items.len();
    let mut req = sub.request(Orientation::Any);
    req.options.time_limit_ms = (ms > 0).then_some(ms);
    let sol = pack_variant(&req, variant).expect("pack");
    assert!(validate(&req, &sol).is_ok(), "invalid packing");
    sol.packages
        .iter()
        .map(|p| {
            let mine = p.items.iter().map(|u| {
                let i: usize = u.item_id[1..].parse().expect("item ids are i<n>");
                ids[i]
            });
            (p.volume_utilization, mine.collect())
        })
        .collect()
}

/// Whether `new` replaces `old`: fewer packages, or as many more concentrated.
fn replaces(new: &[Package], old: &[Package]) -> bool {
    let sq = |v: &[Package]| v.iter().map(|p| p.0 * p.0).sum::<f64>();
    new.len() < old.len() || (new.len() == old.len() && sq(new) > sq(old) + 1e-9)
}

/// The packing of `inst` after `rounds` rounds of regrouping, with the count after each.
fn regroup(inst: &mpv::Instance, group: usize, sub_ms: u64, rounds: u32) -> Vec<usize> {
    let all: Vec<usize> = (0..inst.n).collect();
    let mut packages = pack(inst, &all, 0, 0);
    let mut counts = vec![packages.len()];
    let mut rng = Lrand48::new(7);
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..packages.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.rint(0, i as i64) as usize);
        }
        let mut next = Vec::new();
        for chunk in order.chunks(group) {
            let old: Vec<Package> = chunk.iter().map(|&i| packages[i].clone()).collect();
            let ids: Vec<usize> = old.iter().flat_map(|p| p.1.iter().copied()).collect();
            let new = pack(inst, &ids, sub_ms, round % 2);
            next.extend(if replaces(&new, &old) { new } else { old });
        }
        packages = next;
        counts.push(packages.len());
    }
    counts
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let k = flag(&args, "--plates", 0) as usize;
    let group = flag(&args, "--group", 15) as usize;
    let sub_ms = flag(&args, "--sub-ms", 1000);
    let rounds = flag(&args, "--rounds", 3) as u32;
    let mut instances: Vec<(String, mpv::Instance, usize)> = Vec::new();
    if k > 0 {
        for seed in 1..=flag(&args, "--seeds", 5) as u32 {
            let inst = plates::instance(k, seed);
            instances.push((format!("plates {k} seed {seed}"), inst, k));
        }
    }
    for id in args.iter().filter(|a| a.contains(':')) {
        let p: Vec<u64> = id.split(':').map(|x| x.parse().expect("C:N:V")).collect();
        let inst = mpv::instance(p[0] as u8, p[1] as usize, p[2] as u32);
        let bound = mpv::rotation_bound(&inst) as usize;
        instances.push((format!("class {} n {} v {}", p[0], p[1], p[2]), inst, bound));
    }
    let (mut first, mut last, mut reference) = (0, 0, 0);
    for (name, inst, refer) in instances {
        let clock = Instant::now();
        let counts = regroup(&inst, group.max(2), sub_ms, rounds);
        let secs = clock.elapsed().as_secs_f64();
        println!("{name}: {counts:?} against {refer} ({secs:.1} s)");
        first += counts[0];
        last += counts[counts.len() - 1];
        reference += refer;
    }
    println!("total: {first} -> {last} packages against {reference} (optimum or bound)");
}
