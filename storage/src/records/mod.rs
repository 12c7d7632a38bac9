//! Plain record types as stored. They carry no behaviour and no JSON shapes; the server
//! maps them to and from its domain and API types.

mod accounts;
mod clients;
mod idempotency;
mod inventory;
mod order_summary;
mod orders;
mod outbox;
mod packages;
mod products;
mod warehouses;
mod webhooks;

pub use accounts::{Role, SessionRecord, UserRecord};
pub use clients::{ClientRecord, InboundSecretRecord, Tier};
pub use idempotency::IdempotencyRecord;
pub use inventory::{AuditRecord, InventoryRecord, StockChange};
pub(crate) use order_summary::decode as decode_order_summary;
pub use order_summary::OrderSummary;
pub use orders::{Allocation, OrderEventRecord, OrderLine, OrderRecord, OrderStatus};
pub use outbox::{NewEvent, OutboxEvent};
pub use packages::{
    InboundEventRecord, InboundOutcome, PackageItemRecord, PackageRecord, PackageStatus,
    PlacementRecord,
};
pub use products::{Dimensions, Hazmat, Orientation, ProductRecord};
pub use warehouses::{AddressRecord, BoxRecord, WarehouseRecord};
pub use webhooks::{
    wanted_kind_key, Attempt, DeliveryRecord, DeliveryStatus, PreviousSecret, SignatureScheme,
    WebhookRecord,
};
