//! `GET /health` and `GET /api/v1/health`: liveness, version, uptime, storage state and
//! the last backups (time and result, not the reason, which goes to the log).
//! Short of disk space (below the reserve, or a write failed for it) the answer is 200
//! `degraded` with the reason, since reads still work; any other storage failure answers
//! 503 with the health body plus the error envelope.

use std::sync::atomic::Ordering;

use hyper::StatusCode;
use serde_json::json;

use super::response::{json, Resp};
use crate::app::App;
use crate::domain::time_fmt::rfc3339;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The scheduled and online backups as the dashboard and monitors see them: whether a
/// schedule is configured, when the last one succeeded and failed, and which came last.
fn backups(app: &App) -> serde_json::Value {
    let at = |secs: i64| (secs > 0).then(|| rfc3339(secs.saturating_mul(1000)));
    let ok = app.backups.last_success_unix.load(Ordering::Relaxed);
    let failed = app.backups.last_failure_unix.load(Ordering::Relaxed);
    let last = match (ok, failed) {
        (0, 0) => None,
        _ if failed > ok => Some("failed"),
        _ => Some("succeeded"),
    };
    json!({
        "scheduled": app.config.backups.is_some(),
        "lastResult": last,
        "lastSuccessAt": at(ok),
        "lastFailureAt": at(failed),
    })
}

pub fn fulfillment(app: &App) -> Resp {
    let uptime = app.started.elapsed().as_secs();
    let low = app.space.low();
    let (free, reserve) = app.space.figures();
    let storage = |status: &str| {
        json!({
            "status": status,
            "sizeOnDiskBytes": app.disk.bytes(),
            "freeBytes": (free != u64::MAX).then_some(free),
            "minFreeBytes": reserve,
        })
    };
    let degraded = |storage: serde_json::Value, reason: String| {
        json(
            StatusCode::OK,
            &json!({
                "status": "degraded",
                "reason": reason,
                "version": VERSION,
                "uptimeSeconds": uptime,
                "storage": storage,
                "backups": backups(app),
            }),
        )
    };
    match app.store.check() {
        Ok(()) => match low {
            None => json(
                StatusCode::OK,
                &json!({
                    "status": "ok",
                    "version": VERSION,
                    "uptimeSeconds": uptime,
                    "storage": storage("ok"),
                    "backups": backups(app),
                }),
            ),
            Some(why) => degraded(storage("low_space"), format!("writes are refused: {why}")),
        },
        // sled keeps a failed log write until it is reopened: only a restart, with
        // space freed, takes writes again.
        Err(e) if e.is_no_space() => degraded(
            storage("failed"),
            format!("a write failed for lack of space ({e}); free space and restart the server"),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: storage failed");
            json(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({
                    "status": "unavailable",
                    "version": VERSION,
                    "uptimeSeconds": uptime,
                    "storage": { "status": "failed" },
                    "error": { "code": "unavailable", "message": "Storage is failing.", "field": null },
                }),
            )
        }
    }
}

pub fn packing(app: &App) -> Resp {
    json(
        StatusCode::OK,
        &json!({
            "status": "ok",
            "service": "packing",
            "version": VERSION,
            "uptimeSeconds": app.started.elapsed().as_secs(),
        }),
    )
}
