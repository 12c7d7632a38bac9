//! Validator checks across packages: box and stock counts, every unit placed once or reported
//! unfitted with a reason that holds, summary totals and compliance.

use super::{close, rule_of, Checker, CONTACT_TOLERANCE};
use crate::instructions::Directives;
use crate::model::Orientation;
use crate::solution::{PackSolution, UnfitReason};
use std::collections::BTreeMap;

/// Box and stock counts, every unit placed once or unfitted, reasons, totals and compliance.
pub(super) fn check(
    c: &mut Checker,
    sol: &PackSolution,
    d: &Directives,
    placed: &[i64],
    stock_used: &BTreeMap<(usize, usize), i64>,
    boxes_used: &BTreeMap<(usize, usize), i64>,
) {
    let req = c.req;
    for (&(w, b), &n) in boxes_used {
        if let Some(q) = req.warehouses[w].boxes[b].quantity {
            if n > q {
                let bx = &req.warehouses[w].boxes[b].box_id;
                c.fail(
                    None,
                    "box_count",
                    format!("{n} boxes {bx} used, {q} available"),
                );
            }
        }
    }
    for (&(w, i), &n) in stock_used {
        let have = req.warehouses[w]
            .inventory
            .get(&req.items[i].item_id)
            .copied()
            .unwrap_or(0);
        if n > have {
            let (wid, iid) = (&req.warehouses[w].warehouse_id, &req.items[i].item_id);
            c.fail(
                None,
                "inventory",
                format!("{n} units of {iid} from {wid}, which holds {have}"),
            );
        }
    }
    let mut unfitted = vec![0i64; req.items.len()];
    for u in &sol.unfitted_items {
        let Some(i) = req.items.iter().position(|it| it.item_id == u.item_id) else {
            c.fail(None, "unfitted", format!("unknown item {}", u.item_id));
            continue;
        };
        if u.quantity <= 0 {
            c.fail(
                None,
                "unfitted",
                format!("{}: quantity must be positive", u.item_id),
            );
        }
        unfitted[i] += u.quantity;
        check_reason(c, d, i, u.reason, u.quantity);
    }
    for (i, it) in req.items.iter().enumerate() {
        if placed[i] + unfitted[i] != it.quantity {
            let msg = format!(
                "{}: {} placed + {} unfitted != {} requested",
                it.item_id, placed[i], unfitted[i], it.quantity
            );
            c.fail(None, "accounting", msg);
        }
    }
    let s = &sol.summary;
    let n = sol.packages.len();
    let mut used: Vec<String> = sol
        .packages
        .iter()
        .map(|p| p.warehouse_id.clone())
        .collect();
    used.sort();
    used.dedup();
    let avg = if n == 0 {
        0.0
    } else {
        sol.packages
            .iter()
            .map(|p| p.volume_utilization)
            .sum::<f64>()
            / n as f64
    };
    let cost: f64 = sol.packages.iter().map(|p| p.cost).sum();
    if s.total_packages != n
        || s.total_items_packed != sol.packages.iter().map(|p| p.items.len()).sum::<usize>()
        || s.warehouses_used != used
        || !close(s.average_utilization, avg)
        || !close(s.total_cost, cost)
    {
        c.fail(None, "summary", "totals do not match the packages".into());
    }
    if sol.compliance.hazmat_compliant != sol.packages.iter().all(|p| p.hazmat.compliant) {
        c.fail(
            None,
            "compliance",
            "hazmat_compliant disagrees with the packages".into(),
        );
    }
    if sol.packages.iter().any(|p| p.items.is_empty()) {
        c.fail(None, "empty_package", "a package holds no unit".into());
    }
}

/// Reasons that can be verified from the request alone. Sizes within the engine's resolution
/// of a box are not held against `too_large`.
fn check_reason(c: &mut Checker, d: &Directives, i: usize, reason: UnfitReason, qty: i64) {
    let req = c.req;
    let it = &req.items[i];
    let stock: i64 = req
        .warehouses
        .iter()
        .map(|w| w.inventory.get(&it.item_id).copied().unwrap_or(0))
        .sum();
    let stocked = req
        .warehouses
        .iter()
        .filter(|w| w.inventory.get(&it.item_id).is_some_and(|&n| n > 0));
    let own = [it.width, it.height, it.length];
    let rule = rule_of(req, d, i);
    // `margin` > 0: fits with room to spare; < 0: fits give or take the resolution.
    let fits_by = |b: &crate::model::BoxType, margin: f64| {
        let room = [b.width, b.height, b.length].map(|v| v - margin);
        let within = |dims: [f64; 3]| dims.iter().zip(&room).all(|(a, b)| a <= b);
        let perms = [
            [0, 1, 2],
            [2, 1, 0],
            [0, 2, 1],
            [2, 0, 1],
            [1, 0, 2],
            [1, 2, 0],
        ];
        let n = match rule {
            Orientation::Any => 6,
            Orientation::Upright => 2,
            Orientation::Fixed => 1,
        };
        perms[..n].iter().any(|p| within(p.map(|a| own[a])))
    };
    let limit =
        |b: &crate::model::BoxType| d.max_weight.map_or(b.max_weight, |m| m.min(b.max_weight));
    // Units may carry a reason only up to the stock held where that reason applies.
    let heavy = |b: &crate::model::BoxType| it.weight + b.tare_weight > limit(b) * (1.0 - 1e-9);
    let held = |too_heavy: bool| -> i64 {
        stocked
            .clone()
            .filter(|w| {
                if too_heavy {
                    let fitting: Vec<_> = w
                        .boxes
                        .iter()
                        .filter(|b| fits_by(b, -CONTACT_TOLERANCE))
                        .collect();
                    !fitting.is_empty() && fitting.iter().all(|b| heavy(b))
                } else {
                    !w.boxes.iter().any(|b| fits_by(b, CONTACT_TOLERANCE))
                }
            })
            .map(|w| w.inventory.get(&it.item_id).copied().unwrap_or(0))
            .sum()
    };
    let ok = match reason {
        UnfitReason::NoInventory => qty <= (it.quantity - stock).max(0),
        UnfitReason::TooLarge => qty <= held(false),
        UnfitReason::TooHeavy => qty <= held(true),
        UnfitReason::NoBoxAvailable | UnfitReason::HazmatRestriction => true,
    };
    if !ok {
        c.fail(
            None,
            "unfit_reason",
            format!("{}: reason {} does not hold", it.item_id, reason.as_str()),
        );
    }
}
