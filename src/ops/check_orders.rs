//! The order side of `fulfilld check`: orders and their externalId index and packing
//! jobs, order histories, packages and their indexes, webhook subscriptions, deliveries
//! and the delivery queue, inbound event ids, and the counters of each. Orders are streamed, not loaded,
//! so a check of a million orders holds only their ids and statuses.

use std::collections::{BTreeMap, HashMap, HashSet};

use storage::tables::{
    Deliveries, DeliveriesByWebhook, DeliveryQueue, InboundEventIds, OrderEvents, OrderPackages,
    Orders, OrdersByExternalId, PackageEvents, Packages, PackagesByStatus, PackagesByTracking,
    PackingJobs, Table, WebhookCursors, Webhooks,
};
use storage::{DeliveryStatus, OrderStatus, PackageStatus, Store};

use super::report::{id, Report};
use crate::domain::order_events::KINDS;
use crate::domain::order_packing;
use crate::domain::packages::shipped;

/// Checks orders, packages, webhooks and inbound events; returns, per inventory record,
/// the units the open orders still hold there (allocated by orders that are not
/// cancelled, less what their shipped packages took out).
pub(super) fn run(store: &Store, r: &mut Report) -> HashMap<u128, i64> {
    let mut held: HashMap<u128, i64> = HashMap::new();
    let statuses = orders(store, r, &mut held);
    packages(store, r, &statuses, &mut held);
    order_events(store, r, &statuses);
    webhooks(store, r);
    inbound(store, r);
    held
}

fn count(r: &mut Report, table: &'static str, n: u64) {
    *r.records.entry(table).or_default() += n;
}

fn orders(
    store: &Store,
    r: &mut Report,
    held: &mut HashMap<u128, i64>,
) -> HashMap<u128, OrderStatus> {
    let mut statuses = HashMap::new();
    let mut per_status: BTreeMap<String, u64> = OrderStatus::ALL
        .iter()
        .map(|s| (format!("orders:{}", s.as_str()), 0))
        .collect();
    for row in store.iter::<Orders>() {
        let o = match row {
            Ok((_, o)) => o,
            Err(e) => {
                r.problem(format!("orders: {e}"));
                continue;
            }
        };
        match store.get::<OrdersByExternalId>(&o.external_id) {
            Ok(Some(found)) if found == o.id => {}
            _ => r.problem(format!(
                "order {}: orders_by_external_id[{:?}] does not point at it",
                id(o.id),
                o.external_id
            )),
        }
        if o.status != OrderStatus::Cancelled {
            for a in o.lines.iter().flat_map(|l| &l.allocations) {
                *held.entry(a.inventory_id).or_default() += i64::from(a.quantity);
            }
        }
        *per_status
            .entry(format!("orders:{}", o.status.as_str()))
            .or_default() += 1;
        statuses.insert(o.id, o.status);
    }
    count(r, Orders::NAME, statuses.len() as u64);
    let by_ext = r.all::<OrdersByExternalId>(store);
    for (ext, oid) in &by_ext {
        if !statuses.contains_key(oid) {
            r.problem(format!(
                "orders_by_external_id: {ext:?} points at {}, which does not exist",
                id(*oid)
            ));
        }
    }
    if by_ext.len() != statuses.len() {
        r.problem(format!(
            "orders_by_external_id holds {} entries for {} orders",
            by_ext.len(),
            statuses.len()
        ));
    }
    let jobs = r.all::<PackingJobs>(store);
    for (oid, _) in &jobs {
        if !statuses.contains_key(oid) {
            r.problem(format!("packing_jobs: order {} does not exist", id(*oid)));
        }
    }
    // The backlog counter, once a start has counted it (older databases lack it).
    match order_packing::backlog(store) {
        Ok(Some(n)) if n != jobs.len() as u64 => r.problem(format!(
            "meta counter \"packing_jobs\" is {n}, the tables hold {}",
            jobs.len()
        )),
        Ok(_) => {}
        Err(e) => r.problem(format!("meta counter \"packing_jobs\": {e}")),
    }
    r.counter(store, "orders", statuses.len() as u64);
    r.counters_with_prefix(store, "orders:", &per_status);
    statuses
}

fn packages(
    store: &Store,
    r: &mut Report,
    orders: &HashMap<u128, OrderStatus>,
    held: &mut HashMap<u128, i64>,
) {
    let by_order: HashMap<u128, Vec<u128>> = r.all::<OrderPackages>(store).into_iter().collect();
    let mut owners: HashMap<u128, (u128, PackageStatus)> = HashMap::new();
    let mut per_status: BTreeMap<String, u64> = PackageStatus::ALL
        .iter()
        .map(|s| (format!("packages:{}", s.as_str()), 0))
        .collect();
    for row in store.iter::<Packages>() {
        let p = match row {
            Ok((_, p)) => p,
            Err(e) => {
                r.problem(format!("packages: {e}"));
                continue;
            }
        };
        let name = id(p.id);
        if !orders.contains_key(&p.order_id) {
            r.problem(format!(
                "package {name}: its order {} does not exist",
                id(p.order_id)
            ));
        }
        if !by_order
            .get(&p.order_id)
            .is_some_and(|ps| ps.contains(&p.id))
        {
            r.problem(format!(
                "package {name}: order_packages of its order does not list it"
            ));
        }
        let indexed = store.get::<PackagesByStatus>(&(p.status.as_str().to_string(), p.id));
        if !matches!(indexed, Ok(Some(()))) {
            r.problem(format!("package {name}: missing from packages_by_status"));
        }
        if let Some(t) = &p.tracking_number {
            if !matches!(store.get::<PackagesByTracking>(t), Ok(Some(found)) if found == p.id) {
                r.problem(format!(
                    "package {name}: packages_by_tracking[{t:?}] does not point at it"
                ));
            }
        }
        if shipped(p.progress) {
            for item in &p.items {
                *held.entry(item.inventory_id).or_default() -= i64::from(item.quantity);
            }
        }
        *per_status
            .entry(format!("packages:{}", p.status.as_str()))
            .or_default() += 1;
        owners.insert(p.id, (p.order_id, p.status));
    }
    count(r, Packages::NAME, owners.len() as u64);
    for (oid, pids) in &by_order {
        for pid in pids {
            if owners.get(pid).map(|o| o.0) != Some(*oid) {
                r.problem(format!(
                    "order_packages of {}: package {} is not that order's",
                    id(*oid),
                    id(*pid)
                ));
            }
        }
    }
    for ((status, pid), _) in r.all::<PackagesByStatus>(store) {
        if owners.get(&pid).map(|o| o.1.as_str()) != Some(status.as_str()) {
            r.problem(format!(
                "packages_by_status: ({status:?}, {}) has no package in that status",
                id(pid)
            ));
        }
    }
    for (t, pid) in r.all::<PackagesByTracking>(store) {
        if !owners.contains_key(&pid) {
            r.problem(format!(
                "packages_by_tracking: {t:?} points at {}, which does not exist",
                id(pid)
            ));
        }
    }
    r.counter(store, "packages", owners.len() as u64);
    r.counters_with_prefix(store, "packages:", &per_status);
}

