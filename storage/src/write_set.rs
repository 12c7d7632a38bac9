//! A set of writes not yet in sled, per table (one closure's own writes, or a whole batch),
//! and applying a batch to sled as one multi-tree transaction.

use std::collections::HashMap;

use sled::IVec;

use crate::error::Error;
use crate::tables::TABLE_NAMES;

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
    pub(crate) fn lookup(&self, table: usize, key: &[u8]) -> Option<Option<&IVec>> {
        self.tables[table].get(key).map(Option::as_ref)
    }

    pub(crate) fn put(&mut self, table: usize, key: IVec, value: Option<IVec>) {
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
