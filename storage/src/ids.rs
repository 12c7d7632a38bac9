//! The ids `Tx::next_id` hands out (outbox sequence numbers, subscription start points):
//! drawn from a counter in memory under the writer lock, and never handed out twice, even
//! across a crash, because a closure whose ids pass the persisted reservation writes the
//! next reservation into its own batch.
//!
//! Why not sled's `generate_id`: it takes sled's global lock, which waits while the
//! commit thread applies a batch, and a closure waiting there holds the writer lock, so
//! every transaction in the process would wait with it (each order emits three events).

use std::cell::Cell;

use sled::IVec;

use crate::codec;
use crate::error::Result;
use crate::keys::Key;
use crate::tables::{Meta, Table};

/// The `Meta` key of the reservation: every id handed out is below its value.
pub(crate) const RESERVED_KEY: &str = "ids_reserved";
/// Ids reserved per reservation write: one small extra write per this many ids.
const BLOCK: u64 = 65_536;

#[derive(Default)]
pub(crate) struct Ids {
    /// The next id to hand out.
    next: Cell<u64>,
    /// Every id below this is covered by a reservation in the open batch or in sled.
    reserved: u64,
}

impl Ids {
    /// Starts above every id handed out before: a block past the stored reservation (so
    /// that ids a crash lost with an unsynced tail are not handed out again either, as
    /// receivers may have seen them), and past sled's own generator for databases from
    /// before the reservation (and imported backups, whose import moves sled's generator
    /// past the export's next id).
    pub(crate) fn load(db: &sled::Db, meta: &sled::Tree) -> Result<Ids> {
        let stored = match meta.get(RESERVED_KEY.to_string().encode())? {
            Some(bytes) => codec::decode::<u64>(Meta::NAME, &bytes)?.saturating_add(BLOCK),
            None => 0,
        };
        let first = stored.max(db.generate_id()?);
        Ok(Ids {
            next: Cell::new(first),
            reserved: first,
        })
    }

    /// What closures draw from (see [`next_id`]).
    pub(crate) fn counter(&self) -> &Cell<u64> {
        &self.next
    }

    /// The next id to hand out, for a backup's snapshot.
    pub(crate) fn peek(&self) -> u64 {
        self.next.get()
    }

    /// After a closure with writes: the reservation write its batch must carry, if the
    /// ids it drew passed the reservation.
    pub(crate) fn reserve(&mut self) -> Option<(usize, IVec, IVec)> {
        let next = self.next.get();
        if next <= self.reserved {
            return None;
        }
        self.reserved = next + BLOCK;
        Some((
            Meta::INDEX,
            RESERVED_KEY.to_string().encode().into(),
            codec::encode(&self.reserved).into(),
        ))
    }
}

/// Hands out the next id. A closure that aborts or writes nothing leaves a gap, never a
/// reuse.
pub(crate) fn next_id(counter: &Cell<u64>) -> u64 {
    let id = counter.get();
    counter.set(id + 1);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_is_written_once_ids_pass_it_and_covers_a_block() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let meta = db.open_tree(Meta::NAME).unwrap();
        let mut ids = Ids::load(&db, &meta).unwrap();
        let first = ids.peek();
        assert_eq!(ids.reserve(), None, "nothing drawn yet");
        assert_eq!(next_id(ids.counter()), first);
        assert_eq!(next_id(ids.counter()), first + 1);
        let (table, key, value) = ids.reserve().expect("the drawn ids need a reservation");
        assert_eq!(table, Meta::INDEX);
        assert_eq!(
            codec::decode::<u64>("meta", &value).unwrap(),
            first + 2 + BLOCK
        );
        for _ in 0..BLOCK {
            next_id(ids.counter());
        }
        assert_eq!(ids.reserve(), None, "still inside the block");
        next_id(ids.counter());
        assert!(ids.reserve().is_some());
        // A restart goes on above the stored reservation.
        meta.insert(key, value).unwrap();
        let again = Ids::load(&db, &meta).unwrap();
        assert!(again.peek() >= first + 2 + 2 * BLOCK);
    }
}
