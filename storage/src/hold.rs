//! Holds: while a held future is being polled, every transaction it commits joins one
//! batch, because its first write pins the open batch until that poll ends. So a change
//! and a record of it written later in the same poll are durable together or not at all.
//!
//! The pin lives only for one poll, never across an await: a suspended request can never
//! keep the committer (and everyone's durability) waiting. Writes a held future makes
//! before an await therefore land in earlier batches; code that writes and then awaits
//! slow work runs that write through [`unheld`] (it must be safe to repeat).

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The hold in scope on this thread while a held future is polled.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Scope {
    /// Identity of the group commit the hold belongs to.
    store: usize,
    /// Whether a write of this poll pins that store's open batch.
    pinned: bool,
}

thread_local! {
    static CURRENT: Cell<Option<Scope>> = const { Cell::new(None) };
}

/// `Some(pinned)` if a hold on `store` is in scope on this thread.
pub(crate) fn current(store: usize) -> Option<bool> {
    CURRENT.get().filter(|s| s.store == store).map(|s| s.pinned)
}

/// Records whether the hold in scope pins its store's open batch.
pub(crate) fn set_pinned(pinned: bool) {
    if let Some(mut s) = CURRENT.get() {
        s.pinned = pinned;
        CURRENT.set(Some(s));
    }
}

/// Ends a poll's scope even if the poll panics, releasing its pin.
struct PollScope<'a> {
    unpin: &'a dyn Fn(),
    previous: Option<Scope>,
}

impl Drop for PollScope<'_> {
    fn drop(&mut self) {
        if let Some(Scope { pinned: true, .. }) = CURRENT.replace(self.previous) {
            (self.unpin)();
        }
    }
}

/// Polls `fut` once with a hold on the group commit `store` in scope (or inside the
/// hold already in scope, when holds nest); `unpin` ends the pin its writes took.
pub(crate) fn poll_held<F: Future>(
    store: usize,
    unpin: &dyn Fn(),
    fut: Pin<&mut F>,
    cx: &mut Context<'_>,
) -> Poll<F::Output> {
    if current(store).is_some() {
        return fut.poll(cx);
    }
    let scope = PollScope {
        unpin,
        previous: CURRENT.replace(Some(Scope {
            store,
            pinned: false,
        })),
    };
    let out = fut.poll(cx);
    debug_assert!(
        out.is_ready() || current(store) != Some(true),
        "a held future awaited after writing: its writes are not atomic with what it writes \
         later (run that write through storage::unheld if it is safe to repeat)"
    );
    drop(scope);
    out
}

/// Runs `f` with no hold in scope: its transactions do not pin the open batch (for a
/// write a held future makes before awaiting slow work, which must be safe to repeat).
/// Once the poll pins a batch, `f`'s writes join it like any other.
pub fn unheld<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Scope>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.set(self.0);
        }
    }
    if CURRENT.get().is_some_and(|s| s.pinned) {
        return f();
    }
    let _restore = Restore(CURRENT.take());
    f()
}
