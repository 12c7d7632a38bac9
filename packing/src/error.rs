//! The crate's error type: input validation errors that name the offending field, and the
//! internal safety net that refuses to return a packing the validator rejects.

/// Everything `pack` can refuse with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// A request field breaks a rule. `field` is a path such as `items[2].width` so the HTTP
    /// layer can answer 422 naming it.
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    /// The engine produced a packing that its own validator rejected. Never expected; it exists
    /// so that a bug surfaces as an error instead of as a box that cannot be packed.
    #[error("internal packing error: {0}")]
    Internal(String),
}

impl Error {
    pub(crate) fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Validation {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field path of a validation error, `None` for other errors.
    pub fn field_path(&self) -> Option<&str> {
        match self {
            Error::Validation { field, .. } => Some(field),
            Error::Internal(_) => None,
        }
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_errors_carry_their_field() {
        let e = Error::field("items[2].width", "must be a number above 0");
        assert_eq!(e.field_path(), Some("items[2].width"));
        assert_eq!(e.to_string(), "items[2].width: must be a number above 0");
        let i = Error::Internal("overlap".into());
        assert_eq!(i.field_path(), None);
        assert!(i.to_string().contains("overlap"));
    }
}
