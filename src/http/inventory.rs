//! `/api/inventory`: stock levels per (SKU, warehouse), manual adjustments and their
//! audit trail. `available` is always `onHand - reserved`.

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{AuditRecord, InventoryRecord, StockChange};

use super::body::{self, Field, Whole};
use super::ctx::Ctx;
use super::error::ApiError;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::inventory::{self, Filter, InventoryError, NewInventory};
use crate::domain::time_fmt::rfc3339;

impl From<InventoryError> for ApiError {
    fn from(e: InventoryError) -> Self {
        match e {
            InventoryError::UnknownSku => {
                ApiError::validation("sku", "No live product has this SKU.")
            }
            InventoryError::UnknownWarehouse => {
                ApiError::validation("warehouseId", "No warehouse has this id.")
            }
            InventoryError::Duplicate => ApiError::conflict(
                "conflict",
                "An inventory record for this SKU and warehouse exists; adjust it instead.",
            )
            .on("sku"),
            InventoryError::NotFound => ApiError::not_found("No such inventory record."),
            InventoryError::Insufficient { available } => ApiError::conflict(
                "insufficient_inventory",
                format!("onHand may not fall below reserved; {available} available."),
            )
            .on("delta"),
        }
    }
}

/// An inventory record as the API returns it, serialized straight from the record.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InventoryOut<'a> {
    id: uuid::fmt::Hyphenated,
    sku: &'a str,
    warehouse_id: &'a str,
    on_hand: i64,
    reserved: i64,
    available: i64,
    low_stock_threshold: u32,
    created_at: String,
    updated_at: String,
}

pub fn out(r: &InventoryRecord) -> InventoryOut<'_> {
    InventoryOut {
        id: uuid::Uuid::from_u128(r.id).hyphenated(),
        sku: &r.sku,
        warehouse_id: &r.warehouse_id,
        on_hand: r.on_hand,
        reserved: r.reserved,
        available: inventory::available(r),
        low_stock_threshold: r.low_stock_threshold,
        created_at: rfc3339(r.created_at_ms),
        updated_at: rfc3339(r.updated_at_ms),
    }
}

/// The record as a JSON value (events).
pub fn to_json(r: &InventoryRecord) -> Value {
    serde_json::to_value(out(r)).unwrap_or(Value::Null)
}

fn audit_json(a: &AuditRecord) -> Value {
    let change = match a.change {
        StockChange::Created => "created",
        StockChange::Adjusted => "adjusted",
        StockChange::Reserved => "reserved",
        StockChange::Released => "released",
        StockChange::Shipped => "shipped",
    };
    json!({
        "seq": a.seq, "change": change, "delta": a.on_hand_delta, "reservedDelta": a.reserved_delta,
        "reason": a.reason, "onHand": a.on_hand, "reserved": a.reserved,
        "available": a.on_hand - a.reserved, "clientId": a.client_id,
        "reference": a.reference, "createdAt": rfc3339(a.at_ms),
    })
}

fn parse_id(raw: &str) -> Result<u128, ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|u| u.as_u128())
        .map_err(|_| InventoryError::NotFound.into())
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref())?;
    let page = q.page()?;
    let filter = Filter {
        sku: q.get("sku").map(str::to_string),
        warehouse_id: q.get("warehouseId").map(str::to_string),
    };
    let (rows, total) = inventory::list(&ctx.app.store, &filter, page.limit, page.offset)?;
    let items: Vec<InventoryOut<'_>> = rows.iter().map(out).collect();
    Ok(json(StatusCode::OK, &page.typed("inventory", items, total)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateInput {
    #[serde(default)]
    sku: Field<String>,
    #[serde(default)]
    warehouse_id: Field<String>,
    #[serde(default)]
    on_hand: Field<Whole>,
    #[serde(default)]
    low_stock_threshold: Field<Whole>,
}

const MAX_UNITS: i64 = 1_000_000_000;

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: CreateInput = body::json(&ctx.body)?;
    let sku = i.sku.required("sku")?;
    let warehouse_id = i.warehouse_id.required("warehouseId")?;
    let on_hand = i.on_hand.required("onHand")?.0;
    if !(0..=MAX_UNITS).contains(&on_hand) {
        return Err(ApiError::validation(
            "onHand",
            "onHand must be between 0 and 1000000000.",
        ));
    }
    let low_stock_threshold = match i.low_stock_threshold.optional().map(|t| t.0) {
        Some(t) => Some(u32::try_from(t).map_err(|_| {
            ApiError::validation("lowStockThreshold", "lowStockThreshold must be 0 or more.")
        })?),
        None => None,
    };
    let new = NewInventory {
        sku,
        warehouse_id,
        on_hand,
        low_stock_threshold,
    };
    let rec = inventory::create(
        &ctx.app.store,
        &new,
        ctx.client_id(),
        &*ctx.app.domain.shapes,
    )?;
    ctx.wrote();
    Ok(json(StatusCode::CREATED, &out(&rec)))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    match inventory::get(&ctx.app.store, id)? {
        Some(r) => Ok(json(StatusCode::OK, &out(&r))),
        None => Err(InventoryError::NotFound.into()),
    }
}

#[derive(Deserialize)]
struct AdjustInput {
    #[serde(default)]
    delta: Field<Whole>,
    #[serde(default)]
    reason: Field<String>,
}

pub fn adjust(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let i: AdjustInput = body::json(&ctx.body)?;
    let delta = i.delta.required("delta")?.0;
    if delta == 0 || delta.abs() > MAX_UNITS {
        return Err(ApiError::validation(
            "delta",
            "delta must be a non-zero integer within ±1000000000.",
        ));
    }
    let reason = i.reason.required("reason")?.trim().to_string();
    if reason.is_empty() || reason.chars().count() > 500 {
        return Err(ApiError::validation(
            "reason",
            "reason must be 1 to 500 characters.",
        ));
    }
    let rec = inventory::adjust(
        &ctx.app.store,
        id,
        delta,
        &reason,
        ctx.client_id(),
        &*ctx.app.domain.shapes,
    )?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&rec)))
}

