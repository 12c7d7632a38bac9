//! The stored history of each order: one entry per change (created, edited, moved,
//! packed or left pending, a package shipped or delivered, cancelled), written by the
//! domain function that makes the change, inside its transaction, so the history never
//! misses a committed change nor holds one that was not committed.

use storage::tables::{OrderEvents, OrderPackages, PackageEvents};
use storage::{InboundOutcome, OrderEventRecord, OrderRecord, OrderStatus, Store, Tx, TxFail};

pub const CREATED: &str = "order.created";
pub const UPDATED: &str = "order.updated";
pub const CANCELLED: &str = "order.cancelled";
pub const PACKED: &str = "order.packed";
pub const NOT_PACKED: &str = "order.not_packed";
pub const SHIPPED: &str = "order.shipped";
pub const DELIVERED: &str = "order.delivered";
pub const PACKAGE_SHIPPED: &str = "package.shipped";
pub const PACKAGE_DELIVERED: &str = "package.delivered";

/// An inbound WMS or carrier callback about one of the order's packages.
pub const PACKAGE_CALLBACK: &str = "package.callback";

/// Every kind, as the API documents them.
pub const KINDS: [&str; 10] = [
    CREATED,
    UPDATED,
    CANCELLED,
    PACKED,
    NOT_PACKED,
    SHIPPED,
    DELIVERED,
    PACKAGE_SHIPPED,
    PACKAGE_DELIVERED,
    PACKAGE_CALLBACK,
];

/// What the caller of a change was, for the history.
pub struct Change<'a> {
    pub kind: &'static str,
    pub status: OrderStatus,
    pub note: Option<String>,
    /// The client id or `user:NAME` of the request; `None` for the appliance's own work.
    pub actor: Option<&'a str>,
}

impl<'a> Change<'a> {
    /// A change made by `actor` (empty: by the appliance itself).
    pub fn by(
        kind: &'static str,
        status: OrderStatus,
        note: Option<String>,
        actor: &'a str,
    ) -> Self {
        Change {
            kind,
            status,
            note,
            actor: (!actor.is_empty()).then_some(actor),
        }
    }

    /// A PATCH of an order: the fields it edited (those flagged in `edits`) and its status
    /// move, if any; `cancelled` when the move was a cancel.
    pub fn update(
        cancelled: bool,
        edits: &[(&str, bool)],
        moved: Option<(OrderStatus, OrderStatus)>,
        status: OrderStatus,
        actor: &'a str,
    ) -> Self {
        let mut parts: Vec<String> = edits
            .iter()
            .filter(|(_, edited)| *edited)
            .map(|(field, _)| format!("{field} edited"))
            .collect();
        if let Some((from, to)) = moved {
            parts.push(format!("{} -> {}", from.as_str(), to.as_str()));
        }
        let kind = if cancelled { CANCELLED } else { UPDATED };
        let note = (!parts.is_empty()).then(|| parts.join("; "));
        Change::by(kind, status, note, actor)
    }

    /// Appends this change of order `order_id` to its history, inside the change's
    /// transaction (a re-run closure draws a new key; only the committed run's remains).
    pub fn record(self, tx: &Tx<'_>, order_id: u128, at_ms: i64) -> Result<(), TxFail> {
        let key = (order_id, uuid::Uuid::now_v7().as_u128());
        let rec = OrderEventRecord {
            at_ms,
            kind: self.kind.to_string(),
            status: self.status,
            note: self.note,
            actor: self.actor.map(str::to_string),
        };
        tx.insert::<OrderEvents>(&key, &rec)?;
        Ok(())
    }
}

/// The history of an order, oldest first.
pub fn list(store: &Store, order_id: u128) -> storage::Result<Vec<OrderEventRecord>> {
    store
        .scan_prefix::<OrderEvents>(&order_id.to_be_bytes())
        .map(|r| r.map(|(_, e)| e))
        .collect()
}

/// One line of an order's timeline: a stored change, or a callback about its packages.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub at_ms: i64,
    pub kind: &'static str,
    /// The order's status after a change; the package status a callback reported.
    pub status: &'static str,
    pub note: Option<String>,
    pub actor: Option<String>,
    pub package_id: Option<u128>,
}

/// Everything that happened to `order`, oldest first: its stored history and the inbound
/// callbacks about its packages; and whether the history was recorded (an order created
/// by a version without it gets its creation and latest change from the record).
pub fn timeline(store: &Store, order: &OrderRecord) -> storage::Result<(Vec<Entry>, bool)> {
    let stored = list(store, order.id)?;
    let recorded = !stored.is_empty();
    let mut out: Vec<Entry> = stored
        .into_iter()
        .map(|e| Entry {
            at_ms: e.at_ms,
            kind: KINDS.into_iter().find(|k| *k == e.kind).unwrap_or(UPDATED),
            status: e.status.as_str(),
            note: e.note,
            actor: e.actor,
            package_id: None,
        })
        .collect();
    if !recorded {
        let entry = |at_ms, kind, status: OrderStatus, note: &str| Entry {
            at_ms,
            kind,
            status: status.as_str(),
            note: Some(note.to_string()),
            actor: None,
            package_id: None,
        };
        out.push(entry(
            order.created_at_ms,
            CREATED,
            OrderStatus::Pending,
            "from the order record",
        ));
        if order.updated_at_ms > order.created_at_ms {
            let note = "the latest change, from the order record (earlier ones were not recorded)";
            out.push(entry(order.updated_at_ms, UPDATED, order.status, note));
        }
    }
    for pid in store.get::<OrderPackages>(&order.id)?.unwrap_or_default() {
        // Read here rather than through `inbound`, which depends on this module.
        for e in store.scan_prefix::<PackageEvents>(&pid.to_be_bytes()) {
            let (_, e) = e?;
            let outcome = match e.outcome {
                InboundOutcome::Applied => "applied".to_string(),
                InboundOutcome::Ignored => format!("ignored: {}", e.note),
            };
            let at = e.location.map(|l| format!(" at {l}")).unwrap_or_default();
            out.push(Entry {
                at_ms: e.received_at_ms,
                kind: PACKAGE_CALLBACK,
                status: e.status.as_str(),
                note: Some(format!("{} {}{at} ({outcome})", e.event_id, e.occurred_at)),
                actor: Some(e.source),
                package_id: Some(pid),
            });
        }
    }
    // Stable: changes of one transaction keep their order.
    out.sort_by_key(|e| e.at_ms);
    Ok((out, recorded))
}
