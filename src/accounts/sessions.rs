//! Login sessions: created at login, kept in storage (so they survive a restart) and in
//! an in-memory map by the SHA-256 of their id (so a request is authenticated without a
//! database read), ended by logout, by idling past the timeout, or with their user.
//! A session's last use is written back at most once per touch interval.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};

use anyhow::Context;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use storage::tables::{Sessions as SessionsTable, Users};
use storage::{Role, SessionRecord, Store};

use super::password::random;
use crate::clients::sha256;

/// Sessions one user may hold at once; a new login past it ends the least recently used.
pub const MAX_PER_USER: usize = 16;

/// A live session as requests see it.
#[derive(Debug)]
pub struct Session {
    pub user: Arc<str>,
    pub role: Role,
    pub csrf_token: String,
    /// `user:NAME`: how audit trails, idempotency keys and logs name the person.
    pub actor: Arc<str>,
    digest: [u8; 32],
    created: i64,
    /// Last use, in memory (unix seconds).
    last_seen: AtomicI64,
    /// Last use as storage holds it.
    stored_seen: AtomicI64,
}

/// Why a session id does not authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Unknown,
    Expired,
}

pub struct Sessions {
    store: Store,
    idle_secs: i64,
    touch_secs: i64,
    map: RwLock<HashMap<[u8; 32], Arc<Session>>>,
}

fn tx_err<E: std::fmt::Debug>(
    what: &str,
) -> impl FnOnce(storage::TxError<E>) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("{what}: {e:?}")
}

fn digest_of(id: &str) -> [u8; 32] {
    sha256(id.as_bytes())
}

impl Session {
    fn new(rec: &SessionRecord, role: Role) -> Session {
        let mut digest = [0u8; 32];
        if rec.id_sha256.len() == 32 {
            digest.copy_from_slice(&rec.id_sha256);
        }
        Session {
            user: Arc::from(rec.user.as_str()),
            role,
            csrf_token: rec.csrf_token.clone(),
            actor: Arc::from(format!("user:{}", rec.user)),
            digest,
            created: rec.created_at_unix,
            last_seen: AtomicI64::new(rec.last_seen_unix),
            stored_seen: AtomicI64::new(rec.last_seen_unix),
        }
    }

    fn record(&self, last_seen: i64) -> SessionRecord {
        SessionRecord {
            id_sha256: self.digest.to_vec(),
            user: self.user.to_string(),
            csrf_token: self.csrf_token.clone(),
            created_at_unix: self.created,
            last_seen_unix: last_seen,
        }
    }

    /// Whether the CSRF token a request carries is this session's (constant time).
    pub fn csrf_matches(&self, presented: &str) -> bool {
        let (a, b) = (
            sha256(presented.as_bytes()),
            sha256(self.csrf_token.as_bytes()),
        );
        bool::from(subtle::ConstantTimeEq::ct_eq(&a[..], &b[..]))
    }
}

impl Sessions {
    /// Loads the stored sessions, dropping those idle too long or whose user is gone.
    pub fn load(
        store: Store,
        idle: std::time::Duration,
        touch: std::time::Duration,
        now: i64,
    ) -> anyhow::Result<Sessions> {
        let sessions = Sessions {
            store,
            idle_secs: idle.as_secs().max(1) as i64,
            touch_secs: touch.as_secs() as i64,
            map: RwLock::default(),
        };
        let mut dead = Vec::new();
        {
            let mut map = sessions.map.write().expect("sessions poisoned");
            for row in sessions.store.iter::<SessionsTable>() {
                let (key, rec) = row.context("reading sessions")?;
                let role = sessions.store.get::<Users>(&rec.user)?.map(|u| u.role);
                match role {
                    Some(role) if !sessions.expired(rec.last_seen_unix, now) => {
                        let s = Arc::new(Session::new(&rec, role));
                        map.insert(s.digest, s);
                    }
                    _ => dead.push(key),
                }
            }
        }
        if !dead.is_empty() {
            sessions
                .store
                .transact(|tx| {
                    for key in &dead {
                        tx.remove::<SessionsTable>(key)?;
                    }
                    Ok::<_, storage::Abort<()>>(())
                })
                .map_err(tx_err("dropping expired sessions"))?;
        }
        Ok(sessions)
    }

