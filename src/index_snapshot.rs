//! The snapshot of the order index that a clean shutdown writes into the data directory
//! and the next start loads instead of rebuilding the index from every stored order.
//! It is used only when it carries the store's seal (`storage::Store::seal`), which the
//! first write after the shutdown removes: so a snapshot is never older than the data.
//! Anything else (no file, no seal, another seal, another version, a damaged file, counts
//! that disagree with the stored counters) means a rebuild, and says why.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use storage::Store;

use crate::domain::order_index::OrderSearch;
use crate::domain::Domain;

/// The snapshot's name in the data directory.
pub const FILE: &str = "index-snapshot";
const MAGIC: &[u8; 8] = b"FFIDXSNP";
/// The layout of the header and of `OrderSearch::encode`; bump it when either changes.
const FORMAT: u32 = 1;
/// magic, format, schema, seal, orders, body length, CRC-32 of the body.
const HEADER: usize = 8 + 4 + 4 + 16 + 8 + 8 + 4;

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Why the index was rebuilt instead of loaded (the `reason` label of
/// `fulfilld_index_load_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rebuild {
    /// No snapshot file (first start, or the last stop did not write one).
    NoFile,
    /// The store holds no seal: something was written after the last clean stop, or the
    /// last stop was not clean.
    NotSealed,
    /// The file's seal is not the store's: an older snapshot, or another database's.
    Stale,
    /// Written by another snapshot format or schema version.
    Version,
    /// Bad magic, length, checksum or structure.
    Damaged,
    /// Its order counts disagree with the store's counters.
    Counts,
}

impl Rebuild {
    pub fn as_str(self) -> &'static str {
        match self {
            Rebuild::NoFile => "no_file",
            Rebuild::NotSealed => "not_sealed",
            Rebuild::Stale => "stale",
            Rebuild::Version => "version",
            Rebuild::Damaged => "damaged",
            Rebuild::Counts => "counts",
        }
    }
}

/// Loads the order index from the snapshot in `data_dir` if it matches `store`, and
/// removes the file either way (it is never valid again once the server writes).
pub fn take(store: &Store, data_dir: &Path) -> Result<OrderSearch, Rebuild> {
    let path = path(data_dir);
    let loaded = read(store, &path);
    match &loaded {
        Err((Rebuild::NoFile, _)) => {}
        _ => {
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!(path = %path.display(), error = %e, "could not remove the index snapshot");
            }
        }
    }
    loaded.map_err(|(why, detail)| {
        tracing::info!(reason = why.as_str(), %detail, "rebuilding the order index from storage");
        why
    })
}

fn read(store: &Store, path: &Path) -> Result<OrderSearch, (Rebuild, String)> {
    let damaged = |d: String| (Rebuild::Damaged, d);
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err((Rebuild::NoFile, String::new()))
        }
        Err(e) => return Err(damaged(format!("opening: {e}"))),
    };
    let mut head = [0u8; HEADER];
    f.read_exact(&mut head)
        .map_err(|e| damaged(format!("reading the header: {e}")))?;
    let h = Header::parse(&head).ok_or_else(|| damaged("not an index snapshot".into()))?;
    if h.format != FORMAT || h.schema != storage::SCHEMA_VERSION {
        let d = format!("format {} schema {}", h.format, h.schema);
        return Err((Rebuild::Version, d));
    }
    match store.seal() {
        Ok(Some(seal)) if seal == h.seal => {}
        Ok(Some(_)) => return Err((Rebuild::Stale, "another seal".into())),
        Ok(None) => return Err((Rebuild::NotSealed, String::new())),
        Err(e) => return Err((Rebuild::NotSealed, e.to_string())),
    }
    let len = usize::try_from(h.body_len).map_err(|_| damaged("body too large".into()))?;
    let on_disk = f.metadata().map(|m| m.len()).unwrap_or(0);
    if on_disk != (HEADER + len) as u64 {
        return Err(damaged(format!(
            "{on_disk} bytes, header says {}",
            HEADER + len
        )));
    }
    let mut body = vec![0u8; len];
    f.read_exact(&mut body)
        .map_err(|e| damaged(format!("reading: {e}")))?;
    if crc32fast::hash(&body) != h.crc {
        return Err(damaged("checksum mismatch".into()));
    }
    let orders = OrderSearch::decode(&body).map_err(damaged)?;
    drop(body);
    counts_agree(store, &orders).map_err(|d| (Rebuild::Counts, d))?;
    if orders.len() as u64 != h.orders {
        return Err((Rebuild::Counts, "header and index differ".into()));
    }
    Ok(orders)
}

