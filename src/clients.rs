//! API clients and inbound secrets: creation with fresh credentials, deletion, listing,
//! the first-start bootstrap client, and the in-memory registry that authenticates
//! every request without a database read.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use anyhow::Context;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};
use serde::Serialize;
use sha2::{Digest, Sha256};
use storage::tables::{ApiKeys, Clients as ClientsTable, InboundSecrets, Meta};
use storage::{ClientRecord, InboundSecretRecord, Store, Tier};

use crate::fsutil::write_private;

pub const BOOTSTRAP_FILE: &str = "bootstrap-credentials.json";
const BOOTSTRAPPED_KEY: &str = "bootstrapped";

/// What `clients create` prints and the bootstrap file holds.
#[derive(Serialize, serde::Deserialize, Debug, Clone)]
pub struct Credentials {
    pub client_id: String,
    pub client_secret: String,
    pub api_key: String,
    pub tier: String,
}

/// A client as `clients list` shows it (no secrets).
#[derive(Serialize, serde::Deserialize, Debug, Clone)]
pub struct ClientSummary {
    pub client_id: String,
    pub name: String,
    pub tier: String,
    pub created_at: i64,
}

/// An authenticated caller.
#[derive(Debug)]
pub struct ClientEntry {
    pub id: Arc<str>,
    pub tier: Tier,
    secret_sha256: [u8; 32],
}

#[derive(Default)]
struct Maps {
    by_id: HashMap<Arc<str>, Arc<ClientEntry>>,
    by_key: HashMap<[u8; 32], Arc<ClientEntry>>,
}

/// Live clients, kept in memory so a deleted client's tokens and keys stop working at once.
#[derive(Default)]
pub struct Registry {
    maps: RwLock<Maps>,
}

pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

fn digest32(v: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if v.len() == 32 {
        out.copy_from_slice(v);
    }
    out
}

impl Registry {
    pub fn load(store: &Store) -> anyhow::Result<Registry> {
        let reg = Registry::default();
        for row in store.iter::<ClientsTable>() {
            let (_, rec) = row.context("reading clients")?;
            reg.insert(&rec);
        }
        Ok(reg)
    }

    fn insert(&self, rec: &ClientRecord) {
        let entry = Arc::new(ClientEntry {
            id: Arc::from(rec.id.as_str()),
            tier: rec.tier,
            secret_sha256: digest32(&rec.secret_sha256),
        });
        let mut maps = self.maps.write().expect("registry poisoned");
        maps.by_key
            .insert(digest32(&rec.api_key_sha256), Arc::clone(&entry));
        maps.by_id.insert(Arc::clone(&entry.id), entry);
    }

    fn remove(&self, id: &str) {
        let mut maps = self.maps.write().expect("registry poisoned");
        if let Some(entry) = maps.by_id.remove(id) {
            maps.by_key.retain(|_, e| !Arc::ptr_eq(e, &entry));
        }
    }

    pub fn get(&self, id: &str) -> Option<Arc<ClientEntry>> {
        self.maps.read().ok()?.by_id.get(id).cloned()
    }

    pub fn by_api_key(&self, key: &str) -> Option<Arc<ClientEntry>> {
        let digest = sha256(key.as_bytes());
        self.maps.read().ok()?.by_key.get(&digest).cloned()
    }

    /// The client whose id and secret match; the secret digest is compared in constant time.
    pub fn check_secret(&self, id: &str, secret: &str) -> Option<Arc<ClientEntry>> {
        let entry = self.get(id)?;
        let digest = sha256(secret.as_bytes());
        bool::from(subtle::ConstantTimeEq::ct_eq(
            &digest[..],
            &entry.secret_sha256[..],
        ))
        .then_some(entry)
    }
}

/// Client administration over a store, shared by the admin socket and direct CLI use.
#[derive(Clone)]
pub struct ClientService {
    store: Store,
    registry: Arc<Registry>,
}

fn random_token(prefix: &str, bytes: usize) -> String {
    format!("{prefix}{}", B64.encode(random_bytes(bytes)))
}

