//! [`Domain`]: the store and the in-memory indexes over it that the domain's changes share,
//! loaded at start.

use storage::tables::{Meta, Orders};
use storage::{OrderStatus, Store};

use super::counters::{count_packing_jobs_once, order_count};
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

/// The order index from every stored order.
fn rebuild_order_index(store: &Store) -> storage::Result<OrderSearch> {
    let orders = OrderSearch::default();
    for row in store.iter::<Orders>() {
        orders.upsert(&row?.1);
    }
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
