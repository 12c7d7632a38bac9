//! The key sets of large tables that hot paths mostly probe for keys they do not hold (a new
//! order's `externalId`): every key written, as a 64-bit hash, so a miss is answered from
//! memory without the sled read that would wait on sled's global lock (see `mirror.rs`). A
//! hash present proves nothing (a collision, or a key since removed): the read then goes to
//! sled as before. The keys already stored are read by a thread of their own after open, so
//! a large database starts as fast as before; until then every probe reads sled.

use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};

/// Keys hashed per lock taken while the stored keys are read.
const CHUNK: usize = 4096;

/// Hashes of every key written to one table since the store was opened and, once
/// `loaded`, of every key it held then.
pub(crate) struct KeySet {
    /// Keyed per process, so chosen keys cannot be made to collide on purpose (which would
    /// only cost reads, never a wrong answer).
    hasher: RandomState,
    hashes: RwLock<HashSet<u64>>,
    loaded: AtomicBool,
    /// For [`KeySet::wait_loaded`]: set with `loaded`, or when loading gave up.
    done: (Mutex<bool>, Condvar),
}

impl KeySet {
    /// An empty set that answers no probe until [`KeySet::load`] has read `tree`.
    pub(crate) fn new() -> Arc<KeySet> {
        Arc::new(KeySet {
            hasher: RandomState::new(),
            hashes: RwLock::new(HashSet::new()),
            loaded: AtomicBool::new(false),
            done: (Mutex::new(false), Condvar::new()),
        })
    }

    /// Reads the keys `tree` holds on a thread of its own. Keys written meanwhile are
    /// added by the commit thread ([`KeySet::add`]), so once this ends the set holds every
    /// key. Stops early if the store is dropped; a read error leaves the set unloaded (every
    /// probe keeps reading sled).
    pub(crate) fn load(set: &Arc<KeySet>, tree: sled::Tree) {
        let weak = Arc::downgrade(set);
        let loader = move || {
            let mut chunk = Vec::with_capacity(CHUNK);
            let mut keys = tree.iter().keys();
            let ok = loop {
                match keys.next() {
                    Some(Ok(k)) => chunk.push(k),
                    // The set stays unloaded; the same error meets the reads that go to sled.
                    Some(Err(_)) => break false,
                    None => break true,
                }
                if chunk.len() == CHUNK {
                    let Some(set) = weak.upgrade() else { return };
                    set.add(chunk.iter().map(|k| &k[..]));
                    chunk.clear();
                }
            };
            let Some(set) = weak.upgrade() else { return };
            set.add(chunk.iter().map(|k| &k[..]));
            set.loaded.store(ok, Ordering::Release);
            *set.done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            set.done.1.notify_all();
        };
        std::thread::Builder::new()
            .name("storage-keys".into())
            .spawn(loader)
            .expect("spawning the key loader");
    }

    /// `true` only if `key` was never written: no need to look for it.
    pub(crate) fn surely_absent(&self, key: &[u8]) -> bool {
        if !self.loaded.load(Ordering::Acquire) {
            return false;
        }
        let h = self.hasher.hash_one(key);
        !self
            .hashes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&h)
    }

    /// Records keys written. Removals keep their hash: it may be another key's too.
    pub(crate) fn add<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) {
        let mut hashes = self.hashes.write().unwrap_or_else(|e| e.into_inner());
        for k in keys {
            hashes.insert(self.hasher.hash_one(k));
        }
    }

    /// Waits until the stored keys are read (or reading them failed).
    pub(crate) fn wait_loaded(&self) {
        let mut done = self.done.0.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.done.1.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn only_keys_never_written_are_surely_absent_once_the_stored_keys_are_read() {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let tree = db.open_tree("t").unwrap();
        for i in 0..(super::CHUNK + 10) {
            tree.insert(format!("ext-{i}"), &[]).unwrap();
        }
        let set = KeySet::new();
        assert!(
            !set.surely_absent(b"new"),
            "nothing is known before loading"
        );
        KeySet::load(&set, tree);
        set.wait_loaded();
        assert!(!set.surely_absent(b"ext-1"));
        assert!(!set.surely_absent(format!("ext-{}", super::CHUNK + 9).as_bytes()));
        assert!(set.surely_absent(b"new"));
        set.add([&b"new"[..]]);
        assert!(!set.surely_absent(b"new"));
        assert!(set.surely_absent(b"other"));
    }
}
