//! Test support: a real fulfilld on 127.0.0.1:0 over real TLS in a temp data dir (in
//! process or as a child process), an HTTPS client that trusts its certificate, one
//! helper per endpoint, seed data, signed callbacks, a real webhook receiver and kill -9
//! runs. Nothing here mocks storage or HTTP.

pub mod browser;
mod callbacks;
mod child;
mod client;
mod console;
mod crash;
mod fixtures;
pub mod print;
mod receiver;
mod server;
mod tools;

pub use callbacks::*;
pub use child::*;
pub use client::*;
pub use console::*;
pub use crash::*;
pub use fixtures::*;
pub use receiver::*;
pub use server::*;
pub use tools::*;
