//! Small builders the operations, links and components share: operation ids, schema
//! references, JSON content, the rate-limit headers and the error response.

use serde_json::{json, Value};

use super::super::routes::RouteId;

/// The operationId of a route: its `RouteId` in lower camel case (`createOrder`), unique
/// and stable since the route table names each handler once.
pub(super) fn op_id(id: RouteId) -> String {
    let s = format!("{id:?}");
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

pub(super) fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

pub(super) fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

pub(super) fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" },
    })
}

pub(super) fn error_response(description: &str) -> Value {
    json!({ "description": description, "headers": rate_headers(), "content": json_content(schema_ref("Error")) })
}
