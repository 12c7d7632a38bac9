//! Request bodies of `/api/products` validated into domain values; each 422 names its field.

use rust_decimal::Decimal;
use serde::Deserialize;
use storage::{Dimensions, Hazmat, Orientation};

use super::super::body::{Field, Whole};
use super::super::error::ApiError;
use super::super::fields::{not_null, positive};
use super::super::text::plain_text as text;
use crate::domain::money::{self};
use crate::domain::products::{NewProduct, ProductError, ProductPatch};

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct ProductInput {
    #[serde(default)]
    sku: Field<String>,
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    description: Field<String>,
    #[serde(default)]
    price: Field<serde_json::Number>,
    #[serde(default)]
    unit_cost: Field<serde_json::Number>,
    #[serde(default)]
    cost_currency: Field<String>,
    #[serde(default)]
    weight: Field<f64>,
    #[serde(default, deserialize_with = "super::super::body::object")]
    dimensions: Field<DimensionsInput>,
    #[serde(default, deserialize_with = "super::super::body::object")]
    hazmat: Field<HazmatInput>,
    #[serde(default)]
    orientation: Field<String>,
    #[serde(default)]
    low_stock_threshold: Field<Whole>,
}

#[derive(Deserialize)]
struct DimensionsInput {
    #[serde(default)]
    width: Field<f64>,
    #[serde(default)]
    height: Field<f64>,
    #[serde(default)]
    length: Field<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HazmatInput {
    #[serde(default)]
    class: Field<String>,
    #[serde(default)]
    un_number: Field<String>,
}

pub fn validate_sku(field: &str, sku: &str) -> Result<String, ApiError> {
    let ok = !sku.is_empty()
        && sku.len() <= 64
        && sku
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(sku.to_string())
    } else {
        Err(ApiError::validation(
            field,
            "SKU must be 1-64 characters of letters, digits, '-', '_' or '.'.",
        ))
    }
}

fn amount(field: &str, n: &serde_json::Number) -> Result<Decimal, ApiError> {
    money::parse(&n.to_string())
        .filter(money::is_valid_amount)
        .ok_or_else(|| {
            ApiError::validation(
                field,
                format!(
                    "{field} must be a non-negative amount with at most {} decimal places.",
                    money::MAX_SCALE
                ),
            )
        })
}

fn dimensions(d: DimensionsInput) -> Result<Dimensions, ApiError> {
    Ok(Dimensions {
        width: positive("dimensions.width", d.width.required("dimensions.width")?)?,
        height: positive("dimensions.height", d.height.required("dimensions.height")?)?,
        length: positive("dimensions.length", d.length.required("dimensions.length")?)?,
    })
}

/// UN hazard classes and divisions.
pub(super) const HAZMAT_CLASSES: [&str; 25] = [
    "1", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "2", "2.1", "2.2", "2.3", "3", "4", "4.1",
    "4.2", "4.3", "5", "5.1", "5.2", "6", "6.1", "6.2", "7", "8", "9",
];

fn hazmat(h: HazmatInput) -> Result<Hazmat, ApiError> {
    let class = h.class.required("hazmat.class")?;
    let valid_class = HAZMAT_CLASSES.contains(&class.as_str());
    if !valid_class {
        return Err(ApiError::validation(
            "hazmat.class",
            "hazmat.class must be a UN hazard class or division such as 3 or 2.1.",
        ));
    }
    let un = h.un_number.required("hazmat.unNumber")?;
    let digits = un.strip_prefix("UN").unwrap_or(&un);
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::validation(
            "hazmat.unNumber",
            "hazmat.unNumber must be UN followed by four digits, e.g. UN1263.",
        ));
    }
    Ok(Hazmat {
        class,
        un_number: format!("UN{digits}"),
    })
}

fn orientation(v: &str) -> Result<Orientation, ApiError> {
    match v {
        "any" => Ok(Orientation::Any),
        "upright" => Ok(Orientation::Upright),
        _ => Err(ApiError::validation(
            "orientation",
            "orientation must be \"any\" or \"upright\".",
        )),
    }
}

fn threshold(v: i64) -> Result<u32, ApiError> {
    u32::try_from(v).map_err(|_| {
        ApiError::validation("lowStockThreshold", "lowStockThreshold must be 0 or more.")
    })
}

fn currency(v: String) -> Result<String, ApiError> {
    if v.len() == 3 && v.bytes().all(|b| b.is_ascii_uppercase()) {
        Ok(v)
    } else {
        Err(ApiError::validation(
            "costCurrency",
            "costCurrency must be an ISO 4217 code such as USD.",
        ))
    }
}

pub(super) fn new_product(i: ProductInput) -> Result<NewProduct, ApiError> {
    let sku = validate_sku("sku", &i.sku.required("sku")?)?;
    let name = text("name", i.name.required("name")?, 200, false)?;
    let description = text(
        "description",
        i.description.optional().unwrap_or_default(),
        5000,
        true,
    )?;
    let price = amount("price", &i.price.required("price")?)?;
    let unit_cost = i
        .unit_cost
        .optional()
        .map(|n| amount("unitCost", &n))
        .transpose()?;
    let cost_currency = i.cost_currency.optional().map(currency).transpose()?;
    if unit_cost.is_some() != cost_currency.is_some() {
        return Err(ProductError::CostWithoutCurrency.into());
    }
    Ok(NewProduct {
        sku,
        name,
        description,
        price,
        unit_cost,
        cost_currency,
        weight: i
            .weight
            .optional()
            .map(|w| positive("weight", w))
            .transpose()?,
        dimensions: i.dimensions.optional().map(dimensions).transpose()?,
        hazmat: i.hazmat.optional().map(hazmat).transpose()?,
        orientation: i
            .orientation
            .optional()
            .map(|o| orientation(&o))
            .transpose()?
            .unwrap_or(Orientation::Any),
        low_stock_threshold: i
            .low_stock_threshold
            .optional()
            .map(|t| threshold(t.0))
            .transpose()?
            .unwrap_or(0),
    })
}

pub(super) fn patch(i: ProductInput) -> Result<ProductPatch, ApiError> {
    Ok(ProductPatch {
        sku: not_null("sku", i.sku)?
            .map(|s| validate_sku("sku", &s))
            .transpose()?,
        name: not_null("name", i.name)?
            .map(|s| text("name", s, 200, false))
            .transpose()?,
        description: i
            .description
            .patch()
            .map(|d| text("description", d.unwrap_or_default(), 5000, true))
            .transpose()?,
        price: not_null("price", i.price)?
            .map(|n| amount("price", &n))
            .transpose()?,
        unit_cost: i
            .unit_cost
            .patch()
            .map(|o| o.map(|n| amount("unitCost", &n)).transpose())
            .transpose()?,
        cost_currency: i
            .cost_currency
            .patch()
            .map(|o| o.map(currency).transpose())
            .transpose()?,
        weight: i
            .weight
            .patch()
            .map(|o| o.map(|w| positive("weight", w)).transpose())
            .transpose()?,
        dimensions: i
            .dimensions
            .patch()
            .map(|o| o.map(dimensions).transpose())
            .transpose()?,
        hazmat: i
            .hazmat
            .patch()
            .map(|o| o.map(hazmat).transpose())
            .transpose()?,
        orientation: not_null("orientation", i.orientation)?
            .map(|o| orientation(&o))
            .transpose()?,
        low_stock_threshold: not_null("lowStockThreshold", i.low_stock_threshold)?
            .map(|t| threshold(t.0))
            .transpose()?,
    })
}
