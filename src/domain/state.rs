//! [`Domain`]: the store and the in-memory indexes over it that the domain's changes share,
//! loaded at start.

use storage::tables::Meta;
use storage::{OrderStatus, Store};

use super::counters::{count_packing_jobs_once, order_count};
use super::events::Shapes;
use super::order_index::{Chunk, OrderSearch, CHUNK};
use super::product_index::ProductIndex;
use super::products;

/// What the domain's changes share. Each index has one keeper: the domain functions that
/// change what it indexes update it right after their transaction (callers never do), so
/// every way of changing an order or a product leaves `q` search and the list pages current.
pub struct Domain {
    pub store: Store,
    /// The `q` search and status pages over orders; kept current by `orders`,
    /// `order_packing`, `packages` and `inbound`.
    pub orders: OrderSearch,
    /// Live products newest first with their rendered bytes; kept current by `products`.
    pub products: ProductIndex,
    /// Renders event payloads in the API's shapes (implemented by `src/http`).
    pub shapes: Box<dyn Shapes>,
}

impl Domain {
    /// Loads the in-memory indexes: the order index is `orders` if given (read from a
    /// snapshot), else rebuilt from every stored order.
    pub fn load(
        store: Store,
        shapes: Box<dyn Shapes>,
        orders: Option<OrderSearch>,
    ) -> storage::Result<Domain> {
        let orders = match orders {
            Some(orders) => orders,
            None => rebuild_order_index(&store)?,
        };
        tracing::info!(
            orders = orders.len(),
            index_mb = orders.heap_bytes() / (1024 * 1024),
            "order search index loaded"
        );
        let products = ProductIndex::default();
        let loaded = products::load_index(&store, &products)?;
        tracing::info!(products = loaded, "product index loaded");
        // After the order index: its snapshot is checked against a seal this write removes.
        count_packing_jobs_once(&store)?;
        Ok(Domain {
            store,
            orders,
            products,
            shapes,
        })
    }
}

/// The order index from every stored order: one thread reads the orders' summaries from
/// storage into chunks while this one indexes the chunks already read.
fn rebuild_order_index(store: &Store) -> storage::Result<OrderSearch> {
    let started = std::time::Instant::now();
    let orders = OrderSearch::default();
    let (send, chunks) = crossbeam::channel::bounded::<Chunk>(8);
    let mut waited = std::time::Duration::ZERO;
    let read = std::thread::scope(|s| {
        let reader = s.spawn(move || {
            let mut chunk = Chunk::default();
            let read = store.each_order_summary(|o| {
                chunk.push(&o);
                if chunk.len() == CHUNK {
                    // The receiver only goes away when this scope ends.
                    let _ = send.send(std::mem::take(&mut chunk));
                }
            });
            if !chunk.is_empty() {
                let _ = send.send(chunk);
            }
            read
        });
        loop {
            let wait = std::time::Instant::now();
            let Ok(chunk) = chunks.recv() else { break };
            waited += wait.elapsed();
            orders.append(&chunk);
        }
        reader.join().expect("order reader panicked")
    });
    read?;
    orders.shrink();
    tracing::info!(
        orders = orders.len(),
        ms = started.elapsed().as_millis() as u64,
        waiting_for_storage_ms = waited.as_millis() as u64,
        "order index rebuilt from storage"
    );
    Ok(orders)
}

impl Domain {
    /// Orders ever created, and the orders in each status, from the `Meta` counters.
    pub fn order_counts(&self) -> storage::Result<(u64, Vec<(OrderStatus, u64)>)> {
        Domain::stored_order_counts(&self.store)
    }

    /// [`Domain::order_counts`] of `store`, before a `Domain` exists.
    pub fn stored_order_counts(store: &Store) -> storage::Result<(u64, Vec<(OrderStatus, u64)>)> {
        let count =
            |s: Option<OrderStatus>| store.get::<Meta>(&order_count(s)).map(|n| n.unwrap_or(0));
        let by_status = OrderStatus::ALL
            .into_iter()
            .map(|s| count(Some(s)).map(|n| (s, n)))
            .collect::<storage::Result<Vec<_>>>()?;
        Ok((count(None)?, by_status))
    }
}
