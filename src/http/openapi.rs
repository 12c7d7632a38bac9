//! The OpenAPI 3.1 documents of both listeners, generated from the route table plus the
//! per-route details below, and served pre-rendered (JSON and the HTML docs page).

use bytes::Bytes;
use hyper::StatusCode;
use serde_json::{json, Map, Value};

use super::docs;
use super::health::VERSION;
use super::response::{bytes, Resp};
use super::routes::{Access, BodyKind, RouteDef, RouteId, Service, ROUTES};

/// The rendered documents, built once at start.
pub struct Documents {
    fulfillment: Bytes,
    packing: Bytes,
    html: Bytes,
}

impl Documents {
    pub fn build() -> Documents {
        let f = document(Service::Fulfillment);
        let html = docs::render(&f);
        Documents {
            fulfillment: Bytes::from(f.to_string()),
            packing: Bytes::from(document(Service::Packing).to_string()),
            html: Bytes::from(html),
        }
    }

    pub fn fulfillment_json(&self) -> Resp {
        bytes(StatusCode::OK, "application/json", self.fulfillment.clone())
    }

    pub fn packing_json(&self) -> Resp {
        bytes(StatusCode::OK, "application/json", self.packing.clone())
    }

    pub fn html(&self) -> Resp {
        bytes(
            StatusCode::OK,
            "text/html; charset=utf-8",
            self.html.clone(),
        )
    }
}

const FULFILLMENT_INTRO: &str = "Orders, products, inventory, packages and webhooks of one fulfilld appliance.\n\n\
**Authentication.** Every `/api/*` route except `/api/openapi.json` and `/api/docs` needs `Authorization: Bearer <token>` \
(from `POST /oauth/token`, client credentials in the form or HTTP Basic) or `X-API-Key: <key>`. \
Clients are created with `fulfilld clients create`; the first start writes `bootstrap-credentials.json` into the data directory.\n\n\
**Errors.** Every error body is `{\"error\": {\"code\", \"message\", \"field\"}}`; `field` names the offending input (`items[0].sku`) or is null. \
`405` responses carry `Allow`; a body over the limit (default 10 MiB) is `413` and the connection is closed; \
a slow request body is `408 request_timeout`.\n\n\
**Rate limits.** A token bucket per client (per IP without credentials) holding `burst` tokens, refilled at `rpm/60` per second. \
Every response carries `X-RateLimit-Limit` (rpm), `X-RateLimit-Remaining` and `X-RateLimit-Reset` (unix seconds when the bucket is full); \
over the limit: `429 rate_limited` with `Retry-After` seconds. Tiers: starter 60/100, growth 100/200, pro 200/400, enterprise 500/1000, unlimited.\n\n\
**Idempotency.** Any POST or PATCH may carry `Idempotency-Key` (1-255 visible ASCII characters). For 24 h the same key and request \
replays the stored response with `Idempotent-Replayed: true`; the same key with another request is `422 idempotency_key_reused`; \
while the first request runs, `409 idempotency_in_progress`. 5xx responses are not stored.\n\n\
**Lists** take `limit` (1-200, default 50) and `offset`, are newest first, and return `pagination {limit, offset, total}`.\n\n\
**Durability.** A 2xx to a write means it is flushed to disk.";

/// The webhook section of the fulfillment document's description (and of `/api/docs`).
const WEBHOOKS_DOC: &str = r#"

