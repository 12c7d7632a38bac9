//! The route table: every (method, path) of both listeners with its access rule and
//! body kind. The router, the OpenAPI document and its consistency test all read it, so
//! a URL is written in exactly one place.

use hyper::Method;

/// Which listener a route belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    Fulfillment,
    Packing,
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credentials needed (rate-limited per IP).
    Public,
    /// A Bearer token or an `X-API-Key`.
    Client,
    /// An `X-API-Key` only (the packing service).
    ApiKey,
    /// The token endpoint authenticates the client in its own form.
    TokenEndpoint,
    /// Prometheus scrapes: from an address in `metrics_allow` (loopback by default), with
    /// `Authorization: Bearer <metrics_token>` when a token is configured.
    Metrics,
    /// Inbound callbacks: the source's HMAC signature (checked by the handler, which needs
    /// the body), or a Bearer token / `X-API-Key`.
    Inbound,
    /// A console session (its cookie) only.
    Console,
}

/// What a route accepts as a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    None,
    Json,
    /// JSON, or `text/csv` (bulk import).
    JsonOrCsv,
    Form,
}

/// Every handler, one variant each; dispatch is a `match` in `http::dispatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteId {
    Health,
    Token,
    OpenApi,
    Docs,
    ListProducts,
    CreateProduct,
    GetProduct,
    UpdateProduct,
    DeleteProduct,
    GetProductBySku,
    ListWarehouses,
    CreateWarehouse,
    GetWarehouse,
    UpdateWarehouse,
    ListInventory,
    CreateInventory,
    GetInventory,
    AdjustInventory,
    ListInventoryAdjustments,
    ListOrders,
    CreateOrder,
    GetOrder,
    UpdateOrder,
    CancelOrder,
    ListOrderEvents,
    BulkImportOrders,
    ListWebhooks,
    CreateWebhook,
    GetWebhook,
    UpdateWebhook,
    DeleteWebhook,
    TestWebhook,
    ListWebhookDeliveries,
    RetryWebhookDelivery,
    RecoverWebhookDeliveries,
    RotateWebhookSecret,
    PackOrder,
    ListPackages,
    GetPackage,
    ListPackageEvents,
    ShipPackage,
    MarkPackagePacked,
    PackageInstructions,
    PackageDiagram,
    PackageSlip,
    WmsPackageStatus,
    CarrierTracking,
    PackingHealth,
    Metrics,
    PackingOpenApi,
    PackingOptimize,
    ConsoleLoginForm,
    ConsoleLogin,
    ConsoleLogout,
    ConsoleSession,
    ConsoleShell,
    ConsolePage,
    ListUsers,
    CreateUser,
    DeleteUser,
    ListClients,
    CreateClient,
    DeleteClient,
    SetInboundSecret,
}

pub struct RouteDef {
    pub service: Service,
    pub method: Method,
    /// matchit syntax: `/api/products/{id}`; also the OpenAPI path.
    pub path: &'static str,
    pub id: RouteId,
    pub access: Access,
    pub body: BodyKind,
    pub tag: &'static str,
    pub summary: &'static str,
}

impl RouteDef {
    /// Whether the route is part of the API documents: the console's own pages and
    /// session endpoints are served beside the API but are not API operations.
    pub fn documented(&self) -> bool {
        !self.path.starts_with("/console/")
    }
}

// A positional constructor keeps the table below one line per route.
#[allow(clippy::too_many_arguments)]
const fn route(
    service: Service,
    method: Method,
    path: &'static str,
    id: RouteId,
    access: Access,
    body: BodyKind,
    tag: &'static str,
    summary: &'static str,
) -> RouteDef {
    RouteDef {
        service,
        method,
        path,
        id,
        access,
        body,
        tag,
        summary,
    }
}

use Access::*;
use BodyKind as B;
use Service::*;

