//! Every loading order of the engine's packages over the MPV and cart generators keeps the two
//! rules, checked here from the placements alone, independently of the crate's geometry.

use packing::{mpv, Orientation, PackRequest};
use views::{loading_order, PackedBox, Step};

const TOL: f64 = 1.5e-3;

fn span(s: &Step) -> [(f64, f64); 3] {
    let (p, d) = (s.position, s.dimensions);
    [
        (p.x, p.x + d.width),
        (p.y, p.y + d.height),
        (p.z, p.z + d.length),
    ]
}

fn overlap(a: (f64, f64), b: (f64, f64)) -> f64 {
    a.1.min(b.1) - a.0.max(b.0)
}

/// Checks `steps` against `bx`; returns how many "rests on" links it saw.
fn check(bx: &PackedBox, steps: &[Step], what: &str) -> usize {
    // A permutation of the units, numbered 1..=n.
    assert_eq!(steps.len(), bx.units.len(), "{what}");
    let mut seen = vec![false; steps.len()];
    for (k, s) in steps.iter().enumerate() {
        assert_eq!(s.step, k + 1, "{what}");
        let u = &bx.units[s.unit];
        assert!(!seen[s.unit], "{what}: unit {} twice", s.unit);
        seen[s.unit] = true;
        assert_eq!(
            (&s.sku, s.position, s.dimensions),
            (&u.sku, u.position, u.dimensions)
        );
    }
    let mut links = 0;
    for (j, b) in steps.iter().enumerate() {
        let sb = span(b);
        let mut touching = Vec::new();
        for (i, a) in steps.iter().enumerate() {
            if i == j {
                continue;
            }
            let sa = span(a);
            if overlap(sa[0], sb[0]) <= 1e-9 || overlap(sa[2], sb[2]) <= 1e-9 {
                continue;
            }
            // Rule 2: no earlier unit lies above a later one with a shared footprint.
            if i < j {
                assert!(
                    sa[1].0 < sb[1].1 - TOL,
                    "{what}: step {} lies above the later step {}",
                    a.step,
                    b.step
                );
            }
            // Rule 1: b comes after every unit its base touches from above.
            if (sb[1].0 - sa[1].1).abs() <= TOL {
                assert!(
                    i < j,
                    "{what}: step {} rests on the later step {}",
                    b.step,
                    a.step
                );
                touching.push(a.step);
            }
        }
        touching.sort_unstable();
        assert_eq!(b.rests_on, touching, "{what}: restsOn of step {}", b.step);
        if b.position.y > TOL {
            assert!(!b.rests_on.is_empty(), "{what}: step {} floats", b.step);
        }
        links += touching.len();
    }
    links
}

fn check_all(req: &PackRequest, what: &str) -> (usize, usize) {
    let sol = packing::pack(req).expect(what);
    let (mut units, mut links) = (0, 0);
    for (i, pkg) in sol.packages.iter().enumerate() {
        let bx = PackedBox::from_package(pkg, &req.items);
        let steps = loading_order(&bx);
        links += check(&bx, &steps, &format!("{what} package {i}"));
        units += steps.len();
    }
    (units, links)
}

#[test]
fn mpv_packings_load_bottom_up() {
    let (mut units, mut links) = (0, 0);
    for class in 1..=8u8 {
        for (n, index) in [(20, 1), (40, 2), (60, 3)] {
            let inst = mpv::instance(class, n, index);
            let orientation = if index == 2 {
                Orientation::Upright
            } else {
                Orientation::Any
            };
            let mut req = inst.request(orientation);
            req.options.time_limit_ms = Some(10);
            let (u, l) = check_all(&req, &format!("mpv class {class} n {n}"));
            units += u;
            links += l;
        }
    }
    assert_eq!(units, 8 * 120);
    // The check saw stacks, not only floors.
    assert!(links > 200, "{links} links");
}

#[test]
fn cart_packings_load_bottom_up() {
    let (mut units, mut links) = (0, 0);
    for seed in 1..=24u64 {
        let mut req = packing::carts::cart(seed);
        req.options.time_limit_ms = Some(10);
        let (u, l) = check_all(&req, &format!("cart {seed}"));
        units += u;
        links += l;
    }
    assert!(units > 300 && links > 50, "{units} units, {links} links");
}
