//! Console users: creation with a chosen or generated password, listing, deletion and
//! new passwords (both end the user's sessions), and the bootstrap admin written beside
//! the bootstrap client's credentials on first start.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use storage::tables::{Meta, Users};
use storage::{Role, Store, UserRecord};

use super::password;
use super::sessions::Sessions;
use crate::clients::BOOTSTRAP_FILE;
use crate::fsutil::write_private;

const BOOTSTRAPPED_KEY: &str = "bootstrapped_admin";
/// The bootstrap admin's name, and its key in the bootstrap credentials file.
pub const BOOTSTRAP_ADMIN: &str = "admin";
pub const BOOTSTRAP_FIELD: &str = "admin_user";

/// What `users create` and `users set-password` print: the password only when the
/// appliance generated it (shown this once, never stored in the clear).
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct NewPassword {
    pub username: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// A user as `users list` shows it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct UserSummary {
    pub username: String,
    pub role: String,
    pub created_at: i64,
}

fn now_unix() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

pub fn parse_role(role: &str) -> anyhow::Result<Role> {
    Role::parse(role).with_context(|| format!("unknown role {role:?} (admin, operator or packer)"))
}

pub fn validate_name(name: &str) -> anyhow::Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'));
    anyhow::ensure!(
        ok,
        "a user name needs 1 to 64 letters, digits, '.', '_', '-' or '@'"
    );
    Ok(())
}

/// The password to store: the chosen one (checked) or a generated one (returned).
fn chosen_or_generated(chosen: Option<String>) -> anyhow::Result<(String, Option<String>)> {
    match chosen {
        Some(p) => {
            password::check_rule(&p)?;
            Ok((p, None))
        }
        None => {
            let p = password::generate();
            Ok((p.clone(), Some(p)))
        }
    }
}

pub fn create(
    store: &Store,
    name: &str,
    role: Role,
    chosen: Option<String>,
) -> anyhow::Result<NewPassword> {
    validate_name(name)?;
    let (plain, shown) = chosen_or_generated(chosen)?;
    let rec = UserRecord {
        name: name.to_string(),
        role,
        password_hash: password::hash(&plain)?,
        created_at_unix: now_unix(),
    };
    insert(store, &rec, None)?;
    Ok(NewPassword {
        username: rec.name,
        role: role.as_str().to_string(),
        password: shown,
    })
}

/// Stores a new user (refusing an existing name), and a `Meta` mark with it if given.
fn insert(store: &Store, rec: &UserRecord, mark: Option<&str>) -> anyhow::Result<()> {
    store
        .transact(|tx| {
            if tx.contains::<Users>(&rec.name)? {
                return storage::abort(format!("a user named {:?} exists", rec.name));
            }
            tx.insert::<Users>(&rec.name, rec)?;
            if let Some(key) = mark {
                tx.insert::<Meta>(&key.to_string(), &1)?;
            }
            Ok(())
        })
        .map_err(|e| match e {
            storage::TxError::Aborted(msg) => anyhow::anyhow!(msg),
            storage::TxError::Storage(e) => anyhow::anyhow!("storing a user: {e}"),
        })?;
    store.durable_blocking().context("flushing the user")
}

pub fn get(store: &Store, name: &str) -> anyhow::Result<Option<UserRecord>> {
    Ok(store.get::<Users>(&name.to_string())?)
}

pub fn list(store: &Store) -> anyhow::Result<Vec<UserSummary>> {
    store
        .iter::<Users>()
        .map(|row| {
            let (_, u) = row?;
            Ok(UserSummary {
                username: u.name,
                role: u.role.as_str().to_string(),
                created_at: u.created_at_unix,
            })
        })
        .collect::<Result<_, storage::Error>>()
        .context("listing users")
}

/// Deletes a user and ends their sessions. False if there was no such user.
pub fn delete(store: &Store, sessions: &Sessions, name: &str) -> anyhow::Result<bool> {
    let existed = store
        .transact(|tx| {
            let found = tx.contains::<Users>(&name.to_string())?;
            tx.remove::<Users>(&name.to_string())?;
            Ok::<_, storage::Abort<()>>(found)
        })
        .map_err(|e| anyhow::anyhow!("deleting a user: {e:?}"))?;
    sessions.end_user(name)?;
    Ok(existed)
}

/// Gives a user a new password (chosen, or generated and returned) and ends their
/// sessions, so whoever knew the old one is logged out everywhere.
pub fn set_password(
    store: &Store,
    sessions: &Sessions,
    name: &str,
    chosen: Option<String>,
) -> anyhow::Result<NewPassword> {
    let (plain, shown) = chosen_or_generated(chosen)?;
    let hash = password::hash(&plain)?;
    let role = store
        .transact(|tx| {
            let Some(mut rec) = tx.get::<Users>(&name.to_string())? else {
                return storage::abort(());
            };
            rec.password_hash = hash.clone();
            tx.insert::<Users>(&rec.name, &rec)?;
            Ok(rec.role)
        })
        .map_err(|e| match e {
            storage::TxError::Aborted(()) => anyhow::anyhow!("no user named {name:?}"),
            storage::TxError::Storage(e) => anyhow::anyhow!("storing a password: {e}"),
        })?;
    sessions.end_user(name)?;
    Ok(NewPassword {
        username: name.to_string(),
        role: role.as_str().to_string(),
        password: shown,
    })
}

/// On the first start with accounts, creates the `admin` user with a generated password
/// and adds it to the bootstrap credentials file (mode 0600), keeping what the file
/// holds. Returns the file's path if so.
pub fn ensure_bootstrap(store: &Store, data_dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    let mark = BOOTSTRAPPED_KEY.to_string();
    if store.get::<Meta>(&mark)?.is_some() || get(store, BOOTSTRAP_ADMIN)?.is_some() {
        return Ok(None);
    }
    let plain = password::generate();
    let path = data_dir.join(BOOTSTRAP_FILE);
    let mut file = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .with_context(|| format!("reading {}", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let object = file
        .as_object_mut()
        .with_context(|| format!("{} is not a JSON object", path.display()))?;
    object.insert(
        BOOTSTRAP_FIELD.into(),
        serde_json::json!({ "username": BOOTSTRAP_ADMIN, "password": plain, "role": "admin" }),
    );
    // The file first: a crash before the commit only means a new password next start.
    write_private(&path, &serde_json::to_vec_pretty(&file)?)?;
    let rec = UserRecord {
        name: BOOTSTRAP_ADMIN.to_string(),
        role: Role::Admin,
        password_hash: password::hash(&plain)?,
        created_at_unix: now_unix(),
    };
    insert(store, &rec, Some(BOOTSTRAPPED_KEY))?;
    Ok(Some(path))
}
