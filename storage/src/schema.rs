//! The schema version key and the migrations that bring an older database up to date.
//! A migration runs once, in order, before the store is handed out.

use crate::codec;
use crate::error::{Error, Result};
use crate::keys::Key;
use crate::tables::{Meta, Table};

/// The schema this binary writes.
pub const CURRENT: u32 = 1;

const VERSION_KEY: &str = "schema_version";

/// One step from `from` to `from + 1`. Empty today; the first record change adds one.
type Migration = fn(&sled::Db) -> Result<()>;
const MIGRATIONS: &[(u32, Migration)] = &[];

/// Reads the stored version, refuses a newer one, runs pending migrations and records
/// the current version.
pub(crate) fn upgrade(db: &sled::Db, meta: &sled::Tree) -> Result<u32> {
    let key = VERSION_KEY.to_string().encode();
    let found = match meta.get(&key)? {
        Some(bytes) => codec::decode::<u64>(Meta::NAME, &bytes)? as u32,
        None => CURRENT,
    };
    if found > CURRENT {
        return Err(Error::SchemaTooNew {
            found,
            supported: CURRENT,
        });
    }
    for (from, step) in MIGRATIONS {
        if *from >= found && *from < CURRENT {
            step(db)?;
        }
    }
    meta.insert(key, codec::encode(&u64::from(CURRENT)))?;
    db.flush()?;
    Ok(found)
}
