//! Validators of numeric fields that several resources share (sizes and weights of
//! products and boxes). Each error names the field.

use super::error::ApiError;

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
}
