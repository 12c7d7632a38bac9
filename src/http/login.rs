//! The console's session endpoints: the login form (plain, accessible HTML), the login
//! that sets the session cookie, logout, and `GET /console/session`, through which the
//! console's script learns who is logged in and the CSRF token to send.

use std::time::Duration;

use bytes::Bytes;
use hyper::header::{HeaderValue, CACHE_CONTROL, LOCATION, RETRY_AFTER, SET_COOKIE};
use hyper::StatusCode;
use serde_json::json;
use views::escape_html;

use super::auth::SESSION_COOKIE;
use super::ctx::Ctx;
use super::error::ApiError;
use super::response::{bytes, json, Resp};
use crate::accounts::LoginError;

/// Where a login goes when no (safe) `next` is given.
pub const HOME: &str = "/console/";

const CSP: &str = "default-src 'self'; form-action 'self'; frame-ancestors 'none'";

/// Only a path on this origin: `/...` but not `//host` or `/\host`, which browsers read
/// as another host, and nothing a header could not carry.
fn safe_next(next: Option<&str>) -> &str {
    match next {
        Some(n)
            if n.starts_with('/')
                && !n.starts_with("//")
                && !n.starts_with("/\\")
                && n.len() <= 2048
                && n.bytes().all(|b| (0x21..0x7f).contains(&b)) =>
        {
            n
        }
        _ => HOME,
    }
}

/// The login page, with an error above the form when there is one.
fn page(status: StatusCode, error: Option<&str>, username: &str, next: &str) -> Resp {
    let alert = error.map_or(String::new(), |e| {
        format!(
            "<p id=\"login-error\" role=\"alert\">{}</p>\n",
            escape_html(e)
        )
    });
    let described = if error.is_some() {
        " aria-describedby=\"login-error\""
    } else {
        ""
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>Log in - fulfilld console</title>\n\
<link rel=\"stylesheet\" href=\"/console/assets/app.css\">\n\
<link rel=\"icon\" href=\"/console/assets/icon.svg\" type=\"image/svg+xml\">\n</head>\n<body>\n<main>\n\
<h1>fulfilld console</h1>\n{alert}\
<form method=\"post\" action=\"/console/login\"{described}>\n\
<input type=\"hidden\" name=\"next\" value=\"{next}\">\n\
<p><label for=\"username\">User name</label><br>\n\
<input id=\"username\" name=\"username\" autocomplete=\"username\" required value=\"{user}\"></p>\n\
<p><label for=\"password\">Password</label><br>\n\
<input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required></p>\n\
<p><button type=\"submit\">Log in</button></p>\n</form>\n</main>\n</body>\n</html>\n",
        next = escape_html(next),
        user = escape_html(username),
    );
    let mut resp = bytes(status, "text/html; charset=utf-8", Bytes::from(html));
    let h = resp.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("content-security-policy", HeaderValue::from_static(CSP));
    resp
}

fn query_value(ctx: &Ctx<'_>, key: &str) -> Option<String> {
    form_urlencoded::parse(ctx.query.as_deref()?.as_bytes())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// `GET /console/login`.
pub fn form(ctx: &Ctx<'_>) -> Resp {
    let next = query_value(ctx, "next");
    page(StatusCode::OK, None, "", safe_next(next.as_deref()))
}

/// `POST /console/login` (form fields `username`, `password`, optional `next`).
pub async fn login(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    let (mut username, mut password, mut next) = (String::new(), String::new(), None);
    for (k, v) in form_urlencoded::parse(&ctx.body) {
        match k.as_ref() {
            "username" => username = v.into_owned(),
            "password" => password = v.into_owned(),
            "next" => next = Some(v.into_owned()),
            _ => {}
        }
    }
    let next = safe_next(next.as_deref()).to_string();
    let accounts = ctx.app.accounts.clone();
    match accounts
        .login(&username, &password, ctx.peer, ctx.now)
        .await
    {
        Ok((id, _session)) => {
            // The cookie only once the session is durable: the pipeline waits for it.
            ctx.wrote();
            let mut resp = bytes(StatusCode::SEE_OTHER, "text/plain", Bytes::new());
            let h = resp.headers_mut();
            h.insert(SET_COOKIE, cookie(&id)?);
            h.insert(
                LOCATION,
                HeaderValue::from_str(&next).map_err(ApiError::internal)?,
            );
            h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            Ok(resp)
        }
        Err(LoginError::Wrong) => Ok(page(
            StatusCode::UNAUTHORIZED,
            Some("Wrong user name or password."),
            &username,
            &next,
        )),
        Err(LoginError::Throttled(wait)) => {
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut resp = page(
                StatusCode::TOO_MANY_REQUESTS,
                Some(&format!(
                    "Too many failed logins. Try again in {}.",
                    plural_seconds(Duration::from_secs(secs))
                )),
                &username,
                &next,
            );
            resp.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(secs));
            Ok(resp)
        }
        Err(LoginError::Failed(e)) => Err(ApiError::internal(format!("{e:#}"))),
    }
}

fn plural_seconds(d: Duration) -> String {
    match d.as_secs() {
        1 => "1 second".into(),
        n => format!("{n} seconds"),
    }
}

fn cookie(id: &str) -> Result<HeaderValue, ApiError> {
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={id}; HttpOnly; Secure; SameSite=Strict; Path=/"
    ))
    .map_err(ApiError::internal)
}

/// `POST /console/logout` (the pipeline checked the session and its CSRF token): 204,
/// with the cookie cleared.
pub fn logout(ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    if let Some(id) = super::auth::session_cookie(&ctx.headers) {
        ctx.app
            .accounts
            .sessions()
            .end(id)
            .map_err(|e| ApiError::internal(format!("{e:#}")))?;
        ctx.wrote();
    }
    let mut resp = bytes(StatusCode::NO_CONTENT, "text/plain", Bytes::new());
    resp.headers_mut().insert(
        SET_COOKIE,
        HeaderValue::from_str(&format!(
            "{SESSION_COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0"
        ))
        .map_err(ApiError::internal)?,
    );
    Ok(resp)
}

/// `GET /console/session`: `{username, role, csrfToken}`.
pub fn session(ctx: &Ctx<'_>) -> Result<Resp, ApiError> {
    let s = ctx
        .session
        .as_ref()
        .ok_or_else(|| ApiError::unauthorized("Log in at /console/login."))?;
    let mut resp = json(
        StatusCode::OK,
        &json!({ "username": &*s.user, "role": s.role.as_str(), "csrfToken": s.csrf_token }),
    );
    resp.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}