/// The index holds as many orders per status as the store's counters say. The counters
/// move in the same transactions as the orders; the index right after them.
fn counts_agree(store: &Store, orders: &OrderSearch) -> Result<(), String> {
    let (total, by_status) = Domain::stored_order_counts(store)
        .map_err(|e| format!("reading the order counters: {e}"))?;
    let ours = orders.status_counts();
    let same = by_status.iter().all(|s| ours.contains(s));
    if total != orders.len() as u64 || !same {
        return Err(format!(
            "stored {total} {by_status:?}, index {} {ours:?}",
            orders.len()
        ));
    }
    Ok(())
}

/// What a shutdown wrote.
pub struct Saved {
    pub bytes: usize,
    pub took: Duration,
}

/// Seals the store and writes the order index beside it. Call once nothing changes
/// orders any more: a write after the seal removes it (the snapshot then goes unused),
/// and an index that disagrees with the counters is not written at all.
pub fn save(domain: &Domain, data_dir: &Path) -> anyhow::Result<Saved> {
    let started = Instant::now();
    let seal = uuid::Uuid::new_v4().as_u128();
    domain.store.write_seal(seal).context("sealing the store")?;
    counts_agree(&domain.store, &domain.orders)
        .map_err(|d| anyhow::anyhow!("the order index disagrees with the store: {d}"))?;
    let mut out = vec![0u8; HEADER];
    domain.orders.encode(&mut out);
    let body = &out[HEADER..];
    let header = Header {
        format: FORMAT,
        schema: storage::SCHEMA_VERSION,
        seal,
        orders: domain.orders.len() as u64,
        body_len: body.len() as u64,
        crc: crc32fast::hash(body),
    };
    out[..HEADER].copy_from_slice(&header.bytes());
    crate::fsutil::write_private(&path(data_dir), &out)?;
    Ok(Saved {
        bytes: out.len(),
        took: started.elapsed(),
    })
}

/// [`save`] at the end of `run`, logged; a failure only costs the next start a rebuild.
pub fn save_logged(domain: &Domain, data_dir: &Path) {
    match save(domain, data_dir) {
        Ok(s) => tracing::info!(
            bytes = s.bytes,
            ms = s.took.as_millis() as u64,
            "order index snapshot written"
        ),
        Err(e) => {
            let _ = std::fs::remove_file(path(data_dir));
            tracing::warn!(error = %format!("{e:#}"), "no order index snapshot; the next start rebuilds it");
        }
    }
}

struct Header {
    format: u32,
    schema: u32,
    seal: u128,
    orders: u64,
    body_len: u64,
    crc: u32,
}

impl Header {
    fn bytes(&self) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&self.format.to_le_bytes());
        b[12..16].copy_from_slice(&self.schema.to_le_bytes());
        b[16..32].copy_from_slice(&self.seal.to_le_bytes());
        b[32..40].copy_from_slice(&self.orders.to_le_bytes());
        b[40..48].copy_from_slice(&self.body_len.to_le_bytes());
        b[48..52].copy_from_slice(&self.crc.to_le_bytes());
        b
    }

    fn parse(b: &[u8; HEADER]) -> Option<Header> {
        let at = |r: std::ops::Range<usize>| &b[r];
        (at(0..8) == MAGIC).then(|| Header {
            format: u32::from_le_bytes(at(8..12).try_into().expect("4 bytes")),
            schema: u32::from_le_bytes(at(12..16).try_into().expect("4 bytes")),
            seal: u128::from_le_bytes(at(16..32).try_into().expect("16 bytes")),
            orders: u64::from_le_bytes(at(32..40).try_into().expect("8 bytes")),
            body_len: u64::from_le_bytes(at(40..48).try_into().expect("8 bytes")),
            crc: u32::from_le_bytes(at(48..52).try_into().expect("4 bytes")),
        })
    }
}
