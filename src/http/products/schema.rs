//! The OpenAPI schemas of `/api/products`.

use serde_json::{json, Value};

use super::super::text::name_schema;

/// OpenAPI schemas of the product resource.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let dims = json!({ "type": "object", "required": ["width", "height", "length"], "properties": {
        "width": {"type": "number", "exclusiveMinimum": 0}, "height": {"type": "number", "exclusiveMinimum": 0, "description": "Vertical when upright"},
        "length": {"type": "number", "exclusiveMinimum": 0} } });
    let hazmat = json!({ "type": "object", "required": ["class", "unNumber"], "properties": {
        "class": {"enum": super::input::HAZMAT_CLASSES, "examples": ["3", "2.1"]},
        "unNumber": {"type": "string", "pattern": "^(UN)?[0-9]{4}$", "description": "Stored as UN and four digits"} } });
    let money = |d: &str| json!({ "type": "number", "minimum": 0, "description": d });
    let fields = json!({
        "sku": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$", "description": "Unique among live products"},
        "name": name_schema(200),
        "description": {"type": "string", "maxLength": 5000},
        "price": money("Exact decimal, at most 4 decimal places"),
        "unitCost": money("Optional cost; needs costCurrency"),
        "costCurrency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "weight": {"type": ["number", "null"], "description": "In the appliance's weight unit (lb or kg)"},
        "dimensions": {"oneOf": [dims, {"type": "null"}], "description": "In the appliance's length unit (in or cm); needed for packing"},
        "hazmat": {"oneOf": [hazmat, {"type": "null"}]},
        "orientation": {"enum": ["any", "upright"], "default": "any"},
        "lowStockThreshold": {"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 0},
    });
    let mut product_props = fields.as_object().cloned().unwrap_or_default();
    for (k, v) in [
        ("id", json!({"type": "string", "format": "uuid"})),
        (
            "active",
            json!({"type": "boolean", "description": "False once deleted"}),
        ),
        (
            "createdAt",
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            "updatedAt",
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            "deletedAt",
            json!({"type": ["string", "null"], "format": "date-time"}),
        ),
    ] {
        product_props.insert(k.into(), v);
    }
    vec![
        (
            "Product",
            json!({ "type": "object", "properties": product_props,
            "required": ["id", "sku", "name", "description", "price", "weight", "dimensions", "hazmat", "orientation", "lowStockThreshold", "active", "createdAt", "updatedAt"] }),
        ),
        (
            "ProductCreate",
            json!({ "type": "object", "properties": fields, "required": ["sku", "name", "price"],
            "examples": [{"sku": "MUG-01", "name": "Mug", "price": 12.5, "weight": 0.8, "dimensions": {"width": 4, "height": 5, "length": 4}}] }),
        ),
        (
            "ProductUpdate",
            json!({ "type": "object", "properties": fields, "description": "Any subset of the create fields; null clears an optional one." }),
        ),
        (
            "ProductList",
            json!({ "type": "object", "required": ["products", "pagination"], "properties": {
            "products": {"type": "array", "items": schema_ref("Product")}, "pagination": schema_ref("Pagination") } }),
        ),
    ]
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}
