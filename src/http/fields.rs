//! Validators that several resources share: sizes and weights of products and boxes, and
//! PATCH fields that may be left out but not set to null. Each error names the field.

use serde_json::{json, Value};

use super::body::Field;
use super::error::ApiError;

/// The schema of an optional field whose null the handler reads as absent.
pub fn or_null(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// A size or weight: finite, above zero and below a million.
pub fn positive(field: &str, v: f64) -> Result<f64, ApiError> {
    if v.is_finite() && v > 0.0 && v < 1e6 {
        Ok(v)
    } else {
        Err(ApiError::validation(
            field,
            format!("{field} must be a positive number."),
        ))
    }
}

/// A PATCH field that may be absent but not null: its value, if any.
pub fn not_null<T>(field: &str, f: Field<T>) -> Result<Option<T>, ApiError> {
    match f {
        Field::Null => Err(ApiError::validation(
            field,
            format!("{field} cannot be null."),
        )),
        other => Ok(other.optional()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive_is_finite_above_zero_and_below_a_million() {
        for good in [f64::MIN_POSITIVE, 0.5, 12.0, 999_999.9] {
            assert_eq!(positive("width", good).unwrap(), good);
        }
        for bad in [0.0, -0.0, -1.0, 1e6, f64::INFINITY, f64::NAN] {
            let e = positive("boxes[0].width", bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("boxes[0].width"), "{bad:?}");
            assert_eq!(e.message, "boxes[0].width must be a positive number.");
        }
    }

    #[test]
    fn not_null_passes_absent_and_values_and_names_a_null_field() {
        assert_eq!(not_null("name", Field::<String>::Absent).unwrap(), None);
        assert_eq!(
            not_null("name", Field::Value("Mug".to_string())).unwrap(),
            Some("Mug".to_string())
        );
        let e = not_null("isActive", Field::<bool>::Null).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("isActive"));
        assert_eq!(e.message, "isActive cannot be null.");
    }
}
