//! `POST /api/v1/optimize` on the packing listener: the packing document's snake_case
//! request and response (plus decisions.md section 7), mapped to and from the `packing`
//! crate, run on the worker pool with a bounded queue (503 + Retry-After when full).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use hyper::header::RETRY_AFTER;
use hyper::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{json, Resp};
use crate::workers::Refused;

#[derive(Deserialize)]
struct OptimizeInput {
    #[serde(default)]
    items: Field<Vec<ItemInput>>,
    #[serde(default)]
    warehouses: Field<Vec<WarehouseInput>>,
    #[serde(default)]
    units: Field<String>,
    #[serde(default)]
    weight_units: Field<String>,
    #[serde(default)]
    options: Field<OptionsInput>,
}

#[derive(Deserialize)]
struct ItemInput {
    #[serde(default)]
    item_id: Field<String>,
    #[serde(default)]
    width: Field<f64>,
    #[serde(default)]
    height: Field<f64>,
    #[serde(default)]
    length: Field<f64>,
    #[serde(default)]
    weight: Field<f64>,
    #[serde(default)]
    quantity: Field<i64>,
    #[serde(default)]
    orientation: Field<String>,
    #[serde(default)]
    hazmat: Field<HazmatInput>,
    #[serde(default)]
    fragile: Field<bool>,
    #[serde(default)]
    stackable: Field<bool>,
}

#[derive(Deserialize)]
struct HazmatInput {
    #[serde(default)]
    class: Field<String>,
    #[serde(default)]
    un_number: Field<String>,
}

#[derive(Deserialize)]
struct WarehouseInput {
    #[serde(default)]
    warehouse_id: Field<String>,
    #[serde(default)]
    boxes: Field<Vec<BoxInput>>,
    #[serde(default)]
    inventory: Field<BTreeMap<String, i64>>,
}

#[derive(Deserialize)]
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
    quantity: Field<i64>,
    #[serde(default)]
    cost: Field<f64>,
    #[serde(default)]
    tare_weight: Field<f64>,
}

#[derive(Deserialize, Default)]
struct OptionsInput {
    #[serde(default)]
    goal: Field<String>,
    #[serde(default)]
    instructions: Field<String>,
    #[serde(default)]
    time_limit_ms: Field<u64>,
    #[serde(default)]
    require_support: Field<bool>,
    #[serde(default)]
    min_support: Field<f64>,
}

