//! The benchmark machinery: the Martello-Pisinger-Vigo generator reproduces `test3dbpp.c`
//! (its lrand48 is the 48-bit recurrence), the bounds are bounds, and on sample instances and
//! carts the engine's validated results are never worse than the plain packer's.

mod common;

use common::solve;
use packing::mpv::{self, Lrand48};
use packing::{baseline, validate, Orientation};

#[test]
fn lrand48_matches_the_48_bit_recurrence() {
    for seed in [0u32, 1, 51, 205, 12_345, u32::MAX] {
        let mut x: u64 = ((seed as u64) << 16) | 0x330E;
        let mut r = Lrand48::new(seed);
        for _ in 0..1000 {
            x = (x.wrapping_mul(0x5_DEEC_E66D).wrapping_add(0xB)) & ((1 << 48) - 1);
            assert_eq!(r.draw() as u64, x >> 17);
        }
    }
}

#[test]
fn instances_follow_their_class() {
    let first = mpv::instance(1, 50, 1);
    assert_eq!(first, mpv::instance(1, 50, 1));
    assert_eq!(first.items.len(), 50);
    // Pinned so that a change of the generator shows.
    assert_eq!(first.items[..3], [[39, 85, 72], [11, 84, 96], [36, 10, 34]]);
    for (class, bin, max) in [(6u8, 10, 10), (7, 40, 35), (8, 100, 100)] {
        let inst = mpv::instance(class, 100, 2);
        assert_eq!(inst.bin, bin);
        assert!(inst.items.iter().flatten().all(|&d| (1..=max).contains(&d)));
    }
    // Classes 1-5 draw their own type with probability 1/2 + 1/10.
    let inst = mpv::instance(1, 200, 3);
    let own = inst
        .items
        .iter()
        .filter(|d| d[0] <= 50 && d[1] >= 66 && d[2] >= 66)
        .count();
    assert!((90..=150).contains(&own), "{own}");
}

#[test]
fn bounds_are_consistent_and_below_packings() {
    for class in 1..=8u8 {
        let inst = mpv::instance(class, 50, 1);
        let (l0, rot, l2) = (
            mpv::volume_bound(&inst),
            mpv::rotation_bound(&inst),
            mpv::l2_bound(&inst),
        );
        assert!(rot >= l0 && l2 >= l0, "class {class}");
        let mut free = inst.request(Orientation::Any);
        free.options.time_limit_ms = Some(5);
        let mut fixed = inst.request(Orientation::Fixed);
        fixed.options.time_limit_ms = Some(5);
        assert!(
            solve(&free).summary.total_packages as u64 >= rot,
            "class {class}"
        );
        assert!(
            solve(&fixed).summary.total_packages as u64 >= l2,
            "class {class}"
        );
    }
}

/// Nine cubes of side 34 need two bins of side 100 (two fit along each side, eight in all),
/// which the volume bound misses and the dual-feasible functions find; eight cubes of side 50
/// fill one bin exactly, and no function may claim more.
#[test]
fn dual_feasible_bound_counts_what_fits_along_each_side() {
    let cubes = |side: i64, n: usize| mpv::Instance {
        class: 8,
        n,
        index: 1,
        bin: 100,
        items: vec![[side; 3]; n],
    };
    assert_eq!(mpv::volume_bound(&cubes(34, 9)), 1);
    assert_eq!(mpv::dff_bound(&cubes(34, 9)), 2);
    assert_eq!(mpv::dff_bound(&cubes(34, 8)), 1);
    assert_eq!(mpv::dff_bound(&cubes(50, 8)), 1);
    assert_eq!(mpv::dff_bound(&cubes(51, 3)), 3);
}

#[test]
fn engine_beats_or_ties_the_plain_packer_on_sample_instances() {
    let (mut ours, mut plain) = (0, 0);
    for class in 1..=8u8 {
        let mut req = mpv::instance(class, 50, 2).request(Orientation::Any);
        req.options.time_limit_ms = Some(20);
        let a = solve(&req);
        let b = baseline::pack(&req).unwrap();
        assert!(validate(&req, &b).is_ok());
        assert_eq!(a.summary.total_items_packed, 50);
        ours += a.summary.total_packages;
        plain += b.summary.total_packages;
    }
    assert!(ours < plain, "{ours} vs {plain}");
}

