//! Stock levels per (SKU, warehouse). Every change goes through [`apply`] inside the
//! caller's transaction: it keeps `reserved <= onHand`, writes the audit entry, and
//! emits `inventory.adjusted` plus `inventory.low_stock` when `available` crosses below
//! the threshold (once; re-armed when it is back at or above).

use storage::tables::{
    Inventory, InventoryAudit, InventoryByPair, InventoryBySku, InventoryByWarehouse, Meta,
    Products, ProductsBySku, Warehouses,
};
use storage::{abort, keys, Abort, AuditRecord, InventoryRecord, StockChange, Store, Tx, TxError};

use super::counters::bump;
use super::events::{emit, Shapes, INVENTORY_ADJUSTED, INVENTORY_LOW_STOCK};
use super::time_fmt::now_ms;

const COUNT: &str = "inventory";

fn warehouse_count_key(warehouse: &str) -> String {
    format!("inventory:{warehouse}")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InventoryError {
    UnknownSku,
    UnknownWarehouse,
    Duplicate,
    NotFound,
    /// The change would leave `onHand` below `reserved` (or `reserved` below zero).
    Insufficient {
        available: i64,
    },
}

#[derive(Debug, Clone)]
pub struct NewInventory {
    pub sku: String,
    pub warehouse_id: String,
    pub on_hand: i64,
    pub low_stock_threshold: Option<u32>,
}

/// One stock change, as the audit trail records it.
#[derive(Debug, Clone)]
pub struct Change<'a> {
    pub kind: StockChange,
    pub on_hand_delta: i64,
    pub reserved_delta: i64,
    pub reason: &'a str,
    pub reference: Option<&'a str>,
    pub client_id: &'a str,
}

pub fn available(r: &InventoryRecord) -> i64 {
    r.on_hand - r.reserved
}

fn emit_adjusted(
    tx: &Tx<'_>,
    rec: &InventoryRecord,
    shapes: &dyn Shapes,
    now: i64,
) -> Result<(), storage::TxFail> {
    emit(tx, INVENTORY_ADJUSTED, now, || shapes.inventory(rec))?;
    Ok(())
}

/// Applies `change` to `rec` inside a transaction and stores it with its audit entry and
/// events. Aborts with `Insufficient` instead of breaking `0 <= reserved <= onHand`.
pub fn apply<E: From<InventoryError>>(
    tx: &Tx<'_>,
    rec: &mut InventoryRecord,
    change: &Change<'_>,
    shapes: &dyn Shapes,
    now: i64,
) -> Result<(), Abort<E>> {
    let on_hand = rec.on_hand + change.on_hand_delta;
    let reserved = rec.reserved + change.reserved_delta;
    if reserved < 0 || on_hand < reserved {
        return abort(E::from(InventoryError::Insufficient {
            available: available(rec),
        }));
    }
    rec.on_hand = on_hand;
    rec.reserved = reserved;
    rec.updated_at_ms = now;
    rec.audit_seq += 1;
    let threshold = i64::from(rec.low_stock_threshold);
    let crossed_below = rec.low_stock_armed && available(rec) < threshold;
    if crossed_below {
        rec.low_stock_armed = false;
    } else if available(rec) >= threshold {
        rec.low_stock_armed = true;
    }
    let audit = AuditRecord {
        seq: rec.audit_seq,
        change: change.kind,
        on_hand_delta: change.on_hand_delta,
        reserved_delta: change.reserved_delta,
        reason: change.reason.to_string(),
        on_hand: rec.on_hand,
        reserved: rec.reserved,
        client_id: change.client_id.to_string(),
        reference: change.reference.map(str::to_string),
        at_ms: now,
    };
    tx.insert::<InventoryAudit>(&(rec.id, rec.audit_seq), &audit)?;
    tx.insert::<Inventory>(&rec.id, rec)?;
    emit_adjusted(tx, rec, shapes, now)?;
    if crossed_below {
        emit(tx, INVENTORY_LOW_STOCK, now, || shapes.inventory(rec))?;
    }
    Ok(())
}

