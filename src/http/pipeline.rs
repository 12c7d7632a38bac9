//! The request pipeline: every cross-cutting rule applied once, in order (credentials,
//! routing, rate limit, access, free space, body, idempotency, timeout, durability),
//! around the handler the route names.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{ALLOW, AUTHORIZATION, RETRY_AFTER};
use hyper::{Method, Request, StatusCode};
use storage::Tier;

use super::api::Api;
use super::auth::{Caller, SESSION_TIER};
use super::ctx::Ctx;
use super::dispatch::dispatch;
use super::error::ApiError;
use super::idempotency::{self, Guard};
use super::limits::BucketKey;
use super::response::Resp;
use super::routes::{Access, Match, RouteId, Service};
use super::{auth, body, classes, observe, space};
use crate::accounts::Session;
use crate::webhooks::sign::SIGNATURE_HEADER;

fn unix_now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// Answers one request on either listener.
pub async fn handle(api: Arc<Api>, service: Service, peer: IpAddr, req: Request<Incoming>) -> Resp {
    let started = Instant::now();
    let now = unix_now();
    let request_id = observe::request_id(req.headers());
    let cred = auth::presented(req.headers());
    let caller = auth::resolve(
        &api.app,
        &cred,
        req.headers(),
        service == Service::Fulfillment,
        now,
    );
    // Routed first, so that the route decides the tier of a request without credentials.
    let found = api.router(service).find(req.method(), req.uri().path());
    let access = match &found {
        Match::Found(def, _) => Some(def.access),
        _ => None,
    };
    let signed_callback =
        access == Some(Access::Inbound) && req.headers().contains_key(SIGNATURE_HEADER);
    let scrape = access == Some(Access::Metrics);
    let scrape_allowed = scrape && {
        let authorization = req
            .headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        api.app.config.metrics.allows(peer, authorization)
    };
    let seen = observe::Seen {
        service,
        method: &req.method().clone(),
        route: match &found {
            Match::Found(def, _) => def.path,
            _ => "unmatched",
        },
        client: match &caller {
            Ok(Some(c)) => c.id(),
            _ => "",
        },
        started,
    };
    let (bucket, tier) = match &caller {
        // A scraper is not counted against its address's anonymous traffic.
        _ if scrape_allowed => (BucketKey::Ip(peer), Tier::Unlimited),
        Ok(Some(Caller::Client(c))) => (BucketKey::Client(Arc::clone(&c.id)), c.tier),
        Ok(Some(Caller::Person(s))) => (BucketKey::Client(Arc::clone(&s.actor)), SESSION_TIER),
        // A signed WMS or carrier callback is checked by its HMAC (cheaper than a token)
        // and comes in bursts from one system: not limited like anonymous traffic.
        Ok(None) if signed_callback => (BucketKey::Ip(peer), Tier::Unlimited),
        _ => (BucketKey::Ip(peer), Tier::Starter),
    };
    let decision = api.limiter.check(bucket, tier);
    let mut resp = if !decision.allowed {
        api.app
            .metrics
            .rate_limited
            .with_label_values(&[tier.as_str()])
            .inc();
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Rate limit exceeded; retry after the number of seconds in Retry-After.",
        )
        .header(RETRY_AFTER, decision.retry_after_secs)
        .into_response()
    } else if scrape && !scrape_allowed {
        ApiError::forbidden("Metrics are served to the addresses in metrics_allow, with the metrics_token when one is set.")
            .into_response()
    } else {
        route(&api, found, caller.clone(), peer, req, now)
            .await
            .unwrap_or_else(ApiError::into_response)
    };
    decision.apply(resp.headers_mut());
    observe::finish(&seen, request_id, &mut resp, &api.app.metrics);
    resp
}

