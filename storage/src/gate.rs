//! The admission check every transaction passes before it runs. The server installs one
//! that refuses writes while the data directory's file system is below its free-space
//! reserve, so that sled never meets a full disk; storage itself knows no policy.

use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};

/// Asked before every [`crate::Store::transact`], on the caller's thread and outside the
/// writer lock: keep it cheap.
pub trait WriteGate: Send + Sync {
    /// `Err(why)` refuses the transaction with [`Error::NoSpace`]; nothing is written.
    fn admit(&self) -> std::result::Result<(), String>;
}

/// The gate of one store, set at most once; none admits everything.
#[derive(Default)]
pub(crate) struct Gate(OnceLock<Arc<dyn WriteGate>>);

impl Gate {
    pub(crate) fn set(&self, g: Arc<dyn WriteGate>) -> bool {
        self.0.set(g).is_ok()
    }

    pub(crate) fn admit(&self) -> Result<()> {
        match self.0.get().map(|g| g.admit()) {
            Some(Err(why)) => Err(Error::NoSpace(why)),
            _ => Ok(()),
        }
    }
}
