//! One operation object per route: parameters, request body and responses.

use serde_json::{json, Map, Value};

use super::super::routes::{Access, BodyKind, RouteDef, RouteId};
use super::links::links;
use super::refs::{json_content, op_id, rate_headers, schema_ref};

fn ok(status: u16, description: &str, schema: Value) -> (String, Value) {
    (
        status.to_string(),
        json!({ "description": description, "headers": rate_headers(), "content": json_content(schema) }),
    )
}

/// A success answer that is not JSON: a string of `media` type.
fn content(status: u16, description: &str, media: &str) -> (String, Value) {
    (
        status.to_string(),
        json!({ "description": description, "headers": rate_headers(), "content": { media: { "schema": { "type": "string" } } } }),
    )
}

fn error_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// A filter whose empty value means no filter, as an HTML form sends a blank field.
fn or_empty(schema: Value) -> Value {
    json!({"anyOf": [schema, {"const": ""}]})
}

fn page_params() -> Vec<Value> {
    vec![
        query_param(
            "limit",
            "Page size, 1-200 (default 50).",
            json!({"type": "integer", "minimum": 1, "maximum": 200, "default": 50}),
        ),
        query_param(
            "offset",
            "Records to skip (default 0).",
            json!({"type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0}),
        ),
    ]
}

/// Per-route details: extra parameters, request body schema, success responses.
fn details(id: RouteId) -> (Vec<Value>, Option<Value>, Vec<(String, Value)>) {
    use RouteId::*;
    let product = || schema_ref("Product");
    match id {
        Health => (
            vec![],
            None,
            vec![
                ok(200, "Healthy, or degraded: short of disk space, writes refused while reads work", schema_ref("Health")),
                ok(503, "Storage is failing", schema_ref("Health")),
            ],
        ),
        PackingOptimize => (vec![], Some(body_of("OptimizeRequest")), vec![
            ok(200, "The packing: packages with placements, unfitted items with reasons, compliance and instruction outcomes", schema_ref("OptimizeResponse")),
        ]),
        PackingHealth => (
            vec![],
            None,
            vec![ok(200, "Healthy", schema_ref("PackingHealth"))],
        ),
        Metrics => (
            vec![],
            None,
            vec![(
                "200".into(),
                json!({ "description": "Every metric in the Prometheus text exposition format 0.0.4",
                    "content": { "text/plain": { "schema": { "type": "string" } } } }),
            )],
        ),
        Token => (
            vec![],
            Some(
                json!({ "required": true, "content": { "application/x-www-form-urlencoded": { "schema": schema_ref("TokenRequest") } } }),
            ),
            vec![
                ok(200, "An access token", schema_ref("TokenResponse")),
                (
                    "400".into(),
                    json!({ "description": "invalid_request or unsupported_grant_type (RFC 6749 5.2)", "content": json_content(schema_ref("OAuthError")) }),
                ),
                (
                    "401".into(),
                    json!({ "description": "invalid_client (RFC 6749 5.2), with WWW-Authenticate", "content": json_content(schema_ref("OAuthError")) }),
                ),
            ],
        ),
        OpenApi | PackingOpenApi => (
            vec![],
            None,
            vec![ok(
                200,
                "The OpenAPI 3.1 document",
                json!({"type": "object"}),
            )],
        ),
        Docs => (
            vec![],
            None,
            vec![(
                "200".into(),
                json!({ "description": "Self-contained HTML reference", "content": { "text/html": { "schema": { "type": "string" } } } }),
            )],
        ),
        ListProducts => (
            page_params(),
            None,
            vec![ok(
                200,
                "A page of live products",
                schema_ref("ProductList"),
            )],
        ),
        CreateProduct => (
            vec![],
            Some(json!({ "required": true, "content": json_content(schema_ref("ProductCreate")) })),
            vec![ok(201, "The created product", product())],
        ),
        GetProduct => (
            vec![],
            None,
            vec![ok(
                200,
                "The product (deleted ones have active=false and deletedAt)",
                product(),
            )],
        ),
        UpdateProduct => (
            vec![],
            Some(json!({ "required": true, "content": json_content(schema_ref("ProductUpdate")) })),
            vec![ok(200, "The updated product", product())],
        ),
        DeleteProduct => (
            vec![],
            None,
            vec![ok(
                200,
                "The product, now inactive; its SKU is free for reuse",
                product(),
            )],
        ),
        GetProductBySku => (
            vec![],
            None,
            vec![ok(200, "The live product with this SKU", product())],
        ),
        ListWarehouses => (page_params(), None, vec![ok(200, "A page of warehouses", schema_ref("WarehouseList"))]),
        CreateWarehouse => (vec![], Some(body_of("WarehouseCreate")), vec![ok(201, "The created warehouse", schema_ref("Warehouse"))]),
        GetWarehouse => (vec![], None, vec![ok(200, "The warehouse", schema_ref("Warehouse"))]),
        UpdateWarehouse => (vec![], Some(body_of("WarehouseUpdate")), vec![ok(200, "The updated warehouse", schema_ref("Warehouse"))]),
        ListInventory => {
            let mut params = page_params();
            params.push(query_param("sku", "Only records of this SKU.", json!({"type": "string"})));
            params.push(query_param("warehouseId", "Only records of this warehouse.", json!({"type": "string"})));
            (params, None, vec![ok(200, "A page of inventory records", schema_ref("InventoryList"))])
        }
        CreateInventory => (vec![], Some(body_of("InventoryCreate")), vec![ok(201, "The created record (emits inventory.adjusted)", schema_ref("Inventory"))]),
        GetInventory => (vec![], None, vec![ok(200, "The inventory record", schema_ref("Inventory"))]),
        AdjustInventory => (vec![], Some(body_of("InventoryAdjust")), vec![ok(200, "The adjusted record (emits inventory.adjusted, and inventory.low_stock on crossing the threshold)", schema_ref("Inventory"))]),
        ListInventoryAdjustments => (page_params(), None, vec![ok(200, "A page of the audit trail", schema_ref("InventoryAdjustmentList"))]),
        ListOrders => {
            let mut params = page_params();
            params.push(query_param("status", "Only orders in this status (empty: any).", or_empty(json!({"enum": storage::OrderStatus::ALL.map(storage::OrderStatus::as_str)}))));
            params.push(query_param("q", "Case-insensitive substring of externalId, customerEmail, customerId or id.", json!({"type": "string"})));
            params.push(query_param("fromDate", "Orders created at or after this date (2026-11-01, midnight UTC) or RFC 3339 time (empty: any).", json!({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}, {"const": ""}]})));
            (params, None, vec![ok(200, "A page of orders", schema_ref("OrderList"))])
        }
        CreateOrder => (vec![], Some(body_of("OrderCreate")), vec![
            ok(201, "The created order (stock reserved; emits order.created)", schema_ref("Order")),
            ok(200, "The existing order: the same request was made before under this externalId", schema_ref("Order")),
        ]),
        BulkImportOrders => (vec![], Some(json!({ "required": true, "content": {
            "application/json": { "schema": schema_ref("BulkImportJson") },
            "text/csv": { "schema": schema_ref("BulkImportCsv") } } })),
            vec![ok(200, "One result per order (created, duplicate or error) and the counts; 413 past bulk_max_orders", schema_ref("BulkImportResult"))]),
        GetOrder => (vec![], None, vec![ok(200, "The order", schema_ref("Order"))]),
        ListOrderEvents => (vec![], None, vec![ok(200, "The order's timeline, oldest first", schema_ref("OrderEventList"))]),
        UpdateOrder => (vec![], Some(body_of("OrderUpdate")), vec![ok(200, "The updated order", schema_ref("Order"))]),
        ListWebhooks => (page_params(), None, vec![ok(200, "A page of subscriptions (secrets are never returned)", schema_ref("WebhookList"))]),
        CreateWebhook => (vec![], Some(body_of("WebhookCreate")), vec![ok(201, "The created subscription", schema_ref("Webhook"))]),
        GetWebhook => (vec![], None, vec![ok(200, "The subscription", schema_ref("Webhook"))]),
        UpdateWebhook => (vec![], Some(body_of("WebhookUpdate")), vec![ok(200, "The updated subscription", schema_ref("Webhook"))]),
        DeleteWebhook => (vec![], None, vec![ok(200, "The deleted subscription; its queued deliveries are dropped", schema_ref("Webhook"))]),
        TestWebhook => (vec![], None, vec![ok(202, "The queued sample delivery (sent at once, retried like any other; also to an inactive subscription)", schema_ref("WebhookDelivery"))]),
        ListWebhookDeliveries => {
            let mut params = page_params();
            params.push(query_param("status", "Only deliveries in this status.", json!({"enum": ["pending", "delivered", "failed"]})));
            (params, None, vec![ok(200, "A page of deliveries with every attempt, newest first", schema_ref("WebhookDeliveryList"))])
        }
        RetryWebhookDelivery => (vec![], None, vec![ok(200, "The delivery, pending again for a new round of the retry schedule (409 unless it was failed)", schema_ref("WebhookDelivery"))]),
        RecoverWebhookDeliveries => (vec![], Some(body_of("WebhookRecover")), vec![ok(200, "How many failed deliveries were re-queued", schema_ref("WebhookRecoverResult"))]),
        RotateWebhookSecret => (vec![], Some(json!({ "required": false, "content": json_content(schema_ref("WebhookRotateSecret")) })), vec![ok(200, "The new secret (shown this once) and the subscription with the end of the grace period", schema_ref("WebhookSecretRotation"))]),
        PackOrder => (vec![], None, vec![ok(200, "The order, now processing with its packages (409 with the reason when it cannot be packed; 409 invalid_transition unless pending)", schema_ref("Order"))]),
        ListPackages => {
            let mut params = page_params();
            params.push(query_param("orderId", "Only the packages of this order (its id, a UUID; any other value matches none; empty: any).", json!({"type": "string"})));
            params.push(query_param("status", "Only packages in this status (empty: any).", or_empty(json!({"enum": storage::PackageStatus::ALL.map(storage::PackageStatus::as_str)}))));
            params.push(query_param("warehouseId", "Only packages packed at this warehouse. Walks the packages the other filters select: narrow by status (a station's queue: status=created&sort=oldest&limit=1 is the next package to pack).", json!({"type": "string"})));
            params.push(query_param("sort", "By creation: newest first (default) or oldest first.", or_empty(json!({"enum": ["newest", "oldest"], "default": "newest"}))));
            (params, None, vec![ok(200, "A page of packages", schema_ref("PackageList"))])
        }
        GetPackage => (vec![], None, vec![ok(200, "The package", schema_ref("Package"))]),
        ListPackageEvents => (vec![], None, vec![ok(200, "Every inbound event about the package, applied or not", schema_ref("InboundEventList"))]),
        PackageInstructions => (vec![], None, vec![ok(200, "The box and the loading order", schema_ref("PackageInstructions"))]),
        PackageDiagram => (
            vec![query_param("step", "Draw steps 1..step, step highlighted with its SKU and earlier ones muted; 0 is the empty box; without it, the packed box with one colour per SKU. Past the last step is 422.", json!({"type": "integer", "minimum": 0, "maximum": i64::MAX}))],
            None,
            vec![content(200, "The open box in an isometric view from the front right, its front edge marked, painted back to front", "image/svg+xml")],
        ),
        PackageSlip => (
            vec![query_param("paper", "Page size of the printed slip (CSS @page).", json!({"enum": ["a4", "letter"], "default": "a4"}))],
            None,
            vec![content(200, "A self-contained HTML page: order reference, ship-to address, contents, box, the packed box's diagram and a Code 128 barcode of the package id", "text/html")],
        ),
        ShipPackage => (vec![], Some(body_of("ShipPackage")), vec![ok(200, "The shipped package", schema_ref("Package"))]),
        MarkPackagePacked => (vec![], None, vec![ok(200, "Exactly the answer of the WMS status callback with status packed, from the source station:<caller> (a console user is user:NAME) and a fresh eventId: applied moves a created or picking package to packed; a package already packed or beyond, voided or returned is recorded as ignored with a note and left as it is. Either way the event is kept in the package's events", schema_ref("InboundResult"))]),
        WmsPackageStatus => (vec![], Some(body_of("WmsPackageStatus")), vec![ok(200, "The event as recorded (applied, ignored or duplicate) and the package; 404 for an unknown package", schema_ref("InboundResult"))]),
        CarrierTracking => (vec![], Some(body_of("CarrierTracking")), vec![ok(200, "The event as recorded (applied, ignored or duplicate) and the package; 404 for an unknown tracking number", schema_ref("InboundResult"))]),
        CancelOrder => (vec![], Some(json!({ "required": false, "content": json_content(schema_ref("OrderCancel")) })), vec![ok(200, "The cancelled order (or the unchanged one if it was cancelled already)", schema_ref("Order"))]),
        // Not in the documents (`RouteDef::documented`): the console's own endpoints.
        ConsoleLoginForm | ConsoleLogin | ConsoleLogout | ConsoleSession | ConsoleShell
        | ConsolePage | ListUsers | CreateUser | DeleteUser | ListClients | CreateClient
        | DeleteClient | SetInboundSecret => (vec![], None, vec![]),
    }
}

