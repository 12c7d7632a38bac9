//! Orders by id: the entries (one per indexed version) with each live order's rank in
//! ascending id order, and `q` matched against ids as 128-bit numbers instead of text.

/// Where the hyphens of a hyphenated UUID's 36 characters are.
const UUID_DASHES: [usize; 4] = [8, 13, 18, 23];

/// Whether `needle` can occur in an id's text (lowercase hex digits and '-').
pub(super) fn could_be_in_an_id(needle: &[u8]) -> bool {
    needle
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b) || *b == b'-')
}

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
pub(super) struct Entry {
    pub(super) id_hi: u64,
    pub(super) id_lo: u64,
    pub(super) created_ms: i64,
    /// The record's `updated_at_ms`, its version for the rendered cache.
    pub(super) updated_ms: i64,
    /// Where its text starts in the arena.
    pub(super) start: u32,
    /// Its status's slot in the status pages.
    pub(super) status: u8,
    pub(super) live: bool,
}

impl Entry {
    pub(super) fn id(&self) -> u128 {
        u128::from(self.id_hi) << 64 | u128::from(self.id_lo)
    }
}

#[derive(Default)]
pub(super) struct Ids {
    /// Every version written since the last compaction, in arena order.
    pub(super) entries: Vec<Entry>,
    pub(super) dead: usize,
    /// The live entry of each order, in ascending id order: an order's position here is
    /// its rank. New orders' ids (UUIDv7) are the newest, so inserts land near the end.
    pub(super) by_rank: Vec<u32>,
}

impl Ids {
    pub(super) fn entry(&self, rank: usize) -> &Entry {
        &self.entries[self.by_rank[rank] as usize]
    }

    /// The rank of `id` (`Ok`) or where it would be inserted (`Err`).
    pub(super) fn rank(&self, id: u128) -> Result<usize, usize> {
        self.by_rank
            .binary_search_by(|&e| self.entries[e as usize].id().cmp(&id))
    }

    /// The first rank whose id is `>= id`.
    pub(super) fn rank_from(&self, id: u128) -> usize {
        self.by_rank
            .partition_point(|&e| self.entries[e as usize].id() < id)
    }

    /// The live entries whose id's text contains `needle` (lowercase hex digits and '-'),
    /// in ascending id order.
    pub(super) fn matching<'a>(&'a self, needle: &[u8]) -> impl Iterator<Item = &'a Entry> + 'a {
        let patterns = id_patterns(needle);
        self.by_rank
            .iter()
            .map(|&e| &self.entries[e as usize])
            .filter(move |e| {
                let id = e.id();
                patterns.iter().any(|(m, v)| id & m == *v)
            })
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        self.by_rank.shrink_to_fit();
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>() + self.by_rank.capacity() * 4
    }
}
