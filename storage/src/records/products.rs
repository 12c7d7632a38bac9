//! Catalog products as stored. Money is kept as decimal strings (exact, parsed by the
//! server with rust_decimal); physical measurements are plain floats.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    Any,
    Upright,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Dimensions {
    pub width: f64,
    pub height: f64,
    pub length: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Hazmat {
    pub class: String,
    pub un_number: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ProductRecord {
    /// UUIDv7 as a big-endian integer: key order is creation order.
    pub id: u128,
    pub sku: String,
    pub name: String,
    pub description: String,
    pub price: String,
    pub unit_cost: Option<String>,
    pub cost_currency: Option<String>,
    pub weight: Option<f64>,
    pub dimensions: Option<Dimensions>,
    pub hazmat: Option<Hazmat>,
    pub orientation: Orientation,
    pub low_stock_threshold: u32,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// Set by the soft delete; the record stays for history.
    pub deleted_at_ms: Option<i64>,
}
