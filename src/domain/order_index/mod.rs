//! The in-memory order index: the `q` search of orders (a case-insensitive substring match
//! on externalId, customerEmail, customerId and id) and the per-status list pages, rebuilt
//! at start and updated by `src/domain` after its commits; plus the cache of rendered orders.

mod ids;
mod load;
mod pages;
pub mod rank_bits;
pub mod rendered_cache;
mod snapshot;
#[cfg(test)]
mod tests;
mod text;

use std::sync::RwLock;

use memchr::memmem;
use storage::{OrderRecord, OrderStatus, OrderSummary};

pub use load::{Chunk, CHUNK};

use ids::{could_be_in_an_id, Entry, Ids};
use pages::{slot, StatusPages, STATUSES};
use rendered_cache::RenderedCache;
use text::Text;

/// The three parts under one lock, so a search or a page sees one state of all three.
#[derive(Default)]
struct Corpus {
    text: Text,
    ids: Ids,
    pages: StatusPages,
}

impl Corpus {
    /// Appends a version's text and entry (not yet in `by_rank`); returns its index.
    fn push(&mut self, o: &OrderSummary<'_>) -> usize {
        let start = self.text.push(o);
        self.push_entry(o.id, o.created_at_ms, o.updated_at_ms, o.status, start)
    }

    /// Appends the entry of a version whose text is in the arena at `start`; returns its
    /// index.
    fn push_entry(
        &mut self,
        id: u128,
        created_ms: i64,
        updated_ms: i64,
        status: OrderStatus,
        start: u32,
    ) -> usize {
        let idx = self.ids.entries.len();
        self.ids.entries.push(Entry {
            id_hi: (id >> 64) as u64,
            id_lo: id as u64,
            created_ms,
            updated_ms,
            start,
            status: slot(status) as u8,
            live: true,
        });
        self.text.index(start as usize, idx, self.ids.by_rank.len());
        idx
    }

    /// The text of entry `i` (its fields, without the end marker).
    fn entry_text(&self, i: usize) -> &[u8] {
        let start = self.ids.entries[i].start as usize;
        let end = self
            .ids
            .entries
            .get(i + 1)
            .map_or(self.text.bytes.len(), |e| e.start as usize);
        &self.text.bytes[start..end]
    }

    fn heap_bytes(&self) -> usize {
        self.text.heap_bytes() + self.ids.heap_bytes() + self.pages.heap_bytes()
    }
}

/// A search hit with what list filters need.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub id: u128,
    pub status: OrderStatus,
    pub created_ms: i64,
    pub updated_ms: i64,
}

impl From<&Entry> for Hit {
    fn from(e: &Entry) -> Hit {
        Hit {
            id: e.id(),
            status: STATUSES[e.status as usize],
            created_ms: e.created_ms,
            updated_ms: e.updated_ms,
        }
    }
}

#[derive(Default)]
pub struct OrderSearch {
    corpus: RwLock<Corpus>,
    /// Rendered orders by (id, updated_at_ms): list pages reuse them (see [`Self::page`]).
    pub rendered: RenderedCache,
}

impl OrderSearch {
    /// Adds or replaces an order's searchable text and status.
    pub fn upsert(&self, o: &OrderRecord) {
        let mut c = self.corpus.write().expect("search index poisoned");
        put(&mut c, &o.summary());
    }

    /// A newest-first page of live orders as (id, updated_at_ms), of one status or all,
    /// only ids `>= floor` if given, and the number of matches.
    pub fn page(
        &self,
        status: Option<OrderStatus>,
        floor: Option<u128>,
        offset: usize,
        limit: usize,
    ) -> (Vec<(u128, i64)>, u64) {
        let c = self.corpus.read().expect("search index poisoned");
        let from = floor.map_or(0, |f| c.ids.rank_from(f));
        let (ranks, total) = c
            .pages
            .descending(status, c.ids.by_rank.len(), from, offset, limit);
        let ids = ranks
            .into_iter()
            .map(|r| {
                let e = c.ids.entry(r);
                (e.id(), e.updated_ms)
            })
            .collect();
        (ids, total as u64)
    }

