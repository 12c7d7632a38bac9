//! Lower bound on the boxes a warehouse's units need from dual-feasible functions (Fekete and
//! Schepers 2004): each side of a unit is mapped by such a function of its box axis, and the
//! mapped volumes still fit at most one box's worth per box. A unit that may turn counts its
//! smallest mapped volume over its turns, which keeps the bound valid under any rotation rule.

use crate::geometry::V3;
use crate::problem::Kind;

/// Above this many units the bound is not worth its cost (it only stops the search early).
const MAX_UNITS: usize = 3000;
/// Thresholds tried per bound, at most.
const MAX_THRESHOLDS: usize = 48;
/// `u^(k)` is tried for k = 1..=MAX_K after each threshold.
const MAX_K: i64 = 6;
/// Thresholds per axis when each axis gets its own (besides none at all).
const PER_AXIS: usize = 4;

/// `U^e`: sides above `s - e` count as the whole axis, sides below `e` as nothing.
fn dff_u(a: i64, s: i64, e: i64) -> i64 {
    if a > s - e {
        s
    } else if a < e {
        0
    } else {
        a
    }
}

/// `u^(k)` of a side `a` of an axis of length `s`, over `s * k`.
fn dff_k(a: i64, s: i64, k: i64) -> i64 {
    // 64-bit when the product fits (always, for lengths up to `MAX_LENGTH`).
    match (k + 1).checked_mul(a) {
        Some(r) if r % s == 0 => a * k,
        Some(r) => r / s * s,
        None => {
            let r = (k + 1) as i128 * a as i128;
            if r % s as i128 == 0 {
                a * k
            } else {
                (r / s as i128) as i64 * s
            }
        }
    }
}

