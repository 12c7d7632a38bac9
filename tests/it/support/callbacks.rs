//! Inbound WMS and carrier callbacks as their senders make them: the per-source HMAC
//! secrets (set through the real `fulfilld inbound set-secret`) and signed requests.

use serde_json::Value;

use super::{admin, body, hmac_hex, Server};

pub const WMS_SECRET: &str = "wms-secret-0123456789";
pub const UPS_SECRET: &str = "ups-secret-0123456789";
/// The WMS status callback.
pub const WMS: &str = "/api/wms/webhooks/package-status";
/// The UPS tracking callback.
pub const UPS: &str = "/api/webhooks/carriers/ups/tracking";

pub fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl Server {
    /// A callback signed as the document's rules say, with `ts` as its timestamp.
    pub async fn signed(&self, path: &str, secret: &str, ts: i64, v: &Value) -> (u16, Value) {
        let raw = serde_json::to_vec(v).unwrap();
        let mut message = ts.to_string().into_bytes();
        message.push(b'.');
        message.extend_from_slice(&raw);
        let resp = self
            .http
            .post(self.url(path))
            .header("Content-Type", "application/json")
            .header("X-Webhook-Timestamp", ts.to_string())
            .header("X-Webhook-Signature", hmac_hex(secret, &message))
            .body(raw)
            .send()
            .await
            .unwrap();
        body(resp).await
    }

    /// Sets an inbound source's secret with the admin CLI (through the running server).
    pub fn set_secret(&self, source: &str, secret: &str) {
        let dir = self.dir.path().to_str().unwrap();
        let (ok, _) = admin(&[
            "inbound",
            "set-secret",
            "--source",
            source,
            "--secret",
            secret,
            "--data-dir",
            dir,
        ]);
        assert!(ok, "inbound set-secret {source}");
    }
}
