//! Query strings: lookup of parameters and the `limit`/`offset` rules every list shares
//! (limit 1..=200, default 50; offset >= 0; a non-number is 400, out of range 422). Every
//! parameter takes one value: a name given twice is 400, not a guess at which one counts.

use serde_json::{json, Value};

use super::error::ApiError;

pub struct Query {
    pairs: Vec<(String, String)>,
}

/// A list response body with a resource-named key (see [`Page::typed`]).
pub struct ListBody<'k, T> {
    key: &'k str,
    items: Vec<T>,
    page: Page,
    total: u64,
}

impl<T: serde::Serialize> serde::Serialize for ListBody<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry(self.key, &self.items)?;
        m.serialize_entry("pagination", &self.page.json(self.total))?;
        m.end()
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub limit: usize,
    pub offset: usize,
}

pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 200;

impl Query {
    pub fn parse(raw: Option<&str>) -> Result<Query, ApiError> {
        let pairs: Vec<(String, String)> = raw
            .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
            .unwrap_or_default();
        for (i, (name, _)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(ApiError::bad_request(format!(
                    "Query parameter {name} is given more than once."
                ))
                .on(name));
            }
        }
        Ok(Query { pairs })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v.trim().parse::<i64>().map(Some).map_err(|_| {
                ApiError::bad_request(format!("Query parameter {name} must be an integer."))
                    .on(name)
            }),
        }
    }

    pub fn page(&self) -> Result<Page, ApiError> {
        let limit = self.integer("limit")?.unwrap_or(DEFAULT_LIMIT as i64);
        if !(1..=MAX_LIMIT as i64).contains(&limit) {
            return Err(ApiError::validation(
                "limit",
                format!("limit must be between 1 and {MAX_LIMIT}."),
            ));
        }
        let offset = self.integer("offset")?.unwrap_or(0);
        if offset < 0 {
            return Err(ApiError::validation("offset", "offset must be 0 or more."));
        }
        Ok(Page {
            limit: limit as usize,
            offset: offset as usize,
        })
    }
}

impl Page {
    pub fn json(&self, total: u64) -> Value {
        json!({ "limit": self.limit, "offset": self.offset, "total": total })
    }

    /// The list body `{<key>: [...], pagination}` serialized straight from typed items,
    /// without building a `Value` tree (that costs as much as the rest of a list request).
    pub fn typed<'k, T: serde::Serialize>(
        &self,
        key: &'k str,
        items: Vec<T>,
        total: u64,
    ) -> ListBody<'k, T> {
        ListBody {
            key,
            items,
            page: *self,
            total,
        }
    }

    /// The list body `{<key>: [...], pagination}`. Moves the items in: `json!` would
    /// deep-copy them, which costs as much as building them.
    pub fn list(&self, key: &str, items: Vec<Value>, total: u64) -> Value {
        let mut body = serde_json::Map::with_capacity(2);
        body.insert(key.to_string(), Value::Array(items));
        body.insert("pagination".to_string(), self.json(total));
        Value::Object(body)
    }
}

/// A list body assembled from items already rendered as JSON (products and orders keep
/// their rendered bytes): `{"<key>":[...],"pagination":{...}}` without re-encoding them.
pub struct RenderedList {
    body: Vec<u8>,
    page: Page,
    first: bool,
}

impl Page {
    /// Starts a rendered list under `key`, with room for `capacity` bytes of items.
    pub fn rendered(&self, key: &str, capacity: usize) -> RenderedList {
        let mut body = Vec::with_capacity(capacity + key.len() + 96);
        body.extend_from_slice(b"{\"");
        body.extend_from_slice(key.as_bytes());
        body.extend_from_slice(b"\":[");
        RenderedList {
            body,
            page: *self,
            first: true,
        }
    }
}

impl RenderedList {
    /// Appends one item's JSON.
    pub fn push(&mut self, item: &[u8]) {
        if !self.first {
            self.body.push(b',');
        }
        self.first = false;
        self.body.extend_from_slice(item);
    }

    /// Closes the array and adds the pagination object with `total`.
    pub fn finish(mut self, total: u64) -> super::response::Resp {
        self.body.extend_from_slice(b"],\"pagination\":");
        serde_json::to_writer(&mut self.body, &self.page.json(total))
            .expect("pagination serializes");
        self.body.push(b'}');
        super::response::bytes(hyper::StatusCode::OK, "application/json", self.body.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parameter_given_twice_is_refused_by_name() {
        let q = Query::parse(Some("limit=5&offset=10&sku=A%2DB")).unwrap();
        assert_eq!(q.get("sku"), Some("A-B"));
        assert_eq!(q.page().unwrap().offset, 10);
        assert!(Query::parse(None).unwrap().get("sku").is_none());
        for raw in ["orderId=a&orderId=a", "limit=5&sku=x&limit=6"] {
            let e = Query::parse(Some(raw)).err().expect(raw);
            assert_eq!(e.status, hyper::StatusCode::BAD_REQUEST, "{raw}");
            assert!(e.field.is_some(), "{raw}");
        }
    }
}
