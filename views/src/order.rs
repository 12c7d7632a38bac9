//! The loading order of a packed box: numbered steps a person can follow by lowering units in
//! from the top, each after everything it rests on and before anything above it.

use crate::geometry::{below, footprints_overlap, rests_on, shared, Tol};
use crate::model::{Extent, Orientation, PackedBox, Point, Size, Unit};
use serde::Serialize;
use std::cmp::Ordering;

/// One step of the loading order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// 1-based.
    pub step: usize,
    pub sku: String,
    pub name: String,
    /// Lowest corner, in box coordinates (see the crate's conventions).
    pub position: Point,
    /// Extents as placed.
    pub dimensions: Size,
    /// Whether the placed extents differ from the item's own (width, height, length).
    pub rotated: bool,
    /// The item's turn rule; `upright` and `fixed` mean "this side up".
    pub orientation: Orientation,
    pub fragile: bool,
    pub hazmat_class: Option<String>,
    /// Steps of the units whose top face this unit's base touches (positive shared area),
    /// ascending; empty for a unit on the floor.
    pub rests_on: Vec<usize>,
    /// Index of the unit in [`PackedBox::units`].
    #[serde(skip)]
    pub unit: usize,
}

impl Step {
    /// The unit this step places.
    pub(crate) fn to_unit(&self) -> Unit {
        Unit {
            sku: self.sku.clone(),
            name: self.name.clone(),
            position: self.position,
            dimensions: self.dimensions,
            rotated: self.rotated,
            orientation: self.orientation,
            fragile: self.fragile,
            hazmat_class: self.hazmat_class.clone(),
        }
    }
}

/// The loading order of `bx`, one step per unit.
///
/// Rules: a unit comes after every unit whose footprint it overlaps (positive area) and that
/// lies lower (this covers every unit it rests on), so no earlier unit ever lies above a later
/// one. Among the orders keeping that, the order prefers, in this rank: layers from the bottom
/// (lowest base first), then a run of the SKU just placed while it continues along the same row
/// (its z range overlaps the previous unit's), then back to front (back face farthest from the
/// front first), then the SKU just placed, then left to right; ties go to the input order.
pub fn loading_order(bx: &PackedBox) -> Vec<Step> {
    let units = &bx.units;
    let n = units.len();
    let t = Tol::of(bx);
    let ext: Vec<Extent> = units.iter().map(|u| u.extent()).collect();
    // SKUs as small integers, for cheap comparisons.
    let mut names: Vec<&str> = Vec::new();
    let sku: Vec<usize> = units
        .iter()
        .map(|u| match names.iter().position(|s| *s == u.sku) {
            Some(k) => k,
            None => {
                names.push(&u.sku);
                names.len() - 1
            }
        })
        .collect();
    // waiting[j]: how many units that must come before j are not placed yet.
    let mut waiting = vec![0usize; n];
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    // carriers[j]: units j rests on.
    let mut carriers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if footprints_overlap(&ext[i], &ext[j], t) {
                let (lo, hi) = if below(&ext[i], &ext[j]) {
                    (i, j)
                } else {
                    (j, i)
                };
                after[lo].push(hi);
                waiting[hi] += 1;
                if rests_on(&ext[hi], &ext[lo], t) {
                    carriers[hi].push(lo);
                }
            }
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order: Vec<usize> = Vec::with_capacity(n);
    while !ready.is_empty() {
        let last = order.last().map(|&i| (&ext[i], sku[i]));
        let key = |i: usize| (&ext[i], sku[i], i);
        let pick = (0..ready.len())
            .min_by(|&a, &b| prefer(key(ready[a]), key(ready[b]), last, t))
            .expect("ready is not empty");
        let u = ready.swap_remove(pick);
        order.push(u);
        for &h in &after[u] {
            waiting[h] -= 1;
            if waiting[h] == 0 {
                ready.push(h);
            }
        }
    }
    // The "lower first" relation has no cycle for units of positive height that do not
    // overlap; for bad input, whatever is left goes last in input order.
    if order.len() < n {
        let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
        order.extend((0..n).filter(|i| !placed.contains(i)));
    }
    let mut step_of = vec![0usize; n];
    for (k, &u) in order.iter().enumerate() {
        step_of[u] = k + 1;
    }
    order
        .iter()
        .enumerate()
        .map(|(k, &ui)| {
            let u = &units[ui];
            let mut rests: Vec<usize> = carriers[ui].iter().map(|&j| step_of[j]).collect();
            rests.sort_unstable();
            Step {
                step: k + 1,
                sku: u.sku.clone(),
                name: u.name.clone(),
                position: u.position,
                dimensions: u.dimensions,
                rotated: u.rotated,
                orientation: u.orientation,
                fragile: u.fragile,
                hazmat_class: u.hazmat_class.clone(),
                rests_on: rests,
                unit: ui,
            }
        })
        .collect()
}

/// A ready unit as `prefer` sees it: extent, SKU number, input index.
type Candidate<'a> = (&'a Extent, usize, usize);

