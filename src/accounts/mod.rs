//! Accounts of people (separate from API clients): users with Argon2id password hashes
//! and roles, their login sessions, and the login throttle. No HTTP here: `src/http`
//! turns these answers into forms, cookies and status codes.

pub mod password;
pub mod sessions;
pub mod throttle;
pub mod users;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use storage::Store;
use tokio::sync::Semaphore;

pub use sessions::{Refused, Session, Sessions};
pub use users::{NewPassword, UserSummary};

use crate::config::AccountSettings;
use throttle::Throttle;

/// Why a login did not start a session.
#[derive(Debug)]
pub enum LoginError {
    /// Too many failures for the name or the address: try again after this long.
    Throttled(Duration),
    /// Unknown name or wrong password (the two are not told apart).
    Wrong,
    Failed(anyhow::Error),
}

/// Users, sessions and the login throttle over one store; cheap to clone.
#[derive(Clone)]
pub struct AccountService {
    store: Store,
    sessions: Arc<Sessions>,
    throttle: Arc<Throttle>,
    /// Password checks running at once (each holds 19 MiB and a core for tens of ms).
    verify_slots: Arc<Semaphore>,
}

fn now_unix() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl AccountService {
    /// Loads the stored sessions (dropping expired ones).
    pub fn load(store: Store, settings: &AccountSettings) -> anyhow::Result<AccountService> {
        let sessions = Sessions::load(
            store.clone(),
            settings.session_idle_timeout,
            settings.session_touch_interval,
            now_unix(),
        )?;
        // The decoy hash is made once, off the first login of an unknown name (which
        // would otherwise take two hashes' time and so tell that the name is unknown).
        std::thread::spawn(password::decoy);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok(AccountService {
            store,
            sessions: Arc::new(sessions),
            throttle: Arc::new(Throttle::new(settings.login.clone())),
            verify_slots: Arc::new(Semaphore::new(cores)),
        })
    }

    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// Checks a name and password and starts a session: the session id (for the cookie
    /// only) and the session. The caller waits for durability before handing it out.
    pub async fn login(
        &self,
        name: &str,
        password: &str,
        addr: IpAddr,
        now: i64,
    ) -> Result<(String, Arc<Session>), LoginError> {
        self.throttle
            .check(name, addr, Instant::now())
            .map_err(LoginError::Throttled)?;
        let user = if users::validate_name(name).is_ok() {
            users::get(&self.store, name).map_err(LoginError::Failed)?
        } else {
            None
        };
        let hash = user.as_ref().map_or_else(
            || password::decoy().to_string(),
            |u| u.password_hash.clone(),
        );
        let plain = password.to_string();
        let matched = {
            let _slot = self
                .verify_slots
                .acquire()
                .await
                .map_err(|e| LoginError::Failed(e.into()))?;
            tokio::task::spawn_blocking(move || {
                plain.chars().count() <= password::MAX_LEN && password::verify(&hash, &plain)
            })
            .await
            .map_err(|e| LoginError::Failed(e.into()))?
        };
        let user = match user {
            Some(user) if matched => user,
            other => {
                let known = other.is_some().then_some(name);
                self.throttle.failed(known, addr, Instant::now());
                return Err(LoginError::Wrong);
            }
        };
        self.throttle.succeeded(name);
        self.sessions
            .start(&user.name, user.role, now)
            .map_err(LoginError::Failed)
    }

    pub fn create_user(
        &self,
        name: &str,
        role: &str,
        password: Option<String>,
    ) -> anyhow::Result<NewPassword> {
        users::create(&self.store, name, users::parse_role(role)?, password)
    }

    pub fn list_users(&self) -> anyhow::Result<Vec<UserSummary>> {
        users::list(&self.store)
    }

    /// Deletes a user and ends their sessions at once. False if unknown.
    pub fn delete_user(&self, name: &str) -> anyhow::Result<bool> {
        users::delete(&self.store, &self.sessions, name)
    }

    pub fn set_password(
        &self,
        name: &str,
        password: Option<String>,
    ) -> anyhow::Result<NewPassword> {
        users::set_password(&self.store, &self.sessions, name, password)
    }

    /// See [`users::ensure_bootstrap`].
    pub fn ensure_bootstrap(&self, data_dir: &Path) -> anyhow::Result<Option<PathBuf>> {
        users::ensure_bootstrap(&self.store, data_dir)
    }
}
