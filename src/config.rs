//! Settings: a TOML file and command-line flags, validated once into a [`Config`] that
//! is passed down. The only place defaults live.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use serde::Deserialize;
use storage::Tier;

mod accounts;
mod backups;
mod durations;
mod observe;

pub use accounts::{AccountKeys, AccountSettings, LoginThrottle};
use backups::backup_schedule;
pub use backups::BackupSchedule;
pub use durations::parse_delays;
pub use observe::{LogFormat, MetricsAccess};

/// How the listeners speak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsMode {
    /// A self-signed certificate generated on first start and kept in the data dir.
    SelfSigned,
    /// Certificate chain and private key given as PEM files.
    Files { cert: PathBuf, key: PathBuf },
    /// No TLS, for use behind a reverse proxy; must be asked for explicitly.
    Plain,
}

/// Units of dimensions and weights in the catalog and packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    /// Inches and pounds.
    InLb,
    /// Centimetres and kilograms.
    CmKg,
}

/// Requests per minute and bucket size of one tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierLimit {
    pub rpm: u32,
    pub burst: u32,
}

/// Sizes and timeouts that protect the appliance from clients.
#[derive(Debug, Clone)]
pub struct Limits {
    pub body_max_bytes: usize,
    pub header_read_timeout: Duration,
    pub request_timeout: Duration,
    pub tls_handshake_timeout: Duration,
    pub max_connections: usize,
    /// How long shutdown waits for in-flight requests before closing connections.
    pub shutdown_grace: Duration,
}

/// The validated configuration of `fulfilld serve`.
#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    pub listen: SocketAddr,
    pub packing_listen: SocketAddr,
    pub tls: TlsMode,
    pub webhook_ca: Vec<PathBuf>,
    pub webhook_retry_delays: Vec<Duration>,
    /// How long one delivery attempt may take (default 30 s).
    pub webhook_timeout: Duration,
    /// How long delivered and failed deliveries are kept (default 30 days).
    pub webhook_retention: Duration,
    pub units: Units,
    pub cache_capacity_bytes: u64,
    pub limits: Limits,
    pub tiers: HashMap<Tier, TierLimit>,
    pub token_ttl: Duration,
    pub idempotency_ttl: Duration,
    /// Most orders one bulk import may hold (more: 413).
    pub bulk_max_orders: usize,
    /// Threads that run packing.
    pub packing_workers: usize,
    /// Packing requests that may wait for a thread; beyond it: 503 with Retry-After.
    pub packing_queue: usize,
    /// Pack every new order in the background (default true). Off, orders stay pending
    /// until `POST /api/orders/{id}/pack`.
    pub auto_pack: bool,
    /// Who may scrape `/metrics`.
    pub metrics: MetricsAccess,
    /// `text` (default) or `json` log lines.
    pub log_format: LogFormat,
    /// Scheduled backups; `None` unless `backup_dir` is set.
    pub backups: Option<BackupSchedule>,
    /// Bytes that must stay free on the data directory's file system for write requests
    /// to be accepted (507 below it); 0 turns the reserve off.
    pub min_free_space: u64,
    /// Console sessions and the login throttle.
    pub accounts: AccountSettings,
}

/// Every setting as it may appear in the TOML file; all optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub data_dir: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
    pub packing_listen: Option<SocketAddr>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub plain_http: Option<bool>,
    pub webhook_ca: Option<Vec<PathBuf>>,
    pub webhook_retry_delays: Option<String>,
    pub webhook_timeout_secs: Option<u64>,
    pub webhook_retention_days: Option<u64>,
    /// `in` (inches and pounds) or `cm` (centimetres and kilograms).
    pub units: Option<String>,
    pub cache_mb: Option<u64>,
    pub body_max_bytes: Option<usize>,
    pub header_read_timeout_secs: Option<u64>,
    pub request_timeout_secs: Option<u64>,
    pub max_connections: Option<usize>,
    pub shutdown_grace_secs: Option<u64>,
    pub token_ttl_secs: Option<u64>,
    pub bulk_max_orders: Option<usize>,
    pub packing_workers: Option<usize>,
    pub packing_queue: Option<usize>,
    pub auto_pack: Option<bool>,
    pub rate_limits: Option<HashMap<String, TierLimit>>,
    /// Networks allowed to scrape `/metrics` (default: loopback), e.g. `["10.0.0.0/8"]`.
    pub metrics_allow: Option<Vec<ipnet::IpNet>>,
    /// A bearer token `/metrics` then requires.
    pub metrics_token: Option<String>,
    /// `text` or `json`.
    pub log_format: Option<String>,
    pub backup_dir: Option<PathBuf>,
    /// e.g. `6h` (units ms, s, m, h).
    pub backup_interval: Option<String>,
    pub backup_keep: Option<usize>,
    /// Free space (MiB) below which writes are refused with 507; 0 turns it off.
    pub min_free_space_mb: Option<u64>,
    /// e.g. `12h` (units ms, s, m, h).
    pub session_idle_timeout: Option<String>,
    pub login_max_failures: Option<u32>,
    pub login_max_failures_per_address: Option<u32>,
    pub login_lockout_secs: Option<u64>,
    pub login_lockout_max_secs: Option<u64>,
}