async fn route(
    api: &Api,
    found: Match<'_>,
    caller: Result<Option<Caller>, auth::InvalidCredential>,
    peer: IpAddr,
    req: Request<Incoming>,
    now: i64,
) -> Result<Resp, ApiError> {
    let app = &*api.app;
    let (def, params) = match found {
        Match::Found(def, params) => (def, params),
        Match::MethodNotAllowed(methods) => {
            let allow = methods
                .iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!(
                    "{} is not allowed on this path; allowed: {allow}.",
                    req.method()
                ),
            )
            .header(ALLOW, allow));
        }
        Match::NotFound => {
            return Err(ApiError::not_found(format!(
                "No route for {}.",
                req.uri().path()
            )))
        }
    };
    let caller = match (def.access, caller) {
        (Access::Public | Access::TokenEndpoint | Access::Metrics, _) => None,
        // Unsigned and without credentials: the handler checks the signature.
        (Access::Inbound, Ok(None)) => None,
        (Access::Console, Ok(Some(p @ Caller::Person(_)))) => Some(p),
        (Access::Console, _) => {
            return Err(ApiError::unauthorized(
                "Log in at /console/login: no live console session.",
            ))
        }
        (_, Ok(Some(c))) => Some(c),
        (Access::ApiKey, _) => {
            return Err(ApiError::unauthorized(
                "A valid X-API-Key header is required.",
            ))
        }
        (_, Ok(None)) => {
            return Err(ApiError::unauthorized(
                "Authenticate with Authorization: Bearer <token> or X-API-Key.",
            ))
        }
        (_, Err(auth::InvalidCredential)) => {
            return Err(ApiError::unauthorized(
                "The access token or API key is invalid, expired or revoked.",
            ))
        }
    };
    if let Some(Caller::Person(session)) = &caller {
        person_may(session, def.id, req.method(), req.headers())?;
    }
    space::admit(app, def)?;
    let keyed = matches!(*req.method(), Method::POST | Method::PATCH)
        && req.headers().contains_key(idempotency::HEADER);
    let guard = match (&caller, keyed) {
        // Not on the console's own routes: their writes run off the runtime (password
        // hashing, waits for durability), where a hold cannot keep them with a stored
        // response, and a stored answer there would replay a secret shown once.
        (Some(c), true) if def.access != Access::Console => {
            let key = idempotency::validate_key(&req.headers()[idempotency::HEADER])?;
            Some(api.idempotency.enter(c.id(), key)?)
        }
        _ => None,
    };
    let deadline = tokio::time::Instant::now() + app.config.limits.request_timeout;
    let (parts, incoming) = req.into_parts();
    let body = tokio::time::timeout_at(
        deadline,
        body::read(
            def.body,
            &parts.headers,
            incoming,
            app.config.limits.body_max_bytes,
        ),
    )
    .await
    .map_err(|_| {
        let mut e = ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "The request body was not received in time.",
        );
        e.close = true;
        e
    })??;
    if def.id == RouteId::Token {
        return Ok(auth::token(app, &parts.headers, &body, now));
    }
    let (client, session) = match caller {
        Some(Caller::Client(c)) => (Some(c), None),
        Some(Caller::Person(s)) => (None, Some(s)),
        None => (None, None),
    };
    let mut ctx = Ctx {
        app,
        client,
        session,
        peer,
        params,
        query: parts.uri.query().map(str::to_string),
        headers: parts.headers,
        body,
        now,
        wrote: false,
        wake: None,
    };
    let work = run_idempotent(&mut ctx, api, def.id, guard, &parts.method, &parts.uri);
    tokio::time::timeout_at(deadline, work)
        .await
        .map_err(|_| ApiError::unavailable("The request timed out; retry later."))?
}

/// A person's request: an unsafe method needs the session's CSRF token (a cookie is sent
/// by the browser on its own, the header only by the console's script), and the route's
/// class must be one the person's role allows.
fn person_may(
    session: &Session,
    id: RouteId,
    method: &Method,
    headers: &hyper::HeaderMap,
) -> Result<(), ApiError> {
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if !safe && !auth::csrf_ok(session, headers) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "csrf_failed",
            "Requests authenticated by the console session need the session's X-CSRF-Token header.",
        ));
    }
    if !classes::allows(session.role, classes::class(id)) {
        return Err(ApiError::forbidden(format!(
            "The {} role may not do this.",
            session.role.as_str()
        )));
    }
    Ok(())
}

/// Runs the handler, wrapped in idempotency when the request carries a key, and waits
/// for durability when anything was written.
async fn run_idempotent(
    ctx: &mut Ctx<'_>,
    api: &Api,
    id: RouteId,
    guard: Option<Guard>,
    method: &Method,
    uri: &hyper::Uri,
) -> Result<Resp, ApiError> {
    let Some(guard) = guard else {
        // An error answer may follow a write too (a pack that stored why it failed): it
        // waits for durability like a success, so a read after it sees the write.
        let result = dispatch(id, ctx, api).await;
        if ctx.wrote {
            ctx.app.store.durable().await?;
            woken(ctx);
        }
        return result;
    };
    let app = ctx.app;
    let path = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    let hash = idempotency::request_hash(method, path, &ctx.body);
    let ttl = app.config.idempotency_ttl.as_secs() as i64;
    if let Some(stored) = api
        .idempotency
        .lookup(&app.store, &guard, &hash, ttl, ctx.now)?
    {
        // The stored response may not be flushed yet: replay only what is durable.
        ctx.wrote();
        return durable(ctx, stored).await;
    }
    // Under a hold, the handler's writes since its last await (all of them, but for a
    // pack's repeatable requeue) and the stored response join one commit batch: after a
    // crash both exist or neither does.
    let resp = app
        .store
        .hold(async {
            let resp = dispatch(id, ctx, api)
                .await
                .unwrap_or_else(ApiError::into_response);
            let (parts, body) = resp.into_parts();
            let bytes = body
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let resp = Resp::from_parts(parts, http_body_util::Full::new(bytes.clone()));
            if ctx.wrote {
                idempotency::crash_after_change(&app.store, &guard);
            }
            if api
                .idempotency
                .finish(&app.store, &guard, hash, &resp, &bytes, ctx.now)?
            {
                ctx.wrote();
            }
            Ok::<_, ApiError>(resp)
        })
        .await?;
    let resp = durable(ctx, resp).await?;
    drop(guard);
    Ok(resp)
}

async fn durable(ctx: &Ctx<'_>, resp: Resp) -> Result<Resp, ApiError> {
    if ctx.wrote {
        ctx.app.store.durable().await?;
        woken(ctx);
    }
    Ok(resp)
}

/// Wakes what the request asked to wake after its writes became durable.
fn woken(ctx: &Ctx<'_>) {
    if let Some(engine) = &ctx.wake {
        engine.wake();
    }
}
