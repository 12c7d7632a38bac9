//! Packages after packing: shipping (stock leaves the warehouse), the one function every
//! status move goes through with the order moves it causes (`shipped` when every package
//! shipped, `delivered` when every one is delivered), voiding on cancel, and lists.

use storage::tables::{
    Inventory, Meta, OrderPackages, Orders, Packages, PackagesByStatus, PackagesByTracking,
};
use storage::{
    abort, Abort, OrderRecord, OrderStatus, PackageRecord, PackageStatus, StockChange, Store, Tx,
    TxError,
};

use super::counters::{bump, next_version, package_count, set_order_status};
use super::events::{
    emit, Shapes, ORDER_SHIPPED, ORDER_UPDATED, PACKAGE_DELIVERED, PACKAGE_SHIPPED,
};
use super::inventory::{self, Change, InventoryError};
use super::order_events::{self as history, Change as Step};
use super::state::Domain;
use super::time_fmt::now_ms;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackageError {
    NotFound,
    /// The package cannot move to `to` from where it is.
    InvalidTransition {
        from: PackageStatus,
        to: PackageStatus,
    },
    /// Another package already ships under this tracking number.
    TrackingTaken,
    /// The reserved stock the package draws on is gone (an adjustment took it).
    Insufficient,
}

impl From<InventoryError> for PackageError {
    fn from(_: InventoryError) -> Self {
        PackageError::Insufficient
    }
}

/// Position along the way to the customer; `None` for the side states.
pub(crate) fn rank(s: PackageStatus) -> Option<u8> {
    use PackageStatus::*;
    match s {
        Created => Some(0),
        Picking => Some(1),
        Packed => Some(2),
        Shipped => Some(3),
        InTransit => Some(4),
        OutForDelivery => Some(5),
        Delivered => Some(6),
        Exception | Returned | Voided => None,
    }
}

pub(crate) fn shipped(s: PackageStatus) -> bool {
    rank(s).is_some_and(|r| r >= 3)
}
/// Carrier details of a shipment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipment {
    pub carrier: String,
    pub tracking_number: String,
    pub service: Option<String>,
}

/// Moves the package's status and its index entry and counters (not yet stored).
fn set_package_status(
    tx: &Tx<'_>,
    p: &mut PackageRecord,
    to: PackageStatus,
) -> Result<(), storage::TxFail> {
    if p.status == to {
        return Ok(());
    }
    tx.remove::<PackagesByStatus>(&(p.status.as_str().to_string(), p.id))?;
    tx.insert::<PackagesByStatus>(&(to.as_str().to_string(), p.id), &())?;
    bump(tx, &package_count(Some(p.status)), -1)?;
    bump(tx, &package_count(Some(to)), 1)?;
    p.status = to;
    if rank(to) > rank(p.progress) {
        p.progress = to;
    }
    Ok(())
}

/// What a change of one package did to its order, for the caller's in-memory indexes.
pub struct Moved {
    pub package: PackageRecord,
    pub order: Option<OrderRecord>,
}

