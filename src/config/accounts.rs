//! Settings of console accounts: how long an idle session lives and how repeated failed
//! logins are slowed. Defaults live here.

use std::time::Duration;

use anyhow::{bail, Context};

use super::durations::parse_duration;

/// Console sessions and the login throttle.
#[derive(Debug, Clone)]
pub struct AccountSettings {
    /// A session unused this long is over (default 12 h).
    pub session_idle_timeout: Duration,
    /// How often a session's last use is written to storage (default 60 s): a restart
    /// may end a session up to this much early, and requests do not each cost a write.
    pub session_touch_interval: Duration,
    pub login: LoginThrottle,
}

/// Repeated failed logins: after `per_user` failures for one user name (or
/// `per_address` from one address), further attempts wait `lockout`, doubling with each
/// further failure up to `lockout_max`. Failures are forgotten `lockout_max` after the
/// last one, and a user's on a successful login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginThrottle {
    pub per_user: u32,
    pub per_address: u32,
    pub lockout: Duration,
    pub lockout_max: Duration,
}

/// The file's keys for these settings (see `FileConfig`).
pub struct AccountKeys {
    pub session_idle_timeout: Option<String>,
    pub login_max_failures: Option<u32>,
    pub login_max_failures_per_address: Option<u32>,
    pub login_lockout_secs: Option<u64>,
    pub login_lockout_max_secs: Option<u64>,
}

impl AccountSettings {
    pub fn build(keys: AccountKeys) -> anyhow::Result<AccountSettings> {
        let idle = keys.session_idle_timeout.as_deref().unwrap_or("12h");
        let session_idle_timeout = parse_duration(idle)
            .with_context(|| format!("invalid session_idle_timeout {idle:?}"))?;
        if session_idle_timeout.is_zero() {
            bail!("session_idle_timeout must be above zero");
        }
        let login = LoginThrottle {
            per_user: keys.login_max_failures.unwrap_or(5),
            per_address: keys.login_max_failures_per_address.unwrap_or(20),
            lockout: Duration::from_secs(keys.login_lockout_secs.unwrap_or(30)),
            lockout_max: Duration::from_secs(keys.login_lockout_max_secs.unwrap_or(900)),
        };
        if login.per_user == 0 || login.per_address == 0 {
            bail!("login_max_failures and login_max_failures_per_address must be above zero");
        }
        if login.lockout.is_zero() || login.lockout_max < login.lockout {
            bail!("login_lockout_secs must be above zero and at most login_lockout_max_secs");
        }
        Ok(AccountSettings {
            session_idle_timeout,
            session_touch_interval: Duration::from_secs(60).min(session_idle_timeout / 2),
            login,
        })
    }
}
