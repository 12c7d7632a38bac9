//! Rate limits: a token bucket per client (or per IP for unauthenticated traffic)
//! holding `burst` tokens and refilled at `rpm/60` per second, plus the three
//! `X-RateLimit-*` headers every response carries.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use storage::Tier;

use crate::config::TierLimit;

/// Whose bucket a request draws from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BucketKey {
    Client(Arc<str>),
    Ip(IpAddr),
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// The outcome of drawing one token, with what the headers report.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds at which the bucket is full again.
    pub reset_unix: u64,
    /// Whole seconds until one token is available (for `Retry-After`).
    pub retry_after_secs: u64,
}

pub struct RateLimiter {
    tiers: HashMap<Tier, TierLimit>,
    buckets: Mutex<HashMap<BucketKey, Bucket>>,
    /// Bound on tracked buckets; past it, full buckets are dropped (they equal a new one).
    max_buckets: usize,
}

const X_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
const X_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
const X_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

impl RateLimiter {
    pub fn new(tiers: HashMap<Tier, TierLimit>) -> RateLimiter {
        RateLimiter {
            tiers,
            buckets: Mutex::new(HashMap::new()),
            max_buckets: 100_000,
        }
    }

    pub fn check(&self, key: BucketKey, tier: Tier) -> Decision {
        self.check_at(key, tier, Instant::now(), unix_now())
    }

    fn check_at(&self, key: BucketKey, tier: Tier, now: Instant, unix: f64) -> Decision {
        let limit = self.tiers[&tier];
        let burst = f64::from(limit.burst);
        if tier == Tier::Unlimited {
            return Decision {
                allowed: true,
                limit: limit.rpm,
                remaining: limit.burst,
                reset_unix: unix as u64,
                retry_after_secs: 0,
            };
        }
        let rate = f64::from(limit.rpm) / 60.0;
        let mut buckets = self.buckets.lock().expect("rate limiter poisoned");
        if buckets.len() >= self.max_buckets && !buckets.contains_key(&key) {
            prune(&mut buckets, self.max_buckets, |b| {
                b.tokens + rate * now.duration_since(b.last).as_secs_f64()
            });
        }
        let b = buckets.entry(key).or_insert(Bucket {
            tokens: burst,
            last: now,
        });
        b.tokens = (b.tokens + rate * now.duration_since(b.last).as_secs_f64()).min(burst);
        b.last = now;
        let allowed = b.tokens >= 1.0;
        if allowed {
            b.tokens -= 1.0;
        }
        let tokens = b.tokens;
        drop(buckets);
        Decision {
            allowed,
            limit: limit.rpm,
            remaining: tokens.floor() as u32,
            reset_unix: (unix + (burst - tokens) / rate).ceil() as u64,
            retry_after_secs: if allowed {
                0
            } else {
                ((1.0 - tokens) / rate).ceil().max(1.0) as u64
            },
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.buckets.lock().map(|b| b.len()).unwrap_or(0)
    }
}

/// Makes room under `max`: the fullest buckets go first, since forgetting them costs a
/// client the least (a new bucket starts full).
fn prune(buckets: &mut HashMap<BucketKey, Bucket>, max: usize, level: impl Fn(&Bucket) -> f64) {
    let mut levels: Vec<f64> = buckets.values().map(&level).collect();
    let keep = max / 2;
    levels.sort_by(|a, b| a.total_cmp(b));
    let cutoff = levels[keep.min(levels.len() - 1)];
    buckets.retain(|_, b| level(b) < cutoff);
}

impl Decision {
    pub fn apply(&self, headers: &mut HeaderMap) {
        headers.insert(X_LIMIT, HeaderValue::from(self.limit));
        headers.insert(X_REMAINING, HeaderValue::from(self.remaining));
        headers.insert(X_RESET, HeaderValue::from(self.reset_unix));
    }
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::default_tiers;

    #[test]
    fn bucket_allows_burst_then_refills_at_rpm() {
        let rl = RateLimiter::new(default_tiers());
        let key = BucketKey::Client(Arc::from("c"));
        let t0 = Instant::now();
        for i in 0..100 {
            let d = rl.check_at(key.clone(), Tier::Starter, t0, 1000.0);
            assert!(d.allowed, "request {i} within burst");
            assert_eq!(d.remaining, 99 - i);
        }
        let d = rl.check_at(key.clone(), Tier::Starter, t0, 1000.0);
        assert!(!d.allowed);
        assert_eq!(d.retry_after_secs, 1, "60 rpm refills one token per second");
        assert_eq!(d.reset_unix, 1100, "100 tokens at 1/s");
        let later = t0 + Duration::from_secs(2);
        assert!(
            rl.check_at(key.clone(), Tier::Starter, later, 1002.0)
                .allowed
        );
        assert!(
            rl.check_at(key.clone(), Tier::Starter, later, 1002.0)
                .allowed
        );
        assert!(!rl.check_at(key, Tier::Starter, later, 1002.0).allowed);
    }

    #[test]
    fn unlimited_never_refuses_and_buckets_stay_bounded() {
        let mut rl = RateLimiter::new(default_tiers());
        for _ in 0..1000 {
            assert!(
                rl.check(BucketKey::Client(Arc::from("u")), Tier::Unlimited)
                    .allowed
            );
        }
        rl.max_buckets = 10;
        let t = Instant::now();
        for i in 0..50u8 {
            rl.check_at(
                BucketKey::Ip(IpAddr::from([10, 0, 0, i])),
                Tier::Starter,
                t,
                0.0,
            );
        }
        assert!(rl.tracked() <= 10, "bounded: {}", rl.tracked());
        // The most drained bucket survives pruning: its debt is not forgiven.
        let hog = BucketKey::Ip(IpAddr::from([10, 9, 9, 9]));
        while rl.check_at(hog.clone(), Tier::Starter, t, 0.0).allowed {}
        for i in 0..50u8 {
            rl.check_at(
                BucketKey::Ip(IpAddr::from([10, 1, 0, i])),
                Tier::Starter,
                t,
                0.0,
            );
        }
        assert!(!rl.check_at(hog, Tier::Starter, t, 0.0).allowed);
        assert!(rl.tracked() <= 10);
    }
}
