//! `/api/webhooks`: outbound webhook subscriptions (the secret is write-only, shown once
//! by a rotation), their deliveries with every attempt, a test event, a manual retry, a
//! recover call and secret rotation.

mod schema;
mod shapes;

pub use schema::schemas;
pub use shapes::{delivery_json, to_json};

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::json;
use storage::{DeliveryStatus, SignatureScheme};

use super::body::{self, Field, Whole};
use super::ctx::Ctx;
use super::error::ApiError;
use super::fields::not_null;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::events::KINDS;
use crate::domain::time_fmt::now_ms;
use crate::webhooks::sign::new_secret;
use crate::webhooks::store::{self, NewWebhook, WebhookError, WebhookPatch};
use shapes::{parse_scheme, SCHEMES};

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
            WebhookError::SecretNotStandard => ApiError::validation(
                "secret",
                "The standard-webhooks scheme needs a secret of the form whsec_<base64 of 24 to 64 bytes>; POST /api/webhooks/{id}/rotate-secret makes one.",
            ),
        }
    }
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
    #[serde(default)]
    signature_scheme: Field<String>,
    #[serde(default)]
    ordered: Field<bool>,
}

fn validate_scheme(s: String) -> Result<SignatureScheme, ApiError> {
    parse_scheme(&s).ok_or_else(|| {
        ApiError::validation(
            "signatureScheme",
            format!("signatureScheme must be one of {}.", SCHEMES.join(", ")),
        )
    })
}

/// An optional boolean of a create body: absent is `default`, null is refused.
fn flag(field: &str, f: Field<bool>, default: bool) -> Result<bool, ApiError> {
    Ok(not_null(field, f)?.unwrap_or(default))
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let page = Query::parse(ctx.query.as_deref())?.page()?;
    let (rows, total) = store::list(&ctx.app.store, page.limit, page.offset)?;
    let items = rows.iter().map(to_json).collect();
    Ok(json(StatusCode::OK, &page.list("webhooks", items, total)))
}

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: Input = body::json(&ctx.body)?;
    let url = validate_url(i.url.required("url")?)?;
    let events = validate_events(i.events.required("events")?)?;
    let secret = validate_secret(i.secret.required("secret")?)?;
    let is_active = flag("isActive", i.is_active, true)?;
    let scheme = not_null("signatureScheme", i.signature_scheme)?
        .map(validate_scheme)
        .transpose()?
        .unwrap_or_default();
    let new = NewWebhook {
        url,
        events,
        secret,
        is_active,
        scheme,
        ordered: flag("ordered", i.ordered, false)?,
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
        scheme: not_null("signatureScheme", i.signature_scheme)?
            .map(validate_scheme)
            .transpose()?,
        ordered: not_null("ordered", i.ordered)?,
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
    ctx.app.webhooks.requeued_when_durable(&ctx.app.store);
    Ok(json(StatusCode::ACCEPTED, &delivery_json(&d)))
}

pub fn deliveries(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let q = Query::parse(ctx.query.as_deref())?;
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
    ctx.app.webhooks.requeued_when_durable(&ctx.app.store);
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
    ctx.app.webhooks.requeued_when_durable(&ctx.app.store);
    Ok(json(StatusCode::OK, &json!({ "requeued": n })))
}

/// Default and bounds of a rotation's grace period: a day by default (time to deploy the
/// new secret), at most a week (the old secret must not live on).
const GRACE_DEFAULT_SECS: u64 = 86_400;
const GRACE_MAX_SECS: u64 = 7 * 86_400;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RotateInput {
    #[serde(default)]
    grace_period_seconds: Field<Whole>,
}

/// `POST /api/webhooks/{id}/rotate-secret`: a new random secret, returned this once;
/// the old one signs beside it until the grace period ends.
pub fn rotate_secret(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"), WebhookError::NotFound)?;
    let grace = if ctx.body.is_empty() {
        GRACE_DEFAULT_SECS
    } else {
        let i: RotateInput = body::json(&ctx.body)?;
        not_null("gracePeriodSeconds", i.grace_period_seconds)?
            .map_or(GRACE_DEFAULT_SECS, |Whole(g)| {
                u64::try_from(g).unwrap_or(u64::MAX)
            })
    };
    if grace > GRACE_MAX_SECS {
        return Err(ApiError::validation(
            "gracePeriodSeconds",
            format!("gracePeriodSeconds must be 0 to {GRACE_MAX_SECS} (a week)."),
        ));
    }
    let secret = new_secret();
    let rec = store::rotate_secret(&ctx.app.store, id, &secret, grace as i64 * 1000, now_ms())?;
    ctx.wrote();
    Ok(json(
        StatusCode::OK,
        &json!({ "secret": secret, "webhook": to_json(&rec) }),
    ))
}
