//! Orders as stored: lines with their warehouse allocations (the reservations), the
//! addresses, exact decimal amounts as text, and the hash of the create request that
//! makes `externalId` idempotent.

use serde::{Deserialize, Serialize};

use super::warehouses::AddressRecord;

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    Pending,
    Processing,
    Shipped,
    Delivered,
    Cancelled,
}

impl OrderStatus {
    pub const ALL: [OrderStatus; 5] = [
        OrderStatus::Pending,
        OrderStatus::Processing,
        OrderStatus::Shipped,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::Pending => "pending",
            OrderStatus::Processing => "processing",
            OrderStatus::Shipped => "shipped",
            OrderStatus::Delivered => "delivered",
            OrderStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<OrderStatus> {
        OrderStatus::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// Units of one line reserved in one warehouse.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    pub warehouse_id: String,
    pub inventory_id: u128,
    pub quantity: u32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct OrderLine {
    pub sku: String,
    pub product_id: u128,
    pub name: String,
    pub quantity: u32,
    pub unit_price: String,
    pub unit_cost: Option<String>,
    pub cost_currency: Option<String>,
    pub allocations: Vec<Allocation>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct OrderRecord {
    /// UUIDv7 as a big-endian integer: key order is creation order.
    pub id: u128,
    pub external_id: String,
    pub customer_id: Option<String>,
    pub customer_email: String,
    pub status: OrderStatus,
    pub lines: Vec<OrderLine>,
    pub shipping_addresses: Vec<AddressRecord>,
    pub billing_address: Option<AddressRecord>,
    pub total: String,
    pub item_count: u32,
    /// SHA-256 of the canonical create request: the same request under the same
    /// externalId returns this order, another one is a conflict.
    pub request_sha256: Vec<u8>,
    pub cancel_reason: Option<String>,
    /// Why the order is still pending (e.g. it could not be packed), for operators.
    pub pending_reason: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// One change in an order's life (created, edited, moved, packed or not, a package shipped
/// or delivered, cancelled), written in the transaction of the change.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct OrderEventRecord {
    pub at_ms: i64,
    /// What happened, e.g. `order.created`, `order.packed`, `package.shipped`.
    pub kind: String,
    /// The order's status after the change.
    pub status: OrderStatus,
    /// Details for people: the fields edited, the reason, the package and carrier.
    pub note: Option<String>,
    /// The API client or console user whose request made the change; `None` for the
    /// appliance's own work (background packing, inbound callbacks).
    pub actor: Option<String>,
}
