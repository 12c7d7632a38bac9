//! `/api/orders`: validation of create and edit bodies into domain values (each 422
//! names its path, `items[0].sku`, `shippingAddresses[0].line1`), the order's JSON
//! shape, and the handlers (create, list, get, patch, cancel).

use std::sync::Arc;

use hyper::StatusCode;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{AddressRecord, OrderLine, OrderRecord, OrderStatus};

use super::address::AddressInput;
use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::money::{self, Dec};
use crate::domain::orders::{self, Created, Filter, NewLine, NewOrder, OrderError, OrderPatch};
use crate::domain::time_fmt::rfc3339;

impl From<OrderError> for ApiError {
    fn from(e: OrderError) -> Self {
        match e {
            OrderError::UnknownSku { line } => ApiError::validation(
                format!("items[{line}].sku"),
                "No live product has this SKU.",
            ),
            OrderError::Insufficient { line, available } => ApiError::conflict(
                "insufficient_inventory",
                format!("Not enough stock: {available} available in all warehouses together."),
            )
            .on(format!("items[{line}].quantity")),
            OrderError::ExternalIdConflict => ApiError::conflict(
                "conflict",
                "This externalId belongs to an order created with a different request.",
            )
            .on("externalId"),
            OrderError::NotFound => ApiError::not_found("No such order."),
            OrderError::InvalidTransition { from, to } => ApiError::conflict(
                "invalid_transition",
                format!(
                    "An order cannot move from {} to {}.",
                    from.as_str(),
                    to.as_str()
                ),
            )
            .on("status"),
            OrderError::PackageShipped => ApiError::conflict(
                "invalid_transition",
                "A package of this order has shipped; the order can no longer be cancelled.",
            )
            .on("status"),
            OrderError::NotEditable { field, status } => ApiError::conflict(
                "invalid_transition",
                format!(
                    "{field} can only be edited while the order is pending (it is {}).",
                    status.as_str()
                ),
            )
            .on(field),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct OrderInput {
    #[serde(default)]
    pub external_id: Field<String>,
    #[serde(default)]
    pub customer_id: Field<String>,
    #[serde(default)]
    pub customer_email: Field<String>,
    #[serde(default)]
    pub items: Field<Vec<LineInput>>,
    #[serde(default)]
    pub shipping_addresses: Field<Vec<AddressInput>>,
    #[serde(default)]
    pub billing_address: Field<AddressInput>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LineInput {
    #[serde(default)]
    pub sku: Field<String>,
    #[serde(default)]
    pub quantity: Field<i64>,
    #[serde(default)]
    pub unit_price: Field<serde_json::Number>,
}

const MAX_LINES: usize = 500;
const MAX_QUANTITY: i64 = 100_000;

/// A short text: trimmed, non-empty, at most `max` printable characters.
pub fn short_text(field: &str, v: String, max: usize) -> Result<String, ApiError> {
    let v = v.trim().to_string();
    if v.is_empty() || v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(ApiError::validation(
            field,
            format!("{field} must be 1 to {max} printable characters."),
        ));
    }
    Ok(v)
}

fn email(v: String) -> Result<String, ApiError> {
    let v = v.trim().to_string();
    let ok = v.len() <= 254
        && !v.contains(char::is_whitespace)
        && v.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
        });
    if ok {
        Ok(v)
    } else {
        Err(ApiError::validation(
            "customerEmail",
            "customerEmail must be an e-mail address.",
        ))
    }
}

fn line(i: usize, l: LineInput) -> Result<NewLine, ApiError> {
    let f = |n: &str| format!("items[{i}].{n}");
    let sku = super::products::validate_sku(&f("sku"), &l.sku.required(&f("sku"))?)?;
    let quantity = l.quantity.required(&f("quantity"))?;
    if !(1..=MAX_QUANTITY).contains(&quantity) {
        return Err(ApiError::validation(
            f("quantity"),
            format!("quantity must be between 1 and {MAX_QUANTITY}."),
        ));
    }
    let unit_price = match l.unit_price.optional() {
        Some(n) => Some(
            money::parse(&n.to_string())
                .filter(money::is_valid_amount)
                .ok_or_else(|| {
                    ApiError::validation(
                        f("unitPrice"),
                        "unitPrice must be a non-negative amount with at most 4 decimal places.",
                    )
                })?,
        ),
        None => None,
    };
    Ok(NewLine {
        sku,
        quantity: quantity as u32,
        unit_price,
    })
}

fn addresses(list: Vec<AddressInput>) -> Result<Vec<storage::AddressRecord>, ApiError> {
    if list.is_empty() {
        return Err(ApiError::validation(
            "shippingAddresses",
            "At least one shipping address is required.",
        ));
    }
    if list.len() > 10 {
        return Err(ApiError::validation(
            "shippingAddresses",
            "At most 10 shipping addresses.",
        ));
    }
    list.into_iter()
        .enumerate()
        .map(|(i, a)| a.validate(&format!("shippingAddresses[{i}]")))
        .collect()
}

/// Validates a create body (JSON or a CSV group) into a domain order.
pub fn new_order(i: OrderInput) -> Result<NewOrder, ApiError> {
    let external_id = short_text("externalId", i.external_id.required("externalId")?, 100)?;
    let customer_email = email(i.customer_email.required("customerEmail")?)?;
    let customer_id = i
        .customer_id
        .optional()
        .map(|c| short_text("customerId", c, 100))
        .transpose()?;
    let items = i.items.required("items")?;
    if items.is_empty() {
        return Err(ApiError::validation(
            "items",
            "At least one item is required.",
        ));
    }
    if items.len() > MAX_LINES {
        return Err(ApiError::validation(
            "items",
            format!("At most {MAX_LINES} items."),
        ));
    }
    let lines = items
        .into_iter()
        .enumerate()
        .map(|(n, l)| line(n, l))
        .collect::<Result<Vec<_>, _>>()?;
    let shipping_addresses = addresses(i.shipping_addresses.required("shippingAddresses")?)?;
    let billing_address = i
        .billing_address
        .optional()
        .map(|a| a.validate("billingAddress"))
        .transpose()?;
    Ok(NewOrder {
        external_id,
        customer_id,
        customer_email,
        lines,
        shipping_addresses,
        billing_address,
    })
}

/// A stored decimal string re-read the way the record's own code reads it (an
/// unparsable one renders as 0, as it always has).
fn stored(s: &str) -> Decimal {
    s.parse().unwrap_or_default()
}

/// A postal address as the API returns it (every key present; absent ones are null).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressOut<'a> {
    name: Option<&'a str>,
    line1: &'a str,
    line2: Option<&'a str>,
    city: &'a str,
    region: Option<&'a str>,
    postal_code: &'a str,
    country: &'a str,
}

