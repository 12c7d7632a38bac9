//! `/api/packages` and `/api/fulfillment/packages/{id}/ship`: the package resource (with
//! every unit's placement), its list and inbound-event history, shipping, and
//! `POST /api/orders/{id}/pack` that packs a pending order now.

use hyper::header::RETRY_AFTER;
use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{InboundEventRecord, InboundOutcome, PackageRecord, PackageStatus, PlacementRecord};

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::orders::{out as order_out, parse_id as parse_order_id};
use super::query::Query;
use super::response::{json, Resp};
use super::text::short_text as label;
use crate::domain::order_packing::{self, Packed};
use crate::domain::packages::{self, Filter, PackageError, Shipment};
use crate::domain::time_fmt::rfc3339;
use crate::workers::Refused;

impl From<PackageError> for ApiError {
    fn from(e: PackageError) -> Self {
        match e {
            PackageError::NotFound => ApiError::not_found("No such package."),
            PackageError::InvalidTransition { from, to } => ApiError::conflict(
                "invalid_transition",
                format!(
                    "A package cannot move from {} to {}.",
                    from.as_str(),
                    to.as_str()
                ),
            )
            .on("status"),
            PackageError::TrackingTaken => ApiError::conflict(
                "conflict",
                "Another package already ships under this tracking number.",
            )
            .on("trackingNumber"),
            PackageError::Insufficient => ApiError::conflict(
                "insufficient_inventory",
                "The stock reserved for this package is no longer on hand.",
            ),
        }
    }
}

/// `pkg_` and the 32 hex digits of the package's UUIDv7.
pub fn package_ref(id: u128) -> String {
    format!("pkg_{}", uuid::Uuid::from_u128(id).simple())
}

pub fn parse_package_id(raw: &str) -> Option<u128> {
    let hex = raw.strip_prefix("pkg_")?;
    if hex.len() != 32 {
        return None;
    }
    uuid::Uuid::parse_str(hex).ok().map(|u| u.as_u128())
}

/// Lengths in the engine's resolution (1/1000 of a unit), without float noise.
pub(super) fn milli(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

#[derive(serde::Serialize)]
pub(super) struct Extent {
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) length: f64,
}

#[derive(serde::Serialize)]
pub(super) struct Position {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) z: f64,
}

#[derive(serde::Serialize)]
struct PlacementOut {
    position: Position,
    dimensions: Extent,
    rotated: bool,
}

fn placement_out(p: &PlacementRecord) -> PlacementOut {
    PlacementOut {
        position: Position {
            x: milli(p.x),
            y: milli(p.y),
            z: milli(p.z),
        },
        dimensions: Extent {
            width: milli(p.width),
            height: milli(p.height),
            length: milli(p.length),
        },
        rotated: p.rotated,
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemOut<'a> {
    sku: &'a str,
    quantity: u32,
    placements: Vec<PlacementOut>,
}

/// The package as the API (and its events) return it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageOut<'a> {
    id: String,
    order_id: String,
    warehouse_id: &'a str,
    box_id: &'a str,
    box_dimensions: Extent,
    status: &'static str,
    items: Vec<ItemOut<'a>>,
    weight: f64,
    volume_utilization: f64,
    carrier: Option<&'a str>,
    tracking_number: Option<&'a str>,
    service: Option<&'a str>,
    created_at: String,
    updated_at: String,
    shipped_at: Option<String>,
    delivered_at: Option<String>,
}

pub fn out(p: &PackageRecord) -> PackageOut<'_> {
    PackageOut {
        id: package_ref(p.id),
        order_id: uuid::Uuid::from_u128(p.order_id).to_string(),
        warehouse_id: &p.warehouse_id,
        box_id: &p.box_id,
        box_dimensions: Extent {
            width: milli(p.box_dimensions[0]),
            height: milli(p.box_dimensions[1]),
            length: milli(p.box_dimensions[2]),
        },
        status: p.status.as_str(),
        items: p
            .items
            .iter()
            .map(|i| ItemOut {
                sku: &i.sku,
                quantity: i.quantity,
                placements: i.placements.iter().map(placement_out).collect(),
            })
            .collect(),
        weight: milli(p.weight),
        volume_utilization: (p.volume_utilization * 10_000.0).round() / 10_000.0,
        carrier: p.carrier.as_deref(),
        tracking_number: p.tracking_number.as_deref(),
        service: p.service.as_deref(),
        created_at: rfc3339(p.created_at_ms),
        updated_at: rfc3339(p.updated_at_ms),
        shipped_at: p.shipped_at_ms.map(rfc3339),
        delivered_at: p.delivered_at_ms.map(rfc3339),
    }
}

