//! The OpenAPI schemas of the webhook resources: subscriptions (signature schemes,
//! rotation, disabling, ordering), deliveries, attempts and the event envelope.

use serde_json::{json, Value};

use super::shapes::SCHEMES;
use crate::domain::events::KINDS;

pub fn schemas() -> Vec<(&'static str, Value)> {
    let ts = json!({"type": "string", "format": "date-time"});
    let kinds = json!({"enum": KINDS});
    let scheme = json!({"enum": SCHEMES, "default": "fulfilld",
        "description": "fulfilld: X-Webhook-Signature (hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<body>` keyed with the secret's bytes), X-Webhook-Timestamp, X-Webhook-Id. standard-webhooks: webhook-id, webhook-timestamp and webhook-signature (`v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>` keyed with the base64-decoded part of a `whsec_` secret) as in the Standard Webhooks specification, verifiable with its libraries"});
    let ordered = json!({"type": "boolean", "default": false,
        "description": "true: one delivery at a time, in commit order; a failing one holds the ones behind it until it is delivered or has failed for good"});
    let nullable_ts = json!({"type": ["string", "null"], "format": "date-time"});
    vec![
        (
            "Webhook",
            json!({"type": "object", "required": ["id", "url", "events", "isActive", "signatureScheme", "ordered", "disabledReason", "disabledAt", "failingSince", "previousSecretExpiresAt", "createdAt", "updatedAt"],
            "description": "A subscription. The secret is write-only: it is never returned (a rotation shows its new secret once).",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "url": {"type": "string", "format": "uri", "examples": ["https://wms.local/hooks/fulfilld"]},
                "events": {"type": "array", "items": kinds},
                "isActive": {"type": "boolean"},
                "signatureScheme": scheme,
                "ordered": ordered,
                "disabledReason": {"type": ["string", "null"], "description": "Why fulfilld turned the subscription off: the endpoint answered 410 Gone, or every attempt failed for webhook_disable_after (default 5 days). null while active or when a client set isActive; PATCH isActive: true turns it on again"},
                "disabledAt": nullable_ts,
                "failingSince": {"type": ["string", "null"], "format": "date-time", "description": "The first failed attempt since the last successful one; null after a success"},
                "previousSecretExpiresAt": {"type": ["string", "null"], "format": "date-time", "description": "While a rotation's grace period runs: when the previous secret stops signing"},
                "createdAt": ts, "updatedAt": ts}}),
        ),
        (
            "WebhookCreate",
            json!({"type": "object", "required": ["url", "events", "secret"], "properties": {
                "url": {"type": "string", "format": "uri", "pattern": "^https://", "maxLength": 2048, "description": "Must be https:// (422 otherwise); redirects are not followed"},
                "events": {"type": "array", "minItems": 1, "items": kinds},
                "secret": {"type": "string", "minLength": 16, "maxLength": 512, "writeOnly": true, "description": "The HMAC key. standard-webhooks: whsec_<base64 of 24 to 64 bytes> (422 otherwise)"},
                "isActive": {"type": "boolean", "default": true},
                "signatureScheme": scheme,
                "ordered": ordered},
            "examples": [{"url": "https://wms.local/hooks/fulfilld", "events": ["order.created", "inventory.adjusted"], "secret": "a-long-shared-secret-value", "isActive": true},
                {"url": "https://wms.local/hooks/std", "events": ["order.created"], "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "signatureScheme": "standard-webhooks", "ordered": true}]}),
        ),
        (
            "WebhookUpdate",
            json!({"type": "object", "description": "Any subset of the fields; absent fields are unchanged.", "properties": {
                "url": {"type": "string", "format": "uri", "pattern": "^https://", "maxLength": 2048},
                "events": {"type": "array", "minItems": 1, "items": kinds},
                "secret": {"type": "string", "minLength": 16, "maxLength": 512, "writeOnly": true, "description": "Replaces the secret at once (a rotation's grace period ends); rotate-secret keeps the old one signing for a while"},
                "isActive": {"type": "boolean", "description": "false: new events are not queued for it and its queued deliveries end failed (reason given); recover re-queues them. Either value clears disabledReason"},
                "signatureScheme": {"enum": SCHEMES, "description": "A new scheme ends a rotation's grace period; standard-webhooks needs a whsec_ secret (422 otherwise)"},
                "ordered": {"type": "boolean"}}}),
        ),
        (
            "WebhookList",
            json!({"type": "object", "required": ["webhooks", "pagination"], "properties": {
                "webhooks": {"type": "array", "items": {"$ref": "#/components/schemas/Webhook"}},
                "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
        (
            "WebhookAttempt",
            json!({"type": "object", "required": ["at", "statusCode", "latencyMs", "error"], "properties": {
                "at": ts,
                "statusCode": {"type": ["integer", "null"], "description": "null when no response arrived"},
                "latencyMs": {"type": "integer"},
                "error": {"type": ["string", "null"], "description": "non-2xx status, timeout or connection error; null on success"}}}),
        ),
        (
            "WebhookDelivery",
            json!({"type": "object", "required": ["id", "webhookId", "eventId", "eventType", "status", "attempts", "nextAttemptAt", "createdAt", "updatedAt"],
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "webhookId": {"type": "string", "format": "uuid"},
                "eventId": {"type": "string", "examples": ["evt_0193a0c4e2d87b41a2f1c0d9e8b7a6f5"], "description": "The envelope id (X-Webhook-Id): the same on every attempt"},
                "eventType": kinds,
                "test": {"type": "boolean", "description": "A sample event from POST /api/webhooks/{id}/test"},
                "status": {"enum": ["pending", "delivered", "failed"]},
                "attempts": {"type": "array", "items": {"$ref": "#/components/schemas/WebhookAttempt"}},
                "nextAttemptAt": {"type": ["string", "null"], "format": "date-time"},
                "failureReason": {"type": ["string", "null"], "description": "Set when the delivery ended failed without an attempt (subscription inactive)"},
                "createdAt": ts, "updatedAt": ts}}),
        ),
        (
            "WebhookDeliveryList",
            json!({"type": "object", "required": ["deliveries", "pagination"], "properties": {
                "deliveries": {"type": "array", "items": {"$ref": "#/components/schemas/WebhookDelivery"}},
                "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
        (
            "WebhookRecover",
            json!({"type": "object", "required": ["since"], "properties": {
                "since": {"type": "string", "description": "A date (2026-11-01, midnight UTC) or an RFC 3339 time: failed deliveries created at or after it are re-queued"}},
            "examples": [{"since": "2026-11-21T18:00:00Z"}]}),
        ),
        (
            "WebhookRecoverResult",
            json!({"type": "object", "required": ["requeued"], "properties": {"requeued": {"type": "integer"}}}),
        ),
        (
            "WebhookRotateSecret",
            json!({"type": "object", "description": "Optional body of POST /api/webhooks/{id}/rotate-secret.", "properties": {
                "gracePeriodSeconds": {"type": "integer", "minimum": 0, "maximum": 604800, "default": 86400, "description": "How long the previous secret keeps signing beside the new one (0: not at all)"}},
            "examples": [{"gracePeriodSeconds": 3600}]}),
        ),
        (
            "WebhookSecretRotation",
            json!({"type": "object", "required": ["secret", "webhook"], "properties": {
                "secret": {"type": "string", "description": "The new secret, whsec_<base64 of 32 random bytes>; shown only here. In the fulfilld scheme the HMAC key is this whole string, in standard-webhooks the decoded base64"},
                "webhook": {"$ref": "#/components/schemas/Webhook"}}}),
        ),
        (
            "WebhookEvent",
            json!({"type": "object", "required": ["id", "type", "timestamp", "data"],
            "description": "The body of every delivery (POST, Content-Type: application/json). Headers: X-Webhook-Signature (lowercase hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<raw body>` with the subscription secret), X-Webhook-Timestamp (unix seconds of the attempt), X-Webhook-Id (= id).",
            "properties": {
                "id": {"type": "string", "description": "evt_<id>; the same on every attempt: de-duplicate on it"},
                "type": kinds,
                "timestamp": {"type": "string", "format": "date-time", "description": "When the change happened (UTC)"},
                "data": {"type": "object", "description": "The resource as the API returns it; order.shipped: {orderId, status, trackingNumbers}"}},
            "examples": [{"id": "evt_0193a0c4e2d87b41a2f1c0d9e8b7a6f5", "type": "inventory.adjusted", "timestamp": "2026-11-21T23:50:00.123Z",
                "data": {"id": "0193a0c4-e2d8-7b41-a2f1-c0d9e8b7a6f5", "sku": "MUG-01", "warehouseId": "RNO", "onHand": 117, "reserved": 0, "available": 117}}]}),
        ),
    ]
}
