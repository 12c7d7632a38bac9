//! Operations on a whole data directory: backups (online through the admin socket while
//! a server runs, or directly), restores into a new directory, the offline integrity
//! check, and scheduled backups. The subcommands' arguments live here too.

pub mod archive;
pub mod backup;
pub mod check;
mod check_orders;
mod report;
pub mod restore;
pub mod schedule;

use std::path::{Path, PathBuf};

use anyhow::Context;
use argh::FromArgs;
use storage::{Store, StoreConfig};

use crate::admin::{self, Request};
use crate::config::DEFAULT_DATA_DIR;

/// Write a consistent backup of the data directory to one file (mode 0600; it holds the
/// token signing and TLS keys). Works while the server runs.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "backup")]
pub struct BackupArgs {
    /// the backup file to write (replaced atomically when complete)
    #[argh(option)]
    pub out: PathBuf,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// Restore a backup into a new or empty data directory (the server must not use it).
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "restore")]
pub struct RestoreArgs {
    /// the backup file
    #[argh(option)]
    pub from: PathBuf,
    /// the data directory to create
    #[argh(option)]
    pub data_dir: PathBuf,
}

/// Check a stopped server's database for inconsistencies; exits 1 if any.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "check")]
pub struct CheckArgs {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

fn data_dir(given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR))
}

/// Opens an existing database directly (no server may hold it).
fn open_existing(dir: &Path) -> anyhow::Result<Store> {
    anyhow::ensure!(
        dir.join("db").is_dir(),
        "{} holds no fulfilld database",
        dir.display()
    );
    Store::open(&dir.join("db"), &StoreConfig::default()).with_context(|| {
        format!(
            "opening {} (a running server holds it; stop it first)",
            dir.display()
        )
    })
}

/// `fulfilld backup`: through the running server's admin socket, or directly.
pub fn backup_command(args: BackupArgs) -> anyhow::Result<serde_json::Value> {
    let dir = data_dir(args.data_dir);
    let out = std::path::absolute(&args.out)
        .with_context(|| format!("resolving {}", args.out.display()))?;
    if let Some(reply) = admin::call(&dir, &Request::Backup { out: out.clone() })? {
        return match reply.error {
            None if reply.ok => Ok(reply.result),
            err => Err(anyhow::anyhow!(
                err.unwrap_or_else(|| "the server refused".into())
            )),
        };
    }
    let store = open_existing(&dir)?;
    Ok(serde_json::to_value(backup::write(&store, &dir, &out)?)?)
}

/// `fulfilld restore`.
pub fn restore_command(args: RestoreArgs) -> anyhow::Result<serde_json::Value> {
    Ok(serde_json::to_value(restore::restore(
        &args.from,
        &args.data_dir,
    )?)?)
}

/// `fulfilld check`: the report, and whether it found nothing wrong.
pub fn check_command(args: CheckArgs) -> anyhow::Result<(serde_json::Value, bool)> {
    let dir = data_dir(args.data_dir);
    let store = open_existing(&dir)?;
    let report = check::run(&store);
    Ok((serde_json::to_value(&report)?, report.ok))
}