pub fn event_json(e: &InboundEventRecord) -> Value {
    json!({
        "eventId": e.event_id,
        "source": e.source,
        "packageId": package_ref(e.package_id),
        "status": e.status.as_str(),
        "occurredAt": e.occurred_at,
        "location": e.location,
        "outcome": match e.outcome {
            InboundOutcome::Applied => "applied",
            InboundOutcome::Ignored => "ignored",
        },
        "note": if e.note.is_empty() { None } else { Some(&e.note) },
        "receivedAt": rfc3339(e.received_at_ms),
    })
}

pub(super) fn path_id(ctx: &Ctx<'_>) -> Result<u128, ApiError> {
    parse_package_id(ctx.param("id")).ok_or_else(|| PackageError::NotFound.into())
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref())?;
    let page = q.page()?;
    let order_id = match q.get("orderId") {
        None | Some("") => None,
        // An id that cannot exist matches nothing, like an unknown one.
        Some(raw) => Some(uuid::Uuid::parse_str(raw).map(|u| u.as_u128()).unwrap_or(0)),
    };
    let status = match q.get("status") {
        None | Some("") => None,
        Some(s) => Some(PackageStatus::parse(s).ok_or_else(|| {
            ApiError::bad_request(format!(
                "status must be one of {}.",
                PackageStatus::ALL.map(PackageStatus::as_str).join(", ")
            ))
            .on("status")
        })?),
    };
    let oldest_first = match q.get("sort") {
        None | Some("") | Some("newest") => false,
        Some("oldest") => true,
        Some(_) => {
            return Err(ApiError::bad_request("sort must be newest or oldest.").on("sort"));
        }
    };
    let warehouse_id = q.get("warehouseId").filter(|w| !w.is_empty());
    let filter = Filter {
        order_id,
        status,
        warehouse_id: warehouse_id.map(str::to_string),
        oldest_first,
    };
    let (items, total) = packages::list(&ctx.app.store, &filter, page.limit, page.offset)?;
    let items: Vec<PackageOut<'_>> = items.iter().map(out).collect();
    Ok(json(StatusCode::OK, &page.typed("packages", items, total)))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = path_id(ctx)?;
    match packages::get(&ctx.app.store, id)? {
        Some(p) => Ok(json(StatusCode::OK, &out(&p))),
        None => Err(PackageError::NotFound.into()),
    }
}

