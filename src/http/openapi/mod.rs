//! The OpenAPI 3.1 documents of both listeners, generated from the route table plus the
//! per-route details of `operations`, the shared `components` and the prose of `text`,
//! and served pre-rendered (JSON and the HTML docs page).

mod components;
mod links;
mod operations;
mod refs;
mod text;

use bytes::Bytes;
use hyper::StatusCode;
use serde_json::{json, Map, Value};

use super::docs;
use super::health::VERSION;
use super::response::{bytes, Resp};
use super::routes::{Service, ROUTES};
use components::components;
use operations::operation;
use text::{FULFILLMENT_DOC, FULFILLMENT_INTRO, PACKING_INTRO, WEBHOOKS_DOC};

/// The rendered documents, built once at start.
pub struct Documents {
    fulfillment: Bytes,
    packing: Bytes,
    html: Bytes,
}

impl Documents {
    pub fn build() -> Documents {
        let f = document(Service::Fulfillment);
        let html = docs::render(&f);
        Documents {
            fulfillment: Bytes::from(f.to_string()),
            packing: Bytes::from(document(Service::Packing).to_string()),
            html: Bytes::from(html),
        }
    }

    pub fn fulfillment_json(&self) -> Resp {
        bytes(StatusCode::OK, "application/json", self.fulfillment.clone())
    }

    pub fn packing_json(&self) -> Resp {
        bytes(StatusCode::OK, "application/json", self.packing.clone())
    }

    pub fn html(&self) -> Resp {
        bytes(
            StatusCode::OK,
            "text/html; charset=utf-8",
            self.html.clone(),
        )
    }
}

/// The OpenAPI document of one listener.
pub fn document(service: Service) -> Value {
    let mut paths = Map::new();
    for def in ROUTES
        .iter()
        .filter(|d| d.service == service && d.documented())
    {
        let entry = paths
            .entry(def.path.to_string())
            .or_insert_with(|| json!({}));
        entry[def.method.as_str().to_ascii_lowercase()] = operation(def);
    }
    let (title, intro, port) = match service {
        Service::Fulfillment => (
            "fulfilld Order Fulfillment API",
            format!("{FULFILLMENT_INTRO}{WEBHOOKS_DOC}{FULFILLMENT_DOC}"),
            8443,
        ),
        Service::Packing => ("fulfilld Packing API", PACKING_INTRO.to_string(), 8444),
    };
    json!({
        "openapi": "3.1.0",
        "info": { "title": title, "version": VERSION, "description": intro },
        "servers": [{ "url": format!("https://localhost:{port}") }],
        "paths": paths,
        "components": components(service),
    })
}
