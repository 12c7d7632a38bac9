//! Settings of what the appliance shows about itself: who may scrape `/metrics`, and the
//! format of its log lines.

/// Who may scrape `/metrics`: a peer address inside one of `allow` (loopback by default),
/// and, when `token` is set, only with `Authorization: Bearer <token>`.
#[derive(Debug, Clone)]
pub struct MetricsAccess {
    pub allow: Vec<ipnet::IpNet>,
    pub token: Option<String>,
}

impl MetricsAccess {
    pub fn allows(&self, peer: std::net::IpAddr, authorization: Option<&str>) -> bool {
        let peer = peer.to_canonical();
        self.allow.iter().any(|net| net.contains(&peer))
            && self.token.as_deref().is_none_or(|t| {
                authorization
                    .and_then(|h| h.strip_prefix("Bearer "))
                    .is_some_and(|given| {
                        subtle::ConstantTimeEq::ct_eq(given.as_bytes(), t.as_bytes()).into()
                    })
            })
    }
}

/// The format of log lines on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    /// One JSON object per line (journald, Loki).
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_for_loopback_unless_allowed_and_need_the_token_when_set() {
        let cfg = crate::config::Config::build(
            crate::config::FileConfig::default(),
            crate::config::Overrides::default(),
        )
        .unwrap();
        let local: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        let lan: std::net::IpAddr = "10.1.2.3".parse().unwrap();
        assert!(cfg.metrics.allows(local, None));
        assert!(cfg
            .metrics
            .allows("::ffff:127.0.0.1".parse().unwrap(), None));
        assert!(!cfg.metrics.allows(lan, None));
        let file: crate::config::FileConfig = toml::from_str(
            "metrics_allow = [\"10.0.0.0/8\"]\nmetrics_token = \"0123456789abcdef\"\nlog_format = \"json\"\n",
        )
        .unwrap();
        let cfg = crate::config::Config::build(file, crate::config::Overrides::default()).unwrap();
        assert!(!cfg.metrics.allows(lan, None));
        assert!(!cfg.metrics.allows(lan, Some("Bearer wrong")));
        assert!(cfg.metrics.allows(lan, Some("Bearer 0123456789abcdef")));
        assert!(!cfg.metrics.allows(local, Some("Bearer 0123456789abcdef")));
        assert_eq!(cfg.log_format, LogFormat::Json);
        let short: crate::config::FileConfig =
            toml::from_str("metrics_token = \"short\"\n").unwrap();
        assert!(crate::config::Config::build(short, crate::config::Overrides::default()).is_err());
    }
}
