//! The text half of the `q` index: one lowercase arena of each order version's externalId,
//! customerEmail and customerId, and a sampled 4-gram index that narrows most needles to a
//! few candidate entries before `memmem` confirms them.

use std::collections::{HashMap, HashSet};

use storage::OrderSummary;

use super::ids::could_be_in_an_id;

/// Fields are joined by 0x00 and entries end with 0x01, so no match spans two fields.
const FIELD_SEP: u8 = 0;
const ENTRY_END: u8 = 1;

/// Grams are indexed only where a field offset is a multiple of `STEP`: a full 4-gram
/// index would be larger than the text; this one holds about a quarter of the windows.
/// Any occurrence of a needle of `STEP + 3` bytes or more covers an indexed window
/// (see [`Text::candidates`]).
const STEP: usize = 4;

/// A gram held by more than a quarter of the orders (and at least this many) loses its
/// list and becomes "common": it narrows little (`bulk`, `exam`, `.com` in every order),
/// and such lists are a third of the postings. Treating it as held by every entry keeps
/// the candidates a superset.
const COMMON_MIN: usize = if cfg!(test) { 64 } else { 65_536 };

pub(super) fn gram(w: &[u8]) -> u32 {
    u32::from_le_bytes([w[0], w[1], w[2], w[3]])
}

/// `q` as the arena holds text: lowercase, without the separator bytes.
pub(super) fn needle(q: &str) -> Vec<u8> {
    q.bytes()
        .map(|b| b.to_ascii_lowercase())
        .filter(|b| *b > ENTRY_END)
        .collect()
}

fn push_lower(text: &mut Vec<u8>, s: &str) {
    text.extend(
        s.bytes()
            .map(|b| b.to_ascii_lowercase())
            .filter(|b| *b > ENTRY_END),
    );
}

/// Appends an order's searchable fields to `out` as the arena holds them.
pub(super) fn write_fields(out: &mut Vec<u8>, o: &OrderSummary<'_>) {
    push_lower(out, o.external_id);
    out.push(FIELD_SEP);
    push_lower(out, o.customer_email);
    out.push(FIELD_SEP);
    push_lower(out, o.customer_id.unwrap_or(""));
    out.push(ENTRY_END);
}

#[derive(Default)]
pub(super) struct Text {
    /// Every version's fields since the last compaction, in entry order.
    pub(super) bytes: Vec<u8>,
    /// Sampled 4-gram -> indexes of the entries holding it at a field offset that is a
    /// multiple of [`STEP`], ascending (dead entries stay until compaction).
    pub(super) grams: HashMap<u32, Vec<u32>>,
    /// Grams whose lists were dropped (see [`COMMON_MIN`]); they stay common.
    pub(super) common: HashSet<u32>,
}

impl Text {
    /// Appends a version's fields and returns where they start. The arena is compacted
    /// long before 4 GiB (see `compact` in the parent module).
    pub(super) fn push(&mut self, o: &OrderSummary<'_>) -> u32 {
        let start = self.bytes.len();
        write_fields(&mut self.bytes, o);
        u32::try_from(start).expect("order search arena over 4 GiB")
    }

    /// Indexes the sampled grams of the fields at `start`, held by entry `idx`; `orders`
    /// is the number of live orders, against which a gram becomes common.
    pub(super) fn index(&mut self, start: usize, idx: usize, orders: usize) {
        let end = self.bytes[start..]
            .iter()
            .position(|b| *b == ENTRY_END)
            .map_or(self.bytes.len(), |p| start + p);
        let mut field_start = start;
        while field_start < end {
            let field_end = self.bytes[field_start..end]
                .iter()
                .position(|b| *b == FIELD_SEP)
                .map_or(end, |p| field_start + p);
            let mut p = field_start;
            while p + 4 <= field_end {
                let g = gram(&self.bytes[p..p + 4]);
                p += STEP;
                if self.common.contains(&g) {
                    continue;
                }
                let list = self.grams.entry(g).or_default();
                if list.last() != Some(&(idx as u32)) {
                    list.push(idx as u32);
                }
                if list.len() > COMMON_MIN && list.len() * 4 > orders {
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
    pub(super) fn candidates(&self, needle: &[u8]) -> Option<Vec<u32>> {
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

    pub(super) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        for list in self.grams.values_mut() {
            list.shrink_to_fit();
        }
        self.grams.shrink_to_fit();
    }

    pub(super) fn heap_bytes(&self) -> usize {
        let grams: usize = self.grams.values().map(|l| l.capacity() * 4).sum();
        // hashbrown: a (key, Vec) slot plus a control byte per bucket.
        let gram_table = self.grams.capacity() * (4 + 24 + 4 + 1) + self.common.capacity() * 5;
        self.bytes.capacity() + grams + gram_table
    }
}
