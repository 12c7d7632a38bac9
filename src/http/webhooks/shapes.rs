//! The JSON shapes of a subscription and a delivery as the API returns them.

use serde_json::{json, Value};
use storage::{Attempt, DeliveryRecord, DeliveryStatus, SignatureScheme, WebhookRecord};

use crate::domain::time_fmt::{now_ms, rfc3339};

pub const SCHEMES: [&str; 2] = ["fulfilld", "standard-webhooks"];

pub fn scheme_str(s: SignatureScheme) -> &'static str {
    match s {
        SignatureScheme::Fulfilld => SCHEMES[0],
        SignatureScheme::StandardWebhooks => SCHEMES[1],
    }
}

pub fn parse_scheme(s: &str) -> Option<SignatureScheme> {
    match s {
        "fulfilld" => Some(SignatureScheme::Fulfilld),
        "standard-webhooks" => Some(SignatureScheme::StandardWebhooks),
        _ => None,
    }
}

pub fn to_json(r: &WebhookRecord) -> Value {
    let grace = r
        .previous_secret
        .as_ref()
        .filter(|p| p.expires_at_ms > now_ms());
    json!({
        "id": uuid::Uuid::from_u128(r.id).to_string(),
        "url": r.url,
        "events": r.events,
        "isActive": r.is_active,
        "signatureScheme": scheme_str(r.scheme),
        "ordered": r.ordered,
        "disabledReason": r.disabled_reason,
        "disabledAt": r.disabled_at_ms.map(rfc3339),
        "failingSince": r.failing_since_ms.map(rfc3339),
        "previousSecretExpiresAt": grace.map(|p| rfc3339(p.expires_at_ms)),
        "createdAt": rfc3339(r.created_at_ms),
        "updatedAt": rfc3339(r.updated_at_ms),
    })
}

fn status_str(s: DeliveryStatus) -> &'static str {
    match s {
        DeliveryStatus::Pending => "pending",
        DeliveryStatus::Delivered => "delivered",
        DeliveryStatus::Failed => "failed",
    }
}

fn attempt_json(a: &Attempt) -> Value {
    json!({
        "at": rfc3339(a.at_ms),
        "statusCode": a.status_code,
        "latencyMs": a.latency_ms,
        "error": a.error,
    })
}

pub fn delivery_json(d: &DeliveryRecord) -> Value {
    json!({
        "id": uuid::Uuid::from_u128(d.id).to_string(),
        "webhookId": uuid::Uuid::from_u128(d.webhook_id).to_string(),
        "eventId": d.event_id,
        "eventType": d.event_kind,
        "test": d.event_seq == 0,
        "status": status_str(d.status),
        "attempts": d.attempts.iter().map(attempt_json).collect::<Vec<_>>(),
        "nextAttemptAt": d.next_attempt_ms.map(rfc3339),
        "failureReason": d.reason,
        "createdAt": rfc3339(d.created_at_ms),
        "updatedAt": rfc3339(d.updated_at_ms),
    })
}
