//! Points where tests stop the committer or make it fail, so they can see batches that
//! are open or being applied without sleeping. Test builds only.

#[derive(Default)]
pub(super) struct Hooks {
    /// The committer leaves the open batch alone.
    pub(super) hold_before_take: bool,
    /// The committer stops after taking a batch, before applying it.
    pub(super) hold_before_apply: bool,
    /// The next batch fails to apply with this message.
    pub(super) fail_next: Option<String>,
    /// How many times a writer has waited for room.
    pub(super) waited_for_room: usize,
}
