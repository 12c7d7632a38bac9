//! The one way fulfilld writes a file (certificate, keys, bootstrap credentials): a
//! temporary name in the same directory, written and fsynced, renamed over the target,
//! then the directory fsynced, so after a crash or power cut the file holds either its
//! old content or its complete new content, never a prefix or nothing.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;

/// Mode of secrets: readable by the owner only.
pub const PRIVATE: u32 = 0o600;
/// Mode of files anyone may read (a certificate).
pub const PUBLIC: u32 = 0o644;

/// Writes a secret (mode 0600); see [`write_atomic`].
pub fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic(path, bytes, PRIVATE)
}

/// Replaces `path` with `bytes` (file mode `mode`) durably and atomically.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = parent(path);
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)
            .with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(bytes)
            .and_then(|_| f.sync_all())
            .with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    sync_dir(dir)
}

/// Creates `dir` (and its parents) and makes its entry durable.
pub fn create_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    sync_dir(parent(dir))
}

/// fsyncs a directory, persisting the names created, renamed or removed in it.
pub fn sync_dir(dir: &Path) -> anyhow::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing directory {}", dir.display()))
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates `dir` and its parents, readable only by the owner (0700).
pub fn create_data_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("creating data directory {}", dir.display()))?;
    // Its entry too, so a power cut after the first start cannot lose the directory.
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    sync_dir(parent.unwrap_or(std::path::Path::new(".")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_the_file_whole_with_its_mode_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.key");
        write_private(&path, b"first").unwrap();
        write_atomic(&path, b"second, longer", PRIVATE).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let cert = dir.path().join("cert.pem");
        write_atomic(&cert, b"pem", PUBLIC).unwrap();
        let mode = std::fs::metadata(&cert).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600);
        assert_eq!(mode & 0o033, 0, "nobody else may write it");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "no temporary left: {names:?}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        write_private(&path, b"old").unwrap();
        // A non-empty directory in the way makes the rename fail.
        let blocked = dir.path().join("d");
        std::fs::create_dir_all(blocked.join("x")).unwrap();
        assert!(write_private(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, 2, "the temporary is removed");
    }
}