    /// Every live order whose fields contain `q` (case-insensitive), newest first: the
    /// gram candidates when they narrow the needle, else a SIMD scan of the arena plus the
    /// id match.
    pub fn find(&self, q: &str) -> Vec<Hit> {
        let needle = text::needle(q);
        let c = self.corpus.read().expect("search index poisoned");
        let mut hits = Vec::new();
        if let Some(candidates) = c.text.candidates(&needle) {
            let finder = memmem::Finder::new(&needle);
            for i in candidates {
                let i = i as usize;
                if c.ids.entries[i].live && finder.find(c.entry_text(i)).is_some() {
                    hits.push(Hit::from(&c.ids.entries[i]));
                }
            }
        } else {
            let mut last: Option<usize> = None;
            for pos in memmem::find_iter(&c.text.bytes, &needle) {
                // Entries are in arena order: the owner is the last entry starting at or before pos.
                let i = c.ids.entries.partition_point(|e| e.start as usize <= pos) - 1;
                if last == Some(i) {
                    continue;
                }
                last = Some(i);
                if c.ids.entries[i].live {
                    hits.push(Hit::from(&c.ids.entries[i]));
                }
            }
            if could_be_in_an_id(&needle) {
                let in_text = hits.len();
                hits.extend(c.ids.matching(&needle).map(Hit::from));
                if in_text > 0 {
                    hits.sort_unstable_by_key(|h| h.id);
                    hits.dedup_by_key(|h| h.id);
                }
            }
        }
        hits.sort_unstable_by_key(|h| std::cmp::Reverse(h.id));
        hits
    }

    /// Returns the growth slack of the arena, entries and gram lists (up to half of each
    /// after a bulk load: a quarter of the index's memory at a million orders).
    pub fn shrink(&self) {
        let mut c = self.corpus.write().expect("search index poisoned");
        c.text.shrink_to_fit();
        c.ids.shrink_to_fit();
        c.pages.shrink_to_fit();
    }

    /// An estimate of the index's heap (not counting the rendered cache or allocator slack).
    pub fn heap_bytes(&self) -> usize {
        self.corpus.read().map(|c| c.heap_bytes()).unwrap_or(0)
    }

    pub fn len(&self) -> usize {
        self.corpus.read().map(|c| c.ids.by_rank.len()).unwrap_or(0)
    }

    /// Live orders in each status.
    pub fn status_counts(&self) -> Vec<(OrderStatus, u64)> {
        let c = self.corpus.read().expect("search index poisoned");
        let ones = c.pages.by_status.iter().map(|b| b.ones() as u64);
        STATUSES.into_iter().zip(ones).collect()
    }

    /// Appends the index (not the rendered cache) to `out` as [`Self::decode`] reads it.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let c = self.corpus.read().expect("search index poisoned");
        let parts = snapshot::PartsRef {
            text: &c.text,
            ids: &c.ids,
            pages: &c.pages,
        };
        snapshot::encode(parts, out);
    }

    /// The index [`Self::encode`] wrote into `bytes`, with an empty rendered cache; or
    /// what is wrong with them.
    pub fn decode(bytes: &[u8]) -> Result<OrderSearch, String> {
        let p = snapshot::decode(bytes)?;
        let corpus = Corpus {
            text: p.text,
            ids: p.ids,
            pages: p.pages,
        };
        Ok(OrderSearch {
            corpus: RwLock::new(corpus),
            rendered: RenderedCache::default(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Adds or replaces an order's entry in `c`.
fn put(c: &mut Corpus, o: &OrderSummary<'_>) {
    let new_slot = slot(o.status);
    match c.ids.rank(o.id) {
        Ok(rank) => {
            let old = c.ids.by_rank[rank] as usize;
            // Writers of one order may call this out of order; updated_at_ms increases
            // with every write, so an older version never replaces a newer one.
            if o.updated_at_ms < c.ids.entries[old].updated_ms {
                return;
            }
            c.ids.entries[old].live = false;
            c.ids.dead += 1;
            let old_slot = c.ids.entries[old].status as usize;
            let idx = c.push(o);
            c.ids.by_rank[rank] = idx as u32;
            c.pages.moved(rank, old_slot, new_slot);
        }
        Err(rank) => {
            let idx = c.push(o);
            c.ids.by_rank.insert(rank, idx as u32);
            c.pages.insert(rank, new_slot);
        }
    }
    if c.ids.dead > 1024 && c.ids.dead * 2 > c.ids.entries.len() {
        compact(c);
    }
}

/// Drops dead entries' text once they are half the arena, rewriting the live ones in id
/// order (ranks, and so the status bits, do not change). This keeps arena offsets far
/// below 4 GiB.
fn compact(c: &mut Corpus) {
    let mut old = std::mem::take(c);
    c.pages = std::mem::take(&mut old.pages);
    c.text.common = std::mem::take(&mut old.text.common);
    c.ids.by_rank = Vec::with_capacity(old.ids.by_rank.len());
    for &i in &old.ids.by_rank {
        let i = i as usize;
        let e = old.ids.entries[i];
        let text = old.entry_text(i);
        let start = c.text.bytes.len();
        c.text.bytes.extend_from_slice(text);
        let idx = c.ids.entries.len();
        c.ids.entries.push(Entry {
            start: start as u32,
            ..e
        });
        c.ids.by_rank.push(idx as u32);
        c.text.index(start, idx, c.ids.by_rank.len());
    }
}
