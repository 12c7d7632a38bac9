//! The packer's views of a package: `GET /api/packages/{id}/instructions` (the box and the
//! loading order as numbered steps), `/diagram.svg?step=K` (the isometric picture of a step
//! or of the packed box) and `/slip` (the printable packing slip), all from the package's
//! kept view (`domain::package_views`).

use std::sync::Arc;

use bytes::Bytes;
use hyper::StatusCode;
use serde::Serialize;
use serde_json::{json, Value};
use storage::AddressRecord;
use views::{slip_html, ContentLine, PaperSize, Slip, Step};

use super::ctx::Ctx;
use super::error::ApiError;
use super::packages::{milli, package_ref, path_id, Extent, Position};
use super::query::Query;
use super::response::{bytes, json, Resp};
use crate::config::Units;
use crate::domain::package_views::{PackageView, Scenes};
use crate::domain::packages::PackageError;

fn view(ctx: &Ctx<'_>, scenes: &Scenes) -> Result<Arc<PackageView>, ApiError> {
    let id = path_id(ctx)?;
    scenes
        .get(&ctx.app.store, id)?
        .ok_or_else(|| PackageError::NotFound.into())
}

fn length_unit(units: Units) -> &'static str {
    match units {
        Units::InLb => "in",
        Units::CmKg => "cm",
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepOut<'a> {
    step: usize,
    sku: &'a str,
    name: &'a str,
    position: Position,
    dimensions: Extent,
    rotated: bool,
    orientation: &'static str,
    fragile: bool,
    hazmat_class: Option<&'a str>,
    rests_on: &'a [usize],
}

fn step_out(s: &Step) -> StepOut<'_> {
    StepOut {
        step: s.step,
        sku: &s.sku,
        name: &s.name,
        position: Position {
            x: milli(s.position.x),
            y: milli(s.position.y),
            z: milli(s.position.z),
        },
        dimensions: Extent {
            width: milli(s.dimensions.width),
            height: milli(s.dimensions.height),
            length: milli(s.dimensions.length),
        },
        rotated: s.rotated,
        orientation: s.orientation.as_str(),
        fragile: s.fragile,
        hazmat_class: s.hazmat_class.as_deref(),
        rests_on: &s.rests_on,
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InstructionsOut<'a> {
    package_id: String,
    order_id: String,
    warehouse_id: &'a str,
    box_id: &'a str,
    box_dimensions: Extent,
    length_unit: &'static str,
    steps: Vec<StepOut<'a>>,
}

pub fn instructions(ctx: &mut Ctx<'_>, scenes: &Scenes) -> Result<Resp, ApiError> {
    let v = view(ctx, scenes)?;
    let p = &v.package;
    let [width, height, length] = p.box_dimensions.map(milli);
    let out = InstructionsOut {
        package_id: package_ref(p.id),
        order_id: uuid::Uuid::from_u128(p.order_id).to_string(),
        warehouse_id: &p.warehouse_id,
        box_id: &p.box_id,
        box_dimensions: Extent {
            width,
            height,
            length,
        },
        length_unit: length_unit(ctx.app.config.units),
        steps: v.steps.iter().map(step_out).collect(),
    };
    Ok(json(StatusCode::OK, &out))
}

pub fn diagram(ctx: &mut Ctx<'_>, scenes: &Scenes) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref())?;
    let raw = q.get("step").map(str::to_string);
    let v = view(ctx, scenes)?;
    let last = v.steps.len();
    let step = match raw {
        None => None,
        Some(raw) => {
            let k: i64 = raw.trim().parse().map_err(|_| {
                ApiError::bad_request("Query parameter step must be an integer.").on("step")
            })?;
            if !(0..=last as i64).contains(&k) {
                return Err(ApiError::validation(
                    "step",
                    format!("step must be between 0 (the empty box) and {last}, the package's last step."),
                ));
            }
            Some(k as usize)
        }
    };
    let svg = v.scene.render(step);
    Ok(bytes(StatusCode::OK, "image/svg+xml", Bytes::from(svg)))
}

