//! Seeded e-commerce workloads for benchmarks and tests: carts of 1-15 SKUs and 5-60 units
//! (or any unit count), 2-3 warehouses with partial stock, six box sizes in limited quantity.
//! The same seed always gives the same request.

use crate::model::{BoxType, Hazmat, Item, Orientation, PackRequest, Warehouse};
use crate::rng::SplitMix64;

/// Box sizes (inches), weight limit (lb), tare (lb) and cost, smallest first.
const BOXES: [(&str, [f64; 3], f64, f64, f64); 6] = [
    ("S", [8.0, 6.0, 4.0], 20.0, 0.3, 0.60),
    ("M", [10.0, 8.0, 6.0], 30.0, 0.5, 0.85),
    ("L", [12.0, 10.0, 8.0], 40.0, 0.8, 1.10),
    ("XL", [14.0, 12.0, 10.0], 50.0, 1.0, 1.45),
    ("XXL", [18.0, 14.0, 12.0], 60.0, 1.4, 1.90),
    ("XXXL", [24.0, 18.0, 16.0], 70.0, 2.0, 2.60),
];

/// One SKU of a catalogue of household goods: sizes in half inches, weight from a density.
fn sku(rng: &mut SplitMix64, i: usize) -> Item {
    let half = |rng: &mut SplitMix64, lo: i64, hi: i64| rng.range(lo, hi) as f64 / 2.0;
    let shape = rng.below(10);
    let (w, h, l) = match shape {
        // Flat goods: books, cases.
        0..=2 => (half(rng, 8, 24), half(rng, 1, 4), half(rng, 10, 28)),
        // Small boxes and jars.
        3..=6 => (half(rng, 3, 12), half(rng, 3, 14), half(rng, 3, 12)),
        // Larger appliances and bulky goods.
        7 | 8 => (half(rng, 8, 22), half(rng, 8, 20), half(rng, 10, 26)),
        // Long items.
        _ => (half(rng, 2, 6), half(rng, 2, 6), half(rng, 16, 34)),
    };
    let density = 0.004 + rng.unit() * 0.012; // lb per cubic inch
    let weight = ((w * h * l * density).max(0.1) * 100.0).round() / 100.0;
    let mut it = Item::new(&format!("SKU-{i:03}"), w, h, l, weight, 1);
    it.orientation = match rng.below(20) {
        0..=13 => Orientation::Any,
        14..=18 => Orientation::Upright,
        _ => Orientation::Fixed,
    };
    it.fragile = rng.below(10) == 0;
    it.stackable = rng.below(20) != 0;
    if rng.below(20) == 0 {
        let class = ["3", "8", "9", "2.1", "5.1"][rng.below(5)];
        it.hazmat = Some(Hazmat {
            class: class.into(),
            un_number: None,
        });
    }
    it
}

/// A request of `skus` SKUs and about `units` units in total over 2-3 warehouses.
pub fn order(seed: u64, skus: usize, units: usize) -> PackRequest {
    let mut rng = SplitMix64::new(seed);
    let skus = skus.clamp(1, units.max(1));
    let mut items: Vec<Item> = (0..skus).map(|i| sku(&mut rng, i)).collect();
    let mut left = units.max(skus) - skus;
    while left > 0 {
        let i = rng.below(skus);
        items[i].quantity += 1;
        left -= 1;
    }
    let n_wh = 2 + rng.below(2);
    let per_box = units.div_ceil(8).max(2) as i64;
    let warehouses = (0..n_wh)
        .map(|w| {
            let boxes = BOXES
                .iter()
                .map(|&(id, d, max, tare, cost)| BoxType {
                    quantity: Some(rng.range(per_box / 2, per_box)),
                    cost,
                    tare_weight: tare,
                    ..BoxType::new(id, d[0], d[1], d[2], max)
                })
                .collect();
            Warehouse {
                warehouse_id: format!("WH{}", w + 1),
                boxes,
                ..Warehouse::default()
            }
        })
        .collect::<Vec<_>>();
    let mut warehouses = warehouses;
    for it in &items {
        // Partial stock: each warehouse holds the SKU with probability 2/3; together they
        // usually, not always, cover the order.
        for wh in warehouses.iter_mut() {
            if rng.below(3) != 0 {
                let q = rng.range(0, it.quantity + it.quantity / 2 + 1);
                wh.inventory.insert(it.item_id.clone(), q);
            }
        }
    }
    PackRequest {
        items,
        warehouses,
        ..PackRequest::default()
    }
}

/// A shopping cart: 1-15 SKUs, 5-60 units.
pub fn cart(seed: u64) -> PackRequest {
    let mut rng = SplitMix64::new(seed ^ 0xC0FF_EE00);
    let skus = 1 + rng.below(15);
    let units = (5 + rng.below(56)).max(skus);
    order(seed, skus, units)
}

/// Packs cart `seed` and checks the engine reaches `bound`, the split bound, with a valid
/// result: the engine tests' one check of a cart at its bound. Returns the solution for
/// the caller's own checks.
#[cfg(test)]
pub(crate) fn packs_at_bound(seed: u64, bound: usize) -> crate::PackSolution {
    let req = cart(seed);
    assert_eq!(crate::split_bound::lower_bound(&req).unwrap(), bound);
    let sol = crate::pack(&req).unwrap();
    assert_eq!(sol.summary.total_packages, bound);
    assert!(crate::validate(&req, &sol).is_ok());
    sol
}
