//! The console's files, compiled into the binary from `console/` at the repository root:
//! each with its content type, an ETag (a digest of its bytes) computed once, and its
//! compressed forms (made at first use, `encoding.rs`).

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::encoding::Compressed;

/// One embedded file.
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

macro_rules! asset {
    ($name:literal, $ty:expr) => {
        Asset {
            name: $name,
            content_type: $ty,
            bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/console/", $name)),
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// Every file under `/console/assets/`; the shell is `index.html`.
pub static ASSETS: &[Asset] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("icon.svg", "image/svg+xml"),
    asset!("js/app.js", JS),
    asset!("js/api.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/dashboard.js", JS),
    asset!("js/orders.js", JS),
    asset!("js/inventory.js", JS),
    asset!("js/webhooks.js", JS),
    asset!("js/catalog.js", JS),
    asset!("js/admin.js", JS),
    asset!("js/reference.js", JS),
    asset!("js/station.js", JS),
    asset!("station.css", "text/css; charset=utf-8"),
];

/// The ETag of each asset, in the order of [`ASSETS`]: the first 16 bytes of its SHA-256.
fn etags() -> &'static [String] {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                let digest = Sha256::digest(a.bytes);
                let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
                format!("\"{hex}\"")
            })
            .collect()
    })
}

/// The compressed forms of each asset, in the order of [`ASSETS`].
fn compressed() -> &'static [Compressed] {
    static FORMS: OnceLock<Vec<Compressed>> = OnceLock::new();
    FORMS.get_or_init(|| ASSETS.iter().map(|_| Compressed::new()).collect())
}

/// The asset with this name (relative to `console/`), its ETag and compressed forms.
pub fn find(name: &str) -> Option<(&'static Asset, &'static str, &'static Compressed)> {
    let i = ASSETS.iter().position(|a| a.name == name)?;
    Some((&ASSETS[i], etags()[i].as_str(), &compressed()[i]))
}
