//! Validators of free-text fields that several resources share: short labels and e-mail
//! addresses, with the schemas that say the same in the OpenAPI documents. Each error names
//! the field.

use serde_json::{json, Value};

use super::error::ApiError;

/// Any character but a control character (Unicode Cc), as a regular expression class.
const PRINTABLE: &str = r"[^\u0000-\u001F\u007F-\u009F]";

/// A short text: at most `max` characters as sent, none a control character, not blank;
/// stored trimmed.
pub fn short_text(field: &str, v: String, max: usize) -> Result<String, ApiError> {
    if v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(short_text_error(field, max));
    }
    let v = v.trim().to_string();
    if v.is_empty() {
        return Err(short_text_error(field, max));
    }
    Ok(v)
}

/// The schema of [`short_text`].
pub fn short_text_schema(max: usize) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max,
        "pattern": format!(r"^{PRINTABLE}*[^\s\u0000-\u001F\u007F-\u009F]{PRINTABLE}*$")})
}

/// At most `max` characters as sent; stored trimmed, and blank only if `allow_empty`.
pub fn plain_text(
    field: &str,
    v: String,
    max: usize,
    allow_empty: bool,
) -> Result<String, ApiError> {
    let long = v.chars().count() > max;
    let v = v.trim().to_string();
    if (!allow_empty && v.is_empty()) || long {
        return Err(ApiError::validation(
            field,
            format!(
                "{field} must be {} to {max} characters.",
                u8::from(!allow_empty)
            ),
        ));
    }
    Ok(v)
}

/// The schema of [`plain_text`] for a name (not `allow_empty`).
pub fn name_schema(max: usize) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max, "pattern": r"\S"})
}

fn short_text_error(field: &str, max: usize) -> ApiError {
    ApiError::validation(
        field,
        format!("{field} must be 1 to {max} printable characters."),
    )
}

pub fn email(v: String) -> Result<String, ApiError> {
    let v = v.trim().to_string();
    let ok = v.len() <= 254
        && !v.contains(char::is_whitespace)
        && v.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
        });
    if ok {
        Ok(v)
    } else {
        Err(ApiError::validation(
            "customerEmail",
            "customerEmail must be an e-mail address.",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_trimmed_and_bounded() {
        assert_eq!(short_text("name", "  Mug ".into(), 10).unwrap(), "Mug");
        assert_eq!(
            short_text("name", "é".repeat(10), 10)
                .unwrap()
                .chars()
                .count(),
            10
        );
        // The length counts what was sent, spaces included, as the schema's maxLength does.
        for bad in ["", "   ", "12345678901", "a\u{7}b", " 123456789 "] {
            let e = short_text("name", bad.into(), 10).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("name"), "{bad:?}");
        }
    }

    #[test]
    fn plain_text_counts_what_was_sent_and_may_allow_blank() {
        assert_eq!(plain_text("name", " Mug ".into(), 5, false).unwrap(), "Mug");
        assert_eq!(plain_text("description", "  ".into(), 5, true).unwrap(), "");
        for (bad, allow_empty) in [("  ", false), ("Mug   ", false), ("123456", true)] {
            let e = plain_text("name", bad.into(), 5, allow_empty).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("name"), "{bad:?}");
        }
    }

    #[test]
    fn email_needs_a_local_part_and_a_dotted_domain() {
        assert_eq!(email(" a@b.co ".into()).unwrap(), "a@b.co");
        for bad in ["a", "@b.co", "a@b", "a@.b", "a@b.", "a b@c.de", "a@b@c.de"] {
            let e = email(bad.into()).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("customerEmail"), "{bad:?}");
        }
    }
}