#[test]
fn engine_uses_fewer_packages_than_the_plain_packer_on_carts() {
    let (mut ours, mut plain, mut util_ours, mut util_plain) = (0, 0, 0.0, 0.0);
    for seed in 0..30 {
        let req = packing::carts::cart(seed);
        let a = solve(&req);
        let b = baseline::pack(&req).unwrap();
        assert!(validate(&req, &b).is_ok());
        assert!(a.summary.total_items_packed >= b.summary.total_items_packed);
        ours += a.summary.total_packages;
        plain += b.summary.total_packages;
        util_ours += a.summary.average_utilization;
        util_plain += b.summary.average_utilization;
    }
    assert!((ours as f64) <= 0.95 * plain as f64, "{ours} vs {plain}");
    assert!(util_ours > util_plain);
}

/// The portfolio keeps the better variant by the goal, ties to the lower variant, so it never
/// does worse than `pack`, repeats itself, and matches folding the variants by hand (what a
/// server running them on two threads does).
#[test]
fn portfolio_keeps_the_better_variant_deterministically() {
    let mut req = mpv::instance(1, 50, 2).request(Orientation::Any);
    req.options.time_limit_ms = Some(10);
    let one = packing::pack(&req).unwrap();
    let two = packing::pack_portfolio(&req, 2).unwrap();
    assert!(two.summary.total_packages <= one.summary.total_packages);
    assert_eq!(two, packing::pack_portfolio(&req, 2).unwrap());
    let other = packing::pack_variant(&req, 1).unwrap();
    assert!(validate(&req, &other).is_ok());
    assert_eq!(
        packing::better_solution(&req, one.clone(), other.clone()).unwrap(),
        two
    );
    // Fewer packages win whichever side they are on.
    let (few, many) = if other.summary.total_packages < one.summary.total_packages {
        (other, one)
    } else {
        (one, other)
    };
    let n = few.summary.total_packages;
    assert_eq!(
        packing::better_solution(&req, many, few)
            .unwrap()
            .summary
            .total_packages,
        n
    );
}

/// A race of variants is won by the provably optimal packing found with the least work, in
/// whatever order or on however many threads the variants run: a variant that has spent more
/// than that stops, beaten. Here both variants reach the bound, variant 1 with more work.
#[test]
fn a_race_goes_to_the_first_optimal_packing_by_work() {
    use packing::{pack_racing, race_winner, Race};
    let req = mpv::instance(4, 50, 1).request(Orientation::Any);
    let bound = mpv::rotation_bound(&mpv::instance(4, 50, 1)) as usize;
    let one = packing::pack(&req).unwrap();
    assert_eq!(one.summary.total_packages, bound);
    let race = Race::new();
    let first = pack_racing(&req, 0, &race).unwrap();
    let second = pack_racing(&req, 1, &race).unwrap();
    assert!(!first.beaten() && second.beaten());
    assert_eq!(race_winner(&req, vec![first, second]).unwrap(), one);
    // Variant 1 first, unopposed: it finishes at the bound too, and still loses.
    let race = Race::new();
    let second = pack_racing(&req, 1, &race).unwrap();
    let first = pack_racing(&req, 0, &race).unwrap();
    assert!(!first.beaten() && !second.beaten());
    let lone = packing::pack_variant(&req, 1).unwrap();
    assert_eq!(lone.summary.total_packages, bound);
    assert_ne!(
        lone, one,
        "the variants must differ for this test to mean anything"
    );
    assert_eq!(race_winner(&req, vec![first, second]).unwrap(), one);
    // Side by side, and as the portfolio on one thread.
    let race = Race::new();
    let (a, b) = std::thread::scope(|s| {
        let b = s.spawn(|| pack_racing(&req, 1, &race).unwrap());
        (pack_racing(&req, 0, &race).unwrap(), b.join().unwrap())
    });
    assert_eq!(race_winner(&req, vec![a, b]).unwrap(), one);
    assert_eq!(packing::pack_portfolio(&req, 2).unwrap(), one);
}
