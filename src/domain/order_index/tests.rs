//! Tests of the whole order index through [`OrderSearch`]: text and id matches against a
//! scan, compaction, and status pages against a sorted model.

use storage::{OrderRecord, OrderStatus};

use super::pages::STATUSES;
use super::text::gram;
use super::OrderSearch;

pub(super) fn order(id: u128, ext: &str, email: &str, cust: Option<&str>) -> OrderRecord {
    OrderRecord {
        id,
        external_id: ext.into(),
        customer_id: cust.map(str::to_string),
        customer_email: email.into(),
        status: OrderStatus::Pending,
        lines: vec![],
        shipping_addresses: vec![],
        billing_address: None,
        total: "0".into(),
        item_count: 0,
        request_sha256: vec![],
        cancel_reason: None,
        pending_reason: None,
        created_at_ms: id as i64,
        updated_at_ms: 0,
    }
}

#[test]
fn matches_each_field_case_insensitively_newest_first_and_never_across_fields() {
    let s = OrderSearch::default();
    s.upsert(&order(1, "SHOP-100", "ann@example.com", Some("C-7")));
    s.upsert(&order(2, "shop-200", "bob@example.com", None));
    s.upsert(&order(3, "AMZ-1", "carol@shop.io", Some("VIP-9")));
    let ids = |q: &str| s.find(q).iter().map(|h| h.id).collect::<Vec<_>>();
    assert_eq!(ids("shop"), [3, 2, 1]);
    assert_eq!(ids("SHOP-1"), [1]);
    assert_eq!(ids("vip"), [3]);
    assert_eq!(ids("100ann"), Vec::<u128>::new(), "no match across fields");
    let uuid_fragment = uuid::Uuid::from_u128(2).to_string()[28..].to_string();
    assert_eq!(ids(&uuid_fragment), [2]);
    s.upsert(&order(1, "SHOP-100", "ann@new.org", Some("C-7")));
    assert_eq!(ids("example"), [2], "replaced text is gone");
    assert_eq!(ids("new.org"), [1]);
    assert_eq!(s.len(), 3);
    let mut stale = order(1, "OLD-1", "ann@old.org", None);
    stale.updated_at_ms = -1;
    s.upsert(&stale);
    assert_eq!(
        ids("old"),
        Vec::<u128>::new(),
        "an older version is ignored"
    );
}

#[test]
fn pages_by_status_newest_first_follow_upserts_and_status_changes() {
    let s = OrderSearch::default();
    for id in 1..=10u128 {
        s.upsert(&order(id, &format!("E{id}"), "x@y.z", None));
    }
    let mut cancelled = order(4, "E4", "x@y.z", None);
    cancelled.status = OrderStatus::Cancelled;
    s.upsert(&cancelled);
    let mut shipped = order(7, "E7", "x@y.z", None);
    shipped.status = OrderStatus::Shipped;
    s.upsert(&shipped);
    let ids = |status, floor, offset, limit| {
        let (page, total) = s.page(status, floor, offset, limit);
        (
            page.into_iter().map(|(id, _)| id).collect::<Vec<_>>(),
            total,
        )
    };
    assert_eq!(
        ids(Some(OrderStatus::Pending), None, 0, 3),
        (vec![10, 9, 8], 8)
    );
    assert_eq!(
        ids(Some(OrderStatus::Pending), None, 3, 3),
        (vec![6, 5, 3], 8)
    );
    assert_eq!(ids(Some(OrderStatus::Cancelled), None, 0, 50), (vec![4], 1));
    assert_eq!(
        ids(None, None, 2, 4),
        (vec![8, 7, 6, 5], 10),
        "all statuses merged"
    );
    assert_eq!(ids(None, Some(6), 0, 50), (vec![10, 9, 8, 7, 6], 5));
    assert_eq!(ids(None, None, 20, 5), (vec![], 10));
}

