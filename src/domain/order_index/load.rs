//! Building the order index from every stored order at start: a reader turns orders
//! into [`Chunk`]s (their arena text and entry fields, in id order) while the index takes
//! the chunks it has already been handed, so reading and indexing run on two cores.

use storage::{OrderStatus, OrderSummary};

use super::text::write_fields;
use super::{put, Corpus, OrderSearch};

/// Orders per chunk: large enough that handing one over is rare, small enough that the
/// reader and the index stay busy together.
pub const CHUNK: usize = 4096;

/// One order of a chunk; its text is `text[start..]` up to the next row's start.
struct Row {
    id: u128,
    created_ms: i64,
    updated_ms: i64,
    status: OrderStatus,
    start: u32,
}

/// Orders in ascending id order with their text already as the arena holds it.
#[derive(Default)]
pub struct Chunk {
    text: Vec<u8>,
    rows: Vec<Row>,
}

impl Chunk {
    pub fn push(&mut self, o: &OrderSummary<'_>) {
        let start = self.text.len() as u32;
        write_fields(&mut self.text, o);
        self.rows.push(Row {
            id: o.id,
            created_ms: o.created_at_ms,
            updated_ms: o.updated_at_ms,
            status: o.status,
            start,
        });
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The arena text of row `i`.
    fn text_of(&self, i: usize) -> &[u8] {
        let end = self
            .rows
            .get(i + 1)
            .map_or(self.text.len(), |r| r.start as usize);
        &self.text[self.rows[i].start as usize..end]
    }
}

impl OrderSearch {
    /// Adds a chunk's orders. Orders above every id indexed so far (all of them, when
    /// chunks come in key order from an empty index) are appended without a search; any
    /// other is added as [`OrderSearch::upsert`] would.
    pub fn append(&self, chunk: &Chunk) {
        let mut c = self.corpus.write().expect("search index poisoned");
        for (i, row) in chunk.rows.iter().enumerate() {
            let last = c
                .ids
                .by_rank
                .last()
                .map(|&e| c.ids.entries[e as usize].id());
            if last.is_some_and(|l| l >= row.id) {
                put_row(&mut c, chunk, i);
                continue;
            }
            let start = c.text.bytes.len() as u32;
            c.text.bytes.extend_from_slice(chunk.text_of(i));
            let idx = c.push_entry(row.id, row.created_ms, row.updated_ms, row.status, start);
            let rank = c.ids.by_rank.len();
            c.ids.by_rank.push(idx as u32);
            c.pages.insert(rank, super::pages::slot(row.status));
        }
    }
}

/// Row `i` of `chunk` through the general path (an id not above every indexed one).
fn put_row(c: &mut Corpus, chunk: &Chunk, i: usize) {
    let row = &chunk.rows[i];
    let text = chunk.text_of(i);
    let mut fields = text[..text.len() - 1].split(|b| *b == 0);
    let mut next = || std::str::from_utf8(fields.next().unwrap_or(&[])).unwrap_or("");
    let (external_id, customer_email, customer_id) = (next(), next(), next());
    let summary = OrderSummary {
        id: row.id,
        external_id,
        customer_id: Some(customer_id).filter(|s| !s.is_empty()),
        customer_email,
        status: row.status,
        created_at_ms: row.created_ms,
        updated_at_ms: row.updated_ms,
    };
    put(c, &summary);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use storage::OrderRecord;

    use super::super::pages::STATUSES;
    use super::super::tests::{answers, order, xorshift};
    use super::*;

    #[test]
    fn chunks_in_key_order_answer_as_upserts_do() {
        let mut seed = 0x5eed_0fc4_u64;
        let upserted = OrderSearch::default();
        let mut latest: BTreeMap<u128, OrderRecord> = BTreeMap::new();
        for step in 0..3000u64 {
            let id = u128::from(xorshift(&mut seed) % 2000) << 64 | 7;
            let mut o = order(
                id,
                &format!("SHOP-{}", xorshift(&mut seed) % 5000),
                &format!("c{}@example.com", step % 300),
                (step % 3 == 0).then_some("VIP-1"),
            );
            o.status = STATUSES[xorshift(&mut seed) as usize % 5];
            o.updated_at_ms = step as i64;
            upserted.upsert(&o);
            latest.insert(id, o);
        }
        let loaded = OrderSearch::default();
        let mut chunk = Chunk::default();
        for (i, o) in latest.values().enumerate() {
            chunk.push(&o.summary());
            if i % 97 == 0 {
                loaded.append(&std::mem::take(&mut chunk));
            }
        }
        loaded.append(&chunk);
        assert_eq!(answers(&loaded), answers(&upserted));
        assert_eq!(loaded.len(), latest.len());

        // An order that is not above every indexed id takes the general path.
        let first = latest.values().next().unwrap();
        let mut newer = order(first.id, "MOVED-1", "m@moved.org", None);
        newer.updated_at_ms = 10_000;
        let mut late = Chunk::default();
        late.push(&newer.summary());
        loaded.append(&late);
        upserted.upsert(&newer);
        assert_eq!(answers(&loaded), answers(&upserted));
        assert_eq!(loaded.find("moved")[0].id, first.id);
    }
}
