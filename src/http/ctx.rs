//! [`Ctx`]: a matched request as handlers see it, and the marks a handler leaves on it
//! (it wrote; what to wake once the write is durable).

use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use hyper::header::HeaderMap;

use crate::accounts::Session;
use crate::app::App;
use crate::clients::ClientEntry;

/// A matched request as handlers see it.
pub struct Ctx<'a> {
    pub app: &'a App,
    pub client: Option<Arc<ClientEntry>>,
    /// The console session, when a person (not an API client) is calling.
    pub session: Option<Arc<Session>>,
    pub peer: IpAddr,
    pub params: Vec<(String, String)>,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub now: i64,
    pub(super) wrote: bool,
    /// Woken once this request's writes are durable (see [`Ctx::wake_when_durable`]).
    pub(super) wake: Option<crate::webhooks::Handle>,
}

impl Ctx<'_> {
    pub fn param(&self, name: &str) -> &str {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// Marks that this request committed a write: it is answered only after a flush.
    pub fn wrote(&mut self) {
        self.wrote = true;
    }

    /// Marks a write and wakes `engine` once it is durable, when the request's own wait
    /// for durability returns: one wake per request, no extra task or durable waiter
    /// (a spawned waiter per created order cost a task and a watch wake-up per flush).
    /// Wakes are hints: if the request is dropped first, the engine's poll finds the work.
    pub fn wake_when_durable(&mut self, engine: &crate::webhooks::Handle) {
        self.wrote = true;
        self.wake = Some(engine.clone());
    }

    /// Who is calling, as audit trails record it: a client id, or `user:NAME`.
    pub fn client_id(&self) -> &str {
        match (&self.client, &self.session) {
            (Some(c), _) => &c.id,
            (None, Some(s)) => &s.actor,
            (None, None) => "",
        }
    }
}
