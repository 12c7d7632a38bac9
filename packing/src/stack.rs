//! Lower bound from units that can only stack (the argument of [`crate::mpv::stack_bound`],
//! for any box): plates and big units share a box only side by side along one axis, so their
//! shortest sides make a 1D bin packing of the box's longest side.

use crate::geometry::V3;
use crate::problem::Kind;

/// Thicknesses (and 1D thresholds) tried, at most: any subset keeps the bound valid.
const MAX_TRIES: usize = 48;

/// Sorted sides of each kind's units, with the number of units.
fn sides(units: &[u32], kinds: &[Kind]) -> Vec<(V3, i64)> {
    let mut count = vec![0i64; kinds.len()];
    for &u in units {
        count[u as usize] += 1;
    }
    count
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(k, &c)| {
            let mut s = kinds[k].turns[0].dim;
            s.sort_unstable();
            (s, c)
        })
        .collect()
}

/// At most `MAX_TRIES` of `v` (sorted, distinct), spread evenly.
fn spread(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v.dedup();
    if v.len() > MAX_TRIES {
        let n = v.len();
        v = (0..MAX_TRIES).map(|i| v[i * n / MAX_TRIES]).collect();
    }
    v
}

/// Martello and Toth's L2 (with the count bound of pieces over half) for pieces of lengths
/// `h` (value, count) in bins of length `cap`, as in `bound_one_axis` of `mpv/bounds.rs`.
fn one_dim(h: &[(i64, i64)], cap: i64) -> i64 {
    let n: i64 = h.iter().map(|x| x.1).sum();
    if n == 0 {
        return 0;
    }
    let over: i64 = h.iter().filter(|x| 2 * x.0 > cap).map(|x| x.1).sum();
    let mut lb = over.max(1);
    let qs = spread(h.iter().map(|x| x.0).filter(|&x| 2 * x <= cap).collect());
    for q in qs {
        let (mut j1, mut j2, mut j2h, mut j2hp, mut j3, mut j3h) = (0i64, 0, 0, 0, 0, 0);
        for &(x, c) in h {
            if x > cap - q {
                j1 += c;
            }
            if cap - q >= x && 2 * x > cap {
                j2 += c;
                j2h += c * x;
                j2hp += c * ((cap - x) / q);
            }
            if 2 * x <= cap && x >= q {
                j3 += c;
                j3h += c * x;
            }
        }
        let spill = j3h - (j2 * cap - j2h);
        let alpha = if spill > 0 {
            (spill + cap - 1) / cap
        } else {
            0
        };
        let per = cap / q;
        let beta = if j3 - j2hp > 0 {
            (j3 - j2hp + per - 1) / per
        } else {
            0
        };
        lb = lb.max(j1 + j2 + alpha.max(beta));
    }
    lb
}

