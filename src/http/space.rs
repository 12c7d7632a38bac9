//! Write requests and the free-space reserve: which routes may write, and their refusal
//! (507 `insufficient_storage`) before the body is read while the reserve is not free.

use hyper::Method;

use super::error::ApiError;
use super::routes::{RouteDef, RouteId, Service};
use crate::app::App;

/// Every route that may write: on the fulfillment listener, any method but GET, the token
/// endpoint aside (the packing listener stores nothing).
pub fn may_write(def: &RouteDef) -> bool {
    def.service == Service::Fulfillment && def.method != Method::GET && def.id != RouteId::Token
}

/// Refuses a write request while free space is below the reserve.
pub fn admit(app: &App, def: &RouteDef) -> Result<(), ApiError> {
    if !may_write(def) {
        return Ok(());
    }
    app.space.admit_request().map_err(|why| {
        tracing::warn!(reason = %why, "write refused: disk nearly full");
        ApiError::insufficient_storage()
    })
}
