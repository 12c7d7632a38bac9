//! Outbox events: the kinds the appliance emits, their envelope fields, and the `Shapes`
//! trait through which domain code renders a payload in the API's JSON shape without
//! knowing it (the HTTP layer implements it).

use storage::tables::Meta;
use storage::{wanted_kind_key, InventoryRecord, NewEvent, OrderRecord, PackageRecord, Tx, TxFail};

use super::time_fmt::rfc3339;

pub const ORDER_CREATED: &str = "order.created";
pub const ORDER_UPDATED: &str = "order.updated";
pub const ORDER_CANCELLED: &str = "order.cancelled";
pub const ORDER_SHIPPED: &str = "order.shipped";
pub const PACKAGE_CREATED: &str = "package.created";
pub const PACKAGE_SHIPPED: &str = "package.shipped";
pub const PACKAGE_DELIVERED: &str = "package.delivered";
pub const INVENTORY_ADJUSTED: &str = "inventory.adjusted";
pub const INVENTORY_LOW_STOCK: &str = "inventory.low_stock";

/// Every event kind, as subscriptions name them.
pub const KINDS: [&str; 9] = [
    ORDER_CREATED,
    ORDER_UPDATED,
    ORDER_CANCELLED,
    ORDER_SHIPPED,
    PACKAGE_CREATED,
    PACKAGE_SHIPPED,
    PACKAGE_DELIVERED,
    INVENTORY_ADJUSTED,
    INVENTORY_LOW_STOCK,
];

/// Renders resources as the API returns them, for event `data`.
pub trait Shapes: Send + Sync {
    fn inventory(&self, record: &InventoryRecord) -> String;
    fn order(&self, record: &OrderRecord) -> String;
    fn package(&self, record: &PackageRecord) -> String;
    /// `order.shipped` data: `{orderId, status, trackingNumbers}`, as the document shows.
    fn order_shipped(&self, record: &OrderRecord, tracking_numbers: &[String]) -> String;
}

/// A new event with a fresh `evt_` id. Called inside transaction closures: a re-run
/// simply draws a new id.
pub fn new_event(kind: &str, data_json: String, now_ms: i64) -> NewEvent {
    NewEvent {
        id: format!("evt_{}", uuid::Uuid::now_v7().simple()),
        kind: kind.to_string(),
        timestamp: rfc3339(now_ms),
        data_json,
    }
}

/// Stores an event of `kind` in the transaction's outbox if an active subscription lists
/// that kind, rendering `data` only then: an event nobody is subscribed to would never be
/// delivered (a subscription only receives events committed after it), and at a million
/// orders such events were most of the database. Closures run one at a time, so the count
/// read here includes every subscription committed before this change.
pub fn emit(
    tx: &Tx<'_>,
    kind: &str,
    now_ms: i64,
    data: impl FnOnce() -> String,
) -> Result<(), TxFail> {
    if tx.get::<Meta>(&wanted_kind_key(kind))?.unwrap_or(0) == 0 {
        return Ok(());
    }
    tx.emit(new_event(kind, data(), now_ms))?;
    Ok(())
}
