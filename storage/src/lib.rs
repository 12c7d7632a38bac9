//! fulfilld's persistence. The only crate that imports sled: typed tables with bincode
//! values and big-endian keys, atomic multi-table transactions that carry their outbox
//! events, and batched group commit so a write is acknowledged only once it is on disk.
//!
//! # Visibility
//!
//! Transaction closures run one at a time. A closure sees every write of the closures
//! that returned `Ok` before it, durable or not. Plain reads ([`Store::get`],
//! [`Store::iter`], [`Store::scan_prefix`], [`Store::range`], [`Store::keys`],
//! [`Store::keys_with_prefix`]) read sled, or for the catalog tables its exact copy in
//! memory (`mirror.rs`); both receive a committed closure's writes when the commit thread
//! applies its batch, a moment after [`Store::transact`] returns and always before
//! [`Store::durable`] returns. So a caller that wants to read its own
//! write through a plain read calls [`Store::durable`] first; the server does anyway,
//! before it answers.

mod backup;
mod capture;
mod codec;
mod error;
mod gate;
mod group_commit;
mod hold;
mod ids;
mod key_set;
pub mod keys;
mod mirror;
mod observe;
pub mod records;
mod schema;
mod seal;
pub mod tables;
mod txn;
mod write_set;

use std::fs::File;
use std::ops::RangeBounds;
use std::path::Path;
use std::sync::Arc;

pub use backup::{ExportItem, ExportSummary, Import, SnapshotInfo};
pub use error::{Error, Result, TxError};
pub use gate::WriteGate;
pub use group_commit::BatchLimits;
pub use hold::unheld;
pub use keys::Key;
pub use observe::CommitObserver;
pub use records::*;
pub use schema::CURRENT as SCHEMA_VERSION;
pub use tables::{Table, TABLE_NAMES};
pub use txn::{abort, Abort, Preread, Tx, TxFail};

use group_commit::GroupCommit;
use mirror::Mirror;
use sled::IVec;

/// Tuning knobs, set once from the server's config.
#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// Page cache size; bounds resident memory for large data sets.
    pub cache_capacity_bytes: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            cache_capacity_bytes: 16 * 1024 * 1024,
        }
    }
}

/// A handle on the database; cheap to clone, shared by every request.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    db: sled::Db,
    trees: Vec<sled::Tree>,
    mirror: Arc<Mirror>,
    commits: GroupCommit,
    gate: gate::Gate,
}

impl Drop for Inner {
    /// Commits and flushes whatever is open, then stops the commit thread.
    fn drop(&mut self) {
        self.commits.stop();
    }
}

/// How long an open waits for the database's file lock to be released.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Opens sled, waiting up to [`LOCK_WAIT`] for its file lock: a store just dropped in this
/// process (a restart, the admin CLI after a server stopped) may still hold it while
/// sled's IO threads finish their last writes, and sled only tries the lock once.
fn open_sled(dir: &Path, config: &StoreConfig) -> Result<sled::Db> {
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        let opened = sled::Config::new()
            .path(dir)
            .cache_capacity(config.cache_capacity_bytes)
            .mode(sled::Mode::HighThroughput)
            .open();
        match opened {
            Err(sled::Error::Io(e))
                if e.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return Ok(other?),
        }
    }
}

impl Store {
    /// Opens (or creates) the database in `dir` and brings its schema up to date.
    /// Fails if another process holds it.
    pub fn open(dir: &Path, config: &StoreConfig) -> Result<Store> {
        Store::open_with_limits(dir, config, BatchLimits::default())
    }

