//! The integration test binary: every test starts a real fulfilld over real TLS (in
//! process on port 0, or as a child process) and talks to it with a real HTTP client.

mod accounts;
mod auth;
mod bulk_import;
mod console;
mod console_catalog;
mod contract;
mod crash_files;
mod crash_idempotency;
mod disk_full;
mod fulfillment;
mod http_rules;
mod inbound;
mod inventory;
mod lifecycle;
mod metrics;
mod ops;
mod order_events;
mod order_paths;
mod orders;
mod package_views;
mod packing_api;
mod products;
mod restart;
mod station;
mod structure;
mod support;
mod system;
mod timeouts;
mod warehouses;
mod webhook_rules;
mod webhooks;