/// Thresholds as thousandths of an axis, up to a half: just at and just above each side and
/// each side's complement.
fn thresholds(units: &[u32], kinds: &[Kind], size: V3) -> Vec<i64> {
    let mut seen = vec![false; kinds.len()];
    let mut out = vec![500];
    for &u in units {
        if std::mem::replace(&mut seen[u as usize], true) {
            continue;
        }
        for t in &kinds[u as usize].turns {
            for (&d, &s) in t.dim.iter().zip(&size) {
                let c = d as i128 * 1000 / s as i128;
                let r = (s - d) as i128 * 1000 / s as i128;
                for c in [c, c + 1, r, r + 1] {
                    if (1..=500).contains(&c) {
                        out.push(c as i64);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.len() > MAX_THRESHOLDS {
        let n = out.len();
        out = (0..MAX_THRESHOLDS)
            .map(|i| out[i * n / MAX_THRESHOLDS])
            .collect();
    }
    out
}

/// Thresholds along axis `a` alone, in length units up to half the axis: the side of a turn
/// (it stays, smaller ones vanish) and just above its complement (it counts as the whole axis),
/// and 0 (sides as they are).
fn axis_thresholds(units: &[u32], kinds: &[Kind], size: V3, a: usize) -> Vec<i64> {
    let s = size[a];
    let mut seen = vec![false; kinds.len()];
    let mut out = Vec::new();
    for &u in units {
        if std::mem::replace(&mut seen[u as usize], true) {
            continue;
        }
        for t in &kinds[u as usize].turns {
            let d = t.dim[a];
            for e in [d, s - d + 1] {
                if (1..=s / 2).contains(&e) {
                    out.push(e);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.len() > PER_AXIS {
        let n = out.len();
        out = (0..PER_AXIS).map(|i| out[i * n / PER_AXIS]).collect();
    }
    out.insert(0, 0);
    out
}

/// A kind present in the request as the bound sees it: its three sides (those of its first
/// turn) and, per turn that fits the box, which of them lies along each axis.
struct Shape {
    kind: usize,
    sides: V3,
    turns: Vec<[u8; 3]>,
}

/// The shapes of the kinds in `present` for boxes of `size`.
fn shapes(kinds: &[Kind], present: &[bool], size: V3) -> Vec<Shape> {
    kinds
        .iter()
        .zip(present)
        .enumerate()
        .filter(|(_, (_, &here))| here)
        .map(|(kind, (kd, _))| {
            let sides = kd.turns[0].dim;
            let turns = kd
                .turns
                .iter()
                .filter(|t| (0..3).all(|a| t.dim[a] <= size[a]))
                .map(|t| {
                    [0, 1, 2].map(|a| sides.iter().position(|&d| d == t.dim[a]).unwrap_or(0) as u8)
                })
                .collect();
            Shape { kind, sides, turns }
        })
        .collect()
}

/// The mapped volume of a unit at its smallest over `turns`, its sides mapped along axis `a`
/// as `m[a]`; 0 when no turn fits. `narrow` when every product fits 64 bits.
fn min_volume(m: [[i64; 3]; 3], turns: &[[u8; 3]], narrow: bool) -> i128 {
    let at = |t: &[u8; 3], a: usize| m[a][t[a] as usize];
    if narrow {
        let v = turns.iter().map(|t| at(t, 0) * at(t, 1) * at(t, 2)).min();
        v.map_or(0, i128::from)
    } else {
        let v = turns
            .iter()
            .map(|t| at(t, 0) as i128 * at(t, 1) as i128 * at(t, 2) as i128)
            .min();
        v.unwrap_or(0)
    }
}

/// Per kind, the mapped volume of one unit at its smallest over the turns that fit the box
/// (turns that do not fit are never used); 0 for kinds absent from the request. `side(i)` is
/// shape `i`'s sides mapped along each axis; a box maps to `unit`.
fn mapped_values(
    nkinds: usize,
    shapes: &[Shape],
    unit: i128,
    side: impl Fn(usize) -> [[i64; 3]; 3],
) -> Vec<i128> {
    // Mapped sides never exceed the box's, so no product exceeds `unit`.
    let narrow = unit <= i64::MAX as i128;
    let mut out = vec![0i128; nkinds];
    for (i, sh) in shapes.iter().enumerate() {
        out[sh.kind] = min_volume(side(i), &sh.turns, narrow);
    }
    out
}

/// The dual-feasible functions tried for boxes of `size`: per function, what one box holds
/// (its mapped volume) and the mapped volume of one unit of each kind (at its smallest over
/// the turns that fit; 0 for kinds absent from `units`). Empty when there are too many units.
pub(crate) fn functions(units: &[u32], kinds: &[Kind], size: V3) -> Vec<(i128, Vec<i128>)> {
    if units.len() > MAX_UNITS || size.iter().any(|&s| s <= 0) {
        return Vec::new();
    }
    let mut present = vec![false; kinds.len()];
    for &u in units {
        present[u as usize] = true;
    }
    let shapes = shapes(kinds, &present, size);
    let mut out = Vec::new();
    // Per shape, its sides mapped by `U^e` along each axis. Thresholds that map every side
    // alike give the same functions, so a mapping equal to the previous one is skipped; a
    // side's mapping changes once at most as the threshold grows, so equal mappings are
    // neighbours and each is weighed once.
    let mut last: Option<Vec<[[i64; 3]; 3]>> = None;
    for c in thresholds(units, kinds, size) {
        let e: [i64; 3] = [0, 1, 2].map(|a| (c as i128 * size[a] as i128 / 1000) as i64);
        let base: Vec<[[i64; 3]; 3]> = shapes
            .iter()
            .map(|sh| [0, 1, 2].map(|a| sh.sides.map(|d| dff_u(d, size[a], e[a]))))
            .collect();
        if last.as_ref() == Some(&base) {
            continue;
        }
        for k in 0..=MAX_K {
            let scale = |a: usize| size[a] as i128 * k.max(1) as i128;
            let unit: i128 = (0..3).map(scale).product();
            let values = if k == 0 {
                mapped_values(kinds.len(), &shapes, unit, |i| base[i])
            } else {
                mapped_values(kinds.len(), &shapes, unit, |i| {
                    let b = base[i];
                    [0, 1, 2].map(|a| b[a].map(|v| dff_k(v, size[a], k)))
                })
            };
            out.push((unit, values));
        }
        last = Some(base);
    }
    // `U^e` with its own threshold on each axis: a box's units still map into the box, and
    // each unit counts its smallest value over its turns, so any mix of axes stays valid.
    let per: Vec<Vec<i64>> = (0..3)
        .map(|a| axis_thresholds(units, kinds, size, a))
        .collect();
    // Per axis and threshold, per shape, its sides mapped along that axis.
    let along: Vec<Vec<Vec<[i64; 3]>>> = (0..3)
        .map(|a| {
            per[a]
                .iter()
                .map(|&e| {
                    shapes
                        .iter()
                        .map(|sh| sh.sides.map(|d| dff_u(d, size[a], e)))
                        .collect()
                })
                .collect()
        })
        .collect();
    let unit: i128 = size.iter().map(|&s| s as i128).product();
    for ix in 0..per[0].len() {
        for iy in 0..per[1].len() {
            for iz in 0..per[2].len() {
                let at = [ix, iy, iz];
                let side = |i: usize| [0, 1, 2].map(|a| along[a][at[a]][i]);
                out.push((unit, mapped_values(kinds.len(), &shapes, unit, side)));
            }
        }
    }
    out
}

/// The best bound over `U^e` and `u^(k)` after `U^e` for boxes of `size`; 0 when there are too
/// many units to bother.
pub(crate) fn dff(units: &[u32], kinds: &[Kind], size: V3) -> usize {
    let mut count = vec![0i128; kinds.len()];
    for &u in units {
        count[u as usize] += 1;
    }
    functions(units, kinds, size)
        .iter()
        .map(|(unit, values)| {
            let sum: i128 = values.iter().zip(&count).map(|(v, c)| v * c).sum();
            (sum + unit - 1) / unit
        })
        .max()
        .unwrap_or(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;

    fn kind(dims: V3, rule: Orientation) -> Kind {
        Kind::plain(dims, rule, 1)
    }

    #[test]
    fn each_axis_takes_its_own_threshold() {
        // Upright units of 20 x 20 x 21 in boxes of 48 x 32 x 36 go two to a box: over half
        // the height and over half the length either way round, 20 or 21 of the 48 across.
        // One threshold for all three axes cannot see that (at most 5 here); one per axis
        // gives 9 of the 10 boxes needed.
        let unit = [kind([20, 20, 21], Orientation::Upright)];
        let b = dff(&[0; 20], &unit, [48, 32, 36]);
        assert!((9..=10).contains(&b), "{b}");
    }

    #[test]
    fn never_above_what_a_packing_needs() {
        use crate::construct::{build, Effort};
        use crate::model::Goal;
        use crate::placement::{Ctx, Merit};
        use crate::problem::{BoxKind, Rules};
        use crate::rng::SplitMix64;
        // Random units, each order packed by the constructive packer: no valid bound exceeds
        // the boxes a real packing uses.
        let mut rng = SplitMix64::new(7);
        let rules = Rules::full_support();
        for _ in 0..150 {
            let size = [rng.range(10, 30), rng.range(10, 30), rng.range(10, 30)];
            let kinds: Vec<Kind> = (0..1 + rng.below(4))
                .map(|_| {
                    let d = [0, 1, 2].map(|a| rng.range(2, size[a]));
                    let rule = [Orientation::Any, Orientation::Upright][rng.below(2)];
                    kind(d, rule)
                })
                .collect();
            let units: Vec<u32> = (0..4 + rng.below(20))
                .map(|_| rng.below(kinds.len()) as u32)
                .collect();
            let bk = BoxKind::test_box(size);
            let ctx = Ctx::new(&kinds, &rules);
            let effort = Effort {
                tries: 5,
                restarts: 4,
                seed: 1,
            };
            let (bins, rest) = build(
                &units,
                &[bk],
                &mut [None],
                &ctx,
                Goal::FewestPackages,
                Merit::ContactTall,
                effort,
            );
            assert!(rest.is_empty());
            let b = dff(&units, &kinds, size);
            assert!(b <= bins.len(), "bound {b} above {} boxes", bins.len());
        }
    }

    #[test]
    fn counts_what_fits_along_each_axis() {
        // Nine cubes of 34 in boxes of 100: two fit along each axis, so eight per box.
        let cube = [kind([34, 34, 34], Orientation::Any)];
        assert_eq!(dff(&[0; 9], &cube, [100, 100, 100]), 2);
        assert_eq!(dff(&[0; 8], &cube, [100, 100, 100]), 1);
        // Units over half the box along every axis: one per box, whichever turns fit (lying
        // down is the only one here), though their volume is a seventh of a box.
        for rule in [Orientation::Fixed, Orientation::Any] {
            let slab = [kind([51, 26, 51], rule)];
            assert_eq!(dff(&[0; 3], &slab, [100, 50, 100]), 3, "{rule:?}");
        }
    }

    #[test]
    fn equal_threshold_mappings_come_one_after_another() {
        // `functions` skips a mapping equal to the previous threshold's; that weighs each
        // mapping once only if a mapping never comes back after a change.
        use crate::rng::SplitMix64;
        let mut rng = SplitMix64::new(11);
        for _ in 0..200 {
            let size = [0; 3].map(|_| rng.range(10, 60));
            let kinds: Vec<Kind> = (0..1 + rng.below(5))
                .map(|_| kind([0, 1, 2].map(|a| rng.range(1, size[a])), Orientation::Any))
                .collect();
            let units: Vec<u32> = (0..kinds.len() as u32).collect();
            let present = vec![true; kinds.len()];
            let shapes = shapes(&kinds, &present, size);
            let runs: Vec<Vec<[[i64; 3]; 3]>> = thresholds(&units, &kinds, size)
                .into_iter()
                .map(|c| {
                    let e = [0, 1, 2].map(|a| (c as i128 * size[a] as i128 / 1000) as i64);
                    let map =
                        |sh: &Shape| [0, 1, 2].map(|a| sh.sides.map(|d| dff_u(d, size[a], e[a])));
                    shapes.iter().map(map).collect()
                })
                .collect();
            for (i, m) in runs.iter().enumerate() {
                let back = runs[i + 1..].iter().skip_while(|n| *n == m).any(|n| n == m);
                assert!(!back, "{size:?}: mapping {i} comes back after a change");
            }
        }
    }
}
