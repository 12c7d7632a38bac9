//! The table registry: every sled tree fulfilld uses, with its key and record type.
//! A table's position in this list is its index in a transaction's tree set.

use serde::{de::DeserializeOwned, Serialize};

use crate::keys::Key;
use crate::records::{
    ClientRecord, IdempotencyRecord, InboundSecretRecord, OutboxEvent, ProductRecord,
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
}
