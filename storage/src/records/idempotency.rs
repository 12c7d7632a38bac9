//! A stored response for an `Idempotency-Key`, replayed when the same request repeats.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    /// SHA-256 over method, path and body of the first request.
    pub request_sha256: Vec<u8>,
    pub status: u16,
    /// Response headers worth replaying (content type, location, ...).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub created_at_unix: i64,
}