    fn expired(&self, last_seen: i64, now: i64) -> bool {
        now - last_seen > self.idle_secs
    }

    /// Starts a session for `user`; returns its id (for the cookie only) and the session.
    /// The caller waits for durability before handing the id out.
    pub fn start(
        &self,
        user: &str,
        role: Role,
        now: i64,
    ) -> anyhow::Result<(String, Arc<Session>)> {
        let id = B64.encode(random::<32>());
        let rec = SessionRecord {
            id_sha256: digest_of(&id).to_vec(),
            user: user.to_string(),
            csrf_token: B64.encode(random::<32>()),
            created_at_unix: now,
            last_seen_unix: now,
        };
        let session = Arc::new(Session::new(&rec, role));
        // Chosen under the read lock, applied after the write: checks of other sessions
        // never wait for storage. Two logins of one user at the same moment may leave
        // one session over the cap until the next.
        let evicted: Vec<[u8; 32]> = {
            let map = self.map.read().expect("sessions poisoned");
            let mut own: Vec<&Arc<Session>> = map.values().filter(|s| *s.user == *user).collect();
            own.sort_by_key(|s| std::cmp::Reverse(s.last_seen.load(Ordering::Relaxed)));
            own.iter()
                .enumerate()
                .filter(|(i, s)| {
                    *i + 1 >= MAX_PER_USER || self.expired(s.last_seen.load(Ordering::Relaxed), now)
                })
                .map(|(_, s)| s.digest)
                .collect()
        };
        self.store
            .transact(|tx| {
                for d in &evicted {
                    tx.remove::<SessionsTable>(&d.to_vec())?;
                }
                tx.insert::<SessionsTable>(&rec.id_sha256, &rec)?;
                Ok::<_, storage::Abort<()>>(())
            })
            .map_err(tx_err("storing a session"))?;
        let mut map = self.map.write().expect("sessions poisoned");
        for d in &evicted {
            map.remove(d);
        }
        map.insert(session.digest, Arc::clone(&session));
        Ok((id, session))
    }

    /// The live session of `id`, marked as used at `now`. An expired one is ended.
    pub fn check(&self, id: &str, now: i64) -> Result<Arc<Session>, Refused> {
        let digest = digest_of(id);
        let session = self
            .map
            .read()
            .expect("sessions poisoned")
            .get(&digest)
            .cloned()
            .ok_or(Refused::Unknown)?;
        if self.expired(session.last_seen.load(Ordering::Relaxed), now) {
            if let Err(e) = self.end_digest(&digest) {
                tracing::warn!(error = %e, "ending an expired session failed");
            }
            return Err(Refused::Expired);
        }
        session.last_seen.fetch_max(now, Ordering::Relaxed);
        let stored = session.stored_seen.load(Ordering::Relaxed);
        // One request per interval writes the touch; a lost touch only shortens the
        // session after a restart, so nobody waits for it to be durable.
        if now - stored >= self.touch_secs
            && session
                .stored_seen
                .compare_exchange(stored, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            let rec = session.record(now);
            let touched = self.store.transact(|tx| {
                // Not if it was ended meanwhile.
                if tx.contains::<SessionsTable>(&rec.id_sha256)? {
                    tx.insert::<SessionsTable>(&rec.id_sha256, &rec)?;
                }
                Ok::<_, storage::Abort<()>>(())
            });
            if let Err(e) = touched {
                tracing::warn!(error = ?e, "recording a session's use failed");
            }
        }
        Ok(session)
    }

    /// Ends the session of `id` (logout). False if there was none.
    pub fn end(&self, id: &str) -> anyhow::Result<bool> {
        self.end_digest(&digest_of(id))
    }

    fn end_digest(&self, digest: &[u8; 32]) -> anyhow::Result<bool> {
        let known = self
            .map
            .write()
            .expect("sessions poisoned")
            .remove(digest)
            .is_some();
        self.store
            .transact(|tx| {
                tx.remove::<SessionsTable>(&digest.to_vec())?;
                Ok::<_, storage::Abort<()>>(())
            })
            .map_err(tx_err("ending a session"))?;
        Ok(known)
    }

