//! Request bodies: the content-type check (415), the size limit (413, connection
//! closed), and JSON decoding that names the offending field on a type error (400), reading
//! objects and integers as JSON Schema does (`Object`, `Whole`).

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::StatusCode;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::error::ApiError;
use super::routes::BodyKind;

fn too_large(limit: usize) -> ApiError {
    let mut e = ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("The request body exceeds the limit of {limit} bytes."),
    );
    e.close = true;
    e
}

/// The media type without parameters, lowercased.
pub fn media_type(headers: &HeaderMap) -> Option<String> {
    let raw = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    Some(raw.split(';').next()?.trim().to_ascii_lowercase())
}

fn accepts(kind: BodyKind, media: &str) -> bool {
    match kind {
        BodyKind::None => true,
        BodyKind::Json => media == "application/json" || media.ends_with("+json"),
        BodyKind::JsonOrCsv => accepts(BodyKind::Json, media) || media == "text/csv",
        BodyKind::Form => media == "application/x-www-form-urlencoded",
    }
}

/// Reads the whole body within `limit` bytes. A route with a body kind refuses a
/// non-empty body of another media type; an empty body is always accepted (optional
/// bodies such as cancel's).
pub async fn read(
    kind: BodyKind,
    headers: &HeaderMap,
    body: Incoming,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit));
    }
    if kind != BodyKind::None && declared != Some(0) && kind != BodyKind::Form {
        match media_type(headers) {
            Some(m) if accepts(kind, &m) => {}
            Some(m) => return Err(unsupported(kind, Some(&m))),
            None if declared.is_none() && !headers.contains_key("transfer-encoding") => {}
            None => return Err(unsupported(kind, None)),
        }
    }
    let bytes = Limited::new(body, limit)
        .collect()
        .await
        .map_err(|e| {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                too_large(limit)
            } else {
                ApiError::bad_request("The request body could not be read.")
            }
        })?
        .to_bytes();
    Ok(bytes)
}

fn unsupported(kind: BodyKind, got: Option<&str>) -> ApiError {
    let want = match kind {
        BodyKind::Form => "application/x-www-form-urlencoded",
        BodyKind::JsonOrCsv => "application/json or text/csv",
        _ => "application/json",
    };
    ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        match got {
            Some(m) => format!("Content-Type {m} is not accepted here; send {want}."),
            None => format!("Content-Type is missing; send {want}."),
        },
    )
}

/// Decodes a JSON object into `T`. Syntax errors and wrong types are 400 naming the field
/// path.
pub fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.is_empty() {
        return Err(ApiError::bad_request("A JSON request body is required."));
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de)
        .map(|Object(t)| t)
        .map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let msg = format!("Invalid JSON body: {inner}");
            if path.is_empty() || path == "." || inner.is_syntax() || inner.is_eof() {
                ApiError::bad_request(msg)
            } else {
                ApiError::bad_request(msg).on(path)
            }
        })
}

/// A `T` read from a JSON object only. Serde would also read a struct from an array of its
/// fields in order, which no client means and the documents do not allow.
pub struct Object<T>(pub T);

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Only<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Only<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Object<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(Only(std::marker::PhantomData))
    }
}

/// `deserialize_with` for a [`Field`] holding an object.
pub fn object<'de, D, T>(d: D) -> Result<Field<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    Field::<Object<T>>::deserialize(d).map(|f| f.map(|Object(t)| t))
}

/// `deserialize_with` for a [`Field`] holding a list of objects.
pub fn objects<'de, D, T>(d: D) -> Result<Field<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    Field::<Vec<Object<T>>>::deserialize(d)
        .map(|f| f.map(|v| v.into_iter().map(|Object(t)| t).collect()))
}

/// A JSON integer. An integral float such as `3.0` counts too, as JSON Schema's `integer`
/// says (clients that write every number as a float send them); a fraction is a 400 naming
/// the field. Beyond the i64 range the value saturates, so the field's own range check answers
/// it with its 422.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole(pub i64);

impl<'de> serde::Deserialize<'de> for Whole {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        if let Some(i) = n.as_i64() {
            return Ok(Whole(i));
        }
        if n.as_u64().is_some() {
            return Ok(Whole(i64::MAX));
        }
        match n.as_f64() {
            // `as` saturates at the i64 bounds.
            Some(f) if f.is_finite() && f.fract() == 0.0 => Ok(Whole(f as i64)),
            Some(f) => Err(serde::de::Error::invalid_type(
                serde::de::Unexpected::Float(f),
                &"an integer",
            )),
            None => Err(serde::de::Error::custom("expected an integer")),
        }
    }
}

/// A JSON field that may be absent, explicitly null, or set; PATCH needs all three.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Field<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(d).map(|o| o.map_or(Field::Null, Field::Value))
    }
}

impl<T> Field<T> {
    /// The value of a required field, or a 422 naming it.
    pub fn required(self, field: &str) -> Result<T, ApiError> {
        match self {
            Field::Value(v) => Ok(v),
            _ => Err(ApiError::validation(field, format!("{field} is required."))),
        }
    }

    pub fn optional(self) -> Option<T> {
        match self {
            Field::Value(v) => Some(v),
            _ => None,
        }
    }

    /// For PATCH: `None` = leave unchanged, `Some(None)` = clear, `Some(Some(v))` = set.
    pub fn patch(self) -> Option<Option<T>> {
        match self {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(v) => Some(Some(v)),
        }
    }

    /// The value, if set, through `f`; absent and null stay as they are.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Field<U> {
        match self {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Value(v) => Field::Value(f(v)),
        }
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct In {
        n: Whole,
    }

    fn n(json: &str) -> Result<i64, ApiError> {
        super::json::<In>(json.as_bytes()).map(|i| i.n.0)
    }

    #[test]
    fn whole_takes_integers_and_integral_floats_and_names_a_fraction() {
        assert_eq!(n(r#"{"n": 42}"#).unwrap(), 42);
        assert_eq!(n(r#"{"n": -7}"#).unwrap(), -7);
        assert_eq!(n(r#"{"n": 89.0}"#).unwrap(), 89);
        assert_eq!(n(r#"{"n": 1e3}"#).unwrap(), 1000);
        assert_eq!(n(r#"{"n": 18446744073709551615}"#).unwrap(), i64::MAX);
        assert_eq!(n(r#"{"n": 1e30}"#).unwrap(), i64::MAX);
        assert_eq!(n(r#"{"n": -1e30}"#).unwrap(), i64::MIN);
        for bad in [r#"{"n": 1.5}"#, r#"{"n": "3"}"#, r#"{"n": true}"#] {
            let e = n(bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("n"), "{bad}");
        }
    }
}
