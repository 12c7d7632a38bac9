//! One box packed around a level platform: units of the box that share a side value H stand
//! side by side (thinnest across x, H upright) so their tops form one level floor at H, a thin
//! plate lies on it (more nested on that one) with its whole base resting, and the
//! extreme-point fill places the rest. Used by the eviction move for a receiving box.

use crate::construct::{fill, held_in_order, Order};
use crate::geometry::V3;
use crate::placement::{Bin, Ctx, Merit};
use crate::problem::BoxKind;

/// Lying units weighed per platform height (largest first).
const LYING: usize = 4;
/// Standing units weighed per platform (a bitmask holds them).
const STANDING: usize = 48;
/// Platforms (of most volume, one per height) whose boxes are filled.
const PLANS: usize = 2;

/// Steps of the thickness knapsack at most.
const CELLS: i64 = 256;

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn sorted(v: V3) -> V3 {
    let mut s = v;
    s.sort_unstable();
    s
}

/// Whether unit `k` is a plate for box kind `bk`: its thinnest side under half the box's
/// shortest side, its middle side over two thirds of it (the units a platform is for).
pub(crate) fn plate(k: u32, bk: &BoxKind, ctx: &Ctx) -> bool {
    let side = sorted(bk.size)[0];
    let d = sorted(ctx.kinds[k as usize].turns[0].dim);
    2 * d[0] < side && 3 * d[1] > 2 * side
}

/// A unit in a platform or lying on one: its index in the order, its turn and that turn's
/// sides.
#[derive(Clone, Copy)]
struct Part {
    at: usize,
    turn: u8,
    dim: V3,
}

/// A platform and what lies on it, before the fill.
struct Plan {
    value: i128,
    stand: Vec<Part>,
    lie: Vec<Part>,
}

/// The turn of unit `k` standing `h` high, thinner side across x, inside the box.
fn standing(k: u32, h: i64, size: V3, ctx: &Ctx) -> Option<(u8, V3)> {
    let kind = &ctx.kinds[k as usize];
    if kind.fragile || kind.no_load {
        return None;
    }
    let ok = |d: V3| d[1] == h && d[0] <= size[0] && d[2] <= size[2];
    let pick = |narrow: bool| {
        kind.turns
            .iter()
            .enumerate()
            .find(|(_, t)| ok(t.dim) && (t.dim[0] <= t.dim[2]) == narrow)
    };
    pick(true)
        .or_else(|| pick(false))
        .map(|(i, t)| (i as u8, t.dim))
}

/// The turn of unit `k` lying on its thinnest side with a footprint inside `(fx, fz)`, the
/// larger footprint first; `None` when it does not fit or is taller than `room`.
fn lying(k: u32, fx: i64, fz: i64, room: i64, ctx: &Ctx) -> Option<(u8, V3)> {
    let kind = &ctx.kinds[k as usize];
    let thin = sorted(kind.turns[0].dim)[0];
    if thin > room {
        return None;
    }
    kind.turns
        .iter()
        .enumerate()
        .find(|(_, t)| t.dim[1] == thin && t.dim[0] <= fx && t.dim[2] <= fz)
        .map(|(i, t)| (i as u8, t.dim))
}

/// The best platform at height `h` from the units of `order`: the lying unit and the
/// standing set (each at least as deep as the lying unit's footprint, together at least as
/// wide and at most the box wide) of most volume, standing, lying and nested on it.
fn plan_at(h: i64, order: &[u32], size: V3, ctx: &Ctx) -> Option<Plan> {
    let room = size[1] - h;
    let group: Vec<Part> = order
        .iter()
        .enumerate()
        .filter_map(|(i, &k)| {
            standing(k, h, size, ctx).map(|(turn, dim)| Part { at: i, turn, dim })
        })
        .take(STANDING)
        .collect();
    // A platform narrower than half the box carries no plate lying flat.
    if 2 * group.iter().map(|g| g.dim[0]).sum::<i64>() < size[0] {
        return None;
    }
    let mut best: Option<Plan> = None;
    let lyers = order
        .iter()
        .enumerate()
        .filter(|&(_, &k)| sorted(ctx.kinds[k as usize].turns[0].dim)[0] <= room)
        .take(LYING);
    for (li, &lk) in lyers {
        let kind = &ctx.kinds[lk as usize];
        let thin = sorted(kind.turns[0].dim)[0];
        for (turn, t) in kind.turns.iter().enumerate() {
            let [fx, fy, fz] = t.dim;
            if fy != thin || fx > size[0] || fz > size[2] {
                continue;
            }
            // Most volume per total thickness: dp[s] = (volume, mask, width) over the group,
            // thicknesses in steps of their common divisor (rounded up past `CELLS` steps).
            let step = group
                .iter()
                .fold(size[0], |g, p| gcd(g, p.dim[0]))
                .max((size[0] + CELLS - 1) / CELLS);
            let cells = (size[0] / step) as usize;
            let mut dp: Vec<Option<(i128, u64, i64)>> = vec![None; cells + 1];
            dp[0] = Some((0, 0, 0));
            for (j, g) in group.iter().enumerate() {
                if g.at == li || g.dim[2] < fz {
                    continue;
                }
                let w = ((g.dim[0] + step - 1) / step) as usize;
                let v = ctx.kinds[order[g.at] as usize].volume;
                for s in (w..=cells).rev() {
                    if let Some((pv, pm, pw)) = dp[s - w] {
                        if dp[s].is_none_or(|(cv, _, _)| pv + v > cv) {
                            dp[s] = Some((pv + v, pm | 1 << j, pw + g.dim[0]));
                        }
                    }
                }
            }
            ctx.spend((group.len() * cells / 16) as u64);
            let Some((sv, mask, _)) = dp
                .iter()
                .flatten()
                .copied()
                .filter(|&(_, _, w)| w >= fx)
                .max_by_key(|&(v, m, _)| (v, std::cmp::Reverse(m)))
            else {
                continue;
            };
            let value = sv + kind.volume;
            if best.as_ref().is_some_and(|b| b.value >= value) {
                continue;
            }
            let stand: Vec<Part> = (0..group.len())
                .filter(|&j| mask >> j & 1 == 1)
                .map(|j| group[j])
                .collect();
            best = Some(Plan {
                value,
                stand,
                lie: vec![Part {
                    at: li,
                    turn: turn as u8,
                    dim: t.dim,
                }],
            });
        }
    }
    let mut plan = best?;
    // Nested on the lying unit, largest first, while the height lasts.
    let mut top = plan.lie[0].dim;
    let mut left = room - top[1];
    for (i, &k) in order.iter().enumerate() {
        if i == plan.lie[0].at || plan.stand.iter().any(|s| s.at == i) {
            continue;
        }
        if let Some((turn, dim)) = lying(k, top[0], top[2], left, ctx) {
            plan.lie.push(Part { at: i, turn, dim });
            plan.value += ctx.kinds[k as usize].volume;
            left -= dim[1];
            top = dim;
        }
    }
    Some(plan)
}