fn body_of(schema: &str) -> Value {
    json!({ "required": true, "content": json_content(schema_ref(schema)) })
}

pub(super) fn operation(def: &RouteDef) -> Value {
    let (mut params, body, mut responses) = details(def.id);
    for segment in def.path.split('/') {
        if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            params.insert(0, json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }));
        }
    }
    let writes = matches!(def.method.as_str(), "POST" | "PATCH");
    if writes && def.access == Access::Client {
        params.push(json!({ "$ref": "#/components/parameters/IdempotencyKey" }));
    }
    let security = match def.access {
        Access::Public | Access::TokenEndpoint | Access::Console => json!([]),
        // The bearer token only when `metrics_token` is configured.
        Access::Metrics => json!([{}, { "bearerAuth": [] }]),
        Access::Client => {
            json!([{ "bearerAuth": [] }, { "apiKeyAuth": [] }, { "consoleSession": [] }])
        }
        Access::ApiKey => json!([{ "apiKeyAuth": [] }]),
        Access::Inbound => {
            json!([{ "webhookSignature": [], "webhookTimestamp": [] }, { "bearerAuth": [] }, { "apiKeyAuth": [] }])
        }
    };
    // Every status the pipeline or the handler can answer: a request timeout or a
    // failing store is 503 anywhere, query values are checked (400 type, 422 range), and
    // a keyed POST or PATCH can meet its key in flight (409) or reused (422).
    let has_query = params.iter().any(|p| p["in"] == "query");
    let has_body = def.body != BodyKind::None;
    let mut errors = vec!["RateLimited", "Internal", "Unavailable"];
    if matches!(
        def.access,
        Access::Client | Access::ApiKey | Access::Inbound
    ) {
        errors.push("Unauthorized");
    }
    // Metrics: an address or token not allowed. Client routes and callbacks: a console
    // session whose role does not include the route, or without its CSRF token.
    if matches!(
        def.access,
        Access::Metrics | Access::Client | Access::Inbound
    ) {
        errors.push("Forbidden");
    }
    // A body names other records too (a package, a SKU, a warehouse): 404 when unknown.
    if def.path.contains('{') || matches!(def.body, BodyKind::Json | BodyKind::JsonOrCsv) {
        errors.push("NotFound");
    }
    if has_query || has_body {
        errors.extend(["BadRequest", "ValidationError"]);
    }
    if has_body {
        errors.push("PayloadTooLarge");
    }
    if matches!(def.body, BodyKind::Json | BodyKind::JsonOrCsv) {
        errors.extend(["UnsupportedMediaType", "Conflict"]);
    }
    if writes && def.access == Access::Client {
        errors.extend(["ValidationError", "Conflict"]);
    }
    if super::super::space::may_write(def) {
        errors.push("InsufficientStorage");
    }
    for name in errors {
        let code = match name {
            "BadRequest" => "400",
            "Unauthorized" => "401",
            "Forbidden" => "403",
            "NotFound" => "404",
            "Conflict" => "409",
            "PayloadTooLarge" => "413",
            "UnsupportedMediaType" => "415",
            "ValidationError" => "422",
            "RateLimited" => "429",
            "Unavailable" => "503",
            "InsufficientStorage" => "507",
            _ => "500",
        };
        if !responses.iter().any(|(c, _)| c == code) {
            responses.push((code.to_string(), error_ref(name)));
        }
    }
    for (code, response) in responses.iter_mut() {
        if let Some(links) = links(def.id, code) {
            response["links"] = links;
        }
    }
    let mut op = json!({
        "operationId": op_id(def.id),
        "summary": def.summary,
        "tags": [def.tag],
        "security": security,
        "responses": responses.into_iter().collect::<Map<String, Value>>(),
    });
    if !params.is_empty() {
        op["parameters"] = Value::Array(params);
    }
    if let Some(b) = body {
        op["requestBody"] = b;
    }
    op
}
