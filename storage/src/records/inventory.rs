//! Stock levels per (SKU, warehouse) and their audit trail.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct InventoryRecord {
    /// UUIDv7 as a big-endian integer: key order is creation order.
    pub id: u128,
    pub sku: String,
    pub warehouse_id: String,
    pub on_hand: i64,
    pub reserved: i64,
    pub low_stock_threshold: u32,
    /// True while `available >= threshold`: the next drop below fires one
    /// `inventory.low_stock`, then it stays false until stock recovers.
    pub low_stock_armed: bool,
    /// Sequence of the last audit entry (the history key of the next one is this + 1).
    pub audit_seq: u64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// What caused a stock change.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StockChange {
    Created,
    Adjusted,
    Reserved,
    Released,
    Shipped,
}

/// One change of one inventory record, with the levels it left.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    pub seq: u64,
    pub change: StockChange,
    pub on_hand_delta: i64,
    pub reserved_delta: i64,
    pub reason: String,
    pub on_hand: i64,
    pub reserved: i64,
    pub client_id: String,
    /// The order or package behind a reservation, release or shipment.
    pub reference: Option<String>,
    pub at_ms: i64,
}
