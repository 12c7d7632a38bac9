//! What an export keeps while it walks the trees: for each key a later batch writes ahead
//! of the walk, the value it had at the export's point (see `backup.rs` for why that makes
//! the export consistent). The commit thread records, the walk reads.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use sled::IVec;

use crate::error::{Error, Result};
use crate::tables::TABLE_NAMES;
use crate::write_set::WriteSet;

enum Cursor {
    /// The walk has not started this table.
    Ahead,
    /// The walk has emitted every key up to and including this one.
    At(IVec),
    Done,
}

struct CaptureState {
    cursors: Vec<Cursor>,
    /// Per table: the value at the point (`None`: absent) of keys written since then
    /// before the walk reached them.
    before: Vec<HashMap<IVec, Option<IVec>>>,
    failed: Option<String>,
}

/// The shared state between an export and the commit thread.
pub(crate) struct Capture {
    state: Mutex<CaptureState>,
}

fn lock(m: &Mutex<CaptureState>) -> MutexGuard<'_, CaptureState> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Capture {
    pub(crate) fn new() -> Capture {
        Capture {
            state: Mutex::new(CaptureState {
                cursors: TABLE_NAMES.iter().map(|_| Cursor::Ahead).collect(),
                before: TABLE_NAMES.iter().map(|_| HashMap::new()).collect(),
                failed: None,
            }),
        }
    }

    /// Called by the commit thread with a batch taken after the point, before sled
    /// gets it: remembers the current value of every key the walk has still to reach.
    pub(crate) fn record(&self, trees: &[sled::Tree], batch: &WriteSet) {
        let mut st = lock(&self.state);
        let st = &mut *st;
        for (t, key, _) in batch.iter() {
            let ahead = match &st.cursors[t] {
                Cursor::Ahead => true,
                Cursor::At(at) => key > at,
                Cursor::Done => false,
            };
            if !ahead || st.before[t].contains_key(key) {
                continue;
            }
            match trees[t].get(key) {
                Ok(v) => {
                    st.before[t].insert(key.clone(), v);
                }
                Err(e) => {
                    st.failed.get_or_insert(e.to_string());
                }
            }
        }
    }

    /// What the walk emits for `key`, read as `read`; moves the cursor past it.
    pub(crate) fn pass(&self, table: usize, key: &IVec, read: IVec) -> Option<IVec> {
        let mut st = lock(&self.state);
        st.cursors[table] = Cursor::At(key.clone());
        match st.before[table].remove(key) {
            Some(at_point) => at_point,
            None => Some(read),
        }
    }

    /// Closes a table: the recorded keys the walk never met, with their value at the point.
    pub(crate) fn finish(&self, table: usize) -> Result<Vec<(IVec, IVec)>> {
        let mut st = lock(&self.state);
        st.cursors[table] = Cursor::Done;
        if let Some(e) = &st.failed {
            return Err(Error::Backup(format!("reading a value to preserve: {e}")));
        }
        let mut gone: Vec<(IVec, IVec)> = std::mem::take(&mut st.before[table])
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        gone.sort();
        Ok(gone)
    }
}
