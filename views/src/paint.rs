//! Painting order of the isometric view: which of two units is behind the other, and a
//! back-to-front order of a whole box (a topological sort of "is behind"), so that nearer units
//! cover farther ones.

use crate::geometry::{shared, Tol};
use crate::model::Extent;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The isometric view looks from the front right, above: from `+x`, `+y` and `-z`. A unit is
/// farther from the viewer along x when its x is smaller, along y when lower, along z when its
/// z is larger. Returns `Some(true)` when `a` is behind `b` (so `a` must be drawn first),
/// `Some(false)` when `b` is behind `a`, `None` when their pictures do not overlap (any order).
///
/// Two disjoint axis-aligned boxes are apart along at least one axis; when their pictures
/// overlap, every such axis gives the same answer (two axes giving opposite answers would make
/// the pictures apart along the matching screen direction), so the first one found decides.
/// ([`paint_order`] computes this with the pictures worked out once.)
#[cfg(test)]
fn behind(a: &Extent, b: &Extent, t: Tol) -> Option<bool> {
    if !pictures_overlap(a, b, t) {
        return None;
    }
    apart(a, b, t)
}

/// [`behind`] for units whose pictures are known to overlap.
fn apart(a: &Extent, b: &Extent, t: Tol) -> Option<bool> {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    if ax.1 <= bx.0 + t.eps {
        Some(true)
    } else if bx.1 <= ax.0 + t.eps {
        Some(false)
    } else if ay.1 <= by.0 + t.eps {
        Some(true)
    } else if by.1 <= ay.0 + t.eps {
        Some(false)
    } else if az.0 >= bz.1 - t.eps {
        Some(true)
    } else if bz.0 >= az.1 - t.eps {
        Some(false)
    } else {
        // Overlapping units (bad input): no order is right; leave it to the tie-break.
        None
    }
}

/// Whether the isometric pictures (hexagons) of two units overlap with positive area. The
/// picture of an axis-aligned box is the zonotope spanned by the three projected axes, so two
/// pictures are apart exactly when they are apart along a normal of one of those axes; along
/// them a box covers the ranges of `x + z`, `x - y` and `y + z`.
#[cfg(test)]
fn pictures_overlap(a: &Extent, b: &Extent, t: Tol) -> bool {
    overlap(&picture(a), &picture(b), t)
}

/// Whether two pictures (see [`picture`]) overlap with positive area.
pub(crate) fn overlap(a: &Extent, b: &Extent, t: Tol) -> bool {
    (0..3).all(|k| shared(a[k], b[k]) > t.eps)
}

/// The ranges of `x + z`, `x - y` and `y + z` a unit's picture covers (see
/// [`pictures_overlap`]).
pub(crate) fn picture(e: &Extent) -> Extent {
    let [x, y, z] = *e;
    [
        (x.0 + z.0, x.1 + z.1),
        (x.0 - y.1, x.1 - y.0),
        (y.0 + z.0, y.1 + z.1),
    ]
}

/// Painting order, back to front: a topological order of "is behind" among units whose
/// pictures overlap; ties (and, for bad input, cycles) go to the farther-looking unit first.
pub(crate) fn paint_order(units: &[Extent], t: Tol) -> Vec<usize> {
    let n = units.len();
    let mut waiting = vec![0usize; n];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    let pictures: Vec<Extent> = units.iter().map(picture).collect();
    // Sweep along the screen's horizontal (`x + z`): only units whose ranges there overlap
    // can have overlapping pictures.
    let mut by_left: Vec<usize> = (0..n).collect();
    by_left.sort_by(|&a, &b| pictures[a][0].0.total_cmp(&pictures[b][0].0));
    for (a, &i) in by_left.iter().enumerate() {
        let pi = &pictures[i];
        for &j in &by_left[a + 1..] {
            let pj = &pictures[j];
            if pj[0].0 >= pi[0].1 - t.eps {
                break;
            }
            if shared(pi[1], pj[1]) <= t.eps || shared(pi[2], pj[2]) <= t.eps {
                continue;
            }
            match apart(&units[i], &units[j], t) {
                Some(true) => {
                    after[i].push(j);
                    waiting[j] += 1;
                }
                Some(false) => {
                    after[j].push(i);
                    waiting[i] += 1;
                }
                None => {}
            }
        }
    }
    // Nearness of the unit's centre to the viewer, in thousandths, as an integer key.
    let key = |i: usize| {
        let [x, y, z] = units[i];
        let c = (x.0 + x.1 + y.0 + y.1 - z.0 - z.1) / 2.0;
        ((c * 1000.0).round() as i64, i)
    };
    let mut heap: BinaryHeap<Reverse<(i64, usize)>> = (0..n)
        .filter(|&i| waiting[i] == 0)
        .map(|i| Reverse(key(i)))
        .collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let i = match heap.pop() {
            Some(Reverse((_, i))) => i,
            // A cycle: break it at the farthest unit left.
            None => (0..n)
                .filter(|&i| !done[i])
                .min_by_key(|&i| key(i))
                .unwrap_or(0),
        };
        if done[i] {
            continue;
        }
        done[i] = true;
        order.push(i);
        for &j in &after[i] {
            waiting[j] = waiting[j].saturating_sub(1);
            if waiting[j] == 0 && !done[j] {
                heap.push(Reverse(key(j)));
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::fixtures::{unit, T};

    #[test]
    fn behind_follows_the_view_from_front_right_above() {
        let a = unit([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
        // To the right of a: nearer (the viewer is at +x).
        assert_eq!(
            behind(&a, &unit([1.0, 0.0, 0.0], [1.0, 1.0, 1.0]), T),
            Some(true)
        );
        // Behind a (larger z): farther.
        assert_eq!(
            behind(&a, &unit([0.0, 0.0, 1.0], [1.0, 1.0, 1.0]), T),
            Some(false)
        );
        // On top of a: nearer.
        assert_eq!(
            behind(&a, &unit([0.0, 1.0, 0.0], [1.0, 1.0, 1.0]), T),
            Some(true)
        );
        // Right and behind: the pictures only touch, either order is right.
        assert_eq!(behind(&a, &unit([1.0, 0.0, 1.0], [1.0, 1.0, 1.0]), T), None);
    }

    #[test]
    fn a_cycle_of_three_is_broken_and_keeps_two_of_its_three_relations() {
        // Each is behind the next and the last behind the first: no order is right for all.
        let e = |x: (f64, f64), y: (f64, f64), z: (f64, f64)| [x, y, z];
        let units = [
            e((1.0, 7.0), (3.0, 6.0), (0.0, 3.0)),
            e((1.0, 4.0), (6.0, 12.0), (2.0, 6.0)),
            e((5.0, 13.0), (4.0, 10.0), (3.0, 9.0)),
        ];
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            assert_eq!(behind(&units[a], &units[b], T), Some(true));
        }
        let order = paint_order(&units, T);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2]);
        let pos = |u: usize| order.iter().position(|&o| o == u).unwrap();
        let kept = [(0, 1), (1, 2), (2, 0)]
            .iter()
            .filter(|&&(a, b)| pos(a) < pos(b))
            .count();
        assert_eq!(kept, 2);
    }
}
