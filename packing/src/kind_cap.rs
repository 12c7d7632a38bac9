//! The most units of one kind a box can hold: by volume, by weight, by the per-package unit
//! cap, and by the dual-feasible functions `u^(k)` of each axis, which for identical units
//! bound every arrangement, turns mixed, by the best grid a single turn allows. The lower
//! bounds count each kind's units against these capacities.

use crate::problem::{BoxKind, Kind};

/// `u^(k)` of a side `d` on an axis of length `s` (Fekete and Schepers 2004), as a fraction
/// `(numerator, denominator)` of the axis; `k = 0` stands for the identity.
fn mapped(d: i64, s: i64, k: i64) -> (i128, i128) {
    let (d, s) = (d as i128, s as i128);
    if k == 0 {
        return (d, s);
    }
    let r = (k as i128 + 1) * d;
    if r % s == 0 {
        (d, s)
    } else {
        (r / s, k as i128)
    }
}

/// Turns a kind has at most.
const TURNS: usize = 6;

/// The `k` worth trying on axis `a` of a box of `size` for the turns `dims`: the identity and,
/// per turn, how many of its side fit along the axis (mapping that side to exactly `1 / k`);
/// the first `n` entries of the array.
fn axis_ks(dims: &[[i64; 3]], size: [i64; 3], a: usize) -> ([i64; TURNS + 1], usize) {
    let mut ks = [0; TURNS + 1];
    let mut n = 1;
    for d in dims {
        let k = size[a] / d[a];
        if (1..=64).contains(&k) && !ks[..n].contains(&k) {
            ks[n] = k;
            n += 1;
        }
    }
    (ks, n)
}

/// An upper bound on the units of `kind` one box of `bx` holds, under `max_units` (the
/// request's cap per package, if any).
pub(crate) fn capacity(kind: &Kind, bx: &BoxKind, max_units: Option<u32>) -> u64 {
    let size = bx.size;
    let mut dims = [[0i64; 3]; TURNS];
    let mut nt = 0;
    for t in kind.turns.iter().take(TURNS) {
        if (0..3).all(|a| t.dim[a] <= size[a]) && !dims[..nt].contains(&t.dim) {
            dims[nt] = t.dim;
            nt += 1;
        }
    }
    let dims = &dims[..nt];
    if dims.is_empty() || bx.cap < 0 {
        return 0;
    }
    let mut best = u64::MAX;
    if kind.weight > 0 {
        best = (bx.cap / kind.weight) as u64;
    }
    if let Some(m) = max_units {
        best = best.min(m as u64);
    }
    // Per axis, per `k` tried, each turn's side mapped, as a share of the axis. Floating
    // point is exact enough: every count below is rounded up by a margin far above its
    // rounding error, and a count too high only weakens the bound.
    let mut maps = [[[0f64; TURNS]; TURNS + 1]; 3];
    let mut nk = [0usize; 3];
    for a in 0..3 {
        let (ks, n) = axis_ks(dims, size, a);
        nk[a] = n;
        for (i, &k) in ks[..n].iter().enumerate() {
            for (t, d) in dims.iter().enumerate() {
                let (num, den) = mapped(d[a], size[a], k);
                maps[a][i][t] = num as f64 / den as f64;
            }
        }
    }
    for x in &maps[0][..nk[0]] {
        for y in &maps[1][..nk[1]] {
            for z in &maps[2][..nk[2]] {
                // Each unit maps to at least its smallest mapped volume over the turns it may
                // take, and a box's mapped volumes add up to at most one box.
                let least = (0..nt)
                    .map(|t| x[t] * y[t] * z[t])
                    .fold(f64::INFINITY, f64::min);
                if least > 0.0 {
                    let most = (1.0 / least * (1.0 + 1e-9)).floor();
                    best = best.min(if most < 1e18 { most as u64 } else { u64::MAX });
                }
            }
        }
    }
    best
}

/// The fewest boxes of `boxes` (each kind with its quantity, unlimited when `None`) that can
/// hold `n` units of one kind, each box at most its entry of `caps` ([`capacity`]), or `None`
/// when all of them together cannot.
pub(crate) fn boxes_for(n: u64, boxes: &[BoxKind], caps: &[u64]) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    let mut caps: Vec<(u64, Option<u64>)> = boxes
        .iter()
        .zip(caps)
        .filter(|(b, &c)| b.quantity != Some(0) && c > 0)
        .map(|(b, &c)| (c, b.quantity))
        .collect();
    caps.sort_unstable_by_key(|c| std::cmp::Reverse(c.0));
    let (mut left, mut used) = (n, 0u64);
    for (cap, quantity) in caps {
        let need = left.div_ceil(cap);
        let take = quantity.map_or(need, |q| q.min(need));
        used += take;
        left = left.saturating_sub(take.saturating_mul(cap));
        if left == 0 {
            return usize::try_from(used).ok();
        }
    }
    None
}

