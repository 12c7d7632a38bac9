//! What `fulfilld check` found: records read per table and the problems, each naming the
//! table, key and what is wrong.

use std::collections::BTreeMap;

use serde::Serialize;
use storage::tables::Meta;
use storage::{Store, Table};

/// Problems listed in full; beyond it they are only counted.
const LISTED: usize = 100;

/// What a check found.
#[derive(Serialize, Debug, Default)]
pub struct Report {
    pub ok: bool,
    /// Records read, per table.
    pub records: BTreeMap<&'static str, u64>,
    pub problem_count: u64,
    /// The first problems found, each naming the table, key and what is wrong.
    pub problems: Vec<String>,
}

impl Report {
    pub(super) fn problem(&mut self, text: String) {
        self.problem_count += 1;
        if self.problems.len() < LISTED {
            self.problems.push(text);
        }
    }

    /// Every record of `T`; a record that does not decode is a problem, not a stop.
    pub(super) fn all<T: Table>(&mut self, store: &Store) -> Vec<(T::Key, T::Value)> {
        let mut out = Vec::new();
        for row in store.iter::<T>() {
            match row {
                Ok(r) => out.push(r),
                Err(e) => self.problem(format!("{}: {e}", T::NAME)),
            }
        }
        *self.records.entry(T::NAME).or_default() += out.len() as u64;
        out
    }

    /// The `Meta` counter `key` must be `expected` (an absent counter is 0).
    pub(super) fn counter(&mut self, store: &Store, key: &str, expected: u64) {
        match store.get::<Meta>(&key.to_string()) {
            Ok(found) if found.unwrap_or(0) == expected => {}
            Ok(found) => self.problem(format!(
                "meta counter {key:?} is {}, the tables hold {expected}",
                found.unwrap_or(0)
            )),
            Err(e) => self.problem(format!("meta counter {key:?}: {e}")),
        }
    }

    /// Every `Meta` counter under `prefix` must be one of `expected` (which must all be there).
    pub(super) fn counters_with_prefix(
        &mut self,
        store: &Store,
        prefix: &str,
        expected: &BTreeMap<String, u64>,
    ) {
        for row in store.scan_prefix::<Meta>(prefix.as_bytes()) {
            match row {
                Ok((key, _)) if !expected.contains_key(&key) => self.counter(store, &key, 0),
                Ok(_) => {}
                Err(e) => self.problem(format!("meta: {e}")),
            }
        }
        for (key, n) in expected {
            self.counter(store, key, *n);
        }
    }
}

/// A stored id as the API shows it.
pub(super) fn id(v: u128) -> uuid::Uuid {
    uuid::Uuid::from_u128(v)
}
