//! Weight distribution of a package: centre of gravity, share of weight over each floor
//! quarter, a balance score, and the shift that brings a package's load over its floor centre.

use crate::placement::Bin;
use crate::problem::Kind;
use crate::solution::{Dimensions, PlacedItem, Point, WeightDistribution};

/// Unit weights used for balance: the real ones, or equal ones when all weigh nothing.
fn masses(items: &[PlacedItem]) -> Vec<f64> {
    if items.iter().all(|i| i.weight <= 0.0) {
        vec![1.0; items.len()]
    } else {
        items.iter().map(|i| i.weight.max(0.0)).collect()
    }
}

/// Centre of gravity, each unit's weight at its geometric centre; the box centre when empty.
pub fn center_of_gravity(items: &[PlacedItem], bx: Dimensions) -> Point {
    let m = masses(items);
    let total: f64 = m.iter().sum();
    if items.is_empty() || total <= 0.0 {
        return Point {
            x: bx.width / 2.0,
            y: bx.height / 2.0,
            z: bx.length / 2.0,
        };
    }
    let mut c = Point::default();
    for (it, w) in items.iter().zip(&m) {
        c.x += w * (it.position.x + it.dimensions.width / 2.0);
        c.y += w * (it.position.y + it.dimensions.height / 2.0);
        c.z += w * (it.position.z + it.dimensions.length / 2.0);
    }
    Point {
        x: c.x / total,
        y: c.y / total,
        z: c.z / total,
    }
}

fn span(a0: f64, a1: f64, b0: f64, b1: f64) -> f64 {
    (a1.min(b1) - a0.max(b0)).max(0.0)
}

/// Share of weight over each floor quarter, each unit's weight spread evenly over its
/// footprint, and the balance score `1 - sum(|share - 1/4|) / 1.5` (1.5 being the sum when one
/// quarter carries everything). An empty package is perfectly balanced.
pub fn weight_distribution(items: &[PlacedItem], bx: Dimensions) -> WeightDistribution {
    let m = masses(items);
    let total: f64 = m.iter().sum();
    let mut q = [0.0f64; 4];
    let (hx, hz) = (bx.width / 2.0, bx.length / 2.0);
    for (it, w) in items.iter().zip(&m) {
        let (x0, x1) = (it.position.x, it.position.x + it.dimensions.width);
        let (z0, z1) = (it.position.z, it.position.z + it.dimensions.length);
        let area = (x1 - x0) * (z1 - z0);
        if area <= 0.0 {
            continue;
        }
        let xs = [span(x0, x1, 0.0, hx), span(x0, x1, hx, bx.width)];
        let zs = [span(z0, z1, 0.0, hz), span(z0, z1, hz, bx.length)];
        for (zi, zl) in zs.iter().enumerate() {
            for (xi, xl) in xs.iter().enumerate() {
                q[zi * 2 + xi] += w * xl * zl / area;
            }
        }
    }
    if items.is_empty() || total <= 0.0 {
        q = [0.25; 4];
    } else {
        let s: f64 = q.iter().sum();
        q.iter_mut().for_each(|v| *v /= s);
    }
    let dev: f64 = q.iter().map(|v| (v - 0.25).abs()).sum();
    WeightDistribution {
        front_left: q[0],
        front_right: q[1],
        back_left: q[2],
        back_right: q[3],
        balance_score: (1.0 - dev / 1.5).clamp(0.0, 1.0),
    }
}

/// Moves the whole load of `bin` sideways so that its centre of gravity comes as close to the
/// floor centre as the walls allow. A rigid shift keeps every overlap, support and stacking
/// relation, so the packing stays valid.
pub(crate) fn center_load(bin: &mut Bin, kinds: &[Kind]) {
    if bin.placed.is_empty() {
        return;
    }
    let mut wsum = 0.0;
    let mut c = [0.0f64; 2];
    let (mut lo, mut hi) = ([i64::MAX; 2], [i64::MIN; 2]);
    let all_zero = bin
        .placed
        .iter()
        .all(|p| kinds[p.kind as usize].weight == 0);
    for p in &bin.placed {
        let w = if all_zero {
            1.0
        } else {
            kinds[p.kind as usize].weight as f64
        };
        for (i, a) in [0usize, 2].into_iter().enumerate() {
            c[i] += w * (p.c.pos[a] as f64 + p.c.dim[a] as f64 / 2.0);
            lo[i] = lo[i].min(p.c.pos[a]);
            hi[i] = hi[i].max(p.c.end(a));
        }
        wsum += w;
    }
    let mut shift = [0i64; 3];
    for (i, a) in [0usize, 2].into_iter().enumerate() {
        let want = (bin.size[a] as f64 / 2.0 - c[i] / wsum).round() as i64;
        shift[a] = want.clamp(-lo[i], bin.size[a] - hi[i]);
    }
    bin.shift(shift);
}
