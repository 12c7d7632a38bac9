//! Inbound callbacks: `POST /api/wms/webhooks/package-status` and
//! `POST /api/webhooks/carriers/{carrier}/tracking`. Each is authenticated by the HMAC
//! scheme of outbound deliveries with its source's secret (`wms`, `carrier:NAME`) inside a
//! 300 s window, or by a Bearer token / API key; then handed to the package rules.

use hyper::header::HeaderMap;
use hyper::StatusCode;
use serde::Deserialize;
use serde_json::json;
use storage::tables::InboundSecrets;
use storage::PackageStatus;

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::fields::or_null;
use super::packages::{event_json, out, parse_package_id};
use super::response::{json, Resp};
use super::text::{short_text as label, short_text_schema};
use crate::domain::inbound::{self, Callback, Target};
use crate::domain::packages::{PackageError, Shipment};
use crate::webhooks::sign::{SIGNATURE_HEADER, TIMESTAMP_HEADER};

/// Signatures older or newer than this are refused, as the outbound rules say.
pub const WINDOW_SECS: i64 = 300;

/// Checks the signature of `body` from `source`, unless the request came with a client
/// credential (already verified by the pipeline).
fn authenticate(ctx: &Ctx<'_>, source: &str) -> Result<(), ApiError> {
    if ctx.client.is_some() {
        return Ok(());
    }
    verify(&ctx.app.store, &ctx.headers, source, &ctx.body, ctx.now)
}

pub fn verify(
    store: &storage::Store,
    headers: &HeaderMap,
    source: &str,
    body: &[u8],
    now: i64,
) -> Result<(), ApiError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let (Some(signature), Some(timestamp)) = (header(SIGNATURE_HEADER), header(TIMESTAMP_HEADER))
    else {
        return Err(ApiError::unauthorized(
            "Sign the request (X-Webhook-Signature, X-Webhook-Timestamp) or send a Bearer token or X-API-Key.",
        ));
    };
    let Some(secret) = store.get::<InboundSecrets>(&source.to_string())? else {
        return Err(ApiError::unauthorized(format!(
            "No inbound secret is set for source {source} (fulfilld inbound set-secret)."
        )));
    };
    let ts: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| ApiError::unauthorized("X-Webhook-Timestamp must be unix seconds."))?;
    if (now - ts).abs() > WINDOW_SECS {
        return Err(ApiError::unauthorized(
            "X-Webhook-Timestamp is more than 300 seconds from the appliance's clock.",
        ));
    }
    let expected = crate::webhooks::sign::signature(&secret.secret, timestamp.trim(), body);
    let given = signature.trim().to_ascii_lowercase();
    if !bool::from(subtle::ConstantTimeEq::ct_eq(
        expected.as_bytes(),
        given.as_bytes(),
    )) {
        return Err(ApiError::unauthorized(
            "X-Webhook-Signature does not match.",
        ));
    }
    Ok(())
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallbackInput {
    #[serde(default)]
    event_id: Field<String>,
    #[serde(default)]
    package_id: Field<String>,
    #[serde(default)]
    tracking_number: Field<String>,
    #[serde(default)]
    status: Field<String>,
    #[serde(default)]
    occurred_at: Field<String>,
    #[serde(default)]
    location: Field<String>,
    #[serde(default)]
    carrier: Field<String>,
    #[serde(default)]
    service: Field<String>,
}

fn status(v: String) -> Result<PackageStatus, ApiError> {
    PackageStatus::parse(&v)
        .filter(|s| *s != PackageStatus::Voided)
        .ok_or_else(|| {
            let allowed = PackageStatus::ALL
                .into_iter()
                .filter(|s| *s != PackageStatus::Voided)
                .map(PackageStatus::as_str);
            ApiError::validation(
                "status",
                format!(
                    "status must be one of {}.",
                    allowed.collect::<Vec<_>>().join(", ")
                ),
            )
        })
}

fn occurred_at(v: String) -> Result<String, ApiError> {
    use time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::parse(&v, &Rfc3339)
        .map(|_| v)
        .map_err(|_| ApiError::validation("occurredAt", "occurredAt must be an RFC 3339 time."))
}

pub(super) fn respond(ctx: &mut Ctx<'_>, cb: &Callback) -> Result<Resp, ApiError> {
    let r = inbound::receive(&ctx.app.domain, cb, ctx.client_id())?;
    // A replay is acknowledged only once the first delivery's effect is durable.
    ctx.wrote();
    if !r.duplicate {
        ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    }
    let mut event = event_json(&r.event);
    if r.duplicate {
        event["outcome"] = json!("duplicate");
    }
    Ok(json(
        StatusCode::OK,
        &json!({ "event": event, "package": out(&r.package) }),
    ))
}

