//! Restoring a backup into a new data directory. The whole file is read and verified
//! first (structure, entry count, checksum, format and schema versions); only then is
//! the database built, in a hidden sibling directory that is renamed into place when
//! complete, so a failed or interrupted restore leaves the target as it was.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Serialize;
use storage::{Import, SnapshotInfo};

use super::archive::{self, Item, Summary};
use super::backup::KEY_FILES;

/// What `fulfilld restore` reports.
#[derive(Serialize, Debug)]
pub struct Report {
    pub data_dir: PathBuf,
    pub entries: u64,
    pub files: Vec<String>,
    pub schema_version: u32,
    pub fulfilld_version: String,
    pub created_at: String,
    /// Whether the first start will migrate the database to this binary's schema.
    pub migrates_on_start: bool,
}

/// Reads `from` completely and checks it; writes nothing.
pub fn verify(from: &Path) -> anyhow::Result<Summary> {
    let summary = archive::read(from, &mut |item| {
        if let Item::File { name, .. } = item {
            anyhow::ensure!(
                KEY_FILES.contains(&name),
                "corrupt: the backup carries an unexpected file {name:?}"
            );
        }
        Ok(())
    })
    .with_context(|| format!("{} cannot be restored", from.display()))?;
    let found = summary.header.schema_version;
    if found > storage::SCHEMA_VERSION {
        bail!(
            "{} holds schema version {found}, newer than this fulfilld supports ({}); restore it with fulfilld {} or later",
            from.display(),
            storage::SCHEMA_VERSION,
            summary.header.fulfilld_version
        );
    }
    Ok(summary)
}

fn is_empty_dir(dir: &Path) -> anyhow::Result<bool> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(e).with_context(|| format!("reading {}", dir.display())),
    }
}

/// Restores `from` into `data_dir`, which must be empty or absent.
pub fn restore(from: &Path, data_dir: &Path) -> anyhow::Result<Report> {
    if !is_empty_dir(data_dir)? {
        bail!(
            "{} is not empty: restore only into a new or empty data directory",
            data_dir.display()
        );
    }
    let summary = verify(from)?;
    let name = data_dir
        .file_name()
        .with_context(|| format!("{} has no directory name", data_dir.display()))?;
    let staging = data_dir.with_file_name(format!(".{}.restoring", name.to_string_lossy()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .with_context(|| format!("removing an interrupted restore {}", staging.display()))?;
    }
    let built = build(from, &staging, &summary);
    if let Err(e) = built {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if data_dir.exists() {
        std::fs::remove_dir(data_dir)
            .with_context(|| format!("replacing the empty {}", data_dir.display()))?;
    }
    std::fs::rename(&staging, data_dir)
        .with_context(|| format!("moving the restored data into {}", data_dir.display()))?;
    if let Some(parent) = data_dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::File::open(parent)?.sync_all()?;
    }
    let h = summary.header;
    Ok(Report {
        data_dir: data_dir.to_path_buf(),
        entries: summary.entries,
        files: summary.files,
        migrates_on_start: h.schema_version < storage::SCHEMA_VERSION,
        schema_version: h.schema_version,
        fulfilld_version: h.fulfilld_version,
        created_at: h.created_at,
    })
}

/// Second read: the database and key files into `staging`, checked against the first.
fn build(from: &Path, staging: &Path, verified: &Summary) -> anyhow::Result<()> {
    crate::fsutil::create_data_dir(staging)?;
    let mut import = Import::create(&staging.join("db"))?;
    let mut files = Vec::new();
    let again = archive::read(from, &mut |item| {
        match item {
            Item::Header(_) => {}
            Item::File { name, bytes } => files.push((name.to_string(), bytes.to_vec())),
            Item::Table(name) => import.table(name)?,
            Item::Entry { key, value } => import.entry(key, value)?,
        }
        Ok(())
    })?;
    if again.sha256 != verified.sha256 {
        bail!("{} changed while it was being restored", from.display());
    }
    import.finish(SnapshotInfo {
        schema_version: verified.header.schema_version,
        next_id: verified.header.next_id,
    })?;
    for (name, bytes) in files {
        let path = staging.join(&name);
        if let Some(parent) = path.parent() {
            crate::fsutil::create_data_dir(parent)?;
        }
        crate::fsutil::write_private(&path, &bytes)?;
    }
    std::fs::File::open(staging)?.sync_all()?;
    Ok(())
}