pub fn history(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let page = Query::parse(ctx.query.as_deref())?.page()?;
    let rec = inventory::get(&ctx.app.store, id)?.ok_or(InventoryError::NotFound)?;
    let (rows, total) = inventory::history(&ctx.app.store, &rec, page.limit, page.offset)?;
    let items: Vec<Value> = rows.iter().map(audit_json).collect();
    Ok(json(
        StatusCode::OK,
        &page.list("adjustments", items, total),
    ))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let int = |d: &str| json!({"type": "integer", "description": d});
    let ts = json!({"type": "string", "format": "date-time"});
    vec![
        (
            "Inventory",
            json!({"type": "object",
            "required": ["id", "sku", "warehouseId", "onHand", "reserved", "available", "lowStockThreshold", "createdAt", "updatedAt"],
            "properties": {
                "id": {"type": "string", "format": "uuid"}, "sku": {"type": "string"}, "warehouseId": {"type": "string"},
                "onHand": int("Units physically in the warehouse"), "reserved": int("Units held for open orders"),
                "available": int("onHand - reserved"),
                "lowStockThreshold": int("inventory.low_stock fires once when available falls below it; re-armed at or above"),
                "createdAt": ts, "updatedAt": ts}}),
        ),
        (
            "InventoryCreate",
            json!({"type": "object", "required": ["sku", "warehouseId", "onHand"], "properties": {
            "sku": {"type": "string", "description": "A live product's SKU"}, "warehouseId": {"type": "string"},
            "onHand": {"type": "integer", "minimum": 0, "maximum": MAX_UNITS},
            "lowStockThreshold": {"type": "integer", "minimum": 0, "maximum": u32::MAX, "description": "Defaults to the product's"}},
            "examples": [{"sku": "MUG-01", "warehouseId": "RNO", "onHand": 120}]}),
        ),
        (
            "InventoryAdjust",
            json!({"type": "object", "required": ["delta", "reason"], "properties": {
            "delta": {"type": "integer", "minimum": -MAX_UNITS, "maximum": MAX_UNITS, "not": {"const": 0},
                "description": "Change of onHand, non-zero; onHand may not fall below reserved"},
            "reason": {"type": "string", "maxLength": 500}},
            "examples": [{"delta": -3, "reason": "damaged in storage"}]}),
        ),
        (
            "InventoryList",
            json!({"type": "object", "required": ["inventory", "pagination"], "properties": {
            "inventory": {"type": "array", "items": {"$ref": "#/components/schemas/Inventory"}},
            "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
        (
            "InventoryAdjustment",
            json!({"type": "object", "properties": {
            "seq": int("1 for the creation, then one per change"),
            "change": {"enum": ["created", "adjusted", "reserved", "released", "shipped"]},
            "delta": int("Change of onHand"), "reservedDelta": int("Change of reserved"), "reason": {"type": "string"},
            "onHand": int("Level after the change"), "reserved": int("Level after the change"), "available": int("Level after the change"),
            "clientId": {"type": "string"}, "reference": {"type": ["string", "null"], "description": "Order or package id"},
            "createdAt": ts}}),
        ),
        (
            "InventoryAdjustmentList",
            json!({"type": "object", "required": ["adjustments", "pagination"], "properties": {
            "adjustments": {"type": "array", "items": {"$ref": "#/components/schemas/InventoryAdjustment"}},
            "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
    ]
}
