//! The `q` search of orders: a case-insensitive substring match on externalId,
//! customerEmail, customerId and id. Kept in memory as one lowercase arena scanned with
//! SIMD `memmem`, because a substring index (n-grams) of a million orders would be far
//! larger than the text itself. Rebuilt from storage at start, updated after commits.

use std::collections::HashMap;
use std::sync::RwLock;

use memchr::memmem;
use storage::{OrderRecord, OrderStatus};

/// Fields are joined by 0x00 and entries end with 0x01, so no match spans two fields.
const FIELD_SEP: u8 = 0;
const ENTRY_END: u8 = 1;

#[derive(Clone, Copy)]
struct Entry {
    id: u128,
    start: usize,
    status: OrderStatus,
    created_ms: i64,
    live: bool,
}

#[derive(Default)]
struct Corpus {
    text: Vec<u8>,
    entries: Vec<Entry>,
    by_id: HashMap<u128, usize>,
    dead: usize,
}

/// A search hit with what list filters need.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub id: u128,
    pub status: OrderStatus,
    pub created_ms: i64,
}

#[derive(Default)]
pub struct OrderSearch {
    corpus: RwLock<Corpus>,
}

fn push_lower(text: &mut Vec<u8>, s: &str) {
    text.extend(
        s.bytes()
            .map(|b| b.to_ascii_lowercase())
            .filter(|b| *b > ENTRY_END),
    );
}

impl OrderSearch {
    /// Adds or replaces an order's searchable text and status.
    pub fn upsert(&self, o: &OrderRecord) {
        let mut c = self.corpus.write().expect("search index poisoned");
        if let Some(&i) = c.by_id.get(&o.id) {
            c.entries[i].live = false;
            c.dead += 1;
        }
        let start = c.text.len();
        push_lower(&mut c.text, &o.external_id);
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, &o.customer_email);
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, o.customer_id.as_deref().unwrap_or(""));
        c.text.push(FIELD_SEP);
        push_lower(&mut c.text, &uuid::Uuid::from_u128(o.id).to_string());
        c.text.push(ENTRY_END);
        let idx = c.entries.len();
        c.entries.push(Entry {
            id: o.id,
            start,
            status: o.status,
            created_ms: o.created_at_ms,
            live: true,
        });
        c.by_id.insert(o.id, idx);
        if c.dead > 1024 && c.dead * 2 > c.entries.len() {
            compact(&mut c);
        }
    }

    /// Records a status change without touching the text.
    pub fn set_status(&self, id: u128, status: OrderStatus) {
        let mut c = self.corpus.write().expect("search index poisoned");
        if let Some(&i) = c.by_id.get(&id) {
            c.entries[i].status = status;
        }
    }

    /// Every live order whose fields contain `q` (case-insensitive), newest first.
    pub fn find(&self, q: &str) -> Vec<Hit> {
        let needle: Vec<u8> = q
            .bytes()
            .map(|b| b.to_ascii_lowercase())
            .filter(|b| *b > ENTRY_END)
            .collect();
        let c = self.corpus.read().expect("search index poisoned");
        let mut hits = Vec::new();
        let mut last: Option<usize> = None;
        for pos in memmem::find_iter(&c.text, &needle) {
            // Entries are in arena order: the owner is the last entry starting at or before pos.
            let i = c.entries.partition_point(|e| e.start <= pos) - 1;
            if last == Some(i) {
                continue;
            }
            last = Some(i);
            let e = c.entries[i];
            if e.live {
                hits.push(Hit {
                    id: e.id,
                    status: e.status,
                    created_ms: e.created_ms,
                });
            }
        }
        hits.sort_unstable_by_key(|h| std::cmp::Reverse(h.id));
        hits
    }

    pub fn len(&self) -> usize {
        self.corpus.read().map(|c| c.by_id.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Drops dead entries' text once they are half the arena.
fn compact(c: &mut Corpus) {
    let old = std::mem::take(c);
    for e in old.entries.iter().filter(|e| e.live) {
        let end = old.text[e.start..]
            .iter()
            .position(|b| *b == ENTRY_END)
            .map_or(old.text.len(), |p| e.start + p + 1);
        let start = c.text.len();
        c.text.extend_from_slice(&old.text[e.start..end]);
        c.by_id.insert(e.id, c.entries.len());
        c.entries.push(Entry { start, ..*e });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(id: u128, ext: &str, email: &str, cust: Option<&str>) -> OrderRecord {
        OrderRecord {
            id,
            external_id: ext.into(),
            customer_id: cust.map(str::to_string),
            customer_email: email.into(),
            status: OrderStatus::Pending,
            lines: vec![],
            shipping_addresses: vec![],
            billing_address: None,
            total: "0".into(),
            item_count: 0,
            request_sha256: vec![],
            cancel_reason: None,
            pending_reason: None,
            created_at_ms: id as i64,
            updated_at_ms: 0,
        }
    }

    #[test]
    fn matches_each_field_case_insensitively_newest_first_and_never_across_fields() {
        let s = OrderSearch::default();
        s.upsert(&order(1, "SHOP-100", "ann@example.com", Some("C-7")));
        s.upsert(&order(2, "shop-200", "bob@example.com", None));
        s.upsert(&order(3, "AMZ-1", "carol@shop.io", Some("VIP-9")));
        let ids = |q: &str| s.find(q).iter().map(|h| h.id).collect::<Vec<_>>();
        assert_eq!(ids("shop"), [3, 2, 1]);
        assert_eq!(ids("SHOP-1"), [1]);
        assert_eq!(ids("vip"), [3]);
        assert_eq!(ids("100ann"), Vec::<u128>::new(), "no match across fields");
        let uuid_fragment = uuid::Uuid::from_u128(2).to_string()[28..].to_string();
        assert_eq!(ids(&uuid_fragment), [2]);
        s.upsert(&order(1, "SHOP-100", "ann@new.org", Some("C-7")));
        assert_eq!(ids("example"), [2], "replaced text is gone");
        assert_eq!(ids("new.org"), [1]);
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn compaction_keeps_every_live_entry() {
        let s = OrderSearch::default();
        for round in 0..5 {
            for id in 0..1000u128 {
                s.upsert(&order(id, &format!("E{id}-r{round}"), "x@y.z", None));
            }
        }
        assert_eq!(s.find("-r4").len(), 1000);
        assert_eq!(s.find("-r3").len(), 0);
        assert_eq!(s.find("e999-").len(), 1);
        assert!(s.corpus.read().unwrap().entries.len() < 5000, "compacted");
    }
}
