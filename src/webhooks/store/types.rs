//! What every webhook store transaction shares: its error, its result type and new ids.

use storage::{Abort, TxError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    NotFound,
    DeliveryNotFound,
    /// Only a failed delivery can be retried by hand.
    NotFailed,
    /// The `standard-webhooks` scheme needs a `whsec_` base64 secret of 24 to 64 bytes.
    SecretNotStandard,
}

pub(super) type TxResult<T> = Result<T, TxError<WebhookError>>;

pub(super) fn ok<T>(v: T) -> Result<T, Abort<WebhookError>> {
    Ok(v)
}

pub fn new_id() -> u128 {
    uuid::Uuid::now_v7().as_u128()
}
