//! `fulfilld check`: an offline integrity check of a database. Every record must decode,
//! every index entry must point at its record and every record be in its indexes, the
//! `Meta` counters must match the tables, stock levels must match their audit trails and
//! the open orders' reservations. Catalog and clients here; orders, packages and
//! webhooks in `check_orders.rs`.

use std::collections::{BTreeMap, HashMap};

use storage::tables::{
    ApiKeys, Clients, Inventory, InventoryAudit, InventoryByPair, InventoryBySku,
    InventoryByWarehouse, Products, ProductsBySku, ProductsLive, Table, Warehouses,
    WarehousesByCreation,
};
use storage::Store;

use super::report::{id, Report};

/// Runs every check over `store`.
pub fn run(store: &Store) -> Report {
    let mut r = Report::default();
    catalog(store, &mut r);
    clients(store, &mut r);
    let reserved = super::check_orders::run(store, &mut r);
    inventory(store, &mut r, &reserved);
    r.ok = r.problem_count == 0;
    r
}

fn catalog(store: &Store, r: &mut Report) {
    let products: HashMap<u128, storage::ProductRecord> =
        r.all::<Products>(store).into_iter().collect();
    let live = r.all::<ProductsLive>(store);
    for (pid, _) in &live {
        match products.get(pid) {
            Some(p) if p.deleted_at_ms.is_none() => {}
            Some(_) => r.problem(format!("products_live: product {} is deleted", id(*pid))),
            None => r.problem(format!(
                "products_live: product {} does not exist",
                id(*pid)
            )),
        }
    }
    let live_ids: std::collections::HashSet<u128> = live.iter().map(|(k, _)| *k).collect();
    let by_sku: HashMap<String, u128> = r.all::<ProductsBySku>(store).into_iter().collect();
    for (sku, pid) in &by_sku {
        match products.get(pid) {
            Some(p) if p.sku == *sku && p.deleted_at_ms.is_none() => {}
            _ => r.problem(format!(
                "products_by_sku: {sku:?} points at {}, which is not a live product with that SKU",
                id(*pid)
            )),
        }
    }
    for p in products.values().filter(|p| p.deleted_at_ms.is_none()) {
        if !live_ids.contains(&p.id) {
            r.problem(format!(
                "product {} is live but not in products_live",
                id(p.id)
            ));
        }
        if by_sku.get(&p.sku) != Some(&p.id) {
            r.problem(format!(
                "product {} is live but products_by_sku does not point at it",
                id(p.id)
            ));
        }
    }
    r.counter(store, "products_live", live.len() as u64);

    let warehouses = r.all::<Warehouses>(store);
    let by_creation: HashMap<u128, String> =
        r.all::<WarehousesByCreation>(store).into_iter().collect();
    for (key, wh) in &by_creation {
        if !warehouses
            .iter()
            .any(|(w, rec)| w == wh && rec.created_key == *key)
        {
            r.problem(format!(
                "warehouses_by_creation: entry for {wh:?} has no such warehouse"
            ));
        }
    }
    for (w, rec) in &warehouses {
        if by_creation.get(&rec.created_key) != Some(w) {
            r.problem(format!(
                "warehouse {w:?} is missing from warehouses_by_creation"
            ));
        }
    }
    r.counter(store, "warehouses", warehouses.len() as u64);
}

fn clients(store: &Store, r: &mut Report) {
    let clients: HashMap<String, storage::ClientRecord> =
        r.all::<Clients>(store).into_iter().collect();
    let keys: HashMap<Vec<u8>, String> = r.all::<ApiKeys>(store).into_iter().collect();
    for (digest, cid) in &keys {
        if clients.get(cid).map(|c| &c.api_key_sha256) != Some(digest) {
            r.problem(format!(
                "api_keys: a key points at client {cid:?}, which does not hold it"
            ));
        }
    }
    for c in clients.values() {
        if keys.get(&c.api_key_sha256) != Some(&c.id) {
            r.problem(format!("client {:?} has no api_keys entry", c.id));
        }
    }
}

