//! Scheduled backups: every `backup_interval` a backup into `backup_dir`, keeping the
//! newest `backup_keep`. A failure is logged and counted in [`Status`] and never stops
//! the service; the next interval tries again.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use storage::Store;
use time::format_description::well_known::Rfc3339;
use tokio::sync::watch;

use super::archive;

use crate::config::BackupSchedule;
use crate::shutdown::Shutdown;

/// Outcomes of scheduled backups, for logs and metrics.
#[derive(Debug)]
pub struct Status {
    pub succeeded: AtomicU64,
    pub failed: AtomicU64,
    /// Unix seconds of the last successful backup: found at start (see [`newest_complete`]),
    /// or scheduled or online since; 0 if none.
    pub last_success_unix: AtomicI64,
    /// Unix seconds of the last failed backup, scheduled or online; 0 before the first.
    pub last_failure_unix: AtomicI64,
    pub last_error: Mutex<Option<String>>,
    /// Attempts finished so far; tests await it instead of sleeping.
    attempts: watch::Sender<u64>,
}

impl Default for Status {
    fn default() -> Self {
        Status {
            succeeded: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            last_success_unix: AtomicI64::new(0),
            last_failure_unix: AtomicI64::new(0),
            last_error: Mutex::new(None),
            attempts: watch::channel(0).0,
        }
    }
}

impl Status {
    /// Records a backup that was written completely now: scheduled ones, and online ones
    /// taken through the admin socket, so the "backup too old" alert sees either kind.
    pub fn written_now(&self) {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        self.last_success_unix.store(now, Ordering::Relaxed);
    }

    /// Records a backup that failed now (the reason goes to the log and `last_error`).
    pub fn failed_now(&self, reason: String) {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        self.last_failure_unix.store(now, Ordering::Relaxed);
        *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(reason);
    }

    /// The status at start: the newest complete scheduled backup in `plan`'s directory
    /// counts as the last success, so monitors and the dashboard see it across restarts.
    pub fn at_start(plan: Option<&BackupSchedule>) -> Status {
        let status = Status::default();
        if let Some((path, secs)) = plan.and_then(|p| newest_complete(&p.dir)) {
            tracing::info!(path = %path.display(), "last backup found at start");
            status.last_success_unix.store(secs, Ordering::Relaxed);
        }
        status
    }

    /// A receiver of the number of attempts finished.
    pub fn attempts(&self) -> watch::Receiver<u64> {
        self.attempts.subscribe()
    }
}

const PREFIX: &str = "fulfilld-";
const SUFFIX: &str = ".backup";

/// A name that sorts by time: `fulfilld-20261125T060000.123456Z.backup`.
fn file_name() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{PREFIX}{:04}{:02}{:02}T{:02}{:02}{:02}.{:06}Z{SUFFIX}",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.microsecond()
    )
}

/// The scheduled backups in `dir`, oldest first.
pub fn listed(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(PREFIX) && name.ends_with(SUFFIX)
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    Ok(found)
}

/// The scheduled backup in `dir` taken last, with its time in unix seconds: among files
/// named like scheduled backups (temporary names never are), only those that look complete
/// ([`archive::peek`]), ranked by the time their header records rather than by name, so a
/// copied or renamed file cannot pass for newer than it is. The file's mtime stands in
/// only when the header's time does not parse. Damaged files are logged and skipped.
pub fn newest_complete(dir: &Path) -> Option<(PathBuf, i64)> {
    let files = listed(dir).ok()?;
    let mut newest: Option<(PathBuf, i64)> = None;
    for path in files {
        let header = match archive::peek(&path) {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %format!("{e:#}"), "not a complete backup; ignored");
                continue;
            }
        };
        let parsed = time::OffsetDateTime::parse(&header.created_at, &Rfc3339)
            .map(|t| t.unix_timestamp())
            .ok();
        let Some(secs) = parsed.or_else(|| modified_unix(&path)) else {
            continue;
        };
        if newest.as_ref().is_none_or(|(_, best)| secs > *best) {
            newest = Some((path, secs));
        }
    }
    newest
}

fn modified_unix(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_secs()).ok()
}

/// One scheduled backup, then the oldest beyond `keep` removed.
fn take(store: &Store, data_dir: &Path, plan: &BackupSchedule) -> anyhow::Result<PathBuf> {
    crate::fsutil::create_data_dir(&plan.dir)?;
    let report = super::backup::write(store, data_dir, &plan.dir.join(file_name()))?;
    let all = listed(&plan.dir)?;
    for old in &all[..all.len().saturating_sub(plan.keep)] {
        std::fs::remove_file(old).with_context(|| format!("removing {}", old.display()))?;
    }
    Ok(report.path)
}

/// Takes a backup every `plan.interval` (the first one interval after start) until
/// shutdown. Uses tokio's clock, so tests with paused time run hours in an instant.
pub async fn run(
    store: Store,
    data_dir: PathBuf,
    plan: BackupSchedule,
    status: Arc<Status>,
    mut shutdown: Shutdown,
) {
    let start = tokio::time::Instant::now() + plan.interval;
    let mut ticker = tokio::time::interval_at(start, plan.interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = ticker.tick() => {}
        }
        let (s, d, p) = (store.clone(), data_dir.clone(), plan.clone());
        let outcome = tokio::task::spawn_blocking(move || take(&s, &d, &p))
            .await
            .unwrap_or_else(|e| Err(anyhow::anyhow!("the backup task failed: {e}")));
        match outcome {
            Ok(path) => {
                status.succeeded.fetch_add(1, Ordering::Relaxed);
                status.written_now();
                tracing::info!(path = %path.display(), "scheduled backup written");
            }
            Err(e) => {
                status.failed.fetch_add(1, Ordering::Relaxed);
                let text = format!("{e:#}");
                tracing::error!(error = %text, dir = %plan.dir.display(), "scheduled backup failed");
                status.failed_now(text);
            }
        }
        status.attempts.send_modify(|n| *n += 1);
    }
}
