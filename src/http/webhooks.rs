//! `/api/webhooks`: outbound webhook subscriptions (the secret is write-only), their
//! deliveries with every attempt, a test event, a manual retry and a recover call.

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{Attempt, DeliveryRecord, DeliveryStatus, WebhookRecord};

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::fields::not_null;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::events::KINDS;
use crate::domain::time_fmt::{now_ms, rfc3339};
use crate::webhooks::store::{self, NewWebhook, WebhookError, WebhookPatch};

const MIN_SECRET: usize = 16;
const MAX_SECRET: usize = 512;
const MAX_URL: usize = 2048;

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::NotFound => ApiError::not_found("No such webhook subscription."),
            WebhookError::DeliveryNotFound => {
                ApiError::not_found("No such delivery for this subscription.")
            }
            WebhookError::NotFailed => ApiError::conflict(
                "conflict",
                "Only a failed delivery can be retried; this one is pending or delivered.",
            ),
        }
    }
}

pub fn to_json(r: &WebhookRecord) -> Value {
    json!({
        "id": uuid::Uuid::from_u128(r.id).to_string(),
        "url": r.url,
        "events": r.events,
        "isActive": r.is_active,
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

fn parse_id(raw: &str, e: WebhookError) -> Result<u128, ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|u| u.as_u128())
        .map_err(|_| e.into())
}

fn validate_url(url: String) -> Result<String, ApiError> {
    let bad = |m: &str| ApiError::validation("url", m);
    if url.len() > MAX_URL {
        return Err(bad("url must be at most 2048 characters."));
    }
    let parsed = reqwest::Url::parse(&url).map_err(|_| bad("url must be an absolute URL."))?;
    if parsed.scheme() != "https" {
        return Err(bad("url must use https://."));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad("url must name a host."));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad("url must not carry credentials; use the secret."));
    }
    if parsed.fragment().is_some() {
        return Err(bad("url must not have a fragment."));
    }
    Ok(url)
}

fn validate_events(events: Vec<String>) -> Result<Vec<String>, ApiError> {
    if events.is_empty() {
        return Err(ApiError::validation(
            "events",
            "events must list at least one event kind.",
        ));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, e) in events.into_iter().enumerate() {
        if !KINDS.contains(&e.as_str()) {
            return Err(ApiError::validation(
                format!("events[{i}]"),
                format!("Unknown event kind {e:?}; known: {}.", KINDS.join(", ")),
            ));
        }
        if !out.contains(&e) {
            out.push(e);
        }
    }
    Ok(out)
}

fn validate_secret(secret: String) -> Result<String, ApiError> {
    let n = secret.chars().count();
    if !(MIN_SECRET..=MAX_SECRET).contains(&n) {
        return Err(ApiError::validation(
            "secret",
            "secret must be 16 to 512 characters.",
        ));
    }
    Ok(secret)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Input {
    #[serde(default)]
    url: Field<String>,
    #[serde(default)]
    events: Field<Vec<String>>,
    #[serde(default)]
    secret: Field<String>,
    #[serde(default)]
    is_active: Field<bool>,
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let page = Query::parse(ctx.query.as_deref()).page()?;
    let (rows, total) = store::list(&ctx.app.store, page.limit, page.offset)?;
    let items = rows.iter().map(to_json).collect();
    Ok(json(StatusCode::OK, &page.list("webhooks", items, total)))
}

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: Input = body::json(&ctx.body)?;
    let url = validate_url(i.url.required("url")?)?;
    let events = validate_events(i.events.required("events")?)?;
    let secret = validate_secret(i.secret.required("secret")?)?;
    let is_active = match i.is_active {
        Field::Absent => true,
        Field::Null => {
            return Err(ApiError::validation(
                "isActive",
                "isActive must be true or false.",
            ))
        }
        Field::Value(v) => v,
    };
    let new = NewWebhook {
        url,
        events,
        secret,
        is_active,
    };
    let rec = store::create(&ctx.app.store, new, now_ms())?;
    ctx.wrote();
    Ok(json(StatusCode::CREATED, &to_json(&rec)))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    match store::get(&ctx.app.store, id)? {
        Some(r) => Ok(json(StatusCode::OK, &to_json(&r))),
        None => Err(WebhookError::NotFound.into()),
    }
}

pub fn update(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let i: Input = body::json(&ctx.body)?;
    let patch = WebhookPatch {
        url: not_null("url", i.url)?.map(validate_url).transpose()?,
        events: not_null("events", i.events)?
            .map(validate_events)
            .transpose()?,
        secret: not_null("secret", i.secret)?
            .map(validate_secret)
            .transpose()?,
        is_active: not_null("isActive", i.is_active)?,
    };
    let rec = store::update(&ctx.app.store, id, patch, now_ms())?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &to_json(&rec)))
}

