//! The free-space reserve of the data directory's file system (`min_free_space_mb`): new
//! write requests are refused below it and every write, background work included, below
//! half of it, so that sled, which cannot take back a failed log write without a reopen,
//! never meets a full disk. Reads never look here.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How long a reading is trusted while more than twice the reserve was free; nearer the
/// reserve every write reads the file system again (a `statvfs`, about a microsecond).
const TRUST_MS: u64 = 1000;

/// The reserve and the last reading of the free space.
pub struct Space {
    dir: PathBuf,
    /// Bytes that must stay free for write requests to be accepted; 0 turns it off.
    reserve: u64,
    started: Instant,
    free: AtomicU64,
    /// Milliseconds after `started` of the last reading.
    read_at: AtomicU64,
}

/// Bytes available to the server and in all on `dir`'s file system.
pub fn filesystem(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `st` a writable statvfs.
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return None;
    }
    let block = st.f_frsize as u64;
    Some((st.f_bavail as u64 * block, st.f_blocks as u64 * block))
}

impl Space {
    pub fn new(dir: &Path, reserve: u64) -> Arc<Space> {
        let space = Space {
            dir: dir.to_path_buf(),
            reserve,
            started: Instant::now(),
            free: AtomicU64::new(u64::MAX),
            read_at: AtomicU64::new(0),
        };
        space.read();
        Arc::new(space)
    }

    /// Reads the free space now; an unreadable file system counts as roomy (refusing
    /// every write because `statvfs` failed would be worse than the risk).
    fn read(&self) -> u64 {
        let free = filesystem(&self.dir).map_or(u64::MAX, |(free, _)| free);
        self.free.store(free, Ordering::Relaxed);
        let now = self.started.elapsed().as_millis() as u64;
        self.read_at.store(now, Ordering::Relaxed);
        free
    }

    /// The free space, from the last reading while it is recent and far from the reserve.
    fn free(&self) -> u64 {
        let free = self.free.load(Ordering::Relaxed);
        let age = (self.started.elapsed().as_millis() as u64)
            .saturating_sub(self.read_at.load(Ordering::Relaxed));
        if age < TRUST_MS && free / 2 >= self.reserve {
            free
        } else {
            self.read()
        }
    }

    fn refusal(&self, free: u64, limit: u64) -> Option<String> {
        (free < limit).then(|| {
            format!(
                "{} MiB free on the data directory's file system, below the {} MiB reserve (min_free_space_mb)",
                free >> 20,
                self.reserve >> 20
            )
        })
    }

    /// Whether a new write request may start: `Err(why)` below the reserve.
    pub fn admit_request(&self) -> Result<(), String> {
        if self.reserve == 0 {
            return Ok(());
        }
        self.refusal(self.free(), self.reserve).map_or(Ok(()), Err)
    }

    /// Why writes are refused, from a fresh reading (for `/health`); `None` when there is
    /// room.
    pub fn low(&self) -> Option<String> {
        if self.reserve == 0 {
            return None;
        }
        self.refusal(self.read(), self.reserve)
    }

    /// The last reading and the reserve, in bytes.
    pub fn figures(&self) -> (u64, u64) {
        (self.free.load(Ordering::Relaxed), self.reserve)
    }
}

/// Every transaction, a request's or background work's, below half the reserve: what a
/// request admitted just above the reserve still writes (its idempotency record, say)
/// fits, and nothing reaches sled once the disk is nearly full.
impl storage::WriteGate for Space {
    fn admit(&self) -> Result<(), String> {
        if self.reserve == 0 {
            return Ok(());
        }
        self.refusal(self.free(), self.reserve / 2)
            .map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use storage::WriteGate;

    use super::*;

    #[test]
    fn refuses_below_the_reserve_the_gate_below_half_and_never_when_off() {
        let dir = tempfile::tempdir().unwrap();
        let (free, _) = filesystem(dir.path()).unwrap();
        // A reserve just above what is free: requests refused, the gate still admits.
        let near = Space::new(dir.path(), free + free / 4);
        let why = near.admit_request().unwrap_err();
        assert!(why.contains("min_free_space_mb"), "{why}");
        assert!(near.low().is_some());
        near.admit().unwrap();
        // Over twice what is free: the gate refuses too.
        let far = Space::new(dir.path(), free.saturating_mul(3));
        assert!(far.admit_request().is_err());
        assert!(far.admit().is_err());
        // Room: both admit; off: nothing is ever refused.
        let roomy = Space::new(dir.path(), 1);
        roomy.admit_request().unwrap();
        roomy.admit().unwrap();
        assert!(roomy.low().is_none());
        let off = Space::new(dir.path(), 0);
        off.admit_request().unwrap();
        assert!(off.low().is_none());
        assert_eq!(off.figures().1, 0);
    }
}