// One line per route reads as a table; rustfmt would spread each over ten lines.
#[rustfmt::skip]
pub static ROUTES: &[RouteDef] = &[
    route(Fulfillment, Method::GET, "/health", RouteId::Health, Public, B::None, "System", "Health of the service and its storage"),
    route(Fulfillment, Method::GET, "/metrics", RouteId::Metrics, Access::Metrics, B::None, "System", "Prometheus metrics in the text exposition format 0.0.4"),
    route(Fulfillment, Method::POST, "/oauth/token", RouteId::Token, TokenEndpoint, B::Form, "Authentication", "Issue an access token (OAuth 2.0 client credentials)"),
    route(Fulfillment, Method::GET, "/api/openapi.json", RouteId::OpenApi, Public, B::None, "System", "This OpenAPI 3.1 document"),
    route(Fulfillment, Method::GET, "/api/docs", RouteId::Docs, Public, B::None, "System", "HTML reference rendered from the OpenAPI document"),
    route(Fulfillment, Method::GET, "/api/products", RouteId::ListProducts, Client, B::None, "Products", "List live products, newest first"),
    route(Fulfillment, Method::POST, "/api/products", RouteId::CreateProduct, Client, B::Json, "Products", "Create a product"),
    route(Fulfillment, Method::GET, "/api/products/{id}", RouteId::GetProduct, Client, B::None, "Products", "Get a product (deleted ones too)"),
    route(Fulfillment, Method::PATCH, "/api/products/{id}", RouteId::UpdateProduct, Client, B::Json, "Products", "Update a product"),
    route(Fulfillment, Method::DELETE, "/api/products/{id}", RouteId::DeleteProduct, Client, B::None, "Products", "Soft-delete a product"),
    route(Fulfillment, Method::GET, "/api/products/sku/{sku}", RouteId::GetProductBySku, Client, B::None, "Products", "Get the live product with this SKU"),
    route(Fulfillment, Method::GET, "/api/warehouses", RouteId::ListWarehouses, Client, B::None, "Warehouses", "List warehouses, newest first"),
    route(Fulfillment, Method::POST, "/api/warehouses", RouteId::CreateWarehouse, Client, B::Json, "Warehouses", "Create a warehouse with its box catalog"),
    route(Fulfillment, Method::GET, "/api/warehouses/{id}", RouteId::GetWarehouse, Client, B::None, "Warehouses", "Get a warehouse"),
    route(Fulfillment, Method::PATCH, "/api/warehouses/{id}", RouteId::UpdateWarehouse, Client, B::Json, "Warehouses", "Update a warehouse (boxes replaces the catalog)"),
    route(Fulfillment, Method::GET, "/api/inventory", RouteId::ListInventory, Client, B::None, "Inventory", "List inventory levels, newest first"),
    route(Fulfillment, Method::POST, "/api/inventory", RouteId::CreateInventory, Client, B::Json, "Inventory", "Create the inventory record of a SKU in a warehouse"),
    route(Fulfillment, Method::GET, "/api/inventory/{id}", RouteId::GetInventory, Client, B::None, "Inventory", "Get an inventory record"),
    route(Fulfillment, Method::PATCH, "/api/inventory/{id}/adjust", RouteId::AdjustInventory, Client, B::Json, "Inventory", "Adjust onHand by a delta, with a reason"),
    route(Fulfillment, Method::GET, "/api/inventory/{id}/adjustments", RouteId::ListInventoryAdjustments, Client, B::None, "Inventory", "The audit trail of an inventory record, newest first"),
    route(Fulfillment, Method::GET, "/api/orders", RouteId::ListOrders, Client, B::None, "Orders", "List orders, newest first, filtered by status, q and fromDate"),
    route(Fulfillment, Method::POST, "/api/orders", RouteId::CreateOrder, Client, B::Json, "Orders", "Create an order and reserve its stock"),
    route(Fulfillment, Method::POST, "/api/orders/bulk-import", RouteId::BulkImportOrders, Client, B::JsonOrCsv, "Orders", "Import many orders from JSON or CSV, each all or nothing"),
    route(Fulfillment, Method::GET, "/api/orders/{id}", RouteId::GetOrder, Client, B::None, "Orders", "Get an order"),
    route(Fulfillment, Method::PATCH, "/api/orders/{id}", RouteId::UpdateOrder, Client, B::Json, "Orders", "Move an order along its status machine or edit a pending one"),
    route(Fulfillment, Method::POST, "/api/orders/{id}/cancel", RouteId::CancelOrder, Client, B::Json, "Orders", "Cancel an order and release its stock"),
    route(Fulfillment, Method::GET, "/api/orders/{id}/events", RouteId::ListOrderEvents, Client, B::None, "Orders", "Everything that happened to an order, oldest first: its changes and its packages' callbacks"),
    route(Fulfillment, Method::GET, "/api/webhooks", RouteId::ListWebhooks, Client, B::None, "Webhooks", "List webhook subscriptions, newest first"),
    route(Fulfillment, Method::POST, "/api/webhooks", RouteId::CreateWebhook, Client, B::Json, "Webhooks", "Create a webhook subscription"),
    route(Fulfillment, Method::GET, "/api/webhooks/{id}", RouteId::GetWebhook, Client, B::None, "Webhooks", "Get a webhook subscription (the secret is never returned)"),
    route(Fulfillment, Method::PATCH, "/api/webhooks/{id}", RouteId::UpdateWebhook, Client, B::Json, "Webhooks", "Update url, events, secret or isActive of a subscription"),
    route(Fulfillment, Method::DELETE, "/api/webhooks/{id}", RouteId::DeleteWebhook, Client, B::None, "Webhooks", "Delete a subscription; its pending deliveries are dropped"),
    route(Fulfillment, Method::POST, "/api/webhooks/{id}/test", RouteId::TestWebhook, Client, B::Json, "Webhooks", "Queue a signed sample event to the subscription"),
    route(Fulfillment, Method::GET, "/api/webhooks/{id}/deliveries", RouteId::ListWebhookDeliveries, Client, B::None, "Webhooks", "List a subscription's deliveries with every attempt, newest first"),
    route(Fulfillment, Method::POST, "/api/webhooks/{id}/deliveries/{deliveryId}/retry", RouteId::RetryWebhookDelivery, Client, B::Json, "Webhooks", "Re-queue one failed delivery for a new round of attempts"),
    route(Fulfillment, Method::POST, "/api/webhooks/{id}/recover", RouteId::RecoverWebhookDeliveries, Client, B::Json, "Webhooks", "Re-queue every failed delivery of the subscription since a time"),
    route(Fulfillment, Method::POST, "/api/webhooks/{id}/rotate-secret", RouteId::RotateWebhookSecret, Client, B::Json, "Webhooks", "Replace the secret with a new random one; the old one keeps signing during a grace period"),
    route(Fulfillment, Method::POST, "/api/orders/{id}/pack", RouteId::PackOrder, Client, B::None, "Packages", "Pack a pending order now (after fixing its products or boxes, or with auto_pack off)"),
    route(Fulfillment, Method::GET, "/api/packages", RouteId::ListPackages, Client, B::None, "Packages", "List packages, newest first, filtered by orderId and status"),
    route(Fulfillment, Method::GET, "/api/packages/{id}", RouteId::GetPackage, Client, B::None, "Packages", "Get a package with its placements"),
    route(Fulfillment, Method::GET, "/api/packages/{id}/events", RouteId::ListPackageEvents, Client, B::None, "Packages", "The inbound WMS and carrier events of a package, oldest first"),
    route(Fulfillment, Method::GET, "/api/packages/{id}/instructions", RouteId::PackageInstructions, Client, B::None, "Packages", "The box to take and the loading order as numbered steps"),
    route(Fulfillment, Method::GET, "/api/packages/{id}/diagram.svg", RouteId::PackageDiagram, Client, B::None, "Packages", "Isometric SVG diagram of one loading step or of the packed box"),
    route(Fulfillment, Method::GET, "/api/packages/{id}/slip", RouteId::PackageSlip, Client, B::None, "Packages", "Printable HTML packing slip with the package id as a Code 128 barcode"),
    route(Fulfillment, Method::POST, "/api/fulfillment/packages/{id}/ship", RouteId::ShipPackage, Client, B::Json, "Packages", "Ship a package with its carrier and tracking number"),
    route(Fulfillment, Method::POST, "/api/fulfillment/packages/{id}/packed", RouteId::MarkPackagePacked, Client, B::None, "Packages", "Mark a package packed at a packing station, as the WMS status callback would"),
    route(Fulfillment, Method::POST, "/api/wms/webhooks/package-status", RouteId::WmsPackageStatus, Inbound, B::Json, "Inbound webhooks", "Package status from the warehouse management system"),
    route(Fulfillment, Method::POST, "/api/webhooks/carriers/{carrier}/tracking", RouteId::CarrierTracking, Inbound, B::Json, "Inbound webhooks", "Tracking update from a carrier"),
    route(Fulfillment, Method::GET, "/console/login", RouteId::ConsoleLoginForm, Public, B::None, "Console", "The console's login form"),
    route(Fulfillment, Method::POST, "/console/login", RouteId::ConsoleLogin, Public, B::Form, "Console", "Log in: sets the session cookie and redirects"),
    route(Fulfillment, Method::POST, "/console/logout", RouteId::ConsoleLogout, Console, B::None, "Console", "Log out: ends the session"),
    route(Fulfillment, Method::GET, "/console/session", RouteId::ConsoleSession, Console, B::None, "Console", "The logged-in user, role and CSRF token"),
    route(Fulfillment, Method::GET, "/console/", RouteId::ConsoleShell, Public, B::None, "Console", "The console's page shell"),
    route(Fulfillment, Method::GET, "/console/{*path}", RouteId::ConsolePage, Public, B::None, "Console", "A console page (the shell) or asset"),
    route(Fulfillment, Method::GET, "/console/api/users", RouteId::ListUsers, Console, B::None, "Console", "List console users"),
    route(Fulfillment, Method::POST, "/console/api/users", RouteId::CreateUser, Console, B::Json, "Console", "Create a console user (a generated password is shown once)"),
    route(Fulfillment, Method::DELETE, "/console/api/users/{name}", RouteId::DeleteUser, Console, B::None, "Console", "Delete a console user; their sessions end"),
    route(Fulfillment, Method::GET, "/console/api/clients", RouteId::ListClients, Console, B::None, "Console", "List API clients (no secrets)"),
    route(Fulfillment, Method::POST, "/console/api/clients", RouteId::CreateClient, Console, B::Json, "Console", "Create an API client (its secret and key are shown once)"),
    route(Fulfillment, Method::DELETE, "/console/api/clients/{id}", RouteId::DeleteClient, Console, B::None, "Console", "Delete an API client; its credentials stop working"),
    route(Fulfillment, Method::POST, "/console/api/inbound-secrets", RouteId::SetInboundSecret, Console, B::Json, "Console", "Set the HMAC secret of an inbound source"),
    route(Packing, Method::GET, "/api/v1/health", RouteId::PackingHealth, Public, B::None, "System", "Health of the packing service"),
    route(Packing, Method::POST, "/api/v1/optimize", RouteId::PackingOptimize, ApiKey, B::Json, "Packing", "Pack items into boxes across warehouses"),
    route(Packing, Method::GET, "/api/v1/openapi.json", RouteId::PackingOpenApi, Public, B::None, "System", "The packing service's OpenAPI 3.1 document"),
];