pub fn address_out(a: &AddressRecord) -> AddressOut<'_> {
    AddressOut {
        name: a.name.as_deref(),
        line1: &a.line1,
        line2: a.line2.as_deref(),
        city: &a.city,
        region: a.region.as_deref(),
        postal_code: &a.postal_code,
        country: &a.country,
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct AllocationOut<'a> {
    warehouse_id: &'a str,
    quantity: u32,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LineOut<'a> {
    sku: &'a str,
    name: &'a str,
    quantity: u32,
    unit_price: Dec,
    line_total: Dec,
    allocations: Vec<AllocationOut<'a>>,
    /// unitCost, costCurrency and lineCost appear together, only when the product had a cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    unit_cost: Option<Dec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_currency: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line_cost: Option<Dec>,
}

/// The order as the API returns it, serialized straight from the record: building a
/// `Value` tree per order cost more than reading and decoding it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderOut<'a> {
    id: uuid::fmt::Hyphenated,
    external_id: &'a str,
    customer_id: Option<&'a str>,
    customer_email: &'a str,
    status: &'static str,
    items: Vec<LineOut<'a>>,
    shipping_addresses: Vec<AddressOut<'a>>,
    billing_address: Option<AddressOut<'a>>,
    total: Option<Dec>,
    item_count: u32,
    cancel_reason: Option<&'a str>,
    pending_reason: Option<&'a str>,
    created_at: String,
    updated_at: String,
}