/// The boxes `n` units of `kind` need on their own, with nothing else in them: by volume,
/// by weight and by what one box holds of the kind (0 when the boxes in stock cannot hold them
/// all: no packing ships them, and the bound is then about none).
pub(crate) fn boxes_alone(kind: &Kind, n: u64, boxes: &[BoxKind], max_units: Option<u32>) -> usize {
    if n == 0 {
        return 0;
    }
    let usable = || boxes.iter().filter(|b| b.cap >= 0 && b.quantity != Some(0));
    let (Some(vmax), Some(cmax)) = (
        usable().map(|b| b.volume).max(),
        usable().map(|b| b.cap).max(),
    ) else {
        return 0;
    };
    let up = |a: i128, b: i128| (a + b - 1) / b;
    let by_vol = up(n as i128 * kind.volume, vmax.max(1));
    let by_wt = up(n as i128 * kind.weight as i128, cmax.max(1) as i128);
    let caps: Vec<u64> = boxes.iter().map(|b| capacity(kind, b, max_units)).collect();
    let by_count = boxes_for(n, boxes, &caps).unwrap_or(0);
    (by_vol.max(by_wt) as usize).max(by_count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::BoxKind;

    fn cap(unit: [i64; 3], rule: Orientation, size: [i64; 3]) -> u64 {
        capacity(&Kind::plain(unit, rule, 1), &BoxKind::test_box(size), None)
    }

    #[test]
    fn identical_units_count_no_more_than_their_best_grid() {
        // Cubes of 6 in a box of 10: one, though their volume is a fifth of the box.
        assert_eq!(cap([6, 6, 6], Orientation::Any, [10, 10, 10]), 1);
        // Cubes of 5: eight, as the volume says.
        assert_eq!(cap([5, 5, 5], Orientation::Any, [10, 10, 10]), 8);
        // An upright 10 x 10 x 11 unit in a 24 x 18 x 16 box: two side by side, one layer
        // (volume alone allows six).
        assert_eq!(cap([10, 10, 11], Orientation::Upright, [24, 18, 16]), 2);
        // Turning helps: 3 x 3 x 7 bars in 7 x 7 x 7 hold four, whichever way they lie, and
        // no grid of one turn holds more than four.
        assert_eq!(cap([3, 3, 7], Orientation::Any, [7, 7, 7]), 4);
        // A unit too large in every turn: none.
        assert_eq!(cap([11, 1, 1], Orientation::Any, [10, 10, 10]), 0);
    }

    #[test]
    fn a_grid_is_never_undercounted() {
        // Every count here is achieved by a grid of one turn, so the bound must reach it.
        for (unit, size) in [
            ([2, 3, 4], [10, 10, 10]),
            ([3, 4, 5], [12, 10, 15]),
            ([1, 2, 9], [9, 9, 9]),
            ([4, 4, 1], [9, 13, 5]),
        ] {
            let turns = Kind::plain(unit, Orientation::Any, 1).turns;
            let grid = turns
                .iter()
                .map(|t| (0..3).map(|a| (size[a] / t.dim[a]) as u64).product::<u64>())
                .max()
                .unwrap();
            assert!(
                cap(unit, Orientation::Any, size) >= grid,
                "{unit:?} in {size:?}"
            );
        }
    }

    #[test]
    fn no_packing_holds_more_than_the_capacity() {
        // The engine packs as many units of one random item as it can into a single box;
        // whatever it manages is a real packing, which the capacity must allow.
        use crate::model::{BoxType, Item, PackOptions, PackRequest, Warehouse};
        let mut rng = crate::rng::SplitMix64::new(7);
        let rules = [Orientation::Any, Orientation::Upright, Orientation::Fixed];
        let mut tight = 0;
        for case in 0..60 {
            let unit = [0; 3].map(|_| rng.range(2, 9));
            let size = [0; 3].map(|_| rng.range(8, 21));
            let rule = rules[case % 3];
            let kind = Kind::plain(unit.map(|d| d * 1000), rule, 1);
            let cap = capacity(&kind, &BoxKind::test_box(size.map(|s| s * 1000)), None);
            let mut item = Item::new("u", unit[0] as f64, unit[1] as f64, unit[2] as f64, 0.0, 1);
            item.orientation = rule;
            item.quantity = (size.iter().product::<i64>() / unit.iter().product::<i64>()).max(1);
            let bx = BoxType {
                quantity: Some(1),
                ..BoxType::new("b", size[0] as f64, size[1] as f64, size[2] as f64, 1e6)
            };
            let mut wh = Warehouse {
                warehouse_id: "w".into(),
                boxes: vec![bx],
                ..Warehouse::default()
            };
            wh.inventory.insert("u".into(), item.quantity);
            let req = PackRequest {
                items: vec![item],
                warehouses: vec![wh],
                options: PackOptions {
                    time_limit_ms: Some(20),
                    ..PackOptions::default()
                },
                ..PackRequest::default()
            };
            let packed = crate::pack(&req).unwrap().summary.total_items_packed as u64;
            assert!(
                packed <= cap,
                "{unit:?} {rule:?} in {size:?}: packed {packed}, cap {cap}"
            );
            tight += usize::from(packed == cap);
        }
        // The bound is no mere volume: it meets the packings found on most cases.
        assert!(tight >= 30, "{tight} of 60 tight");
    }

    #[test]
    fn weight_and_unit_caps_limit_the_count() {
        let mut kind = Kind::plain([1, 1, 1], Orientation::Any, 1);
        kind.weight = 30;
        let mut bx = BoxKind::test_box([10, 10, 10]);
        bx.cap = 100;
        assert_eq!(capacity(&kind, &bx, None), 3);
        assert_eq!(capacity(&kind, &bx, Some(2)), 2);
    }

    #[test]
    fn boxes_are_taken_roomiest_first_within_their_stock() {
        let kind = Kind::plain([6, 6, 6], Orientation::Any, 1);
        let mut big = BoxKind::test_box([12, 12, 6]);
        big.quantity = Some(2);
        let small = BoxKind::test_box([6, 6, 6]);
        let boxes = [small.clone(), big.clone()];
        let caps = boxes.each_ref().map(|b| capacity(&kind, b, None));
        assert_eq!(caps, [1, 4]);
        // Four per big box, two big boxes: 8 units in 2 boxes, 9 in 3.
        assert_eq!(boxes_for(8, &boxes, &caps), Some(2));
        assert_eq!(boxes_for(9, &boxes, &caps), Some(3));
        let mut few = small;
        few.quantity = Some(1);
        assert_eq!(boxes_for(10, &[few, big], &caps), None);
    }
}
