//! The storage crate's error type. Callers see what went wrong (corrupt record, IO
//! failure, schema mismatch) but never a sled type.

use std::fmt;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The underlying database reported an IO or corruption problem.
    #[error("storage engine failure: {0}")]
    Engine(String),
    /// A stored value could not be decoded into its record type.
    #[error("corrupt record in table {table}: {detail}")]
    Corrupt { table: &'static str, detail: String },
    /// The database was written by a newer fulfilld than this one.
    #[error("database schema version {found} is newer than this binary supports ({supported})")]
    SchemaTooNew { found: u32, supported: u32 },
    /// A backup could not be taken or restored.
    #[error("backup: {0}")]
    Backup(String),
    /// A durable-commit wait failed because the flusher hit an error or stopped.
    #[error("durability not confirmed: {0}")]
    Flush(String),
    /// A write was refused or failed for lack of space: the file system is full (or
    /// the user's quota, or a file-size limit, is reached), or the server's write gate
    /// refused it because free space is below its reserve. Nothing was written.
    #[error("no space for the write: {0}")]
    NoSpace(String),
}

impl Error {
    /// An IO failure of `what`: [`Error::NoSpace`] when it means the disk is full.
    pub(crate) fn io(what: &str, e: std::io::Error) -> Error {
        if is_no_space(&e) {
            Error::NoSpace(format!("{what}: {e}"))
        } else {
            Error::Engine(format!("{what}: {e}"))
        }
    }

    /// Whether this is [`Error::NoSpace`].
    pub fn is_no_space(&self) -> bool {
        matches!(self, Error::NoSpace(_))
    }
}

/// ENOSPC, EDQUOT and EFBIG: the write needs room the file system will not give.
fn is_no_space(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
    matches!(e.kind(), StorageFull | QuotaExceeded | FileTooLarge)
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl From<sled::Error> for Error {
    fn from(e: sled::Error) -> Self {
        match e {
            // sled keeps the kind when it clones the error it stored for every later call.
            sled::Error::Io(io) if is_no_space(&io) => Error::NoSpace(io.to_string()),
            other => Error::Engine(other.to_string()),
        }
    }
}

/// The outcome of a failed [`crate::Store::transact`]: either the caller's own abort
/// value, or a storage failure.
#[derive(Debug)]
pub enum TxError<E> {
    /// The closure aborted with this value; nothing was written.
    Aborted(E),
    /// Storage failed; nothing was written.
    Storage(Error),
}

impl<E: fmt::Display> fmt::Display for TxError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxError::Aborted(e) => write!(f, "transaction aborted: {e}"),
            TxError::Storage(e) => write!(f, "{e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for TxError<E> {}
