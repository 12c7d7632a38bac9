//! Turns the packer's fixed-point plan into the response: packages with placements in request
//! units, weights, utilization, cost, balance and hazmat figures, unfitted units grouped by
//! item and reason, compliance and the summary.

use crate::balance;
use crate::geometry::len_f64;
use crate::hazmat::{self, HazClass};
use crate::model::PackRequest;
use crate::placement::Bin;
use crate::problem::Problem;
use crate::solution::*;

/// The packer's result: boxes per warehouse (request order) and units left out.
pub(crate) struct Plan {
    pub bins: Vec<Vec<Bin>>,
    pub unfitted: Vec<(u32, UnfitReason)>,
}

fn package(req: &PackRequest, p: &Problem, w: usize, bin: &Bin) -> Package {
    let wh = &req.warehouses[w];
    let bx = &wh.boxes[p.depots[w].boxes[bin.box_kind].index];
    let dims = Dimensions {
        width: bx.width,
        height: bx.height,
        length: bx.length,
    };
    let mut placed: Vec<_> = bin.placed.iter().collect();
    placed.sort_by_key(|q| (q.c.pos[1], q.c.pos[2], q.c.pos[0]));
    let items: Vec<PlacedItem> = placed
        .iter()
        .map(|q| {
            let kind = &p.kinds[q.kind as usize];
            let it = &req.items[kind.item];
            let own = [it.width, it.height, it.length];
            let d = kind.turns[q.turn as usize].apply(own);
            PlacedItem {
                item_id: it.item_id.clone(),
                position: Point {
                    x: len_f64(q.c.pos[0]),
                    y: len_f64(q.c.pos[1]),
                    z: len_f64(q.c.pos[2]),
                },
                dimensions: Dimensions {
                    width: d[0],
                    height: d[1],
                    length: d[2],
                },
                rotated: d != own,
                weight: it.weight,
            }
        })
        .collect();
    let total_weight: f64 = items.iter().map(|i| i.weight).sum();
    let unit_volume: f64 = items
        .iter()
        .map(|i| i.dimensions.width * i.dimensions.height * i.dimensions.length)
        .sum();
    let mut classes: Vec<HazClass> = Vec::new();
    for q in &bin.placed {
        if let Some(c) = &p.kinds[q.kind as usize].hazmat {
            if !classes.iter().any(|o| o.name == c.name) {
                classes.push(c.clone());
            }
        }
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    let mut issues = Vec::new();
    for (i, a) in classes.iter().enumerate() {
        for b in &classes[i + 1..] {
            if !hazmat::compatible(a, b) {
                issues.push(format!(
                    "class {} and class {} share this package",
                    a.name, b.name
                ));
            }
        }
    }
    Package {
        warehouse_id: wh.warehouse_id.clone(),
        box_id: bx.box_id.clone(),
        box_dimensions: dims,
        center_of_gravity: balance::center_of_gravity(&items, dims),
        weight_distribution: balance::weight_distribution(&items, dims),
        items,
        total_weight,
        gross_weight: total_weight + bx.tare_weight,
        volume_utilization: (unit_volume / (bx.width * bx.height * bx.length)).min(1.0),
        cost: bx.cost,
        hazmat: PackageHazmat {
            compliant: issues.is_empty(),
            classes: classes.iter().map(|c| c.name.clone()).collect(),
            issues,
            notes: Vec::new(),
        },
    }
}

/// Notes why classes were split: for each package, the incompatible classes found elsewhere.
fn split_notes(packages: &mut [Package]) {
    let parsed: Vec<Vec<HazClass>> = packages
        .iter()
        .map(|p| {
            p.hazmat
                .classes
                .iter()
                .filter_map(|c| hazmat::parse_class(c))
                .collect()
        })
        .collect();
    for (i, pkg) in packages.iter_mut().enumerate() {
        let mut notes: Vec<String> = Vec::new();
        for a in &parsed[i] {
            for (j, other) in parsed.iter().enumerate() {
                for b in other.iter().filter(|b| j != i && !hazmat::compatible(a, b)) {
                    let n = hazmat::explain(a, b);
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
        pkg.hazmat.notes = notes;
    }
}

pub(crate) fn assemble(req: &PackRequest, p: &Problem, plan: &Plan) -> PackSolution {
    let mut packages: Vec<Package> = Vec::new();
    for (w, bins) in plan.bins.iter().enumerate() {
        packages.extend(
            bins.iter()
                .filter(|b| !b.placed.is_empty())
                .map(|b| package(req, p, w, b)),
        );
    }
    split_notes(&mut packages);
    let mut counts: Vec<(usize, UnfitReason, i64)> = Vec::new();
    for &(k, reason) in &plan.unfitted {
        let item = p.kinds[k as usize].item;
        match counts
            .iter_mut()
            .find(|(i, r, _)| *i == item && *r == reason)
        {
            Some(c) => c.2 += 1,
            None => counts.push((item, reason, 1)),
        }
    }
    counts.sort();
    let unfitted_items = counts
        .into_iter()
        .map(|(i, reason, quantity)| UnfittedItem {
            item_id: req.items[i].item_id.clone(),
            quantity,
            reason,
        })
        .collect();
    let issues: Vec<String> = packages
        .iter()
        .enumerate()
        .flat_map(|(i, pk)| {
            pk.hazmat
                .issues
                .iter()
                .map(move |s| format!("package {i}: {s}"))
        })
        .collect();
    let mut warehouses_used: Vec<String> =
        packages.iter().map(|p| p.warehouse_id.clone()).collect();
    warehouses_used.sort();
    warehouses_used.dedup();
    let n = packages.len();
    let summary = Summary {
        total_packages: n,
        total_items_packed: packages.iter().map(|p| p.items.len()).sum(),
        warehouses_used,
        average_utilization: if n == 0 {
            0.0
        } else {
            packages.iter().map(|p| p.volume_utilization).sum::<f64>() / n as f64
        },
        total_cost: packages.iter().map(|p| p.cost).sum(),
        min_support: if req.options.require_support {
            req.options.min_support
        } else {
            0.0
        },
    };
    PackSolution {
        packages,
        unfitted_items,
        instructions: p.directives.outcomes.clone(),
        compliance: Compliance {
            hazmat_compliant: issues.is_empty(),
            issues,
        },
        summary,
    }
}
