//! Packed boxes from the engine for the tests and the bench: cart packages and one box of
//! 200 units.

#![allow(dead_code)]

use packing::{BoxType, PackRequest, Warehouse};
use views::PackedBox;

/// The packages of seeded carts, with at least `min_units` units each.
pub fn cart_boxes(seeds: std::ops::RangeInclusive<u64>, min_units: usize) -> Vec<PackedBox> {
    let mut out = Vec::new();
    for seed in seeds {
        let mut req = packing::carts::cart(seed);
        req.options.time_limit_ms = Some(10);
        let sol = packing::pack(&req).expect("a cart packs");
        for pkg in &sol.packages {
            if pkg.items.len() >= min_units {
                out.push(PackedBox::from_package(pkg, &req.items));
            }
        }
    }
    out
}

/// One package of exactly 200 units of 12 household SKUs (some upright, fragile, hazmat) in a
/// large carton.
pub fn box_of_200() -> PackedBox {
    let cart = packing::carts::order(11, 12, 200);
    let mut wh = Warehouse {
        warehouse_id: "WH1".into(),
        boxes: vec![BoxType::new("PALLET-BOX", 60.0, 48.0, 48.0, 100_000.0)],
        ..Warehouse::default()
    };
    let mut items = cart.items;
    for it in items.iter_mut() {
        it.stackable = true;
        wh.inventory.insert(it.item_id.clone(), it.quantity);
    }
    let mut req = PackRequest {
        items,
        warehouses: vec![wh],
        ..PackRequest::default()
    };
    req.options.time_limit_ms = Some(10);
    let sol = packing::pack(&req).expect("the 200 units pack");
    assert_eq!(sol.packages.len(), 1, "one box");
    let bx = PackedBox::from_package(&sol.packages[0], &req.items);
    assert_eq!(bx.units.len(), 200);
    bx
}
