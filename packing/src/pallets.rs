//! Seeded large orders for benchmarks and tests: 500-2,000 cartons of 10-30 SKUs shipped on
//! three pallet sizes (loads up to 1.5 m high, lengths in cm, weights in kg). The same seed
//! always gives the same request.

use crate::model::{BoxType, Item, Orientation, PackRequest, Warehouse};
use crate::rng::SplitMix64;

/// Pallet loads: width, height (load height allowed), length in cm; weight limit in kg.
const PALLETS: [(&str, [f64; 3], f64, f64); 3] = [
    ("EUR", [80.0, 150.0, 120.0], 1000.0, 25.0),
    ("IND", [100.0, 150.0, 120.0], 1200.0, 30.0),
    ("HALF", [60.0, 150.0, 80.0], 500.0, 12.0),
];

/// One carton SKU: sides 15-60 cm in whole centimetres, weight from a density; most cartons
/// must stay upright.
fn carton(rng: &mut SplitMix64, i: usize) -> Item {
    let w = rng.range(15, 60) as f64;
    let l = rng.range(15, 60) as f64;
    let h = rng.range(10, 50) as f64;
    let density = 0.00004 + rng.unit() * 0.00014; // kg per cubic cm
    let weight = ((w * h * l * density).max(0.5) * 10.0).round() / 10.0;
    let mut it = Item::new(&format!("CTN-{i:03}"), w, h, l, weight, 1);
    it.orientation = if rng.below(3) == 0 {
        Orientation::Any
    } else {
        Orientation::Upright
    };
    it
}

/// A request of `skus` carton SKUs and `units` cartons in one warehouse with every carton in
/// stock and the three pallet sizes unlimited.
pub fn order(seed: u64, skus: usize, units: usize) -> PackRequest {
    let mut rng = SplitMix64::new(seed ^ 0x9A11_E700);
    let skus = skus.clamp(1, units.max(1));
    let mut items: Vec<Item> = (0..skus).map(|i| carton(&mut rng, i)).collect();
    // Quantities skewed as in real orders: a few SKUs carry most cartons.
    let weights: Vec<f64> = (0..skus).map(|_| 0.2 + rng.unit().powi(2) * 5.0).collect();
    let total: f64 = weights.iter().sum();
    let mut left = units.max(skus) - skus;
    for (it, w) in items.iter_mut().zip(&weights) {
        let q = ((units - skus) as f64 * w / total).floor() as usize;
        let q = q.min(left);
        it.quantity += q as i64;
        left -= q;
    }
    while left > 0 {
        items[rng.below(skus)].quantity += 1;
        left -= 1;
    }
    let mut wh = Warehouse {
        warehouse_id: "DC".into(),
        boxes: PALLETS
            .iter()
            .map(|&(id, d, max, tare)| BoxType {
                tare_weight: tare,
                cost: d[0] * d[2] / 10_000.0,
                ..BoxType::new(id, d[0], d[1], d[2], max)
            })
            .collect(),
        ..Warehouse::default()
    };
    for it in &items {
        wh.inventory.insert(it.item_id.clone(), it.quantity);
    }
    PackRequest {
        items,
        warehouses: vec![wh],
        ..PackRequest::default()
    }
}

/// Large order number `seed`: 10-30 SKUs, 500-2,000 cartons.
pub fn large(seed: u64) -> PackRequest {
    let mut rng = SplitMix64::new(seed ^ 0x1A26_E000);
    let skus = 10 + rng.below(21);
    let units = 500 + rng.below(1501);
    order(seed, skus, units)
}
