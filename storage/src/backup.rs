//! Consistent snapshots of every table while writes go on ([`Store::export`]), and a new
//! database built from one ([`Import`]). The container file (framing, checksums, the
//! data directory's key files) is the server's business; this streams entries.
//!
//! # Why an export is consistent
//!
//! The export starts at a batch boundary (`GroupCommit::begin_capture`): sled then holds
//! exactly the batches taken before it, a prefix of the commit order. It walks each tree
//! with a plain sled iterator while the commit thread goes on applying batches. Before
//! the commit thread applies a batch it records, for every key the batch writes that
//! the walk has not passed yet and that no earlier batch recorded, the value sled holds
//! for it: that is the key's value at the point. The walk emits, for each key, that
//! recorded value if there is one and what it read otherwise, and after each tree the
//! recorded keys it never met (deleted since the point). A key the walk has passed is
//! never recorded, and was read before any write after the point reached it (the record
//! and the cursor move under one lock). So every key is emitted with its value at the
//! point, and keys created after it are left out.

use std::path::Path;
use std::sync::Arc;

use crate::capture::Capture;
use crate::error::{Error, Result};
use crate::group_commit::{self, GroupCommit};
use crate::keys::Key;
use crate::schema;
use crate::tables::{Meta, Table, TABLE_NAMES};

/// What an export hands its sink, in this order: `Begin`, then per table its `Table`
/// followed by that table's entries.
#[derive(Debug)]
pub enum ExportItem<'a> {
    Begin(SnapshotInfo),
    Table(&'a str),
    Entry { key: &'a [u8], value: &'a [u8] },
}

/// Facts of the snapshot point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// The schema version the snapshot's records are written in.
    pub schema_version: u32,
    /// Above every id [`crate::Tx::next_id`] had handed out: a restored database must
    /// continue from here, or outbox sequence numbers would repeat.
    pub next_id: u64,
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportSummary {
    pub info: SnapshotInfo,
    pub entries: u64,
}

/// Ends the capture however the export ends.
struct CaptureGuard<'a>(&'a GroupCommit);

impl Drop for CaptureGuard<'_> {
    fn drop(&mut self) {
        self.0.end_capture();
    }
}

/// Streams a consistent snapshot of every table to `sink` (see the module docs) while
/// transactions keep committing; the writer lock is held only to mark the point. A sink
/// error stops the export and is returned as [`Error::Backup`]. One export runs at a time.
pub(crate) fn export(
    trees: &[sled::Tree],
    commits: &GroupCommit,
    sink: &mut dyn FnMut(ExportItem<'_>) -> std::io::Result<()>,
) -> Result<ExportSummary> {
    let capture = Arc::new(Capture::new());
    let next_id = commits.begin_capture(Arc::clone(&capture))?;
    let _guard = CaptureGuard(commits);
    let io = |e: std::io::Error| Error::Backup(format!("writing the backup: {e}"));
    let info = SnapshotInfo {
        schema_version: stored_schema(&trees[Meta::INDEX])?,
        next_id,
    };
    sink(ExportItem::Begin(info)).map_err(io)?;
    let mut entries = 0u64;
    for (t, name) in TABLE_NAMES.iter().enumerate() {
        sink(ExportItem::Table(name)).map_err(io)?;
        for entry in trees[t].iter() {
            let (key, read) = entry?;
            if let Some(value) = capture.pass(t, &key, read) {
                sink(ExportItem::Entry {
                    key: &key,
                    value: &value,
                })
                .map_err(io)?;
                entries += 1;
            }
        }
        for (key, value) in capture.finish(t)? {
            sink(ExportItem::Entry {
                key: &key,
                value: &value,
            })
            .map_err(io)?;
            entries += 1;
        }
    }
    Ok(ExportSummary { info, entries })
}

fn stored_schema(meta: &sled::Tree) -> Result<u32> {
    match meta.get(schema::VERSION_KEY.to_string().encode())? {
        Some(bytes) => Ok(crate::codec::decode::<u64>(Meta::NAME, &bytes)? as u32),
        None => Err(Error::Backup("the database has no schema version".into())),
    }
}

/// Entries applied to sled per batch while importing.
const IMPORT_BATCH: usize = 10_000;

/// Builds a new database from an export's items; [`crate::Store::open`] then migrates it
/// if its schema is older. Nothing checks the entries: the caller verified the file.
pub struct Import {
    db: sled::Db,
    dir: std::path::PathBuf,
    tree: Option<sled::Tree>,
    batch: sled::Batch,
    pending: usize,
    entries: u64,
}

impl Import {
    /// Creates the database in `dir`, which must not exist yet.
    pub fn create(dir: &Path) -> Result<Import> {
        if dir.exists() {
            return Err(Error::Backup(format!("{} already exists", dir.display())));
        }
        let db = sled::Config::new()
            .path(dir)
            .mode(sled::Mode::HighThroughput)
            .open()?;
        Ok(Import {
            db,
            dir: dir.to_path_buf(),
            tree: None,
            batch: sled::Batch::default(),
            pending: 0,
            entries: 0,
        })
    }

    fn apply(&mut self) -> Result<()> {
        if let Some(tree) = &self.tree {
            tree.apply_batch(std::mem::take(&mut self.batch))?;
        }
        self.pending = 0;
        Ok(())
    }

    /// Entries from now on go to table `name` (any name: older schemas had other trees).
    pub fn table(&mut self, name: &str) -> Result<()> {
        self.apply()?;
        if name.is_empty() || name.starts_with("__sled") {
            return Err(Error::Backup(format!("invalid table name {name:?}")));
        }
        self.tree = Some(self.db.open_tree(name)?);
        Ok(())
    }

    pub fn entry(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if self.tree.is_none() {
            return Err(Error::Backup("an entry before any table".into()));
        }
        self.batch.insert(key, value);
        self.pending += 1;
        self.entries += 1;
        if self.pending >= IMPORT_BATCH {
            self.apply()?;
        }
        Ok(())
    }

    /// Applies what is left, moves the id generator to `next_id`, records the schema
    /// version of the entries and makes it all durable. Returns the entries written.
    pub fn finish(mut self, info: SnapshotInfo) -> Result<u64> {
        self.apply()?;
        let next_id = info.next_id;
        // sled has no way to set its id generator; drawing ids is cheap (a counter, with
        // a persisted high-water mark every million).
        while self.db.generate_id()? < next_id {}
        let io = |e: std::io::Error| Error::Engine(e.to_string());
        let log = std::fs::File::open(self.dir.join("db")).map_err(io)?;
        group_commit::sync(&self.db, &log)?;
        schema::write_marker(&self.dir, info.schema_version)?;
        std::fs::File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
        Ok(self.entries)
    }
}
