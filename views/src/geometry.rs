//! Pairwise relations of axis-aligned units: shared footprint, "rests on", which of two units
//! is lower, and the tolerances of a box they are judged with.

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

/// Unit extents and a fixed tolerance for the tests of the geometry and the painting order.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Extent, Tol};
    use crate::model::Unit;

    /// The extent of an anonymous unit at `p` with extents `d`.
    pub fn unit(p: [f64; 3], d: [f64; 3]) -> Extent {
        Unit::new("", p, d).extent()
    }

    /// A box of scale about 10: `eps` well below and `contact` the engine's 1/1000.
    pub const T: Tol = Tol {
        eps: 1e-6,
        contact: 1e-3,
    };
}

#[cfg(test)]
mod tests {
    use super::fixtures::{unit, T};
    use super::*;

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
}
