//! `/api/products`: JSON shapes of the product resource, validation of its input into
//! domain values (each 422 names its field), and the handlers.

use std::sync::Arc;

use hyper::StatusCode;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{json, Value};
use storage::{Dimensions, Hazmat, Orientation, ProductRecord};

use super::body::{self, Field};
use super::ctx::Ctx;
use super::error::ApiError;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::money::{self, Amount};
use crate::domain::products::{self, NewProduct, ProductError, ProductPatch};
use crate::domain::time_fmt::rfc3339;

impl From<ProductError> for ApiError {
    fn from(e: ProductError) -> Self {
        match e {
            ProductError::SkuTaken => {
                ApiError::conflict("conflict", "A live product already has this SKU.").on("sku")
            }
            ProductError::NotFound => ApiError::not_found("No such product."),
            ProductError::CostWithoutCurrency => ApiError::validation(
                "costCurrency",
                "unitCost and costCurrency must be given together.",
            ),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ProductInput {
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
    #[serde(default)]
    dimensions: Field<DimensionsInput>,
    #[serde(default)]
    hazmat: Field<HazmatInput>,
    #[serde(default)]
    orientation: Field<String>,
    #[serde(default)]
    low_stock_threshold: Field<i64>,
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

fn text(field: &str, v: String, max: usize, allow_empty: bool) -> Result<String, ApiError> {
    let v = v.trim().to_string();
    if (!allow_empty && v.is_empty()) || v.chars().count() > max {
        return Err(ApiError::validation(
            field,
            format!(
                "{field} must be {} to {max} characters.",
                u8::from(!allow_empty)
            ),
        ));
    }
    Ok(v)
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

fn positive(field: &str, v: f64) -> Result<f64, ApiError> {
    if v.is_finite() && v > 0.0 && v < 1e6 {
        Ok(v)
    } else {
        Err(ApiError::validation(
            field,
            format!("{field} must be a positive number."),
        ))
    }
}

fn dimensions(d: DimensionsInput) -> Result<Dimensions, ApiError> {
    Ok(Dimensions {
        width: positive("dimensions.width", d.width.required("dimensions.width")?)?,
        height: positive("dimensions.height", d.height.required("dimensions.height")?)?,
        length: positive("dimensions.length", d.length.required("dimensions.length")?)?,
    })
}

/// UN hazard classes and divisions (1.1-1.6, 2.1-2.3, 3, 4.1-4.3, 5.1-5.2, 6.1-6.2, 7, 8, 9).
fn hazmat(h: HazmatInput) -> Result<Hazmat, ApiError> {
    let class = h.class.required("hazmat.class")?;
    let valid_class = matches!(
        class.as_str(),
        "1" | "1.1"
            | "1.2"
            | "1.3"
            | "1.4"
            | "1.5"
            | "1.6"
            | "2"
            | "2.1"
            | "2.2"
            | "2.3"
            | "3"
            | "4"
            | "4.1"
            | "4.2"
            | "4.3"
            | "5"
            | "5.1"
            | "5.2"
            | "6"
            | "6.1"
            | "6.2"
            | "7"
            | "8"
            | "9"
    );
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

fn new_product(i: ProductInput) -> Result<NewProduct, ApiError> {
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
            .map(threshold)
            .transpose()?
            .unwrap_or(0),
    })
}

fn not_null<T>(field: &str, f: Field<T>) -> Result<Option<T>, ApiError> {
    match f {
        Field::Null => Err(ApiError::validation(
            field,
            format!("{field} cannot be null."),
        )),
        other => Ok(other.optional()),
    }
}

fn patch(i: ProductInput) -> Result<ProductPatch, ApiError> {
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
            .map(threshold)
            .transpose()?,
    })
}

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

fn parse_id(raw: &str) -> Result<u128, ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|u| u.as_u128())
        .map_err(|_| ApiError::not_found("No such product."))
}

/// A page of live products from the in-memory index, each product's rendered bytes
/// from the index (rendered and kept there on a miss), concatenated into the body.
pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let page = Query::parse(ctx.query.as_deref()).page()?;
    let index = &ctx.app.domain.products;
    let (rows, total) = index.page(page.offset, page.limit);
    // Rendered products are about 430 bytes.
    let mut list = page.rendered("products", 512 * rows.len());
    for row in rows {
        let bytes = match row.rendered {
            Some(b) => b,
            None => {
                // The index is updated just after each commit: a product deleted since
                // the page was taken is left out rather than listed as inactive.
                let Some(p) =
                    products::get(&ctx.app.store, row.id)?.filter(|p| p.deleted_at_ms.is_none())
                else {
                    continue;
                };
                let b: Arc<[u8]> = serde_json::to_vec(&out(&p))
                    .expect("products serialize")
                    .into();
                // Kept under the version read; if a write is in flight, that is not the
                // index's version and the bytes are not kept.
                index.keep_rendered(p.id, p.updated_at_ms, Arc::clone(&b));
                b
            }
        };
        list.push(&bytes);
    }
    Ok(list.finish(total))
}