#[test]
fn the_gram_index_finds_what_a_scan_finds() {
    let s = OrderSearch::default();
    for id in 0..3000u128 {
        let email = format!("b{id}@Example.com");
        s.upsert(&order(
            id,
            &format!("BULK-{id}"),
            &email,
            Some(&format!("C{}", id % 97)),
        ));
    }
    s.upsert(&order(5000, "xBULK-12y", "q@r.st", None));
    let scan = |q: &str| {
        let needle = q.to_ascii_lowercase();
        let mut ids: Vec<u128> = (0..3000u128)
            .filter(|id| {
                let c = format!("C{}", id % 97).to_ascii_lowercase();
                [format!("bulk-{id}"), format!("b{id}@example.com"), c]
                    .iter()
                    .any(|f| f.contains(&needle))
            })
            .collect();
        if "xbulk-12y".contains(&needle) {
            ids.push(5000);
        }
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids
    };
    for q in [
        "BULK-12",
        "bulk-123",
        "ulk-12",
        "LK-2999",
        "K-1000",
        "-1234",
        "@example",
        "1@exam",
        "xample.c",
        "BULK-12y",
        "b29@ex",
        "bulk-300",
        "c96",
        "example.com",
        "bulk-2999",
    ] {
        let ids: Vec<u128> = s.find(q).iter().map(|h| h.id).collect();
        assert_eq!(ids, scan(q), "{q}");
    }
    let c = &s.corpus.read().unwrap().text;
    assert!(
        c.candidates(b"bulk-123").is_some_and(|v| v.len() < 20),
        "narrowed"
    );
    assert!(c.candidates(b"12345678").is_none(), "hex-like needles scan");
    assert!(
        c.common.contains(&gram(b"bulk")),
        "a gram in every order is common"
    );
    assert!(!c.grams.contains_key(&gram(b"bulk")), "and has no list");
}

#[test]
fn compaction_keeps_every_live_entry() {
    let s = OrderSearch::default();
    for round in 0..5 {
        for id in 0..1000u128 {
            s.upsert(&order(id, &format!("E{id}-r{round}"), "x@y.z", None));
        }
    }
    assert_eq!(s.find("-r4").len(), 1000);
    assert_eq!(s.find("-r3").len(), 0);
    assert_eq!(s.find("e999-").len(), 1);
    assert!(
        s.corpus.read().unwrap().ids.entries.len() < 5000,
        "compacted"
    );
    assert_eq!(
        s.page(None, None, 0, 1).1,
        1000,
        "status index survives compaction"
    );
}

