//! The HTTP layer: the only place that knows JSON shapes, status codes and URLs.
//! [`handle`] applies every cross-cutting rule once, in order (credentials, routing, rate
//! limit, access, body, idempotency, timeout, durability), then dispatches to the handler of
//! the route; handlers parse, call `crate::domain`, and render.

pub mod address;
pub mod api;
pub mod auth;
pub mod body;
pub mod bulk_import;
pub mod classes;
mod console;
mod console_admin;
pub mod ctx;
mod dispatch;
pub mod docs;
pub mod error;
mod fields;
pub mod health;
pub mod idempotency;
pub mod inbound;
pub mod inventory;
pub mod limits;
pub mod login;
mod metrics;
mod observe;
pub mod openapi;
mod order_events;
pub mod orders;
pub mod package_views;
pub mod packages;
pub mod packing_api;
pub mod packing_schema;
pub mod packing_steps;
mod pipeline;
pub mod products;
pub mod query;
pub mod response;
pub mod routes;
pub mod shapes;
pub mod space;
mod station;
mod text;
pub mod warehouses;
pub mod webhooks;

pub use api::Api;
pub use pipeline::handle;
pub use shapes::ApiShapes;
