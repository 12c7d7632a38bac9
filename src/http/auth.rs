//! Who is calling: Bearer tokens and API keys resolved to a client through the
//! in-memory registry, console session cookies resolved to a person, and the OAuth 2.0
//! client-credentials token endpoint with its RFC 6749 section 5.2 error bodies.

use std::sync::Arc;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hyper::header::{
    HeaderMap, HeaderValue, AUTHORIZATION, CACHE_CONTROL, PRAGMA, WWW_AUTHENTICATE,
};
use hyper::StatusCode;
use serde_json::json;

use super::body::media_type;
use super::response::{json, Resp};
use crate::accounts::Session;
use crate::app::App;
use crate::clients::ClientEntry;

/// The console's session cookie. `__Host-` makes browsers insist on Secure, Path=/ and
/// no Domain, so no other host or path can set or shadow it.
pub const SESSION_COOKIE: &str = "__Host-fulfilld-session";
/// The header an unsafe request authenticated by the session cookie must carry, equal
/// to the session's CSRF token (`GET /console/session` tells it).
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The rate-limit tier of a console session: a person clicking through pages, whose
/// pages each make a few calls.
pub const SESSION_TIER: storage::Tier = storage::Tier::Enterprise;

/// An authenticated caller: an API client (a machine) or a person logged in to the
/// console.
#[derive(Debug, Clone)]
pub enum Caller {
    Client(Arc<ClientEntry>),
    Person(Arc<Session>),
}

impl Caller {
    /// The caller's name in logs, rate-limit buckets, idempotency keys and audit trails.
    pub fn id(&self) -> &Arc<str> {
        match self {
            Caller::Client(c) => &c.id,
            Caller::Person(s) => &s.actor,
        }
    }
}

/// The value of the session cookie, if the request carries one.
pub fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(hyper::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == SESSION_COOKIE).then_some(value.trim())
        })
}

/// Whether the request's `X-CSRF-Token` is the session's.
pub fn csrf_ok(session: &Session, headers: &HeaderMap) -> bool {
    headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| session.csrf_matches(t))
}

/// The credential a request presented.
pub enum Presented<'a> {
    None,
    Bearer(&'a str),
    ApiKey(&'a str),
    /// An Authorization header we cannot use (not Bearer, not UTF-8).
    Unusable,
}

pub fn presented(headers: &HeaderMap) -> Presented<'_> {
    if let Some(key) = headers.get("x-api-key") {
        return key.to_str().map_or(Presented::Unusable, Presented::ApiKey);
    }
    match headers.get(AUTHORIZATION).map(|v| v.to_str()) {
        None => Presented::None,
        Some(Ok(v)) => match v.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
                Presented::Bearer(token.trim())
            }
            _ => Presented::Unusable,
        },
        Some(Err(_)) => Presented::Unusable,
    }
}

/// A credential was presented but is not valid (bad signature, expired, deleted client,
/// unknown key, or the wrong kind for this listener).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidCredential;

/// Resolves a credential to a live client, or on the fulfillment listener a session
/// cookie (used only when no client credential was presented) to a person; `Ok(None)`
/// when none was presented.
pub fn resolve(
    app: &App,
    cred: &Presented<'_>,
    headers: &HeaderMap,
    fulfillment: bool,
    now: i64,
) -> Result<Option<Caller>, InvalidCredential> {
    let registry = app.clients.registry();
    let client = match cred {
        Presented::None => {
            return match session_cookie(headers).filter(|_| fulfillment) {
                None => Ok(None),
                Some(id) => app
                    .accounts
                    .sessions()
                    .check(id, now)
                    .map(|s| Some(Caller::Person(s)))
                    .map_err(|_| InvalidCredential),
            }
        }
        Presented::ApiKey(key) => registry.by_api_key(key).map(Some).ok_or(InvalidCredential),
        Presented::Bearer(token) if fulfillment => app
            .tokens
            .verify(token, now)
            .and_then(|id| registry.get(&id))
            .map(Some)
            .ok_or(InvalidCredential),
        Presented::Bearer(_) | Presented::Unusable => Err(InvalidCredential),
    };
    client.map(|c| c.map(Caller::Client))
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Resp {
    let mut resp = json(
        status,
        &json!({ "error": error, "error_description": description }),
    );
    let h = resp.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if status == StatusCode::UNAUTHORIZED {
        h.insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"fulfilld\""),
        );
    }
    resp
}

/// `POST /oauth/token`: client credentials in the form or in HTTP Basic (not both).
pub fn token(app: &App, headers: &HeaderMap, body: &[u8], now: i64) -> Resp {
    if media_type(headers).as_deref() != Some("application/x-www-form-urlencoded") {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Send the request as application/x-www-form-urlencoded.",
        );
    }
    let mut grant = None;
    let mut form_id = None;
    let mut form_secret = None;
    for (k, v) in form_urlencoded::parse(body) {
        let slot = match k.as_ref() {
            "grant_type" => &mut grant,
            "client_id" => &mut form_id,
            "client_secret" => &mut form_secret,
            _ => continue,
        };
        if slot.is_some() {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!("Parameter {k} is repeated."),
            );
        }
        *slot = Some(v.into_owned());
    }
    match grant.as_deref() {
        None => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "The grant_type parameter is required.",
            )
        }
        Some("client_credentials") => {}
        Some(_) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "Only grant_type=client_credentials is supported.",
            )
        }
    }
    let basic = match basic_credentials(headers) {
        Ok(b) => b,
        Err(msg) => return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", msg),
    };
    let (id, secret) = match (basic, form_id, form_secret) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "Use HTTP Basic or form parameters for client authentication, not both.",
            )
        }
        (Some(pair), None, None) => pair,
        (None, Some(id), Some(secret)) => (id, secret),
        (None, _, _) => {
            return oauth_error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "Client authentication is required (client_id and client_secret).",
            )
        }
    };
    match app.clients.registry().check_secret(&id, &secret) {
        Some(client) => {
            let mut resp = json(
                StatusCode::OK,
                &json!({
                    "access_token": app.tokens.issue(&client.id, now),
                    "token_type": "Bearer",
                    "expires_in": app.tokens.ttl_secs(),
                }),
            );
            let h = resp.headers_mut();
            h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            h.insert(PRAGMA, HeaderValue::from_static("no-cache"));
            resp
        }
        None => oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "Unknown client or wrong secret.",
        ),
    }
}

/// HTTP Basic credentials, form-urlencoded inside as RFC 6749 section 2.3.1 says.
fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, &'static str> {
    let Some(value) = headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| "Malformed Authorization header.")?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err("Malformed Authorization header.");
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err("Use HTTP Basic authentication on the token endpoint.");
    }
    let decoded = B64
        .decode(encoded.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or("Malformed Basic credentials.")?;
    let (id, secret) = decoded
        .split_once(':')
        .ok_or("Malformed Basic credentials.")?;
    let unescape = |s: &str| -> String {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((unescape(id), unescape(secret))))
}
