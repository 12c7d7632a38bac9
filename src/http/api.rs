//! [`Api`]: the HTTP layer's own state, built once at start beside the shared [`App`].

use std::sync::Arc;

use super::idempotency::Idempotency;
use super::limits::RateLimiter;
use super::openapi;
use super::routes::{Router, Service};
use crate::app::App;
use crate::domain::package_views::Scenes;

/// The HTTP layer's own state beside the shared [`App`]: routers, rate limits,
/// idempotency keys in flight and the generated documents.
pub struct Api {
    pub app: Arc<App>,
    pub limiter: RateLimiter,
    pub idempotency: Idempotency,
    pub docs: openapi::Documents,
    /// The kept views (steps and diagram scene) of the packages packers look at.
    pub scenes: Scenes,
    fulfillment: Router,
    packing: Router,
}

impl Api {
    pub fn new(app: Arc<App>) -> Api {
        Api {
            limiter: RateLimiter::new(app.config.tiers.clone()),
            idempotency: Idempotency::default(),
            docs: openapi::Documents::build(),
            scenes: Scenes::default(),
            fulfillment: Router::new(Service::Fulfillment),
            packing: Router::new(Service::Packing),
            app,
        }
    }
}

impl Api {
    pub fn router(&self, service: Service) -> &Router {
        match service {
            Service::Fulfillment => &self.fulfillment,
            Service::Packing => &self.packing,
        }
    }
}
