//! Warehouses with their box catalogs, and the postal address shape shared with orders.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct AddressRecord {
    pub name: Option<String>,
    pub line1: String,
    pub line2: Option<String>,
    pub city: String,
    pub region: Option<String>,
    pub postal_code: String,
    pub country: String,
}

/// One box type a warehouse packs into. Dimensions and weights are in the appliance's
/// units; `quantity: None` means unlimited.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct BoxRecord {
    pub box_id: String,
    pub width: f64,
    pub height: f64,
    pub length: f64,
    pub max_weight: f64,
    pub quantity: Option<u32>,
    /// Exact decimal as text.
    pub cost: Option<String>,
    pub tare_weight: Option<f64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct WarehouseRecord {
    /// Short code chosen by the caller (or generated).
    pub id: String,
    /// UUIDv7 of creation, the key of the newest-first listing index.
    pub created_key: u128,
    pub name: String,
    pub address: Option<AddressRecord>,
    pub boxes: Vec<BoxRecord>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}
