//! `GET /api/orders/{id}/events`: an order's timeline (its stored history and its
//! packages' callbacks, `domain::order_events`) in the API's shape.

use hyper::StatusCode;
use serde_json::{json, Value};

use super::ctx::Ctx;
use super::error::ApiError;
use super::orders::parse_id;
use super::packages::package_ref;
use super::response::{json, Resp};
use crate::domain::order_events::timeline;
use crate::domain::orders::{self, OrderError};
use crate::domain::time_fmt::rfc3339;

/// `GET /api/orders/{id}/events`: the order's timeline, oldest first.
pub fn events(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = parse_id(ctx.param("id"))?;
    let Some(o) = orders::get(&ctx.app.store, id)? else {
        return Err(OrderError::NotFound.into());
    };
    let (list, recorded) = timeline(&ctx.app.store, &o)?;
    let events: Vec<Value> = list
        .iter()
        .map(|e| {
            json!({
                "at": rfc3339(e.at_ms),
                "kind": e.kind,
                "status": e.status,
                "note": e.note,
                "actor": e.actor,
                "packageId": e.package_id.map(package_ref),
            })
        })
        .collect();
    let body =
        json!({ "orderId": uuid::Uuid::from_u128(id), "recorded": recorded, "events": events });
    Ok(json(StatusCode::OK, &body))
}
