//! Allowed orientations of an item, computed from its own dimensions and its own rule. They are
//! never cached by sorted dimensions: that is the BoxPacker bug, where two items with the same
//! sorted dimensions but different "this side up" rules shared one orientation list.

use crate::geometry::V3;
use crate::model::Orientation;

/// One way to place an item: `perm[a]` is the index into the item's `(width, height, length)`
/// that lies along box axis `a` (x, y, z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Turn {
    pub dim: V3,
    pub perm: [u8; 3],
}

impl Turn {
    /// Applies the turn to any triple given as `(width, height, length)`.
    pub fn apply<T: Copy>(&self, whl: [T; 3]) -> [T; 3] {
        [
            whl[self.perm[0] as usize],
            whl[self.perm[1] as usize],
            whl[self.perm[2] as usize],
        ]
    }
}

/// Identity first, then the quarter turn about the vertical axis, then the turns that tip the
/// item over. Earlier entries win ties, so an item is only turned when it helps.
const ALL: [[u8; 3]; 6] = [
    [0, 1, 2],
    [2, 1, 0],
    [0, 2, 1],
    [2, 0, 1],
    [1, 0, 2],
    [1, 2, 0],
];

/// The distinct turns allowed by `rule` for an item of extents `whl` (width, height, length).
/// Turns giving the same extents as an earlier one are dropped: a cube has one turn.
pub(crate) fn turns(whl: V3, rule: Orientation) -> Vec<Turn> {
    let count = match rule {
        Orientation::Any => 6,
        Orientation::Upright => 2,
        Orientation::Fixed => 1,
    };
    let mut out: Vec<Turn> = Vec::with_capacity(count);
    for perm in &ALL[..count] {
        let t = Turn {
            dim: [0, 0, 0],
            perm: *perm,
        };
        let t = Turn {
            dim: t.apply(whl),
            ..t
        };
        if !out.iter().any(|o| o.dim == t.dim) {
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_give_six_two_and_one_turns() {
        assert_eq!(turns([1, 2, 3], Orientation::Any).len(), 6);
        let up = turns([1, 2, 3], Orientation::Upright);
        assert_eq!(up.len(), 2);
        assert!(up.iter().all(|t| t.dim[1] == 2));
        assert_eq!(turns([1, 2, 3], Orientation::Fixed)[0].dim, [1, 2, 3]);
    }

    #[test]
    fn equal_extents_collapse() {
        assert_eq!(turns([2, 2, 2], Orientation::Any).len(), 1);
        assert_eq!(turns([2, 3, 2], Orientation::Upright).len(), 1);
        assert_eq!(turns([2, 2, 3], Orientation::Any).len(), 3);
    }

    #[test]
    fn same_sorted_dimensions_keep_their_own_rules() {
        let free = turns([3, 1, 2], Orientation::Any);
        let upright = turns([1, 3, 2], Orientation::Upright);
        assert_eq!(free.len(), 6);
        assert!(upright.iter().all(|t| t.dim[1] == 3));
    }
}
