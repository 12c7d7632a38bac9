//! [`Domain`]: the store and the in-memory indexes over it that the domain's changes share,
//! loaded at start.

use storage::tables::{Meta, Orders};
use storage::{OrderStatus, Store};

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
    /// Loads the in-memory indexes from `store`.
    pub fn load(store: Store, shapes: Box<dyn Shapes>) -> storage::Result<Domain> {
        let orders = OrderSearch::default();
        let mut loaded = 0;
        for row in store.iter::<Orders>() {
            orders.upsert(&row?.1);
            loaded += 1;
        }
        orders.shrink();
        tracing::info!(
            orders = loaded,
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

impl Domain {
    /// Orders ever created, and the orders in each status, from the `Meta` counters.
    pub fn order_counts(&self) -> storage::Result<(u64, Vec<(OrderStatus, u64)>)> {
        let count = |s: Option<OrderStatus>| {
            self.store
                .get::<Meta>(&order_count(s))
                .map(|n| n.unwrap_or(0))
        };
        let by_status = OrderStatus::ALL
            .into_iter()
            .map(|s| count(Some(s)).map(|n| (s, n)))
            .collect::<storage::Result<Vec<_>>>()?;
        Ok((count(None)?, by_status))
    }
}
