//! The product as the API returns it.

use storage::{Orientation, ProductRecord};

use crate::domain::money::Amount;
use crate::domain::time_fmt::rfc3339;

#[derive(serde::Serialize)]
struct DimensionsOut {
    width: f64,
    height: f64,
    length: f64,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct HazmatOut<'a> {
    class: &'a str,
    un_number: &'a str,
}

/// The product as the API returns it, serialized straight from the record.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductOut<'a> {
    id: uuid::fmt::Hyphenated,
    sku: &'a str,
    name: &'a str,
    description: &'a str,
    price: Amount<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unit_cost: Option<Amount<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_currency: Option<&'a str>,
    weight: Option<f64>,
    dimensions: Option<DimensionsOut>,
    hazmat: Option<HazmatOut<'a>>,
    orientation: &'static str,
    low_stock_threshold: u32,
    active: bool,
    created_at: String,
    updated_at: String,
    deleted_at: Option<String>,
}

pub fn out(p: &ProductRecord) -> ProductOut<'_> {
    let cost = p.unit_cost.as_deref().zip(p.cost_currency.as_deref());
    ProductOut {
        id: uuid::Uuid::from_u128(p.id).hyphenated(),
        sku: &p.sku,
        name: &p.name,
        description: &p.description,
        price: Amount(&p.price),
        unit_cost: cost.map(|(c, _)| Amount(c)),
        cost_currency: cost.map(|(_, cur)| cur),
        weight: p.weight,
        dimensions: p.dimensions.as_ref().map(|d| DimensionsOut {
            width: d.width,
            height: d.height,
            length: d.length,
        }),
        hazmat: p.hazmat.as_ref().map(|h| HazmatOut {
            class: &h.class,
            un_number: &h.un_number,
        }),
        orientation: match p.orientation {
            Orientation::Any => "any",
            Orientation::Upright => "upright",
        },
        low_stock_threshold: p.low_stock_threshold,
        active: p.deleted_at_ms.is_none(),
        created_at: rfc3339(p.created_at_ms),
        updated_at: rfc3339(p.updated_at_ms),
        deleted_at: p.deleted_at_ms.map(rfc3339),
    }
}
