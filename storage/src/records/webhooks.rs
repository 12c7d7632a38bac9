//! Outbound webhook subscriptions and their deliveries as stored. A delivery carries the
//! exact envelope bytes it sends, so every attempt (and a manual retry) is identical.

use serde::{Deserialize, Serialize};

/// The `Meta` key counting the active subscriptions that list `kind`. An event is stored
/// (and so can be delivered) only while its count is above zero; subscriptions keep it
/// in the transactions that create, change and delete them.
pub fn wanted_kind_key(kind: &str) -> String {
    format!("webhooks_wanting:{kind}")
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// UUIDv7 as a big-endian integer: key order is creation order.
    pub id: u128,
    pub url: String,
    /// Event kinds this subscription receives.
    pub events: Vec<String>,
    /// Shared HMAC secret; never returned by the API.
    pub secret: String,
    pub is_active: bool,
    /// The database-wide id drawn when the subscription was created: only outbox events
    /// with a higher sequence number are delivered to it.
    pub created_seq: u64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// How deliveries are signed (schema 6).
    pub scheme: SignatureScheme,
    /// The secret replaced by the last rotation, still signed with until it expires.
    pub previous_secret: Option<PreviousSecret>,
    /// Why fulfilld turned the subscription off (410 Gone, failing too long); `None`
    /// while active or when a client turned it off.
    pub disabled_reason: Option<String>,
    pub disabled_at_ms: Option<i64>,
    /// One delivery in flight at a time, in commit order.
    pub ordered: bool,
    /// When the first failed attempt since the last successful one was made; `None`
    /// after a success (or before any attempt). Drives the disable-after rule.
    pub failing_since_ms: Option<i64>,
}

/// The signature headers a subscription's deliveries carry.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignatureScheme {
    /// `X-Webhook-Signature` / `X-Webhook-Timestamp` / `X-Webhook-Id` (the spec's).
    #[default]
    Fulfilld,
    /// `webhook-id` / `webhook-timestamp` / `webhook-signature` (Standard Webhooks).
    StandardWebhooks,
}

/// A rotated-out secret and the end of its grace period.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct PreviousSecret {
    pub secret: String,
    pub expires_at_ms: i64,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

/// One POST to the subscriber.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub at_ms: i64,
    /// The response status, when one arrived.
    pub status_code: Option<u16>,
    pub latency_ms: u64,
    /// Why the attempt failed (non-2xx, timeout, connection error); `None` on success.
    pub error: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// UUIDv7: creation order.
    pub id: u128,
    pub webhook_id: u128,
    /// Outbox sequence number of the event (0 for a test event).
    pub event_seq: u64,
    /// Envelope id, `evt_...`.
    pub event_id: String,
    pub event_kind: String,
    /// The envelope as sent, byte for byte.
    pub body: String,
    pub status: DeliveryStatus,
    pub attempts: Vec<Attempt>,
    /// Attempts made before the current round (a manual retry or a recover starts a
    /// new round of the retry schedule).
    pub round_start: u32,
    /// When the next attempt is due (unix ms); `None` once delivered or failed.
    pub next_attempt_ms: Option<i64>,
    /// Why a delivery ended failed without a last attempt saying so (e.g. the
    /// subscription was deactivated).
    pub reason: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}
