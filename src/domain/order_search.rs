//! The `q` search of orders: a case-insensitive substring match on externalId,
//! customerEmail, customerId and id, over one lowercase in-memory arena of the first three
//! (ids are matched as 128-bit numbers). A sampled 4-gram index narrows most queries to a
//! few candidates; the rest scan the arena with SIMD `memmem`. Also the per-status sets of
//! list pages, as bitsets over the orders' id ranks. Rebuilt at start, updated after commits.

use std::collections::{HashMap, HashSet};
use std::sync::RwLock;

use memchr::memmem;
use storage::{OrderRecord, OrderStatus};

use super::rank_bits::RankBits;
use super::rendered_cache::RenderedCache;

/// Fields are joined by 0x00 and entries end with 0x01, so no match spans two fields.
const FIELD_SEP: u8 = 0;
const ENTRY_END: u8 = 1;

/// Grams are indexed only where a field offset is a multiple of `STEP`: a full 4-gram
/// index would be larger than the text; this one holds about a quarter of the windows.
/// Any occurrence of a needle of `STEP + 3` bytes or more covers an indexed window
/// (see [`Corpus::candidates`]).
const STEP: usize = 4;

/// A gram held by more than a quarter of the orders (and at least this many) loses its
/// list and becomes "common": it narrows little (`bulk`, `exam`, `.com` in every order),
/// and such lists were a third of the postings. Treating it as held by every entry keeps
/// the candidates a superset.
const COMMON_MIN: usize = if cfg!(test) { 64 } else { 65_536 };

fn gram(w: &[u8]) -> u32 {
    u32::from_le_bytes([w[0], w[1], w[2], w[3]])
}

/// Whether `needle` can occur in an id's text (lowercase hex digits and '-').
fn could_be_in_an_id(needle: &[u8]) -> bool {
    needle
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b) || *b == b'-')
}

/// Where the hyphens of a hyphenated UUID's 36 characters are.
const UUID_DASHES: [usize; 4] = [8, 13, 18, 23];

/// A needle of hex digits and '-' as (mask, value) pairs over the id's 128 bits, one per
/// offset of the 36-character text where its '-' fall exactly on the hyphens: the text
/// of `id` contains the needle iff `id & mask == value` for one of them. Matching 16-byte
/// ids this way replaces 37 bytes of id text per order in the arena.
fn id_patterns(needle: &[u8]) -> Vec<(u128, u128)> {
    let mut out = Vec::new();
    if needle.len() > 36 {
        return out;
    }
    'offsets: for p in 0..=36 - needle.len() {
        let (mut mask, mut value) = (0u128, 0u128);
        for (i, &b) in needle.iter().enumerate() {
            let c = p + i;
            let dashes_before = UUID_DASHES.iter().filter(|d| **d < c).count();
            if UUID_DASHES.contains(&c) != (b == b'-') {
                continue 'offsets;
            }
            if b == b'-' {
                continue;
            }
            let digit = (b as char).to_digit(16).expect("hex digit") as u128;
            let shift = 124 - 4 * (c - dashes_before);
            mask |= 0xf << shift;
            value |= digit << shift;
        }
        out.push((mask, value));
    }
    out
}

/// One version of one order's searchable fields, in arena order. 40 bytes.
#[derive(Clone, Copy)]
struct Entry {
    id_hi: u64,
    id_lo: u64,
    created_ms: i64,
    /// The record's `updated_at_ms`, its version for [`RenderedCache`].
    updated_ms: i64,
    /// Where its text starts in the arena (the arena is compacted long before 4 GiB:
    /// see [`Corpus::push`]).
    start: u32,
    status: u8,
    live: bool,
}

impl Entry {
    fn id(&self) -> u128 {
        u128::from(self.id_hi) << 64 | u128::from(self.id_lo)
    }
}

#[derive(Default)]
struct Corpus {
    text: Vec<u8>,
    /// Every version written since the last compaction, in arena order.
    entries: Vec<Entry>,
    dead: usize,
    /// The live entry of each order, in ascending id order: an order's position here is
    /// its rank. New orders' ids (UUIDv7) are the newest, so inserts land near the end.
    by_rank: Vec<u32>,
    /// Per status (index [`slot`]), which ranks have it: newest-first pages at any offset
    /// walk memory instead of sled, whose backward iteration costs a page lookup and key
    /// copies per entry (it dominated the status list). Five bits per order.
    by_status: [RankBits; 5],
    /// Sampled 4-gram -> indexes of the entries holding it at a field offset that is a
    /// multiple of [`STEP`], ascending (dead entries stay until compaction).
    grams: HashMap<u32, Vec<u32>>,
    /// Grams whose lists were dropped (see [`COMMON_MIN`]); they stay common.
    common: HashSet<u32>,
}

