//! Value encoding: bincode 2 (serde mode) behind a one-byte format tag, so a later
//! schema can tell old records from new ones without a full migration.

use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, Result};

/// Format tag written before every value. Bump it when a record layout changes and
/// teach [`decode`] (or a migration in `schema.rs`) to read the old one.
const FORMAT_V1: u8 = 1;

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a record. Stored types must be plain: bincode 2 cannot decode
/// `skip_serializing_if`, untagged enums or `serde_json::Value`.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.push(FORMAT_V1);
    bincode::serde::encode_into_std_write(value, &mut out, config())
        .expect("encoding into a Vec cannot fail for plain records");
    out
}

/// Decodes a record written by [`encode`].
pub fn decode<T: DeserializeOwned>(table: &'static str, bytes: &[u8]) -> Result<T> {
    bincode::serde::decode_from_slice(payload(table, bytes)?, config())
        .map(|(v, _)| v)
        .map_err(|e| Error::Corrupt {
            table,
            detail: e.to_string(),
        })
}

/// The bincode bytes of a value written by [`encode`], after its format tag.
pub fn payload<'a>(table: &'static str, bytes: &'a [u8]) -> Result<&'a [u8]> {
    match bytes.split_first() {
        Some((&FORMAT_V1, rest)) => Ok(rest),
        Some((tag, _)) => Err(Error::Corrupt {
            table,
            detail: format!("unknown format tag {tag}"),
        }),
        None => Err(Error::Corrupt {
            table,
            detail: "empty value".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Rec {
        a: u64,
        b: String,
        c: Option<Vec<u8>>,
    }

    #[test]
    fn round_trips_and_rejects_garbage() {
        let r = Rec {
            a: 7,
            b: "x".into(),
            c: Some(vec![1, 2]),
        };
        let bytes = encode(&r);
        assert_eq!(bytes[0], FORMAT_V1);
        assert_eq!(decode::<Rec>("t", &bytes).unwrap(), r);
        assert!(matches!(
            decode::<Rec>("t", &[9, 1, 2]),
            Err(Error::Corrupt { .. })
        ));
        assert!(decode::<Rec>("t", &[]).is_err());
        assert!(decode::<Rec>("t", &bytes[..2]).is_err());
    }
}
