//! The backup file format: a magic line and format version, then frames (a header, the
//! data directory's key files, every table's entries) and an end frame carrying the
//! entry count and the SHA-256 of everything before it. A file without its end frame,
//! or whose checksum does not match, is refused whole.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The first bytes of every backup file.
pub const MAGIC: &[u8; 16] = b"FULFILLD-BACKUP\n";
/// The layout this binary writes and reads.
pub const FORMAT: u32 = 1;

const HEADER: u8 = b'H';
const FILE: u8 = b'F';
const TABLE: u8 = b'T';
const ENTRY: u8 = b'E';
const END: u8 = b'Z';

/// What the file says about itself.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub fulfilld_version: String,
    pub schema_version: u32,
    /// The id generator's position at the snapshot point (see `storage::SnapshotInfo`).
    pub next_id: u64,
    /// When the snapshot was taken (RFC 3339, UTC).
    pub created_at: String,
}

/// One frame as the reader hands it on.
pub enum Item<'a> {
    Header(&'a Header),
    /// A file of the data directory, by its path relative to it.
    File {
        name: &'a str,
        bytes: &'a [u8],
    },
    Table(&'a str),
    Entry {
        key: &'a [u8],
        value: &'a [u8],
    },
}

/// A writer that hashes every byte it passes on.
struct Hashing<W: Write> {
    inner: W,
    hash: Sha256,
    written: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes one backup file's frames in order.
pub struct Writer<W: Write> {
    out: Hashing<BufWriter<W>>,
    entries: u64,
}

fn len32(n: usize) -> std::io::Result<[u8; 4]> {
    u32::try_from(n)
        .map(u32::to_le_bytes)
        .map_err(|_| std::io::Error::other("a frame over 4 GiB"))
}

impl<W: Write> Writer<W> {
    pub fn new(inner: W) -> std::io::Result<Writer<W>> {
        let mut out = Hashing {
            inner: BufWriter::with_capacity(1 << 20, inner),
            hash: Sha256::new(),
            written: 0,
        };
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT.to_le_bytes())?;
        Ok(Writer { out, entries: 0 })
    }

    fn frame(&mut self, tag: u8, parts: &[&[u8]]) -> std::io::Result<()> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        self.out.write_all(&[tag])?;
        self.out.write_all(&len32(len)?)?;
        for p in parts {
            self.out.write_all(p)?;
        }
        Ok(())
    }

    pub fn header(&mut self, h: &Header) -> std::io::Result<()> {
        let json = serde_json::to_vec(h)?;
        self.frame(HEADER, &[&json])
    }

    pub fn file(&mut self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let name_len =
            u16::try_from(name.len()).map_err(|_| std::io::Error::other("file name too long"))?;
        self.frame(FILE, &[&name_len.to_le_bytes(), name.as_bytes(), bytes])
    }

    pub fn table(&mut self, name: &str) -> std::io::Result<()> {
        self.frame(TABLE, &[name.as_bytes()])
    }

    pub fn entry(&mut self, key: &[u8], value: &[u8]) -> std::io::Result<()> {
        self.entries += 1;
        self.out.write_all(&[ENTRY])?;
        self.out.write_all(&len32(key.len())?)?;
        self.out.write_all(&len32(value.len())?)?;
        self.out.write_all(key)?;
        self.out.write_all(value)
    }

    /// Writes the end frame; returns the inner writer, the file's size and checksum.
    pub fn finish(mut self) -> std::io::Result<(W, u64, String)> {
        // The checksum covers every byte before it, the end frame's type included.
        self.out.write_all(&[END])?;
        let digest: [u8; 32] = self.out.hash.clone().finalize().into();
        self.out.write_all(&len32(40)?)?;
        self.out.write_all(&self.entries.to_le_bytes())?;
        self.out.write_all(&digest)?;
        self.out.flush()?;
        let size = self.out.written;
        let inner = self
            .out
            .inner
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok((inner, size, hex(&digest)))
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A reader that hashes every byte and knows how many are left.
struct Source<R: Read> {
    inner: BufReader<R>,
    hash: Sha256,
    offset: u64,
    size: u64,
}

impl<R: Read> Source<R> {
    /// Reads exactly `n` bytes, or reports where the file ends.
    fn take(&mut self, n: u64, what: &str) -> anyhow::Result<Vec<u8>> {
        if n > self.size - self.offset {
            bail!(
                "truncated or corrupt: {what} at byte {} needs {n} bytes, the file ends after {}",
                self.offset,
                self.size
            );
        }
        let mut buf = vec![0; n as usize];
        self.inner
            .read_exact(&mut buf)
            .with_context(|| format!("reading {what} at byte {}", self.offset))?;
        self.hash.update(&buf);
        self.offset += n;
        Ok(buf)
    }

    fn u32(&mut self, what: &str) -> anyhow::Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
}

/// What a complete read found.
#[derive(Debug, Clone)]
pub struct Summary {
    pub header: Header,
    pub entries: u64,
    pub files: Vec<String>,
    pub sha256: String,
    pub size: u64,
}

/// Reads `path` start to end, handing every frame to `visit`, and checks the structure,
/// the entry count and the checksum. Any defect is an error naming it; `visit` may have
/// seen frames before it, so callers verify a file with a first read that visits nothing.
pub fn read(
    path: &Path,
    visit: &mut dyn FnMut(Item<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<Summary> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let size = file.metadata()?.len();
    let mut src = Source {
        inner: BufReader::with_capacity(1 << 20, file),
        hash: Sha256::new(),
        offset: 0,
        size,
    };
    let not_ours = || {
        anyhow::anyhow!(
            "{} is not a fulfilld backup (it does not start with {:?})",
            path.display(),
            String::from_utf8_lossy(&MAGIC[..15])
        )
    };
    if size < MAGIC.len() as u64 || src.take(MAGIC.len() as u64, "the magic")? != MAGIC {
        return Err(not_ours());
    }
    let format = src.u32("the format version")?;
    if format != FORMAT {
        bail!("backup format version {format} is not supported (this fulfilld reads version {FORMAT})");
    }
    let mut header: Option<Header> = None;
    let mut in_table = false;
    let mut entries = 0u64;
    let mut files = Vec::new();
    loop {
        let at = src.offset;
        if at == size {
            bail!("truncated: the file ends after {size} bytes without its end marker");
        }
        let tag = src.take(1, "a frame type")?[0];
        if tag == END {
            let digest: [u8; 32] = src.hash.clone().finalize().into();
            let len = src.u32("the end marker")?;
            if len != 40 {
                bail!("corrupt: the end marker at byte {at} has length {len}, not 40");
            }
            let body = src.take(40, "the end marker")?;
            let counted = u64::from_le_bytes(body[..8].try_into().expect("8 bytes"));
            if body[8..] != digest {
                bail!(
                    "checksum mismatch: the file is corrupt (its content hashes to sha256 {}, the end marker records {})",
                    hex(&digest),
                    hex(&body[8..])
                );
            }
            if counted != entries {
                bail!("corrupt: the end marker counts {counted} entries, the file holds {entries}");
            }
            if src.offset != size {
                bail!("corrupt: {} bytes follow the end marker", size - src.offset);
            }
            let header = header.context("corrupt: the file has no header")?;
            return Ok(Summary {
                header,
                entries,
                files,
                sha256: hex(&digest),
                size,
            });
        }
        if tag == ENTRY {
            let klen = src.u32("an entry's key length")?;
            let vlen = src.u32("an entry's value length")?;
            let key = src.take(u64::from(klen), "an entry's key")?;
            let value = src.take(u64::from(vlen), "an entry's value")?;
            if !in_table {
                bail!("corrupt: an entry at byte {at} precedes every table");
            }
            entries += 1;
            visit(Item::Entry {
                key: &key,
                value: &value,
            })?;
            continue;
        }
        let len = src.u32("a frame length")?;
        let body = src.take(u64::from(len), "a frame")?;
        if tag != HEADER && header.is_none() {
            bail!("corrupt: a frame at byte {at} precedes the header");
        }
        match tag {
            HEADER => {
                if header.is_some() || at != 20 {
                    bail!("corrupt: a header at byte {at} (the header comes first, once)");
                }
                let h: Header = serde_json::from_slice(&body)
                    .with_context(|| format!("corrupt header at byte {at}"))?;
                visit(Item::Header(&h))?;
                header = Some(h);
            }
            FILE => {
                if body.len() < 2 {
                    bail!("corrupt: a file frame at byte {at} is too short");
                }
                let n = usize::from(u16::from_le_bytes([body[0], body[1]]));
                let name = body
                    .get(2..2 + n)
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .with_context(|| {
                        format!("corrupt: a file frame at byte {at} has no valid name")
                    })?;
                visit(Item::File {
                    name,
                    bytes: &body[2 + n..],
                })?;
                files.push(name.to_string());
            }
            TABLE => {
                let name = std::str::from_utf8(&body)
                    .with_context(|| format!("corrupt: a table name at byte {at}"))?;
                in_table = true;
                visit(Item::Table(name))?;
            }
            other => bail!("corrupt: unknown frame type 0x{other:02x} at byte {at}"),
        }
    }
}

/// The largest header [`peek`] reads; real ones are a few hundred bytes.
const MAX_HEADER: u32 = 64 * 1024;

/// A quick look at `path` without reading it whole: the magic, the format version, the
/// header, and an end marker of the right shape as the file's last bytes. It tells a
/// complete file from a truncated, foreign or half-written one at start-up cost of a few
/// reads; it does not verify the checksum (only [`read`] does, reading everything).
pub fn peek(path: &Path) -> anyhow::Result<Header> {
    use std::io::{Seek, SeekFrom};
    let mut file =
        std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let size = file.metadata()?.len();
    let mut start = [0u8; 16 + 4 + 1 + 4];
    file.read_exact(&mut start)
        .context("truncated: shorter than its header")?;
    anyhow::ensure!(&start[..16] == MAGIC, "not a fulfilld backup");
    let format = u32::from_le_bytes(start[16..20].try_into().expect("4 bytes"));
    anyhow::ensure!(format == FORMAT, "backup format version {format}");
    anyhow::ensure!(start[20] == HEADER, "corrupt: no header first");
    let len = u32::from_le_bytes(start[21..25].try_into().expect("4 bytes"));
    anyhow::ensure!(len <= MAX_HEADER, "corrupt: a header of {len} bytes");
    let mut body = vec![0u8; len as usize];
    file.read_exact(&mut body)
        .context("truncated inside the header")?;
    let header: Header = serde_json::from_slice(&body).context("corrupt header")?;
    // The end frame: its type, the length 40, the entry count and the SHA-256.
    let end_len = 1 + 4 + 40;
    let header_end = start.len() as u64 + u64::from(len);
    anyhow::ensure!(size >= header_end + end_len, "truncated: no end marker");
    file.seek(SeekFrom::Start(size - end_len))?;
    let mut end = [0u8; 5];
    file.read_exact(&mut end)?;
    anyhow::ensure!(
        end[0] == END && end[1..5] == len32(40)?,
        "truncated: the file does not end with its end marker"
    );
    Ok(header)
}
