//! Taking a backup: a consistent export of the store (`storage::Store::export`) plus the
//! data directory's key files, written under a temporary name, fsynced, made 0600 and
//! renamed into place only when complete, so no file under the final name is partial.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use storage::{ExportItem, Store};

use super::archive::{Header, Writer};

/// Files of the data directory a backup carries (relative paths). They are secrets: the
/// token signing key and the self-signed TLS key, which is why the file is 0600.
pub const KEY_FILES: &[&str] = &["token-signing.key", "tls/cert.pem", "tls/key.pem"];

/// What `fulfilld backup` reports.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Report {
    pub path: PathBuf,
    pub bytes: u64,
    pub entries: u64,
    pub schema_version: u32,
    pub sha256: String,
    pub seconds: f64,
}

/// The temporary name a backup to `out` is written under until it is complete.
pub fn partial_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "backup".into());
    out.with_file_name(format!(".{name}.partial"))
}

/// Writes a backup of `store` (whose data directory is `data_dir`) to `out`.
pub fn write(store: &Store, data_dir: &Path, out: &Path) -> anyhow::Result<Report> {
    let started = Instant::now();
    anyhow::ensure!(
        out.file_name().is_some() && !out.is_dir(),
        "--out {} must name a file",
        out.display()
    );
    let mut files = Vec::new();
    for name in KEY_FILES {
        match std::fs::read(data_dir.join(name)) {
            Ok(bytes) => files.push((*name, bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("reading {name}")),
        }
    }
    let tmp = partial_path(out);
    let _ = std::fs::remove_file(&tmp);
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    let written = export_into(store, file, &files);
    let (file, bytes, sha256, summary) = match written {
        Ok(w) => w,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    let finish = || -> anyhow::Result<()> {
        file.sync_all()?;
        std::fs::rename(&tmp, out)?;
        let dir = out.parent().filter(|p| !p.as_os_str().is_empty());
        std::fs::File::open(dir.unwrap_or(Path::new(".")))?.sync_all()?;
        Ok(())
    };
    if let Err(e) = finish() {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("completing {}", out.display()));
    }
    Ok(Report {
        path: out.to_path_buf(),
        bytes,
        entries: summary.entries,
        schema_version: summary.info.schema_version,
        sha256,
        seconds: started.elapsed().as_secs_f64(),
    })
}

type Written = (std::fs::File, u64, String, storage::ExportSummary);

fn export_into(
    store: &Store,
    file: std::fs::File,
    files: &[(&str, Vec<u8>)],
) -> anyhow::Result<Written> {
    let mut w = Writer::new(file)?;
    let summary = store.export(&mut |item| match item {
        ExportItem::Begin(info) => {
            w.header(&Header {
                fulfilld_version: env!("CARGO_PKG_VERSION").to_string(),
                schema_version: info.schema_version,
                next_id: info.next_id,
                created_at: crate::domain::time_fmt::rfc3339(crate::domain::time_fmt::now_ms()),
            })?;
            for (name, bytes) in files {
                w.file(name, bytes)?;
            }
            Ok(())
        }
        ExportItem::Table(name) => w.table(name),
        ExportItem::Entry { key, value } => w.entry(key, value),
    })?;
    let (mut file, bytes, sha) = w.finish()?;
    file.flush()?;
    Ok((file, bytes, sha, summary))
}
