//! Inbound WMS and carrier callbacks: the status rules they follow (never backwards, late
//! or impossible events recorded and ignored, a repeated `(source, eventId)` changes
//! nothing) and the transaction that records each event for audit and applies it.

use storage::tables::{InboundEventIds, PackageEvents, Packages, PackagesByTracking};
use storage::{
    abort, InboundEventRecord, InboundOutcome, OrderRecord, PackageRecord, PackageStatus, Store,
    TxError,
};

use super::packages::{advance, rank, shipped, PackageError, Shipment};
use super::state::Domain;
use super::time_fmt::now_ms;

/// Whether a package at `status` (furthest progress `progress`) may move to `to`;
/// `Err` carries why the event is only recorded.
pub fn decide(
    status: PackageStatus,
    progress: PackageStatus,
    to: PackageStatus,
) -> Result<(), String> {
    use PackageStatus::*;
    if matches!(status, Voided | Returned) {
        return Err(format!(
            "the package is {}, a final status",
            status.as_str()
        ));
    }
    match to {
        Voided => Err("voided is set only by cancelling the order".to_string()),
        Exception if progress == Delivered => Err("the package is already delivered".to_string()),
        Exception => Ok(()),
        Returned if shipped(progress) => Ok(()),
        Returned => Err("the package has not shipped".to_string()),
        _ => {
            let (to_rank, at) = (rank(to), rank(progress));
            if to_rank > at || (status == Exception && to_rank == at) {
                Ok(())
            } else {
                Err(format!(
                    "late event: the package is already {}",
                    progress.as_str()
                ))
            }
        }
    }
}

/// How an inbound callback names its package.
#[derive(Debug, Clone)]
pub enum Target {
    Id(u128),
    /// A carrier's tracking number; the package must have shipped with that carrier.
    Tracking {
        carrier: String,
        number: String,
    },
}

/// One validated inbound callback.
#[derive(Debug, Clone)]
pub struct Callback {
    /// `wms` or `carrier:NAME`.
    pub source: String,
    pub event_id: String,
    pub target: Target,
    pub status: PackageStatus,
    pub occurred_at: String,
    pub location: Option<String>,
    /// Carrier details a WMS may send with `shipped`.
    pub shipment: Option<Shipment>,
    pub body: String,
}

/// What a callback did.
pub struct Received {
    pub package: PackageRecord,
    pub order: Option<OrderRecord>,
    pub event: InboundEventRecord,
    /// The eventId was seen before: nothing changed.
    pub duplicate: bool,
}

pub fn receive(
    d: &Domain,
    cb: &Callback,
    client_id: &str,
) -> Result<Received, TxError<PackageError>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let now = now_ms();
    let arrival = uuid::Uuid::now_v7().as_u128();
    let result = store.transact(|tx| {
        let key = (cb.source.clone(), cb.event_id.clone());
        if let Some((pid, seen)) = tx.get::<InboundEventIds>(&key)? {
            let (Some(package), Some(event)) = (
                tx.get::<Packages>(&pid)?,
                tx.get::<PackageEvents>(&(pid, seen))?,
            ) else {
                return abort(PackageError::NotFound);
            };
            return Ok(Received {
                package,
                order: None,
                event,
                duplicate: true,
            });
        }
        let pid = match &cb.target {
            Target::Id(id) => *id,
            Target::Tracking { number, .. } => match tx.get::<PackagesByTracking>(number)? {
                Some(id) => id,
                None => return abort(PackageError::NotFound),
            },
        };
        let Some(mut p) = tx.get::<Packages>(&pid)? else {
            return abort(PackageError::NotFound);
        };
        if let Target::Tracking { carrier, .. } = &cb.target {
            if !p
                .carrier
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case(carrier))
            {
                return abort(PackageError::NotFound);
            }
        }
        let (outcome, note, order) = match decide(p.status, p.progress, cb.status) {
            Ok(()) => {
                let order = advance(
                    tx,
                    &mut p,
                    cb.status,
                    cb.shipment.as_ref(),
                    client_id,
                    shapes,
                    now,
                )?;
                (InboundOutcome::Applied, String::new(), order)
            }
            Err(note) => (InboundOutcome::Ignored, note, None),
        };
        let event = InboundEventRecord {
            id: arrival,
            source: cb.source.clone(),
            event_id: cb.event_id.clone(),
            package_id: pid,
            status: cb.status,
            occurred_at: cb.occurred_at.clone(),
            location: cb.location.clone(),
            outcome,
            note,
            received_at_ms: now,
            body: cb.body.clone(),
        };
        tx.insert::<PackageEvents>(&(pid, arrival), &event)?;
        tx.insert::<InboundEventIds>(&key, &(pid, arrival))?;
        Ok(Received {
            package: p,
            order,
            event,
            duplicate: false,
        })
    });
    if let Ok(Some(o)) = result.as_ref().map(|r| &r.order) {
        d.orders.upsert(o);
    }
    result
}

/// The inbound events of a package, oldest first.
pub fn events(store: &Store, id: u128) -> storage::Result<Vec<InboundEventRecord>> {
    store
        .scan_prefix::<PackageEvents>(&id.to_be_bytes())
        .map(|r| r.map(|(_, e)| e))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use PackageStatus::*;

    #[test]
    fn callbacks_never_move_a_package_backwards() {
        assert!(decide(Created, Created, Picking).is_ok());
        assert!(
            decide(Shipped, Shipped, Delivered).is_ok(),
            "steps may be skipped"
        );
        assert!(
            decide(Delivered, Delivered, InTransit).is_err(),
            "late in_transit"
        );
        assert!(
            decide(InTransit, InTransit, InTransit).is_err(),
            "a repeat is late"
        );
        assert!(decide(Packed, Packed, Picking).is_err());
    }

    #[test]
    fn exceptions_pause_progress_and_final_states_stay() {
        assert!(decide(InTransit, InTransit, Exception).is_ok());
        assert!(decide(Exception, InTransit, InTransit).is_ok(), "resumes");
        assert!(
            decide(Exception, InTransit, Shipped).is_err(),
            "still no backwards"
        );
        assert!(decide(Delivered, Delivered, Exception).is_err());
        assert!(
            decide(Created, Created, Returned).is_err(),
            "not shipped yet"
        );
        assert!(decide(Delivered, Delivered, Returned).is_ok());
        assert!(decide(Returned, Delivered, Delivered).is_err());
        assert!(decide(Voided, Created, Packed).is_err());
        assert!(decide(Created, Created, Voided).is_err());
    }
}
