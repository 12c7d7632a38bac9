//! The fields of a stored order that the server's in-memory order index needs, read from
//! the record's bytes without decoding the rest: lines, addresses and amounts are skipped
//! in place, and the strings are borrowed, so reading a million orders at start allocates
//! next to nothing per order.

use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

use super::orders::{OrderRecord, OrderStatus};

/// What the order index keeps of one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderSummary<'a> {
    pub id: u128,
    pub external_id: &'a str,
    pub customer_id: Option<&'a str>,
    pub customer_email: &'a str,
    pub status: OrderStatus,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl OrderRecord {
    /// This record's [`OrderSummary`].
    pub fn summary(&self) -> OrderSummary<'_> {
        OrderSummary {
            id: self.id,
            external_id: &self.external_id,
            customer_id: self.customer_id.as_deref(),
            customer_email: &self.customer_email,
            status: self.status,
            created_at_ms: self.created_at_ms,
            updated_at_ms: self.updated_at_ms,
        }
    }
}

/// [`OrderRecord`]'s layout field by field (bincode is positional): the kept fields
/// borrowed, the others read as views that are dropped at once. A change to the stored
/// layout of an order, its lines or addresses must change these too (the test below
/// decodes a full record both ways).
#[derive(serde::Deserialize)]
struct OrderView<'a> {
    id: u128,
    external_id: &'a str,
    customer_id: Option<&'a str>,
    customer_email: &'a str,
    status: OrderStatus,
    _lines: Skip<LineView<'a>>,
    _shipping_addresses: Skip<AddressView<'a>>,
    _billing_address: Option<AddressView<'a>>,
    _total: &'a str,
    _item_count: u32,
    _request_sha256: Skip<u8>,
    _cancel_reason: Option<&'a str>,
    _pending_reason: Option<&'a str>,
    created_at_ms: i64,
    updated_at_ms: i64,
}

#[derive(serde::Deserialize)]
struct LineView<'a> {
    _sku: &'a str,
    _product_id: u128,
    _name: &'a str,
    _quantity: u32,
    _unit_price: &'a str,
    _unit_cost: Option<&'a str>,
    _cost_currency: Option<&'a str>,
    _allocations: Skip<AllocationView<'a>>,
}

#[derive(serde::Deserialize)]
struct AllocationView<'a> {
    _warehouse_id: &'a str,
    _inventory_id: u128,
    _quantity: u32,
}

#[derive(serde::Deserialize)]
struct AddressView<'a> {
    _name: Option<&'a str>,
    _line1: &'a str,
    _line2: Option<&'a str>,
    _city: &'a str,
    _region: Option<&'a str>,
    _postal_code: &'a str,
    _country: &'a str,
}

/// A sequence of `T` read element by element and not kept (no `Vec`).
struct Skip<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Skip<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Each<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Each<T> {
            type Value = Skip<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip<T>, A::Error> {
                while seq.next_element::<T>()?.is_some() {}
                Ok(Skip(PhantomData))
            }
        }
        d.deserialize_seq(Each(PhantomData))
    }
}

/// The summary of the order stored as `bytes` (after the format tag).
pub(crate) fn decode(bytes: &[u8]) -> Result<OrderSummary<'_>, String> {
    let (v, _): (OrderView<'_>, usize) =
        bincode::serde::borrow_decode_from_slice(bytes, bincode::config::standard())
            .map_err(|e| e.to_string())?;
    Ok(OrderSummary {
        id: v.id,
        external_id: v.external_id,
        customer_id: v.customer_id,
        customer_email: v.customer_email,
        status: v.status,
        created_at_ms: v.created_at_ms,
        updated_at_ms: v.updated_at_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{AddressRecord, Allocation, OrderLine};

    fn address(n: &str, optional: bool) -> AddressRecord {
        let some = |s: &str| optional.then(|| format!("{s} {n}"));
        AddressRecord {
            name: some("Ann"),
            line1: format!("{n} Main St"),
            line2: some("Apt"),
            city: "Reno".into(),
            region: some("NV"),
            postal_code: "89501".into(),
            country: "US".into(),
        }
    }

    fn order(full: bool) -> OrderRecord {
        let line = |i: u32| OrderLine {
            sku: format!("SKU-{i}"),
            product_id: u128::MAX - u128::from(i),
            name: "Mug ✓".into(),
            quantity: 300 + i,
            unit_price: "19.99".into(),
            unit_cost: full.then(|| "7.5".into()),
            cost_currency: full.then(|| "USD".into()),
            allocations: (0..i)
                .map(|k| Allocation {
                    warehouse_id: format!("W{k}"),
                    inventory_id: u128::from(k) << 100,
                    quantity: 70_000 * k,
                })
                .collect(),
        };
        OrderRecord {
            id: 0x0190_0000_0000_7000_8000_0000_0000_0001,
            external_id: "Shop-17".into(),
            customer_id: full.then(|| "C-9".into()),
            customer_email: "Buyer@Example.com".into(),
            status: if full {
                OrderStatus::Cancelled
            } else {
                OrderStatus::Processing
            },
            lines: (0..if full { 3 } else { 1 }).map(line).collect(),
            shipping_addresses: vec![address("1", full), address("2", !full)],
            billing_address: full.then(|| address("3", true)),
            total: "1234.50".into(),
            item_count: 912,
            request_sha256: (0..32).map(|b| b * 8).collect(),
            cancel_reason: full.then(|| "changed their mind".into()),
            pending_reason: (!full).then(|| "no box fits".into()),
            created_at_ms: 1_764_000_000_000,
            updated_at_ms: if full { -5 } else { 1_764_000_000_321 },
        }
    }

    #[test]
    fn the_summary_read_in_place_is_the_full_records() {
        for full in [true, false] {
            let o = order(full);
            let bytes = crate::codec::encode(&o);
            assert_eq!(decode(&bytes[1..]).unwrap(), o.summary(), "full={full}");
        }
    }

    #[test]
    fn a_cut_record_is_an_error() {
        let bytes = crate::codec::encode(&order(true));
        assert!(decode(&bytes[1..bytes.len() - 1]).is_err());
    }
}
