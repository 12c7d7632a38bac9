//! Timestamps: stored as unix milliseconds, shown as RFC 3339 UTC.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub fn now_ms() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}

pub fn rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_utc_with_millis() {
        assert_eq!(
            super::rfc3339(1_700_000_000_123),
            "2023-11-14T22:13:20.123Z"
        );
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
    }
}
