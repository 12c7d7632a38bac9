//! The order index as bytes and back, for the snapshot a clean shutdown writes: the
//! arena, grams, entries, ranks and status bits as little-endian arrays, so loading a
//! million orders is a few copies instead of decoding every order record. Decoding checks
//! every offset and index it will later follow, so a damaged body is refused, never
//! trusted (the file's checksum is checked before, in `domain::index_snapshot`).

use std::collections::{HashMap, HashSet};

use super::ids::{Entry, Ids};
use super::pages::StatusPages;
use super::rank_bits::RankBits;
use super::text::Text;

/// The index's three parts, as the parent module's corpus holds them.
pub(super) struct Parts {
    pub(super) text: Text,
    pub(super) ids: Ids,
    pub(super) pages: StatusPages,
}

/// The parts borrowed, to encode.
pub(super) struct PartsRef<'a> {
    pub(super) text: &'a Text,
    pub(super) ids: &'a Ids,
    pub(super) pages: &'a StatusPages,
}

/// Bytes of one encoded [`Entry`].
const ENTRY_BYTES: usize = 8 + 8 + 8 + 8 + 4 + 1 + 1;

pub(super) fn encode(c: PartsRef<'_>, out: &mut Vec<u8>) {
    put_u64(out, c.text.bytes.len() as u64);
    out.extend_from_slice(&c.text.bytes);
    let common: Vec<u32> = c.text.common.iter().copied().collect();
    put_u32s(out, &common);
    // Grams as three arrays (keys, list lengths, all lists), read back without parsing.
    let keys: Vec<u32> = c.text.grams.keys().copied().collect();
    let lens: Vec<u32> = keys.iter().map(|k| c.text.grams[k].len() as u32).collect();
    put_u32s(out, &keys);
    put_u32s(out, &lens);
    put_u64(out, lens.iter().map(|&n| u64::from(n)).sum());
    for k in &keys {
        extend_u32s(out, &c.text.grams[k]);
    }
    put_u64(out, c.ids.entries.len() as u64);
    out.reserve(c.ids.entries.len() * ENTRY_BYTES);
    for e in &c.ids.entries {
        out.extend_from_slice(&e.id_hi.to_le_bytes());
        out.extend_from_slice(&e.id_lo.to_le_bytes());
        out.extend_from_slice(&e.created_ms.to_le_bytes());
        out.extend_from_slice(&e.updated_ms.to_le_bytes());
        out.extend_from_slice(&e.start.to_le_bytes());
        out.push(e.status);
        out.push(u8::from(e.live));
    }
    put_u32s(out, &c.ids.by_rank);
    for bits in &c.pages.by_status {
        put_u64(out, bits.len() as u64);
        put_u64(out, bits.words().len() as u64);
        for w in bits.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

/// The corpus encoded in `bytes`, or what is wrong with them.
pub(super) fn decode(bytes: &[u8]) -> Result<Parts, String> {
    let mut r = Reader { bytes, at: 0 };
    let mut c = Parts {
        text: Text::default(),
        ids: Ids::default(),
        pages: StatusPages::default(),
    };
    let text_len = r.len(1)?;
    c.text.bytes = r.take(text_len)?.to_vec();
    c.text.common = r.u32s()?.into_iter().collect::<HashSet<u32>>();
    let keys = r.u32s()?;
    let lens = r.u32s()?;
    if keys.len() != lens.len() {
        return Err("gram keys and lengths differ in number".into());
    }
    let total = r.len(4)?;
    if lens.iter().map(|&n| n as usize).sum::<usize>() != total {
        return Err("gram lengths do not add up".into());
    }
    let mut grams = HashMap::with_capacity(keys.len());
    for (&k, &n) in keys.iter().zip(&lens) {
        grams.insert(k, read_u32s(r.take(n as usize * 4)?));
    }
    c.text.grams = grams;
    let n = r.len(ENTRY_BYTES)?;
    let raw = r.take(n * ENTRY_BYTES)?;
    c.ids.entries = raw
        .chunks_exact(ENTRY_BYTES)
        .map(|b| Entry {
            id_hi: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            id_lo: u64::from_le_bytes(b[8..16].try_into().expect("8 bytes")),
            created_ms: i64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
            updated_ms: i64::from_le_bytes(b[24..32].try_into().expect("8 bytes")),
            start: u32::from_le_bytes(b[32..36].try_into().expect("4 bytes")),
            status: b[36],
            live: b[37] == 1,
        })
        .collect();
    c.ids.by_rank = r.u32s()?;
    for bits in &mut c.pages.by_status {
        let len = r.len(0)?;
        let words = r.len(8)?;
        let words = r
            .take(words * 8)?
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        *bits = RankBits::from_words(words, len).ok_or("status bits of the wrong length")?;
    }
    if r.at != bytes.len() {
        return Err(format!("{} bytes after the index", bytes.len() - r.at));
    }
    c.ids.dead = c.ids.entries.iter().filter(|e| !e.live).count();
    check(&c)?;
    Ok(c)
}

/// Everything later code indexes by without a bounds check of its own: arena offsets,
/// entry numbers in gram lists and ranks, status slots, and one status per live order.
fn check(c: &Parts) -> Result<(), String> {
    let (entries, text) = (&c.ids.entries, c.text.bytes.len());
    // `find` takes the last entry starting at or before a match: the first starts at 0.
    if entries.first().map_or(text, |e| e.start as usize) != 0 {
        return Err("the arena does not start with the first entry".into());
    }
    let mut last = 0;
    for e in entries {
        if (e.start as usize) < last || e.start as usize > text || e.status > 4 {
            return Err("an entry's text offset or status is out of range".into());
        }
        last = e.start as usize;
    }
    let n = entries.len();
    let ascending = |l: &Vec<u32>| {
        l.windows(2).all(|w| w[0] < w[1]) && l.last().is_none_or(|&i| (i as usize) < n)
    };
    if !c.text.grams.values().all(ascending) {
        return Err("a gram list is out of order or names a missing entry".into());
    }
    let ranks = &c.ids.by_rank;
    if !ranks.iter().all(|&i| (i as usize) < n) {
        return Err("a rank names an entry that does not exist".into());
    }
    let live = entries.iter().filter(|e| e.live).count();
    let id = |i: u32| entries[i as usize].id();
    if live != ranks.len() || ranks.windows(2).any(|w| id(w[0]) >= id(w[1])) {
        return Err("ranks are not the live entries in id order".into());
    }
    let slots = &c.pages.by_status;
    if slots.iter().any(|b| b.len() != ranks.len()) {
        return Err("status bits do not cover the ranks".into());
    }
    for (rank, &i) in ranks.iter().enumerate() {
        let e = &entries[i as usize];
        if !e.live
            || !slots[e.status as usize].get(rank)
            || slots.iter().filter(|b| b.get(rank)).count() != 1
        {
            return Err("an order's status bits disagree with its entry".into());
        }
    }
    Ok(())
}

fn put_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_u32s(out: &mut Vec<u8>, v: &[u32]) {
    put_u64(out, v.len() as u64);
    extend_u32s(out, v);
}

fn extend_u32s(out: &mut Vec<u8>, v: &[u32]) {
    out.reserve(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn read_u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect()
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// A count of items of `size` bytes each that must fit in what is left (so a damaged
    /// count cannot make us allocate more than the file holds).
    fn len(&mut self, size: usize) -> Result<usize, String> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"));
        let left = (self.bytes.len() - self.at) as u64;
        match n.checked_mul(size as u64) {
            Some(b) if b <= left => Ok(n as usize),
            _ => Err(format!(
                "a count of {n} at byte {} is too large",
                self.at - 8
            )),
        }
    }

    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        let n = self.len(4)?;
        Ok(read_u32s(self.take(n * 4)?))
    }
}
