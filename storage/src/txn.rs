//! Multi-table transactions. A change and the events it emits are written by one closure
//! that runs under the store's single writer lock against an in-memory overlay; its
//! writes join the open batch that `group_commit.rs` applies to sled atomically.

use std::cell::RefCell;
use std::collections::HashMap;

use sled::IVec;

use crate::codec;
use crate::error::{Error, TxError};
use crate::keys::Key;
use crate::mirror::Mirror;
use crate::records::{NewEvent, OutboxEvent};
use crate::tables::{Outbox, Table, TABLE_NAMES};

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

/// Writes not yet in sled, per table: encoded key -> new value (`None`: removed). Used
/// for one closure's own writes and for whole batches of them.
pub(crate) struct WriteSet {
    tables: Vec<HashMap<IVec, Option<IVec>>>,
    /// Key plus value bytes of the entries held; bounds the open batch.
    bytes: usize,
}

impl Default for WriteSet {
    fn default() -> Self {
        WriteSet {
            tables: TABLE_NAMES.iter().map(|_| HashMap::new()).collect(),
            bytes: 0,
        }
    }
}

impl WriteSet {
    /// `Some(value)` if this set decides what `key` holds (`Some(None)`: removed).
    fn lookup(&self, table: usize, key: &[u8]) -> Option<Option<&IVec>> {
        self.tables[table].get(key).map(Option::as_ref)
    }

    fn put(&mut self, table: usize, key: IVec, value: Option<IVec>) {
        let size = key.len() + value.as_ref().map_or(0, |v| v.len());
        let key_len = key.len();
        if let Some(old) = self.tables[table].insert(key, value) {
            self.bytes -= key_len + old.map_or(0, |v| v.len());
        }
        self.bytes += size;
    }

    /// Adds `later` on top of this set: its writes win.
    pub(crate) fn merge(&mut self, later: WriteSet) {
        for (table, writes) in later.tables.into_iter().enumerate() {
            for (k, v) in writes {
                self.put(table, k, v);
            }
        }
    }

    pub(crate) fn entries(&self) -> usize {
        self.tables.iter().map(HashMap::len).sum()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tables.iter().all(HashMap::is_empty)
    }

    /// The writes to one table.
    pub(crate) fn table(&self, table: usize) -> impl Iterator<Item = (&IVec, Option<&IVec>)> {
        self.tables[table].iter().map(|(k, v)| (k, v.as_ref()))
    }

    /// Every write, table by table, for applying the set to sled.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &IVec, Option<&IVec>)> {
        self.tables
            .iter()
            .enumerate()
            .flat_map(|(t, w)| w.iter().map(move |(k, v)| (t, k, v.as_ref())))
    }
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
    /// Source of [`Tx::next_id`]; persisted by sled so ids are never reused.
    pub(crate) db: &'a sled::Db,
}

/// The closure's handle on every table.
pub struct Tx<'a> {
    own: RefCell<WriteSet>,
    below: Layers<'a>,
}

fn engine(e: sled::Error) -> TxFail {
    TxFail(e.into())
}

impl Tx<'_> {
    fn read(&self, table: usize, key: &[u8]) -> Result<Option<IVec>, TxFail> {
        if let Some(v) = self.own.borrow().lookup(table, key) {
            return Ok(v.cloned());
        }
        if let Some(v) = self.below.open.lookup(table, key) {
            return Ok(v.cloned());
        }
        if let Some(v) = self.below.committing.and_then(|c| c.lookup(table, key)) {
            return Ok(v.cloned());
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
        self.below.db.generate_id().map_err(engine)
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

/// Applies `batch` to sled as one multi-tree transaction: sled recovers it all or
/// nothing after a crash, so no closure (and no batch) is ever half on disk.
pub(crate) fn apply(trees: &[sled::Tree], batch: &WriteSet) -> crate::error::Result<()> {
    use sled::transaction::{ConflictableTransactionError, TransactionError, TransactionalTree};
    use sled::Transactional;

    let result = trees.transaction(|view: &Vec<TransactionalTree>| {
        for (table, key, value) in batch.iter() {
            match value {
                Some(v) => view[table].insert(key, v)?,
                None => view[table].remove(key)?,
            };
        }
        Ok::<_, ConflictableTransactionError<()>>(())
    });
    match result {
        Ok(()) => Ok(()),
        Err(TransactionError::Storage(e)) => Err(e.into()),
        // The closure above never aborts.
        Err(TransactionError::Abort(())) => Err(Error::Engine("batch aborted".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_set_tracks_bytes_and_later_writes_win() {
        let mut a = WriteSet::default();
        a.put(0, IVec::from(&b"k"[..]), Some(IVec::from(&b"vvvv"[..])));
        a.put(1, IVec::from(&b"k"[..]), None);
        assert_eq!((a.entries(), a.bytes()), (2, 6));
        let mut b = WriteSet::default();
        b.put(0, IVec::from(&b"k"[..]), Some(IVec::from(&b"v"[..])));
        b.put(0, IVec::from(&b"j"[..]), None);
        a.merge(b);
        assert_eq!((a.entries(), a.bytes()), (3, 4));
        assert_eq!(a.lookup(0, b"k"), Some(Some(&IVec::from(&b"v"[..]))));
        assert_eq!(a.lookup(0, b"j"), Some(None));
        assert_eq!(a.lookup(1, b"k"), Some(None));
        assert_eq!(a.lookup(2, b"k"), None);
    }
}