fn line_out(l: &OrderLine) -> LineOut<'_> {
    let unit = stored(&l.unit_price);
    let qty = Decimal::from(l.quantity);
    let cost = l
        .unit_cost
        .as_deref()
        .zip(l.cost_currency.as_deref())
        .map(|(c, cur)| (stored(c), cur));
    LineOut {
        sku: &l.sku,
        name: &l.name,
        quantity: l.quantity,
        unit_price: Dec(unit),
        line_total: Dec(unit * qty),
        allocations: l
            .allocations
            .iter()
            .map(|a| AllocationOut {
                warehouse_id: &a.warehouse_id,
                quantity: a.quantity,
            })
            .collect(),
        unit_cost: cost.map(|(c, _)| Dec(c)),
        cost_currency: cost.map(|(_, cur)| cur),
        line_cost: cost.map(|(c, _)| Dec(c * qty)),
    }
}

pub fn out(o: &OrderRecord) -> OrderOut<'_> {
    OrderOut {
        id: uuid::Uuid::from_u128(o.id).hyphenated(),
        external_id: &o.external_id,
        customer_id: o.customer_id.as_deref(),
        customer_email: &o.customer_email,
        status: o.status.as_str(),
        items: o.lines.iter().map(line_out).collect(),
        shipping_addresses: o.shipping_addresses.iter().map(address_out).collect(),
        billing_address: o.billing_address.as_ref().map(address_out),
        // An unparsable stored total is null, as it always was.
        total: money::parse(&o.total).map(Dec),
        item_count: o.item_count,
        cancel_reason: o.cancel_reason.as_deref(),
        pending_reason: o.pending_reason.as_deref(),
        created_at: rfc3339(o.created_at_ms),
        updated_at: rfc3339(o.updated_at_ms),
    }
}

/// The order as a JSON value (events, and callers that compose documents).
pub fn to_json(o: &OrderRecord) -> Value {
    serde_json::to_value(out(o)).unwrap_or(Value::Null)
}

pub fn parse_id(raw: &str) -> Result<u128, ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|u| u.as_u128())
        .map_err(|_| OrderError::NotFound.into())
}

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let input: OrderInput = body::json(&ctx.body)?;
    let new = new_order(input)?;
    match orders::create(&ctx.app.domain, &new, ctx.client_id())? {
        Created::New(o) => {
            ctx.wake_when_durable(&ctx.app.packer);
            Ok(json(StatusCode::CREATED, &out(&o)))
        }
        // A repeat of an acknowledged create: make sure that acknowledgement holds.
        Created::Existing(o) => {
            ctx.wrote();
            Ok(json(StatusCode::OK, &out(&o)))
        }
    }
}

