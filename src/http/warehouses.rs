//! `/api/warehouses`: warehouses and their box catalogs (camelCase body of decisions.md
//! section 4), validated at the edge; each 422 names its field (`boxes[1].maxWeight`).

use std::collections::HashSet;

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{BoxRecord, WarehouseRecord};

use super::address::{self, AddressInput};
use super::address::{address_out, AddressOut};
use super::body::{self, Field, Whole};
use super::ctx::Ctx;
use super::error::ApiError;
use super::fields::{not_null, positive};
use super::query::Query;
use super::response::{json, Resp};
use super::text::{name_schema, plain_text};
use crate::domain::money::{self, Dec};
use crate::domain::time_fmt::rfc3339;
use crate::domain::warehouses::{self, NewWarehouse, WarehouseError, WarehousePatch};

impl From<WarehouseError> for ApiError {
    fn from(e: WarehouseError) -> Self {
        match e {
            WarehouseError::IdTaken => {
                ApiError::conflict("conflict", "A warehouse with this id exists.").on("id")
            }
            WarehouseError::NotFound => ApiError::not_found("No such warehouse."),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WarehouseInput {
    #[serde(default)]
    id: Field<String>,
    #[serde(default)]
    name: Field<String>,
    #[serde(default, deserialize_with = "super::body::object")]
    address: Field<AddressInput>,
    #[serde(default, deserialize_with = "super::body::objects")]
    boxes: Field<Vec<BoxInput>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BoxInput {
    #[serde(default)]
    box_id: Field<String>,
    #[serde(default)]
    width: Field<f64>,
    #[serde(default)]
    height: Field<f64>,
    #[serde(default)]
    length: Field<f64>,
    #[serde(default)]
    max_weight: Field<f64>,
    #[serde(default)]
    quantity: Field<Whole>,
    #[serde(default)]
    cost: Field<serde_json::Number>,
    #[serde(default)]
    tare_weight: Field<f64>,
}

/// Warehouse ids and box ids: short codes that are safe in URLs and package ids.
pub fn validate_code(field: &str, v: &str) -> Result<String, ApiError> {
    let ok =
        !v.is_empty() && v.len() <= 32 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(v.to_string())
    } else {
        Err(ApiError::validation(
            field,
            format!("{field} must be 1-32 letters, digits or '-'."),
        ))
    }
}

/// The most boxes of one type a warehouse may list.
const MAX_BOXES: i64 = 1_000_000;

fn parse_box(i: usize, b: BoxInput) -> Result<BoxRecord, ApiError> {
    let f = |name: &str| format!("boxes[{i}].{name}");
    let quantity = match b.quantity.optional().map(|q| q.0) {
        Some(q) if !(0..=MAX_BOXES).contains(&q) => {
            return Err(ApiError::validation(
                f("quantity"),
                format!("quantity must be 0 to {MAX_BOXES} (absent: unlimited)."),
            ))
        }
        q => q.map(|q| q as u32),
    };
    let cost = match b.cost.optional() {
        Some(n) => Some(
            money::parse(&n.to_string())
                .filter(money::is_valid_amount)
                .ok_or_else(|| {
                    ApiError::validation(f("cost"), "cost must be a non-negative amount.")
                })?
                .to_string(),
        ),
        None => None,
    };
    let tare_weight = match b.tare_weight.optional() {
        Some(t) if !(t.is_finite() && (0.0..1e6).contains(&t)) => {
            return Err(ApiError::validation(
                f("tareWeight"),
                "tareWeight must be 0 or more.",
            ))
        }
        t => t,
    };
    Ok(BoxRecord {
        box_id: validate_code(&f("boxId"), &b.box_id.required(&f("boxId"))?)?,
        width: positive(&f("width"), b.width.required(&f("width"))?)?,
        height: positive(&f("height"), b.height.required(&f("height"))?)?,
        length: positive(&f("length"), b.length.required(&f("length"))?)?,
        max_weight: positive(&f("maxWeight"), b.max_weight.required(&f("maxWeight"))?)?,
        quantity,
        cost,
        tare_weight,
    })
}

fn parse_boxes(boxes: Vec<BoxInput>) -> Result<Vec<BoxRecord>, ApiError> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(boxes.len());
    for (i, b) in boxes.into_iter().enumerate() {
        let rec = parse_box(i, b)?;
        if !seen.insert(rec.box_id.clone()) {
            return Err(ApiError::validation(
                format!("boxes[{i}].boxId"),
                "boxId must be unique within the warehouse.",
            ));
        }
        out.push(rec);
    }
    if out.len() > 200 {
        return Err(ApiError::validation(
            "boxes",
            "At most 200 box types per warehouse.",
        ));
    }
    Ok(out)
}

/// A warehouse name: 1 to 200 characters as sent, stored trimmed.
fn name(v: String) -> Result<String, ApiError> {
    plain_text("name", v, 200, false)
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct BoxOut<'a> {
    box_id: &'a str,
    width: f64,
    height: f64,
    length: f64,
    max_weight: f64,
    quantity: Option<u32>,
    cost: Option<Dec>,
    tare_weight: Option<f64>,
}

/// A warehouse as the API returns it, serialized straight from the record.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WarehouseOut<'a> {
    id: &'a str,
    name: &'a str,
    address: Option<AddressOut<'a>>,
    boxes: Vec<BoxOut<'a>>,
    created_at: String,
    updated_at: String,
}

pub fn out(w: &WarehouseRecord) -> WarehouseOut<'_> {
    WarehouseOut {
        id: &w.id,
        name: &w.name,
        address: w.address.as_ref().map(address_out),
        boxes: w
            .boxes
            .iter()
            .map(|b| BoxOut {
                box_id: &b.box_id,
                width: b.width,
                height: b.height,
                length: b.length,
                max_weight: b.max_weight,
                quantity: b.quantity,
                cost: b.cost.as_deref().and_then(money::parse).map(Dec),
                tare_weight: b.tare_weight,
            })
            .collect(),
        created_at: rfc3339(w.created_at_ms),
        updated_at: rfc3339(w.updated_at_ms),
    }
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let page = Query::parse(ctx.query.as_deref())?.page()?;
    let (rows, total) = warehouses::list(&ctx.app.store, page.limit, page.offset)?;
    let items: Vec<WarehouseOut<'_>> = rows.iter().map(out).collect();
    Ok(json(
        StatusCode::OK,
        &page.typed("warehouses", items, total),
    ))
}

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: WarehouseInput = body::json(&ctx.body)?;
    let new = NewWarehouse {
        id: i
            .id
            .optional()
            .map(|id| validate_code("id", &id))
            .transpose()?,
        name: name(i.name.required("name")?)?,
        address: i
            .address
            .optional()
            .map(|a| a.validate("address"))
            .transpose()?,
        boxes: parse_boxes(i.boxes.optional().unwrap_or_default())?,
    };
    let rec = warehouses::create(&ctx.app.store, &new)?;
    ctx.wrote();
    Ok(json(StatusCode::CREATED, &out(&rec)))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    match warehouses::get(&ctx.app.store, ctx.param("id"))? {
        Some(w) => Ok(json(StatusCode::OK, &out(&w))),
        None => Err(WarehouseError::NotFound.into()),
    }
}

