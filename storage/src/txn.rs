//! Multi-table transactions. A change and the events it emits are written by one
//! closure that sled runs atomically over every table; the closure may be re-run on
//! conflict, so it must be free of side effects (and of network IO above all).

use sled::transaction::{
    ConflictableTransactionError, TransactionError, TransactionalTree, UnabortableTransactionError,
};
use sled::Transactional;

use crate::codec;
use crate::error::{Error, TxError};
use crate::keys::Key;
use crate::records::{NewEvent, OutboxEvent};
use crate::tables::{Outbox, Table};

/// A failure inside a transaction that is not the caller's decision: a conflict (sled
/// re-runs the closure), an engine error or a corrupt record. Propagate it with `?`.
#[derive(Debug)]
pub struct TxFail(FailKind);

#[derive(Debug)]
enum FailKind {
    Engine(UnabortableTransactionError),
    Corrupt(Error),
}

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

/// The closure's handle on every table.
pub struct Tx<'a> {
    trees: &'a [TransactionalTree],
}

impl Tx<'_> {
    fn tree<T: Table>(&self) -> &TransactionalTree {
        &self.trees[T::INDEX]
    }

    pub fn get<T: Table>(&self, key: &T::Key) -> Result<Option<T::Value>, TxFail> {
        match self.tree::<T>().get(key.encode()) {
            Ok(Some(bytes)) => codec::decode(T::NAME, &bytes)
                .map(Some)
                .map_err(|e| TxFail(FailKind::Corrupt(e))),
            Ok(None) => Ok(None),
            Err(e) => Err(TxFail(FailKind::Engine(e))),
        }
    }

    pub fn contains<T: Table>(&self, key: &T::Key) -> Result<bool, TxFail> {
        self.tree::<T>()
            .get(key.encode())
            .map(|v| v.is_some())
            .map_err(|e| TxFail(FailKind::Engine(e)))
    }

    pub fn insert<T: Table>(&self, key: &T::Key, value: &T::Value) -> Result<(), TxFail> {
        self.tree::<T>()
            .insert(key.encode(), codec::encode(value))
            .map(|_| ())
            .map_err(|e| TxFail(FailKind::Engine(e)))
    }

    pub fn remove<T: Table>(&self, key: &T::Key) -> Result<(), TxFail> {
        self.tree::<T>()
            .remove(key.encode())
            .map(|_| ())
            .map_err(|e| TxFail(FailKind::Engine(e)))
    }

    /// A database-wide monotonic id (never reused, may skip after a crash).
    pub fn next_id(&self) -> Result<u64, TxFail> {
        self.trees[0]
            .generate_id()
            .map_err(|e| TxFail(FailKind::Engine(UnabortableTransactionError::Storage(e))))
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

enum Inner<E> {
    User(E),
    Corrupt(Error),
}

/// Runs `f` atomically over every table. Not durable on return: call
/// [`crate::Store::durable`] before acknowledging the write.
pub(crate) fn run<R, E>(
    trees: &[sled::Tree],
    f: impl Fn(&Tx<'_>) -> Result<R, Abort<E>>,
) -> Result<R, TxError<E>> {
    let result = trees.transaction(|view: &Vec<TransactionalTree>| {
        let tx = Tx { trees: view };
        match f(&tx) {
            Ok(r) => Ok(r),
            Err(Abort::User(e)) => Err(ConflictableTransactionError::Abort(Inner::User(e))),
            Err(Abort::Fail(TxFail(FailKind::Engine(e)))) => Err(e.into()),
            Err(Abort::Fail(TxFail(FailKind::Corrupt(e)))) => {
                Err(ConflictableTransactionError::Abort(Inner::Corrupt(e)))
            }
        }
    });
    match result {
        Ok(r) => Ok(r),
        Err(TransactionError::Abort(Inner::User(e))) => Err(TxError::Aborted(e)),
        Err(TransactionError::Abort(Inner::Corrupt(e))) => Err(TxError::Storage(e)),
        Err(TransactionError::Storage(e)) => Err(TxError::Storage(e.into())),
    }
}