fn webhooks(store: &Store, r: &mut Report) {
    let hooks: HashMap<u128, storage::WebhookRecord> =
        r.all::<Webhooks>(store).into_iter().collect();
    let cursors: HashMap<u128, u64> = r.all::<WebhookCursors>(store).into_iter().collect();
    let mut wanted: BTreeMap<String, u64> = BTreeMap::new();
    for h in hooks.values() {
        if !cursors.contains_key(&h.id) {
            r.problem(format!("webhook {}: no fan-out cursor", id(h.id)));
        }
        if h.is_active {
            for kind in &h.events {
                *wanted.entry(storage::wanted_kind_key(kind)).or_default() += 1;
            }
        }
    }
    for wid in cursors.keys().filter(|w| !hooks.contains_key(w)) {
        r.problem(format!(
            "webhook_cursors: subscription {} does not exist",
            id(*wid)
        ));
    }
    r.counters_with_prefix(store, "webhooks_wanting:", &wanted);

    let mut deliveries: HashMap<u128, (u128, Option<i64>, DeliveryStatus)> = HashMap::new();
    for row in store.iter::<Deliveries>() {
        match row {
            Ok((_, d)) => {
                deliveries.insert(d.id, (d.webhook_id, d.next_attempt_ms, d.status));
            }
            Err(e) => r.problem(format!("webhook_deliveries: {e}")),
        }
    }
    count(r, Deliveries::NAME, deliveries.len() as u64);
    let by_hook: HashSet<(u128, u128)> = r
        .all::<DeliveriesByWebhook>(store)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let queue: HashSet<(u128, u64, u128)> = r
        .all::<DeliveryQueue>(store)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for (w, did) in &by_hook {
        if deliveries.get(did).map(|d| d.0) != Some(*w) {
            r.problem(format!(
                "webhook_deliveries_by_webhook: ({}, {}) has no such delivery",
                id(*w),
                id(*did)
            ));
        }
    }
    for (w, due, did) in &queue {
        match deliveries.get(did) {
            Some((hook, Some(at), _)) if hook == w && (*at).max(0) as u64 == *due => {}
            _ => r.problem(format!(
                "delivery queue: entry ({}, {due}, {}) has no delivery due then",
                id(*w),
                id(*did)
            )),
        }
    }
    for (did, (w, next, status)) in &deliveries {
        if !by_hook.contains(&(*w, *did)) {
            r.problem(format!(
                "delivery {}: missing from webhook_deliveries_by_webhook",
                id(*did)
            ));
        }
        if let (DeliveryStatus::Pending, Some(at)) = (status, next) {
            if !queue.contains(&(*w, (*at).max(0) as u64, *did)) {
                r.problem(format!("delivery {}: pending but not queued", id(*did)));
            }
        }
    }
}

fn inbound(store: &Store, r: &mut Report) {
    for ((source, event_id), (pid, arrival)) in r.all::<InboundEventIds>(store) {
        match store.get::<PackageEvents>(&(pid, arrival)) {
            Ok(Some(e)) if e.source == source && e.event_id == event_id => {}
            _ => r.problem(format!(
                "inbound_event_ids: ({source:?}, {event_id:?}) has no such package event"
            )),
        }
    }
}

/// Every history entry: a key of (an existing order, the UUIDv7 of the change) and a known
/// kind. Orders are never removed, so an entry without its order is a stray. Streamed.
fn order_events(store: &Store, r: &mut Report, orders: &HashMap<u128, OrderStatus>) {
    let mut n = 0;
    for row in store.iter::<OrderEvents>() {
        let ((order, change), e) = match row {
            Ok(entry) => entry,
            Err(e) => {
                r.problem(format!("order_events: {e}"));
                continue;
            }
        };
        n += 1;
        let key = format!("order_events[({}, {})]", id(order), id(change));
        if !orders.contains_key(&order) {
            r.problem(format!("{key}: no such order"));
        }
        if id(change).get_version_num() != 7 {
            r.problem(format!("{key}: the change id is not a UUIDv7"));
        }
        if !KINDS.contains(&e.kind.as_str()) {
            r.problem(format!("{key}: unknown kind {:?}", e.kind));
        }
    }
    count(r, OrderEvents::NAME, n);
}
