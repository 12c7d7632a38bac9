//! Product rules: SKU unique among live products, soft delete that frees the SKU and
//! keeps the record, the stored live-product index and count, and the in-memory
//! [`ProductIndex`] that every committed write updates and list pages read.

use rust_decimal::Decimal;
use storage::tables::{Products, ProductsBySku, ProductsLive};
use storage::{abort, Abort, Dimensions, Hazmat, Orientation, ProductRecord, Store, Tx, TxError};

use super::counters::{bump, next_version};
use super::product_index::ProductIndex;
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

pub fn create(
    store: &Store,
    index: &ProductIndex,
    p: &NewProduct,
) -> Result<ProductRecord, TxError<ProductError>> {
    let id = uuid::Uuid::now_v7().as_u128();
    // A UUIDv7 starts with its Unix milliseconds: taking createdAt from the id makes id
    // order exactly createdAt-then-id order, the order lists promise.
    let now = (id >> 80) as i64;
    let rec = ProductRecord {
        id,
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
        bump(tx, LIVE_COUNT, 1)?;
        Ok(())
    })?;
    index.upsert(&rec);
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

/// The product `id` unless it is missing or soft-deleted.
fn live(tx: &Tx<'_>, id: u128) -> Result<ProductRecord, Abort<ProductError>> {
    match tx
        .get::<Products>(&id)?
        .filter(|r| r.deleted_at_ms.is_none())
    {
        Some(rec) => Ok(rec),
        None => abort(ProductError::NotFound),
    }
}

pub fn update(
    store: &Store,
    index: &ProductIndex,
    id: u128,
    patch: &ProductPatch,
) -> Result<ProductRecord, TxError<ProductError>> {
    let now = now_ms();
    let rec = store.transact(|tx| {
        let mut rec = live(tx, id)?;
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
        rec.updated_at_ms = next_version(rec.updated_at_ms, now);
        tx.insert::<Products>(&rec.id, &rec)?;
        Ok(rec)
    })?;
    index.upsert(&rec);
    Ok(rec)
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
pub fn delete(
    store: &Store,
    index: &ProductIndex,
    id: u128,
) -> Result<ProductRecord, TxError<ProductError>> {
    let now = now_ms();
    let rec = store.transact(|tx| {
        let mut rec = live(tx, id)?;
        rec.updated_at_ms = next_version(rec.updated_at_ms, now);
        rec.deleted_at_ms = Some(rec.updated_at_ms);
        tx.insert::<Products>(&rec.id, &rec)?;
        tx.remove::<ProductsBySku>(&rec.sku)?;
        tx.remove::<ProductsLive>(&rec.id)?;
        bump(tx, LIVE_COUNT, -1)?;
        Ok(rec)
    })?;
    index.upsert(&rec);
    Ok(rec)
}

/// Loads every product into the index (at start). Reads the records, not just the
/// `ProductsLive` keys, because the index keeps each live product's version.
pub fn load_index(store: &Store, index: &ProductIndex) -> storage::Result<usize> {
    let mut n = 0;
    for row in store.iter::<Products>() {
        let (_, p) = row?;
        index.upsert(&p);
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_write_moves_updated_at_forward_even_within_a_millisecond() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db"), &storage::StoreConfig::default()).unwrap();
        let index = ProductIndex::default();
        let new = NewProduct {
            sku: "A".into(),
            name: "a".into(),
            description: String::new(),
            price: Decimal::ONE,
            unit_cost: None,
            cost_currency: None,
            weight: None,
            dimensions: None,
            hazmat: None,
            orientation: Orientation::Any,
            low_stock_threshold: 0,
        };
        let p = create(&store, &index, &new).unwrap();
        assert_eq!(
            p.created_at_ms,
            (p.id >> 80) as i64,
            "createdAt is the id's"
        );
        let mut last = p.updated_at_ms;
        // Back-to-back updates share milliseconds; each must still be a new version.
        for i in 0..20 {
            let patch = ProductPatch {
                name: Some(format!("a{i}")),
                ..Default::default()
            };
            let p = update(&store, &index, p.id, &patch).unwrap();
            assert!(p.updated_at_ms > last, "update {i}");
            last = p.updated_at_ms;
        }
        let p = delete(&store, &index, p.id).unwrap();
        assert!(p.updated_at_ms > last, "delete");
        assert_eq!(index.page(0, 10).1, 0);
    }
}