pub fn events(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = path_id(ctx)?;
    if packages::get(&ctx.app.store, id)?.is_none() {
        return Err(PackageError::NotFound.into());
    }
    let list: Vec<Value> = crate::domain::inbound::events(&ctx.app.store, id)?
        .iter()
        .map(event_json)
        .collect();
    Ok(json(StatusCode::OK, &json!({ "events": list })))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ShipInput {
    #[serde(default)]
    carrier: Field<String>,
    #[serde(default)]
    tracking_number: Field<String>,
    #[serde(default)]
    service: Field<String>,
}

pub fn ship(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = path_id(ctx)?;
    let i: ShipInput = body::json(&ctx.body)?;
    let shipment = Shipment {
        carrier: label("carrier", i.carrier.required("carrier")?, 64)?,
        tracking_number: label(
            "trackingNumber",
            i.tracking_number.required("trackingNumber")?,
            128,
        )?,
        service: i
            .service
            .optional()
            .map(|s| label("service", s, 64))
            .transpose()?,
    };
    let moved = packages::ship(&ctx.app.domain, id, &shipment, ctx.client_id())?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    Ok(json(StatusCode::OK, &out(&moved.package)))
}

/// `POST /api/orders/{id}/pack`: packs a pending order now (after its products or the
/// warehouse's boxes were fixed, or with `auto_pack` off) and returns the order.
pub async fn pack(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_order_id(ctx.param("id"))?;
    // Outside the request's hold: packing awaits the pool next, and a requeue is safe
    // to repeat.
    let order = storage::unheld(|| order_packing::requeue(&ctx.app.store, id))
        .map_err(|e| match e {
            storage::TxError::Storage(e) => ApiError::from(e),
            storage::TxError::Aborted(never) => match never {},
        })?
        .ok_or_else(|| ApiError::not_found("No such order."))?;
    if order.status != storage::OrderStatus::Pending {
        if order.status == storage::OrderStatus::Processing {
            return Ok(json(StatusCode::OK, &order_out(&order)));
        }
        return Err(ApiError::conflict(
            "invalid_transition",
            format!(
                "Only a pending order can be packed; this one is {}.",
                order.status.as_str()
            ),
        )
        .on("status"));
    }
    // The engine runs on the pool; the commit is one short transaction.
    let (store, units, pending) = (ctx.app.store.clone(), ctx.app.config.units, order.clone());
    let plan = ctx
        .app
        .packing_pool
        .run(move || order_packing::plan(&store, &pending, units))
        .await
        .map_err(|refused| match refused {
            Refused::Busy => ApiError::unavailable("The packing queue is full; retry shortly.")
                .header(RETRY_AFTER, 1),
            Refused::Closed => ApiError::unavailable("The packing service is stopping; retry."),
        })??;
    let packed = order_packing::commit(&ctx.app.domain, id, &plan).map_err(|e| match e {
        storage::TxError::Storage(e) => ApiError::from(e),
        storage::TxError::Aborted(never) => match never {},
    })?;
    ctx.wrote();
    ctx.app.webhooks.wake_when_durable(&ctx.app.store);
    match packed {
        Packed::Done(o, _) => Ok(json(StatusCode::OK, &order_out(&o))),
        Packed::Failed(o) => Err(ApiError::conflict(
            "conflict",
            format!(
                "The order cannot be packed: {}",
                o.pending_reason.as_deref().unwrap_or("unknown reason")
            ),
        )),
        // Packed meanwhile by the background packer, or cancelled: its commit may not
        // be applied yet, so it is read as committed.
        Packed::Skipped => match crate::domain::orders::get_committed(&ctx.app.store, id)? {
            Some(o) if o.status == storage::OrderStatus::Processing => {
                Ok(json(StatusCode::OK, &order_out(&o)))
            }
            _ => Err(ApiError::conflict(
                "invalid_transition",
                "The order is no longer pending.",
            )),
        },
    }
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let ts = json!({"type": "string", "format": "date-time"});
    let extent = json!({"type": "object", "properties": {
        "width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"}}});
    let statuses: Vec<&str> = PackageStatus::ALL.iter().map(|s| s.as_str()).collect();
    vec![
        (
            "Package",
            json!({"type": "object",
            "description": "A box an order was packed into by the packing engine (one or more per reserving warehouse). Lengths and weights are in the appliance's configured units (in/lb or cm/kg); `y` is vertical, `x` runs along the box width and `z` along its length. Status moves created -> picking -> packed -> shipped -> in_transit -> out_for_delivery -> delivered, plus exception (progress resumes after it), returned and voided (order cancelled); it never moves backwards.",
            "properties": {
                "id": {"type": "string", "example": "pkg_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b"},
                "orderId": {"type": "string", "format": "uuid"},
                "warehouseId": {"type": "string"},
                "boxId": {"type": "string"},
                "boxDimensions": extent,
                "status": {"enum": statuses},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "sku": {"type": "string"}, "quantity": {"type": "integer"},
                    "placements": {"type": "array", "items": {"type": "object", "properties": {
                        "position": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"}}},
                        "dimensions": extent, "rotated": {"type": "boolean"}}}}}}},
                "weight": {"type": "number", "description": "Units plus the box's tare weight."},
                "volumeUtilization": {"type": "number"},
                "carrier": {"type": ["string", "null"]},
                "trackingNumber": {"type": ["string", "null"]},
                "service": {"type": ["string", "null"]},
                "createdAt": ts, "updatedAt": ts,
                "shippedAt": {"type": ["string", "null"], "format": "date-time"},
                "deliveredAt": {"type": ["string", "null"], "format": "date-time"}}}),
        ),
        (
            "PackageList",
            json!({"type": "object", "properties": {
                "packages": {"type": "array", "items": {"$ref": "#/components/schemas/Package"}},
                "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
        (
            "ShipPackage",
            json!({"type": "object", "required": ["carrier", "trackingNumber"],
            "description": "Ships a created, picking or packed package: onHand and reserved of its items drop by its units (inventory.adjusted), package.shipped is emitted, and when every package of the order has shipped the order becomes shipped with order.shipped {orderId, status, trackingNumbers}. Repeating the call with the same carrier and trackingNumber returns the package unchanged.",
            "properties": {
                "carrier": {"type": "string", "maxLength": 64, "example": "ups"},
                "trackingNumber": {"type": "string", "maxLength": 128, "example": "1Z999AA10123456784"},
                "service": {"type": "string", "maxLength": 64, "example": "ground"}}}),
        ),
        (
            "InboundEvent",
            json!({"type": "object", "description": "One WMS or carrier callback as received, applied or ignored (late or impossible events are recorded, never applied).",
            "properties": {
                "eventId": {"type": "string"}, "source": {"type": "string", "example": "carrier:ups"},
                "packageId": {"type": "string"}, "status": {"enum": statuses},
                "occurredAt": ts, "location": {"type": ["string", "null"]},
                "outcome": {"enum": ["applied", "ignored", "duplicate"], "description": "Stored events are applied or ignored; duplicate only in the answer to a repeated eventId."},
                "note": {"type": ["string", "null"]}, "receivedAt": ts}}),
        ),
        (
            "InboundEventList",
            json!({"type": "object", "properties": {
                "events": {"type": "array", "items": {"$ref": "#/components/schemas/InboundEvent"}}}}),
        ),
    ]
}