/// Inventory records against their three indexes, their audit trails, the counters and
/// `reserved`, the units the open orders hold there (from `check_orders`).
fn inventory(store: &Store, r: &mut Report, reserved: &HashMap<u128, i64>) {
    let records = r.all::<Inventory>(store);
    let by_pair: HashMap<(String, String), u128> =
        r.all::<InventoryByPair>(store).into_iter().collect();
    let by_sku = r.all::<InventoryBySku>(store);
    let by_wh = r.all::<InventoryByWarehouse>(store);
    let recs: HashMap<u128, &storage::InventoryRecord> =
        records.iter().map(|(k, v)| (*k, v)).collect();
    let points = |iid: &u128, f: &dyn Fn(&storage::InventoryRecord) -> bool| {
        recs.get(iid).is_some_and(|rec| f(rec))
    };
    for ((sku, wh), iid) in &by_pair {
        if !points(iid, &|rec| rec.sku == *sku && rec.warehouse_id == *wh) {
            r.problem(format!(
                "inventory_by_pair: ({sku:?}, {wh:?}) points at {}, which is not that record",
                id(*iid)
            ));
        }
    }
    for ((sku, iid), _) in &by_sku {
        if !points(iid, &|rec| rec.sku == *sku) {
            r.problem(format!(
                "inventory_by_sku: ({sku:?}, {}) has no such record",
                id(*iid)
            ));
        }
    }
    for ((wh, iid), _) in &by_wh {
        if !points(iid, &|rec| rec.warehouse_id == *wh) {
            r.problem(format!(
                "inventory_by_warehouse: ({wh:?}, {}) has no such record",
                id(*iid)
            ));
        }
    }
    let sku_set: std::collections::HashSet<(&str, u128)> =
        by_sku.iter().map(|((s, i), _)| (s.as_str(), *i)).collect();
    let wh_set: std::collections::HashSet<(&str, u128)> =
        by_wh.iter().map(|((w, i), _)| (w.as_str(), *i)).collect();
    let mut per_warehouse: BTreeMap<String, u64> = BTreeMap::new();
    let mut audits = 0u64;
    for (iid, rec) in &records {
        let name = id(*iid);
        if by_pair.get(&(rec.sku.clone(), rec.warehouse_id.clone())) != Some(iid) {
            r.problem(format!(
                "inventory {name}: inventory_by_pair does not point at it"
            ));
        }
        if !sku_set.contains(&(rec.sku.as_str(), *iid)) {
            r.problem(format!("inventory {name}: missing from inventory_by_sku"));
        }
        if !wh_set.contains(&(rec.warehouse_id.as_str(), *iid)) {
            r.problem(format!(
                "inventory {name}: missing from inventory_by_warehouse"
            ));
        }
        *per_warehouse
            .entry(format!("inventory:{}", rec.warehouse_id))
            .or_default() += 1;
        let (mut n, mut on_hand, mut held) = (0u64, 0i64, 0i64);
        for row in store.scan_prefix::<InventoryAudit>(&iid.to_be_bytes()) {
            match row {
                Ok((_, a)) => {
                    n += 1;
                    on_hand += a.on_hand_delta;
                    held += a.reserved_delta;
                }
                Err(e) => r.problem(format!("inventory_audit of {name}: {e}")),
            }
        }
        audits += n;
        if n != rec.audit_seq || on_hand != rec.on_hand || held != rec.reserved {
            r.problem(format!(
                "inventory {name}: audit trail of {n} changes sums to onHand {on_hand}, reserved {held}; the record says {} changes, onHand {}, reserved {}",
                rec.audit_seq, rec.on_hand, rec.reserved
            ));
        }
        let open = reserved.get(iid).copied().unwrap_or(0);
        if open != rec.reserved {
            r.problem(format!(
                "inventory {name}: reserved is {}, the open orders hold {open}",
                rec.reserved
            ));
        }
    }
    for iid in reserved.keys().filter(|i| !recs.contains_key(i)) {
        r.problem(format!(
            "orders hold stock in inventory {}, which does not exist",
            id(*iid)
        ));
    }
    *r.records.entry(InventoryAudit::NAME).or_default() += audits;
    r.counter(store, "inventory", records.len() as u64);
    r.counters_with_prefix(store, "inventory:", &per_warehouse);
}
