//! Exact in-memory copies of the small tables read on hot paths: the catalog tables that
//! every order line reads (products, inventory, warehouses and the counters in `Meta`), and
//! the webhook subscriptions and their cursors, which the webhook engine reads on every
//! pass. Why: a sled read waits while the commit thread applies a batch (sled 0.34 takes a
//! global lock for each transaction), and inside `transact` such a wait holds our writer
//! lock too. Loaded once at open, then kept equal to sled by the commit thread, which
//! applies each batch here right after sled. The cost is about 1 KB per product with two
//! inventory records: large catalogs only, where sled's cache would have needed that
//! memory to be fast anyway. Large tables probed mostly for keys they lack keep only their
//! key set here (`key_set.rs`), which answers those misses.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use sled::IVec;

use crate::error::Result;
use crate::key_set::KeySet;
use crate::tables::{
    Inventory, InventoryBySku, Meta, OrdersByExternalId, Products, ProductsBySku, Table,
    Warehouses, WebhookCursors, Webhooks, TABLE_NAMES,
};
use crate::write_set::WriteSet;

/// Tables held in memory. They stay small next to orders and their history: one record
/// per product, per (SKU, warehouse), per warehouse and per webhook subscription (two),
/// and a few dozen counters.
const MIRRORED: &[usize] = &[
    Meta::INDEX,
    Products::INDEX,
    ProductsBySku::INDEX,
    Warehouses::INDEX,
    Inventory::INDEX,
    InventoryBySku::INDEX,
    Webhooks::INDEX,
    WebhookCursors::INDEX,
];

/// Tables whose key set is held: every new order checks that its `externalId` is not
/// taken. About 16 bytes per order, next to the order index's hundreds; the keys stored
/// before open are read by a thread of their own (`key_set.rs`).
const KEYED: &[usize] = &[OrdersByExternalId::INDEX];

type Map = BTreeMap<IVec, IVec>;

pub(crate) struct Mirror {
    /// By table index; `None` for tables read from sled.
    tables: Vec<Option<RwLock<Map>>>,
    /// By table index; `None` for tables without a key set.
    keys: Vec<Option<Arc<KeySet>>>,
    /// By table index: how many applied batches wrote the table (mirrored tables only).
    versions: Vec<AtomicU64>,
}

impl Mirror {
    /// Copies the mirrored tables out of sled. Runs before the commit thread starts, so
    /// nothing writes them meanwhile.
    pub(crate) fn load(trees: &[sled::Tree]) -> Result<Mirror> {
        let mut tables: Vec<Option<RwLock<Map>>> = TABLE_NAMES.iter().map(|_| None).collect();
        for &t in MIRRORED {
            let map = trees[t].iter().collect::<std::result::Result<Map, _>>()?;
            tables[t] = Some(RwLock::new(map));
        }
        let mut keys: Vec<Option<Arc<KeySet>>> = TABLE_NAMES.iter().map(|_| None).collect();
        for &t in KEYED {
            let set = KeySet::new();
            KeySet::load(&set, trees[t].clone());
            keys[t] = Some(set);
        }
        let versions = TABLE_NAMES.iter().map(|_| AtomicU64::new(0)).collect();
        Ok(Mirror {
            tables,
            keys,
            versions,
        })
    }

    /// `None` if `table` is not mirrored; otherwise a number that changes whenever an
    /// applied batch writes it. Read before the entries it vouches for: the count moves
    /// only after the entries did, so a copy taken after reading it is at least as new.
    pub(crate) fn version(&self, table: usize) -> Option<u64> {
        self.table(table)?;
        Some(self.versions[table].load(Ordering::Acquire))
    }

    /// Waits until every key set has read the keys stored at open.
    pub(crate) fn wait_key_sets(&self) {
        self.keys.iter().flatten().for_each(|set| set.wait_loaded());
    }

    fn table(&self, table: usize) -> Option<&RwLock<Map>> {
        self.tables[table].as_ref()
    }

