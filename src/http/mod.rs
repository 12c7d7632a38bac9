//! The HTTP layer: the only place that knows JSON shapes, status codes and URLs.
//! `handle` applies every cross-cutting rule once, in order (credentials, rate limit,
//! routing, access, body, idempotency, timeout, durability), then dispatches.

pub mod address;
pub mod auth;
pub mod body;
pub mod bulk_import;
pub mod docs;
pub mod error;
pub mod health;
pub mod idempotency;
pub mod inbound;
pub mod inventory;
pub mod limits;
pub mod openapi;
pub mod orders;
pub mod packages;
pub mod packing_api;
pub mod products;
pub mod query;
pub mod response;
pub mod routes;
pub mod warehouses;
pub mod webhooks;

use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, ALLOW, RETRY_AFTER};
use hyper::{Method, Request, StatusCode};
use storage::Tier;

use crate::app::App;
use crate::clients::ClientEntry;
use error::ApiError;
use idempotency::{Guard, Idempotency};
use limits::{BucketKey, RateLimiter};
use response::Resp;
use routes::{Access, Match, RouteId, Router, Service};

/// The HTTP layer's own state beside the shared [`App`]: routers, rate limits,
/// idempotency keys in flight and the generated documents.
pub struct Api {
    pub app: Arc<App>,
    pub limiter: RateLimiter,
    pub idempotency: Idempotency,
    pub docs: openapi::Documents,
    fulfillment: Router,
    packing: Router,
}

impl Api {
    pub fn new(app: Arc<App>) -> Api {
        Api {
            limiter: RateLimiter::new(app.config.tiers.clone()),
            idempotency: Idempotency::default(),
            docs: openapi::Documents::build(),
            fulfillment: Router::new(Service::Fulfillment),
            packing: Router::new(Service::Packing),
            app,
        }
    }
}

/// The API's JSON shapes, lent to domain code that writes events.
pub struct ApiShapes;

impl crate::domain::events::Shapes for ApiShapes {
    // Written straight from the typed shapes, in the API's field order: going through a
    // `Value` tree cost ~5% of the server's CPU in order creation.
    fn inventory(&self, record: &storage::InventoryRecord) -> String {
        serde_json::to_string(&inventory::out(record)).expect("inventory serializes")
    }

    fn order(&self, record: &storage::OrderRecord) -> String {
        serde_json::to_string(&orders::out(record)).expect("orders serialize")
    }

    fn package(&self, record: &storage::PackageRecord) -> String {
        serde_json::to_string(&packages::out(record)).expect("packages serialize")
    }

    fn order_shipped(&self, record: &storage::OrderRecord, tracking_numbers: &[String]) -> String {
        serde_json::json!({
            "orderId": uuid::Uuid::from_u128(record.id).to_string(),
            "status": record.status.as_str(),
            "trackingNumbers": tracking_numbers,
        })
        .to_string()
    }
}

/// A matched request as handlers see it.
pub struct Ctx<'a> {
    pub app: &'a App,
    pub api: &'a Api,
    pub client: Option<Arc<ClientEntry>>,
    pub params: Vec<(String, String)>,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub now: i64,
    wrote: bool,
    /// Woken once this request's writes are durable (see [`Ctx::wake_when_durable`]).
    wake: Option<crate::webhooks::Handle>,
}

impl Ctx<'_> {
    pub fn param(&self, name: &str) -> &str {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// Marks that this request committed a write: it is answered only after a flush.
    pub fn wrote(&mut self) {
        self.wrote = true;
    }

    /// Marks a write and wakes `engine` once it is durable, when the request's own wait
    /// for durability returns: one wake per request, no extra task or durable waiter
    /// (a spawned waiter per created order cost a task and a watch wake-up per flush).
    /// Wakes are hints: if the request is dropped first, the engine's poll finds the work.
    pub fn wake_when_durable(&mut self, engine: &crate::webhooks::Handle) {
        self.wrote = true;
        self.wake = Some(engine.clone());
    }

    pub fn client_id(&self) -> &str {
        self.client.as_ref().map(|c| &*c.id).unwrap_or("")
    }
}

fn unix_now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// Answers one request on either listener.
pub async fn handle(api: Arc<Api>, service: Service, peer: IpAddr, req: Request<Incoming>) -> Resp {
    let now = unix_now();
    let cred = auth::presented(req.headers());
    let client = auth::resolve(&api.app, &cred, service == Service::Fulfillment, now);
    let (bucket, tier) = match &client {
        Ok(Some(c)) => (BucketKey::Client(Arc::clone(&c.id)), c.tier),
        // A signed WMS or carrier callback is checked by its HMAC (cheaper than a token)
        // and comes in bursts from one system: not limited like anonymous traffic.
        Ok(None)
            if inbound::is_inbound_path(req.uri().path())
                && req.headers().contains_key(inbound::SIGNATURE_HEADER) =>
        {
            (BucketKey::Ip(peer), Tier::Unlimited)
        }
        _ => (BucketKey::Ip(peer), Tier::Starter),
    };
    let decision = api.limiter.check(bucket, tier);
    let mut resp = if decision.allowed {
        route(&api, service, client, req, now)
            .await
            .unwrap_or_else(ApiError::into_response)
    } else {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Rate limit exceeded; retry after the number of seconds in Retry-After.",
        )
        .header(RETRY_AFTER, decision.retry_after_secs)
        .into_response()
    };
    decision.apply(resp.headers_mut());
    resp
}