fn now_unix() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl ClientService {
    pub fn new(store: Store, registry: Arc<Registry>) -> ClientService {
        ClientService { store, registry }
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    fn new_credentials(tier: Tier) -> Credentials {
        Credentials {
            client_id: format!("cli_{}", hex(&random_bytes(10))),
            client_secret: random_token("cs_", 32),
            api_key: random_token("fk_", 32),
            tier: tier.as_str().to_string(),
        }
    }

    /// Creates a client and returns its credentials; durable before it returns.
    pub fn create(&self, name: &str, tier: Tier) -> anyhow::Result<Credentials> {
        let creds = Self::new_credentials(tier);
        self.persist(name, tier, &creds, false)?;
        Ok(creds)
    }

    fn persist(
        &self,
        name: &str,
        tier: Tier,
        creds: &Credentials,
        bootstrap: bool,
    ) -> anyhow::Result<()> {
        let rec = ClientRecord {
            id: creds.client_id.clone(),
            name: name.to_string(),
            tier,
            secret_sha256: sha256(creds.client_secret.as_bytes()).to_vec(),
            api_key_sha256: sha256(creds.api_key.as_bytes()).to_vec(),
            created_at_unix: now_unix(),
        };
        self.store
            .transact(|tx| {
                tx.insert::<ClientsTable>(&rec.id, &rec)?;
                tx.insert::<ApiKeys>(&rec.api_key_sha256, &rec.id)?;
                if bootstrap {
                    tx.insert::<Meta>(&BOOTSTRAPPED_KEY.to_string(), &1)?;
                }
                Ok::<_, storage::Abort<()>>(())
            })
            .map_err(|e| anyhow::anyhow!("storing client: {e:?}"))?;
        self.store.durable_blocking().context("flushing client")?;
        self.registry.insert(&rec);
        Ok(())
    }

    pub fn list(&self) -> anyhow::Result<Vec<ClientSummary>> {
        self.store
            .iter::<ClientsTable>()
            .map(|row| {
                let (_, r) = row?;
                Ok(ClientSummary {
                    client_id: r.id,
                    name: r.name,
                    tier: r.tier.as_str().to_string(),
                    created_at: r.created_at_unix,
                })
            })
            .collect::<Result<_, storage::Error>>()
            .context("listing clients")
    }

    /// Deletes a client; its tokens and key stop working at once. False if unknown.
    pub fn delete(&self, id: &str) -> anyhow::Result<bool> {
        let existed = self
            .store
            .transact(|tx| {
                let Some(rec) = tx.get::<ClientsTable>(&id.to_string())? else {
                    return Ok(false);
                };
                tx.remove::<ClientsTable>(&rec.id)?;
                tx.remove::<ApiKeys>(&rec.api_key_sha256)?;
                Ok::<_, storage::Abort<()>>(true)
            })
            .map_err(|e| anyhow::anyhow!("deleting client: {e:?}"))?;
        if existed {
            self.store
                .durable_blocking()
                .context("flushing client deletion")?;
            self.registry.remove(id);
        }
        Ok(existed)
    }

    /// Sets the HMAC secret of an inbound source (`wms` or `carrier:NAME`).
    pub fn set_inbound_secret(&self, source: &str, secret: &str) -> anyhow::Result<()> {
        validate_source(source)?;
        anyhow::ensure!(
            secret.len() >= 16,
            "the secret needs at least 16 characters"
        );
        let rec = InboundSecretRecord {
            source: source.to_string(),
            secret: secret.to_string(),
            updated_at_unix: now_unix(),
        };
        self.store
            .transact(|tx| {
                tx.insert::<InboundSecrets>(&rec.source, &rec)?;
                Ok::<_, storage::Abort<()>>(())
            })
            .map_err(|e| anyhow::anyhow!("storing inbound secret: {e:?}"))?;
        self.store
            .durable_blocking()
            .context("flushing inbound secret")?;
        Ok(())
    }

    /// On the first start of an empty database, creates the bootstrap client and writes
    /// its credentials (mode 0600) to the data directory. Returns the file path if so.
    pub fn ensure_bootstrap(&self, data_dir: &Path) -> anyhow::Result<Option<std::path::PathBuf>> {
        if self
            .store
            .get::<Meta>(&BOOTSTRAPPED_KEY.to_string())?
            .is_some()
        {
            return Ok(None);
        }
        let tier = Tier::Enterprise;
        let creds = Self::new_credentials(tier);
        let path = data_dir.join(BOOTSTRAP_FILE);
        // The file first: a crash before the commit only means new credentials next start.
        write_private(&path, &serde_json::to_vec_pretty(&creds)?)?;
        self.persist("bootstrap", tier, &creds, true)?;
        Ok(Some(path))
    }
}

/// `wms` or `carrier:NAME` (letters, digits, - and _).
pub fn validate_source(source: &str) -> anyhow::Result<()> {
    let ok = source == "wms"
        || source.strip_prefix("carrier:").is_some_and(|name| {
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    anyhow::ensure!(
        ok,
        "source must be \"wms\" or \"carrier:NAME\" (letters, digits, - and _)"
    );
    Ok(())
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut buf)
        .expect("system randomness");
    buf
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
