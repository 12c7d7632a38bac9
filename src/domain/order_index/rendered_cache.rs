//! A bounded cache of each order's rendered bytes, keyed by (id, updated_at_ms), so a
//! list page of hot orders is a concatenation instead of 50 reads, decodes and renders.
//! Opaque to the domain: the HTTP layer decides what the bytes are.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Bytes kept by default: several thousand orders (the hot first pages of each status;
/// a bulk-imported order renders to under 1 KB), small against the resident-memory
/// budget. The list benchmark's hot set (5,000 orders) fits.
pub const DEFAULT_BUDGET: usize = 12 * 1024 * 1024;

type Map = HashMap<u128, (i64, Arc<[u8]>)>;

/// Two generations: new and re-used entries go to `young`; when it holds half the budget
/// it becomes `old` and the previous `old` is dropped. An approximate LRU whose size
/// never exceeds the budget, with O(1) work per access.
struct Gens {
    young: Map,
    young_bytes: usize,
    old: Map,
}

pub struct RenderedCache {
    budget: usize,
    gens: Mutex<Gens>,
}

impl Default for RenderedCache {
    fn default() -> Self {
        RenderedCache::with_budget(DEFAULT_BUDGET)
    }
}

impl RenderedCache {
    pub fn with_budget(budget: usize) -> Self {
        RenderedCache {
            budget,
            gens: Mutex::new(Gens {
                young: Map::new(),
                young_bytes: 0,
                old: Map::new(),
            }),
        }
    }

    /// The cached bytes of each `(id, updated_at_ms)` (in order), `None` for misses or an
    /// older version. One lock for the whole page.
    pub fn get_many(&self, keys: &[(u128, i64)]) -> Vec<Option<Arc<[u8]>>> {
        let mut g = self.gens.lock().expect("rendered cache poisoned");
        keys.iter()
            .map(|&(id, version)| {
                if let Some((v, b)) = g.young.get(&id) {
                    return (*v == version).then(|| Arc::clone(b));
                }
                let (v, b) = g.old.remove(&id)?;
                let hit = (v == version).then(|| Arc::clone(&b));
                if hit.is_some() {
                    g.put(self.budget, id, v, b);
                }
                hit
            })
            .collect()
    }

    /// Keeps the bytes of one version of a record. The caller renders them from the record
    /// it read, so `version` is that record's own `updated_at_ms`.
    pub fn put(&self, id: u128, version: i64, bytes: Arc<[u8]>) {
        let mut g = self.gens.lock().expect("rendered cache poisoned");
        g.old.remove(&id);
        g.put(self.budget, id, version, bytes);
    }
}

impl Gens {
    fn put(&mut self, budget: usize, id: u128, version: i64, bytes: Arc<[u8]>) {
        let len = bytes.len();
        if len > budget / 4 {
            return;
        }
        if let Some((_, prev)) = self.young.remove(&id) {
            self.young_bytes -= prev.len();
        }
        if self.young_bytes + len > budget / 2 {
            self.old = std::mem::take(&mut self.young);
            self.young_bytes = 0;
        }
        self.young.insert(id, (version, bytes));
        self.young_bytes += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Arc<[u8]> {
        Arc::from(s.as_bytes())
    }

    #[test]
    fn hits_only_the_same_version_and_stays_within_its_budget() {
        let c = RenderedCache::with_budget(400);
        c.put(1, 10, b("one"));
        assert_eq!(c.get_many(&[(1, 10)])[0].as_deref(), Some(&b"one"[..]));
        assert!(c.get_many(&[(1, 11)])[0].is_none(), "another version");
        c.put(1, 11, b("one'"));
        assert_eq!(c.get_many(&[(1, 11), (2, 1)]).iter().flatten().count(), 1);
        for id in 0..1000u128 {
            c.put(id, 1, Arc::from(vec![b'x'; 50]));
            let g = c.gens.lock().unwrap();
            let total: usize = g
                .young
                .values()
                .chain(g.old.values())
                .map(|(_, b)| b.len())
                .sum();
            assert!(total <= 400, "{total} bytes kept");
        }
        assert!(c.get_many(&[(999, 1)])[0].is_some(), "the newest is kept");
        assert!(c.get_many(&[(0, 1)])[0].is_none(), "the oldest is gone");
    }
}
