//! Passwords: Argon2id hashing with the `argon2` crate's default cost (19 MiB, two
//! passes, one lane: OWASP's recommended minimum), verification, generated passwords,
//! and the length rule for chosen ones.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};

/// Shortest password a person may choose (NIST SP 800-63B's minimum for chosen secrets).
pub const MIN_LEN: usize = 8;
/// Longest accepted: Argon2 takes any length, but a bound keeps a login request small.
pub const MAX_LEN: usize = 1024;

/// A random password of 128 bits, URL-safe base64 (22 characters).
pub fn generate() -> String {
    B64.encode(random::<16>())
}

/// Checks a chosen password's length; the message is shown to the person as is.
pub fn check_rule(password: &str) -> anyhow::Result<()> {
    let n = password.chars().count();
    anyhow::ensure!(
        (MIN_LEN..=MAX_LEN).contains(&n),
        "the password needs {MIN_LEN} to {MAX_LEN} characters"
    );
    Ok(())
}

/// The Argon2id PHC string of `password` with a fresh 128-bit salt.
pub fn hash(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::encode_b64(&random::<16>())
        .map_err(|e| anyhow::anyhow!("encoding a salt: {e}"))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
}

/// Whether `password` matches the PHC string `hash` (its own parameters are used, so
/// hashes made with another cost keep working). A malformed hash matches nothing.
pub fn verify(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of a password nobody knows, verified against for unknown user names so that
/// a login takes as long whether or not the name exists.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash(&generate()).expect("hashing a random password"))
}

pub fn random<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    SystemRandom::new()
        .fill(&mut buf)
        .expect("system randomness");
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_salted_and_verify_only_the_password() {
        let a = hash("correct horse").unwrap();
        let b = hash("correct horse").unwrap();
        assert!(a.starts_with("$argon2id$"), "{a}");
        assert_ne!(a, b, "a fresh salt each time");
        assert!(verify(&a, "correct horse"));
        assert!(!verify(&a, "correct horsf"));
        assert!(!verify("not a hash", "correct horse"));
        assert!(!verify(decoy(), ""));
        assert!(check_rule("short").is_err());
        assert!(check_rule(&generate()).is_ok());
    }
}