async fn route(
    api: &Api,
    service: Service,
    client: Result<Option<Arc<ClientEntry>>, auth::InvalidCredential>,
    req: Request<Incoming>,
    now: i64,
) -> Result<Resp, ApiError> {
    let app = &*api.app;
    let router = match service {
        Service::Fulfillment => &api.fulfillment,
        Service::Packing => &api.packing,
    };
    let (def, params) = match router.find(req.method(), req.uri().path()) {
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
    let client = match (def.access, client) {
        (Access::Public | Access::TokenEndpoint, _) => None,
        // Unsigned and without credentials: the handler checks the signature.
        (Access::Inbound, Ok(None)) => None,
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
    let keyed = matches!(*req.method(), Method::POST | Method::PATCH)
        && req.headers().contains_key(idempotency::HEADER);
    let guard = match (&client, keyed) {
        (Some(c), true) => {
            let key = idempotency::validate_key(&req.headers()[idempotency::HEADER])?;
            Some(api.idempotency.enter(&c.id, key)?)
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
    let mut ctx = Ctx {
        app,
        api,
        client,
        params,
        query: parts.uri.query().map(str::to_string),
        headers: parts.headers,
        body,
        now,
        wrote: false,
        wake: None,
    };
    let work = run_idempotent(&mut ctx, def.id, guard, &parts.method, &parts.uri);
    tokio::time::timeout_at(deadline, work)
        .await
        .map_err(|_| ApiError::unavailable("The request timed out; retry later."))?
}

/// Runs the handler, wrapped in idempotency when the request carries a key, and waits
/// for durability when anything was written.
async fn run_idempotent(
    ctx: &mut Ctx<'_>,
    id: RouteId,
    guard: Option<Guard>,
    method: &Method,
    uri: &hyper::Uri,
) -> Result<Resp, ApiError> {
    let Some(guard) = guard else {
        // An error answer may follow a write too (a pack that stored why it failed): it
        // waits for durability like a success, so a read after it sees the write.
        let result = dispatch(id, ctx).await;
        if ctx.wrote {
            ctx.app.store.durable().await?;
            woken(ctx);
        }
        return result;
    };
    let (app, api) = (ctx.app, ctx.api);
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
    let resp = dispatch(id, ctx)
        .await
        .unwrap_or_else(ApiError::into_response);
    let (parts, body) = resp.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let resp = Resp::from_parts(parts, http_body_util::Full::new(bytes.clone()));
    if api
        .idempotency
        .finish(&app.store, &guard, hash, &resp, &bytes, ctx.now)?
    {
        ctx.wrote();
    }
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

async fn dispatch(id: RouteId, ctx: &mut Ctx<'_>) -> Result<Resp, ApiError> {
    match id {
        RouteId::Health => Ok(health::fulfillment(ctx.app)),
        RouteId::PackingHealth => Ok(health::packing(ctx.app)),
        RouteId::OpenApi => Ok(ctx.api.docs.fulfillment_json()),
        RouteId::PackingOpenApi => Ok(ctx.api.docs.packing_json()),
        RouteId::PackingOptimize => packing_api::optimize(ctx).await,
        RouteId::Docs => Ok(ctx.api.docs.html()),
        RouteId::ListProducts => products::list(ctx),
        RouteId::CreateProduct => products::create(ctx),
        RouteId::GetProduct => products::get(ctx),
        RouteId::UpdateProduct => products::update(ctx),
        RouteId::DeleteProduct => products::delete(ctx),
        RouteId::GetProductBySku => products::get_by_sku(ctx),
        RouteId::ListWarehouses => warehouses::list(ctx),
        RouteId::CreateWarehouse => warehouses::create(ctx),
        RouteId::GetWarehouse => warehouses::get(ctx),
        RouteId::UpdateWarehouse => warehouses::update(ctx),
        RouteId::ListInventory => inventory::list(ctx),
        RouteId::CreateInventory => inventory::create(ctx),
        RouteId::GetInventory => inventory::get(ctx),
        RouteId::AdjustInventory => inventory::adjust(ctx),
        RouteId::ListInventoryAdjustments => inventory::history(ctx),
        RouteId::ListOrders => orders::list(ctx),
        RouteId::CreateOrder => orders::create(ctx),
        RouteId::GetOrder => orders::get(ctx),
        RouteId::UpdateOrder => orders::update(ctx),
        RouteId::CancelOrder => orders::cancel(ctx),
        RouteId::BulkImportOrders => bulk_import::import(ctx),
        RouteId::ListWebhooks => webhooks::list(ctx),
        RouteId::CreateWebhook => webhooks::create(ctx),
        RouteId::GetWebhook => webhooks::get(ctx),
        RouteId::UpdateWebhook => webhooks::update(ctx),
        RouteId::DeleteWebhook => webhooks::delete(ctx),
        RouteId::TestWebhook => webhooks::test(ctx),
        RouteId::ListWebhookDeliveries => webhooks::deliveries(ctx),
        RouteId::RetryWebhookDelivery => webhooks::retry(ctx),
        RouteId::RecoverWebhookDeliveries => webhooks::recover(ctx),
        RouteId::PackOrder => packages::pack(ctx).await,
        RouteId::ListPackages => packages::list(ctx),
        RouteId::GetPackage => packages::get(ctx),
        RouteId::ListPackageEvents => packages::events(ctx),
        RouteId::ShipPackage => packages::ship(ctx),
        RouteId::WmsPackageStatus => inbound::wms(ctx),
        RouteId::CarrierTracking => inbound::carrier(ctx),
        RouteId::Token => Err(ApiError::internal("token route reached dispatch")),
    }
}

/// Header value helper for handlers.
pub fn header_value(v: impl ToString) -> HeaderValue {
    HeaderValue::from_str(&v.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
}
