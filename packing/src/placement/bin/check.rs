//! The exact test of one position in a box: inside it, overlapping no unit, resting on the
//! units below as the rules ask, and allowed on (and under) them; with the contact area the
//! contact merits weigh, and the key that ranks a box's feasible candidates.

use super::{Bin, Candidate};
use crate::geometry::{Cuboid, V3};
use crate::placement::{points, Ctx, Merit};
use crate::problem::Kind;

/// `v` in increasing order.
#[inline]
pub(super) fn sorted3(v: V3) -> V3 {
    let (a, b) = (v[0].min(v[1]), v[0].max(v[1]));
    let (b, c) = (b.min(v[2]), b.max(v[2]));
    [a.min(b), a.max(b), c]
}

/// Whether a unit of sorted sides `sides` fits `room` in some turn (every turn is the sides
/// in some order).
#[inline]
pub(super) fn fits_sorted(sides: V3, room: V3) -> bool {
    let room = sorted3(room);
    sides[0] <= room[0] && sides[1] <= room[1] && sides[2] <= room[2]
}

/// Whether `upper`, lying anywhere above `lower` with overlapping footprints, is allowed there.
fn may_carry(lower: &Kind, upper: &Kind, heavy_bottom: bool) -> bool {
    !lower.no_load
        && (!lower.fragile || upper.fragile)
        && (!heavy_bottom || upper.weight <= lower.weight)
}

impl Bin {
    /// The exact test of [`Bin::best`] for one cuboid inside the box, under `merit`, counting
    /// `work` plus the units near it.
    pub(super) fn exact(
        &self,
        c: &Cuboid,
        k: u32,
        ctx: &Ctx,
        merit: Merit,
        work: u64,
    ) -> Option<i128> {
        if (0..3).any(|a| c.pos[a] < 0 || c.end(a) > self.size[a]) {
            return None;
        }
        let from = self.near_start(c);
        let to = self.near_end(from, c);
        ctx.spend(work + (to - from) as u64);
        self.check(c, &self.by_x[from..to], &ctx.kinds[k as usize], ctx, merit)
    }

    /// Weighs every turn of kind `k` at `pt`, keeping the best candidate in `best`; returns
    /// the work done.
    pub(super) fn best_turn(
        &self,
        pt: &points::Point,
        k: u32,
        ctx: &Ctx,
        merit: Merit,
        best: &mut Option<Candidate>,
    ) -> u64 {
        let kind = &ctx.kinds[k as usize];
        let mut evaluated = kind.turns.len() as u64;
        let p = pt.at;
        // Every turn is the unit's sides in some order: none fits unless the sorted sides fit
        // in the sorted room (most positions in a filling box are too small).
        if !fits_sorted(sorted3(kind.turns[0].dim), pt.room) {
            return evaluated;
        }
        // Where the units near the point start in `by_x` does not depend on the turn.
        let mut start = None;
        for (t, turn) in kind.turns.iter().enumerate() {
            if (0..3).any(|a| turn.dim[a] > pt.room[a]) {
                continue;
            }
            let c = Cuboid {
                pos: p,
                dim: turn.dim,
            };
            let from = *start.get_or_insert_with(|| self.near_start(&c));
            let to = self.near_end(from, &c);
            evaluated += 1 + (to - from) as u64;
            let Some(contact) = self.check(&c, &self.by_x[from..to], kind, ctx, merit) else {
                continue;
            };
            let (t, h) = (t as i64, -turn.dim[1]);
            let key = match merit {
                Merit::Lowest => (0, p[1], p[2], p[0], t),
                Merit::LowestTall => (0, p[1], p[2], p[0], h),
                Merit::Contact => (-contact, p[1], p[2], p[0], t),
                Merit::ContactTall | Merit::Spaces => (-contact, p[1], p[2], p[0], h),
            };
            if best.as_ref().is_none_or(|b| key < b.key) {
                *best = Some(Candidate {
                    pos: p,
                    turn: t as u8,
                    key,
                });
            }
        }
        evaluated
    }

    /// Exact test of cuboid `c` for a unit of `kind`; `Some(contact area)` when feasible (the
    /// area is only computed for the contact merit).
    /// `near` is the span of `by_x` that may relate to `c` ([`Bin::near_start`] to [`Bin::near_end`]).
    fn check(
        &self,
        c: &Cuboid,
        near: &[u32],
        kind: &Kind,
        ctx: &Ctx,
        merit: Merit,
    ) -> Option<i128> {
        let rules = ctx.rules;
        let y = c.pos[1];
        let mut support: i64 = 0;
        let mut contact: i128 = 0;
        for q in near.iter().map(|&i| &self.placed[i as usize]) {
            // Apart along z, two units neither overlap, share footprint, nor touch.
            if q.c.end(2) < c.pos[2] || q.c.pos[2] > c.end(2) {
                continue;
            }
            if c.intersects(&q.c) {
                return None;
            }
            let below = q.c.end(1) <= y;
            let above = c.end(1) <= q.c.pos[1];
            if below || above {
                let fo = c.footprint_overlap(&q.c);
                if fo > 0 {
                    let other = &ctx.kinds[q.kind as usize];
                    let ok = if below {
                        may_carry(other, kind, rules.heavy_bottom)
                    } else {
                        may_carry(kind, other, rules.heavy_bottom)
                    };
                    if !ok {
                        return None;
                    }
                    if below && q.c.end(1) == y {
                        support += fo;
                    }
                }
            }
            if matches!(merit, Merit::Contact | Merit::ContactTall | Merit::Spaces) {
                contact += c.contact_area(&q.c) as i128;
            }
        }
        if rules.require_support && y > 0 {
            let base = c.dim[0] as i128 * c.dim[2] as i128;
            if !rules.rests(support as i128, base) {
                return None;
            }
        }
        if matches!(merit, Merit::Contact | Merit::ContactTall | Merit::Spaces) {
            for a in 0..3 {
                let (b, d) = ((a + 1) % 3, (a + 2) % 3);
                let face = c.dim[b] as i128 * c.dim[d] as i128;
                if c.pos[a] == 0 {
                    contact += face;
                }
                if c.end(a) == self.size[a] {
                    contact += face;
                }
            }
        }
        Some(contact)
    }
}