impl Corpus {
    fn entry(&self, rank: usize) -> &Entry {
        &self.entries[self.by_rank[rank] as usize]
    }

    /// The rank of `id` (`Ok`) or where it would be inserted (`Err`).
    fn rank(&self, id: u128) -> Result<usize, usize> {
        self.by_rank
            .binary_search_by(|&e| self.entries[e as usize].id().cmp(&id))
    }

    /// The first rank whose id is `>= id`.
    fn rank_from(&self, id: u128) -> usize {
        self.by_rank
            .partition_point(|&e| self.entries[e as usize].id() < id)
    }

    /// Appends a version's text and entry (not yet in `by_rank`); returns its index.
    fn push(&mut self, o: &OrderRecord) -> usize {
        let start = self.text.len();
        push_lower(&mut self.text, &o.external_id);
        self.text.push(FIELD_SEP);
        push_lower(&mut self.text, &o.customer_email);
        self.text.push(FIELD_SEP);
        push_lower(&mut self.text, o.customer_id.as_deref().unwrap_or(""));
        self.text.push(ENTRY_END);
        let idx = self.entries.len();
        self.entries.push(Entry {
            id_hi: (o.id >> 64) as u64,
            id_lo: o.id as u64,
            created_ms: o.created_at_ms,
            updated_ms: o.updated_at_ms,
            start: u32::try_from(start).expect("order search arena over 4 GiB"),
            status: slot(o.status) as u8,
            live: true,
        });
        self.index(idx);
        idx
    }

