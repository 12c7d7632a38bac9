//! `/api/orders`: the handlers (create, list, get, patch, cancel) and how domain errors of
//! orders answer; request validation is in `input`, the JSON shape in `output`, the
//! OpenAPI schemas in `schema`.

mod input;
mod output;
mod schema;

use std::sync::Arc;

use hyper::StatusCode;
use storage::OrderStatus;

use super::body;
use super::ctx::Ctx;
use super::error::ApiError;
use super::query::Query;
use super::response::{json, Resp};
use super::text::short_text;
use crate::domain::order_list::{self, Filter};
use crate::domain::orders::{self, Created, OrderError};
use input::{parse_from_date, patch, status_list, CancelInput, PatchInput};

pub use input::{new_order, LineInput, OrderInput};
pub use output::{out, to_json};
pub use schema::schemas;

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

pub fn list(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let q = Query::parse(ctx.query.as_deref())?;
    let page = q.page()?;
    let status = match q.get("status") {
        None | Some("") => None,
        Some(s) => Some(
            OrderStatus::parse(s)
                .ok_or_else(|| ApiError::bad_request(status_list()).on("status"))?,
        ),
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
    let (ids, total) = order_list::page(&ctx.app.domain.orders, &filter, page.limit, page.offset);
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

pub fn update(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let i: PatchInput = body::json(&ctx.body)?;
    let patch = patch(i)?;
    let o = orders::update(&ctx.app.domain, id, &patch, ctx.client_id())?;
    ctx.wrote();
    Ok(json(StatusCode::OK, &out(&o)))
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