/// The address as printed: name, street lines, city with region and postal code, country.
fn address_lines(a: &AddressRecord) -> Vec<String> {
    let mut lines: Vec<String> = a.name.iter().cloned().collect();
    lines.push(a.line1.clone());
    lines.extend(a.line2.iter().cloned());
    lines.push(match &a.region {
        Some(r) => format!("{}, {r} {}", a.city, a.postal_code),
        None => format!("{} {}", a.postal_code, a.city),
    });
    lines.push(a.country.clone());
    lines
}

pub fn slip(ctx: &mut Ctx<'_>, scenes: &Scenes) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref())?;
    let paper = match q.get("paper") {
        None | Some("a4") => PaperSize::A4,
        Some("letter") => PaperSize::Letter,
        Some(_) => return Err(ApiError::validation("paper", "paper must be a4 or letter.")),
    };
    let v = view(ctx, scenes)?;
    let p = &v.package;
    let order = v.order.as_ref();
    let page = slip_html(&Slip {
        package_id: package_ref(p.id),
        order_reference: order.map_or_else(
            || uuid::Uuid::from_u128(p.order_id).to_string(),
            |o| o.external_id.clone(),
        ),
        ship_to: order
            .and_then(|o| o.shipping_addresses.first())
            .map(address_lines)
            .unwrap_or_default(),
        contents: v
            .contents()
            .into_iter()
            .map(|(sku, name, quantity)| ContentLine {
                sku,
                name,
                quantity,
            })
            .collect(),
        box_id: p.box_id.clone(),
        box_inner: views::Size {
            width: milli(p.box_dimensions[0]),
            height: milli(p.box_dimensions[1]),
            length: milli(p.box_dimensions[2]),
        },
        length_unit: length_unit(ctx.app.config.units).to_string(),
        diagram_svg: v.scene.render(None),
        paper,
    });
    Ok(bytes(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Bytes::from(page),
    ))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let extent = json!({"type": "object", "required": ["width", "height", "length"], "properties": {
        "width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"}}});
    vec![
        (
            "PackageInstructions",
            json!({"type": "object",
            "required": ["packageId", "orderId", "warehouseId", "boxId", "boxDimensions", "lengthUnit", "steps"],
            "description": "The box to take and the loading order a person can follow: each unit comes after every unit it rests on, and no earlier unit lies above a later one (units are lowered in from the open top); layers go from the bottom, back to front, keeping runs of one SKU. Coordinates as in Package: `y` is up, `z = 0` is the box's front.",
            "properties": {
                "packageId": {"type": "string"}, "orderId": {"type": "string", "format": "uuid"},
                "warehouseId": {"type": "string"}, "boxId": {"type": "string"},
                "boxDimensions": extent, "lengthUnit": {"enum": ["in", "cm"]},
                "steps": {"type": "array", "items": {"$ref": "#/components/schemas/PackingStep"}}}}),
        ),
        (
            "PackingStep",
            json!({"type": "object",
            "required": ["step", "sku", "name", "position", "dimensions", "rotated", "orientation", "fragile", "hazmatClass", "restsOn"],
            "properties": {
                "step": {"type": "integer", "minimum": 1},
                "sku": {"type": "string"},
                "name": {"type": "string", "description": "The order line's product name (the SKU when it has none)."},
                "position": {"type": "object", "required": ["x", "y", "z"], "description": "The unit's lowest corner from the box's inner front-left floor corner.",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"}}},
                "dimensions": extent,
                "rotated": {"type": "boolean", "description": "Placed turned from the product's own width, height, length."},
                "orientation": {"enum": ["any", "upright", "fixed"], "description": "upright and fixed: this side up."},
                "fragile": {"type": "boolean"},
                "hazmatClass": {"type": ["string", "null"]},
                "restsOn": {"type": "array", "items": {"type": "integer", "minimum": 1},
                    "description": "Steps of the units this one stands on (empty: the floor); all earlier."}}}),
        ),
    ]
}
