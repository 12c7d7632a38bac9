//! Orders: creation that reserves stock for every line in the same transaction as the
//! order and its `order.created` event (fewest warehouses; all or nothing), externalId
//! idempotency, the status machine, edits, cancellation that releases stock, and lists.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use sha2::{Digest, Sha256};
use storage::tables::{
    Inventory, InventoryBySku, Orders, OrdersByExternalId, Products, ProductsBySku,
};
use storage::{
    abort, keys, AddressRecord, Allocation, OrderLine, OrderRecord, OrderStatus, StockChange,
    Store, Tx, TxError,
};

use super::allocation::{self, Stock};
use super::counters::{bump, new_packing_job, next_version, order_count, set_order_status};
use super::events::{emit, Shapes, ORDER_CANCELLED, ORDER_CREATED, ORDER_UPDATED};
use super::inventory::{self, Change, InventoryError};
use super::order_events::{self as history, Change as Step};
use super::state::Domain;
use super::time_fmt::now_ms;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderError {
    /// Line `line` names no live product.
    UnknownSku {
        line: usize,
    },
    /// Not enough available stock for line `line` in all warehouses together.
    Insufficient {
        line: usize,
        available: i64,
    },
    /// The externalId belongs to an order created by a different request.
    ExternalIdConflict,
    NotFound,
    InvalidTransition {
        from: OrderStatus,
        to: OrderStatus,
    },
    /// A cancel of an order one of whose packages has shipped.
    PackageShipped,
    /// An edit of `field` on an order that is no longer pending.
    NotEditable {
        field: &'static str,
        status: OrderStatus,
    },
}

