//! Packing an order: the packing request built from the order's reservations (per
//! reserving warehouse, with its box catalog and the products' sizes), the engine run, and
//! the one transaction that stores the packages, moves the order to `processing` and
//! emits `package.created` per package. A `PackingJobs` entry, written with the order, is
//! the order's claim to be packed; the transaction consumes it, so an order is packed once.

use std::collections::BTreeMap;

use storage::tables::{
    Meta, OrderPackages, Orders, Packages, PackagesByStatus, PackingJobs, Products, Warehouses,
};
use storage::{
    OrderRecord, OrderStatus, PackageItemRecord, PackageRecord, PackageStatus, PlacementRecord,
    Store, TxError,
};

use super::counters::{
    add_packing_job, bump, next_version, package_count, set_order_status, take_packing_job,
    PACKING_JOBS,
};
use super::events::{emit, ORDER_UPDATED, PACKAGE_CREATED};
use super::order_events::{self as history, Change as Step};
use super::state::Domain;
use super::time_fmt::now_ms;
use crate::config::Units;

/// A package the engine made, not yet stored.
#[derive(Debug, Clone)]
pub struct PlannedPackage {
    pub warehouse_id: String,
    pub box_id: String,
    pub box_dimensions: [f64; 3],
    pub items: Vec<PackageItemRecord>,
    pub weight: f64,
    pub volume_utilization: f64,
}

/// The engine's answer for one order: its packages, or why it cannot be packed (kept on
/// the order as `pendingReason`).
pub type Plan = Result<Vec<PlannedPackage>, String>;

/// What the packing transaction did.
#[derive(Debug)]
pub enum Packed {
    /// The order is `processing` with these packages.
    Done(OrderRecord, Vec<PackageRecord>),
    /// It stays `pending` with this reason.
    Failed(OrderRecord),
    /// Nothing to do: no job for it (already packed, given up on, or never queued) or no
    /// longer pending (cancelled meanwhile).
    Skipped,
}

fn units_of(units: Units) -> packing::LengthUnit {
    match units {
        Units::InLb => packing::LengthUnit::In,
        Units::CmKg => packing::LengthUnit::Cm,
    }
}