/// One path template and the methods it answers.
pub struct PathEntry {
    pub methods: Vec<&'static RouteDef>,
}

/// Matches a request path to its route table entries.
pub struct Router {
    inner: matchit::Router<usize>,
    entries: Vec<PathEntry>,
}

pub enum Match<'a> {
    Found(&'static RouteDef, Vec<(String, String)>),
    /// Known path, wrong method: the allowed methods for the `Allow` header.
    MethodNotAllowed(Vec<&'a Method>),
    NotFound,
}

impl Router {
    pub fn new(service: Service) -> Router {
        let mut inner = matchit::Router::new();
        let mut entries: Vec<PathEntry> = Vec::new();
        let mut index: Vec<&'static str> = Vec::new();
        for def in ROUTES.iter().filter(|d| d.service == service) {
            match index.iter().position(|p| *p == def.path) {
                Some(i) => entries[i].methods.push(def),
                None => {
                    inner
                        .insert(def.path, entries.len())
                        .expect("route table paths are valid and distinct");
                    index.push(def.path);
                    entries.push(PathEntry { methods: vec![def] });
                }
            }
        }
        Router { inner, entries }
    }

    pub fn find(&self, method: &Method, path: &str) -> Match<'_> {
        let Ok(m) = self.inner.at(path) else {
            return Match::NotFound;
        };
        let entry = &self.entries[*m.value];
        match entry.methods.iter().find(|d| d.method == method) {
            Some(def) => Match::Found(
                def,
                m.params
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            None => Match::MethodNotAllowed(entry.methods.iter().map(|d| &d.method).collect()),
        }
    }
}
