//! Choosing warehouses for an order: the smallest set of warehouses whose available stock
//! covers every line (exhaustively for sets of up to three, greedily beyond), then each
//! SKU taken whole from one warehouse of the set where possible. Pure and deterministic.

use std::collections::BTreeMap;

/// Available stock of one SKU in one warehouse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stock {
    pub warehouse_id: String,
    pub inventory_id: u128,
    pub available: i64,
}

/// Units of one SKU to take from one warehouse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    pub warehouse_id: String,
    pub inventory_id: u128,
    pub quantity: i64,
}

/// The first SKU (in `demand` order) whose total available stock is short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortfall {
    pub sku: String,
    pub available: i64,
}

/// Exhaustive search over warehouse sets stops at this size (C(n,3) stays small for
/// the tens of warehouses an appliance serves).
const EXHAUSTIVE_UP_TO: usize = 3;

fn available_in(stock: &[Stock], wh: &str) -> i64 {
    stock
        .iter()
        .filter(|s| s.warehouse_id == wh)
        .map(|s| s.available.max(0))
        .sum()
}

fn covers(set: &[&str], demand: &[(String, i64)], stock: &BTreeMap<String, Vec<Stock>>) -> bool {
    demand.iter().all(|(sku, want)| {
        let have: i64 = set.iter().map(|w| available_in(&stock[sku], w)).sum();
        have >= *want
    })
}

fn combinations<'a>(
    items: &[&'a str],
    k: usize,
    start: usize,
    cur: &mut Vec<&'a str>,
    out: &mut Vec<Vec<&'a str>>,
) {
    if cur.len() == k {
        out.push(cur.clone());
        return;
    }
    for i in start..items.len() {
        cur.push(items[i]);
        combinations(items, k, i + 1, cur, out);
        cur.pop();
    }
}

/// Plans the takes per SKU. `demand` lists each SKU once with its total quantity.
pub fn plan(
    demand: &[(String, i64)],
    stock: &BTreeMap<String, Vec<Stock>>,
) -> Result<BTreeMap<String, Vec<Take>>, Shortfall> {
    for (sku, want) in demand {
        let total: i64 = stock
            .get(sku)
            .map_or(0, |v| v.iter().map(|s| s.available.max(0)).sum());
        if total < *want {
            return Err(Shortfall {
                sku: sku.clone(),
                available: total,
            });
        }
    }
    let mut warehouses: Vec<&str> = stock
        .values()
        .flatten()
        .filter(|s| s.available > 0)
        .map(|s| s.warehouse_id.as_str())
        .collect();
    warehouses.sort_unstable();
    warehouses.dedup();

    let mut chosen: Option<Vec<&str>> = None;
    for k in 1..=EXHAUSTIVE_UP_TO.min(warehouses.len()) {
        let mut sets = Vec::new();
        combinations(&warehouses, k, 0, &mut Vec::new(), &mut sets);
        // Among sets of the same size prefer the one holding the most of the order's
        // stock, so later orders keep more options; ties go to the lexical order.
        let best = sets
            .into_iter()
            .filter(|set| covers(set, demand, stock))
            .max_by_key(|set| {
                let held: i64 = demand
                    .iter()
                    .map(|(sku, _)| {
                        set.iter()
                            .map(|w| available_in(&stock[sku], w))
                            .sum::<i64>()
                    })
                    .sum();
                (held, std::cmp::Reverse(set.clone()))
            });
        if best.is_some() {
            chosen = best;
            break;
        }
    }
    let set = chosen.unwrap_or_else(|| greedy(&warehouses, demand, stock));
    Ok(demand
        .iter()
        .map(|(sku, want)| (sku.clone(), takes(&set, *want, &stock[sku])))
        .collect())
}

/// Beyond the exhaustive sizes: repeatedly add the warehouse covering most remaining units.
fn greedy<'a>(
    warehouses: &[&'a str],
    demand: &[(String, i64)],
    stock: &BTreeMap<String, Vec<Stock>>,
) -> Vec<&'a str> {
    let mut set: Vec<&str> = Vec::new();
    while !covers(&set, demand, stock) {
        let gain = |w: &str| -> i64 {
            demand
                .iter()
                .map(|(sku, want)| {
                    let have: i64 = set.iter().map(|s| available_in(&stock[sku], s)).sum();
                    (want - have).max(0).min(available_in(&stock[sku], w))
                })
                .sum()
        };
        let next = warehouses
            .iter()
            .filter(|w| !set.contains(w))
            .max_by_key(|w| (gain(w), std::cmp::Reverse(**w)))
            .copied()
            .expect("totals were checked, so some warehouse still adds stock");
        set.push(next);
    }
    set
}

