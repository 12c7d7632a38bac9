//! The `q` search of orders: a case-insensitive substring match on externalId,
//! customerEmail, customerId and id, over one lowercase in-memory arena. A sampled 4-gram
//! index narrows most queries to a few candidates; the rest scan the arena with SIMD
//! `memmem`. Also the per-status id sets of list pages. Rebuilt at start, updated after commits.

use std::collections::{BTreeSet, HashMap};
use std::sync::RwLock;

use memchr::memmem;
use storage::{OrderRecord, OrderStatus};

use super::rendered_cache::RenderedCache;

/// Fields are joined by 0x00 and entries end with 0x01, so no match spans two fields.
const FIELD_SEP: u8 = 0;
const ENTRY_END: u8 = 1;

/// Grams are indexed only where a field offset is a multiple of `STEP`: a full 4-gram
/// index would be larger than the text; this one holds about a quarter of the windows.
/// Any occurrence of a needle of `STEP + 3` bytes or more covers an indexed window
/// (see [`Corpus::candidates`]).
const STEP: usize = 4;
/// Fields before the id are indexed. The id's text is hex digits and '-' only, so a
/// needle with any other byte cannot match there; other needles scan the arena.
const INDEXED_FIELDS: usize = 3;

fn gram(w: &[u8]) -> u32 {
    u32::from_le_bytes([w[0], w[1], w[2], w[3]])
}

fn could_be_in_an_id(needle: &[u8]) -> bool {
    needle
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b) || *b == b'-')
}

#[derive(Clone, Copy)]
struct Entry {
    id: u128,
    start: usize,
    status: OrderStatus,
    created_ms: i64,
    /// The record's `updated_at_ms`, its version for [`RenderedCache`].
    updated_ms: i64,
    live: bool,
}

#[derive(Default)]
struct Corpus {
    text: Vec<u8>,
    entries: Vec<Entry>,
    by_id: HashMap<u128, usize>,
    dead: usize,
    /// Live order ids per status (index [`slot`]): newest-first pages at any offset walk
    /// memory instead of sled, whose backward iteration costs a page lookup and key
    /// copies per entry (it dominated the status list). About 20 bytes per order.
    by_status: [BTreeSet<u128>; 5],
    /// Sampled 4-gram -> indexes of the entries holding it at a field offset that is a
    /// multiple of [`STEP`], ascending (dead entries stay until compaction).
    grams: HashMap<u32, Vec<u32>>,
}

impl Corpus {
    /// Indexes the fields of entry `idx`, whose text starts at `start`.
    fn index(&mut self, idx: usize, start: usize) {
        let end = self.text[start..]
            .iter()
            .position(|b| *b == ENTRY_END)
            .map_or(self.text.len(), |p| start + p);
        let mut field_start = start;
        for _ in 0..INDEXED_FIELDS {
            let field_end = self.text[field_start..end]
                .iter()
                .position(|b| *b == FIELD_SEP)
                .map_or(end, |p| field_start + p);
            let mut p = field_start;
            while p + 4 <= field_end {
                let list = self.grams.entry(gram(&self.text[p..p + 4])).or_default();
                if list.last() != Some(&(idx as u32)) {
                    list.push(idx as u32);
                }
                p += STEP;
            }
            field_start = (field_end + 1).min(end);
        }
    }

