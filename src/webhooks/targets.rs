//! The scheduler's decoded subscriptions: each record with its URL parsed once, kept
//! until a transaction writes the webhooks table. Under load the scheduler makes a pass
//! per finished attempt, and decoding every subscription's record (and parsing its URL
//! for every request) on each pass had been a few percent of the server's CPU.

use std::collections::HashMap;
use std::sync::Arc;

use storage::tables::Webhooks;
use storage::{Store, WebhookRecord};

/// A subscription as the scheduler hands it to its attempts.
pub struct Target {
    pub record: WebhookRecord,
    /// `None` if the stored URL does not parse; the request then reports why.
    pub url: Option<reqwest::Url>,
}

impl Target {
    pub fn new(record: WebhookRecord) -> Target {
        let url = reqwest::Url::parse(&record.url).ok();
        Target { record, url }
    }
}

/// Copies stay bounded: a store with more subscriptions than this starts over.
const MAX: usize = 4096;

#[derive(Default)]
pub struct Targets {
    /// The webhooks table's version the copies were read at.
    version: Option<u64>,
    /// By subscription id; `None`: no such subscription (deleted).
    copies: HashMap<u128, Option<Arc<Target>>>,
}

impl Targets {
    /// Forgets every copy if the table was written since they were read. Called before
    /// the reads of a pass, so a copy is never older than the version it is kept under.
    pub fn refresh(&mut self, store: &Store) {
        let version = store.mirror_version::<Webhooks>();
        if version.is_none() || version != self.version {
            self.copies.clear();
            self.version = version;
        }
    }

    /// The subscription's record as of the last `refresh` or later.
    pub fn get(&mut self, store: &Store, id: u128) -> storage::Result<Option<Arc<Target>>> {
        if let Some(copy) = self.copies.get(&id) {
            return Ok(copy.clone());
        }
        let copy = store
            .get::<Webhooks>(&id)?
            .map(|r| Arc::new(Target::new(r)));
        if self.copies.len() >= MAX {
            self.copies.clear();
        }
        self.copies.insert(id, copy.clone());
        Ok(copy)
    }
}