/// Flags of `fulfilld serve` that override the file.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub data_dir: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
    pub packing_listen: Option<SocketAddr>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub plain_http: bool,
    pub webhook_ca: Vec<PathBuf>,
    pub webhook_retry_delays: Option<String>,
}

pub const DEFAULT_DATA_DIR: &str = "./data";
pub const DEFAULT_RETRY_DELAYS: &str = "1m,5m,30m,2h";

/// The document's four tiers plus `unlimited` (never limited; reports these numbers).
pub fn default_tiers() -> HashMap<Tier, TierLimit> {
    HashMap::from([
        (
            Tier::Starter,
            TierLimit {
                rpm: 60,
                burst: 100,
            },
        ),
        (
            Tier::Growth,
            TierLimit {
                rpm: 100,
                burst: 200,
            },
        ),
        (
            Tier::Pro,
            TierLimit {
                rpm: 200,
                burst: 400,
            },
        ),
        (
            Tier::Enterprise,
            TierLimit {
                rpm: 500,
                burst: 1000,
            },
        ),
        (
            Tier::Unlimited,
            TierLimit {
                rpm: 100_000,
                burst: 100_000,
            },
        ),
    ])
}

impl Config {
    /// Reads the optional file, applies the flags and validates the result.
    pub fn load(file: Option<&Path>, flags: Overrides) -> anyhow::Result<Config> {
        let parsed = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading config file {}", path.display()))?;
                toml::from_str::<FileConfig>(&text)
                    .with_context(|| format!("parsing config file {}", path.display()))?
            }
            None => FileConfig::default(),
        };
        Config::build(parsed, flags)
    }

    pub fn build(file: FileConfig, flags: Overrides) -> anyhow::Result<Config> {
        let tls_cert = flags.tls_cert.or(file.tls_cert);
        let tls_key = flags.tls_key.or(file.tls_key);
        let plain = flags.plain_http || file.plain_http.unwrap_or(false);
        let tls = match (tls_cert, tls_key, plain) {
            (Some(_), _, true) | (_, Some(_), true) => {
                bail!("--plain-http cannot be combined with --tls-cert/--tls-key")
            }
            (Some(cert), Some(key), false) => TlsMode::Files { cert, key },
            (Some(_), None, _) | (None, Some(_), _) => {
                bail!("--tls-cert and --tls-key must be given together")
            }
            (None, None, true) => TlsMode::Plain,
            (None, None, false) => TlsMode::SelfSigned,
        };
        let delays_text = flags
            .webhook_retry_delays
            .or(file.webhook_retry_delays)
            .unwrap_or_else(|| DEFAULT_RETRY_DELAYS.to_string());
        let webhook_retry_delays = parse_delays(&delays_text)
            .with_context(|| format!("invalid webhook retry delays {delays_text:?}"))?;
        let units = match file.units.as_deref().unwrap_or("in") {
            "in" => Units::InLb,
            "cm" => Units::CmKg,
            other => bail!("units must be \"in\" or \"cm\", not {other:?}"),
        };
        let mut tiers = default_tiers();
        for (name, limit) in file.rate_limits.unwrap_or_default() {
            let tier =
                Tier::parse(&name).with_context(|| format!("unknown rate-limit tier {name:?}"))?;
            if limit.rpm == 0 || limit.burst == 0 {
                bail!("rate limit of tier {name} needs rpm and burst above zero");
            }
            tiers.insert(tier, limit);
        }
        let mut webhook_ca = file.webhook_ca.unwrap_or_default();
        webhook_ca.extend(flags.webhook_ca);
        let body_max_bytes = file.body_max_bytes.unwrap_or(10 * 1024 * 1024);
        if body_max_bytes < 1024 {
            bail!("body_max_bytes must be at least 1024");
        }
        let listen = flags
            .listen
            .or(file.listen)
            .unwrap_or_else(|| "127.0.0.1:8443".parse().expect("literal address"));
        let packing_listen = flags
            .packing_listen
            .or(file.packing_listen)
            .unwrap_or_else(|| "127.0.0.1:8444".parse().expect("literal address"));
        if listen == packing_listen && listen.port() != 0 {
            bail!("the fulfillment and packing listeners need different addresses");
        }
        let backups = backup_schedule(file.backup_dir, file.backup_interval, file.backup_keep)?;
        let accounts = AccountSettings::build(AccountKeys {
            session_idle_timeout: file.session_idle_timeout,
            login_max_failures: file.login_max_failures,
            login_max_failures_per_address: file.login_max_failures_per_address,
            login_lockout_secs: file.login_lockout_secs,
            login_lockout_max_secs: file.login_lockout_max_secs,
        })?;
        Ok(Config {
            data_dir: flags
                .data_dir
                .or(file.data_dir)
                .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR)),
            listen,
            packing_listen,
            tls,
            webhook_ca,
            webhook_retry_delays,
            webhook_timeout: secs(file.webhook_timeout_secs.filter(|s| *s > 0), 30),
            webhook_retention: Duration::from_secs(
                file.webhook_retention_days.unwrap_or(30).max(1) * 86_400,
            ),
            units,
            cache_capacity_bytes: file.cache_mb.unwrap_or(16) * 1024 * 1024,
            limits: Limits {
                body_max_bytes,
                header_read_timeout: secs(file.header_read_timeout_secs, 10),
                request_timeout: secs(file.request_timeout_secs, 30),
                tls_handshake_timeout: Duration::from_secs(10),
                max_connections: file.max_connections.unwrap_or(4096),
                shutdown_grace: secs(file.shutdown_grace_secs, 30),
            },
            tiers,
            token_ttl: secs(file.token_ttl_secs, 3600),
            idempotency_ttl: Duration::from_secs(24 * 3600),
            bulk_max_orders: file.bulk_max_orders.unwrap_or(10_000),
            packing_workers: file
                .packing_workers
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
                .max(1),
            packing_queue: file.packing_queue.unwrap_or(64).max(1),
            auto_pack: file.auto_pack.unwrap_or(true),
            metrics: MetricsAccess {
                allow: file.metrics_allow.unwrap_or_else(|| {
                    vec![
                        "127.0.0.0/8".parse().expect("literal network"),
                        "::1/128".parse().expect("literal network"),
                    ]
                }),
                token: match file.metrics_token {
                    Some(t) if t.len() < 16 => bail!("metrics_token needs at least 16 characters"),
                    t => t,
                },
            },
            log_format: match file.log_format.as_deref().unwrap_or("text") {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                other => bail!("log_format must be \"text\" or \"json\", not {other:?}"),
            },
            backups,
            min_free_space: file.min_free_space_mb.unwrap_or(256) << 20,
            accounts,
        })
    }
}