    /// Indexes the sampled grams of entry `idx`'s fields.
    fn index(&mut self, idx: usize) {
        let start = self.entries[idx].start as usize;
        let end = self.text[start..]
            .iter()
            .position(|b| *b == ENTRY_END)
            .map_or(self.text.len(), |p| start + p);
        let mut field_start = start;
        while field_start < end {
            let field_end = self.text[field_start..end]
                .iter()
                .position(|b| *b == FIELD_SEP)
                .map_or(end, |p| field_start + p);
            let mut p = field_start;
            while p + 4 <= field_end {
                let g = gram(&self.text[p..p + 4]);
                p += STEP;
                if self.common.contains(&g) {
                    continue;
                }
                let list = self.grams.entry(g).or_default();
                if list.last() != Some(&(idx as u32)) {
                    list.push(idx as u32);
                }
                if list.len() > COMMON_MIN && list.len() * 4 > self.by_rank.len() {
                    self.grams.remove(&g);
                    self.common.insert(g);
                }
            }
            field_start = field_end + 1;
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
            let mut absent = false;
            while p + 4 <= needle.len() {
                let g = gram(&needle[p..p + 4]);
                p += STEP;
                match self.grams.get(&g) {
                    Some(list) => lists.push(list),
                    None if self.common.contains(&g) => {}
                    None => {
                        absent = true;
                        break;
                    }
                }
            }
            if absent {
                continue;
            }
            if lists.is_empty() {
                // Only common grams: every entry is a candidate, so scan instead.
                return None;
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
        let start = self.entries[i].start as usize;
        let end = self
            .entries
            .get(i + 1)
            .map_or(self.text.len(), |e| e.start as usize);
        &self.text[start..end]
    }

    fn heap_bytes(&self) -> usize {
        let grams: usize = self.grams.values().map(|l| l.capacity() * 4).sum();
        // hashbrown: a (key, Vec) slot plus a control byte per bucket.
        let gram_table = self.grams.capacity() * (4 + 24 + 4 + 1) + self.common.capacity() * 5;
        self.text.capacity()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.by_rank.capacity() * 4
            + self
                .by_status
                .iter()
                .map(RankBits::heap_bytes)
                .sum::<usize>()
            + grams
            + gram_table
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

const STATUSES: [OrderStatus; 5] = [
    OrderStatus::Pending,
    OrderStatus::Processing,
    OrderStatus::Shipped,
    OrderStatus::Delivered,
    OrderStatus::Cancelled,
];

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
        let new_slot = slot(o.status);
        match c.rank(o.id) {
            Ok(rank) => {
                let old = c.by_rank[rank] as usize;
                // Writers of one order may call this out of order; updated_at_ms increases
                // with every write, so an older version never replaces a newer one.
                if o.updated_at_ms < c.entries[old].updated_ms {
                    return;
                }
                c.entries[old].live = false;
                c.dead += 1;
                let old_slot = c.entries[old].status as usize;
                c.by_status[old_slot].set(rank, false);
                let idx = c.push(o);
                c.by_rank[rank] = idx as u32;
                c.by_status[new_slot].set(rank, true);
            }
            Err(rank) => {
                let idx = c.push(o);
                c.by_rank.insert(rank, idx as u32);
                for (s, bits) in c.by_status.iter_mut().enumerate() {
                    bits.insert(rank, s == new_slot);
                }
            }
        }
        if c.dead > 1024 && c.dead * 2 > c.entries.len() {
            compact(&mut c);
        }
    }

    /// A newest-first page of live orders as (id, updated_at_ms), of one status or all,
    /// only ids `>= floor` if given, and the number of matches. Skipped orders cost a bit
    /// each (a word per 64 when they are all skipped).
    pub fn page(
        &self,
        status: Option<OrderStatus>,
        floor: Option<u128>,
        offset: usize,
        limit: usize,
    ) -> (Vec<(u128, i64)>, u64) {
        let c = self.corpus.read().expect("search index poisoned");
        let from = floor.map_or(0, |f| c.rank_from(f));
        let (ranks, total) = match status {
            Some(s) => {
                let bits = &c.by_status[slot(s)];
                (bits.descending(from, offset, limit), bits.count_from(from))
            }
            None => {
                let n = c.by_rank.len();
                let top = n.saturating_sub(offset);
                let ranks: Vec<usize> = (from.min(top)..top).rev().take(limit).collect();
                (ranks, n - from)
            }
        };
        let ids = ranks
            .into_iter()
            .map(|r| {
                let e = c.entry(r);
                (e.id(), e.updated_ms)
            })
            .collect();
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
        if let Some(candidates) = c.candidates(&needle) {
            let finder = memmem::Finder::new(&needle);
            for i in candidates {
                let i = i as usize;
                if c.entries[i].live && finder.find(c.entry_text(i)).is_some() {
                    hits.push(Hit::from(&c.entries[i]));
                }
            }
        } else {
            let mut last: Option<usize> = None;
            for pos in memmem::find_iter(&c.text, &needle) {
                // Entries are in arena order: the owner is the last entry starting at or before pos.
                let i = c.entries.partition_point(|e| e.start as usize <= pos) - 1;
                if last == Some(i) {
                    continue;
                }
                last = Some(i);
                if c.entries[i].live {
                    hits.push(Hit::from(&c.entries[i]));
                }
            }
            if could_be_in_an_id(&needle) {
                let patterns = id_patterns(&needle);
                let in_text = hits.len();
                for &e in &c.by_rank {
                    let e = &c.entries[e as usize];
                    let id = e.id();
                    if patterns.iter().any(|(m, v)| id & m == *v) {
                        hits.push(Hit::from(e));
                    }
                }
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
        c.entries.shrink_to_fit();
        c.by_rank.shrink_to_fit();
        for bits in &mut c.by_status {
            bits.shrink_to_fit();
        }
        for list in c.grams.values_mut() {
            list.shrink_to_fit();
        }
        c.grams.shrink_to_fit();
    }

    /// An estimate of the index's heap (not counting the rendered cache or allocator slack).
    pub fn heap_bytes(&self) -> usize {
        self.corpus.read().map(|c| c.heap_bytes()).unwrap_or(0)
    }

    pub fn len(&self) -> usize {
        self.corpus.read().map(|c| c.by_rank.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Drops dead entries' text once they are half the arena, rewriting the live ones in id
/// order (ranks, and so the status bits, do not change).
fn compact(c: &mut Corpus) {
    let mut old = std::mem::take(c);
    c.by_status = std::mem::take(&mut old.by_status);
    c.common = std::mem::take(&mut old.common);
    c.by_rank = Vec::with_capacity(old.by_rank.len());
    for &i in &old.by_rank {
        let i = i as usize;
        let e = old.entries[i];
        let text = old.entry_text(i);
        let start = c.text.len();
        c.text.extend_from_slice(text);
        let idx = c.entries.len();
        c.entries.push(Entry {
            start: start as u32,
            ..e
        });
        c.by_rank.push(idx as u32);
        c.index(idx);
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
            "BULK-12",
            "bulk-123",
            "ulk-12",
            "LK-2999",
            "K-1000",
            "-1234",
            "@example",
            "1@exam",
            "xample.c",
            "BULK-12y",
            "b29@ex",
            "bulk-300",
            "c96",
            "example.com",
            "bulk-2999",
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
        assert!(
            c.common.contains(&gram(b"bulk")),
            "a gram in every order is common"
        );
        assert!(!c.grams.contains_key(&gram(b"bulk")), "and has no list");
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

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn id_fragments_match_exactly_where_the_id_text_contains_them() {
        let s = OrderSearch::default();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut ids = Vec::new();
        for n in 0..400 {
            let id = u128::from(xorshift(&mut seed)) << 64 | u128::from(xorshift(&mut seed));
            // Some hex-only externalIds, so a needle can match text and id alike.
            s.upsert(&order(id, &format!("{:x}", n * 7919), "a@b.c", None));
            ids.push(id);
        }
        let texts: Vec<String> = ids
            .iter()
            .map(|id| uuid::Uuid::from_u128(*id).to_string())
            .collect();
        let mut needles: Vec<String> = vec!["-".into(), "".into(), "--".into(), "0".into()];
        for _ in 0..300 {
            let t = &texts[xorshift(&mut seed) as usize % texts.len()];
            let a = xorshift(&mut seed) as usize % 36;
            let b = a + 1 + xorshift(&mut seed) as usize % (36 - a);
            needles.push(t[a..b].to_string());
            needles.push(t[a..b].to_ascii_uppercase());
            needles.push(format!("{:x}", xorshift(&mut seed) % 4096));
        }
        for q in &needles {
            let lq = q.to_ascii_lowercase();
            let mut want: Vec<u128> = ids
                .iter()
                .enumerate()
                .filter(|(n, id)| {
                    let ext = format!("{:x}", *n as u64 * 7919);
                    [uuid::Uuid::from_u128(**id).to_string(), ext, "a@b.c".into()]
                        .iter()
                        .any(|f| f.contains(&lq))
                })
                .map(|(_, id)| *id)
                .collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let got: Vec<u128> = s.find(q).iter().map(|h| h.id).collect();
            assert_eq!(got, want, "{q:?}");
        }
    }

    #[test]
    fn pages_agree_with_a_sorted_model_when_ids_arrive_out_of_order() {
        let s = OrderSearch::default();
        let mut model = std::collections::BTreeMap::new();
        let mut seed = 0x1234_5678_9abc_def1u64;
        for step in 0..2500u64 {
            // Mostly ascending ids with jitter, sometimes far in the past; some rewrites.
            let id = if step % 11 == 0 && !model.is_empty() {
                *model
                    .keys()
                    .nth(xorshift(&mut seed) as usize % model.len())
                    .unwrap()
            } else if step % 13 == 0 {
                u128::from(xorshift(&mut seed) % 1_000_000)
            } else {
                u128::from(step * 1000 + xorshift(&mut seed) % 5000)
            };
            let status = STATUSES[xorshift(&mut seed) as usize % 5];
            let mut o = order(id, &format!("E{id}"), "x@y.z", None);
            o.status = status;
            o.updated_at_ms = step as i64;
            s.upsert(&o);
            model.insert(id, (status, step as i64));
        }
        assert_eq!(s.len(), model.len());
        for status in [
            None,
            Some(OrderStatus::Pending),
            Some(OrderStatus::Cancelled),
        ] {
            for floor in [
                None,
                Some(0),
                Some(700_000),
                Some(1_500_000),
                Some(u128::MAX),
            ] {
                for (offset, limit) in [(0, 50), (37, 10), (300, 64), (5000, 5)] {
                    let all: Vec<(u128, i64)> = model
                        .range(floor.unwrap_or(0)..)
                        .rev()
                        .filter(|(_, (st, _))| status.is_none_or(|s| s == *st))
                        .map(|(id, (_, v))| (*id, *v))
                        .collect();
                    let want: Vec<(u128, i64)> =
                        all.iter().copied().skip(offset).take(limit).collect();
                    let got = s.page(status, floor, offset, limit);
                    assert_eq!(
                        got,
                        (want, all.len() as u64),
                        "{status:?} {floor:?} {offset}"
                    );
                }
            }
        }
    }
}
