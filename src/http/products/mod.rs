//! `/api/products`: the handlers and how domain errors of products answer; request
//! validation is in `input`, the JSON shape in `output`, the OpenAPI schemas in `schema`.

mod input;
mod output;
mod schema;

use std::sync::Arc;

use hyper::StatusCode;

use super::body::{self};
use super::ctx::Ctx;
use super::error::ApiError;
use super::query::Query;
use super::response::{json, Resp};
use crate::domain::products::{self, ProductError};
use input::{new_product, patch, ProductInput};

pub use input::validate_sku;
pub use output::out;
pub use schema::schemas;

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

fn parse_id(raw: &str) -> Result<u128, ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|u| u.as_u128())
        .map_err(|_| ApiError::not_found("No such product."))
}

/// A page of live products from the in-memory index, each product's rendered bytes
/// from the index (rendered and kept there on a miss), concatenated into the body.
pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let page = Query::parse(ctx.query.as_deref())?.page()?;
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
