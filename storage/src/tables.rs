//! The table registry: every sled tree fulfilld uses, with its key and record type.
//! A table's position in this list is its index in a transaction's tree set.

use serde::{de::DeserializeOwned, Serialize};

use crate::keys::Key;
use crate::records::{
    AuditRecord, ClientRecord, DeliveryRecord, IdempotencyRecord, InboundEventRecord,
    InboundSecretRecord, InventoryRecord, OrderEventRecord, OrderRecord, OutboxEvent,
    PackageRecord, ProductRecord, SessionRecord, UserRecord, WarehouseRecord, WebhookRecord,
};

/// A typed view of one sled tree.
pub trait Table {
    /// The sled tree name; never change it once released (it is the on-disk identity).
    const NAME: &'static str;
    /// Position in [`TABLE_NAMES`], used to find the tree inside a transaction.
    const INDEX: usize;
    type Key: Key;
    type Value: Serialize + DeserializeOwned;
}

macro_rules! tables {
    ($( $(#[$doc:meta])* $ty:ident = $name:literal : $k:ty => $v:ty ;)*) => {
        #[allow(dead_code)]
        #[repr(usize)]
        enum Idx { $($ty),* }

        $(
            $(#[$doc])*
            pub struct $ty;
            impl Table for $ty {
                const NAME: &'static str = $name;
                const INDEX: usize = Idx::$ty as usize;
                type Key = $k;
                type Value = $v;
            }
        )*

        /// Every tree name, in index order.
        pub const TABLE_NAMES: &[&str] = &[$($name),*];
    };
}

tables! {
    /// Store-wide values: the schema version and counters.
    Meta = "meta": String => u64;
    /// API clients by client id.
    Clients = "clients": String => ClientRecord;
    /// SHA-256 of an API key -> client id.
    ApiKeys = "api_keys": Vec<u8> => String;
    /// HMAC secrets of inbound callback sources (`wms`, `carrier:NAME`).
    InboundSecrets = "inbound_secrets": String => InboundSecretRecord;
    /// Stored responses of requests that carried an Idempotency-Key, by (client, key).
    Idempotency = "idempotency": (String, String) => IdempotencyRecord;
    /// Events waiting for delivery, by sequence number (commit order).
    Outbox = "outbox": u64 => OutboxEvent;
    /// Every product ever created (soft-deleted ones included), by id.
    Products = "products": u128 => ProductRecord;
    /// Live products only, by id with an empty value: lists and counts walk keys
    /// without decoding records.
    ProductsLive = "products_live": u128 => ();
    /// SKU of a live product -> its id. Uniqueness among live products lives here.
    ProductsBySku = "products_by_sku": String => u128;
    /// Warehouses by their short code.
    Warehouses = "warehouses": String => WarehouseRecord;
    /// Creation key -> warehouse id, for newest-first lists.
    WarehousesByCreation = "warehouses_by_creation": u128 => String;
    /// Inventory records by id.
    Inventory = "inventory": u128 => InventoryRecord;
    /// (sku, warehouse id) -> inventory id: one record per pair.
    InventoryByPair = "inventory_by_pair": (String, String) => u128;
    /// (sku, inventory id) index for the `sku` filter.
    InventoryBySku = "inventory_by_sku": (String, u128) => ();
    /// (warehouse id, inventory id) index for the `warehouseId` filter.
    InventoryByWarehouse = "inventory_by_warehouse": (String, u128) => ();
    /// (inventory id, seq) -> one stock change, oldest first.
    InventoryAudit = "inventory_audit": (u128, u64) => AuditRecord;
    /// Orders by id (UUIDv7: creation order).
    Orders = "orders": u128 => OrderRecord;
    /// externalId -> order id: the uniqueness of externalId lives here.
    OrdersByExternalId = "orders_by_external_id": String => u128;
    /// Outbound webhook subscriptions by id (UUIDv7).
    Webhooks = "webhooks": u128 => WebhookRecord;
    /// Webhook deliveries (one per event and subscription) by id (UUIDv7).
    Deliveries = "webhook_deliveries": u128 => DeliveryRecord;
    /// (subscription id, delivery id): one subscription's deliveries, oldest first.
    DeliveriesByWebhook = "webhook_deliveries_by_webhook": (u128, u128) => ();
    /// (subscription id, due unix ms, delivery id): pending attempts, per subscription in
    /// due order, so the scheduler reads only the queues of subscriptions with a free
    /// permit and a hanging endpoint's backlog is never scanned past.
    DeliveryQueue = "webhook_queue_by_subscription": (u128, u64, u128) => ();
    /// Orders waiting to be packed (written with the order, removed by the transaction that
    /// packs it or gives up): the packer's durable to-do list, read again at start.
    PackingJobs = "packing_jobs": u128 => ();
    /// Packages by id (UUIDv7).
    Packages = "packages": u128 => PackageRecord;
    /// Order id -> its package ids, in packing order (a point lookup inside transactions).
    OrderPackages = "order_packages": u128 => Vec<u128>;
    /// (status, package id) index for the `status` filter.
    PackagesByStatus = "packages_by_status": (String, u128) => ();
    /// Tracking number -> package id, for carrier callbacks.
    PackagesByTracking = "packages_by_tracking": String => u128;
    /// (package id, arrival id) -> one inbound callback event, oldest first.
    PackageEvents = "package_events": (u128, u128) => InboundEventRecord;
    /// (source, eventId) -> (package id, arrival id): a repeated eventId changes nothing.
    InboundEventIds = "inbound_event_ids": (String, String) => (u128, u128);
    /// Subscription id -> the next outbox sequence number to fan out to it. Written with
    /// the subscription, removed with it.
    WebhookCursors = "webhook_cursors": u128 => u64;
    /// Console users by name (a tree added without a schema bump: empty on older databases).
    Users = "users": String => UserRecord;
    /// Console sessions by the SHA-256 of their id; a user's are found by scanning
    /// (few sessions, and only `users delete` and `set-password` need them).
    Sessions = "sessions": Vec<u8> => SessionRecord;
    /// The seal of the in-memory index snapshot: written at a clean shutdown and removed
    /// in the batch of the first write after it (see `seal.rs`).
    IndexSeal = "index_seal": String => u128;
    /// (order id, UUIDv7 of the change) -> one change of the order, oldest first (a tree
    /// added without a schema bump: empty on older databases, whose orders have no history).
    OrderEvents = "order_events": (u128, u128) => OrderEventRecord;
}
