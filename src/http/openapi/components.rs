//! The shared components: the error envelope, pagination and every resource's schemas.

use serde_json::{json, Map, Value};

use super::super::routes::Service;
use super::refs::{error_response, json_content, schema_ref};

/// The components of one listener's document: only the schemas its operations use.
pub(super) fn components(service: Service) -> Value {
    let mut schemas = Map::new();
    schemas.insert(
        "Error".into(),
        json!({
            "type": "object", "required": ["error"],
            "properties": { "error": schema_ref("ErrorBody") }
        }),
    );
    schemas.insert(
        "ErrorBody".into(),
        json!({
            "type": "object", "required": ["code", "message", "field"],
            "properties": {
                "code": { "type": "string", "examples": ["validation_error"] },
                "message": { "type": "string" },
                "field": { "type": ["string", "null"], "examples": ["items[0].sku"] } }
        }),
    );
    if service == Service::Packing {
        schemas.insert("PackingHealth".into(), json!({
            "type": "object", "required": ["status", "service", "version"],
            "properties": { "status": {"const": "ok"}, "service": {"const": "packing"}, "version": {"type": "string"}, "uptimeSeconds": {"type": "integer"} }
        }));
        for (name, schema) in super::super::packing_schema::schemas() {
            schemas.insert(name.into(), schema);
        }
        return json!({
            "securitySchemes": { "apiKeyAuth": { "type": "apiKey", "in": "header", "name": "X-API-Key" } },
            "headers": headers(),
            "responses": responses(),
            "schemas": schemas,
        });
    }
    schemas.insert("Pagination".into(), json!({
        "type": "object", "required": ["limit", "offset", "total"],
        "properties": { "limit": {"type": "integer"}, "offset": {"type": "integer"}, "total": {"type": "integer", "description": "All matches, not only this page"} }
    }));
    schemas.insert("Health".into(), json!({
        "type": "object", "required": ["status", "version", "uptimeSeconds", "storage"],
        "properties": { "status": {"enum": ["ok", "degraded", "unavailable"]}, "version": {"type": "string"}, "uptimeSeconds": {"type": "integer"},
            "reason": {"type": "string", "description": "Why the service is degraded: short of disk space, writes refused (507) while reads work"},
            "storage": {"type": "object", "properties": {"status": {"enum": ["ok", "low_space", "failed"]}, "sizeOnDiskBytes": {"type": ["integer", "null"]},
                "freeBytes": {"type": ["integer", "null"]}, "minFreeBytes": {"type": "integer", "description": "The reserve (min_free_space_mb); 0 when off"}}},
            "backups": {"type": "object", "description": "Scheduled (backup_dir) and online backups since the server started, and the newest complete scheduled one found in backup_dir at start; the reason of a failure is in the log",
                "properties": { "scheduled": {"type": "boolean", "description": "Whether backup_dir schedules backups"},
                    "lastResult": {"enum": ["succeeded", "failed", null], "description": "The outcome of the latest backup; null before the first"},
                    "lastSuccessAt": {"type": ["string", "null"], "format": "date-time"}, "lastFailureAt": {"type": ["string", "null"], "format": "date-time"}}},
            "error": schema_ref("Error") }
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
        super::super::products::schemas(),
        super::super::warehouses::schemas(),
        super::super::inventory::schemas(),
        super::super::orders::schemas(),
        super::super::bulk_import::schemas(),
        super::super::webhooks::schemas(),
        super::super::packages::schemas(),
        super::super::package_views::schemas(),
        super::super::inbound::schemas(),
    ];
    for (name, schema) in resources.into_iter().flatten() {
        schemas.insert(name.into(), schema);
    }
    json!({
        "securitySchemes": {
            "bearerAuth": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                "description": "Token from POST /oauth/token (client credentials), valid 3600 s." },
            "apiKeyAuth": { "type": "apiKey", "in": "header", "name": "X-API-Key" },
            "consoleSession": { "type": "apiKey", "in": "cookie", "name": "__Host-fulfilld-session",
                "description": "A person's console session (POST /console/login). Unsafe methods also need the session's `X-CSRF-Token` header (GET /console/session tells it), else 403 csrf_failed; a route outside the person's role is 403 forbidden." },
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
        "headers": headers(),
        "responses": responses(),
        "schemas": schemas,
    })
}

fn headers() -> Value {
    let header = |d: &str| json!({ "description": d, "schema": { "type": "integer" } });
    json!({
        "X-RateLimit-Limit": header("Requests per minute of the caller's tier."),
        "X-RateLimit-Remaining": header("Requests left in the bucket."),
        "X-RateLimit-Reset": header("Unix time (s) when the bucket is full again."),
        "Retry-After": header("Seconds to wait before retrying."),
    })
}

fn responses() -> Value {
    json!({
        "BadRequest": error_response("bad_request: malformed JSON, wrong types, bad query values"),
        "Unauthorized": error_response("unauthorized: missing, invalid, expired or revoked credentials"),
        "Forbidden": error_response("forbidden: the caller may not use this route (a console session whose role does not include it); csrf_failed: a console session's unsafe request without its X-CSRF-Token"),
        "NotFound": error_response("not_found: unknown id, SKU or route"),
        "Conflict": error_response("conflict, invalid_transition, insufficient_inventory or idempotency_in_progress"),
        "PayloadTooLarge": error_response("payload_too_large: body over the configured limit; the connection is closed"),
        "UnsupportedMediaType": error_response("unsupported_media_type: send application/json"),
        "ValidationError": error_response("validation_error or idempotency_key_reused; field names the input"),
        "RateLimited": { "description": "rate_limited", "headers": { "Retry-After": { "$ref": "#/components/headers/Retry-After" } },
            "content": json_content(schema_ref("Error")) },
        "Unavailable": error_response("unavailable: storage failing or a queue full; retry after Retry-After"),
        "Internal": error_response("internal_error: logged; never carries internals"),
        "InsufficientStorage": error_response("insufficient_storage: the disk is nearly full; writes are refused until space is freed, reads still work"),
    })
}