pub fn update(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let i: WarehouseInput = body::json(&ctx.body)?;
    if !i.id.is_absent() {
        return Err(ApiError::validation(
            "id",
            "A warehouse id cannot be changed.",
        ));
    }
    let patch = WarehousePatch {
        name: not_null("name", i.name)?.map(name).transpose()?,
        address: i
            .address
            .patch()
            .map(|a| a.map(|a| a.validate("address")).transpose())
            .transpose()?,
        boxes: match i.boxes {
            Field::Null => Some(Vec::new()),
            other => other.optional().map(parse_boxes).transpose()?,
        },
    };
    let rec = warehouses::update(&ctx.app.store, ctx.param("id"), &patch)?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&rec)))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let num = |d: &str| json!({"type": "number", "exclusiveMinimum": 0, "description": d});
    let box_schema = json!({
        "type": "object",
        "required": ["boxId", "width", "height", "length", "maxWeight"],
        "properties": {
            "boxId": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,32}$"},
            "width": num("Inside width"), "height": num("Inside height (vertical)"), "length": num("Inside length"),
            "maxWeight": num("Maximum total weight of the packed box"),
            "quantity": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_BOXES, "description": "Boxes available; absent or null means unlimited"},
            "cost": {"type": ["number", "null"], "minimum": 0},
            "tareWeight": {"type": ["number", "null"], "minimum": 0, "description": "Weight of the empty box"},
        }
    });
    let fields = json!({
        "id": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,32}$", "description": "Short code; generated (WH-XXXXXXXX) when absent"},
        "name": name_schema(200),
        "address": {"oneOf": [{"$ref": "#/components/schemas/Address"}, {"type": "null"}]},
        "boxes": {"type": "array", "items": {"$ref": "#/components/schemas/Box"}},
    });
    let mut w = fields.as_object().cloned().unwrap_or_default();
    w.insert(
        "createdAt".into(),
        json!({"type": "string", "format": "date-time"}),
    );
    w.insert(
        "updatedAt".into(),
        json!({"type": "string", "format": "date-time"}),
    );
    vec![
        ("Address", address::schema()),
        ("Box", box_schema),
        (
            "Warehouse",
            json!({"type": "object", "properties": w, "required": ["id", "name", "address", "boxes", "createdAt", "updatedAt"]}),
        ),
        (
            "WarehouseCreate",
            json!({"type": "object", "properties": fields, "required": ["name"],
            "examples": [{"id": "RNO", "name": "Reno DC", "boxes": [{"boxId": "S", "width": 8, "height": 6, "length": 10, "maxWeight": 20, "cost": 0.9}]}]}),
        ),
        (
            "WarehouseUpdate",
            json!({"type": "object", "properties": {"name": fields["name"], "address": fields["address"], "boxes": fields["boxes"]},
            "description": "Any of name, address, boxes; boxes replaces the whole catalog."}),
        ),
        (
            "WarehouseList",
            json!({"type": "object", "required": ["warehouses", "pagination"], "properties": {
            "warehouses": {"type": "array", "items": {"$ref": "#/components/schemas/Warehouse"}},
            "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
    ]
}
