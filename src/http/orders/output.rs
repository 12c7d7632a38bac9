//! The order as the API returns it, serialized straight from the stored record.

use rust_decimal::Decimal;
use serde_json::Value;
use storage::{OrderLine, OrderRecord};

use super::super::address::{address_out, AddressOut};
use crate::domain::money::{self, Dec};
use crate::domain::time_fmt::rfc3339;

/// A stored decimal string re-read the way the record's own code reads it (an
/// unparsable one renders as 0, as it always has).
fn stored(s: &str) -> Decimal {
    s.parse().unwrap_or_default()
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
