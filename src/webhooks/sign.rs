//! The delivery signatures and the envelope bytes they cover: the spec's scheme
//! (lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the secret's bytes)
//! and Standard Webhooks (`v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>` keyed
//! with the base64 part of a `whsec_` secret), each with the previous secret too while
//! a rotation's grace period runs.

use base64::engine::general_purpose::STANDARD as B64;
use std::fmt::Write as _;

use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use storage::{SignatureScheme, WebhookRecord};

/// The headers of a signed request, outbound deliveries and inbound callbacks alike.
pub const SIGNATURE_HEADER: &str = "x-webhook-signature";
pub const TIMESTAMP_HEADER: &str = "x-webhook-timestamp";
/// The envelope id, on outbound deliveries.
pub const ID_HEADER: &str = "x-webhook-id";
/// The spec's scheme during a rotation's grace period: the signature with the previous
/// secret (`X-Webhook-Signature` carries the new one's, exactly as outside a rotation).
pub const PREVIOUS_SIGNATURE_HEADER: &str = "x-webhook-signature-previous";
/// Standard Webhooks' headers.
pub const STD_ID_HEADER: &str = "webhook-id";
pub const STD_TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const STD_SIGNATURE_HEADER: &str = "webhook-signature";
/// The prefix of a Standard Webhooks secret.
pub const STD_SECRET_PREFIX: &str = "whsec_";

/// The HMAC key of a Standard Webhooks secret: the base64 after `whsec_`, 24 to 64
/// bytes (the specification's bounds); `None` if `secret` is not one.
pub fn standard_key(secret: &str) -> Option<Vec<u8>> {
    let key = B64.decode(secret.strip_prefix(STD_SECRET_PREFIX)?).ok()?;
    (24..=64).contains(&key.len()).then_some(key)
}

/// A new random secret, `whsec_` and the base64 of 32 bytes: valid in both schemes (the
/// spec's scheme keys with the whole string's bytes).
pub fn new_secret() -> String {
    use ring::rand::SecureRandom;
    let mut key = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut key)
        .expect("the system's random source");
    format!("{STD_SECRET_PREFIX}{}", B64.encode(key))
}

/// `webhook-signature` entry for one key: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`.
pub fn standard_signature(key: &[u8], id: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any size");
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
}

/// The signed headers of one attempt at `now_ms` (unix ms) of the envelope `id`/`body`
/// to `hook`: the current secret's signature, and the previous secret's while its grace
/// period runs.
pub fn headers(
    hook: &WebhookRecord,
    id: &str,
    body: &[u8],
    now_ms: i64,
) -> Vec<(&'static str, String)> {
    let ts = (now_ms / 1000).to_string();
    let previous = hook
        .previous_secret
        .as_ref()
        .filter(|p| p.expires_at_ms > now_ms)
        .map(|p| p.secret.as_str());
    match hook.scheme {
        SignatureScheme::Fulfilld => {
            let mut out = vec![
                (SIGNATURE_HEADER, signature(&hook.secret, &ts, body)),
                (TIMESTAMP_HEADER, ts.clone()),
                (ID_HEADER, id.to_string()),
            ];
            if let Some(old) = previous {
                out.push((PREVIOUS_SIGNATURE_HEADER, signature(old, &ts, body)));
            }
            out
        }
        SignatureScheme::StandardWebhooks => {
            // A secret that is not `whsec_` base64 cannot be stored with this scheme; a
            // previous one kept from before a scheme change is left out.
            let signatures: Vec<String> = std::iter::once(hook.secret.as_str())
                .chain(previous)
                .filter_map(standard_key)
                .map(|key| standard_signature(&key, id, &ts, body))
                .collect();
            vec![
                (STD_ID_HEADER, id.to_string()),
                (STD_TIMESTAMP_HEADER, ts),
                (STD_SIGNATURE_HEADER, signatures.join(" ")),
            ]
        }
    }
}

/// `X-Webhook-Signature` for this timestamp (unix seconds, as sent) and body.
pub fn signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let mut hex = String::with_capacity(64);
    for b in digest {
        // Writing into a String cannot fail.
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// The envelope `{"id","type","timestamp","data"}`; `data_json` is inserted verbatim.
pub fn envelope(id: &str, kind: &str, timestamp: &str, data_json: &str) -> String {
    let s = |v: &str| serde_json::Value::from(v).to_string();
    format!(
        "{{\"id\":{},\"type\":{},\"timestamp\":{},\"data\":{}}}",
        s(id),
        s(kind),
        s(timestamp),
        data_json
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_an_independent_hmac_sha256() {
        // Computed with Python's hmac module over b'1700000000.{"id":"evt_1"}'.
        assert_eq!(
            signature("whsec-0123456789abcdef", "1700000000", br#"{"id":"evt_1"}"#),
            "fbb1aa05c22b1f8f70f12daa6e2a73ca569ac3cf02fac9003e036e3096249a03"
        );
    }

    #[test]
    fn standard_signature_matches_the_specification_example() {
        // The Standard Webhooks specification's own example (id, timestamp, payload,
        // secret and signature as published in its repository).
        let key = standard_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        assert_eq!(
            standard_signature(
                &key,
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                "1614265330",
                br#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        assert_eq!(standard_key("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), None);
        assert_eq!(standard_key("whsec_c2hvcnQ="), None, "under 24 bytes");
        assert!(standard_key(&new_secret()).is_some());
        assert_ne!(new_secret(), new_secret());
    }

    #[test]
    fn the_previous_secret_signs_only_until_its_grace_period_ends() {
        let mut hook = WebhookRecord {
            id: 1,
            url: "https://wms.local/hook".into(),
            events: vec![],
            secret: new_secret(),
            is_active: true,
            created_seq: 0,
            created_at_ms: 0,
            updated_at_ms: 0,
            scheme: SignatureScheme::Fulfilld,
            previous_secret: Some(storage::PreviousSecret {
                secret: "the-old-secret-0123".into(),
                expires_at_ms: 10_000,
            }),
            disabled_reason: None,
            disabled_at_ms: None,
            ordered: false,
            failing_since_ms: None,
        };
        let names = |h: &WebhookRecord, now| -> Vec<&str> {
            headers(h, "evt_1", b"{}", now)
                .iter()
                .map(|(n, _)| *n)
                .collect()
        };
        assert!(names(&hook, 9_999).contains(&PREVIOUS_SIGNATURE_HEADER));
        assert!(!names(&hook, 10_000).contains(&PREVIOUS_SIGNATURE_HEADER));
        hook.scheme = SignatureScheme::StandardWebhooks;
        let sig = |h: &WebhookRecord, now| headers(h, "evt_1", b"{}", now)[2].1.clone();
        // The old secret is no whsec_ one: only the current secret signs.
        assert_eq!(sig(&hook, 0).split(' ').count(), 1);
        hook.previous_secret.as_mut().unwrap().secret = new_secret();
        assert_eq!(sig(&hook, 9_999).split(' ').count(), 2);
        assert_eq!(sig(&hook, 10_000).split(' ').count(), 1);
    }

    #[test]
    fn envelope_is_valid_json_with_data_verbatim() {
        let e = envelope(
            "evt_1",
            "inventory.adjusted",
            "2026-01-01T00:00:00Z",
            "{\"a\":1}",
        );
        let v: serde_json::Value = serde_json::from_str(&e).unwrap();
        assert_eq!(v["id"], "evt_1");
        assert_eq!(v["type"], "inventory.adjusted");
        assert_eq!(v["data"]["a"], 1);
    }
}
