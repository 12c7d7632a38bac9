//! The package counts issue 20 asks of the engine at default options, on the benchmarks'
//! own workloads: the 500 seeded carts at least 15% fewer packages than the plain packer, the
//! 100 large pallet orders at least 6% fewer. Counts do not depend on the machine (the budget is
//! counted work), so these hold exactly what `carts_report` and `large_orders` report; their
//! times are the examples' business, not a test's. Every result is validated.

use packing::{baseline, carts, pack, pallets, validate, PackRequest};

/// Engine and plain packages over `seeds`, packed on two threads (each request alone, as the
/// examples pack them).
fn packages(seeds: std::ops::Range<u64>, order: fn(u64) -> PackRequest) -> (usize, usize) {
    let seeds: Vec<u64> = seeds.collect();
    let half = seeds.len() / 2;
    let count = |part: &[u64]| {
        let (mut ours, mut plain) = (0, 0);
        for &seed in part {
            let req = order(seed);
            let sol = pack(&req).expect("pack");
            let ffd = baseline::pack(&req).expect("baseline");
            for (what, s) in [("engine", &sol), ("plain", &ffd)] {
                if let Err(v) = validate(&req, s) {
                    panic!("seed {seed}: {what}: invalid: {:?}", &v[..v.len().min(3)]);
                }
            }
            assert!(
                sol.summary.total_items_packed >= ffd.summary.total_items_packed,
                "seed {seed}: the engine left out units the plain packer shipped"
            );
            ours += sol.summary.total_packages;
            plain += ffd.summary.total_packages;
        }
        (ours, plain)
    };
    let (a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| count(&seeds[half..]));
        (count(&seeds[..half]), other.join().expect("second half"))
    });
    (a.0 + b.0, a.1 + b.1)
}

#[test]
fn carts_take_at_least_15_percent_fewer_packages_than_the_plain_packer() {
    let (ours, plain) = packages(0..500, carts::cart);
    assert!(100 * ours <= 85 * plain, "{ours} against {plain}");
}

#[test]
fn large_orders_take_at_least_6_percent_fewer_pallets_than_the_plain_packer() {
    let (ours, plain) = packages(0..100, pallets::large);
    assert!(100 * ours <= 94 * plain, "{ours} against {plain}");
}
