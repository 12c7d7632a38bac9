//! Fan-out progress in memory: per subscription, the next outbox event to fan out and the
//! events whose first attempts left memory but are not yet recorded. The persisted cursor
//! (`WebhookCursors`) only ever moves past events whose deliveries are all recorded, in
//! the transaction that records them, so after a crash exactly the unrecorded events are
//! fanned out again (with the same delivery ids, see `ids::delivery_id`).

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

#[derive(Default)]
pub struct Progress {
    inner: Mutex<HashMap<u128, Hook>>,
}

struct Hook {
    /// The next outbox sequence number to fan out.
    next: u64,
    /// Events fanned out whose delivery is not yet recorded.
    open: BTreeSet<u64>,
    /// Events below this may have been recorded before this process started: fan-out
    /// checks storage for their delivery before sending it again.
    recover_below: u64,
}

impl Progress {
    /// Where fan-out to `hook` goes on, given its persisted cursor and the newest event
    /// now: `(from, recover_below)`. The first call after a start reads from the stored
    /// cursor, and everything up to `newest` may already be recorded.
    pub fn start(&self, hook: u128, stored: u64, newest: u64) -> (u64, u64) {
        let mut inner = self.inner.lock().unwrap();
        let h = inner.entry(hook).or_insert_with(|| Hook {
            next: stored,
            open: BTreeSet::new(),
            recover_below: newest.saturating_add(1),
        });
        h.next = h.next.max(stored);
        (h.next, h.recover_below)
    }

    /// Fan-out sent the deliveries of `seqs` on their way and looked at every event
    /// before `next`.
    pub fn fanned(&self, hook: u128, seqs: impl IntoIterator<Item = u64>, next: u64) {
        let mut inner = self.inner.lock().unwrap();
        if let Some(h) = inner.get_mut(&hook) {
            h.open.extend(seqs);
            h.next = h.next.max(next);
        }
    }

    /// The cursor `hook` may persist once the deliveries of `recorded` are: the first
    /// event still open besides them, or the next one to fan out.
    pub fn cursor_after(&self, hook: u128, recorded: &BTreeSet<u64>) -> Option<u64> {
        let inner = self.inner.lock().unwrap();
        let h = inner.get(&hook)?;
        Some(
            h.open
                .iter()
                .find(|s| !recorded.contains(s))
                .copied()
                .unwrap_or(h.next),
        )
    }

    /// The deliveries of `seqs` are recorded.
    pub fn recorded(&self, hook: u128, seqs: impl IntoIterator<Item = u64>) {
        let mut inner = self.inner.lock().unwrap();
        if let Some(h) = inner.get_mut(&hook) {
            for s in seqs {
                h.open.remove(&s);
            }
        }
    }

    /// The cursor to persist for a subscription with nothing open that is ahead of
    /// `stored`, if any.
    pub fn settled_cursor(&self, hook: u128, stored: u64) -> Option<u64> {
        let inner = self.inner.lock().unwrap();
        let h = inner.get(&hook)?;
        (h.open.is_empty() && h.next > stored).then_some(h.next)
    }

    /// The subscription is gone.
    pub fn forget(&self, hook: u128) {
        self.inner.lock().unwrap().remove(&hook);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_stops_at_the_first_event_not_yet_recorded() {
        let p = Progress::default();
        assert_eq!(p.start(1, 10, 20), (10, 21));
        p.fanned(1, [11, 13, 15], 16);
        assert_eq!(p.cursor_after(1, &BTreeSet::new()), Some(11));
        // 13 recorded first: 11 still holds the cursor.
        assert_eq!(p.cursor_after(1, &[13].into()), Some(11));
        p.recorded(1, [13]);
        assert_eq!(p.cursor_after(1, &[11].into()), Some(15));
        assert_eq!(p.settled_cursor(1, 10), None, "15 is open");
        p.recorded(1, [11, 15]);
        assert_eq!(p.cursor_after(1, &BTreeSet::new()), Some(16));
        assert_eq!(p.settled_cursor(1, 10), Some(16));
        assert_eq!(p.settled_cursor(1, 16), None);
        // A later start goes on in memory, not from the stored cursor.
        assert_eq!(p.start(1, 10, 30), (16, 21));
        p.forget(1);
        assert_eq!(p.cursor_after(1, &BTreeSet::new()), None);
        assert_eq!(p.start(1, 16, 30), (16, 31));
    }
}
