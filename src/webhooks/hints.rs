//! What a receiver's answer tells the engine beyond success or failure: `410 Gone`
//! (stop sending) and `Retry-After` on `429` / `503` (not before then).

use std::time::{Duration, UNIX_EPOCH};

/// The longest wait a `Retry-After` can impose: the attempt after it comes at most this
/// long after the answer, so a typo on the receiver's side cannot park deliveries for
/// weeks.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// The status that disables a subscription.
pub const GONE: u16 = 410;

/// When the next attempt may come (unix ms) for an answer `status` with `retry_after`
/// received at `now_ms`; `None` unless the status is 429 or 503 with a valid header.
/// The header is seconds (`120`) or an HTTP date; a date in the past means now.
pub fn not_before(status: u16, retry_after: Option<&str>, now_ms: i64) -> Option<i64> {
    if status != 429 && status != 503 {
        return None;
    }
    let v = retry_after?.trim();
    let wait_ms = if let Ok(secs) = v.parse::<u64>() {
        secs.saturating_mul(1000)
    } else {
        let at = httpdate::parse_http_date(v).ok()?;
        let at_ms = at.duration_since(UNIX_EPOCH).ok()?.as_millis() as i64;
        at_ms.saturating_sub(now_ms).max(0) as u64
    };
    let wait_ms = wait_ms.min(MAX_RETRY_AFTER.as_millis() as u64);
    Some(now_ms + wait_ms as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    #[test]
    fn seconds_and_dates_are_read_and_bounded() {
        let now = 1_700_000_000_000;
        assert_eq!(not_before(429, Some("120"), now), Some(now + 120_000));
        assert_eq!(not_before(503, Some(" 0 "), now), Some(now));
        assert_eq!(not_before(500, Some("120"), now), None, "only 429 and 503");
        assert_eq!(not_before(429, None, now), None);
        assert_eq!(not_before(429, Some("soon"), now), None);
        let later = SystemTime::UNIX_EPOCH + Duration::from_millis(now as u64 + 90_000);
        let date = httpdate::fmt_http_date(later);
        assert_eq!(not_before(503, Some(&date), now), Some(now + 90_000));
        let past = httpdate::fmt_http_date(SystemTime::UNIX_EPOCH);
        assert_eq!(not_before(503, Some(&past), now), Some(now));
        assert_eq!(
            not_before(429, Some("99999999999"), now),
            Some(now + MAX_RETRY_AFTER.as_millis() as i64)
        );
    }
}
