//! What every request leaves behind: its `X-Request-Id` (taken from the request or made
//! here, and echoed), one log line, and its count and latency in the metrics.

use std::time::Instant;

use hyper::header::{HeaderName, HeaderValue};
use hyper::{HeaderMap, Method};

use super::response::Resp;
use super::routes::Service;
use crate::metrics::Metrics;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The request id: the caller's `X-Request-Id` when it is 1-128 visible ASCII characters,
/// else a new UUID.
pub fn request_id(headers: &HeaderMap) -> HeaderValue {
    headers
        .get(&REQUEST_ID)
        .filter(|v| {
            let b = v.as_bytes();
            !b.is_empty() && b.len() <= 128 && b.iter().all(|c| (0x21..0x7f).contains(c))
        })
        .cloned()
        .unwrap_or_else(|| {
            HeaderValue::from_str(&uuid::Uuid::new_v4().to_string()).expect("a UUID is ASCII")
        })
}

/// One request as the log and the metrics see it.
pub struct Seen<'a> {
    pub service: Service,
    pub method: &'a Method,
    /// The route template (`/api/orders/{id}`), so that ids do not split the series.
    pub route: &'static str,
    pub client: &'a str,
    pub started: Instant,
}

/// Echoes the request id, logs the request and counts it.
pub fn finish(seen: &Seen<'_>, id: HeaderValue, resp: &mut Resp, metrics: &Metrics) {
    let elapsed = seen.started.elapsed();
    let status = resp.status().as_u16();
    let service = match seen.service {
        Service::Fulfillment => "fulfillment",
        Service::Packing => "packing",
    };
    let method = method_label(seen.method);
    metrics
        .requests
        .with_label_values(&[service, seen.route, method, &status.to_string()])
        .inc();
    metrics
        .request_seconds
        .with_label_values(&[service, seen.route, method])
        .observe(elapsed.as_secs_f64());
    tracing::info!(
        target: "fulfilld::request",
        method,
        route = seen.route,
        status,
        duration_ms = elapsed.as_secs_f64() * 1000.0,
        client = seen.client,
        request_id = id.to_str().unwrap_or(""),
        service,
        "request"
    );
    resp.headers_mut().insert(REQUEST_ID, id);
}

/// The method as a label: one of the standard ones, or `other` (any token is a method, and
/// each would be a series of its own).
fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_request_id_is_kept_and_a_bad_one_replaced() {
        let mut h = HeaderMap::new();
        h.insert(REQUEST_ID, HeaderValue::from_static("abc-123"));
        assert_eq!(request_id(&h), "abc-123");
        h.insert(REQUEST_ID, HeaderValue::from_static("has space"));
        let made = request_id(&h);
        assert_ne!(made, "has space");
        assert!(uuid::Uuid::parse_str(made.to_str().unwrap()).is_ok());
        assert!(uuid::Uuid::parse_str(request_id(&HeaderMap::new()).to_str().unwrap()).is_ok());
    }

    #[test]
    fn unknown_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
    }
}