pub fn create(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let input: ProductInput = body::json(&ctx.body)?;
    let new = new_product(input)?;
    let rec = products::create(&ctx.app.store, &ctx.app.domain.products, &new)?;
    ctx.wrote();
    Ok(json(StatusCode::CREATED, &out(&rec)))
}

pub fn get(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    match products::get(&ctx.app.store, id)? {
        Some(p) => Ok(json(StatusCode::OK, &out(&p))),
        None => Err(ApiError::not_found("No such product.")),
    }
}

pub fn get_by_sku(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    match products::by_sku(&ctx.app.store, ctx.param("sku"))? {
        Some(p) => Ok(json(StatusCode::OK, &out(&p))),
        None => Err(ApiError::not_found("No live product has this SKU.")),
    }
}

pub fn update(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let input: ProductInput = body::json(&ctx.body)?;
    let p = patch(input)?;
    let rec = products::update(&ctx.app.store, &ctx.app.domain.products, id, &p)?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&rec)))
}

pub fn delete(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let rec = products::delete(&ctx.app.store, &ctx.app.domain.products, id)?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&rec)))
}

/// OpenAPI schemas of the product resource.
pub fn schemas() -> Vec<(&'static str, Value)> {
    let dims = json!({ "type": "object", "required": ["width", "height", "length"], "properties": {
        "width": {"type": "number", "exclusiveMinimum": 0}, "height": {"type": "number", "exclusiveMinimum": 0, "description": "Vertical when upright"},
        "length": {"type": "number", "exclusiveMinimum": 0} } });
    let hazmat = json!({ "type": "object", "required": ["class", "unNumber"], "properties": {
        "class": {"type": "string", "examples": ["3", "2.1"]}, "unNumber": {"type": "string", "pattern": "^UN[0-9]{4}$"} } });
    let money = |d: &str| json!({ "type": "number", "minimum": 0, "description": d });
    let fields = json!({
        "sku": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$", "description": "Unique among live products"},
        "name": {"type": "string", "maxLength": 200},
        "description": {"type": "string", "maxLength": 5000},
        "price": money("Exact decimal, at most 4 decimal places"),
        "unitCost": money("Optional cost; needs costCurrency"),
        "costCurrency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "weight": {"type": ["number", "null"], "description": "In the appliance's weight unit (lb or kg)"},
        "dimensions": {"oneOf": [dims, {"type": "null"}], "description": "In the appliance's length unit (in or cm); needed for packing"},
        "hazmat": {"oneOf": [hazmat, {"type": "null"}]},
        "orientation": {"enum": ["any", "upright"], "default": "any"},
        "lowStockThreshold": {"type": "integer", "minimum": 0, "default": 0},
    });
    let mut product_props = fields.as_object().cloned().unwrap_or_default();
    for (k, v) in [
        ("id", json!({"type": "string", "format": "uuid"})),
        (
            "active",
            json!({"type": "boolean", "description": "False once deleted"}),
        ),
        (
            "createdAt",
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            "updatedAt",
            json!({"type": "string", "format": "date-time"}),
        ),
        (
            "deletedAt",
            json!({"type": ["string", "null"], "format": "date-time"}),
        ),
    ] {
        product_props.insert(k.into(), v);
    }
    vec![
        (
            "Product",
            json!({ "type": "object", "properties": product_props,
            "required": ["id", "sku", "name", "description", "price", "weight", "dimensions", "hazmat", "orientation", "lowStockThreshold", "active", "createdAt", "updatedAt"] }),
        ),
        (
            "ProductCreate",
            json!({ "type": "object", "properties": fields, "required": ["sku", "name", "price"],
            "examples": [{"sku": "MUG-01", "name": "Mug", "price": 12.5, "weight": 0.8, "dimensions": {"width": 4, "height": 5, "length": 4}}] }),
        ),
        (
            "ProductUpdate",
            json!({ "type": "object", "properties": fields, "description": "Any subset of the create fields; null clears an optional one." }),
        ),
        (
            "ProductList",
            json!({ "type": "object", "required": ["products", "pagination"], "properties": {
            "products": {"type": "array", "items": schema_ref("Product")}, "pagination": schema_ref("Pagination") } }),
        ),
    ]
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}