fn one_of<T>(
    field: &str,
    v: Field<String>,
    parse: fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<Option<T>, ApiError> {
    match v.optional() {
        None => Ok(None),
        Some(s) => parse(&s).map(Some).ok_or_else(|| {
            ApiError::validation(field, format!("{field} must be one of {allowed}."))
        }),
    }
}

fn item(i: usize, it: ItemInput) -> Result<packing::Item, ApiError> {
    let f = |n: &str| format!("items[{i}].{n}");
    Ok(packing::Item {
        item_id: it.item_id.required(&f("item_id"))?,
        width: it.width.required(&f("width"))?,
        height: it.height.required(&f("height"))?,
        length: it.length.required(&f("length"))?,
        weight: it.weight.required(&f("weight"))?,
        quantity: it.quantity.required(&f("quantity"))?,
        orientation: one_of(
            &f("orientation"),
            it.orientation,
            packing::Orientation::parse,
            "any, upright, fixed",
        )?
        .unwrap_or_default(),
        hazmat: match it.hazmat.optional() {
            Some(h) => Some(packing::Hazmat {
                class: h.class.required(&f("hazmat.class"))?,
                un_number: h.un_number.optional(),
            }),
            None => None,
        },
        fragile: it.fragile.optional().unwrap_or(false),
        stackable: it.stackable.optional().unwrap_or(true),
    })
}

fn warehouse(i: usize, w: WarehouseInput) -> Result<packing::Warehouse, ApiError> {
    let f = |n: &str| format!("warehouses[{i}].{n}");
    let boxes = w
        .boxes
        .required(&f("boxes"))?
        .into_iter()
        .enumerate()
        .map(|(j, b)| {
            let g = |n: &str| format!("warehouses[{i}].boxes[{j}].{n}");
            Ok(packing::BoxType {
                box_id: b.box_id.required(&g("box_id"))?,
                width: b.width.required(&g("width"))?,
                height: b.height.required(&g("height"))?,
                length: b.length.required(&g("length"))?,
                max_weight: b.max_weight.required(&g("max_weight"))?,
                quantity: b.quantity.optional(),
                cost: b.cost.optional().unwrap_or(0.0),
                tare_weight: b.tare_weight.optional().unwrap_or(0.0),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(packing::Warehouse {
        warehouse_id: w.warehouse_id.required(&f("warehouse_id"))?,
        boxes,
        inventory: w.inventory.optional().unwrap_or_default(),
    })
}

fn request(i: OptimizeInput) -> Result<packing::PackRequest, ApiError> {
    let items = i
        .items
        .required("items")?
        .into_iter()
        .enumerate()
        .map(|(n, it)| item(n, it))
        .collect::<Result<Vec<_>, _>>()?;
    let warehouses = i
        .warehouses
        .required("warehouses")?
        .into_iter()
        .enumerate()
        .map(|(n, w)| warehouse(n, w))
        .collect::<Result<Vec<_>, _>>()?;
    let o = i.options.optional().unwrap_or_default();
    Ok(packing::PackRequest {
        items,
        warehouses,
        units: one_of("units", i.units, packing::LengthUnit::parse, "in, cm")?.unwrap_or_default(),
        weight_units: one_of(
            "weight_units",
            i.weight_units,
            packing::WeightUnit::parse,
            "lb, kg",
        )?,
        options: packing::PackOptions {
            goal: one_of(
                "options.goal",
                o.goal,
                packing::Goal::parse,
                "fewest_packages, lowest_cost, fewest_warehouses, best_fit, balanced_weight",
            )?
            .unwrap_or_default(),
            instructions: o.instructions.optional().unwrap_or_default(),
            time_limit_ms: o.time_limit_ms.optional(),
            require_support: o.require_support.optional().unwrap_or(true),
            min_support: o.min_support.optional().unwrap_or(1.0),
        },
    })
}

#[derive(Serialize)]
struct Xyz {
    x: f64,
    y: f64,
    z: f64,
}

#[derive(Serialize)]
struct Whl {
    width: f64,
    height: f64,
    length: f64,
}

fn whl(d: &packing::Dimensions) -> Whl {
    Whl {
        width: d.width,
        height: d.height,
        length: d.length,
    }
}

/// A short random suffix for package ids; the engine itself stays deterministic.
fn random_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..10].to_string()
}

fn response(sol: &packing::PackSolution, solve_ms: f64) -> Value {
    let packages: Vec<Value> = sol
        .packages
        .iter()
        .map(|p| {
            let items: Vec<Value> = p
                .items
                .iter()
                .map(|it| {
                    json!({
                        "item_id": it.item_id,
                        "position": Xyz { x: it.position.x, y: it.position.y, z: it.position.z },
                        "dimensions": whl(&it.dimensions),
                        "rotated": it.rotated,
                        "weight": it.weight,
                    })
                })
                .collect();
            let wd = &p.weight_distribution;
            json!({
                "package_id": format!("pkg_{}_{}_{}", p.warehouse_id, p.box_id, random_suffix()),
                "warehouse_id": p.warehouse_id,
                "box_id": p.box_id,
                "box_dimensions": whl(&p.box_dimensions),
                "items": items,
                "total_weight": p.total_weight,
                "gross_weight": p.gross_weight,
                "volume_utilization": p.volume_utilization,
                "cost": p.cost,
                "center_of_gravity": Xyz { x: p.center_of_gravity.x, y: p.center_of_gravity.y, z: p.center_of_gravity.z },
                "weight_distribution": {
                    "front_left": wd.front_left, "front_right": wd.front_right,
                    "back_left": wd.back_left, "back_right": wd.back_right,
                    "balance_score": wd.balance_score,
                },
                "hazmat": {
                    "classes": p.hazmat.classes, "compliant": p.hazmat.compliant,
                    "issues": p.hazmat.issues, "notes": p.hazmat.notes,
                },
            })
        })
        .collect();
    json!({
        "packages": packages,
        "summary": {
            "total_packages": sol.summary.total_packages,
            "total_items_packed": sol.summary.total_items_packed,
            "warehouses_used": sol.summary.warehouses_used,
            "average_utilization": sol.summary.average_utilization,
            "total_cost": sol.summary.total_cost,
            "min_support": sol.summary.min_support,
            "solve_ms": solve_ms,
        },
        "unfitted_items": sol.unfitted_items.iter().map(|u| json!({
            "item_id": u.item_id, "quantity": u.quantity, "reason": u.reason.as_str(),
        })).collect::<Vec<_>>(),
        "compliance": { "hazmat_compliant": sol.compliance.hazmat_compliant, "issues": sol.compliance.issues },
        "instructions": sol.instructions.iter().map(|i| json!({
            "text": i.text, "status": i.status.as_str(), "detail": i.detail,
        })).collect::<Vec<_>>(),
    })
}

pub async fn optimize(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let input: OptimizeInput = body::json(&ctx.body)?;
    let req = request(input)?;
    let started = Instant::now();
    // Two portfolio variants, on two workers when the pool is idle, else one after the other
    // on one: the better by the goal is the answer either way, so it depends only on the request.
    let req = Arc::new(req);
    let (r0, r1) = (Arc::clone(&req), Arc::clone(&req));
    let outcome = ctx
        .app
        .packing_pool
        .run_pair(
            move || packing::pack_variant(&r0, 0),
            move || packing::pack_variant(&r1, 1),
        )
        .await
        .map_err(|refused| match refused {
            Refused::Busy => ApiError::unavailable("The packing queue is full; retry shortly.")
                .header(RETRY_AFTER, 1),
            Refused::Closed => {
                ApiError::unavailable("The packing service is stopping or failed; retry.")
            }
        })
        .map(|pair| match pair {
            (Ok(a), Ok(b)) => packing::better_solution(&req, a, b),
            (Err(e), _) | (_, Err(e)) => Err(e),
        })?;
    let solved = started.elapsed().as_secs_f64();
    ctx.app
        .metrics
        .packing_seconds
        .with_label_values(&["optimize"])
        .observe(solved);
    let solve_ms = solved * 1000.0;
    match outcome {
        Ok(sol) => Ok(json(
            StatusCode::OK,
            &response(&sol, (solve_ms * 1000.0).round() / 1000.0),
        )),
        Err(packing::Error::Validation { field, message }) => {
            Err(ApiError::validation(field, message))
        }
        Err(e @ packing::Error::Internal(_)) => Err(ApiError::internal(e)),
    }
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let num = |d: &str| json!({"type": "number", "description": d});
    let whl = json!({"type": "object", "properties": {"width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"}}});
    let xyz = json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number", "description": "vertical"}, "z": {"type": "number"}}});
    vec![
        (
            "OptimizeRequest",
            json!({"type": "object", "required": ["items", "warehouses"], "properties": {
            "items": {"type": "array", "items": {"$ref": "#/components/schemas/PackItem"}},
            "warehouses": {"type": "array", "items": {"$ref": "#/components/schemas/PackWarehouse"}},
            "units": {"enum": ["in", "cm"], "default": "in"},
            "weight_units": {"enum": ["lb", "kg"], "description": "Default lb with in, kg with cm"},
            "options": {"type": "object", "properties": {
                "goal": {"enum": ["fewest_packages", "lowest_cost", "fewest_warehouses", "best_fit", "balanced_weight"], "default": "fewest_packages"},
                "instructions": {"type": "string", "description": "Free text read by a deterministic rule reader; each instruction is reported as applied or not understood"},
                "time_limit_ms": {"type": "integer", "description": "Improvement budget; the same request and limit give the same result"},
                "require_support": {"type": "boolean", "default": true},
                "min_support": {"type": "number", "minimum": 0.5, "maximum": 1, "default": 1,
                    "description": "With require_support, the share of each unit's base that must rest on the floor or on units directly below it"}}}},
            "examples": [{"units": "in", "items": [{"item_id": "mug", "width": 4, "height": 4, "length": 4, "weight": 1, "quantity": 6}],
                "warehouses": [{"warehouse_id": "w1", "boxes": [{"box_id": "M", "width": 12, "height": 8, "length": 10, "max_weight": 40, "quantity": 10}], "inventory": {"mug": 10}}]}]}),
        ),
        (
            "PackItem",
            json!({"type": "object", "required": ["item_id", "width", "height", "length", "weight", "quantity"], "properties": {
            "item_id": {"type": "string"}, "width": num("x extent"), "height": num("vertical extent when upright"), "length": num("z extent"),
            "weight": num("per unit"), "quantity": {"type": "integer", "minimum": 1},
            "orientation": {"enum": ["any", "upright", "fixed"], "default": "any", "description": "all six turns, turns about the vertical axis only, or none"},
            "hazmat": {"type": "object", "properties": {"class": {"type": "string"}, "un_number": {"type": "string"}}},
            "fragile": {"type": "boolean"}, "stackable": {"type": "boolean", "default": true}}}),
        ),
        (
            "PackWarehouse",
            json!({"type": "object", "required": ["warehouse_id", "boxes"], "properties": {
            "warehouse_id": {"type": "string"},
            "boxes": {"type": "array", "items": {"type": "object", "required": ["box_id", "width", "height", "length", "max_weight"], "properties": {
                "box_id": {"type": "string"}, "width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"},
                "max_weight": num("Maximum total weight"), "quantity": {"type": "integer", "description": "Boxes available; absent means unlimited"},
                "cost": {"type": "number"}, "tare_weight": {"type": "number"}}}},
            "inventory": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "item_id -> units in stock here"}}}),
        ),
        (
            "OptimizeResponse",
            json!({"type": "object", "required": ["packages", "summary", "unfitted_items"], "properties": {
            "packages": {"type": "array", "items": {"type": "object", "properties": {
                "package_id": {"type": "string", "description": "pkg_{warehouse}_{box}_{random}"},
                "warehouse_id": {"type": "string"}, "box_id": {"type": "string"}, "box_dimensions": whl,
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "item_id": {"type": "string"}, "position": xyz, "dimensions": whl, "rotated": {"type": "boolean"}, "weight": {"type": "number"}}}},
                "total_weight": num("Sum of item weights"), "gross_weight": num("Items plus tare"),
                "volume_utilization": num("0..1"), "cost": {"type": "number"}, "center_of_gravity": xyz,
                "weight_distribution": {"type": "object", "properties": {
                    "front_left": {"type": "number"}, "front_right": {"type": "number"}, "back_left": {"type": "number"}, "back_right": {"type": "number"},
                    "balance_score": num("1 = perfectly balanced")}},
                "hazmat": {"type": "object", "properties": {"classes": {"type": "array", "items": {"type": "string"}}, "compliant": {"type": "boolean"},
                    "issues": {"type": "array", "items": {"type": "string"}}, "notes": {"type": "array", "items": {"type": "string"}}}}}}},
            "summary": {"type": "object", "properties": {"total_packages": {"type": "integer"}, "total_items_packed": {"type": "integer"},
                "warehouses_used": {"type": "array", "items": {"type": "string"}}, "average_utilization": {"type": "number"},
                "total_cost": {"type": "number"}, "solve_ms": {"type": "number"},
                "min_support": num("share of each unit's base the packing was held to rest (0 without require_support)")}},
            "unfitted_items": {"type": "array", "items": {"type": "object", "properties": {"item_id": {"type": "string"}, "quantity": {"type": "integer"},
                "reason": {"enum": ["too_large", "too_heavy", "no_inventory", "no_box_available", "hazmat_restriction"]}}}},
            "compliance": {"type": "object", "properties": {"hazmat_compliant": {"type": "boolean"}, "issues": {"type": "array", "items": {"type": "string"}}}},
            "instructions": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"},
                "status": {"enum": ["applied", "not_understood"]}, "detail": {"type": "string"}}}}}}),
        ),
    ]
}