    /// Ends every session of `user` (deleted, or given a new password); waits for
    /// durability. Returns how many there were.
    pub fn end_user(&self, user: &str) -> anyhow::Result<usize> {
        // Storage and memory both: a session started a moment ago may not be applied to
        // sled yet, and storage may hold sessions a stopped server never loaded.
        let mut keys = std::collections::BTreeSet::new();
        for row in self.store.iter::<SessionsTable>() {
            let (key, rec) = row.context("reading sessions")?;
            if rec.user == user {
                keys.insert(key);
            }
        }
        self.map.write().expect("sessions poisoned").retain(|d, s| {
            let own = *s.user == *user;
            if own {
                keys.insert(d.to_vec());
            }
            !own
        });
        let ended = self
            .store
            .transact(|tx| {
                let mut ended = 0;
                for key in &keys {
                    ended += usize::from(tx.contains::<SessionsTable>(key)?);
                    tx.remove::<SessionsTable>(key)?;
                }
                Ok::<_, storage::Abort<()>>(ended)
            })
            .map_err(tx_err("ending a user's sessions"))?;
        self.store.durable_blocking().context("flushing")?;
        Ok(ended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn stored(store: &Store, id: &str) -> Option<SessionRecord> {
        store.durable_blocking().unwrap();
        store.get::<SessionsTable>(&digest_of(id).to_vec()).unwrap()
    }

    #[test]
    fn use_is_written_back_once_per_interval_and_idle_sessions_end() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &Default::default()).unwrap();
        let user = storage::UserRecord {
            name: "ann".into(),
            role: Role::Packer,
            password_hash: String::new(),
            created_at_unix: 0,
        };
        store
            .transact(|tx| {
                tx.insert::<Users>(&user.name, &user)?;
                Ok::<_, storage::Abort<()>>(())
            })
            .unwrap();
        let (idle, touch) = (Duration::from_secs(600), Duration::from_secs(60));
        let sessions = Sessions::load(store.clone(), idle, touch, 1000).unwrap();
        let (id, s) = sessions.start("ann", Role::Packer, 1000).unwrap();
        assert_eq!(&*s.actor, "user:ann");
        assert_eq!(stored(&store, &id).unwrap().last_seen_unix, 1000);

        // Within the interval: memory only; past it: written.
        sessions.check(&id, 1030).unwrap();
        assert_eq!(stored(&store, &id).unwrap().last_seen_unix, 1000);
        sessions.check(&id, 1060).unwrap();
        assert_eq!(stored(&store, &id).unwrap().last_seen_unix, 1060);
        // Idle counts from the last use in memory, not from the last write.
        sessions.check(&id, 1100).unwrap();
        sessions.check(&id, 1100 + 600).unwrap();
        assert_eq!(
            sessions.check(&id, 1700 + 601).unwrap_err(),
            Refused::Expired
        );
        assert!(
            stored(&store, &id).is_none(),
            "an expired session is removed"
        );
        assert_eq!(sessions.check(&id, 1700).unwrap_err(), Refused::Unknown);

        // A reload keeps live sessions and drops idle ones and those of deleted users.
        let (live, _) = sessions.start("ann", Role::Packer, 5000).unwrap();
        let (idle_one, _) = sessions.start("ann", Role::Packer, 4000).unwrap();
        let (orphan, _) = sessions.start("gone", Role::Packer, 5000).unwrap();
        store.durable_blocking().unwrap();
        let reloaded = Sessions::load(store.clone(), idle, touch, 5300).unwrap();
        assert!(reloaded.check(&live, 5300).is_ok());
        assert_eq!(
            reloaded.check(&idle_one, 5300).unwrap_err(),
            Refused::Unknown
        );
        assert_eq!(reloaded.check(&orphan, 5300).unwrap_err(), Refused::Unknown);
        assert!(stored(&store, &orphan).is_none());

        // At most MAX_PER_USER at once: the least recently used goes.
        let ids: Vec<String> = (0..MAX_PER_USER as i64)
            .map(|i| reloaded.start("ann", Role::Packer, 5400 + i).unwrap().0)
            .collect();
        assert_eq!(reloaded.check(&live, 5500).unwrap_err(), Refused::Unknown);
        assert!(ids.iter().all(|id| reloaded.check(id, 5500).is_ok()));
        assert_eq!(reloaded.end_user("ann").unwrap(), MAX_PER_USER);
        assert!(ids.iter().all(|id| reloaded.check(id, 5500).is_err()));
    }
}
