//! [`Domain`]: the store and the in-memory indexes over it that the domain's changes share,
//! loaded at start.

use storage::tables::{Meta, Orders};
use storage::{OrderRecord, OrderStatus, Store};

use super::counters::order_count;
use super::events::Shapes;
use super::order_index::OrderSearch;
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
        Ok(Domain {
            store,
            orders,
            products,
            shapes,
        })
    }
}

/// Orders read and decoded per hand-over to the indexing thread.
const REBUILD_CHUNK: usize = 1024;

/// The order index from every stored order. A second thread walks and decodes the
/// records (half the time) while this one indexes them, in key order.
fn rebuild_order_index(store: &Store) -> storage::Result<OrderSearch> {
    let orders = OrderSearch::default();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<OrderRecord>>(8);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut chunk = Vec::with_capacity(REBUILD_CHUNK);
            for row in store.iter::<Orders>() {
                chunk.push(row?.1);
                if chunk.len() == REBUILD_CHUNK {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(REBUILD_CHUNK));
                    if tx.send(full).is_err() {
                        break;
                    }
                }
            }
            let _ = tx.send(chunk);
            Ok::<_, storage::Error>(())
        });
        for chunk in rx {
            for o in &chunk {
                orders.upsert(o);
            }
        }
        reader.join().expect("the order reader panicked")
    })?;
    orders.shrink();
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