    /// What `table` holds at `key` if memory knows: always for a mirrored table, and for a
    /// key-set table when the key was never written. `None`: read sled.
    pub(crate) fn get(&self, table: usize, key: &[u8]) -> Option<Option<IVec>> {
        if let Some(set) = &self.keys[table] {
            return set.surely_absent(key).then_some(None);
        }
        let map = self.table(table)?;
        Some(read(map).get(key).cloned())
    }

    /// `None` if `table` is not mirrored; otherwise a snapshot of its entries in `range`,
    /// in key order. Entries are reference-counted or inline, so the copy is cheap.
    pub(crate) fn range(
        &self,
        table: usize,
        range: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> Option<Vec<(IVec, IVec)>> {
        let map = self.table(table)?;
        if is_empty_range(&range) {
            return Some(Vec::new());
        }
        let map = read(map);
        Some(
            map.range::<[u8], _>(range)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// `None` if `table` is not mirrored; otherwise a snapshot of the entries whose key
    /// starts with `prefix`.
    pub(crate) fn prefix(&self, table: usize, prefix: &[u8]) -> Option<Vec<(IVec, IVec)>> {
        let map = self.table(table)?;
        let map = read(map);
        Some(
            map.range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded))
                .take_while(|(k, _)| k.starts_with(prefix))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Applies a batch that sled has just taken, table by table.
    pub(crate) fn apply(&self, batch: &WriteSet) {
        for &t in KEYED {
            let written = batch.table(t).filter(|(_, v)| v.is_some());
            let mut written = written.map(|(k, _)| &k[..]).peekable();
            if written.peek().is_some() {
                self.keys[t].as_ref().expect("key set").add(written);
            }
        }
        for &t in MIRRORED {
            let mut writes = batch.table(t).peekable();
            if writes.peek().is_none() {
                continue;
            }
            let mut map = self.tables[t]
                .as_ref()
                .expect("mirrored")
                .write()
                .unwrap_or_else(|e| e.into_inner());
            for (key, value) in writes {
                match value {
                    Some(v) => map.insert(key.clone(), v.clone()),
                    None => map.remove(key),
                };
            }
            self.versions[t].fetch_add(1, Ordering::Release);
        }
    }
}

/// Whether `range` can hold no key; `BTreeMap::range` panics on some of these (start
/// after end, or equal and both excluded) where a scan should just find nothing.
fn is_empty_range(range: &(Bound<&[u8]>, Bound<&[u8]>)) -> bool {
    match *range {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => {
            a >= b
        }
        _ => false,
    }
}

fn read(map: &RwLock<Map>) -> std::sync::RwLockReadGuard<'_, Map> {
    // Only a panic inside `apply` poisons the lock, and it does no fallible work.
    map.read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tables::Outbox;

    #[test]
    fn empty_and_inverted_ranges_find_nothing_instead_of_panicking() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let trees: Vec<sled::Tree> = TABLE_NAMES
            .iter()
            .map(|n| db.open_tree(n).unwrap())
            .collect();
        trees[Products::INDEX].insert(b"b", &b"1"[..]).unwrap();
        let mirror = Mirror::load(&trees).unwrap();
        let t = Products::INDEX;
        let (b, c): (&[u8], &[u8]) = (b"b", b"c");
        use Bound::{Excluded, Included, Unbounded};
        for range in [
            (Included(c), Included(b)),
            (Excluded(b), Excluded(b)),
            (Included(b), Excluded(b)),
        ] {
            assert_eq!(mirror.range(t, range), Some(Vec::new()), "{range:?}");
        }
        let hit = mirror.range(t, (Included(b), Included(b))).unwrap();
        assert_eq!(hit.len(), 1);
        assert_eq!(mirror.range(t, (Unbounded, Excluded(b))), Some(Vec::new()));
        assert_eq!(
            mirror.range(Outbox::INDEX, (Unbounded, Unbounded)),
            None,
            "not mirrored"
        );
    }
}
