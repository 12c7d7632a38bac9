//! Business rules that are not HTTP: typed values, validation of domain invariants and
//! the storage transactions that apply changes. Knows no JSON shapes or status codes.

pub mod allocation;
mod counters;
pub mod events;
pub mod idempotency;
pub mod inbound;
pub mod inventory;
pub mod money;
pub mod order_events;
pub mod order_index;
pub mod order_list;
pub mod order_packing;
pub mod orders;
pub mod package_views;
pub mod packages;
pub mod product_index;
pub mod products;
mod state;
pub mod time_fmt;
pub mod warehouses;

pub use state::Domain;
