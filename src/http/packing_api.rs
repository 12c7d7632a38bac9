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

use super::body::{self, Field, Whole};
use super::ctx::Ctx;
use super::error::ApiError;
use super::packing_steps::{self, Drawn};
use super::response::{json, Resp};
use crate::workers::Refused;

#[derive(Deserialize)]
struct OptimizeInput {
    #[serde(default, deserialize_with = "super::body::objects")]
    items: Field<Vec<ItemInput>>,
    #[serde(default, deserialize_with = "super::body::objects")]
    warehouses: Field<Vec<WarehouseInput>>,
    #[serde(default)]
    units: Field<String>,
    #[serde(default)]
    weight_units: Field<String>,
    #[serde(default, deserialize_with = "super::body::object")]
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
    quantity: Field<Whole>,
    #[serde(default)]
    orientation: Field<String>,
    #[serde(default, deserialize_with = "super::body::object")]
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
    #[serde(default, deserialize_with = "super::body::objects")]
    boxes: Field<Vec<BoxInput>>,
    #[serde(default)]
    inventory: Field<BTreeMap<String, Whole>>,
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
    quantity: Field<Whole>,
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
    time_limit_ms: Field<Whole>,
    #[serde(default)]
    require_support: Field<bool>,
    #[serde(default)]
    min_support: Field<f64>,
    #[serde(default)]
    include_steps: Field<bool>,
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
        quantity: it.quantity.required(&f("quantity"))?.0,
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
                quantity: b.quantity.optional().map(|q| q.0),
                cost: b.cost.optional().unwrap_or(0.0),
                tare_weight: b.tare_weight.optional().unwrap_or(0.0),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(packing::Warehouse {
        warehouse_id: w.warehouse_id.required(&f("warehouse_id"))?,
        boxes,
        inventory: w
            .inventory
            .optional()
            .map(|m| m.into_iter().map(|(k, v)| (k, v.0)).collect())
            .unwrap_or_default(),
    })
}

/// The engine's request, and whether the answer includes each package's steps and diagram.
fn request(i: OptimizeInput) -> Result<(packing::PackRequest, bool), ApiError> {
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
    let include_steps = o.include_steps.optional().unwrap_or(false);
    let req = packing::PackRequest {
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
            time_limit_ms: match o.time_limit_ms.optional() {
                Some(Whole(t)) => Some(u64::try_from(t).map_err(|_| {
                    ApiError::validation(
                        "options.time_limit_ms",
                        format!("must be 0 to {}", packing::MAX_TIME_LIMIT_MS),
                    )
                })?),
                None => None,
            },
            require_support: o.require_support.optional().unwrap_or(true),
            min_support: o.min_support.optional().unwrap_or(1.0),
        },
    };
    Ok((req, include_steps))
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

fn response(sol: &packing::PackSolution, drawn: &[Drawn], solve_ms: f64) -> Value {
    let packages: Vec<Value> = sol
        .packages
        .iter()
        .enumerate()
        .map(|(n, p)| {
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
            let mut package = json!({
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
            });
            if let Some(d) = drawn.get(n) {
                packing_steps::add(&mut package, d);
            }
            package
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

fn refused(r: Refused) -> ApiError {
    match r {
        Refused::Busy => ApiError::unavailable("The packing queue is full; retry shortly.")
            .header(RETRY_AFTER, 1),
        Refused::Closed => {
            ApiError::unavailable("The packing service is stopping or failed; retry.")
        }
    }
}

pub async fn optimize(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let input: OptimizeInput = body::json(&ctx.body)?;
    let (req, include_steps) = request(input)?;
    let started = Instant::now();
    // Two portfolio variants raced, on two workers when the pool is idle, else one after the
    // other on one: the first provably optimal packing by work, else the better by the goal,
    // is the answer either way, so it depends only on the request.
    let req = Arc::new(req);
    let race = Arc::new(packing::Race::new());
    let (r0, r1) = (Arc::clone(&req), Arc::clone(&req));
    let (race0, race1) = (Arc::clone(&race), race);
    let outcome = ctx
        .app
        .packing_pool
        .run_pair(
            move || packing::pack_racing(&r0, 0, &race0),
            move || packing::pack_racing(&r1, 1, &race1),
        )
        .await
        .map_err(refused)
        .map(|pair| match pair {
            (Ok(a), Ok(b)) => packing::race_winner(&req, vec![a, b]),
            (Err(e), _) | (_, Err(e)) => Err(e),
        })?;
    // The steps and diagrams of the chosen packing only, drawn on the pool as well.
    let outcome = match outcome {
        Ok(sol) if include_steps => Ok(ctx
            .app
            .packing_pool
            .run(move || {
                let drawn = packing_steps::draw(&sol, &req.items);
                (sol, drawn)
            })
            .await
            .map_err(refused)?),
        Ok(sol) => Ok((sol, Vec::new())),
        Err(e) => Err(e),
    };
    let solved = started.elapsed().as_secs_f64();
    ctx.app
        .metrics
        .packing_seconds
        .with_label_values(&["optimize"])
        .observe(solved);
    let solve_ms = solved * 1000.0;
    match outcome {
        Ok((sol, drawn)) => Ok(json(
            StatusCode::OK,
            &response(&sol, &drawn, (solve_ms * 1000.0).round() / 1000.0),
        )),
        Err(packing::Error::Validation { field, message }) => {
            Err(ApiError::validation(field, message))
        }
        Err(e @ packing::Error::Internal(_)) => Err(ApiError::internal(e)),
    }
}
