//! The in-memory index of live products that list pages walk, newest first, holding
//! each product's rendered bytes at its current version (updatedAt) within a byte budget.
//! Loaded from storage at start and updated after every committed create, update and
//! delete (`domain::products`). The bytes are opaque here: the HTTP layer renders them.
//!
//! Why: a 200-product page from sled cost a backward iteration over `ProductsLive` (a
//! page lookup and key copies per skipped entry) plus 200 reads, bincode decodes and
//! renders. Here it is a slice of a sorted vector whose entries carry their bytes: a
//! separate hash-map cache (as orders use) cost a cache miss per lookup, 200 per page,
//! which `perf` showed as 30% of the list's CPU.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use storage::ProductRecord;

/// Rendered bytes kept by default: a catalog of ~75,000 products (~430 bytes each).
pub const DEFAULT_BUDGET: usize = 32 * 1024 * 1024;

struct Entry {
    id: u128,
    /// The product's `updated_at_ms`: every write moves it forward, so it is a version.
    version: i64,
    /// The product rendered at `version`, if a page has needed it since it was written.
    rendered: Option<Arc<[u8]>>,
    /// Set when a page hands `rendered` out; the eviction sweep then spares it once.
    used: AtomicBool,
}

#[derive(Default)]
struct Live {
    /// Live products ascending by id. Ids are UUIDv7 whose timestamp is the product's
    /// `created_at_ms`, so this is createdAt-then-id order. A sorted vector: a page at any
    /// offset is a slice (stepping a B-tree past 10,000 entries took a quarter of the
    /// list's CPU), new ids land at the end, and only a delete moves the tail (a memmove
    /// of 48 bytes per product, ~0.5 ms at 100,000).
    entries: Vec<Entry>,
    /// Deleted ids. Deletion is final, and writers of one product may update the index
    /// out of commit order: a late create or update must not bring a deleted one back.
    deleted: HashSet<u128>,
    rendered_bytes: usize,
    /// Where the eviction sweep (a clock) resumes.
    hand: usize,
}

/// One product of a page: its id, version and rendered bytes if they are cached.
pub struct Row {
    pub id: u128,
    pub version: i64,
    pub rendered: Option<Arc<[u8]>>,
}

pub struct ProductIndex {
    live: RwLock<Live>,
    budget: usize,
}

impl Default for ProductIndex {
    fn default() -> Self {
        ProductIndex::with_budget(DEFAULT_BUDGET)
    }
}

impl Live {
    fn find(&self, id: u128) -> Result<usize, usize> {
        // New ids are almost always the largest: check the end before searching.
        match self.entries.last() {
            Some(last) if last.id < id => Err(self.entries.len()),
            _ => self.entries.binary_search_by_key(&id, |e| e.id),
        }
    }

    fn drop_rendered(&mut self, i: usize) {
        if let Some(b) = self.entries[i].rendered.take() {
            self.rendered_bytes -= b.len();
        }
    }

    /// Drops unused bytes until a quarter of the budget is free: a clock sweep that
    /// spares (once) entries a page has used since the last pass.
    fn evict(&mut self, budget: usize) {
        let target = budget - budget / 4;
        let mut steps = 2 * self.entries.len();
        while self.rendered_bytes > target && steps > 0 {
            if self.hand >= self.entries.len() {
                self.hand = 0;
            }
            let i = self.hand;
            if !std::mem::replace(self.entries[i].used.get_mut(), false) {
                self.drop_rendered(i);
            }
            self.hand += 1;
            steps -= 1;
        }
    }
}

impl ProductIndex {
    pub fn with_budget(budget: usize) -> Self {
        ProductIndex {
            live: RwLock::new(Live::default()),
            budget,
        }
    }

    /// Records a committed version of a product (created, updated or soft-deleted).
    /// An older version than the one indexed is ignored.
    pub fn upsert(&self, p: &ProductRecord) {
        let mut l = self.live.write().expect("product index poisoned");
        if l.deleted.contains(&p.id) {
            return;
        }
        let at = l.find(p.id);
        if p.deleted_at_ms.is_some() {
            if let Ok(i) = at {
                l.drop_rendered(i);
                l.entries.remove(i);
            }
            l.deleted.insert(p.id);
            return;
        }
        match at {
            Ok(i) if l.entries[i].version < p.updated_at_ms => {
                l.drop_rendered(i);
                l.entries[i].version = p.updated_at_ms;
            }
            Ok(_) => {}
            Err(i) => l.entries.insert(
                i,
                Entry {
                    id: p.id,
                    version: p.updated_at_ms,
                    rendered: None,
                    used: AtomicBool::new(false),
                },
            ),
        }
    }

    /// A newest-first page of live products, and the number of live products, both from
    /// one snapshot.
    pub fn page(&self, offset: usize, limit: usize) -> (Vec<Row>, u64) {
        let l = self.live.read().expect("product index poisoned");
        let n = l.entries.len();
        let end = n.saturating_sub(offset);
        let start = end.saturating_sub(limit);
        let rows = l.entries[start..end]
            .iter()
            .rev()
            .map(|e| {
                if e.rendered.is_some() && !e.used.load(Ordering::Relaxed) {
                    e.used.store(true, Ordering::Relaxed);
                }
                Row {
                    id: e.id,
                    version: e.version,
                    rendered: e.rendered.clone(),
                }
            })
            .collect();
        (rows, n as u64)
    }