/// No packing of `units` into boxes that fit inside one of `size` (in any number, turned any
/// way) needs fewer boxes. Let `l` be the box's longest side and `p` at most `l / 2`. A
/// "plate" has its shortest side at least `p` and the other two over `l - p`; a "big" unit
/// has every side over `l / 2`. Two plates lying on different axes overlap on both (on one's
/// short axis the other's side over `l - p` and the short side at least `p` add up to more
/// than any side of the box) and on the third (both over half of it); a plate and a big unit
/// overlap on the plate's long axes, two big units on every axis. So the plates and big units
/// of one box lie side by side along one axis, no longer than `l`, each taking at least its
/// shortest side. 0 when no unit is a plate or big for any `p`.
pub(crate) fn bound(units: &[u32], kinds: &[Kind], size: V3) -> usize {
    let l = size.iter().copied().max().unwrap_or(0);
    if l <= 0 {
        return 0;
    }
    // Only units whose middle side exceeds half the longest side can take part.
    let all: Vec<(V3, i64)> = sides(units, kinds)
        .into_iter()
        .filter(|(s, _)| 2 * s[1] > l)
        .collect();
    if all.is_empty() {
        return 0;
    }
    let mut ps = spread(
        all.iter()
            .map(|(s, _)| s[0])
            .filter(|&p| p >= 1 && 2 * p <= l)
            .collect(),
    );
    // The big units alone, should no thickness apply.
    if ps.is_empty() {
        ps.push(0);
    }
    let mut best = 0;
    for p in ps {
        let h: Vec<(i64, i64)> = all
            .iter()
            .filter(|(s, _)| (p > 0 && s[0] >= p && s[1] > l - p) || 2 * s[0] > l)
            .map(|(s, c)| (s[0], *c))
            .collect();
        best = best.max(one_dim(&h, l));
    }
    best as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;

    fn kinds_of(items: &[V3]) -> Vec<Kind> {
        items
            .iter()
            .map(|&d| Kind::plain(d, Orientation::Any, 1))
            .collect()
    }

    fn of(items: &[V3], size: V3) -> usize {
        let kinds = kinds_of(items);
        let units: Vec<u32> = (0..items.len() as u32).collect();
        bound(&units, &kinds, size)
    }

    #[test]
    fn agrees_with_the_mpv_stack_bound_on_cubes() {
        assert_eq!(of(&[[50, 100, 100]; 2], [100; 3]), 1);
        assert_eq!(of(&[[100, 50, 100]; 3], [100; 3]), 2);
        assert_eq!(of(&[[67, 34, 67]; 3], [100; 3]), 2);
        assert_eq!(of(&[[67, 33, 67]; 4], [100; 3]), 0);
        assert_eq!(of(&[[68, 33, 68]; 4], [100; 3]), 2);
        let mixed = [[60, 60, 60], [34, 67, 67], [67, 34, 67]];
        assert_eq!(of(&mixed, [100; 3]), 2);
        for (c, n, v) in [
            (1, 100, 2),
            (1, 200, 1),
            (2, 200, 3),
            (3, 200, 3),
            (5, 100, 2),
        ] {
            let inst = crate::mpv::instance(c, n, v);
            let b = inst.bin;
            assert_eq!(
                of(&inst.items, [b; 3]) as u64,
                crate::mpv::stack_bound(&inst),
                "class {c} n {n} v {v}"
            );
        }
    }

    #[test]
    fn a_flat_box_stacks_along_its_longest_side() {
        // Plates 30 x 75 x 90 in a box of 100 x 50 x 100: faces over 100 - 30 both ways, so
        // at most three (90 of the 100) side by side; four need two boxes.
        assert_eq!(of(&[[30, 75, 90]; 4], [100, 50, 100]), 2);
        assert_eq!(of(&[[30, 75, 90]; 3], [100, 50, 100]), 1);
    }

    /// Random sets of plates, big and small units in boxes of random sides, several box
    /// kinds (the largest containing the others) and limited stock: the engine's bound never
    /// exceeds the boxes of a validated packing, and is reached above the volume bound.
    #[test]
    fn never_above_a_validated_packing() {
        use crate::model::BoxType;
        use crate::rng::SplitMix64;
        let mut rng = SplitMix64::new(11);
        let mut tight = 0;
        for round in 0..120 {
            let size = [rng.range(40, 100), rng.range(40, 100), rng.range(40, 100)];
            let l = size[0].max(size[1]).max(size[2]);
            let n = rng.range(3, 12) as usize;
            let items: Vec<V3> = (0..n)
                .map(|_| {
                    let mut d = match rng.below(4) {
                        0 | 1 => [
                            rng.range(5, l / 2),
                            rng.range(l / 2, l),
                            rng.range(l / 2, l),
                        ],
                        2 => [
                            rng.range(l / 2, l),
                            rng.range(l / 2, l),
                            rng.range(l / 2, l),
                        ],
                        _ => [
                            rng.range(1, l / 3),
                            rng.range(1, l / 3),
                            rng.range(1, l / 3),
                        ],
                    };
                    // Every unit fits the box in some turn.
                    d.sort_unstable();
                    let mut s = size;
                    s.sort_unstable();
                    [0, 1, 2].map(|a| d[a].min(s[a]))
                })
                .collect();
            let rule = [Orientation::Any, Orientation::Upright][rng.below(2)];
            let mut req = crate::mpv::Instance {
                class: 0,
                n: items.len(),
                index: 0,
                bin: 0,
                items: items.clone(),
            }
            .request(rule);
            let box_of = |name: &str, d: [i64; 3]| {
                BoxType::new(name, d[0] as f64, d[1] as f64, d[2] as f64, 1e6)
            };
            let boxes = &mut req.warehouses[0].boxes;
            *boxes = vec![box_of("big", size)];
            if round % 2 == 1 {
                let mut small = box_of("small", [size[0] * 3 / 4, size[1], size[2] * 3 / 4]);
                small.quantity = Some(2);
                boxes.push(small);
            }
            req.options.time_limit_ms = Some(5);
            let sol = crate::pack(&req).unwrap();
            assert!(crate::validate(&req, &sol).is_ok());
            if !sol.unfitted_items.is_empty() {
                continue;
            }
            let got = sol.summary.total_packages;
            let lb = of(&items, size);
            assert!(lb <= got, "{size:?} {items:?}: bound {lb}, packed {got}");
            let vol: i64 = items.iter().map(|d| d[0] * d[1] * d[2]).sum();
            let by_vol = (vol + size.iter().product::<i64>() - 1) / size.iter().product::<i64>();
            tight += usize::from(lb == got && lb as i64 > by_vol);
        }
        assert!(tight > 0);
    }
}