pub fn create(
    store: &Store,
    new: &NewInventory,
    client_id: &str,
    shapes: &dyn Shapes,
) -> Result<InventoryRecord, TxError<InventoryError>> {
    let now = now_ms();
    let id = uuid::Uuid::now_v7().as_u128();
    store.transact(|tx| {
        let Some(product_id) = tx.get::<ProductsBySku>(&new.sku)? else {
            return abort(InventoryError::UnknownSku);
        };
        let Some(product) = tx.get::<Products>(&product_id)? else {
            return abort(InventoryError::UnknownSku);
        };
        if !tx.contains::<Warehouses>(&new.warehouse_id)? {
            return abort(InventoryError::UnknownWarehouse);
        }
        let pair = (new.sku.clone(), new.warehouse_id.clone());
        if tx.contains::<InventoryByPair>(&pair)? {
            return abort(InventoryError::Duplicate);
        }
        let threshold = new
            .low_stock_threshold
            .unwrap_or(product.low_stock_threshold);
        let mut rec = InventoryRecord {
            id,
            sku: new.sku.clone(),
            warehouse_id: new.warehouse_id.clone(),
            on_hand: 0,
            reserved: 0,
            low_stock_threshold: threshold,
            // Armed only if stock starts at or above the threshold: creating a record
            // below it is not a crossing.
            low_stock_armed: new.on_hand >= i64::from(threshold),
            audit_seq: 0,
            created_at_ms: now,
            updated_at_ms: now,
        };
        tx.insert::<InventoryByPair>(&pair, &id)?;
        tx.insert::<InventoryBySku>(&(new.sku.clone(), id), &())?;
        tx.insert::<InventoryByWarehouse>(&(new.warehouse_id.clone(), id), &())?;
        bump(tx, COUNT, 1)?;
        bump(tx, &warehouse_count_key(&new.warehouse_id), 1)?;
        let change = Change {
            kind: StockChange::Created,
            on_hand_delta: new.on_hand,
            reserved_delta: 0,
            reason: "initial stock",
            reference: None,
            client_id,
        };
        apply(tx, &mut rec, &change, shapes, now)?;
        Ok(rec)
    })
}

/// `PATCH /api/inventory/{id}/adjust`: a manual change of `onHand`.
pub fn adjust(
    store: &Store,
    id: u128,
    delta: i64,
    reason: &str,
    client_id: &str,
    shapes: &dyn Shapes,
) -> Result<InventoryRecord, TxError<InventoryError>> {
    let now = now_ms();
    store.transact(|tx| {
        let Some(mut rec) = tx.get::<Inventory>(&id)? else {
            return abort(InventoryError::NotFound);
        };
        let change = Change {
            kind: StockChange::Adjusted,
            on_hand_delta: delta,
            reserved_delta: 0,
            reason,
            reference: None,
            client_id,
        };
        apply(tx, &mut rec, &change, shapes, now)?;
        Ok(rec)
    })
}

pub fn get(store: &Store, id: u128) -> storage::Result<Option<InventoryRecord>> {
    store.get::<Inventory>(&id)
}

/// Filters of the inventory list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub sku: Option<String>,
    pub warehouse_id: Option<String>,
}

/// A page of inventory records, newest first, and the number of matches. Uses the
/// SKU/warehouse indexes and counters; skipped entries are keys, never decoded records.
pub fn list(
    store: &Store,
    f: &Filter,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<InventoryRecord>, u64)> {
    let ids: Vec<u128>;
    let total: u64;
    match (&f.sku, &f.warehouse_id) {
        (Some(sku), Some(wh)) => {
            let hit = store.get::<InventoryByPair>(&(sku.clone(), wh.clone()))?;
            total = u64::from(hit.is_some());
            ids = hit.into_iter().skip(offset).take(limit).collect();
        }
        (Some(sku), None) => {
            let all = store
                .keys_with_prefix::<InventoryBySku>(&keys::prefix(sku))
                .map(|k| k.map(|(_, id)| id))
                .collect::<storage::Result<Vec<_>>>()?;
            total = all.len() as u64;
            ids = all.into_iter().rev().skip(offset).take(limit).collect();
        }
        (None, Some(wh)) => {
            total = store.get::<Meta>(&warehouse_count_key(wh))?.unwrap_or(0);
            ids = store
                .keys_with_prefix::<InventoryByWarehouse>(&keys::prefix(wh))
                .rev()
                .skip(offset)
                .take(limit)
                .map(|k| k.map(|(_, id)| id))
                .collect::<storage::Result<_>>()?;
        }
        (None, None) => {
            total = store.get::<Meta>(&COUNT.to_string())?.unwrap_or(0);
            ids = store
                .keys::<Inventory>()
                .rev()
                .skip(offset)
                .take(limit)
                .collect::<storage::Result<_>>()?;
        }
    }
    let mut page = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(r) = store.get::<Inventory>(&id)? {
            page.push(r);
        }
    }
    Ok((page, total))
}

/// A page of one record's audit trail, newest first, and its length.
pub fn history(
    store: &Store,
    rec: &InventoryRecord,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<AuditRecord>, u64)> {
    // Entries are numbered 1..=audit_seq, so a page is a range of keys: no scan.
    let newest = rec.audit_seq.saturating_sub(offset as u64);
    let mut page = Vec::with_capacity(limit);
    for seq in (1..=newest).rev().take(limit) {
        if let Some(a) = store.get::<InventoryAudit>(&(rec.id, seq))? {
            page.push(a);
        }
    }
    Ok((page, rec.audit_seq))
}