pub(super) fn xorshift(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn id_fragments_match_exactly_where_the_id_text_contains_them() {
    let s = OrderSearch::default();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut ids = Vec::new();
    for n in 0..400 {
        let id = u128::from(xorshift(&mut seed)) << 64 | u128::from(xorshift(&mut seed));
        // Some hex-only externalIds, so a needle can match text and id alike.
        s.upsert(&order(id, &format!("{:x}", n * 7919), "a@b.c", None));
        ids.push(id);
    }
    let texts: Vec<String> = ids
        .iter()
        .map(|id| uuid::Uuid::from_u128(*id).to_string())
        .collect();
    let mut needles: Vec<String> = vec!["-".into(), "".into(), "--".into(), "0".into()];
    for _ in 0..300 {
        let t = &texts[xorshift(&mut seed) as usize % texts.len()];
        let a = xorshift(&mut seed) as usize % 36;
        let b = a + 1 + xorshift(&mut seed) as usize % (36 - a);
        needles.push(t[a..b].to_string());
        needles.push(t[a..b].to_ascii_uppercase());
        needles.push(format!("{:x}", xorshift(&mut seed) % 4096));
    }
    for q in &needles {
        let lq = q.to_ascii_lowercase();
        let mut want: Vec<u128> = ids
            .iter()
            .enumerate()
            .filter(|(n, id)| {
                let ext = format!("{:x}", *n as u64 * 7919);
                [uuid::Uuid::from_u128(**id).to_string(), ext, "a@b.c".into()]
                    .iter()
                    .any(|f| f.contains(&lq))
            })
            .map(|(_, id)| *id)
            .collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let got: Vec<u128> = s.find(q).iter().map(|h| h.id).collect();
        assert_eq!(got, want, "{q:?}");
    }
}

#[test]
fn pages_agree_with_a_sorted_model_when_ids_arrive_out_of_order() {
    let s = OrderSearch::default();
    let mut model = std::collections::BTreeMap::new();
    let mut seed = 0x1234_5678_9abc_def1u64;
    for step in 0..2500u64 {
        // Mostly ascending ids with jitter, sometimes far in the past; some rewrites.
        let id = if step % 11 == 0 && !model.is_empty() {
            *model
                .keys()
                .nth(xorshift(&mut seed) as usize % model.len())
                .unwrap()
        } else if step % 13 == 0 {
            u128::from(xorshift(&mut seed) % 1_000_000)
        } else {
            u128::from(step * 1000 + xorshift(&mut seed) % 5000)
        };
        let status = STATUSES[xorshift(&mut seed) as usize % 5];
        let mut o = order(id, &format!("E{id}"), "x@y.z", None);
        o.status = status;
        o.updated_at_ms = step as i64;
        s.upsert(&o);
        model.insert(id, (status, step as i64));
    }
    assert_eq!(s.len(), model.len());
    for status in [
        None,
        Some(OrderStatus::Pending),
        Some(OrderStatus::Cancelled),
    ] {
        for floor in [
            None,
            Some(0),
            Some(700_000),
            Some(1_500_000),
            Some(u128::MAX),
        ] {
            for (offset, limit) in [(0, 50), (37, 10), (300, 64), (5000, 5)] {
                let all: Vec<(u128, i64)> = model
                    .range(floor.unwrap_or(0)..)
                    .rev()
                    .filter(|(_, (st, _))| status.is_none_or(|s| s == *st))
                    .map(|(id, (_, v))| (*id, *v))
                    .collect();
                let want: Vec<(u128, i64)> = all.iter().copied().skip(offset).take(limit).collect();
                let got = s.page(status, floor, offset, limit);
                assert_eq!(
                    got,
                    (want, all.len() as u64),
                    "{status:?} {floor:?} {offset}"
                );
            }
        }
    }
}

/// An index with rewrites (dead entries), every status, common grams and random ids.
fn varied_index(seed: &mut u64) -> OrderSearch {
    let s = OrderSearch::default();
    for step in 0..1500u64 {
        let id = if step % 7 == 0 && step > 0 {
            u128::from(xorshift(seed) % step) << 64
        } else {
            u128::from(step) << 64 | u128::from(xorshift(seed) % 1000)
        };
        let mut o = order(
            id,
            &format!("SHOP-{}", xorshift(seed) % 5000),
            &format!("c{}@example.com", step % 300),
            (step % 3 == 0).then_some("VIP-1"),
        );
        o.status = STATUSES[xorshift(seed) as usize % 5];
        o.updated_at_ms = step as i64;
        s.upsert(&o);
    }
    s
}

pub(super) fn answers(s: &OrderSearch) -> Vec<String> {
    let mut out = vec![format!("{} {:?}", s.len(), s.status_counts())];
    for q in [
        "shop-1",
        "SHOP-49",
        "c29@exa",
        "example.com",
        "vip",
        "00",
        "-",
    ] {
        let hits: Vec<_> = s.find(q).iter().map(|h| (h.id, h.updated_ms)).collect();
        out.push(format!("{q}: {hits:?}"));
    }
    for status in [None, Some(OrderStatus::Pending), Some(OrderStatus::Shipped)] {
        for (floor, offset) in [(None, 0), (None, 40), (Some(700u128 << 64), 3)] {
            out.push(format!("{:?}", s.page(status, floor, offset, 25)));
        }
    }
    out
}

#[test]
fn a_decoded_index_answers_and_changes_exactly_as_the_original() {
    let mut seed = 0x0dd_ba11_cafe_f00du64;
    let s = varied_index(&mut seed);
    let mut bytes = Vec::new();
    s.encode(&mut bytes);
    let d = OrderSearch::decode(&bytes).expect("decodes");
    assert_eq!(answers(&d), answers(&s));
    assert!(
        s.corpus.read().unwrap().ids.dead > 0,
        "the sample has dead entries"
    );
    assert!(!s.corpus.read().unwrap().text.common.is_empty());
    // Both keep working the same way: new orders, status moves, rewrites, compaction.
    for step in 1500..4000u64 {
        let id = u128::from(xorshift(&mut seed) % 2000) << 64;
        let mut o = order(id, &format!("NEW-{step}"), "n@new.org", None);
        o.status = STATUSES[step as usize % 5];
        o.updated_at_ms = step as i64;
        s.upsert(&o);
        d.upsert(&o);
    }
    assert_eq!(answers(&d), answers(&s));
    let mut again = Vec::new();
    d.encode(&mut again);
    let mut original = Vec::new();
    s.encode(&mut original);
    assert_eq!(again.len(), original.len());
}

#[test]
fn a_damaged_encoding_is_refused_or_harmless_never_a_panic() {
    let s = varied_index(&mut 99);
    let mut bytes = Vec::new();
    s.encode(&mut bytes);
    let step = bytes.len() / 200;
    for cut in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        assert!(OrderSearch::decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(OrderSearch::decode(&longer).is_err(), "trailing bytes");
    for at in (0..bytes.len()).step_by(step + 1) {
        let mut bad = bytes.clone();
        bad[at] ^= 0xa5;
        // Whatever decodes must be usable without panicking.
        if let Ok(d) = OrderSearch::decode(&bad) {
            let _ = answers(&d);
        }
    }
}