    /// The entries that may contain `needle` (ascending, with dead ones), or `None` when
    /// the index cannot tell (short needles, needles that could match inside an id).
    ///
    /// An occurrence at field offset `p` has the needle's windows at `j`, `j + STEP`, ...
    /// (for `j = (STEP - p % STEP) % STEP`, so `j + 4 <= needle.len()`) all at indexed
    /// offsets: its entry is in every one of those windows' lists. So the union over `j`
    /// of the intersections of the lists is a superset of the matching entries.
    fn candidates(&self, needle: &[u8]) -> Option<Vec<u32>> {
        if needle.len() < STEP + 3 || could_be_in_an_id(needle) {
            return None;
        }
        let mut out = Vec::new();
        for j in 0..STEP {
            let mut lists = Vec::new();
            let mut p = j;
            while p + 4 <= needle.len() {
                match self.grams.get(&gram(&needle[p..p + 4])) {
                    Some(list) => lists.push(list),
                    None => {
                        lists.clear();
                        break;
                    }
                }
                p += STEP;
            }
            if lists.is_empty() {
                continue;
            }
            lists.sort_unstable_by_key(|l| l.len());
            out.extend(
                lists[0]
                    .iter()
                    .filter(|i| lists[1..].iter().all(|l| l.binary_search(i).is_ok())),
            );
        }
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// The text of entry `i` (its fields, without the end marker).
    fn entry_text(&self, i: usize) -> &[u8] {
        let start = self.entries[i].start;
        let end = self.entries.get(i + 1).map_or(self.text.len(), |e| e.start);
        &self.text[start..end]
    }
}

fn slot(s: OrderStatus) -> usize {
    match s {
        OrderStatus::Pending => 0,
        OrderStatus::Processing => 1,
        OrderStatus::Shipped => 2,
        OrderStatus::Delivered => 3,
        OrderStatus::Cancelled => 4,
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

#[derive(Default)]
pub struct OrderSearch {
    corpus: RwLock<Corpus>,
    /// Rendered orders by (id, updated_at_ms): list pages reuse them (see [`Self::page`]).
    pub rendered: RenderedCache,
}

fn push_lower(text: &mut Vec<u8>, s: &str) {
    text.extend(
        s.bytes()
            .map(|b| b.to_ascii_lowercase())
            .filter(|b| *b > ENTRY_END),
    );
}

impl OrderSearch {
    /// Adds or replaces an order's searchable text and status.
    pub fn upsert(&self, o: &OrderRecord) {
        let mut c = self.corpus.write().expect("search index poisoned");
        if let Some(&i) = c.by_id.get(&o.id) {
            // Writers of one order may call this out of order; updated_at_ms increases
            // with every write, so an older version never replaces a newer one.
            if o.updated_at_ms < c.entries[i].updated_ms {
                return;
            }
            c.entries[i].live = false;
            c.dead += 1;
            let old = slot(c.entries[i].status);
            c.by_status[old].remove(&o.id);
        }
        c.by_status[slot(o.status)].insert(o.id);
        let start = c.text.len();
        push_lower(&mut c.text, &o.external_id);
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, &o.customer_email);
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, o.customer_id.as_deref().unwrap_or(""));
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, &uuid::Uuid::from_u128(o.id).to_string());
        c.text.push(ENTRY_END);
        let idx = c.entries.len();
        c.entries.push(Entry {
            id: o.id,
            start,
            status: o.status,
            created_ms: o.created_at_ms,
            updated_ms: o.updated_at_ms,
            live: true,
        });
        c.by_id.insert(o.id, idx);
        c.index(idx, start);
        if c.dead > 1024 && c.dead * 2 > c.entries.len() {
            compact(&mut c);
        }
    }

    /// A newest-first page of live orders as (id, updated_at_ms), of one status or all,
    /// only ids `>= floor` if given, and the number of matches. Skipped ids cost an
    /// in-memory step each.
    pub fn page(
        &self,
        status: Option<OrderStatus>,
        floor: Option<u128>,
        offset: usize,
        limit: usize,
    ) -> (Vec<(u128, i64)>, u64) {
        let c = self.corpus.read().expect("search index poisoned");
        let floor = floor.unwrap_or(0);
        let sets: Vec<&BTreeSet<u128>> = match status {
            Some(s) => vec![&c.by_status[slot(s)]],
            None => c.by_status.iter().collect(),
        };
        let total: usize = sets
            .iter()
            .map(|set| {
                if floor == 0 {
                    set.len()
                } else {
                    set.range(floor..).count()
                }
            })
            .sum();
        // Merge the sets' newest-first walks (a status belongs to one set, so no repeats).
        let mut walks: Vec<_> = sets
            .iter()
            .map(|set| set.range(floor..).rev().peekable())
            .collect();
        let mut ids = Vec::with_capacity(limit.min(total));
        let mut n = 0;
        while ids.len() < limit {
            let mut best: Option<(usize, u128)> = None;
            for (i, w) in walks.iter_mut().enumerate() {
                if let Some(&&id) = w.peek() {
                    if best.is_none_or(|(_, b)| id > b) {
                        best = Some((i, id));
                    }
                }
            }
            let Some((i, id)) = best else { break };
            walks[i].next();
            if n >= offset {
                ids.push((id, c.by_id.get(&id).map_or(0, |&i| c.entries[i].updated_ms)));
            }
            n += 1;
        }
        (ids, total as u64)
    }

