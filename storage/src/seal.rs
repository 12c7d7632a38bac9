//! The seal: one value that proves the database still holds exactly what it held when
//! the value was written. A clean shutdown writes a fresh nonce as the seal next to a
//! snapshot of the server's in-memory indexes; the first batch after it that writes
//! anything (in this process or a later one) also removes it, as does a schema
//! migration. So a snapshot whose nonce equals the stored seal describes this database.

use sled::IVec;

use crate::codec;
use crate::error::Result;
use crate::keys::Key;
use crate::tables::{IndexSeal, Table};
use crate::Store;

fn seal_key() -> IVec {
    IVec::from(String::from("seal").encode())
}

/// The stored seal's (table, key) if there is one, for the writer to remove.
pub(crate) fn stored(trees: &[sled::Tree]) -> Result<Option<(usize, IVec)>> {
    let key = seal_key();
    Ok(trees[IndexSeal::INDEX]
        .contains_key(&key)?
        .then_some((IndexSeal::INDEX, key)))
}

/// Drops the seal outside the writer (a migration changed the database under it).
pub(crate) fn clear(trees: &[sled::Tree]) -> Result<()> {
    trees[IndexSeal::INDEX].remove(seal_key())?;
    Ok(())
}

impl Store {
    /// The seal if no write has been committed since it was written.
    pub fn seal(&self) -> Result<Option<u128>> {
        match self.inner.trees[IndexSeal::INDEX].get(seal_key())? {
            Some(bytes) => codec::decode(IndexSeal::NAME, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Writes `nonce` as the seal after every write committed so far and waits until it
    /// is durable. Any later write removes it again in its own batch.
    pub fn write_seal(&self, nonce: u128) -> Result<()> {
        let value = IVec::from(codec::encode(&nonce));
        self.inner
            .commits
            .seal(IndexSeal::INDEX, seal_key(), value)?;
        self.durable_blocking()
    }
}