/// Compares two ready units: `Less` when `a` should go next rather than `b`. `last` is the
/// extent and SKU of the unit placed last.
fn prefer(a: Candidate, b: Candidate, last: Option<(&Extent, usize)>, t: Tol) -> Ordering {
    let near = |x: f64, y: f64| (x - y).abs() <= t.contact;
    let cmp = |x: f64, y: f64| {
        if near(x, y) {
            Ordering::Equal
        } else {
            x.total_cmp(&y)
        }
    };
    let ((ea, sa, ia), (eb, sb, ib)) = (a, b);
    // Layers from the bottom.
    let layer = cmp(ea[1].0, eb[1].0);
    if layer != Ordering::Equal {
        return layer;
    }
    let same_sku = |s: usize| last.is_some_and(|(_, ls)| ls == s);
    let run = |e: &Extent, s: usize| {
        last.is_some_and(|(le, ls)| ls == s && near(le[1].0, e[1].0) && shared(le[2], e[2]) > t.eps)
    };
    // `true` sorts after `false`, so compare b to a to put the preferred one first.
    run(eb, sb)
        .cmp(&run(ea, sa))
        .then_with(|| cmp(eb[2].1, ea[2].1))
        .then_with(|| same_sku(sb).cmp(&same_sku(sa)))
        .then_with(|| cmp(ea[0].0, eb[0].0))
        .then_with(|| ia.cmp(&ib))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(units: Vec<Unit>) -> PackedBox {
        PackedBox {
            box_id: "b".into(),
            inner: Size {
                width: 4.0,
                height: 4.0,
                length: 4.0,
            },
            units,
        }
    }

    fn skus(steps: &[Step]) -> Vec<&str> {
        steps.iter().map(|s| s.sku.as_str()).collect()
    }

    #[test]
    fn a_unit_comes_after_what_it_rests_on_and_names_it() {
        // Listed top first: the order must still put the carrying unit first.
        let b = boxed(vec![
            Unit::new("top", [0.0, 1.0, 0.0], [2.0, 1.0, 2.0]),
            Unit::new("base", [0.0, 0.0, 0.0], [2.0, 1.0, 2.0]),
        ]);
        let s = loading_order(&b);
        assert_eq!(skus(&s), ["base", "top"]);
        assert_eq!(s[1].rests_on, vec![1]);
        assert!(s[0].rests_on.is_empty());
        assert_eq!((s[0].unit, s[1].unit), (1, 0));
    }

    #[test]
    fn floor_goes_back_to_front_then_up() {
        let b = boxed(vec![
            Unit::new("front", [0.0, 0.0, 0.0], [2.0, 1.0, 2.0]),
            Unit::new("on-back", [0.0, 1.0, 2.0], [2.0, 1.0, 2.0]),
            Unit::new("back", [0.0, 0.0, 2.0], [2.0, 1.0, 2.0]),
        ]);
        assert_eq!(skus(&loading_order(&b)), ["back", "front", "on-back"]);
    }

    #[test]
    fn a_row_of_one_sku_is_finished_before_the_next_sku() {
        // Row at the back: a, b, a (left to right); plain back-to-front-left-to-right would
        // interleave the SKUs; the run keeps the two a's together.
        let b = boxed(vec![
            Unit::new("a", [0.0, 0.0, 3.0], [1.0, 1.0, 1.0]),
            Unit::new("b", [1.0, 0.0, 3.0], [1.0, 1.0, 1.0]),
            Unit::new("a", [2.0, 0.0, 3.0], [1.0, 1.0, 1.0]),
        ]);
        assert_eq!(skus(&loading_order(&b)), ["a", "a", "b"]);
    }

    #[test]
    fn serializes_with_the_api_names() {
        let mut u = Unit::new("s", [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
        u.hazmat_class = Some("3".into());
        u.orientation = Orientation::Upright;
        let v = serde_json::to_value(loading_order(&boxed(vec![u]))).unwrap();
        let s = &v[0];
        assert_eq!(s["step"], 1);
        assert_eq!(s["hazmatClass"], "3");
        assert_eq!(s["orientation"], "upright");
        assert_eq!(s["restsOn"], serde_json::json!([]));
        assert_eq!(s["dimensions"]["length"], 1.0);
        assert!(s.get("unit").is_none());
    }

    #[test]
    fn bad_input_still_gives_every_unit_once() {
        // Overlapping units, a zero-height unit inside another, and a NaN: no panic, and each
        // unit gets exactly one step.
        let b = boxed(vec![
            Unit::new("a", [0.0, 0.0, 0.0], [2.0, 2.0, 2.0]),
            Unit::new("b", [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]),
            Unit::new("c", [0.5, 1.0, 0.5], [1.0, 0.0, 1.0]),
            Unit::new("d", [f64::NAN, 0.0, 0.0], [1.0, 1.0, 1.0]),
        ]);
        let s = loading_order(&b);
        let mut units: Vec<usize> = s.iter().map(|s| s.unit).collect();
        units.sort_unstable();
        assert_eq!(units, [0, 1, 2, 3]);
        assert_eq!(s.iter().map(|s| s.step).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert!(!crate::diagram(&b, &s, Some(2)).is_empty());
    }
}
