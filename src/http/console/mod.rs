//! The console's static side: the one HTML shell answered for every page path under
//! `/console/` (the script renders the page from the URL, so a reload keeps it) and the
//! embedded assets under `/console/assets/`, with a strict CSP, ETag revalidation and
//! Brotli or gzip as the browser accepts.
//! What a person may see or do is decided by the API the script calls, not here.

mod assets;
mod encoding;

use bytes::Bytes;
use hyper::header::{
    HeaderValue, ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, ETAG, IF_NONE_MATCH, VARY,
};
use hyper::StatusCode;

use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{bytes, Resp};

/// Scripts, styles, images, fonts and connections only from this origin; no inline code,
/// no framing, no `<base>`, forms only back here.
const CSP: &str = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

/// `GET /console/` and `GET /console/{*path}`: an asset under `assets/`, else the shell.
pub fn serve(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let path = ctx.param("path");
    let name = path.strip_prefix("assets/").unwrap_or("index.html");
    let (asset, etag, compressed) = assets::find(name)
        .ok_or_else(|| ApiError::not_found(format!("No console asset {path}.")))?;
    let accepted = ctx
        .headers
        .get(ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok());
    let (coding, body) = encoding::acceptable(accepted)
        .into_iter()
        .find_map(|c| Some((c, compressed.get(c, asset.bytes)?)))
        .unwrap_or((encoding::Coding::Identity, asset.bytes));
    // Each representation has its own strong tag: `"digest"`, `"digest-br"`, `"digest-gz"`.
    let etag = format!("{}{}\"", &etag[..etag.len() - 1], coding.tag_suffix());
    let fresh = ctx
        .headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut resp = if fresh {
        bytes(StatusCode::NOT_MODIFIED, asset.content_type, Bytes::new())
    } else {
        bytes(StatusCode::OK, asset.content_type, Bytes::from_static(body))
    };
    let h = resp.headers_mut();
    h.insert(
        ETAG,
        HeaderValue::from_str(&etag).expect("a quoted hex digest is a header value"),
    );
    h.insert(VARY, HeaderValue::from_static("accept-encoding"));
    if let Some(name) = coding.header() {
        h.insert(CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    // Always revalidated: a new binary's assets are picked up at once, and an unchanged
    // one costs a 304 without a body.
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("content-security-policy", HeaderValue::from_static(CSP));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    Ok(resp)
}