/// Applies `to` to `p` inside a transaction with every consequence: the stock leaving on
/// the first move to shipped or beyond, `package.shipped` / `package.delivered`, and the
/// order moving to `shipped` / `delivered` when all its packages have. Stores `p`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn advance(
    tx: &Tx<'_>,
    p: &mut PackageRecord,
    to: PackageStatus,
    shipment: Option<&Shipment>,
    client_id: &str,
    shapes: &dyn Shapes,
    now: i64,
) -> Result<Option<OrderRecord>, Abort<PackageError>> {
    let ships = shipped(to) && !shipped(p.progress);
    if ships {
        if let Some(s) = shipment {
            if let Some(other) = tx.get::<PackagesByTracking>(&s.tracking_number)? {
                if other != p.id {
                    return abort(PackageError::TrackingTaken);
                }
            }
            tx.insert::<PackagesByTracking>(&s.tracking_number, &p.id)?;
            p.carrier = Some(s.carrier.clone());
            p.tracking_number = Some(s.tracking_number.clone());
            p.service = s.service.clone();
        }
        let reference = format!("pkg_{}", uuid::Uuid::from_u128(p.id).simple());
        for item in &p.items {
            let Some(mut rec) = tx.get::<Inventory>(&item.inventory_id)? else {
                return abort(PackageError::Insufficient);
            };
            let q = i64::from(item.quantity);
            let change = Change {
                kind: StockChange::Shipped,
                on_hand_delta: -q,
                reserved_delta: -q,
                reason: "package shipped",
                reference: Some(&reference),
                client_id,
            };
            inventory::apply::<PackageError>(tx, &mut rec, &change, shapes, now)?;
        }
        p.shipped_at_ms = Some(now);
    }
    set_package_status(tx, p, to)?;
    let delivered = to == PackageStatus::Delivered;
    if delivered {
        p.delivered_at_ms = Some(now);
    }
    p.updated_at_ms = next_version(p.updated_at_ms, now);
    tx.insert::<Packages>(&p.id, p)?;
    if ships {
        emit(tx, PACKAGE_SHIPPED, now, || shapes.package(p))?;
    }
    if delivered {
        emit(tx, PACKAGE_DELIVERED, now, || shapes.package(p))?;
    }
    if !ships && !delivered {
        return Ok(None);
    }
    let Some(mut order) = tx.get::<Orders>(&p.order_id)? else {
        return Ok(None);
    };
    let mut siblings = Vec::new();
    for id in tx.get::<OrderPackages>(&p.order_id)?.unwrap_or_default() {
        if let Some(s) = tx.get::<Packages>(&id)? {
            if s.status != PackageStatus::Voided {
                siblings.push(s);
            }
        }
    }
    let pkg = uuid::Uuid::from_u128(p.id);
    let mut steps = Vec::new();
    if ships {
        let via = match (&p.carrier, &p.tracking_number) {
            (Some(c), Some(t)) => format!(" with {c}, tracking {t}"),
            _ => String::new(),
        };
        steps.push((history::PACKAGE_SHIPPED, format!("package {pkg}{via}")));
    }
    if delivered {
        steps.push((history::PACKAGE_DELIVERED, format!("package {pkg}")));
    }
    let mut moved = false;
    let mut order_steps = Vec::new();
    if order.status == OrderStatus::Processing && siblings.iter().all(|s| shipped(s.progress)) {
        set_order_status(tx, &mut order, OrderStatus::Shipped)?;
        moved = true;
        order_steps.push(history::SHIPPED);
        order.updated_at_ms = next_version(order.updated_at_ms, now);
        tx.insert::<Orders>(&order.id, &order)?;
        let tracking: Vec<String> = siblings
            .iter()
            .filter_map(|s| s.tracking_number.clone())
            .collect();
        emit(tx, ORDER_SHIPPED, now, || {
            shapes.order_shipped(&order, &tracking)
        })?;
    }
    if order.status == OrderStatus::Shipped
        && siblings
            .iter()
            .all(|s| s.progress == PackageStatus::Delivered)
    {
        set_order_status(tx, &mut order, OrderStatus::Delivered)?;
        moved = true;
        order_steps.push(history::DELIVERED);
        order.updated_at_ms = next_version(order.updated_at_ms, now);
        tx.insert::<Orders>(&order.id, &order)?;
        emit(tx, ORDER_UPDATED, now, || shapes.order(&order))?;
    }
    for (kind, note) in steps {
        Step::by(kind, order.status, Some(note), client_id).record(tx, order.id, now)?;
    }
    for kind in order_steps {
        Step::by(kind, order.status, None, client_id).record(tx, order.id, now)?;
    }
    Ok(moved.then_some(order))
}

