//! The OpenAPI schemas of `/api/orders`.

use serde_json::{json, Value};
use storage::OrderStatus;

pub fn schemas() -> Vec<(&'static str, Value)> {
    let addr = json!({"$ref": "#/components/schemas/Address"});
    let ts = json!({"type": "string", "format": "date-time"});
    let status = json!({"enum": OrderStatus::ALL.map(OrderStatus::as_str)});
    vec![
        (
            "OrderCreate",
            json!({"type": "object", "required": ["externalId", "customerEmail", "items", "shippingAddresses"],
            "properties": {
                "externalId": {"type": "string", "maxLength": 100, "description": "Your reference; repeating the same request returns the order with 200, another request under it is 409"},
                "customerId": {"type": "string", "maxLength": 100},
                "customerEmail": {"type": "string", "format": "email"},
                "items": {"type": "array", "minItems": 1, "maxItems": 500, "items": {"$ref": "#/components/schemas/OrderLineCreate"}},
                "shippingAddresses": {"type": "array", "minItems": 1, "items": addr},
                "billingAddress": addr},
            "examples": [{"externalId": "SHOP-1001", "customerEmail": "ann@example.com",
                "items": [{"sku": "MUG-01", "quantity": 2}],
                "shippingAddresses": [{"name": "Ann", "line1": "1 Main St", "city": "Reno", "region": "NV", "postalCode": "89501", "country": "US"}]}]}),
        ),
        (
            "OrderLineCreate",
            json!({"type": "object", "required": ["sku", "quantity"], "properties": {
            "sku": {"type": "string", "description": "A live product's SKU"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": super::input::MAX_QUANTITY},
            "unitPrice": {"type": "number", "minimum": 0, "description": "Defaults to the product's price"}}}),
        ),
        (
            "OrderLine",
            json!({"type": "object", "properties": {
            "sku": {"type": "string"}, "name": {"type": "string"}, "quantity": {"type": "integer"},
            "unitPrice": {"type": "number"}, "lineTotal": {"type": "number"},
            "unitCost": {"type": "number", "description": "Present when the product has a cost"},
            "costCurrency": {"type": "string"}, "lineCost": {"type": "number"},
            "allocations": {"type": "array", "description": "Where the line's units are reserved", "items": {"type": "object", "properties": {
                "warehouseId": {"type": "string"}, "quantity": {"type": "integer"}}}}}}),
        ),
        (
            "Order",
            json!({"type": "object",
            "required": ["id", "externalId", "customerEmail", "status", "items", "shippingAddresses", "total", "itemCount", "createdAt", "updatedAt"],
            "properties": {
                "id": {"type": "string", "format": "uuid"}, "externalId": {"type": "string"},
                "customerId": {"type": ["string", "null"]}, "customerEmail": {"type": "string"},
                "status": status,
                "items": {"type": "array", "items": {"$ref": "#/components/schemas/OrderLine"}},
                "shippingAddresses": {"type": "array", "items": addr},
                "billingAddress": {"oneOf": [addr, {"type": "null"}]},
                "total": {"type": "number", "description": "Exact decimal sum of unitPrice x quantity"},
                "itemCount": {"type": "integer", "description": "Total quantity of items"},
                "cancelReason": {"type": ["string", "null"]},
                "pendingReason": {"type": ["string", "null"], "description": "Why a pending order is not processing yet"},
                "createdAt": ts, "updatedAt": ts}}),
        ),
        (
            "OrderUpdate",
            json!({"type": "object", "properties": {
            "status": {"enum": ["processing", "shipped", "delivered", "cancelled"],
                "description": "pending->processing->shipped->delivered; pending|processing->cancelled; others are 409 invalid_transition"},
            "customerEmail": {"type": "string"}, "shippingAddresses": {"type": "array", "items": addr},
            "billingAddress": {"oneOf": [addr, {"type": "null"}]}},
            "description": "Address and email edits only while pending (409 invalid_transition otherwise). Emits order.updated (order.cancelled for a cancel)."}),
        ),
        (
            "OrderCancel",
            json!({"type": "object", "properties": {"reason": {"type": "string", "maxLength": 500}},
            "description": "Optional body. Releases every reservation; a cancelled order is returned unchanged; shipped or delivered: 409."}),
        ),
        (
            "OrderEventList",
            json!({"type": "object", "required": ["orderId", "recorded", "events"], "properties": {
            "orderId": {"type": "string", "format": "uuid"},
            "recorded": {"type": "boolean", "description": "False for an order created before order histories were kept: its creation and latest change then come from the order record"},
            "events": {"type": "array", "items": {"type": "object", "required": ["at", "kind", "status"], "properties": {
                "at": ts,
                "kind": {"enum": crate::domain::order_events::KINDS},
                "status": {"type": "string", "description": "The order's status after the change; for package.callback the package status the callback reported"},
                "note": {"type": ["string", "null"], "description": "Details: the fields edited, the reason, the package, carrier and tracking number"},
                "actor": {"type": ["string", "null"], "description": "The API client or console user (user:NAME) whose request made the change, or the callback's source; null for the appliance's own work"},
                "packageId": {"type": ["string", "null"], "description": "The package a package.* entry is about, when it is a callback"}}}}}}),
        ),
        (
            "OrderList",
            json!({"type": "object", "required": ["orders", "pagination"], "properties": {
            "orders": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}},
            "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
    ]
}