**Webhooks.** Each event becomes one delivery per active subscription that lists its type: a `POST` of the envelope `{"id": "evt_...", "type", "timestamp", "data"}` (schema `WebhookEvent`) with `Content-Type: application/json`, `X-Webhook-Signature` (lowercase hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<raw body>` keyed with the subscription secret), `X-Webhook-Timestamp` (unix seconds of this attempt) and `X-Webhook-Id` (the envelope id). Any 2xx within 30 s is success; another status, a timeout or a connection failure is a failed attempt, and redirects are not followed. Attempt 1 is immediate; attempts 2-5 follow 1 min, 5 min, 30 min and 2 h after the previous failure (configurable); after the fifth failure the delivery is `failed`, and `POST /api/webhooks/{id}/deliveries/{deliveryId}/retry` or `POST /api/webhooks/{id}/recover` re-queue it. The queue is on disk: a delivery survives restarts and crashes and may arrive more than once, always with the same id and body, so de-duplicate on `id`. A subscription receives the events that happen after it is created (or re-activated, or given a new type); an event of a type that no active subscription lists is not recorded at all. Up to four deliveries to one subscription run at once, so events may arrive out of order; a slow endpoint never delays the others.

**Verifying a delivery.** (1) Build `<timestamp>.<raw body>` from the `X-Webhook-Timestamp` value and the unparsed body. (2) Compute HMAC-SHA256 of it with the subscription secret, as lowercase hex. (3) Compare it with `X-Webhook-Signature` in constant time. (4) Reject the delivery when the timestamp differs from the current time by more than 300 seconds.

Python:

```
import hashlib, hmac, time
def verify(secret: bytes, headers, raw_body: bytes) -> bool:
    ts = headers["X-Webhook-Timestamp"]
    if abs(time.time() - int(ts)) > 300:
        return False
    expected = hmac.new(secret, ts.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["X-Webhook-Signature"])
```

Rust (crates `hmac`, `sha2`, `hex`, `subtle`):

```
use hmac::{Hmac, Mac};
use subtle::ConstantTimeEq;
fn verify(secret: &[u8], ts: &str, signature: &str, raw_body: &[u8], now_secs: i64) -> bool {
    let Ok(t) = ts.parse::<i64>() else { return false };
    if (now_secs - t).abs() > 300 {
        return false;
    }
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).expect("any key size");
    mac.update(ts.as_bytes());
    mac.update(b".");
    mac.update(raw_body);
    let expected = hex::encode(mac.finalize().into_bytes());
    expected.as_bytes().ct_eq(signature.as_bytes()).into()
}
```"#;

/// The fulfillment flow and the inbound callback rules, for WMS and carrier integrators.
const FULFILLMENT_DOC: &str = r#"

**Fulfillment.** Right after an order is created the appliance packs it on its worker pool with the packing engine, per reserving warehouse, with that warehouse's box catalog and the products' dimensions, weights, orientation and hazmat class. One transaction stores the packages (schema `Package`, every unit's placement included), moves the order to `processing` (`order.updated`) and emits one `package.created` per package. An order that cannot be packed (a product without dimensions or weight, a warehouse without boxes, a unit that fits no box) stays `pending` with `pendingReason`; fix the cause and call `POST /api/orders/{id}/pack`. `POST /api/fulfillment/packages/{id}/ship` ships a package: its units leave onHand and reserved (`inventory.adjusted`), `package.shipped` is emitted, and when every package of the order has shipped the order becomes `shipped` with `order.shipped` `{orderId, status, trackingNumbers}`. When every package is delivered the order becomes `delivered` (`order.updated`). Cancelling a `processing` order voids its packages and releases the stock; once a package has shipped the order can no longer be cancelled.

**Inbound callbacks (for WMS and carrier integrators).** `POST /api/wms/webhooks/package-status` takes `{eventId, packageId, status, occurredAt, carrier?, trackingNumber?, service?, location?}`; `POST /api/webhooks/carriers/{carrier}/tracking` takes `{eventId, trackingNumber, status, occurredAt, location?}` for a package shipped with that carrier. `status` is one of `created`, `picking`, `packed`, `shipped`, `in_transit`, `out_for_delivery`, `delivered`, `exception`, `returned`. Sign each request like the appliance signs its own deliveries, with the secret of the source (set on the appliance with `fulfilld inbound set-secret --source wms` or `--source carrier:NAME`, NAME as in the path, lower case):

1. Take the current unix time in seconds as `X-Webhook-Timestamp`; requests more than 300 seconds from the appliance's clock are refused with 401.

2. Compute HMAC-SHA256 over `<X-Webhook-Timestamp>.<raw request body>` (the exact bytes sent) keyed with the source's secret.

3. Send it as lowercase hex in `X-Webhook-Signature`. A wrong signature, a missing header or an unknown source is `401 unauthorized`.

```
ts=$(date +%s); body='{"eventId":"wms-1","packageId":"pkg_...","status":"picking","occurredAt":"2026-11-22T09:00:00Z"}'
sig=$(printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac "$WMS_SECRET" -hex | sed 's/^.* //')
curl -X POST https://HOST:8443/api/wms/webhooks/package-status -H 'Content-Type: application/json' -H "X-Webhook-Timestamp: $ts" -H "X-Webhook-Signature: $sig" -d "$body"
```

A source that cannot sign may send `Authorization: Bearer <token>` or `X-API-Key` instead. `eventId` is unique per source: a repeated one is answered 200 with outcome `duplicate` and changes nothing, so retry freely. A package never moves backwards: an event at or behind its current progress (a late `in_transit` after `delivered`) is recorded with outcome `ignored` and a note, not applied; `exception` pauses progress, which resumes with the next forward status. Moving a package to `shipped` or beyond ships it as the ship endpoint does. An unknown `packageId` or tracking number is 404. Every event is kept and readable at `GET /api/packages/{id}/events`."#;

const PACKING_INTRO: &str = "3D bin packing of items into boxes across warehouses. `POST /api/v1/optimize` needs `X-API-Key`; \
errors use the envelope `{\"error\": {\"code\", \"message\", \"field\"}}`.";

/// The OpenAPI document of one listener.
pub fn document(service: Service) -> Value {
    let mut paths = Map::new();
    for def in ROUTES.iter().filter(|d| d.service == service) {
        let entry = paths
            .entry(def.path.to_string())
            .or_insert_with(|| json!({}));
        entry[def.method.as_str().to_ascii_lowercase()] = operation(def);
    }
    let (title, intro, port) = match service {
        Service::Fulfillment => (
            "fulfilld Order Fulfillment API",
            format!("{FULFILLMENT_INTRO}{WEBHOOKS_DOC}{FULFILLMENT_DOC}"),
            8443,
        ),
        Service::Packing => ("fulfilld Packing API", PACKING_INTRO.to_string(), 8444),
    };
    json!({
        "openapi": "3.1.0",
        "info": { "title": title, "version": VERSION, "description": intro },
        "servers": [{ "url": format!("https://localhost:{port}") }],
        "paths": paths,
        "components": components(),
    })
}

fn op_id(id: RouteId) -> String {
    let s = format!("{id:?}");
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn json_content(schema: Value) -> Value {
    json!({ "application/json": { "schema": schema } })
}

fn ok(status: u16, description: &str, schema: Value) -> (String, Value) {
    (
        status.to_string(),
        json!({ "description": description, "headers": rate_headers(), "content": json_content(schema) }),
    )
}

fn rate_headers() -> Value {
    json!({
        "X-RateLimit-Limit": { "$ref": "#/components/headers/X-RateLimit-Limit" },
        "X-RateLimit-Remaining": { "$ref": "#/components/headers/X-RateLimit-Remaining" },
        "X-RateLimit-Reset": { "$ref": "#/components/headers/X-RateLimit-Reset" },
    })
}

fn error_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

fn query_param(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
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
            json!({"type": "integer", "minimum": 0, "default": 0}),
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
                ok(200, "Healthy", schema_ref("Health")),
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
            params.push(query_param("status", "Only orders in this status.", json!({"enum": ["pending", "processing", "shipped", "delivered", "cancelled"]})));
            params.push(query_param("q", "Case-insensitive substring of externalId, customerEmail, customerId or id.", json!({"type": "string"})));
            params.push(query_param("fromDate", "Orders created at or after this date (2026-11-01, midnight UTC) or RFC 3339 time.", json!({"type": "string"})));
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
        PackOrder => (vec![], None, vec![ok(200, "The order, now processing with its packages (409 with the reason when it cannot be packed; 409 invalid_transition unless pending)", schema_ref("Order"))]),
        ListPackages => {
            let mut params = page_params();
            params.push(query_param("orderId", "Only the packages of this order.", json!({"type": "string", "format": "uuid"})));
            params.push(query_param("status", "Only packages in this status.", json!({"enum": storage::PackageStatus::ALL.map(storage::PackageStatus::as_str)})));
            (params, None, vec![ok(200, "A page of packages", schema_ref("PackageList"))])
        }
        GetPackage => (vec![], None, vec![ok(200, "The package", schema_ref("Package"))]),
        ListPackageEvents => (vec![], None, vec![ok(200, "Every inbound event about the package, applied or not", schema_ref("InboundEventList"))]),
        ShipPackage => (vec![], Some(body_of("ShipPackage")), vec![ok(200, "The shipped package", schema_ref("Package"))]),
        WmsPackageStatus => (vec![], Some(body_of("WmsPackageStatus")), vec![ok(200, "The event as recorded (applied, ignored or duplicate) and the package; 404 for an unknown package", schema_ref("InboundResult"))]),
        CarrierTracking => (vec![], Some(body_of("CarrierTracking")), vec![ok(200, "The event as recorded (applied, ignored or duplicate) and the package; 404 for an unknown tracking number", schema_ref("InboundResult"))]),
        CancelOrder => (vec![], Some(json!({ "required": false, "content": json_content(schema_ref("OrderCancel")) })), vec![ok(200, "The cancelled order (or the unchanged one if it was cancelled already)", schema_ref("Order"))]),
    }
}

fn body_of(schema: &str) -> Value {
    json!({ "required": true, "content": json_content(schema_ref(schema)) })
}

fn operation(def: &RouteDef) -> Value {
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
        Access::Public | Access::TokenEndpoint => json!([]),
        Access::Client => json!([{ "bearerAuth": [] }, { "apiKeyAuth": [] }]),
        Access::ApiKey => json!([{ "apiKeyAuth": [] }]),
        Access::Inbound => {
            json!([{ "webhookSignature": [], "webhookTimestamp": [] }, { "bearerAuth": [] }, { "apiKeyAuth": [] }])
        }
    };
    let mut errors = vec!["RateLimited", "Internal"];
    if matches!(
        def.access,
        Access::Client | Access::ApiKey | Access::Inbound
    ) {
        errors.push("Unauthorized");
    }
    if def.path.contains('{') {
        errors.push("NotFound");
    }
    if matches!(def.body, BodyKind::Json | BodyKind::JsonOrCsv) {
        errors.extend([
            "BadRequest",
            "ValidationError",
            "PayloadTooLarge",
            "UnsupportedMediaType",
            "Conflict",
        ]);
    }
    if writes || def.path.contains('{') {
        errors.push("Unavailable");
    }
    for name in errors {
        let code = match name {
            "BadRequest" => "400",
            "Unauthorized" => "401",
            "NotFound" => "404",
            "Conflict" => "409",
            "PayloadTooLarge" => "413",
            "UnsupportedMediaType" => "415",
            "ValidationError" => "422",
            "RateLimited" => "429",
            "Unavailable" => "503",
            _ => "500",
        };
        if !responses.iter().any(|(c, _)| c == code) {
            responses.push((code.to_string(), error_ref(name)));
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

fn error_response(description: &str) -> Value {
    json!({ "description": description, "headers": rate_headers(), "content": json_content(schema_ref("Error")) })
}

fn components() -> Value {
    let mut schemas = Map::new();
    schemas.insert("Error".into(), json!({
        "type": "object", "required": ["error"],
        "properties": { "error": { "type": "object", "required": ["code", "message", "field"], "properties": {
            "code": { "type": "string", "examples": ["validation_error"] },
            "message": { "type": "string" },
            "field": { "type": ["string", "null"], "examples": ["items[0].sku"] } } } }
    }));
    schemas.insert("Pagination".into(), json!({
        "type": "object", "required": ["limit", "offset", "total"],
        "properties": { "limit": {"type": "integer"}, "offset": {"type": "integer"}, "total": {"type": "integer", "description": "All matches, not only this page"} }
    }));
    schemas.insert("Health".into(), json!({
        "type": "object", "required": ["status", "version", "uptimeSeconds", "storage"],
        "properties": { "status": {"enum": ["ok", "unavailable"]}, "version": {"type": "string"}, "uptimeSeconds": {"type": "integer"},
            "storage": {"type": "object", "properties": {"status": {"enum": ["ok", "failed"]}, "sizeOnDiskBytes": {"type": ["integer", "null"]}}},
            "error": schema_ref("Error") }
    }));
    schemas.insert("PackingHealth".into(), json!({
        "type": "object", "required": ["status", "service", "version"],
        "properties": { "status": {"const": "ok"}, "service": {"const": "packing"}, "version": {"type": "string"}, "uptimeSeconds": {"type": "integer"} }
    }));
    schemas.insert("TokenRequest".into(), json!({
        "type": "object", "required": ["grant_type"],
        "properties": { "grant_type": {"const": "client_credentials"}, "client_id": {"type": "string"}, "client_secret": {"type": "string"} },
        "description": "client_id and client_secret go in the form or in HTTP Basic, not both."
    }));
    schemas.insert("TokenResponse".into(), json!({
        "type": "object", "required": ["access_token", "token_type", "expires_in"],
        "properties": { "access_token": {"type": "string"}, "token_type": {"const": "Bearer"}, "expires_in": {"type": "integer", "examples": [3600]} }
    }));
    schemas.insert("OAuthError".into(), json!({
        "type": "object", "required": ["error"],
        "properties": { "error": {"enum": ["invalid_request", "invalid_client", "unsupported_grant_type"]}, "error_description": {"type": "string"} }
    }));
    let resources = [
        super::products::schemas(),
        super::warehouses::schemas(),
        super::inventory::schemas(),
        super::orders::schemas(),
        super::bulk_import::schemas(),
        super::packing_api::schemas(),
        super::webhooks::schemas(),
        super::packages::schemas(),
        super::inbound::schemas(),
    ];
    for (name, schema) in resources.into_iter().flatten() {
        schemas.insert(name.into(), schema);
    }
    let header = |d: &str| json!({ "description": d, "schema": { "type": "integer" } });
    json!({
        "securitySchemes": {
            "bearerAuth": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                "description": "Token from POST /oauth/token (client credentials), valid 3600 s." },
            "apiKeyAuth": { "type": "apiKey", "in": "header", "name": "X-API-Key" },
            "webhookSignature": { "type": "apiKey", "in": "header", "name": "X-Webhook-Signature",
                "description": "Inbound callbacks: lowercase hex HMAC-SHA256 of `<X-Webhook-Timestamp>.<raw body>` with the source's secret (fulfilld inbound set-secret --source wms|carrier:NAME)." },
            "webhookTimestamp": { "type": "apiKey", "in": "header", "name": "X-Webhook-Timestamp",
                "description": "Unix seconds; more than 300 s from the appliance's clock is refused (401)." },
            "oauth2": { "type": "oauth2", "flows": { "clientCredentials": { "tokenUrl": "/oauth/token", "scopes": {} } } }
        },
        "parameters": {
            "IdempotencyKey": { "name": "Idempotency-Key", "in": "header", "required": false,
                "description": "Replays the stored response of the same request for 24 h.", "schema": { "type": "string", "maxLength": 255 } }
        },
        "headers": {
            "X-RateLimit-Limit": header("Requests per minute of the caller's tier."),
            "X-RateLimit-Remaining": header("Requests left in the bucket."),
            "X-RateLimit-Reset": header("Unix time (s) when the bucket is full again."),
            "Retry-After": header("Seconds to wait before retrying."),
        },
        "responses": {
            "BadRequest": error_response("bad_request: malformed JSON, wrong types, bad query values"),
            "Unauthorized": error_response("unauthorized: missing, invalid, expired or revoked credentials"),
            "NotFound": error_response("not_found: unknown id, SKU or route"),
            "Conflict": error_response("conflict, invalid_transition, insufficient_inventory or idempotency_in_progress"),
            "PayloadTooLarge": error_response("payload_too_large: body over the configured limit; the connection is closed"),
            "UnsupportedMediaType": error_response("unsupported_media_type: send application/json"),
            "ValidationError": error_response("validation_error or idempotency_key_reused; field names the input"),
            "RateLimited": { "description": "rate_limited", "headers": { "Retry-After": { "$ref": "#/components/headers/Retry-After" } },
                "content": json_content(schema_ref("Error")) },
            "Unavailable": error_response("unavailable: storage failing or a queue full; retry after Retry-After"),
            "Internal": error_response("internal_error: logged; never carries internals"),
        },
        "schemas": schemas,
    })
}