/// `POST /fulfillment/packages/{id}/ship`. Shipping a shipped package again under the same
/// carrier and tracking number returns it unchanged.
pub fn ship(
    d: &Domain,
    id: u128,
    s: &Shipment,
    client_id: &str,
) -> Result<Moved, TxError<PackageError>> {
    let (store, shapes) = (&d.store, &*d.shapes);
    let now = now_ms();
    let result = store.transact(|tx| {
        let Some(mut p) = tx.get::<Packages>(&id)? else {
            return abort(PackageError::NotFound);
        };
        if shipped(p.progress)
            && p.carrier.as_deref() == Some(&s.carrier)
            && p.tracking_number.as_deref() == Some(&s.tracking_number)
        {
            return Ok(Moved {
                package: p,
                order: None,
            });
        }
        if matches!(p.status, PackageStatus::Voided | PackageStatus::Returned)
            || shipped(p.progress)
        {
            return abort(PackageError::InvalidTransition {
                from: p.status,
                to: PackageStatus::Shipped,
            });
        }
        let order = advance(
            tx,
            &mut p,
            PackageStatus::Shipped,
            Some(s),
            client_id,
            shapes,
            now,
        )?;
        Ok(Moved { package: p, order })
    });
    if let Ok(Some(o)) = result.as_ref().map(|r| &r.order) {
        d.orders.upsert(o);
    }
    result
}
/// Voids the packages of an order being cancelled (inside the cancel transaction). An
/// order with a shipped package cannot be cancelled: its stock has left.
pub fn void_for_cancel<E>(
    tx: &Tx<'_>,
    order_id: u128,
    refuse: impl Fn() -> E,
    now: i64,
) -> Result<(), Abort<E>> {
    let ids = tx.get::<OrderPackages>(&order_id)?.unwrap_or_default();
    let mut packages = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(p) = tx.get::<Packages>(&id)? {
            if shipped(p.progress) {
                return abort(refuse());
            }
            packages.push(p);
        }
    }
    for mut p in packages {
        set_package_status(tx, &mut p, PackageStatus::Voided)?;
        p.updated_at_ms = next_version(p.updated_at_ms, now);
        tx.insert::<Packages>(&p.id, &p)?;
    }
    Ok(())
}

pub fn get(store: &Store, id: u128) -> storage::Result<Option<PackageRecord>> {
    store.get::<Packages>(&id)
}

/// Filters of the package list.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub order_id: Option<u128>,
    pub status: Option<PackageStatus>,
    pub warehouse_id: Option<String>,
    /// Oldest first (a station's queue) instead of newest first.
    pub oldest_first: bool,
}

type Ids<'a> = Box<dyn Iterator<Item = storage::Result<u128>> + 'a>;

/// The ids the filter's narrowest index yields, in the list's order.
fn candidates<'a>(store: &'a Store, f: &Filter) -> storage::Result<Ids<'a>> {
    fn ordered<'a, I>(it: I, oldest_first: bool) -> Ids<'a>
    where
        I: DoubleEndedIterator<Item = storage::Result<u128>> + 'a,
    {
        if oldest_first {
            Box::new(it)
        } else {
            Box::new(it.rev())
        }
    }
    Ok(match (f.order_id, f.status) {
        (Some(order), _) => {
            let ids = store.get::<OrderPackages>(&order)?.unwrap_or_default();
            ordered(ids.into_iter().map(Ok), f.oldest_first)
        }
        (None, Some(s)) => ordered(
            store
                .keys_with_prefix::<PackagesByStatus>(&storage::keys::prefix(s.as_str()))
                .map(|k| k.map(|(_, id)| id)),
            f.oldest_first,
        ),
        (None, None) => ordered(store.keys::<Packages>(), f.oldest_first),
    })
}

/// A page of packages, newest (or oldest) first, and the number of matches. An order's
/// packages and a warehouse's are filtered record by record (an order has few; for a
/// warehouse, narrow by status as a station does, `created` being a short queue).
pub fn list(
    store: &Store,
    f: &Filter,
    limit: usize,
    offset: usize,
) -> storage::Result<(Vec<PackageRecord>, u64)> {
    let mut ids = candidates(store, f)?;
    let mut page = Vec::with_capacity(limit.min(64));
    if f.order_id.is_none() && f.warehouse_id.is_none() {
        let total = store.get::<Meta>(&package_count(f.status))?.unwrap_or(0);
        for id in ids.by_ref().skip(offset).take(limit) {
            if let Some(p) = store.get::<Packages>(&id?)? {
                page.push(p);
            }
        }
        return Ok((page, total));
    }
    let mut total = 0u64;
    for id in ids {
        let Some(p) = store.get::<Packages>(&id?)? else {
            continue;
        };
        if f.status.is_some_and(|s| s != p.status)
            || f.warehouse_id
                .as_ref()
                .is_some_and(|w| *w != p.warehouse_id)
        {
            continue;
        }
        if total >= offset as u64 && page.len() < limit {
            page.push(p);
        }
        total += 1;
    }
    Ok((page, total))
}
