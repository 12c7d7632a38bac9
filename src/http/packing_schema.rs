//! The packing document's schemas of `POST /api/v1/optimize` (request, answer and the
//! optional loading steps), kept beside the handler in `packing_api.rs` that they describe.

use serde_json::{json, Value};

use super::fields::or_null;
use super::packing_steps;

/// A hazard class as the engine reads it: a UN class or division, optionally after "class",
/// any case, spaces around.
const HAZMAT_CLASS: &str = r"^\s*([Cc][Ll][Aa][Ss][Ss])?\s*(1(\.[1-6])?|2(\.[1-3])?|3|4(\.[1-3])?|5(\.[12])?|6(\.[12])?|7|8|9)\s*$";

pub fn schemas() -> Vec<(&'static str, Value)> {
    let num = |d: &str| json!({"type": "number", "description": d});
    let length = |d: &str| json!({"type": "number", "exclusiveMinimum": 0, "maximum": packing::MAX_LENGTH, "description": d});
    let weight = |d: &str| json!({"type": "number", "minimum": 0, "maximum": packing::MAX_WEIGHT, "description": d});
    let id =
        json!({"type": "string", "pattern": "\\S", "description": "Not blank; unique in its list"});
    let whl = json!({"type": "object", "properties": {"width": {"type": "number"}, "height": {"type": "number"}, "length": {"type": "number"}}});
    let xyz = json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number", "description": "vertical"}, "z": {"type": "number"}}});
    vec![
        ("PackStep", packing_steps::step_schema()),
        (
            "OptimizeRequest",
            json!({"type": "object", "required": ["items", "warehouses"], "properties": {
            "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/PackItem"},
                "description": "At most 10,000 units in all (quantities summed)"},
            "warehouses": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/PackWarehouse"}},
            "units": {"enum": ["in", "cm", null], "default": "in"},
            "weight_units": {"enum": ["lb", "kg", null], "description": "Default lb with in, kg with cm"},
            "options": {"type": ["object", "null"], "properties": {
                "goal": {"enum": ["fewest_packages", "lowest_cost", "fewest_warehouses", "best_fit", "balanced_weight", null], "default": "fewest_packages"},
                "instructions": {"type": ["string", "null"], "description": "Free text read by a deterministic rule reader; each instruction is reported as applied or not understood"},
                "time_limit_ms": {"type": ["integer", "null"], "minimum": 0, "maximum": packing::MAX_TIME_LIMIT_MS, "description": "Budget of each of the request's two search variants (raced on two packing workers when both are idle, else run one after the other), all its passes together (an order from several warehouses takes several), counted as deterministic work: the same request and limit give the same result. Absent: 2 ms per unit, at least 100 and at most 200, for each pass, and at most 10 passes (an order from several warehouses above its lower bound also tries other splits and moves between warehouses)"},
                "require_support": {"type": ["boolean", "null"], "default": true},
                "min_support": {"type": ["number", "null"], "minimum": 0.5, "maximum": 1, "default": 1,
                    "description": "With require_support, the share of each unit's base that must rest on the floor or on units directly below it"},
                "include_steps": {"type": ["boolean", "null"], "default": false,
                    "description": "Adds each package's loading order (steps) and an isometric SVG of the packed box (diagram_svg); not to be confused with the free-text instructions. solve_ms then includes drawing them"}}}},
            "examples": [{"units": "in", "items": [{"item_id": "mug", "width": 4, "height": 4, "length": 4, "weight": 1, "quantity": 6}],
                "warehouses": [{"warehouse_id": "w1", "boxes": [{"box_id": "M", "width": 12, "height": 8, "length": 10, "max_weight": 40, "quantity": 10}], "inventory": {"mug": 10}}]}]}),
        ),
        (
            "PackItem",
            json!({"type": "object", "required": ["item_id", "width", "height", "length", "weight", "quantity"], "properties": {
            "item_id": id, "width": length("x extent"), "height": length("vertical extent when upright"), "length": length("z extent"),
            "weight": weight("per unit"), "quantity": {"type": "integer", "minimum": 1, "maximum": packing::MAX_UNITS},
            "orientation": {"enum": ["any", "upright", "fixed", null], "default": "any", "description": "all six turns, turns about the vertical axis only, or none"},
            "hazmat": or_null(json!({"type": "object", "required": ["class"], "properties": {
                "class": {"type": "string", "pattern": HAZMAT_CLASS, "examples": ["3", "2.1", "Class 5.1"]},
                "un_number": {"type": ["string", "null"]}}})),
            "fragile": {"type": ["boolean", "null"]}, "stackable": {"type": ["boolean", "null"], "default": true}}}),
        ),
        (
            "PackWarehouse",
            json!({"type": "object", "required": ["warehouse_id", "boxes"], "properties": {
            "warehouse_id": id,
            "boxes": {"type": "array", "items": {"type": "object", "required": ["box_id", "width", "height", "length", "max_weight"], "properties": {
                "box_id": id, "width": length("x extent"), "height": length("vertical extent"), "length": length("z extent"),
                "max_weight": {"type": "number", "exclusiveMinimum": 0, "maximum": packing::MAX_WEIGHT, "description": "Maximum total weight"},
                "quantity": {"type": ["integer", "null"], "minimum": 0, "maximum": 1_000_000, "description": "Boxes available; absent or null means unlimited"},
                "cost": or_null(weight("Cost of one box")), "tare_weight": or_null(weight("Weight of the empty box"))}}},
            "inventory": {"type": ["object", "null"], "additionalProperties": {"type": "integer", "minimum": 0}, "description": "item_id -> units in stock here"}}}),
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
                    "issues": {"type": "array", "items": {"type": "string"}}, "notes": {"type": "array", "items": {"type": "string"}}}},
                "steps": {"type": "array", "items": {"$ref": "#/components/schemas/PackStep"}, "description": "With options.include_steps only"},
                "diagram_svg": {"type": "string", "contentMediaType": "image/svg+xml", "description": "With options.include_steps only: the packed box in an isometric view, one colour per item_id"}}}},
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