/// Packs the order's reserved units with the engine, per reserving warehouse. Reads the
/// products and warehouses outside any transaction: they only shape the boxes, and the
/// stock itself is already reserved by the order.
pub fn plan(store: &Store, order: &OrderRecord, units: Units) -> storage::Result<Plan> {
    // (warehouse, sku) -> (inventory id, units), from the order's allocations.
    let mut reserved: BTreeMap<(String, String), (u128, i64)> = BTreeMap::new();
    let mut products = BTreeMap::new();
    for line in &order.lines {
        if !products.contains_key(&line.sku) {
            let Some(p) = store.get::<Products>(&line.product_id)? else {
                return Ok(Err(format!("Product {} no longer exists.", line.sku)));
            };
            products.insert(line.sku.clone(), p);
        }
        for a in &line.allocations {
            let e = reserved
                .entry((a.warehouse_id.clone(), line.sku.clone()))
                .or_insert((a.inventory_id, 0));
            e.1 += i64::from(a.quantity);
        }
    }
    let mut items = Vec::new();
    for (sku, p) in &products {
        let (Some(d), Some(weight)) = (&p.dimensions, p.weight) else {
            return Ok(Err(format!(
                "Product {sku} has no dimensions or weight; set them and pack the order again."
            )));
        };
        let mut item = packing::Item::new(sku, d.width, d.height, d.length, weight, 0);
        item.orientation = match p.orientation {
            storage::Orientation::Any => packing::Orientation::Any,
            storage::Orientation::Upright => packing::Orientation::Upright,
        };
        item.hazmat = p.hazmat.as_ref().map(|h| packing::Hazmat {
            class: h.class.clone(),
            un_number: Some(h.un_number.clone()),
        });
        items.push(item);
    }
    let mut by_warehouse: BTreeMap<&str, BTreeMap<&str, i64>> = BTreeMap::new();
    for ((wh, sku), (_, q)) in &reserved {
        *by_warehouse.entry(wh).or_default().entry(sku).or_default() += q;
    }
    let mut planned = Vec::new();
    for (wh, stock) in by_warehouse {
        let Some(w) = store.get::<Warehouses>(&wh.to_string())? else {
            return Ok(Err(format!("Warehouse {wh} no longer exists.")));
        };
        if w.boxes.is_empty() {
            return Ok(Err(format!("Warehouse {wh} has no boxes in its catalog.")));
        }
        let request = packing::PackRequest {
            items: items
                .iter()
                .filter_map(|i| {
                    let q = *stock.get(i.item_id.as_str())?;
                    Some(packing::Item {
                        quantity: q,
                        ..i.clone()
                    })
                })
                .collect(),
            warehouses: vec![packing::Warehouse {
                warehouse_id: w.id.clone(),
                boxes: w
                    .boxes
                    .iter()
                    .map(|b| packing::BoxType {
                        box_id: b.box_id.clone(),
                        width: b.width,
                        height: b.height,
                        length: b.length,
                        max_weight: b.max_weight,
                        quantity: b.quantity.map(i64::from),
                        cost: b
                            .cost
                            .as_deref()
                            .and_then(|c| c.parse().ok())
                            .unwrap_or(0.0),
                        tare_weight: b.tare_weight.unwrap_or(0.0),
                    })
                    .collect(),
                inventory: stock.iter().map(|(s, q)| (s.to_string(), *q)).collect(),
            }],
            units: units_of(units),
            weight_units: None,
            options: packing::PackOptions::default(),
        };
        let solution = match packing::pack(&request) {
            Ok(s) => s,
            Err(e) => return Ok(Err(format!("Packing in warehouse {wh} failed: {e}."))),
        };
        if let Some(u) = solution.unfitted_items.first() {
            return Ok(Err(format!(
                "{} unit(s) of {} cannot be packed in warehouse {wh}: {}.",
                u.quantity,
                u.item_id,
                u.reason.as_str()
            )));
        }
        for p in solution.packages {
            let mut items: Vec<PackageItemRecord> = Vec::new();
            for unit in &p.items {
                let placement = PlacementRecord {
                    x: unit.position.x,
                    y: unit.position.y,
                    z: unit.position.z,
                    width: unit.dimensions.width,
                    height: unit.dimensions.height,
                    length: unit.dimensions.length,
                    rotated: unit.rotated,
                };
                match items.iter_mut().find(|i| i.sku == unit.item_id) {
                    Some(i) => {
                        i.quantity += 1;
                        i.placements.push(placement);
                    }
                    None => items.push(PackageItemRecord {
                        sku: unit.item_id.clone(),
                        inventory_id: reserved[&(wh.to_string(), unit.item_id.clone())].0,
                        quantity: 1,
                        placements: vec![placement],
                    }),
                }
            }
            planned.push(PlannedPackage {
                warehouse_id: p.warehouse_id,
                box_id: p.box_id,
                box_dimensions: [
                    p.box_dimensions.width,
                    p.box_dimensions.height,
                    p.box_dimensions.length,
                ],
                items,
                weight: p.gross_weight,
                volume_utilization: p.volume_utilization,
            });
        }
    }
    if planned.is_empty() {
        return Ok(Err("The packing engine returned no packages.".to_string()));
    }
    Ok(Ok(planned))
}