fn secs(v: Option<u64>, default: u64) -> Duration {
    Duration::from_secs(v.unwrap_or(default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_override_file_and_tls_modes_are_exclusive() {
        let file: FileConfig = toml::from_str(
            "listen = \"127.0.0.1:9000\"\nunits = \"cm\"\n[rate_limits.starter]\nrpm = 5\nburst = 7\n",
        )
        .unwrap();
        let cfg = Config::build(
            file,
            Overrides {
                listen: Some("127.0.0.1:9100".parse().unwrap()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(cfg.listen.port(), 9100);
        assert_eq!(cfg.units, Units::CmKg);
        assert_eq!(cfg.tiers[&Tier::Starter], TierLimit { rpm: 5, burst: 7 });
        assert_eq!(cfg.tls, TlsMode::SelfSigned);
        let both = Overrides {
            plain_http: true,
            tls_cert: Some("c.pem".into()),
            tls_key: Some("k.pem".into()),
            ..Default::default()
        };
        assert!(Config::build(FileConfig::default(), both).is_err());
        assert!(toml::from_str::<FileConfig>("bogus = 1").is_err());
    }

    #[test]
    fn the_example_config_file_parses_with_every_key_uncommented() {
        let example = include_str!("../systemd/fulfilld.toml");
        let uncommented: String = example
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| l.starts_with('[') || l.split_whitespace().nth(1) == Some("="))
            .map(|l| {
                let l = l.split(" # ").next().unwrap_or(l).trim_end();
                format!("{l}\n")
            })
            .collect();
        let parsed: FileConfig = toml::from_str(&uncommented).expect("example parses");
        assert_eq!(parsed.listen, Some("127.0.0.1:8443".parse().unwrap()));
        assert_eq!(parsed.rate_limits.as_ref().map(|r| r.len()), Some(5));
        let cfg = Config::build(parsed, Overrides::default());
        // The example names TLS files and plain_http = false: a valid combination.
        assert!(cfg.is_ok(), "{cfg:?}");
        assert_eq!(
            cfg.unwrap().tiers,
            default_tiers(),
            "documented defaults are the defaults"
        );
    }
}