/// The fields both callbacks share: eventId, status, occurredAt and location.
struct Common {
    event_id: String,
    status: PackageStatus,
    occurred_at: String,
    location: Option<String>,
}

fn common(
    event_id: Field<String>,
    status_field: Field<String>,
    occurred: Field<String>,
    location: Field<String>,
) -> Result<Common, ApiError> {
    Ok(Common {
        event_id: label("eventId", event_id.required("eventId")?, 200)?,
        status: status(status_field.required("status")?)?,
        occurred_at: occurred_at(occurred.required("occurredAt")?)?,
        location: location
            .optional()
            .map(|l| label("location", l, 200))
            .transpose()?,
    })
}

fn callback(
    ctx: &Ctx<'_>,
    source: String,
    c: Common,
    target: Target,
    shipment: Option<Shipment>,
) -> Callback {
    Callback {
        source,
        event_id: c.event_id,
        target,
        status: c.status,
        occurred_at: c.occurred_at,
        location: c.location,
        shipment,
        body: String::from_utf8_lossy(&ctx.body).into_owned(),
    }
}

pub fn wms(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    authenticate(ctx, "wms")?;
    let CallbackInput {
        event_id,
        package_id,
        tracking_number,
        status,
        occurred_at,
        location,
        carrier,
        service,
    } = body::json(&ctx.body)?;
    let c = common(event_id, status, occurred_at, location)?;
    let raw_id = package_id.required("packageId")?;
    let shipment = match (carrier.optional(), tracking_number.optional()) {
        (Some(carrier), Some(number)) => Some(Shipment {
            carrier: label("carrier", carrier, 64)?,
            tracking_number: label("trackingNumber", number, 128)?,
            service: service
                .optional()
                .map(|s| label("service", s, 64))
                .transpose()?,
        }),
        _ => None,
    };
    let id = parse_package_id(&raw_id).ok_or_else(|| ApiError::from(PackageError::NotFound))?;
    let cb = callback(ctx, "wms".to_string(), c, Target::Id(id), shipment);
    respond(ctx, &cb)
}

pub fn carrier(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let name = ctx.param("carrier").to_ascii_lowercase();
    if name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ApiError::not_found("No such carrier."));
    }
    let source = format!("carrier:{name}");
    authenticate(ctx, &source)?;
    let i: CallbackInput = body::json(&ctx.body)?;
    let c = common(i.event_id, i.status, i.occurred_at, i.location)?;
    let number = label(
        "trackingNumber",
        i.tracking_number.required("trackingNumber")?,
        128,
    )?;
    let target = Target::Tracking {
        carrier: name,
        number,
    };
    let cb = callback(ctx, source, c, target, None);
    respond(ctx, &cb)
}

pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    let ts = json!({"type": "string", "format": "date-time"});
    let mut event_id = short_text_schema(200);
    event_id["description"] = json!(
        "Unique per source; a repeat is acknowledged (outcome duplicate) and changes nothing."
    );
    let statuses = json!({"enum": ["created", "picking", "packed", "shipped", "in_transit", "out_for_delivery", "delivered", "exception", "returned"]});
    vec![
        (
            "WmsPackageStatus",
            json!({"type": "object", "required": ["eventId", "packageId", "status", "occurredAt"],
            "description": "A WMS reports a package's progress. A status at or behind the package's is recorded and ignored (never moves it backwards); moving to shipped or beyond ships it (stock leaves, package.shipped), with carrier and trackingNumber when given; delivered emits package.delivered and, once every package of the order is delivered, the order becomes delivered.",
            "properties": {
                "eventId": event_id,
                "packageId": {"type": "string", "example": "pkg_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b"},
                "status": statuses, "occurredAt": ts,
                "carrier": or_null(short_text_schema(64)), "trackingNumber": or_null(short_text_schema(128)),
                "service": or_null(short_text_schema(64)), "location": or_null(short_text_schema(200))}}),
        ),
        (
            "CarrierTracking",
            json!({"type": "object", "required": ["eventId", "trackingNumber", "status", "occurredAt"],
            "description": "A carrier's tracking update for a package shipped with that carrier (the path's carrier, case-insensitive).",
            "properties": {
                "eventId": short_text_schema(200),
                "trackingNumber": short_text_schema(128),
                "status": statuses, "occurredAt": ts, "location": or_null(short_text_schema(200))}}),
        ),
        (
            "InboundResult",
            json!({"type": "object", "properties": {
                "event": {"allOf": [{"$ref": "#/components/schemas/InboundEvent"}], "description": "outcome is applied, ignored (late or impossible; see note) or duplicate (eventId seen before)."},
                "package": {"$ref": "#/components/schemas/Package"}}}),
        ),
    ]
}