    /// Keeps the rendered bytes of one version of a product. The caller renders them from
    /// the record it read, so `version` is that record's own `updated_at_ms`; bytes of a
    /// version the index no longer (or not yet) holds are not kept.
    pub fn keep_rendered(&self, id: u128, version: i64, bytes: Arc<[u8]>) {
        if bytes.len() > self.budget / 4 {
            return;
        }
        let mut l = self.live.write().expect("product index poisoned");
        let Ok(i) = l.find(id) else { return };
        if l.entries[i].version != version {
            return;
        }
        l.drop_rendered(i);
        l.rendered_bytes += bytes.len();
        l.entries[i].rendered = Some(bytes);
        if l.rendered_bytes > self.budget {
            l.evict(self.budget);
        }
    }

    /// The number of live products.
    pub fn len(&self) -> usize {
        self.live.read().map(|l| l.entries.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::Orientation;

    fn product(id: u128, version: i64, deleted: bool) -> ProductRecord {
        ProductRecord {
            id,
            sku: format!("P{id}"),
            name: "n".into(),
            description: String::new(),
            price: "1".into(),
            unit_cost: None,
            cost_currency: None,
            weight: None,
            dimensions: None,
            hazmat: None,
            orientation: Orientation::Any,
            low_stock_threshold: 0,
            created_at_ms: id as i64,
            updated_at_ms: version,
            deleted_at_ms: deleted.then_some(version),
        }
    }

    fn ids(ix: &ProductIndex, offset: usize, limit: usize) -> (Vec<u128>, u64) {
        let (page, total) = ix.page(offset, limit);
        (page.into_iter().map(|r| r.id).collect(), total)
    }

    #[test]
    fn pages_newest_first_with_offsets_consistent_with_the_total() {
        let ix = ProductIndex::default();
        for id in [3u128, 1, 5, 2, 4] {
            ix.upsert(&product(id, 10, false));
        }
        assert_eq!(ids(&ix, 0, 2), (vec![5, 4], 5));
        assert_eq!(ids(&ix, 2, 2), (vec![3, 2], 5));
        assert_eq!(ids(&ix, 4, 2), (vec![1], 5));
        assert_eq!(ids(&ix, 5, 2), (vec![], 5));
    }

    #[test]
    fn follows_updates_and_deletes_and_ignores_late_older_versions() {
        let ix = ProductIndex::default();
        ix.upsert(&product(1, 10, false));
        ix.upsert(&product(2, 10, false));
        ix.upsert(&product(1, 12, false));
        ix.upsert(&product(1, 11, false));
        let versions: Vec<(u128, i64)> =
            ix.page(0, 10).0.iter().map(|r| (r.id, r.version)).collect();
        assert_eq!(versions, [(2, 10), (1, 12)], "newest version kept");
        ix.upsert(&product(2, 13, true));
        ix.upsert(&product(2, 11, false));
        assert_eq!(ids(&ix, 0, 10), (vec![1], 1), "a deleted product stays out");
        assert_eq!(ix.len(), 1);
    }

    fn bytes(n: usize) -> Arc<[u8]> {
        Arc::from(vec![b'x'; n])
    }

    fn rendered(ix: &ProductIndex, id: u128) -> bool {
        let (page, _) = ix.page(0, usize::MAX);
        page.iter().any(|r| r.id == id && r.rendered.is_some())
    }

    #[test]
    fn keeps_rendered_bytes_only_for_the_current_version() {
        let ix = ProductIndex::default();
        ix.upsert(&product(1, 10, false));
        ix.keep_rendered(1, 9, bytes(3));
        assert!(!rendered(&ix, 1), "an older version is not kept");
        ix.keep_rendered(1, 10, bytes(3));
        assert!(rendered(&ix, 1));
        ix.upsert(&product(1, 11, false));
        assert!(!rendered(&ix, 1), "an update drops the old bytes");
        ix.keep_rendered(1, 11, bytes(3));
        ix.upsert(&product(1, 11, false));
        assert!(rendered(&ix, 1), "the same version keeps them");
        ix.upsert(&product(1, 12, true));
        ix.keep_rendered(1, 12, bytes(3));
        assert_eq!(ix.page(0, 10).0.len(), 0);
        assert_eq!(ix.live.read().unwrap().rendered_bytes, 0);
    }

    #[test]
    fn stays_within_its_budget_and_spares_what_pages_use() {
        let ix = ProductIndex::with_budget(1000);
        for id in 0..100u128 {
            ix.upsert(&product(id, 1, false));
        }
        for id in 0..10u128 {
            ix.keep_rendered(id, 1, bytes(50));
        }
        for id in 10..100u128 {
            // Products 0 and 1 (the last page) stay hot; the others are kept once.
            let (last, _) = ix.page(98, 2);
            assert!(last.iter().all(|r| r.rendered.is_some()));
            ix.keep_rendered(id, 1, bytes(50));
            assert!(ix.live.read().unwrap().rendered_bytes <= 1000);
        }
        assert!(rendered(&ix, 0) && rendered(&ix, 1), "used ones spared");
        assert!(!rendered(&ix, 2), "an unused old one evicted");
    }
}
