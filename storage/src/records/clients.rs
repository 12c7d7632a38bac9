//! API clients and inbound callback secrets. Client secrets and API keys are kept only
//! as SHA-256 digests: they are 256-bit random values, so a slow KDF would add nothing.

use serde::{Deserialize, Serialize};

/// Rate-limit tier of a client.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    Starter,
    Growth,
    Pro,
    Enterprise,
    Unlimited,
}

impl Tier {
    pub const ALL: [Tier; 5] = [
        Tier::Starter,
        Tier::Growth,
        Tier::Pro,
        Tier::Enterprise,
        Tier::Unlimited,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Starter => "starter",
            Tier::Growth => "growth",
            Tier::Pro => "pro",
            Tier::Enterprise => "enterprise",
            Tier::Unlimited => "unlimited",
        }
    }

    pub fn parse(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// One API client.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct ClientRecord {
    pub id: String,
    pub name: String,
    pub tier: Tier,
    /// SHA-256 of the client secret.
    pub secret_sha256: Vec<u8>,
    /// SHA-256 of the API key (also the key of the `api_keys` index).
    pub api_key_sha256: Vec<u8>,
    pub created_at_unix: i64,
}

/// The shared secret of one inbound source. Stored as given: verifying an HMAC needs it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct InboundSecretRecord {
    pub source: String,
    pub secret: String,
    pub updated_at_unix: i64,
}