/// `fromDate`: a date (`2026-11-01`, midnight UTC) or an RFC 3339 time.
fn parse_from_date(v: &str) -> Result<i64, ApiError> {
    use time::format_description::well_known::Rfc3339;
    let bad = || {
        ApiError::bad_request("fromDate must be a date (2026-11-01) or an RFC 3339 time.")
            .on("fromDate")
    };
    if let Ok(t) = time::OffsetDateTime::parse(v, &Rfc3339) {
        return Ok((t.unix_timestamp_nanos() / 1_000_000) as i64);
    }
    let d = time::Date::parse(v, time::macros::format_description!("[year]-[month]-[day]"))
        .map_err(|_| bad())?;
    Ok(d.midnight().assume_utc().unix_timestamp() * 1000)
}

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref());
    let page = q.page()?;
    let status = match q.get("status") {
        None | Some("") => None,
        Some(s) => Some(OrderStatus::parse(s).ok_or_else(|| {
            ApiError::bad_request(
                "status must be one of pending, processing, shipped, delivered, cancelled.",
            )
            .on("status")
        })?),
    };
    let filter = Filter {
        status,
        q: q.get("q").filter(|s| !s.is_empty()).map(str::to_string),
        from_ms: q
            .get("fromDate")
            .filter(|s| !s.is_empty())
            .map(parse_from_date)
            .transpose()?,
    };
    let (ids, total) = orders::page(&ctx.app.domain.orders, &filter, page.limit, page.offset);
    let cache = &ctx.app.domain.orders.rendered;
    let mut list = page.rendered("orders", 1024 * ids.len());
    for (&(id, _), hit) in ids.iter().zip(cache.get_many(&ids)) {
        let bytes = match hit {
            Some(b) => b,
            None => {
                let Some(o) = orders::get(&ctx.app.store, id)? else {
                    continue;
                };
                // The index is updated just after each commit, the store a moment after
                // it: a record whose status moved in between is left out rather than
                // listed under a status it no longer has.
                if filter.status.is_some_and(|s| s != o.status) {
                    continue;
                }
                let b: Arc<[u8]> = serde_json::to_vec(&out(&o))
                    .expect("orders serialize")
                    .into();
                // Cached under the version read, which is not always the index's (a
                // write in flight): then it is simply never hit.
                cache.put(o.id, o.updated_at_ms, Arc::clone(&b));
                b
            }
        };
        list.push(&bytes);
    }
    Ok(list.finish(total))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    match orders::get(&ctx.app.store, id)? {
        Some(o) => Ok(json(StatusCode::OK, &out(&o))),
        None => Err(OrderError::NotFound.into()),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PatchInput {
    #[serde(default)]
    status: Field<String>,
    #[serde(default)]
    customer_email: Field<String>,
    #[serde(default)]
    shipping_addresses: Field<Vec<AddressInput>>,
    #[serde(default)]
    billing_address: Field<AddressInput>,
}

pub fn update(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let i: PatchInput = body::json(&ctx.body)?;
    let patch = OrderPatch {
        status: match i.status {
            Field::Absent => None,
            Field::Null => return Err(ApiError::validation("status", "status cannot be null.")),
            Field::Value(s) => Some(OrderStatus::parse(&s).ok_or_else(|| {
                ApiError::validation(
                    "status",
                    "status must be one of pending, processing, shipped, delivered, cancelled.",
                )
            })?),
        },
        customer_email: match i.customer_email {
            Field::Null => {
                return Err(ApiError::validation(
                    "customerEmail",
                    "customerEmail cannot be null.",
                ))
            }
            other => other.optional().map(email).transpose()?,
        },
        shipping_addresses: match i.shipping_addresses {
            Field::Null => {
                return Err(ApiError::validation(
                    "shippingAddresses",
                    "shippingAddresses cannot be null.",
                ))
            }
            other => other.optional().map(addresses).transpose()?,
        },
        billing_address: i
            .billing_address
            .patch()
            .map(|a| a.map(|a| a.validate("billingAddress")).transpose())
            .transpose()?,
    };
    if patch.status.is_none()
        && patch.customer_email.is_none()
        && patch.shipping_addresses.is_none()
        && patch.billing_address.is_none()
    {
        return Err(ApiError::validation(
            "status",
            "Nothing to change: give status, customerEmail, shippingAddresses or billingAddress.",
        ));
    }
    let o = orders::update(&ctx.app.domain, id, &patch, ctx.client_id())?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&o)))
}

#[derive(Deserialize, Default)]
struct CancelInput {
    #[serde(default)]
    reason: Field<String>,
}

pub fn cancel(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let input: CancelInput = if ctx.body.is_empty() {
        CancelInput::default()
    } else {
        body::json(&ctx.body)?
    };
    let reason = input
        .reason
        .optional()
        .map(|r| short_text("reason", r, 500))
        .transpose()?;
    let (o, changed) = orders::cancel(&ctx.app.domain, id, reason.as_deref(), ctx.client_id())?;
    if changed {
        ctx.wrote();
    }
    Ok(json(StatusCode::OK, &out(&o)))
}

pub fn schemas() -> Vec<(&'static str, Value)> {
    let addr = json!({"$ref": "#/components/schemas/Address"});
    let ts = json!({"type": "string", "format": "date-time"});
    let status = json!({"enum": ["pending", "processing", "shipped", "delivered", "cancelled"]});
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
            "quantity": {"type": "integer", "minimum": 1},
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
            "OrderList",
            json!({"type": "object", "required": ["orders", "pagination"], "properties": {
            "orders": {"type": "array", "items": {"$ref": "#/components/schemas/Order"}},
            "pagination": {"$ref": "#/components/schemas/Pagination"}}}),
        ),
    ]
}
