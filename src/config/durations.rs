//! Durations in settings: `500ms`, `30s`, `5m`, `6h`, and lists of them.

use std::time::Duration;

use anyhow::{bail, Context};

/// Parses `1m,5m,30m,2h` (suffixes `ms`, `s`, `m`, `h`) into delays.
pub fn parse_delays(text: &str) -> anyhow::Result<Vec<Duration>> {
    let delays = text
        .split(',')
        .map(|part| parse_duration(part.trim()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if delays.is_empty() {
        bail!("at least one delay is needed");
    }
    Ok(delays)
}

pub(super) fn parse_duration(s: &str) -> anyhow::Result<Duration> {
    let split = s
        .find(|c: char| !c.is_ascii_digit())
        .with_context(|| format!("{s:?} has no unit (ms, s, m or h)"))?;
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .with_context(|| format!("{s:?} has no number"))?;
    Ok(match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        _ => bail!("{s:?}: unit must be ms, s, m or h"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_parse_with_every_suffix() {
        assert_eq!(
            parse_delays("1m,5m,30m,2h").unwrap(),
            vec![
                Duration::from_secs(60),
                Duration::from_secs(300),
                Duration::from_secs(1800),
                Duration::from_secs(7200)
            ]
        );
        assert_eq!(
            parse_delays("10ms, 2s").unwrap(),
            vec![Duration::from_millis(10), Duration::from_secs(2)]
        );
        assert!(parse_delays("5").is_err());
        assert!(parse_delays("5d").is_err());
        assert!(parse_delays("m").is_err());
    }
}