/// Places `plan` into a new box and fills the rest of `order` by `merit`; the box and the
/// indices placed, or `None` when a placement is refused.
fn build_plan(
    plan: &Plan,
    b: usize,
    bk: &BoxKind,
    order: &[u32],
    ctx: &Ctx,
    merit: Merit,
) -> Option<(Bin, Vec<usize>)> {
    let mut bin = Bin::new(b, bk.size, bk.cap);
    let mut used = vec![false; order.len()];
    let mut got = Vec::new();
    let mut put = |bin: &mut Bin, p: &Part, pos: V3| {
        if !bin.put_turn_at(order[p.at], p.turn, pos, ctx) {
            return false;
        }
        used[p.at] = true;
        got.push(p.at);
        true
    };
    let mut x = 0;
    for p in &plan.stand {
        if !put(&mut bin, p, [x, 0, 0]) {
            return None;
        }
        x += p.dim[0];
    }
    let mut y = plan.stand[0].dim[1];
    for p in &plan.lie {
        if !put(&mut bin, p, [0, y, 0]) {
            return None;
        }
        y += p.dim[1];
    }
    got.extend(fill(&mut bin, order, &used, ctx, merit));
    Some((bin, got))
}

/// Packs exactly `units` into one box of kind `bk` around a platform of some height among
/// them, the best plans first; `None` when every try leaves a unit out.
pub(crate) fn repack(units: &[u32], b: usize, bk: &BoxKind, ctx: &Ctx) -> Option<Bin> {
    let order = held_in_order(units, bk, ctx, Order::Volume)?;
    let mut hs: Vec<i64> = order
        .iter()
        .flat_map(|&k| ctx.kinds[k as usize].turns[0].dim)
        .filter(|&s| s < bk.size[1])
        .collect();
    hs.sort_unstable();
    hs.dedup();
    let mut plans: Vec<Plan> = hs
        .iter()
        .filter_map(|&h| plan_at(h, &order, bk.size, ctx))
        .filter(|p| p.stand.len() + p.lie.len() >= 2)
        .collect();
    plans.sort_by_key(|p| std::cmp::Reverse(p.value));
    for plan in plans.iter().take(PLANS) {
        for merit in [Merit::ContactTall, Merit::Spaces] {
            if let Some((bin, got)) = build_plan(plan, b, bk, &order, ctx, merit) {
                if got.len() == order.len() {
                    return Some(bin);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    #[test]
    fn two_plates_of_one_height_carry_a_thin_plate_lying_flat() {
        // Two plates 70 high side by side make a level 80 x 90 top for a plate of 30.
        let kinds = vec![
            Kind::plain([40, 70, 90], Orientation::Any, 1),
            Kind::plain([90, 40, 70], Orientation::Any, 1),
            Kind::plain([80, 30, 90], Orientation::Any, 1),
        ];
        let rules = Rules::full_support();
        let ctx = Ctx::new(&kinds, &rules);
        let bk = BoxKind::test_box([100; 3]);
        let bin = repack(&[2, 1, 0], 0, &bk, &ctx).expect("the platform carries the plate");
        assert_eq!(bin.placed.len(), 3);
        let flat = bin.placed.iter().find(|p| p.kind == 2).unwrap();
        assert_eq!((flat.c.pos[1], flat.c.dim[1]), (70, 30));
        for p in &bin.placed {
            assert!((0..3).all(|a| p.c.pos[a] >= 0 && p.c.end(a) <= 100));
        }
    }
}
