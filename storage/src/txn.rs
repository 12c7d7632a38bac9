//! Multi-table transactions. A change and the events it emits are written by one closure
//! that runs under the store's single writer lock against an in-memory overlay; its
//! writes join the open batch that `group_commit.rs` applies to sled atomically.

use std::cell::{Cell, RefCell};

use sled::IVec;

use crate::codec;
use crate::error::{Error, TxError};
use crate::keys::Key;
use crate::mirror::Mirror;
use crate::records::{NewEvent, OutboxEvent};
use crate::tables::{Outbox, Table};
use crate::write_set::WriteSet;

/// A failure inside a transaction that is not the caller's decision: an engine error or
/// a corrupt record. Propagate it with `?`; the transaction then writes nothing.
#[derive(Debug)]
pub struct TxFail(Error);

/// What a transaction closure returns on failure: its own abort value, or a [`TxFail`].
#[derive(Debug)]
pub enum Abort<E> {
    User(E),
    Fail(TxFail),
}

impl<E> From<TxFail> for Abort<E> {
    fn from(f: TxFail) -> Self {
        Abort::Fail(f)
    }
}

/// Shorthand for aborting a transaction with the caller's own value.
pub fn abort<T, E>(e: E) -> Result<T, Abort<E>> {
    Err(Abort::User(e))
}

/// What a closure reads through, newest first, beneath its own writes.
pub(crate) struct Layers<'a> {
    /// Writes of earlier closures in the batch still open.
    pub(crate) open: &'a WriteSet,
    /// The batch the committer is applying to sled right now, if any.
    pub(crate) committing: Option<&'a WriteSet>,
    pub(crate) trees: &'a [sled::Tree],
    /// The catalog tables in memory, equal to sled once `committing` is gone.
    pub(crate) mirror: &'a Mirror,
    /// Source of [`Tx::next_id`] (see `ids.rs`).
    pub(crate) ids: &'a Cell<u64>,
    /// Batches applied to sled whose layer is gone, as of this closure (see [`Preread`]).
    pub(crate) applied_batches: u64,
}

/// The closure's handle on every table.
pub struct Tx<'a> {
    own: RefCell<WriteSet>,
    below: Layers<'a>,
}

fn engine(e: sled::Error) -> TxFail {
    TxFail(e.into())
}

/// A plain read made before a transaction, to be checked again inside it with
/// [`Tx::get_preread`] without reading sled there: a sled read waits while the commit
/// thread applies a batch, and inside a closure that wait holds the writer lock, so
/// every transaction waits with it. Carries the count of batches applied before the read.
#[derive(Debug, Clone)]
pub struct Preread<V> {
    pub(crate) value: Option<V>,
    pub(crate) applied_batches: u64,
}

impl Tx<'_> {
    /// What the batches not yet in sled (this closure's, the open one, the one being
    /// applied) hold at `key`: `Some(None)` for a removal, `None` if none wrote it.
    fn layered(&self, table: usize, key: &[u8]) -> Option<Option<IVec>> {
        if let Some(v) = self.own.borrow().lookup(table, key) {
            return Some(v.cloned());
        }
        if let Some(v) = self.below.open.lookup(table, key) {
            return Some(v.cloned());
        }
        if let Some(v) = self.below.committing.and_then(|c| c.lookup(table, key)) {
            return Some(v.cloned());
        }
        None
    }

    fn read(&self, table: usize, key: &[u8]) -> Result<Option<IVec>, TxFail> {
        if let Some(v) = self.layered(table, key) {
            return Ok(v);
        }
        if let Some(v) = self.below.mirror.get(table, key) {
            return Ok(v);
        }
        self.below.trees[table].get(key).map_err(engine)
    }

    pub fn get<T: Table>(&self, key: &T::Key) -> Result<Option<T::Value>, TxFail> {
        match self.read(T::INDEX, &key.encode())? {
            Some(bytes) => codec::decode(T::NAME, &bytes).map(Some).map_err(TxFail),
            None => Ok(None),
        }
    }

    /// [`Tx::get`] answered from `pre` when no batch reached sled since `pre` was read
    /// (everything newer is in the layers this checks first); otherwise read again.
    pub fn get_preread<T: Table>(
        &self,
        key: &T::Key,
        pre: &Preread<T::Value>,
    ) -> Result<Option<T::Value>, TxFail>
    where
        T::Value: Clone,
    {
        let unchanged = self.below.applied_batches == pre.applied_batches;
        if unchanged && self.layered(T::INDEX, &key.encode()).is_none() {
            return Ok(pre.value.clone());
        }
        self.get::<T>(key)
    }

    pub fn contains<T: Table>(&self, key: &T::Key) -> Result<bool, TxFail> {
        Ok(self.read(T::INDEX, &key.encode())?.is_some())
    }

    pub fn insert<T: Table>(&self, key: &T::Key, value: &T::Value) -> Result<(), TxFail> {
        let value = IVec::from(codec::encode(value));
        self.own
            .borrow_mut()
            .put(T::INDEX, key.encode().into(), Some(value));
        Ok(())
    }

    pub fn remove<T: Table>(&self, key: &T::Key) -> Result<(), TxFail> {
        self.own
            .borrow_mut()
            .put(T::INDEX, key.encode().into(), None);
        Ok(())
    }

    /// A database-wide id, increasing in commit order (closures run one at a time) and
    /// never reused, even after a crash; ids of aborted or lost transactions are skipped.
    pub fn next_id(&self) -> Result<u64, TxFail> {
        Ok(crate::ids::next_id(self.below.ids))
    }

    /// Appends an event to the outbox in this transaction; returns its sequence number.
    pub fn emit(&self, event: NewEvent) -> Result<u64, TxFail> {
        let seq = self.next_id()?;
        let stored = OutboxEvent {
            seq,
            id: event.id,
            kind: event.kind,
            timestamp: event.timestamp,
            data_json: event.data_json,
        };
        self.insert::<Outbox>(&seq, &stored)?;
        Ok(seq)
    }
}

/// Runs `f` once over `below` and returns its result with its write set; on abort or
/// failure the writes are dropped here and nothing else is touched.
pub(crate) fn run<R, E>(
    below: Layers<'_>,
    f: impl FnOnce(&Tx<'_>) -> Result<R, Abort<E>>,
) -> Result<(R, WriteSet), TxError<E>> {
    let tx = Tx {
        own: RefCell::new(WriteSet::default()),
        below,
    };
    match f(&tx) {
        Ok(r) => Ok((r, tx.own.into_inner())),
        Err(Abort::User(e)) => Err(TxError::Aborted(e)),
        Err(Abort::Fail(TxFail(e))) => Err(TxError::Storage(e)),
    }
}
