//! Fixed-point geometry of the packer: lengths in 1/1000 and weights in 1/1,000,000 of the
//! request's units, so that overlap, contact and support tests are exact integer comparisons.

/// Length quanta per request unit.
pub(crate) const LEN_SCALE: f64 = 1000.0;
/// Weight quanta per request unit.
pub(crate) const WEIGHT_SCALE: f64 = 1_000_000.0;

/// Axis-aligned vector: `[x (width), y (height, vertical), z (length)]`.
pub(crate) type V3 = [i64; 3];

/// Quantises `v`, snapping values within float noise of a quantum (12.7 * 1000 is not exactly
/// 12700; the noise is far below a millionth of a quantum) and otherwise rounding in the safe
/// direction given by `up`.
fn quantise(v: f64, scale: f64, up: bool) -> i64 {
    let s = v * scale;
    let r = s.round();
    if (s - r).abs() <= 1e-6 + 1e-12 * s.abs() {
        r as i64
    } else if up {
        s.ceil() as i64
    } else {
        s.floor() as i64
    }
}

/// An item length: rounded up, so a unit never takes less room than it really needs.
pub(crate) fn len_up(v: f64) -> i64 {
    quantise(v, LEN_SCALE, true)
}

/// A box length: rounded down, so the box never offers more room than it has.
pub(crate) fn len_down(v: f64) -> i64 {
    quantise(v, LEN_SCALE, false)
}

/// An item weight: rounded up.
pub(crate) fn weight_up(v: f64) -> i64 {
    quantise(v, WEIGHT_SCALE, true)
}

/// A weight limit: rounded down.
pub(crate) fn weight_down(v: f64) -> i64 {
    quantise(v, WEIGHT_SCALE, false)
}

/// Back to request units.
pub(crate) fn len_f64(v: i64) -> f64 {
    v as f64 / LEN_SCALE
}

pub(crate) fn volume(d: V3) -> i128 {
    d[0] as i128 * d[1] as i128 * d[2] as i128
}

/// Length of the overlap of `[a0, a1)` and `[b0, b1)`, 0 when disjoint.
#[inline]
pub(crate) fn overlap(a0: i64, a1: i64, b0: i64, b1: i64) -> i64 {
    (a1.min(b1) - a0.max(b0)).max(0)
}

/// A placed cuboid: lowest corner and extents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cuboid {
    pub pos: V3,
    pub dim: V3,
}

impl Cuboid {
    #[inline]
    pub fn end(&self, axis: usize) -> i64 {
        self.pos[axis] + self.dim[axis]
    }

    /// Interiors intersect (touching faces do not count).
    #[inline]
    pub fn intersects(&self, o: &Cuboid) -> bool {
        (0..3).all(|a| self.pos[a] < o.end(a) && o.pos[a] < self.end(a))
    }

    /// Area shared by the two footprints on the floor plane (x, z).
    #[inline]
    pub fn footprint_overlap(&self, o: &Cuboid) -> i64 {
        overlap(self.pos[0], self.end(0), o.pos[0], o.end(0))
            * overlap(self.pos[2], self.end(2), o.pos[2], o.end(2))
    }

    /// Whether `p` lies in the cuboid, half-open on every axis.
    #[inline]
    pub fn contains(&self, p: V3) -> bool {
        (0..3).all(|a| self.pos[a] <= p[a] && p[a] < self.end(a))
    }

    /// Area of the faces the two cuboids share (zero unless they touch).
    pub fn contact_area(&self, o: &Cuboid) -> i64 {
        let mut area = 0;
        for a in 0..3 {
            if self.end(a) == o.pos[a] || o.end(a) == self.pos[a] {
                let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                area += overlap(self.pos[b], self.end(b), o.pos[b], o.end(b))
                    * overlap(self.pos[c], self.end(c), o.pos[c], o.end(c));
            }
        }
        area
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantising_snaps_float_noise_and_rounds_safely() {
        assert_eq!(len_up(12.7), 12_700);
        assert_eq!(len_down(12.7), 12_700);
        assert_eq!(len_up(1.00005), 1_001);
        assert_eq!(len_down(1.00095), 1_000);
        assert_eq!(len_up(16.067012210093758), 16_068);
        assert_eq!(weight_up(0.1 + 0.2), 300_000);
    }

    #[test]
    fn touching_cuboids_do_not_intersect_but_share_contact() {
        let a = Cuboid {
            pos: [0, 0, 0],
            dim: [2, 2, 2],
        };
        let b = Cuboid {
            pos: [2, 0, 1],
            dim: [2, 2, 2],
        };
        assert!(!a.intersects(&b));
        assert_eq!(a.contact_area(&b), 2);
        let c = Cuboid {
            pos: [1, 1, 1],
            dim: [2, 2, 2],
        };
        assert!(a.intersects(&c));
        assert_eq!(a.footprint_overlap(&c), 1);
    }
}