/// Takes `want` units from the set: whole from one warehouse if one can, else from the
/// fullest first.
fn takes(set: &[&str], want: i64, stock: &[Stock]) -> Vec<Take> {
    let mut pool: Vec<&Stock> = stock
        .iter()
        .filter(|s| s.available > 0 && set.contains(&s.warehouse_id.as_str()))
        .collect();
    pool.sort_by(|a, b| {
        b.available
            .cmp(&a.available)
            .then(a.warehouse_id.cmp(&b.warehouse_id))
    });
    if let Some(one) = pool.iter().filter(|s| s.available >= want).min_by(|a, b| {
        a.available
            .cmp(&b.available)
            .then(a.warehouse_id.cmp(&b.warehouse_id))
    }) {
        return vec![Take {
            warehouse_id: one.warehouse_id.clone(),
            inventory_id: one.inventory_id,
            quantity: want,
        }];
    }
    let mut left = want;
    let mut out = Vec::new();
    for s in pool {
        if left == 0 {
            break;
        }
        let q = left.min(s.available);
        out.push(Take {
            warehouse_id: s.warehouse_id.clone(),
            inventory_id: s.inventory_id,
            quantity: q,
        });
        left -= q;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(entries: &[(&str, &str, i64)]) -> BTreeMap<String, Vec<Stock>> {
        let mut m: BTreeMap<String, Vec<Stock>> = BTreeMap::new();
        for (i, (sku, wh, n)) in entries.iter().enumerate() {
            m.entry(sku.to_string()).or_default().push(Stock {
                warehouse_id: wh.to_string(),
                inventory_id: i as u128,
                available: *n,
            });
        }
        m
    }

    fn d(items: &[(&str, i64)]) -> Vec<(String, i64)> {
        items.iter().map(|(s, n)| (s.to_string(), *n)).collect()
    }

    fn warehouses_used(p: &BTreeMap<String, Vec<Take>>) -> Vec<String> {
        let mut w: Vec<String> = p
            .values()
            .flatten()
            .map(|t| t.warehouse_id.clone())
            .collect();
        w.sort();
        w.dedup();
        w
    }

    #[test]
    fn one_warehouse_when_one_can_ship_everything() {
        // A has more of X, but only B has both X and Y.
        let stock = st(&[("X", "A", 10), ("X", "B", 2), ("Y", "B", 5), ("Y", "C", 5)]);
        let p = plan(&d(&[("X", 2), ("Y", 3)]), &stock).unwrap();
        assert_eq!(warehouses_used(&p), ["B"]);
    }

    #[test]
    fn two_warehouses_beat_a_greedy_three() {
        // Greedy by most units would start with A (X and Y) and then need B and C.
        let stock = st(&[
            ("X", "A", 5),
            ("Y", "A", 5),
            ("Z", "B", 5),
            ("W", "C", 5),
            ("X", "D", 5),
            ("Z", "D", 5),
            ("W", "E", 5),
            ("Y", "E", 5),
        ]);
        let p = plan(&d(&[("X", 5), ("Y", 5), ("Z", 5), ("W", 5)]), &stock).unwrap();
        assert_eq!(warehouses_used(&p).len(), 2, "{p:?}");
    }

    #[test]
    fn a_line_splits_only_when_no_single_warehouse_has_enough() {
        let stock = st(&[("X", "A", 4), ("X", "B", 3)]);
        let p = plan(&d(&[("X", 6)]), &stock).unwrap();
        let total: i64 = p["X"].iter().map(|t| t.quantity).sum();
        assert_eq!(total, 6);
        assert_eq!(p["X"][0].warehouse_id, "A", "fullest first");
        let p = plan(&d(&[("X", 3)]), &stock).unwrap();
        assert_eq!(p["X"].len(), 1);
    }

    #[test]
    fn shortfall_names_the_first_short_sku() {
        let stock = st(&[("X", "A", 4), ("Y", "A", 1), ("Y", "B", 1)]);
        assert_eq!(
            plan(&d(&[("X", 4), ("Y", 3)]), &stock),
            Err(Shortfall {
                sku: "Y".into(),
                available: 2
            })
        );
        assert!(plan(&d(&[("Q", 1)]), &stock).is_err(), "no stock at all");
    }

    #[test]
    fn many_warehouses_fall_back_to_greedy_and_still_cover() {
        let entries: Vec<(String, String, i64)> = (0..8)
            .map(|i| (format!("S{i}"), format!("W{i}"), 1))
            .collect();
        let refs: Vec<(&str, &str, i64)> = entries
            .iter()
            .map(|(a, b, n)| (a.as_str(), b.as_str(), *n))
            .collect();
        let demand: Vec<(String, i64)> = (0..8).map(|i| (format!("S{i}"), 1)).collect();
        let p = plan(&demand, &st(&refs)).unwrap();
        assert_eq!(warehouses_used(&p).len(), 8);
    }
}
