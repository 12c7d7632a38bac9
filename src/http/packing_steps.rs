//! `options.include_steps` of `POST /api/v1/optimize`: each package's loading order as
//! snake_case `steps` and its packed box as `diagram_svg`, drawn by the `views` crate from the
//! engine's answer (on the packing pool, with the packing itself).

use serde_json::{json, Value};
use views::{diagram, loading_order, PackedBox, Step};

/// One package's steps and picture.
pub struct Drawn {
    steps: Vec<Step>,
    svg: String,
}

/// The steps and picture of every package of `sol`, in its order. `items` are the request's
/// (turn rules, fragility and hazmat class of each unit).
pub fn draw(sol: &packing::PackSolution, items: &[packing::Item]) -> Vec<Drawn> {
    sol.packages
        .iter()
        .map(|p| {
            let bx = PackedBox::from_package(p, items);
            let steps = loading_order(&bx);
            let svg = diagram(&bx, &steps, None);
            Drawn { steps, svg }
        })
        .collect()
}

/// Adds `steps` and `diagram_svg` to a package of the answer.
pub fn add(package: &mut Value, d: &Drawn) {
    let steps: Vec<Value> = d
        .steps
        .iter()
        .map(|s| {
            json!({
                "step": s.step,
                "item_id": s.sku,
                "position": {"x": s.position.x, "y": s.position.y, "z": s.position.z},
                "dimensions": {"width": s.dimensions.width, "height": s.dimensions.height, "length": s.dimensions.length},
                "rotated": s.rotated,
                "orientation": s.orientation.as_str(),
                "fragile": s.fragile,
                "hazmat_class": s.hazmat_class,
                "rests_on": s.rests_on,
            })
        })
        .collect();
    package["steps"] = Value::Array(steps);
    package["diagram_svg"] = Value::String(d.svg.clone());
}

/// The schema of one step, for the packing document.
pub fn step_schema() -> Value {
    let whl = json!({"type": "object", "required": ["width", "height", "length"], "properties": {"width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"}}});
    json!({"type": "object",
        "required": ["step", "item_id", "position", "dimensions", "rotated", "orientation", "fragile", "hazmat_class", "rests_on"],
        "description": "One unit of the loading order: each unit comes after every unit it rests on and no earlier unit lies above a later one (units are lowered in from the open top).",
        "properties": {
            "step": {"type": "integer", "minimum": 1},
            "item_id": {"type": "string"},
            "position": {"type": "object", "required": ["x", "y", "z"], "properties": {"x": {"type": "number"}, "y": {"type": "number", "description": "vertical"}, "z": {"type": "number"}}},
            "dimensions": whl,
            "rotated": {"type": "boolean"},
            "orientation": {"enum": ["any", "upright", "fixed"], "description": "The item's turn rule; upright and fixed: this side up"},
            "fragile": {"type": "boolean"},
            "hazmat_class": {"type": ["string", "null"]},
            "rests_on": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "Steps of the units this one stands on (empty: the floor)"}}})
}
