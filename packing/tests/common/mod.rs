//! Helpers of the integration tests: small request builders, and `solve`, which packs a request
//! and runs the independent validator on the result.
#![allow(dead_code)]

use packing::{pack, validate, BoxType, Item, PackRequest, PackSolution, Warehouse};

/// A warehouse with the given boxes and stock.
pub fn warehouse(id: &str, boxes: Vec<BoxType>, stock: &[(&str, i64)]) -> Warehouse {
    Warehouse {
        warehouse_id: id.into(),
        boxes,
        inventory: stock.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }
}

/// A request over one warehouse "W1" holding plenty of every item.
pub fn request(items: Vec<Item>, boxes: Vec<BoxType>) -> PackRequest {
    let stock: Vec<(&str, i64)> = items.iter().map(|i| (i.item_id.as_str(), 1000)).collect();
    let wh = warehouse("W1", boxes, &stock);
    PackRequest {
        items,
        warehouses: vec![wh],
        ..PackRequest::default()
    }
}

/// Packs `req`, asserts the validator accepts the result, and returns it.
pub fn solve(req: &PackRequest) -> PackSolution {
    let sol = pack(req).unwrap_or_else(|e| panic!("pack failed: {e}"));
    if let Err(v) = validate(req, &sol) {
        panic!("invalid solution: {v:#?}");
    }
    sol
}

/// Units of `item` placed in the solution.
pub fn placed(sol: &PackSolution, item: &str) -> usize {
    sol.packages
        .iter()
        .flat_map(|p| &p.items)
        .filter(|i| i.item_id == item)
        .count()
}

/// Units of `item` reported unfitted with `reason` (`as_str` form).
pub fn unfitted(sol: &PackSolution, item: &str, reason: &str) -> i64 {
    sol.unfitted_items
        .iter()
        .filter(|u| u.item_id == item && u.reason.as_str() == reason)
        .map(|u| u.quantity)
        .sum()
}

/// A box with unlimited quantity and a generous weight limit.
pub fn bx(id: &str, w: f64, h: f64, l: f64) -> BoxType {
    BoxType::new(id, w, h, l, 1000.0)
}
