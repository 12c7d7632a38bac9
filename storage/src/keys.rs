//! Key encodings. Integers are big-endian so that sled's byte order is numeric order;
//! composite keys join parts with a 0x00 separator so prefix scans select one group.

use crate::error::{Error, Result};

/// A type usable as a table key.
pub trait Key: Sized {
    fn encode(&self) -> Vec<u8>;
    fn decode(bytes: &[u8]) -> Result<Self>;
}

fn corrupt(detail: &str) -> Error {
    Error::Corrupt {
        table: "key",
        detail: detail.to_string(),
    }
}

impl Key for u64 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        let arr: [u8; 8] = bytes.try_into().map_err(|_| corrupt("u64 key length"))?;
        Ok(u64::from_be_bytes(arr))
    }
}

/// UUIDs (v7 ids sort by creation time) as 16 big-endian bytes.
impl Key for u128 {
    fn encode(&self) -> Vec<u8> {
        self.to_be_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        let arr: [u8; 16] = bytes.try_into().map_err(|_| corrupt("u128 key length"))?;
        Ok(u128::from_be_bytes(arr))
    }
}

impl Key for String {
    fn encode(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        String::from_utf8(bytes.to_vec()).map_err(|_| corrupt("utf-8 key"))
    }
}

impl Key for Vec<u8> {
    fn encode(&self) -> Vec<u8> {
        self.clone()
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        Ok(bytes.to_vec())
    }
}

/// Two strings joined by 0x00, e.g. (client id, idempotency key). Neither part may
/// contain a NUL byte; callers validate that at the edge.
impl Key for (String, String) {
    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.0.len() + self.1.len() + 1);
        v.extend_from_slice(self.0.as_bytes());
        v.push(0);
        v.extend_from_slice(self.1.as_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        let pos = bytes
            .iter()
            .position(|b| *b == 0)
            .ok_or_else(|| corrupt("pair key separator"))?;
        Ok((
            String::decode(&bytes[..pos])?,
            String::decode(&bytes[pos + 1..])?,
        ))
    }
}

/// A string group followed by a big-endian sequence number: an index entry whose prefix
/// scan returns one group's members in sequence order.
impl Key for (String, u64) {
    fn encode(&self) -> Vec<u8> {
        let mut v = prefix(&self.0);
        v.extend_from_slice(&self.1.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 9 || bytes[bytes.len() - 9] != 0 {
            return Err(corrupt("group key layout"));
        }
        let split = bytes.len() - 9;
        Ok((
            String::decode(&bytes[..split])?,
            u64::decode(&bytes[split + 1..])?,
        ))
    }
}

/// A string group followed by a UUID (v7 ids sort by time): one group's members,
/// oldest first, e.g. the inventory records of one SKU.
impl Key for (String, u128) {
    fn encode(&self) -> Vec<u8> {
        let mut v = prefix(&self.0);
        v.extend_from_slice(&self.1.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < 17 || bytes[bytes.len() - 17] != 0 {
            return Err(corrupt("group key layout"));
        }
        let split = bytes.len() - 17;
        Ok((
            String::decode(&bytes[..split])?,
            u128::decode(&bytes[split + 1..])?,
        ))
    }
}

/// A record id followed by a sequence number: one record's history in order.
impl Key for (u128, u64) {
    fn encode(&self) -> Vec<u8> {
        let mut v = self.0.to_be_bytes().to_vec();
        v.extend_from_slice(&self.1.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 24 {
            return Err(corrupt("history key length"));
        }
        Ok((u128::decode(&bytes[..16])?, u64::decode(&bytes[16..])?))
    }
}

/// A parent id followed by a child id: one parent's children in creation order (a
/// webhook subscription's deliveries).
impl Key for (u128, u128) {
    fn encode(&self) -> Vec<u8> {
        let mut v = self.0.to_be_bytes().to_vec();
        v.extend_from_slice(&self.1.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 32 {
            return Err(corrupt("pair id key length"));
        }
        Ok((u128::decode(&bytes[..16])?, u128::decode(&bytes[16..])?))
    }
}

/// A due time (unix ms) followed by an id: a time-ordered queue.
impl Key for (u64, u128) {
    fn encode(&self) -> Vec<u8> {
        let mut v = self.0.to_be_bytes().to_vec();
        v.extend_from_slice(&self.1.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 24 {
            return Err(corrupt("queue key length"));
        }
        Ok((u64::decode(&bytes[..8])?, u128::decode(&bytes[8..])?))
    }
}

/// A group id, a due time (unix ms) and an id: one time-ordered queue per group (a
/// webhook subscription's pending attempts).
impl Key for (u128, u64, u128) {
    fn encode(&self) -> Vec<u8> {
        let mut v = self.0.to_be_bytes().to_vec();
        v.extend_from_slice(&self.1.to_be_bytes());
        v.extend_from_slice(&self.2.to_be_bytes());
        v
    }
    fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != 40 {
            return Err(corrupt("grouped queue key length"));
        }
        Ok((
            u128::decode(&bytes[..16])?,
            u64::decode(&bytes[16..24])?,
            u128::decode(&bytes[24..])?,
        ))
    }
}

/// The scan prefix that selects every `(group, _)` key of one group.
pub fn prefix(group: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(group.len() + 9);
    v.extend_from_slice(group.as_bytes());
    v.push(0);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_keys_sort_numerically() {
        let mut ks: Vec<Vec<u8>> = [300u64, 2, 1 << 40, 17].iter().map(Key::encode).collect();
        ks.sort();
        let back: Vec<u64> = ks.iter().map(|k| u64::decode(k).unwrap()).collect();
        assert_eq!(back, vec![2, 17, 300, 1 << 40]);
    }

    #[test]
    fn composite_keys_round_trip_and_group() {
        let k = ("sku-1".to_string(), 42u64);
        assert_eq!(<(String, u64)>::decode(&k.encode()).unwrap(), k);
        assert!(k.encode().starts_with(&prefix("sku-1")));
        assert!(!("sku-10".to_string(), 1u64)
            .encode()
            .starts_with(&prefix("sku-1")));
        let p = ("client".to_string(), "key".to_string());
        assert_eq!(<(String, String)>::decode(&p.encode()).unwrap(), p);
    }

    #[test]
    fn id_pairs_and_queue_keys_round_trip_in_order() {
        let pair = (7u128 << 100, 3u128);
        assert_eq!(<(u128, u128)>::decode(&pair.encode()).unwrap(), pair);
        assert!(pair.encode().starts_with(&pair.0.to_be_bytes()));
        let mut ks: Vec<Vec<u8>> = [(300u64, 1u128), (2, 9), (300, 0), (1 << 40, 0)]
            .iter()
            .map(Key::encode)
            .collect();
        ks.sort();
        let back: Vec<(u64, u128)> = ks
            .iter()
            .map(|k| <(u64, u128)>::decode(k).unwrap())
            .collect();
        assert_eq!(back, vec![(2, 9), (300, 0), (300, 1), (1 << 40, 0)]);
        let mut ks: Vec<Vec<u8>> = [(2u128, 5u64, 0u128), (1, 9, 3), (1, 1 << 40, 0), (1, 9, 2)]
            .iter()
            .map(Key::encode)
            .collect();
        ks.sort();
        let back: Vec<(u128, u64, u128)> = ks
            .iter()
            .map(|k| <(u128, u64, u128)>::decode(k).unwrap())
            .collect();
        assert_eq!(back, vec![(1, 9, 2), (1, 9, 3), (1, 1 << 40, 0), (2, 5, 0)]);
    }
}
