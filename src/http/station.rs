//! The packing station's one write: `POST /api/fulfillment/packages/{id}/packed`, a person
//! (or a client) at the bench saying a package is packed. It is a WMS status callback in all
//! but transport: the same rules, audit record, events and answer (`inbound::respond`), from
//! the source `station:<caller>` with a fresh eventId.

use serde_json::json;
use storage::PackageStatus;

use super::ctx::Ctx;
use super::error::ApiError;
use super::inbound::respond;
use super::packages::path_id;
use super::response::Resp;
use crate::domain::inbound::{Callback, Target};
use crate::domain::time_fmt::{now_ms, rfc3339};

pub fn packed(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let id = path_id(ctx)?;
    let by = ctx.client_id().to_string();
    let at = rfc3339(now_ms());
    let cb = Callback {
        source: format!("station:{by}"),
        // Each press is its own event; a retried request is the Idempotency-Key's job.
        event_id: uuid::Uuid::now_v7().to_string(),
        target: Target::Id(id),
        status: PackageStatus::Packed,
        body: json!({"status": "packed", "by": by, "occurredAt": at}).to_string(),
        occurred_at: at,
        location: None,
        shipment: None,
    };
    respond(ctx, &cb)
}
