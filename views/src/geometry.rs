//! Pairwise relations of axis-aligned units used by the loading order and the diagrams: shared
//! footprint, "rests on", which of two units is lower, and which is behind in the isometric view.

use crate::model::{Extent, PackedBox};

/// Length of the overlap of two ranges (0 when apart).
pub(crate) fn shared(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.1.min(b.1) - a.0.max(b.0)).max(0.0)
}

/// Tolerances of one box: `eps` separates a real overlap from rounding noise; `contact` is how
/// far above a unit's top another may sit and still rest on it (the engine rounds sizes up to
/// 1/1000 of the unit, see `packing::CONTACT_TOLERANCE`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tol {
    pub eps: f64,
    pub contact: f64,
}

impl Tol {
    pub fn of(b: &PackedBox) -> Tol {
        let eps = 1e-7 * (1.0 + b.scale());
        Tol {
            eps,
            contact: packing::CONTACT_TOLERANCE + eps,
        }
    }
}

/// Whether the footprints (x/z) of two units overlap with positive area.
pub(crate) fn footprints_overlap(a: &Extent, b: &Extent, t: Tol) -> bool {
    shared(a[0], b[0]) > t.eps && shared(a[2], b[2]) > t.eps
}

/// Whether `upper`'s base touches the top face of `lower` with positive overlap area.
pub(crate) fn rests_on(upper: &Extent, lower: &Extent, t: Tol) -> bool {
    footprints_overlap(upper, lower, t) && (upper[1].0 - lower[1].1).abs() <= t.contact
}

/// For two units whose footprints overlap, whether `a` is below `b`. Units do not overlap, so
/// they are apart vertically and comparing centres is exact and free of tolerances.
pub(crate) fn below(a: &Extent, b: &Extent) -> bool {
    let (a0, a1) = a[1];
    let (b0, b1) = b[1];
    a0 + a1 < b0 + b1
}

/// The isometric view looks from the front right, above: from `+x`, `+y` and `-z`. A unit is
/// farther from the viewer along x when its x is smaller, along y when lower, along z when its
/// z is larger. Returns `Some(true)` when `a` is behind `b` (so `a` must be drawn first),
/// `Some(false)` when `b` is behind `a`, `None` when their pictures do not overlap (any order).
///
/// Two disjoint axis-aligned boxes are apart along at least one axis; when their pictures
/// overlap, every such axis gives the same answer (two axes giving opposite answers would make
/// the pictures apart along the matching screen direction), so the first one found decides.
pub(crate) fn behind(a: &Extent, b: &Extent, t: Tol) -> Option<bool> {
    if !pictures_overlap(a, b, t) {
        return None;
    }
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
pub(crate) fn pictures_overlap(a: &Extent, b: &Extent, t: Tol) -> bool {
    let r = |e: &Extent| {
        let [x, y, z] = *e;
        [
            (x.0 + z.0, x.1 + z.1),
            (x.0 - y.1, x.1 - y.0),
            (y.0 + z.0, y.1 + z.1),
        ]
    };
    let (ra, rb) = (r(a), r(b));
    (0..3).all(|k| shared(ra[k], rb[k]) > t.eps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Point, Size, Unit};

    fn unit(p: [f64; 3], d: [f64; 3]) -> Extent {
        Unit {
            position: Point {
                x: p[0],
                y: p[1],
                z: p[2],
            },
            dimensions: Size {
                width: d[0],
                height: d[1],
                length: d[2],
            },
            ..Unit::default()
        }
        .extent()
    }

    const T: Tol = Tol {
        eps: 1e-6,
        contact: 1e-3,
    };

    #[test]
    fn rests_on_needs_touching_and_shared_area() {
        let floor = unit([0.0, 0.0, 0.0], [2.0, 1.0, 2.0]);
        let on = unit([1.0, 1.0005, 1.0], [2.0, 1.0, 2.0]);
        let edge = unit([2.0, 1.0, 0.0], [2.0, 1.0, 2.0]);
        let high = unit([0.0, 1.5, 0.0], [2.0, 1.0, 2.0]);
        assert!(rests_on(&on, &floor, T));
        assert!(!rests_on(&edge, &floor, T), "touching along an edge only");
        assert!(!rests_on(&high, &floor, T), "a gap");
        assert!(!rests_on(&floor, &on, T), "upside down");
        assert!(below(&floor, &high) && !below(&high, &floor));
    }

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
}
