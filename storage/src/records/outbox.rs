//! Outbox events: written in the same transaction as the change that caused them and
//! read later by the webhook delivery engine.

use serde::{Deserialize, Serialize};

/// An event as a caller emits it inside a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// Public event id, `evt_...`.
    pub id: String,
    /// Event kind, e.g. `inventory.adjusted`.
    pub kind: String,
    /// RFC 3339 UTC time of the change.
    pub timestamp: String,
    /// The event's `data` object, already serialized to JSON by the caller (bincode
    /// cannot store `serde_json::Value`, and storage knows no JSON shapes).
    pub data_json: String,
}

/// An event as stored, with its commit-order sequence number.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    pub seq: u64,
    pub id: String,
    pub kind: String,
    pub timestamp: String,
    pub data_json: String,
}