/// Stores the outcome of [`plan`] for order `id` if the order still holds its packing job
/// and is pending: the packages, the order to `processing` and the events; or, for a
/// failed plan, the reason on the order. Either way the job is consumed.
pub fn commit(
    d: &Domain,
    id: u128,
    plan: &Plan,
) -> Result<Packed, TxError<std::convert::Infallible>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let now = now_ms();
    // Records and their event payloads are built before taking the writer lock: the
    // closure below holds it, and every other write in the process waits for it.
    let built: Vec<(PackageRecord, String)> = match plan {
        Ok(planned) => planned
            .iter()
            .map(|p| {
                let rec = PackageRecord {
                    id: uuid::Uuid::now_v7().as_u128(),
                    order_id: id,
                    warehouse_id: p.warehouse_id.clone(),
                    box_id: p.box_id.clone(),
                    box_dimensions: p.box_dimensions,
                    status: PackageStatus::Created,
                    progress: PackageStatus::Created,
                    items: p.items.clone(),
                    weight: p.weight,
                    volume_utilization: p.volume_utilization,
                    carrier: None,
                    tracking_number: None,
                    service: None,
                    created_at_ms: now,
                    updated_at_ms: now,
                    shipped_at_ms: None,
                    delivered_at_ms: None,
                };
                let json = shapes.package(&rec);
                (rec, json)
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    let ids: Vec<u128> = built.iter().map(|(p, _)| p.id).collect();
    let result = store.transact(move |tx| {
        if !take_packing_job(tx, id)? {
            return Ok(Packed::Skipped);
        }
        let Some(mut order) = tx.get::<Orders>(&id)? else {
            return Ok(Packed::Skipped);
        };
        if order.status != OrderStatus::Pending || tx.contains::<OrderPackages>(&id)? {
            return Ok(Packed::Skipped);
        }
        if let Err(reason) = plan {
            order.pending_reason = Some(reason.clone());
            order.updated_at_ms = next_version(order.updated_at_ms, now);
            tx.insert::<Orders>(&id, &order)?;
            let note = Some(reason.clone());
            Step::by(history::NOT_PACKED, order.status, note, "").record(tx, id, now)?;
            return Ok(Packed::Failed(order));
        }
        let mut packages = Vec::with_capacity(built.len());
        for (rec, json) in built {
            tx.insert::<Packages>(&rec.id, &rec)?;
            tx.insert::<PackagesByStatus>(
                &(PackageStatus::Created.as_str().to_string(), rec.id),
                &(),
            )?;
            emit(tx, PACKAGE_CREATED, now, || json)?;
            packages.push(rec);
        }
        tx.insert::<OrderPackages>(&id, &ids)?;
        bump(tx, &package_count(None), ids.len() as i64)?;
        bump(
            tx,
            &package_count(Some(PackageStatus::Created)),
            ids.len() as i64,
        )?;
        set_order_status(tx, &mut order, OrderStatus::Processing)?;
        order.pending_reason = None;
        order.updated_at_ms = next_version(order.updated_at_ms, now);
        tx.insert::<Orders>(&id, &order)?;
        emit(tx, ORDER_UPDATED, now, || shapes.order(&order))?;
        let boxes: Vec<&str> = packages.iter().map(|p| p.box_id.as_str()).collect();
        let note = Some(format!(
            "{} package(s): {}",
            packages.len(),
            boxes.join(", ")
        ));
        Step::by(history::PACKED, order.status, note, "").record(tx, id, now)?;
        Ok(Packed::Done(order, packages))
    });
    if let Ok(Packed::Done(o, _) | Packed::Failed(o)) = &result {
        d.orders.upsert(o);
    }
    result
}

/// Queues order `id` for packing again (after its products or boxes were fixed). Only a
/// pending order without packages can be queued; returns whether it was.
pub fn requeue(
    store: &Store,
    id: u128,
) -> Result<Option<OrderRecord>, TxError<std::convert::Infallible>> {
    store.transact(|tx| {
        let Some(order) = tx.get::<Orders>(&id)? else {
            return Ok(None);
        };
        if order.status == OrderStatus::Pending && !tx.contains::<OrderPackages>(&id)? {
            add_packing_job(tx, id)?;
        }
        Ok(Some(order))
    })
}

/// The orders waiting to be packed, oldest first (at most `max`).
pub fn pending_jobs(store: &Store, max: usize) -> storage::Result<Vec<u128>> {
    store.keys::<PackingJobs>().take(max).collect()
}

/// How many orders wait to be packed, from the counter the jobs' transactions keep
/// (`None` on a database no build that keeps it has started yet).
pub fn backlog(store: &Store) -> storage::Result<Option<u64>> {
    store.get::<Meta>(&PACKING_JOBS.to_string())
}