impl From<InventoryError> for OrderError {
    fn from(e: InventoryError) -> Self {
        match e {
            // Reservations are planned inside the same transaction, so this only
            // happens if the plan and the records disagree; report it as a shortfall.
            InventoryError::Insufficient { available } => {
                OrderError::Insufficient { line: 0, available }
            }
            _ => OrderError::NotFound,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NewLine {
    pub sku: String,
    pub quantity: u32,
    /// `None`: the product's price.
    pub unit_price: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NewOrder {
    pub external_id: String,
    pub customer_id: Option<String>,
    pub customer_email: String,
    pub lines: Vec<NewLine>,
    pub shipping_addresses: Vec<AddressRecord>,
    pub billing_address: Option<AddressRecord>,
}

/// The outcome of a create: a new order, or the existing one for a repeated request.
pub enum Created {
    New(OrderRecord),
    Existing(OrderRecord),
}

/// The canonical hash of a validated create request: the same request under the same
/// externalId hashes the same whatever its JSON spelling (key order, `street1`, ...).
pub fn request_hash(o: &NewOrder) -> Vec<u8> {
    let canonical = serde_json::to_vec(o).expect("plain struct serializes");
    Sha256::digest(canonical).to_vec()
}

/// Edges of the status machine that PATCH may take (cancellation included).
pub fn can_move(from: OrderStatus, to: OrderStatus) -> bool {
    use OrderStatus::*;
    matches!(
        (from, to),
        (Pending, Processing)
            | (Processing, Shipped)
            | (Shipped, Delivered)
            | (Pending | Processing, Cancelled)
    )
}

/// Inventory ids per SKU, read before the transaction (sled transactions cannot scan);
/// the records themselves are re-read inside it. A record created in between is only a
/// missed option, never a wrong reservation.
fn inventory_ids(store: &Store, skus: &[&str]) -> storage::Result<BTreeMap<String, Vec<u128>>> {
    let mut out = BTreeMap::new();
    for sku in skus {
        let ids = store
            .keys_with_prefix::<InventoryBySku>(&keys::prefix(sku))
            .map(|k| k.map(|(_, id)| id))
            .collect::<storage::Result<Vec<_>>>()?;
        out.insert(sku.to_string(), ids);
    }
    Ok(out)
}

pub fn create(d: &Domain, new: &NewOrder, client_id: &str) -> Result<Created, TxError<OrderError>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let hash = request_hash(new);
    let mut skus: Vec<&str> = new.lines.iter().map(|l| l.sku.as_str()).collect();
    skus.sort_unstable();
    skus.dedup();
    let candidates = inventory_ids(store, &skus).map_err(TxError::Storage)?;
    // Read before the transaction: a sled read inside it would hold the writer lock while
    // the commit thread applies a batch.
    let known = store
        .preread::<OrdersByExternalId>(&new.external_id)
        .map_err(TxError::Storage)?;
    let now = now_ms();
    let id = uuid::Uuid::now_v7().as_u128();
    let result = store.transact(|tx| {
        if let Some(existing) = tx.get_preread::<OrdersByExternalId>(&new.external_id, &known)? {
            let Some(o) = tx.get::<Orders>(&existing)? else {
                return abort(OrderError::ExternalIdConflict);
            };
            if o.request_sha256 == hash {
                return Ok(Created::Existing(o));
            }
            return abort(OrderError::ExternalIdConflict);
        }
        // Products, and the demand per SKU in first-seen order.
        let mut products = BTreeMap::new();
        let mut demand: Vec<(String, i64)> = Vec::new();
        for (i, line) in new.lines.iter().enumerate() {
            let product = match tx.get::<ProductsBySku>(&line.sku)? {
                Some(pid) => tx.get::<Products>(&pid)?,
                None => None,
            };
            let Some(product) = product.filter(|p| p.deleted_at_ms.is_none()) else {
                return abort(OrderError::UnknownSku { line: i });
            };
            products.insert(line.sku.clone(), product);
            match demand.iter_mut().find(|(s, _)| *s == line.sku) {
                Some((_, q)) => *q += i64::from(line.quantity),
                None => demand.push((line.sku.clone(), i64::from(line.quantity))),
            }
        }
        let mut records = BTreeMap::new();
        let mut stock: BTreeMap<String, Vec<Stock>> = BTreeMap::new();
        for (sku, _) in &demand {
            let entry = stock.entry(sku.clone()).or_default();
            for inv_id in candidates.get(sku).into_iter().flatten() {
                if let Some(rec) = tx.get::<Inventory>(inv_id)? {
                    entry.push(Stock {
                        warehouse_id: rec.warehouse_id.clone(),
                        inventory_id: rec.id,
                        available: inventory::available(&rec),
                    });
                    records.insert(rec.id, rec);
                }
            }
        }
        let mut plan = match allocation::plan(&demand, &stock) {
            Ok(p) => p,
            Err(short) => {
                let line = new
                    .lines
                    .iter()
                    .position(|l| l.sku == short.sku)
                    .unwrap_or(0);
                return abort(OrderError::Insufficient {
                    line,
                    available: short.available,
                });
            }
        };
        // Hand each line its share of its SKU's takes, in line order.
        let order_ref = uuid::Uuid::from_u128(id).to_string();
        let mut lines = Vec::with_capacity(new.lines.len());
        let mut total = Decimal::ZERO;
        let mut item_count = 0u32;
        for line in &new.lines {
            let product = &products[&line.sku];
            let takes = plan.get_mut(&line.sku).expect("planned every SKU");
            let mut want = i64::from(line.quantity);
            let mut allocations = Vec::new();
            while want > 0 {
                let take = takes.first_mut().expect("plan covers the demand");
                let q = want.min(take.quantity);
                allocations.push(Allocation {
                    warehouse_id: take.warehouse_id.clone(),
                    inventory_id: take.inventory_id,
                    quantity: q as u32,
                });
                take.quantity -= q;
                want -= q;
                if take.quantity == 0 {
                    takes.remove(0);
                }
            }
            let unit_price = line
                .unit_price
                .unwrap_or_else(|| product.price.parse().unwrap_or(Decimal::ZERO));
            total += unit_price * Decimal::from(line.quantity);
            item_count += line.quantity;
            lines.push(OrderLine {
                sku: line.sku.clone(),
                product_id: product.id,
                name: product.name.clone(),
                quantity: line.quantity,
                unit_price: unit_price.normalize().to_string(),
                unit_cost: product.unit_cost.clone(),
                cost_currency: product.cost_currency.clone(),
                allocations,
            });
        }
        for line in &lines {
            for a in &line.allocations {
                let rec = records
                    .get_mut(&a.inventory_id)
                    .expect("allocated from a read record");
                let change = Change {
                    kind: StockChange::Reserved,
                    on_hand_delta: 0,
                    reserved_delta: i64::from(a.quantity),
                    reason: "order created",
                    reference: Some(&order_ref),
                    client_id,
                };
                inventory::apply::<OrderError>(tx, rec, &change, shapes, now)?;
            }
        }
        let order = OrderRecord {
            id,
            external_id: new.external_id.clone(),
            customer_id: new.customer_id.clone(),
            customer_email: new.customer_email.clone(),
            status: OrderStatus::Pending,
            lines,
            shipping_addresses: new.shipping_addresses.clone(),
            billing_address: new.billing_address.clone(),
            total: total.normalize().to_string(),
            item_count,
            request_sha256: hash.clone(),
            cancel_reason: None,
            pending_reason: None,
            created_at_ms: now,
            updated_at_ms: now,
        };
        tx.insert::<Orders>(&id, &order)?;
        tx.insert::<OrdersByExternalId>(&order.external_id, &id)?;
        bump(tx, &order_count(None), 1)?;
        bump(tx, &order_count(Some(OrderStatus::Pending)), 1)?;
        // The order's claim to be packed, consumed by the transaction that packs it; the
        // id is new, so it has none yet.
        new_packing_job(tx, id)?;
        emit(tx, ORDER_CREATED, now, || shapes.order(&order))?;
        Step::by(history::CREATED, order.status, None, client_id).record(tx, id, now)?;
        Ok(Created::New(order))
    });
    if let Ok(Created::New(o)) = &result {
        d.orders.upsert(o);
    }
    result
}

pub fn get(store: &Store, id: u128) -> storage::Result<Option<OrderRecord>> {
    store.get::<Orders>(&id)
}

/// The order as the last committed transaction left it: unlike [`get`], it sees a
/// commit whose batch is not applied yet (another writer's, seen by one's own closure).
pub fn get_committed(store: &Store, id: u128) -> storage::Result<Option<OrderRecord>> {
    store
        .transact(|tx| Ok::<_, storage::Abort<std::convert::Infallible>>(tx.get::<Orders>(&id)?))
        .map_err(|e| match e {
            storage::TxError::Storage(e) => e,
            storage::TxError::Aborted(never) => match never {},
        })
}

/// Releases every reservation of `o` (inside the caller's transaction).
fn release(
    tx: &Tx<'_>,
    o: &OrderRecord,
    client_id: &str,
    shapes: &dyn Shapes,
    now: i64,
) -> Result<(), storage::Abort<OrderError>> {
    let order_ref = uuid::Uuid::from_u128(o.id).to_string();
    for line in &o.lines {
        for a in &line.allocations {
            let Some(mut rec) = tx.get::<Inventory>(&a.inventory_id)? else {
                continue;
            };
            let change = Change {
                kind: StockChange::Released,
                on_hand_delta: 0,
                reserved_delta: -i64::from(a.quantity),
                reason: "order cancelled",
                reference: Some(&order_ref),
                client_id,
            };
            inventory::apply::<OrderError>(tx, &mut rec, &change, shapes, now)?;
        }
    }
    Ok(())
}

/// Cancels an order and releases its stock. A cancelled order is returned unchanged
/// (`false`); shipped or delivered ones are refused.
pub fn cancel(
    d: &Domain,
    id: u128,
    reason: Option<&str>,
    client_id: &str,
) -> Result<(OrderRecord, bool), TxError<OrderError>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let now = now_ms();
    let result = store.transact(|tx| {
        let Some(mut o) = tx.get::<Orders>(&id)? else {
            return abort(OrderError::NotFound);
        };
        match o.status {
            OrderStatus::Cancelled => return Ok((o, false)),
            OrderStatus::Shipped | OrderStatus::Delivered => {
                return abort(OrderError::InvalidTransition {
                    from: o.status,
                    to: OrderStatus::Cancelled,
                })
            }
            OrderStatus::Pending | OrderStatus::Processing => {}
        }
        super::packages::void_for_cancel(tx, o.id, || OrderError::PackageShipped, now)?;
        release(tx, &o, client_id, shapes, now)?;
        set_order_status(tx, &mut o, OrderStatus::Cancelled)?;
        o.cancel_reason = reason.map(str::to_string);
        o.updated_at_ms = next_version(o.updated_at_ms, now);
        tx.insert::<Orders>(&o.id, &o)?;
        emit(tx, ORDER_CANCELLED, now, || shapes.order(&o))?;
        let note = reason.map(str::to_string);
        Step::by(history::CANCELLED, o.status, note, client_id).record(tx, id, now)?;
        Ok((o, true))
    });
    if let Ok((o, true)) = &result {
        d.orders.upsert(o);
    }
    result
}

/// A validated PATCH: a status move and/or edits of a pending order.
#[derive(Debug, Clone, Default)]
pub struct OrderPatch {
    pub status: Option<OrderStatus>,
    pub customer_email: Option<String>,
    pub shipping_addresses: Option<Vec<AddressRecord>>,
    pub billing_address: Option<Option<AddressRecord>>,
}

pub fn update(
    d: &Domain,
    id: u128,
    p: &OrderPatch,
    client_id: &str,
) -> Result<OrderRecord, TxError<OrderError>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let now = now_ms();
    let result = store.transact(|tx| {
        let Some(mut o) = tx.get::<Orders>(&id)? else {
            return abort(OrderError::NotFound);
        };
        let edits: [(&'static str, bool); 3] = [
            ("customerEmail", p.customer_email.is_some()),
            ("shippingAddresses", p.shipping_addresses.is_some()),
            ("billingAddress", p.billing_address.is_some()),
        ];
        if let Some((field, _)) = edits.iter().find(|(_, edited)| *edited) {
            if o.status != OrderStatus::Pending {
                return abort(OrderError::NotEditable {
                    field,
                    status: o.status,
                });
            }
        }
        if let Some(v) = &p.customer_email {
            o.customer_email = v.clone();
        }
        if let Some(v) = &p.shipping_addresses {
            o.shipping_addresses = v.clone();
        }
        if let Some(v) = &p.billing_address {
            o.billing_address = v.clone();
        }
        let mut cancelled = false;
        let mut moved = None;
        if let Some(to) = p.status.filter(|to| *to != o.status) {
            moved = Some((o.status, to));
            if !can_move(o.status, to) {
                return abort(OrderError::InvalidTransition { from: o.status, to });
            }
            if to == OrderStatus::Cancelled {
                super::packages::void_for_cancel(tx, o.id, || OrderError::PackageShipped, now)?;
                release(tx, &o, client_id, shapes, now)?;
                cancelled = true;
            }
            set_order_status(tx, &mut o, to)?;
        }
        o.updated_at_ms = next_version(o.updated_at_ms, now);
        tx.insert::<Orders>(&o.id, &o)?;
        let kind = if cancelled {
            ORDER_CANCELLED
        } else {
            ORDER_UPDATED
        };
        emit(tx, kind, now, || shapes.order(&o))?;
        Step::update(cancelled, &edits, moved, o.status, client_id).record(tx, id, now)?;
        Ok(o)
    });
    if let Ok(o) = &result {
        d.orders.upsert(o);
    }
    result
}
