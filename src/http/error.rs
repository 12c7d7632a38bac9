//! `ApiError`: every failure a handler can return, and its one rendering as the spec's
//! envelope `{"error": {"code", "message", "field"}}` with the right status and headers.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde_json::json;

/// An error answer. `field` names the offending input (`items[0].sku`) when there is one.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub field: Option<String>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Close the connection after answering (oversized bodies).
    pub close: bool,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
            headers: Vec::new(),
            close: false,
        }
    }

    pub fn on(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    pub fn header(mut self, name: HeaderName, value: impl ToString) -> ApiError {
        if let Ok(v) = HeaderValue::from_str(&value.to_string()) {
            self.headers.push((name, v));
        }
        self
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
            .header(hyper::header::WWW_AUTHENTICATE, "Bearer realm=\"fulfilld\"")
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }

    pub fn validation(field: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            message,
        )
        .on(field)
    }

    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }

    /// 507: a write refused or failed for lack of disk space.
    pub fn insufficient_storage() -> ApiError {
        ApiError::new(
            StatusCode::INSUFFICIENT_STORAGE,
            "insufficient_storage",
            "The server is short of disk space: writes are refused until space is freed; reads still work.",
        )
    }

    /// A 500 whose message never carries internals; the cause goes to the log only.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "An internal error occurred; it has been logged.",
        )
    }

    pub fn into_response(self) -> Response<Full<Bytes>> {
        let body = json!({
            "error": { "code": self.code, "message": self.message, "field": self.field }
        });
        let mut resp = Response::new(Full::new(Bytes::from(body.to_string())));
        *resp.status_mut() = self.status;
        let h = resp.headers_mut();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in self.headers {
            h.append(name, value);
        }
        if self.close {
            h.insert(CONNECTION, HeaderValue::from_static("close"));
        }
        resp
    }
}

/// Storage failures are the appliance's problem, not the client's: 503 so clients retry;
/// a write refused or failed for lack of space is 507 (reads still work).
impl From<storage::Error> for ApiError {
    fn from(e: storage::Error) -> Self {
        if e.is_no_space() {
            tracing::warn!(error = %e, "write refused: no space");
            return ApiError::insufficient_storage();
        }
        tracing::error!(error = %e, "storage failure");
        ApiError::unavailable("Storage is unavailable; retry later.")
            .header(hyper::header::RETRY_AFTER, 5)
    }
}

impl<E: Into<ApiError>> From<storage::TxError<E>> for ApiError {
    fn from(e: storage::TxError<E>) -> Self {
        match e {
            storage::TxError::Aborted(e) => e.into(),
            storage::TxError::Storage(e) => e.into(),
        }
    }
}
