//! People who use the console (separate from API clients) and their login sessions.
//! Passwords are kept only as Argon2id hashes (PHC strings) and session ids only as
//! SHA-256 digests, so a copy of the database lets nobody log in.

use serde::{Deserialize, Serialize};

/// What a person may do; the server maps each role to the route classes it may call.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Admin,
    Operator,
    Packer,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Admin, Role::Operator, Role::Packer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Operator => "operator",
            Role::Packer => "packer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One console user, by name.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub name: String,
    pub role: Role,
    /// Argon2id hash in the PHC string format (salt and parameters included).
    pub password_hash: String,
    pub created_at_unix: i64,
}

/// One login session, keyed by the SHA-256 of its id (the id itself is only in the
/// browser's cookie).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id_sha256: Vec<u8>,
    pub user: String,
    /// Unsafe requests authenticated by this session must echo it in `X-CSRF-Token`.
    pub csrf_token: String,
    pub created_at_unix: i64,
    /// Written at most about once a minute, not on every request.
    pub last_seen_unix: i64,
}
