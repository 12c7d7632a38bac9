//! The key sets of large tables that hot paths mostly probe for keys they do not hold (a new
//! order's `externalId`): every key ever written, as a 64-bit hash, so a miss is answered
//! from memory without the sled read that would wait on sled's global lock (see
//! `mirror.rs`). A hash present proves nothing (a collision, or a key since removed): the
//! read then goes to sled as before.

use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::RwLock;

/// Hashes of every key written to one table since the store was opened, and of every key
/// it held then.
pub(crate) struct KeySet {
    /// Keyed per process, so chosen keys cannot be made to collide on purpose (which would
    /// only cost reads, never a wrong answer).
    hasher: RandomState,
    hashes: RwLock<HashSet<u64>>,
}

impl KeySet {
    pub(crate) fn new<'k>(keys: impl IntoIterator<Item = &'k [u8]>) -> KeySet {
        let hasher = RandomState::new();
        let hashes = keys.into_iter().map(|k| hasher.hash_one(k)).collect();
        KeySet {
            hasher,
            hashes: RwLock::new(hashes),
        }
    }

    /// `true` only if `key` was never written: no need to look for it.
    pub(crate) fn surely_absent(&self, key: &[u8]) -> bool {
        let h = self.hasher.hash_one(key);
        !self
            .hashes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&h)
    }

    /// Records keys a batch writes. Removals keep their hash: it may be another key's too.
    pub(crate) fn add<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) {
        let mut hashes = self.hashes.write().unwrap_or_else(|e| e.into_inner());
        for k in keys {
            hashes.insert(self.hasher.hash_one(k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn only_keys_never_written_are_surely_absent() {
        let set = KeySet::new([&b"ext-1"[..], b"ext-2"]);
        assert!(!set.surely_absent(b"ext-1"));
        assert!(set.surely_absent(b"ext-3"));
        set.add([&b"ext-3"[..]]);
        assert!(!set.surely_absent(b"ext-3"));
        assert!(set.surely_absent(b"ext-4"));
    }
}
