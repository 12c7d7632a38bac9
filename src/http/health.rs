//! `GET /health` and `GET /api/v1/health`: liveness, version, uptime and storage state.
//! A failed store answers 503 with the health body plus the error envelope.

use hyper::StatusCode;
use serde_json::json;

use super::response::{json, Resp};
use crate::app::App;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn fulfillment(app: &App) -> Resp {
    let uptime = app.started.elapsed().as_secs();
    match app.store.check() {
        Ok(()) => json(
            StatusCode::OK,
            &json!({
                "status": "ok",
                "version": VERSION,
                "uptimeSeconds": uptime,
                "storage": { "status": "ok", "sizeOnDiskBytes": app.disk.bytes() },
            }),
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
