//! The backup schedule's settings: `backup_dir`, `backup_interval`, `backup_keep`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};

use super::durations::parse_duration;

/// Scheduled backups (`backup_dir`, `backup_interval`, `backup_keep`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSchedule {
    pub dir: PathBuf,
    pub interval: Duration,
    /// How many scheduled backups to keep; older ones are removed.
    pub keep: usize,
}

/// Defaults: every 6 hours, keeping 7, once `backup_dir` is set.
pub(super) fn backup_schedule(
    dir: Option<PathBuf>,
    interval: Option<String>,
    keep: Option<usize>,
) -> anyhow::Result<Option<BackupSchedule>> {
    let Some(dir) = dir else {
        if interval.is_some() || keep.is_some() {
            bail!("backup_interval and backup_keep need backup_dir");
        }
        return Ok(None);
    };
    let text = interval.unwrap_or_else(|| "6h".into());
    let interval =
        parse_duration(text.trim()).with_context(|| format!("invalid backup_interval {text:?}"))?;
    if interval.is_zero() {
        bail!("backup_interval must be above zero");
    }
    let keep = keep.unwrap_or(7);
    if keep == 0 {
        bail!("backup_keep must be at least 1");
    }
    Ok(Some(BackupSchedule {
        dir,
        interval,
        keep,
    }))
}
