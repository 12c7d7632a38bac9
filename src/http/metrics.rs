//! `GET /metrics`: the Prometheus exposition, with the gauges that mirror stored state read
//! at the scrape (who may scrape is decided in the pipeline, before routing's access rules).

use std::sync::atomic::Ordering;

use bytes::Bytes;
use hyper::StatusCode;

use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{bytes, Resp};
use crate::domain::order_packing;
use crate::metrics::{Snapshot, CONTENT_TYPE};
use crate::webhooks::lag;

pub fn scrape(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let app = ctx.app;
    let (created, by_status) = app.domain.order_counts()?;
    let backlog = lag::backlog(&app.store)?;
    let now_ms = time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000;
    let snap = Snapshot {
        orders_created: created,
        orders_by_status: by_status
            .into_iter()
            .map(|(s, n)| (s.as_str(), n))
            .collect(),
        packing_backlog: order_packing::backlog(&app.store)?.unwrap_or(0),
        delivery_queue: backlog.queued + app.webhooks.queue.unstored() as u64,
        delivery_lag_secs: backlog
            .oldest_ms
            .map_or(0.0, |ms| ((now_ms as i64 - ms).max(0) as f64) / 1000.0),
        database_bytes: app.disk.bytes(),
        filesystem: app.disk.filesystem(),
        backups_ok: app.backups.succeeded.load(Ordering::Relaxed),
        backups_failed: app.backups.failed.load(Ordering::Relaxed),
        last_backup_unix: app.backups.last_success_unix.load(Ordering::Relaxed),
    };
    Ok(bytes(
        StatusCode::OK,
        CONTENT_TYPE,
        Bytes::from(app.metrics.render(&snap)),
    ))
}
