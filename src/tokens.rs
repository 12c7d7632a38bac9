//! Access tokens: compact JWTs (HS256) signed with the appliance's own key, kept 0600 in
//! the data directory. Verification is a MAC check and an expiry check, no database read.

use std::path::Path;

use anyhow::Context;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use crate::fsutil::write_private;

const KEY_FILE: &str = "token-signing.key";
/// `{"alg":"HS256","typ":"JWT"}`, base64url-encoded once.
const HEADER: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9";

#[derive(Serialize, Deserialize)]
struct Claims {
    sub: String,
    iat: i64,
    exp: i64,
}

pub struct TokenSigner {
    key: hmac::Key,
    ttl_secs: i64,
}

/// Writes a new random key (mode 0600) to `path`.
fn create(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut b = vec![0u8; 32];
    SystemRandom::new()
        .fill(&mut b)
        .map_err(|_| anyhow::anyhow!("no system randomness"))?;
    write_private(path, &b)?;
    Ok(b)
}

impl TokenSigner {
    /// Loads the signing key, creating a random one on first start, or in place of an
    /// empty file (left by a crash while it was written), with a warning.
    pub fn load_or_create(data_dir: &Path, ttl_secs: i64) -> anyhow::Result<TokenSigner> {
        let path = data_dir.join(KEY_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) if b.len() == 32 => b,
            Ok(b) if b.is_empty() => {
                tracing::warn!(
                    path = %path.display(),
                    "the token signing key is empty (a crash while it was written?); \
                     generating a new one: access tokens issued earlier stop working and \
                     clients must request new ones"
                );
                create(&path)?
            }
            Ok(_) => anyhow::bail!("{} is not a 32-byte key", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(&path)?,
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        Ok(TokenSigner {
            key: hmac::Key::new(hmac::HMAC_SHA256, &bytes),
            ttl_secs,
        })
    }

    pub fn ttl_secs(&self) -> i64 {
        self.ttl_secs
    }

    pub fn issue(&self, client_id: &str, now: i64) -> String {
        let claims = Claims {
            sub: client_id.to_string(),
            iat: now,
            exp: now + self.ttl_secs,
        };
        let payload = B64.encode(serde_json::to_vec(&claims).expect("claims serialize"));
        let signing_input = format!("{HEADER}.{payload}");
        let tag = hmac::sign(&self.key, signing_input.as_bytes());
        format!("{signing_input}.{}", B64.encode(tag.as_ref()))
    }

    /// The client id of a valid, unexpired token.
    pub fn verify(&self, token: &str, now: i64) -> Option<String> {
        let (signing_input, sig) = token.rsplit_once('.')?;
        let (header, payload) = signing_input.split_once('.')?;
        if header != HEADER {
            return None;
        }
        let sig = B64.decode(sig).ok()?;
        hmac::verify(&self.key, signing_input.as_bytes(), &sig).ok()?;
        let claims: Claims = serde_json::from_slice(&B64.decode(payload).ok()?).ok()?;
        (claims.exp > now).then_some(claims.sub)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_only_when_intact_and_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let signer = TokenSigner::load_or_create(dir.path(), 3600).unwrap();
        let t = signer.issue("cli_1", 1000);
        assert_eq!(signer.verify(&t, 1001).as_deref(), Some("cli_1"));
        assert_eq!(signer.verify(&t, 4600), None, "expired");
        let mut forged = t.clone();
        forged.replace_range(t.len() - 3.., "AAA");
        assert_eq!(signer.verify(&forged, 1001), None);
        // Same key after reload; a different key rejects.
        let again = TokenSigner::load_or_create(dir.path(), 3600).unwrap();
        assert!(again.verify(&t, 1001).is_some());
        let other = TokenSigner::load_or_create(tempfile::tempdir().unwrap().path(), 3600).unwrap();
        assert!(other.verify(&t, 1001).is_none());
    }

    #[test]
    fn an_empty_key_file_is_replaced_and_a_short_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let t = TokenSigner::load_or_create(dir.path(), 3600)
            .unwrap()
            .issue("cli_1", 1000);
        std::fs::write(dir.path().join(KEY_FILE), b"").unwrap();
        let fresh = TokenSigner::load_or_create(dir.path(), 3600).unwrap();
        assert!(
            fresh.verify(&t, 1001).is_none(),
            "earlier tokens stop working"
        );
        assert_eq!(std::fs::read(dir.path().join(KEY_FILE)).unwrap().len(), 32);
        std::fs::write(dir.path().join(KEY_FILE), b"short").unwrap();
        let err = TokenSigner::load_or_create(dir.path(), 3600).err().unwrap();
        assert!(err.to_string().contains(KEY_FILE), "{err}");
    }
}
