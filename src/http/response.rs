//! Building successful responses: JSON bodies with their content type.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde::Serialize;

pub type Resp = Response<Full<Bytes>>;

pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Resp {
    let body = serde_json::to_vec(value).expect("response types serialize");
    bytes(status, "application/json", Bytes::from(body))
}

pub fn bytes(status: StatusCode, content_type: &'static str, body: Bytes) -> Resp {
    let mut resp = Response::new(Full::new(body));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}