    /// Every live order whose fields contain `q` (case-insensitive), newest first.
    pub fn find(&self, q: &str) -> Vec<Hit> {
        let needle: Vec<u8> = q
            .bytes()
            .map(|b| b.to_ascii_lowercase())
            .filter(|b| *b > ENTRY_END)
            .collect();
        let c = self.corpus.read().expect("search index poisoned");
        let mut hits = Vec::new();
        let hit = |e: &Entry| Hit {
            id: e.id,
            status: e.status,
            created_ms: e.created_ms,
            updated_ms: e.updated_ms,
        };
        if let Some(candidates) = c.candidates(&needle) {
            let finder = memmem::Finder::new(&needle);
            for i in candidates {
                let i = i as usize;
                if c.entries[i].live && finder.find(c.entry_text(i)).is_some() {
                    hits.push(hit(&c.entries[i]));
                }
            }
        } else {
            let mut last: Option<usize> = None;
            for pos in memmem::find_iter(&c.text, &needle) {
                // Entries are in arena order: the owner is the last entry starting at or before pos.
                let i = c.entries.partition_point(|e| e.start <= pos) - 1;
                if last == Some(i) {
                    continue;
                }
                last = Some(i);
                if c.entries[i].live {
                    hits.push(hit(&c.entries[i]));
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
        c.entries.shrink_to_fit();
        c.by_id.shrink_to_fit();
        for list in c.grams.values_mut() {
            list.shrink_to_fit();
        }
        c.grams.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.corpus.read().map(|c| c.by_id.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Drops dead entries' text once they are half the arena.
fn compact(c: &mut Corpus) {
    let mut old = std::mem::take(c);
    c.by_status = std::mem::take(&mut old.by_status);
    for e in old.entries.iter().filter(|e| e.live) {
        let end = old.text[e.start..]
            .iter()
            .position(|b| *b == ENTRY_END)
            .map_or(old.text.len(), |p| e.start + p + 1);
        let start = c.text.len();
        c.text.extend_from_slice(&old.text[e.start..end]);
        let idx = c.entries.len();
        c.by_id.insert(e.id, idx);
        c.entries.push(Entry { start, ..*e });
        c.index(idx, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(id: u128, ext: &str, email: &str, cust: Option<&str>) -> OrderRecord {
        OrderRecord {
            id,
            external_id: ext.into(),
            customer_id: cust.map(str::to_string),
            customer_email: email.into(),
            status: OrderStatus::Pending,
            lines: vec![],
            shipping_addresses: vec![],
            billing_address: None,
            total: "0".into(),
            item_count: 0,
            request_sha256: vec![],
            cancel_reason: None,
            pending_reason: None,
            created_at_ms: id as i64,
            updated_at_ms: 0,
        }
    }

    #[test]
    fn matches_each_field_case_insensitively_newest_first_and_never_across_fields() {
        let s = OrderSearch::default();
        s.upsert(&order(1, "SHOP-100", "ann@example.com", Some("C-7")));
        s.upsert(&order(2, "shop-200", "bob@example.com", None));
        s.upsert(&order(3, "AMZ-1", "carol@shop.io", Some("VIP-9")));
        let ids = |q: &str| s.find(q).iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(ids("shop"), [3, 2, 1]);
        assert_eq!(ids("SHOP-1"), [1]);
        assert_eq!(ids("vip"), [3]);
        assert_eq!(ids("100ann"), Vec::<u128>::new(), "no match across fields");
        let uuid_fragment = uuid::Uuid::from_u128(2).to_string()[28..].to_string();
        assert_eq!(ids(&uuid_fragment), [2]);
        s.upsert(&order(1, "SHOP-100", "ann@new.org", Some("C-7")));
        assert_eq!(ids("example"), [2], "replaced text is gone");
        assert_eq!(ids("new.org"), [1]);
        assert_eq!(s.len(), 3);
        let mut stale = order(1, "OLD-1", "ann@old.org", None);
        stale.updated_at_ms = -1;
        s.upsert(&stale);
        assert_eq!(
            ids("old"),
            Vec::<u128>::new(),
            "an older version is ignored"
        );
    }

    #[test]
    fn pages_by_status_newest_first_follow_upserts_and_status_changes() {
        let s = OrderSearch::default();
        for id in 1..=10u128 {
            s.upsert(&order(id, &format!("E{id}"), "x@y.z", None));
        }
        let mut cancelled = order(4, "E4", "x@y.z", None);
        cancelled.status = OrderStatus::Cancelled;
        s.upsert(&cancelled);
        let mut shipped = order(7, "E7", "x@y.z", None);
        shipped.status = OrderStatus::Shipped;
        s.upsert(&shipped);
        let ids = |status, floor, offset, limit| {
            let (page, total) = s.page(status, floor, offset, limit);
            (
                page.into_iter().map(|(id, _)| id).collect::<Vec<_>>(),
                total,
            )
        };
        assert_eq!(
            ids(Some(OrderStatus::Pending), None, 0, 3),
            (vec![10, 9, 8], 8)
        );
        assert_eq!(
            ids(Some(OrderStatus::Pending), None, 3, 3),
            (vec![6, 5, 3], 8)
        );
        assert_eq!(ids(Some(OrderStatus::Cancelled), None, 0, 50), (vec![4], 1));
        assert_eq!(
            ids(None, None, 2, 4),
            (vec![8, 7, 6, 5], 10),
            "all statuses merged"
        );
        assert_eq!(ids(None, Some(6), 0, 50), (vec![10, 9, 8, 7, 6], 5));
        assert_eq!(ids(None, None, 20, 5), (vec![], 10));
    }

    #[test]
    fn the_gram_index_finds_what_a_scan_finds() {
        let s = OrderSearch::default();
        for id in 0..3000u128 {
            let email = format!("b{id}@Example.com");
            s.upsert(&order(
                id,
                &format!("BULK-{id}"),
                &email,
                Some(&format!("C{}", id % 97)),
            ));
        }
        s.upsert(&order(5000, "xBULK-12y", "q@r.st", None));
        let scan = |q: &str| {
            let needle = q.to_ascii_lowercase();
            let mut ids: Vec<u128> = (0..3000u128)
                .filter(|id| {
                    let c = format!("C{}", id % 97).to_ascii_lowercase();
                    [format!("bulk-{id}"), format!("b{id}@example.com"), c]
                        .iter()
                        .any(|f| f.contains(&needle))
                })
                .collect();
            if "xbulk-12y".contains(&needle) {
                ids.push(5000);
            }
            ids.sort_unstable_by(|a, b| b.cmp(a));
            ids
        };
        for q in [
            "BULK-12", "bulk-123", "ulk-12", "LK-2999", "K-1000", "-1234", "@example", "1@exam",
            "xample.c", "BULK-12y", "b29@ex", "bulk-300", "c96",
        ] {
            let ids: Vec<u128> = s.find(q).iter().map(|h| h.id).collect();
            assert_eq!(ids, scan(q), "{q}");
        }
        let c = s.corpus.read().unwrap();
        assert!(
            c.candidates(b"bulk-123").is_some_and(|v| v.len() < 20),
            "narrowed"
        );
        assert!(c.candidates(b"12345678").is_none(), "hex-like needles scan");
    }

    #[test]
    fn compaction_keeps_every_live_entry() {
        let s = OrderSearch::default();
        for round in 0..5 {
            for id in 0..1000u128 {
                s.upsert(&order(id, &format!("E{id}-r{round}"), "x@y.z", None));
            }
        }
        assert_eq!(s.find("-r4").len(), 1000);
        assert_eq!(s.find("-r3").len(), 0);
        assert_eq!(s.find("e999-").len(), 1);
        assert!(s.corpus.read().unwrap().entries.len() < 5000, "compacted");
        assert_eq!(
            s.page(None, None, 0, 1).1,
            1000,
            "status index survives compaction"
        );
    }
}
