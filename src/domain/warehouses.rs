//! Warehouses and their box catalogs: caller-chosen short ids (generated when absent),
//! unique; newest-first listing through a creation-ordered index.

use storage::tables::{Meta, Warehouses, WarehousesByCreation};
use storage::{abort, AddressRecord, BoxRecord, Store, TxError, WarehouseRecord};

use super::counters::bump;
use super::time_fmt::now_ms;

const COUNT: &str = "warehouses";

#[derive(Debug, Clone)]
pub struct NewWarehouse {
    pub id: Option<String>,
    pub name: String,
    pub address: Option<AddressRecord>,
    pub boxes: Vec<BoxRecord>,
}

#[derive(Debug, Clone, Default)]
pub struct WarehousePatch {
    pub name: Option<String>,
    pub address: Option<Option<AddressRecord>>,
    pub boxes: Option<Vec<BoxRecord>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarehouseError {
    IdTaken,
    NotFound,
}

fn generated_id() -> String {
    let raw = uuid::Uuid::new_v4().simple().to_string();
    format!("WH-{}", raw[..8].to_ascii_uppercase())
}

pub fn create(store: &Store, w: &NewWarehouse) -> Result<WarehouseRecord, TxError<WarehouseError>> {
    let now = now_ms();
    let rec = WarehouseRecord {
        id: w.id.clone().unwrap_or_else(generated_id),
        created_key: uuid::Uuid::now_v7().as_u128(),
        name: w.name.clone(),
        address: w.address.clone(),
        boxes: w.boxes.clone(),
        created_at_ms: now,
        updated_at_ms: now,
    };
    store.transact(|tx| {
        if tx.contains::<Warehouses>(&rec.id)? {
            return abort(WarehouseError::IdTaken);
        }
        tx.insert::<Warehouses>(&rec.id, &rec)?;
        tx.insert::<WarehousesByCreation>(&rec.created_key, &rec.id)?;
        bump(tx, COUNT, 1)?;
        Ok(())
    })?;
    Ok(rec)
}

pub fn get(store: &Store, id: &str) -> storage::Result<Option<WarehouseRecord>> {
    store.get::<Warehouses>(&id.to_string())
}

pub fn update(
    store: &Store,
    id: &str,
    p: &WarehousePatch,
) -> Result<WarehouseRecord, TxError<WarehouseError>> {
    let now = now_ms();
    store.transact(|tx| {
        let Some(mut rec) = tx.get::<Warehouses>(&id.to_string())? else {
            return abort(WarehouseError::NotFound);
        };
        if let Some(name) = &p.name {
            rec.name = name.clone();
        }
        if let Some(address) = &p.address {
            rec.address = address.clone();
        }
        if let Some(boxes) = &p.boxes {
            rec.boxes = boxes.clone();
        }
        rec.updated_at_ms = now;
        tx.insert::<Warehouses>(&rec.id, &rec)?;
        Ok(rec)
    })
}

/// A page of warehouses, newest first, and how many exist.
pub fn list(
    store: &Store,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<WarehouseRecord>, u64)> {
    let total = store.get::<Meta>(&COUNT.to_string())?.unwrap_or(0);
    let mut page = Vec::with_capacity(limit);
    for row in store
        .iter::<WarehousesByCreation>()
        .rev()
        .skip(offset)
        .take(limit)
    {
        let (_, id) = row?;
        if let Some(w) = store.get::<Warehouses>(&id)? {
            page.push(w);
        }
    }
    Ok((page, total))
}
