//! Instances with a known optimum, shaped like MPV classes 1-3: `k` bins of side 100 are each
//! cut into plates (shortest side 1-50, the others 67-100) and, in one bin of ten, a big unit,
//! so that the units fill the bins exactly with every base fully supported; the optimum is `k`
//! packages. Shared by the examples that measure the search against it.

use packing::mpv::{self, Lrand48};

/// Strips of thickness 1-50 that add up to `total`.
fn strips(r: &mut Lrand48, total: i64) -> Vec<i64> {
    let mut left = total;
    let mut out = Vec::new();
    while left > 50 {
        let t = r.rint(1, 50);
        out.push(t);
        left -= t;
    }
    if left > 0 {
        out.push(left);
    }
    out
}

/// One bin cut into plates: standing plates of height `h` side by side across `[0, l]`, one
/// standing plate in the strip `[l, 100]`, and the layer above `h` a flat plate (cut once more
/// in half the bins, leaving a small slab). Every piece above the floor rests on tops at `h`.
fn plate_bin(r: &mut Lrand48, out: &mut Vec<[i64; 3]>) {
    let (h, l) = (r.rint(67, 100), r.rint(67, 100));
    for t in strips(r, 100) {
        out.push([t, l, h]);
    }
    if l < 100 {
        out.push([100 - l, 100, h]);
    }
    if h < 100 {
        let cut = r.rint(67, 100);
        if r.rint(0, 1) == 0 || cut == 100 {
            out.push([100, 100, 100 - h]);
        } else {
            out.push([cut, 100, 100 - h]);
            out.push([100 - cut, 100, 100 - h]);
        }
    }
}

/// One bin around a big unit `w x d x h` (67-95) in a corner: a flat plate on its top, a
/// standing plate beside it along each of the two other sides.
fn big_bin(r: &mut Lrand48, out: &mut Vec<[i64; 3]>) {
    let (w, d, h) = (r.rint(67, 95), r.rint(67, 95), r.rint(67, 95));
    out.push([w, d, h]);
    out.push([w, d, 100 - h]);
    out.push([100 - w, 100, 100]);
    out.push([w, 100 - d, 100]);
}

/// `bins` bins cut into units, shuffled and turned: the optimum packs them in `bins` packages.
pub fn instance(bins: usize, seed: u32) -> mpv::Instance {
    let mut r = Lrand48::new(seed);
    let mut items = Vec::new();
    for b in 0..bins {
        if b % 10 == 9 {
            big_bin(&mut r, &mut items);
        } else {
            plate_bin(&mut r, &mut items);
        }
    }
    // Shuffle and turn every unit, so that nothing of the cut is left in the order.
    for i in (1..items.len()).rev() {
        let j = r.rint(0, i as i64) as usize;
        items.swap(i, j);
        let k = r.rint(0, 2) as usize;
        items[i].swap(0, k);
    }
    mpv::Instance {
        class: 0,
        n: items.len(),
        index: seed,
        bin: 100,
        items,
    }
}
