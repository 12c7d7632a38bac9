//! The login throttle: failed logins counted per user name and per address, in memory
//! (a restart forgets them). Past the allowed failures each further one locks the name or
//! address for a doubling wait, and a locked attempt is refused before any password is
//! hashed, so guessing costs the appliance nothing while it is slowed.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::LoginThrottle;

/// Beyond this many tracked names and addresses, stale ones are dropped; if none is
/// stale, a new address is not tracked (the per-user limit still holds).
const MAX_ENTRIES: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    User(String),
    /// An IPv6 address counts by its /64, which one host usually owns whole.
    Address(IpAddr),
}

struct Entry {
    failures: u32,
    last: Instant,
    locked_until: Option<Instant>,
}

pub struct Throttle {
    settings: LoginThrottle,
    entries: Mutex<HashMap<Key, Entry>>,
}

fn address_key(addr: IpAddr) -> Key {
    Key::Address(match addr {
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        IpAddr::V6(v6) => IpAddr::V4(v6.to_ipv4_mapped().expect("checked")),
        v4 => v4,
    })
}

impl Throttle {
    pub fn new(settings: LoginThrottle) -> Throttle {
        Throttle {
            settings,
            entries: Mutex::default(),
        }
    }

    /// `Err(wait)` while the name or the address is locked.
    pub fn check(&self, user: &str, addr: IpAddr, now: Instant) -> Result<(), Duration> {
        let entries = self.entries.lock().expect("throttle poisoned");
        let wait = [Key::User(user.to_string()), address_key(addr)]
            .iter()
            .filter_map(|k| entries.get(k)?.locked_until)
            .filter_map(|until| until.checked_duration_since(now))
            .filter(|d| !d.is_zero())
            .max();
        wait.map_or(Ok(()), Err)
    }

    /// Records a failed login from `addr`, and for `user` when such a user exists (names
    /// that do not exist are not tracked: they cannot be locked out, and the map stays
    /// bounded by the users plus the addresses).
    pub fn failed(&self, user: Option<&str>, addr: IpAddr, now: Instant) {
        let mut entries = self.entries.lock().expect("throttle poisoned");
        if entries.len() >= MAX_ENTRIES {
            let forget = self.settings.lockout_max;
            entries.retain(|_, e| !stale(e, now, forget));
        }
        let keys = user
            .map(|u| (Key::User(u.to_string()), self.settings.per_user))
            .into_iter()
            .chain([(address_key(addr), self.settings.per_address)]);
        for (key, allowed) in keys {
            if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
                continue;
            }
            let entry = entries.entry(key).or_insert(Entry {
                failures: 0,
                last: now,
                locked_until: None,
            });
            if stale(entry, now, self.settings.lockout_max) {
                entry.failures = 0;
            }
            entry.failures += 1;
            entry.last = now;
            if entry.failures >= allowed {
                entry.locked_until = Some(now + self.wait(entry.failures - allowed));
            }
        }
    }

    /// A successful login forgets the user's failures (not the address's: one valid
    /// account must not reset the count of guesses against others).
    pub fn succeeded(&self, user: &str) {
        let mut entries = self.entries.lock().expect("throttle poisoned");
        entries.remove(&Key::User(user.to_string()));
    }

    /// The wait after `beyond` failures past the allowed ones: lockout, doubling, capped.
    fn wait(&self, beyond: u32) -> Duration {
        let factor = 1u32.checked_shl(beyond.min(31)).unwrap_or(u32::MAX);
        self.settings
            .lockout
            .saturating_mul(factor)
            .min(self.settings.lockout_max)
    }
}

/// Unlocked, and its last failure long enough ago to be forgotten.
fn stale(e: &Entry, now: Instant, forget: Duration) -> bool {
    e.locked_until.is_none_or(|t| t <= now) && now.saturating_duration_since(e.last) >= forget
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle() -> Throttle {
        Throttle::new(LoginThrottle {
            per_user: 3,
            per_address: 5,
            lockout: Duration::from_secs(30),
            lockout_max: Duration::from_secs(100),
        })
    }

    #[test]
    fn a_user_is_locked_after_its_failures_with_a_doubling_capped_wait() {
        let t = throttle();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        t.failed(Some("ann"), a, t0);
        t.failed(Some("ann"), b, t0);
        assert_eq!(t.check("ann", a, t0), Ok(()));
        t.failed(Some("ann"), a, t0);
        // Locked for the name from any address, not for another name.
        assert_eq!(t.check("ann", b, t0), Err(Duration::from_secs(30)));
        assert_eq!(t.check("bob", b, t0), Ok(()));
        let t1 = t0 + Duration::from_secs(30);
        assert_eq!(t.check("ann", a, t1), Ok(()));
        t.failed(Some("ann"), b, t1);
        assert_eq!(t.check("ann", a, t1), Err(Duration::from_secs(60)));
        let t2 = t1 + Duration::from_secs(60);
        t.failed(Some("ann"), b, t2);
        assert_eq!(
            t.check("ann", a, t2),
            Err(Duration::from_secs(100)),
            "capped"
        );
        t.succeeded("ann");
        assert_eq!(t.check("ann", a, t2), Ok(()));
    }

    #[test]
    fn an_address_is_locked_across_names_and_unknown_names_are_not_tracked() {
        let t = throttle();
        let ip: IpAddr = "2001:db8::1".parse().unwrap();
        let neighbour: IpAddr = "2001:db8::2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..5 {
            t.failed(None, ip, t0);
        }
        assert!(t.check("anyone", neighbour, t0).is_err(), "same /64");
        assert_eq!(
            t.check("anyone", "2001:db9::1".parse().unwrap(), t0),
            Ok(())
        );
        assert_eq!(t.entries.lock().unwrap().len(), 1);
        // Forgotten once unlocked and quiet for lockout_max.
        let later = t0 + Duration::from_secs(200);
        assert_eq!(t.check("anyone", ip, later), Ok(()));
        t.failed(None, ip, later);
        assert_eq!(t.check("anyone", ip, later), Ok(()), "counting starts over");
    }
}
