//! `POST /api/orders/bulk-import`: many orders in one request, as JSON `{orders: [...]}`
//! or `text/csv` (one row per line item, rows grouped by externalId). Each order is all
//! or nothing on its own; the answer lists every order as created, duplicate or error.

use std::collections::HashMap;

use hyper::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};

use super::address::AddressInput;
use super::body::{self, Field, Whole};
use super::ctx::Ctx;
use super::error::ApiError;
use super::orders::{new_order, LineInput, OrderInput};
use super::response::{json, Resp};
use crate::domain::orders::{self, Created};

#[derive(Deserialize)]
struct JsonImport {
    #[serde(default)]
    orders: Field<Vec<serde_json::Value>>,
}

/// One order to import, with the CSV rows it came from.
struct Candidate {
    external_id: Option<String>,
    rows: Vec<u64>,
    input: Result<OrderInput, ApiError>,
}

fn too_many(max: usize) -> ApiError {
    let mut e = ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("A bulk import holds at most {max} orders."),
    );
    e.close = true;
    e
}

fn from_json(body: &[u8], max: usize) -> Result<Vec<Candidate>, ApiError> {
    let parsed: JsonImport = body::json(body)?;
    let orders = parsed.orders.required("orders")?;
    if orders.len() > max {
        return Err(too_many(max));
    }
    Ok(orders
        .into_iter()
        .map(|v| {
            let external_id = v
                .get("externalId")
                .and_then(Value::as_str)
                .map(str::to_string);
            // Type errors are per order, like validation errors.
            let input = serde_path_to_error::deserialize::<_, body::Object<OrderInput>>(v)
                .map(|o| o.0)
                .map_err(|e| {
                    let path = e.path().to_string();
                    ApiError::bad_request(format!("Invalid order: {}", e.into_inner())).on(path)
                });
            Candidate {
                external_id,
                rows: Vec::new(),
                input,
            }
        })
        .collect())
}

/// CSV columns, named after the JSON fields.
const REQUIRED: [&str; 4] = ["externalId", "customerEmail", "sku", "quantity"];
const ORDER_LEVEL: [&str; 3] = ["externalId", "customerId", "customerEmail"];
const ADDRESS_FIELDS: [&str; 8] = [
    "name",
    "line1",
    "street1",
    "line2",
    "city",
    "region",
    "postalCode",
    "country",
];

fn address(row: &HashMap<&str, &str>, prefix: &str) -> Option<AddressInput> {
    let mut obj = serde_json::Map::new();
    for f in ADDRESS_FIELDS {
        if let Some(v) = row
            .get(format!("{prefix}.{f}").as_str())
            .filter(|v| !v.is_empty())
        {
            obj.insert(f.to_string(), json!(v));
        }
    }
    if obj.is_empty() {
        return None;
    }
    serde_json::from_value(Value::Object(obj)).ok()
}

fn csv_number(
    row: &HashMap<&str, &str>,
    column: &str,
) -> Result<Option<serde_json::Number>, ApiError> {
    match row.get(column).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v.parse::<serde_json::Number>().map(Some).map_err(|_| {
            ApiError::bad_request(format!("{column} must be a number, not {v:?}.")).on(column)
        }),
    }
}

fn csv_line(row: &HashMap<&str, &str>) -> Result<LineInput, ApiError> {
    let quantity =
        match csv_number(row, "quantity")? {
            Some(n) => Field::Value(n.as_i64().map(Whole).ok_or_else(|| {
                ApiError::bad_request("quantity must be an integer.").on("quantity")
            })?),
            None => Field::Absent,
        };
    Ok(LineInput {
        sku: row
            .get("sku")
            .filter(|v| !v.is_empty())
            .map_or(Field::Absent, |v| Field::Value(v.to_string())),
        quantity,
        unit_price: csv_number(row, "unitPrice")?.map_or(Field::Absent, Field::Value),
    })
}

fn from_csv(body: &[u8], max: usize) -> Result<Vec<Candidate>, ApiError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(body);
    let headers = reader
        .headers()
        .map_err(|e| ApiError::bad_request(format!("The CSV header cannot be read: {e}")))?
        .clone();
    for col in REQUIRED {
        if !headers.iter().any(|h| h == col) {
            return Err(ApiError::bad_request(format!("The CSV has no {col} column.")).on(col));
        }
    }
    // Groups in first-seen order: (externalId, rows, order-level values, lines, addresses).
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Candidate> = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let row_number = i as u64 + 2; // the header is row 1
        let record = record.map_err(|e| {
            ApiError::bad_request(format!("CSV row {row_number} is malformed: {e}"))
        })?;
        let row: HashMap<&str, &str> = headers.iter().zip(record.iter()).collect();
        let ext = row.get("externalId").copied().unwrap_or("").to_string();
        if !groups.contains_key(&ext) {
            if order.len() == max {
                return Err(too_many(max));
            }
            order.push(ext.clone());
            let input = OrderInput {
                external_id: if ext.is_empty() {
                    Field::Absent
                } else {
                    Field::Value(ext.clone())
                },
                customer_id: row
                    .get("customerId")
                    .filter(|v| !v.is_empty())
                    .map_or(Field::Absent, |v| Field::Value(v.to_string())),
                customer_email: row
                    .get("customerEmail")
                    .filter(|v| !v.is_empty())
                    .map_or(Field::Absent, |v| Field::Value(v.to_string())),
                items: Field::Value(Vec::new()),
                shipping_addresses: Field::Value(
                    address(&row, "shippingAddress").into_iter().collect(),
                ),
                billing_address: address(&row, "billingAddress")
                    .map_or(Field::Absent, Field::Value),
            };
            groups.insert(
                ext.clone(),
                Candidate {
                    external_id: Some(ext.clone()).filter(|e| !e.is_empty()),
                    rows: Vec::new(),
                    input: Ok(input),
                },
            );
        }
        let group = groups.get_mut(&ext).expect("inserted above");
        group.rows.push(row_number);
        let first_row = group.rows[0];
        let Ok(input) = &mut group.input else {
            continue;
        };
        let first = first_row == row_number;
        // Order-level columns repeat on every row and must agree with the group's first.
        if !first {
            for col in ORDER_LEVEL {
                let v = row.get(col).copied().unwrap_or("");
                let expected = match col {
                    "customerId" => input.customer_id.clone().optional().unwrap_or_default(),
                    "customerEmail" => input.customer_email.clone().optional().unwrap_or_default(),
                    _ => ext.clone(),
                };
                if v != expected {
                    group.input = Err(ApiError::validation(col, format!("Row {row_number} has another {col} than row {first_row} of the same order.")));
                    break;
                }
            }
        }
        let Ok(input) = &mut group.input else {
            continue;
        };
        match csv_line(&row) {
            Ok(line) => {
                if let Field::Value(items) = &mut input.items {
                    items.push(line);
                }
            }
            Err(e) => group.input = Err(e),
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|ext| groups.remove(&ext))
        .collect())
}

