//! A window on the group commit for the server's metrics: the writes of each batch and the
//! time of each fdatasync, reported as they happen. Storage knows no metrics library.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Told of every batch and every fdatasync, on the commit and sync threads: keep it cheap.
pub trait CommitObserver: Send + Sync {
    /// A batch of `writes` writes was applied.
    fn batch_applied(&self, writes: usize);
    /// An fdatasync of the log took `took`.
    fn synced(&self, took: Duration);
}

/// The observer of one store, set at most once.
#[derive(Default)]
pub(crate) struct Observer(OnceLock<Arc<dyn CommitObserver>>);

impl Observer {
    pub(crate) fn set(&self, o: Arc<dyn CommitObserver>) -> bool {
        self.0.set(o).is_ok()
    }

    pub(crate) fn batch_applied(&self, writes: usize) {
        if let Some(o) = self.0.get() {
            o.batch_applied(writes);
        }
    }

    pub(crate) fn synced(&self, took: Duration) {
        if let Some(o) = self.0.get() {
            o.synced(took);
        }
    }
}
