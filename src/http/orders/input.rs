//! Request bodies of `/api/orders` validated into domain values; each 422 names its path
//! (`items[0].sku`, `shippingAddresses[0].line1`).

use serde::Deserialize;
use storage::OrderStatus;

use super::super::address::AddressInput;
use super::super::body::{Field, Whole};
use super::super::error::ApiError;
use super::super::fields::not_null;
use super::super::text::{email, short_text};
use crate::domain::money;
use crate::domain::orders::{NewLine, NewOrder, OrderPatch};

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct OrderInput {
    #[serde(default)]
    pub external_id: Field<String>,
    #[serde(default)]
    pub customer_id: Field<String>,
    #[serde(default)]
    pub customer_email: Field<String>,
    #[serde(default, deserialize_with = "super::super::body::objects")]
    pub items: Field<Vec<LineInput>>,
    #[serde(default, deserialize_with = "super::super::body::objects")]
    pub shipping_addresses: Field<Vec<AddressInput>>,
    #[serde(default, deserialize_with = "super::super::body::object")]
    pub billing_address: Field<AddressInput>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LineInput {
    #[serde(default)]
    pub sku: Field<String>,
    #[serde(default)]
    pub quantity: Field<Whole>,
    #[serde(default)]
    pub unit_price: Field<serde_json::Number>,
}

const MAX_LINES: usize = 500;
pub(super) const MAX_QUANTITY: i64 = 100_000;

fn line(i: usize, l: LineInput) -> Result<NewLine, ApiError> {
    let f = |n: &str| format!("items[{i}].{n}");
    let sku = super::super::products::validate_sku(&f("sku"), &l.sku.required(&f("sku"))?)?;
    let quantity = l.quantity.required(&f("quantity"))?.0;
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PatchInput {
    #[serde(default)]
    status: Field<String>,
    #[serde(default)]
    customer_email: Field<String>,
    #[serde(default, deserialize_with = "super::super::body::objects")]
    shipping_addresses: Field<Vec<AddressInput>>,
    #[serde(default, deserialize_with = "super::super::body::object")]
    billing_address: Field<AddressInput>,
}

/// Validates a PATCH body into a domain patch that changes something.
pub(super) fn patch(i: PatchInput) -> Result<OrderPatch, ApiError> {
    let patch = OrderPatch {
        status: not_null("status", i.status)?
            .map(|s| {
                OrderStatus::parse(&s).ok_or_else(|| ApiError::validation("status", status_list()))
            })
            .transpose()?,
        customer_email: not_null("customerEmail", i.customer_email)?
            .map(email)
            .transpose()?,
        shipping_addresses: not_null("shippingAddresses", i.shipping_addresses)?
            .map(addresses)
            .transpose()?,
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
    Ok(patch)
}

#[derive(Deserialize, Default)]
pub(super) struct CancelInput {
    #[serde(default)]
    pub reason: Field<String>,
}

/// "status must be one of ...", from the statuses themselves.
pub(super) fn status_list() -> String {
    format!(
        "status must be one of {}.",
        OrderStatus::ALL.map(OrderStatus::as_str).join(", ")
    )
}

/// `fromDate`: a date (`2026-11-01`, midnight UTC) or an RFC 3339 time.
pub(super) fn parse_from_date(v: &str) -> Result<i64, ApiError> {
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