pub fn delete(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let rec = store::delete(&ctx.app.store, id)?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    Ok(json(StatusCode::OK, &to_json(&rec)))
}

pub fn test(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let d = store::create_test_delivery(&ctx.app.store, id, now_ms())?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    Ok(json(StatusCode::ACCEPTED, &delivery_json(&d)))
}

pub fn deliveries(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let q = Query::parse(ctx.query.as_deref());
    let page = q.page()?;
    let status = match q.get("status") {
        None => None,
        Some("pending") => Some(DeliveryStatus::Pending),
        Some("delivered") => Some(DeliveryStatus::Delivered),
        Some("failed") => Some(DeliveryStatus::Failed),
        Some(_) => {
            return Err(
                ApiError::bad_request("status must be pending, delivered or failed.").on("status"),
            )
        }
    };
    if store::get(&ctx.app.store, id)?.is_none() {
        return Err(WebhookError::NotFound.into());
    }
    let (rows, total) =
        store::list_deliveries(&ctx.app.store, id, status, page.limit, page.offset)?;
    let items = rows.iter().map(delivery_json).collect();
    Ok(json(StatusCode::OK, &page.list("deliveries", items, total)))
}

pub fn retry(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let delivery = parse_id(ctx.param("deliveryId"), WebhookError::DeliveryNotFound)?;
    let d = store::retry(&ctx.app.store, id, delivery, now_ms())?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    Ok(json(StatusCode::OK, &delivery_json(&d)))
}

#[derive(Deserialize)]
struct RecoverInput {
    #[serde(default)]
    since: Field<String>,
}

/// `since`: a date (`2026-11-01`, midnight UTC) or an RFC 3339 time.
fn parse_since(v: &str) -> Result<i64, ApiError> {
    use time::format_description::well_known::Rfc3339;
    if let Ok(t) = time::OffsetDateTime::parse(v, &Rfc3339) {
        return Ok((t.unix_timestamp_nanos() / 1_000_000) as i64);
    }
    let d = time::Date::parse(v, time::macros::format_description!("[year]-[month]-[day]"))
        .map_err(|_| {
            ApiError::validation(
                "since",
                "since must be a date (2026-11-01) or an RFC 3339 time.",
            )
        })?;
    Ok(d.midnight().assume_utc().unix_timestamp() * 1000)
}

pub fn recover(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let i: RecoverInput = body::json(&ctx.body)?;
    let since = parse_since(&i.since.required("since")?)?;
    let n = store::recover(&ctx.app.store, id, since, now_ms())?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    Ok(json(StatusCode::OK, &json!({ "requeued": n })))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let ts = json!({"type": "string", "format": "date-time"});
    let kinds = json!({"enum": KINDS});
    vec![
        (
            "Webhook",
            json!({"type": "object", "required": ["id", "url", "events", "isActive", "createdAt", "updatedAt"],
            "description": "A subscription. The secret is write-only: it is never returned.",
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "url": {"type": "string", "format": "uri", "examples": ["https://wms.local/hooks/fulfilld"]},
                "events": {"type": "array", "items": kinds},
                "isActive": {"type": "boolean"},
                "createdAt": ts, "updatedAt": ts}}),
        ),
        (
            "WebhookCreate",
            json!({"type": "object", "required": ["url", "events", "secret"], "properties": {
                "url": {"type": "string", "format": "uri", "pattern": "^https://", "maxLength": 2048, "description": "Must be https:// (422 otherwise); redirects are not followed"},
                "events": {"type": "array", "minItems": 1, "items": kinds},
                "secret": {"type": "string", "minLength": 16, "maxLength": 512, "writeOnly": true, "description": "HMAC-SHA256 key of X-Webhook-Signature"},
                "isActive": {"type": "boolean", "default": true}},
            "examples": [{"url": "https://wms.local/hooks/fulfilld", "events": ["order.created", "inventory.adjusted"], "secret": "a-long-shared-secret-value", "isActive": true}]}),
        ),
        (
            "WebhookUpdate",
            json!({"type": "object", "description": "Any subset of the fields; absent fields are unchanged.", "properties": {
                "url": {"type": "string", "format": "uri", "pattern": "^https://", "maxLength": 2048},
                "events": {"type": "array", "minItems": 1, "items": kinds},
                "secret": {"type": "string", "minLength": 16, "maxLength": 512, "writeOnly": true},
                "isActive": {"type": "boolean", "description": "false: new events are not queued for it and its queued deliveries end failed (reason given); recover re-queues them"}}}),
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