    /// [`Store::open`] with explicit bounds on the open batch (tests use tiny ones).
    pub fn open_with_limits(
        dir: &Path,
        config: &StoreConfig,
        limits: BatchLimits,
    ) -> Result<Store> {
        // A database from a newer binary stays untouched: refused before sled opens it.
        schema::refuse_newer_marker(dir)?;
        let db = open_sled(dir, config)?;
        let trees = TABLE_NAMES
            .iter()
            .map(|name| db.open_tree(name))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        if schema::upgrade(&db, &trees[tables::Meta::INDEX])? != SCHEMA_VERSION {
            seal::clear(&trees)?;
        }
        schema::write_marker(dir, SCHEMA_VERSION)?;
        let io = |e: std::io::Error| Error::Engine(e.to_string());
        let log = Arc::new(File::open(dir.join("db")).map_err(io)?);
        // The schema write above was flushed by sled only (no fdatasync); persist it and
        // the directory entries of files sled created on a first open.
        group_commit::sync(&db, &log)?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
        // And the database directory's own entry, which a first open created.
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent).and_then(|d| d.sync_all()).map_err(io)?;
        }
        let mirror = Arc::new(Mirror::load(&trees)?);
        let seal = seal::stored(&trees)?;
        let ids = ids::Ids::load(&db, &trees[tables::Meta::INDEX])?;
        let commits = GroupCommit::start(
            db.clone(),
            trees.clone(),
            log,
            limits,
            Arc::clone(&mirror),
            seal,
            ids,
        );
        Ok(Store {
            inner: Arc::new(Inner {
                db,
                trees,
                mirror,
                commits,
                gate: gate::Gate::default(),
            }),
        })
    }

    fn tree<T: Table>(&self) -> &sled::Tree {
        &self.inner.trees[T::INDEX]
    }

    /// Runs `f` atomically over all tables, exactly once, while no other closure runs;
    /// waits first if the open batch is full. On `Ok` its writes join the open batch:
    /// later closures see them at once, plain reads once the batch is applied (see the
    /// crate docs), and they are durable only after [`Store::durable`]. On abort or
    /// failure nothing is written. Fails with [`Error::Flush`] once the store has failed
    /// ([`Error::NoSpace`] if it failed for lack of space), and with [`Error::NoSpace`],
    /// before `f` runs, when the [`WriteGate`] refuses (never inside a held poll that
    /// already pins a batch, see [`Store::hold`]).
    ///
    /// `f` must not call back into the store's transactions or durable waits (it holds
    /// the writer lock), nor do network IO.
    pub fn transact<R, E>(
        &self,
        f: impl FnOnce(&Tx<'_>) -> std::result::Result<R, Abort<E>>,
    ) -> std::result::Result<R, TxError<E>> {
        // A poll that pins a batch completes what its first, admitted, write began: a
        // change is never kept without the record written after it (`hold.rs`).
        if hold::current(self.inner.commits.id()) != Some(true) {
            self.inner.gate.admit().map_err(TxError::Storage)?;
        }
        self.inner.commits.transact(f)
    }

    /// Asks `g` before every transaction from now on; `false` if a gate was set already.
    pub fn gate(&self, g: Arc<dyn WriteGate>) -> bool {
        self.inner.gate.set(g)
    }

    /// Runs `fut` under a hold: every transaction it commits within one poll joins the
    /// same batch as that poll's first write, so they reach the disk together or not at
    /// all. A pin lasts one poll, never across an await (writes before an await land in
    /// earlier batches; see [`unheld`]). Inside, do not wait for durability of your own
    /// writes before the poll ends: their batch cannot be taken until it does.
    pub async fn hold<F: std::future::Future>(&self, fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        let commits = &self.inner.commits;
        let unpin = || commits.unpin();
        std::future::poll_fn(|cx| hold::poll_held(commits.id(), &unpin, fut.as_mut(), cx)).await
    }

    /// [`Store::hold`] for code on a plain thread: every transaction `f` commits joins one
    /// batch, which is not applied (so neither read through sled nor durable) before `f`
    /// returns. So what `f` does after committing, such as updating an in-memory index,
    /// is done before anyone can learn of the commit from storage or from its events.
    pub fn held<R>(&self, f: impl FnOnce() -> R) -> R {
        let commits = &self.inner.commits;
        let unpin = || commits.unpin();
        let mut f = Some(f);
        let fut = std::future::poll_fn(|_| std::task::Poll::Ready(f.take().map(|f| f())));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match hold::poll_held(commits.id(), &unpin, std::pin::pin!(fut), &mut cx) {
            std::task::Poll::Ready(Some(r)) => r,
            _ => unreachable!("a ready future polled once"),
        }
    }

    /// Waits until everything committed (every `transact` that returned `Ok`) before this
    /// call is applied and flushed to disk. Concurrent callers share one flush.
    pub async fn durable(&self) -> Result<()> {
        self.inner.commits.wait_durable().await
    }

    /// Waits until the in-memory key sets have read the keys stored before open (a thread
    /// does so after open; until then their tables are read from sled). For tests.
    #[doc(hidden)]
    pub fn wait_key_sets(&self) {
        self.inner.mirror.wait_key_sets();
    }

    /// [`Store::durable`] for threads outside an async runtime.
    pub fn durable_blocking(&self) -> Result<()> {
        self.inner.commits.wait_durable_blocking()
    }

    /// A plain read to check again inside a transaction with [`Tx::get_preread`].
    pub fn preread<T: Table>(&self, key: &T::Key) -> Result<Preread<T::Value>> {
        let applied_batches = self.inner.commits.applied_batches();
        Ok(Preread {
            value: self.get::<T>(key)?,
            applied_batches,
        })
    }

    /// For a table held in memory (products, inventory, warehouses, webhook
    /// subscriptions and cursors, `Meta`), a number that changes whenever a committed
    /// transaction writes it, so a reader can keep decoded copies until it moves; `None`
    /// for other tables. Read it before the records it is to vouch for.
    pub fn mirror_version<T: Table>(&self) -> Option<u64> {
        self.inner.mirror.version(T::INDEX)
    }

    pub fn get<T: Table>(&self, key: &T::Key) -> Result<Option<T::Value>> {
        let key = key.encode();
        let found = match self.inner.mirror.get(T::INDEX, &key) {
            Some(v) => v,
            None => self.tree::<T>().get(key)?,
        };
        match found {
            Some(bytes) => codec::decode(T::NAME, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Raw entries of `T` whose key starts with `prefix`, from the mirror or sled.
    fn prefix_entries<T: Table>(&self, prefix: &[u8]) -> Entries {
        match self.inner.mirror.prefix(T::INDEX, prefix) {
            Some(v) => Entries::Mem(v.into_iter()),
            None => Entries::Sled(Box::new(self.tree::<T>().scan_prefix(prefix))),
        }
    }

    /// Raw entries of `T` in `range`, from the mirror or sled.
    fn range_entries<T: Table, R: RangeBounds<Vec<u8>>>(&self, range: R) -> Entries {
        let bounds = (
            range.start_bound().map(Vec::as_slice),
            range.end_bound().map(Vec::as_slice),
        );
        match self.inner.mirror.range(T::INDEX, bounds) {
            Some(v) => Entries::Mem(v.into_iter()),
            None => Entries::Sled(Box::new(self.tree::<T>().range(range))),
        }
    }

    fn all_entries<T: Table>(&self) -> Entries {
        self.range_entries::<T, _>(..)
    }

    /// Records of `T` whose key starts with `prefix`, in key order.
    pub fn scan_prefix<T: Table>(
        &self,
        prefix: &[u8],
    ) -> impl DoubleEndedIterator<Item = Result<(T::Key, T::Value)>> {
        self.prefix_entries::<T>(prefix).map(decode_entry::<T>)
    }

    /// Records of `T` whose encoded key lies in `range`, in key order.
    pub fn range<T: Table, R: RangeBounds<Vec<u8>>>(
        &self,
        range: R,
    ) -> impl DoubleEndedIterator<Item = Result<(T::Key, T::Value)>> {
        self.range_entries::<T, R>(range).map(decode_entry::<T>)
    }

    /// Every record of `T`, in key order.
    pub fn iter<T: Table>(&self) -> impl DoubleEndedIterator<Item = Result<(T::Key, T::Value)>> {
        self.all_entries::<T>().map(decode_entry::<T>)
    }

    /// Calls `f` with the [`OrderSummary`] of every stored order, in id order, read from
    /// the record's bytes in place (the rest of the record is skipped, not decoded).
    pub fn each_order_summary(&self, mut f: impl FnMut(OrderSummary<'_>)) -> Result<()> {
        use tables::Orders;
        for entry in self.all_entries::<Orders>() {
            let (_, v) = entry?;
            let payload = codec::payload(Orders::NAME, &v)?;
            let summary =
                records::decode_order_summary(payload).map_err(|detail| Error::Corrupt {
                    table: Orders::NAME,
                    detail,
                })?;
            f(summary);
        }
        Ok(())
    }

    /// Keys of `T` in key order, without decoding values: lists skip `offset` entries
    /// and count matches this way.
    pub fn keys<T: Table>(&self) -> impl DoubleEndedIterator<Item = Result<T::Key>> {
        self.all_entries::<T>()
            .map(|e| e.map(|(k, _)| k))
            .map(decode_key::<T>)
    }

    /// Keys of `T` that start with `prefix`, without decoding values.
    pub fn keys_with_prefix<T: Table>(
        &self,
        prefix: &[u8],
    ) -> impl DoubleEndedIterator<Item = Result<T::Key>> {
        self.prefix_entries::<T>(prefix)
            .map(|e| e.map(|(k, _)| k))
            .map(decode_key::<T>)
    }

    /// Removes a record outside a caller's transaction (housekeeping such as expiry
    /// pruning). It goes through the writer like any transaction, so it is ordered after
    /// every write committed before it; plain reads see it once its batch is applied.
    pub fn remove<T: Table>(&self, key: &T::Key) -> Result<()> {
        self.transact(|tx| {
            tx.remove::<T>(key)?;
            Ok::<_, Abort<std::convert::Infallible>>(())
        })
        .map_err(|e| match e {
            TxError::Storage(e) => e,
            TxError::Aborted(never) => match never {},
        })
    }

    /// Cheap liveness check for `/health`: the committer has not failed and a read works.
    /// Streams a consistent snapshot of every table to `sink` while transactions keep
    /// committing (see `backup.rs`); one export runs at a time.
    pub fn export(
        &self,
        sink: &mut dyn FnMut(ExportItem<'_>) -> std::io::Result<()>,
    ) -> Result<ExportSummary> {
        backup::export(&self.inner.trees, &self.inner.commits, sink)
    }

    /// Reports every batch and fdatasync to `o` from now on; `false` if an observer was set
    /// already.
    pub fn observe(&self, o: Arc<dyn CommitObserver>) -> bool {
        self.inner.commits.observe(o)
    }

    pub fn check(&self) -> Result<()> {
        if let Some(e) = self.inner.commits.failure() {
            return Err(e);
        }
        self.tree::<tables::Meta>().get(b"schema_version")?;
        Ok(())
    }

    /// Marks the store failed, as a failed fsync would: every later transaction, durable
    /// wait and health check reports the failure. Used by operators' drills and tests.
    pub fn mark_failed(&self, reason: &str) {
        self.inner.commits.fail(reason.to_string());
    }

    /// Synchronously makes everything committed so far durable ([`Store::durable`] for
    /// callers outside a runtime, under its old name).
    pub fn flush(&self) -> Result<()> {
        self.durable_blocking()
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> Result<u64> {
        Ok(self.inner.db.size_on_disk()?)
    }
}

/// A table's raw entries: a sled iterator, or a snapshot taken from the mirror.
enum Entries {
    Sled(Box<sled::Iter>),
    Mem(std::vec::IntoIter<(IVec, IVec)>),
}

impl Iterator for Entries {
    type Item = std::result::Result<(IVec, IVec), sled::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Sled(it) => it.next(),
            Entries::Mem(it) => it.next().map(Ok),
        }
    }
}

impl DoubleEndedIterator for Entries {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Sled(it) => it.next_back(),
            Entries::Mem(it) => it.next_back().map(Ok),
        }
    }
}

fn decode_key<T: Table>(key: std::result::Result<sled::IVec, sled::Error>) -> Result<T::Key> {
    T::Key::decode(&key?)
}

fn decode_entry<T: Table>(
    entry: std::result::Result<(sled::IVec, sled::IVec), sled::Error>,
) -> Result<(T::Key, T::Value)> {
    let (k, v) = entry?;
    Ok((T::Key::decode(&k)?, codec::decode(T::NAME, &v)?))
}
