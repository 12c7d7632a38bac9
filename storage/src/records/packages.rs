//! Packages as stored: the boxes an order was packed into, with every unit's placement,
//! the shipping details, and the inbound callback events received about them.

use serde::{Deserialize, Serialize};

/// Where a package is. The order of the first seven is the order of progress; callbacks
/// never move a package back along it.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackageStatus {
    Created,
    Picking,
    Packed,
    Shipped,
    InTransit,
    OutForDelivery,
    Delivered,
    /// A carrier or WMS reported a problem; progress may resume after it.
    Exception,
    /// Sent back after shipping; final.
    Returned,
    /// The order was cancelled before the package shipped; final.
    Voided,
}

impl PackageStatus {
    pub const ALL: [PackageStatus; 10] = [
        PackageStatus::Created,
        PackageStatus::Picking,
        PackageStatus::Packed,
        PackageStatus::Shipped,
        PackageStatus::InTransit,
        PackageStatus::OutForDelivery,
        PackageStatus::Delivered,
        PackageStatus::Exception,
        PackageStatus::Returned,
        PackageStatus::Voided,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PackageStatus::Created => "created",
            PackageStatus::Picking => "picking",
            PackageStatus::Packed => "packed",
            PackageStatus::Shipped => "shipped",
            PackageStatus::InTransit => "in_transit",
            PackageStatus::OutForDelivery => "out_for_delivery",
            PackageStatus::Delivered => "delivered",
            PackageStatus::Exception => "exception",
            PackageStatus::Returned => "returned",
            PackageStatus::Voided => "voided",
        }
    }

    pub fn parse(s: &str) -> Option<PackageStatus> {
        PackageStatus::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// One unit's place in its box (lowest corner and extents as placed; `y` is vertical).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PlacementRecord {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub width: f64,
    pub height: f64,
    pub length: f64,
    pub rotated: bool,
}

/// The units of one SKU in a package, drawn from one inventory record.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PackageItemRecord {
    pub sku: String,
    pub inventory_id: u128,
    pub quantity: u32,
    pub placements: Vec<PlacementRecord>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PackageRecord {
    /// UUIDv7 as a big-endian integer: key order is creation order.
    pub id: u128,
    pub order_id: u128,
    pub warehouse_id: String,
    pub box_id: String,
    /// Inner width, height and length of the box.
    pub box_dimensions: [f64; 3],
    pub status: PackageStatus,
    /// The furthest status along the progress order the package has reached (an
    /// `exception` does not move it), so late callbacks can be told apart.
    pub progress: PackageStatus,
    pub items: Vec<PackageItemRecord>,
    /// Units plus the box's tare weight, in the configured units.
    pub weight: f64,
    pub volume_utilization: f64,
    pub carrier: Option<String>,
    pub tracking_number: Option<String>,
    pub service: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub shipped_at_ms: Option<i64>,
    pub delivered_at_ms: Option<i64>,
}

/// What became of an inbound callback event.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboundOutcome {
    /// The package moved to the reported status.
    Applied,
    /// Recorded, not applied: the package is already at or past the reported status (a
    /// late event), or the status makes no sense for it now (see `note`).
    Ignored,
}

/// One inbound callback event (WMS or carrier), kept for audit.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct InboundEventRecord {
    /// UUIDv7 of its arrival.
    pub id: u128,
    /// `wms` or `carrier:NAME`.
    pub source: String,
    pub event_id: String,
    pub package_id: u128,
    pub status: PackageStatus,
    pub occurred_at: String,
    pub location: Option<String>,
    pub outcome: InboundOutcome,
    /// Why an event was ignored; empty when applied.
    pub note: String,
    pub received_at_ms: i64,
    /// The request body as received.
    pub body: String,
}