fn error_json(e: &ApiError) -> Value {
    json!({ "code": e.code, "message": e.message, "field": e.field })
}

pub fn import(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let max = ctx.app.config.bulk_max_orders;
    let media = body::media_type(&ctx.headers).unwrap_or_default();
    let candidates = if media == "text/csv" {
        from_csv(&ctx.body, max)?
    } else {
        from_json(&ctx.body, max)?
    };
    let (mut created, mut duplicate, mut failed) = (0u64, 0u64, 0u64);
    let mut results = Vec::with_capacity(candidates.len());
    for (index, c) in candidates.into_iter().enumerate() {
        let outcome = c.input.and_then(new_order).and_then(|new| {
            orders::create(&ctx.app.domain, &new, ctx.client_id()).map_err(ApiError::from)
        });
        let mut r = json!({ "index": index, "externalId": c.external_id });
        if !c.rows.is_empty() {
            r["rows"] = json!(c.rows);
        }
        match outcome {
            Ok(Created::New(o)) => {
                created += 1;
                r["status"] = json!("created");
                r["orderId"] = json!(uuid::Uuid::from_u128(o.id).to_string());
            }
            Ok(Created::Existing(o)) => {
                duplicate += 1;
                r["status"] = json!("duplicate");
                r["orderId"] = json!(uuid::Uuid::from_u128(o.id).to_string());
            }
            Err(e) if e.status.is_server_error() => return Err(e),
            Err(e) => {
                failed += 1;
                r["status"] = json!("error");
                r["error"] = error_json(&e);
            }
        }
        results.push(r);
    }
    // One flush for the whole import (and for duplicates, whose first write we confirm).
    ctx.wake_when_durable(&ctx.app.packer);
    let total = created + duplicate + failed;
    Ok(json(
        StatusCode::OK,
        &json!({ "results": results, "counts": { "total": total, "created": created, "duplicate": duplicate, "error": failed } }),
    ))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "BulkImportJson",
            json!({"type": "object", "required": ["orders"], "properties": {
            "orders": {"type": "array", "items": {"$ref": "#/components/schemas/OrderCreate"}}}}),
        ),
        (
            "BulkImportCsv",
            json!({"type": "string",
            "description": "text/csv, one row per line item, rows grouped by externalId, order-level columns repeated on each row. Columns: externalId, customerId, customerEmail, sku, quantity, unitPrice, shippingAddress.name, shippingAddress.line1, shippingAddress.line2, shippingAddress.city, shippingAddress.region, shippingAddress.postalCode, shippingAddress.country, and the same with billingAddress. (one shipping address per order). Row numbers in results count the header as row 1.",
            "examples": ["externalId,customerEmail,sku,quantity,unitPrice,shippingAddress.line1,shippingAddress.city,shippingAddress.postalCode,shippingAddress.country\nSHOP-1,ann@example.com,MUG-01,2,,1 Main St,Reno,89501,US\nSHOP-1,ann@example.com,CUP-02,1,3.5,1 Main St,Reno,89501,US\nSHOP-2,bob@example.com,MUG-01,1,,9 Elm St,Boise,83702,US\n"]}),
        ),
        (
            "BulkImportResult",
            json!({"type": "object", "required": ["results", "counts"], "properties": {
            "results": {"type": "array", "items": {"type": "object", "properties": {
                "index": {"type": "integer", "description": "Position of the order in the import"},
                "externalId": {"type": ["string", "null"]},
                "status": {"enum": ["created", "duplicate", "error"], "description": "duplicate: the same order exists under this externalId"},
                "orderId": {"type": "string", "format": "uuid"},
                "rows": {"type": "array", "items": {"type": "integer"}, "description": "CSV rows of this order (header = row 1)"},
                "error": {"$ref": "#/components/schemas/ErrorBody"}}}},
            "counts": {"type": "object", "properties": {
                "total": {"type": "integer"}, "created": {"type": "integer"}, "duplicate": {"type": "integer"}, "error": {"type": "integer"}}}}}),
        ),
    ]
}
