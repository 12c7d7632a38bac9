//! Product rules: SKU unique among live products, soft delete that frees the SKU and
//! keeps the record, and the live-product index and count that lists use.

use rust_decimal::Decimal;
use storage::tables::{Meta, Products, ProductsBySku, ProductsLive};
use storage::{abort, Dimensions, Hazmat, Orientation, ProductRecord, Store, TxError};

use super::time_fmt::now_ms;

const LIVE_COUNT: &str = "products_live";

/// A validated create request.
#[derive(Debug, Clone)]
pub struct NewProduct {
    pub sku: String,
    pub name: String,
    pub description: String,
    pub price: Decimal,
    pub unit_cost: Option<Decimal>,
    pub cost_currency: Option<String>,
    pub weight: Option<f64>,
    pub dimensions: Option<Dimensions>,
    pub hazmat: Option<Hazmat>,
    pub orientation: Orientation,
    pub low_stock_threshold: u32,
}

/// A validated partial update; `Some(None)` clears an optional field.
#[derive(Debug, Clone, Default)]
pub struct ProductPatch {
    pub sku: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub price: Option<Decimal>,
    pub unit_cost: Option<Option<Decimal>>,
    pub cost_currency: Option<Option<String>>,
    pub weight: Option<Option<f64>>,
    pub dimensions: Option<Option<Dimensions>>,
    pub hazmat: Option<Option<Hazmat>>,
    pub orientation: Option<Orientation>,
    pub low_stock_threshold: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProductError {
    SkuTaken,
    NotFound,
    /// A cost without its currency (or the reverse) after applying a patch.
    CostWithoutCurrency,
}

fn bump_live(tx: &storage::Tx<'_>, delta: i64) -> Result<(), storage::TxFail> {
    let key = LIVE_COUNT.to_string();
    let n = tx.get::<Meta>(&key)?.unwrap_or(0);
    tx.insert::<Meta>(&key, &n.saturating_add_signed(delta))
}

pub fn create(store: &Store, p: &NewProduct) -> Result<ProductRecord, TxError<ProductError>> {
    let now = now_ms();
    let rec = ProductRecord {
        id: uuid::Uuid::now_v7().as_u128(),
        sku: p.sku.clone(),
        name: p.name.clone(),
        description: p.description.clone(),
        price: p.price.to_string(),
        unit_cost: p.unit_cost.map(|d| d.to_string()),
        cost_currency: p.cost_currency.clone(),
        weight: p.weight,
        dimensions: p.dimensions.clone(),
        hazmat: p.hazmat.clone(),
        orientation: p.orientation,
        low_stock_threshold: p.low_stock_threshold,
        created_at_ms: now,
        updated_at_ms: now,
        deleted_at_ms: None,
    };
    store.transact(|tx| {
        if tx.contains::<ProductsBySku>(&rec.sku)? {
            return abort(ProductError::SkuTaken);
        }
        tx.insert::<Products>(&rec.id, &rec)?;
        tx.insert::<ProductsBySku>(&rec.sku, &rec.id)?;
        tx.insert::<ProductsLive>(&rec.id, &())?;
        bump_live(tx, 1)?;
        Ok(())
    })?;
    Ok(rec)
}

pub fn get(store: &Store, id: u128) -> storage::Result<Option<ProductRecord>> {
    store.get::<Products>(&id)
}

/// The live product with this SKU.
pub fn by_sku(store: &Store, sku: &str) -> storage::Result<Option<ProductRecord>> {
    match store.get::<ProductsBySku>(&sku.to_string())? {
        Some(id) => store.get::<Products>(&id),
        None => Ok(None),
    }
}

pub fn update(
    store: &Store,
    id: u128,
    patch: &ProductPatch,
) -> Result<ProductRecord, TxError<ProductError>> {
    let now = now_ms();
    store.transact(|tx| {
        let Some(mut rec) = tx
            .get::<Products>(&id)?
            .filter(|r| r.deleted_at_ms.is_none())
        else {
            return abort(ProductError::NotFound);
        };
        if let Some(sku) = patch.sku.as_ref().filter(|s| **s != rec.sku) {
            if tx.contains::<ProductsBySku>(sku)? {
                return abort(ProductError::SkuTaken);
            }
            tx.remove::<ProductsBySku>(&rec.sku)?;
            tx.insert::<ProductsBySku>(sku, &rec.id)?;
            rec.sku = sku.clone();
        }
        apply(&mut rec, patch);
        if rec.unit_cost.is_some() != rec.cost_currency.is_some() {
            return abort(ProductError::CostWithoutCurrency);
        }
        rec.updated_at_ms = now;
        tx.insert::<Products>(&rec.id, &rec)?;
        Ok(rec)
    })
}

fn apply(rec: &mut ProductRecord, p: &ProductPatch) {
    if let Some(v) = &p.name {
        rec.name = v.clone();
    }
    if let Some(v) = &p.description {
        rec.description = v.clone();
    }
    if let Some(v) = &p.price {
        rec.price = v.to_string();
    }
    if let Some(v) = &p.unit_cost {
        rec.unit_cost = v.map(|d| d.to_string());
    }
    if let Some(v) = &p.cost_currency {
        rec.cost_currency = v.clone();
    }
    if let Some(v) = p.weight {
        rec.weight = v;
    }
    if let Some(v) = &p.dimensions {
        rec.dimensions = v.clone();
    }
    if let Some(v) = &p.hazmat {
        rec.hazmat = v.clone();
    }
    if let Some(v) = p.orientation {
        rec.orientation = v;
    }
    if let Some(v) = p.low_stock_threshold {
        rec.low_stock_threshold = v;
    }
}

/// Soft delete: the record stays (orders keep referring to it), the SKU is freed.
pub fn delete(store: &Store, id: u128) -> Result<ProductRecord, TxError<ProductError>> {
    let now = now_ms();
    store.transact(|tx| {
        let Some(mut rec) = tx
            .get::<Products>(&id)?
            .filter(|r| r.deleted_at_ms.is_none())
        else {
            return abort(ProductError::NotFound);
        };
        rec.deleted_at_ms = Some(now);
        rec.updated_at_ms = now;
        tx.insert::<Products>(&rec.id, &rec)?;
        tx.remove::<ProductsBySku>(&rec.sku)?;
        tx.remove::<ProductsLive>(&rec.id)?;
        bump_live(tx, -1)?;
        Ok(rec)
    })
}

/// A page of live products, newest first, and the number of live products.
pub fn list(
    store: &Store,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<ProductRecord>, u64)> {
    let total = store.get::<Meta>(&LIVE_COUNT.to_string())?.unwrap_or(0);
    let mut page = Vec::with_capacity(limit);
    for row in store.iter::<ProductsLive>().rev().skip(offset).take(limit) {
        let (id, ()) = row?;
        if let Some(rec) = store.get::<Products>(&id)? {
            page.push(rec);
        }
    }
    Ok((page, total))
}
