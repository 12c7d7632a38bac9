//! One open box: its placed units, its extreme points, and the choice of the best feasible
//! position for a unit among them (the exact test of one position is `check.rs`'s).

mod check;

use super::{points, Ctx, Merit};
use crate::geometry::{Cuboid, V3};
use crate::problem::Rules;
use check::{fits_sorted, sorted3};

/// Under a contact merit, a box holding more than `CROWDED` units weighs only its
/// `CROWDED_POINTS` lowest candidate positions per unit, and one holding more than `PACKED`
/// units only its `PACKED_POINTS` lowest: boxes of a few dozen units are untouched, and a box
/// of thousands of small units stays fast (each position costs a scan of the units near it,
/// so a box of 5,000 units of six turns took a second at 24 positions per unit).
const CROWDED: usize = 32;
const CROWDED_POINTS: usize = 24;
const PACKED: usize = 256;
const PACKED_POINTS: usize = 4;

/// Units a new box makes room for before its lists grow.
const START_UNITS: usize = 8;

/// A unit in a box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    pub kind: u32,
    /// Index into the kind's turns.
    pub turn: u8,
    pub c: Cuboid,
}

/// A feasible position for a unit and its merit (smaller is better).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub pos: V3,
    pub turn: u8,
    key: (i128, i64, i64, i64, i64),
}

#[derive(Debug)]
pub(crate) struct Bin {
    /// Index of the box kind in its warehouse.
    pub box_kind: usize,
    pub size: V3,
    /// Weight the units may add up to (box limit, instruction cap and tare accounted for).
    pub cap: i64,
    pub weight: i64,
    pub volume: i128,
    /// The box's volume, and as a float (what fill ratios divide by).
    room: i128,
    room_f: f64,
    pub placed: Vec<Placed>,
    points: Vec<points::Point>,
    /// Kinds that may not join this box because of a kind already in it (sorted).
    blocked: Vec<u32>,
    /// Indices of `placed` by increasing x, and the widest unit along x: every unit that can
    /// touch, overlap or lie above or below a cuboid starts within a window of x around it.
    by_x: Vec<u32>,
    /// The x start of each unit of `by_x`, in its order (the binary searches read these).
    xs: Vec<i64>,
    wmax: i64,
}

/// The lists of a box, empty, with the room a recycled box had.
type Lists = (Vec<Placed>, Vec<points::Point>, Vec<u32>, Vec<i64>);

/// Lists kept per thread at most: more than the boxes one build holds open at a time.
const POOL: usize = 64;

thread_local! {
    /// Lists of dropped boxes, reused by new ones: the searches open and drop hundreds of
    /// thousands of trial boxes, and the allocator was a tenth of their instructions.
    static LISTS: std::cell::RefCell<Vec<Lists>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn take_lists() -> Lists {
    LISTS.with(|l| l.borrow_mut().pop()).unwrap_or_else(|| {
        (
            Vec::with_capacity(START_UNITS),
            // Room for the positions a few dozen units leave, so they seldom regrow.
            Vec::with_capacity(4 * START_UNITS),
            Vec::with_capacity(START_UNITS),
            Vec::with_capacity(START_UNITS),
        )
    })
}

impl Drop for Bin {
    fn drop(&mut self) {
        let mut lists = (
            std::mem::take(&mut self.placed),
            std::mem::take(&mut self.points),
            std::mem::take(&mut self.by_x),
            std::mem::take(&mut self.xs),
        );
        if lists.0.capacity() == 0 {
            return;
        }
        lists.0.clear();
        lists.1.clear();
        lists.2.clear();
        lists.3.clear();
        // `try_with`: nothing to keep once the thread's storage is gone.
        let _ = LISTS.try_with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                if l.len() < POOL {
                    l.push(lists);
                }
            }
        });
    }
}

impl Clone for Bin {
    fn clone(&self) -> Self {
        let (mut placed, mut points, mut by_x, mut xs) = take_lists();
        placed.extend_from_slice(&self.placed);
        points.extend_from_slice(&self.points);
        by_x.extend_from_slice(&self.by_x);
        xs.extend_from_slice(&self.xs);
        Bin {
            box_kind: self.box_kind,
            size: self.size,
            cap: self.cap,
            weight: self.weight,
            volume: self.volume,
            room: self.room,
            room_f: self.room_f,
            placed,
            points,
            blocked: self.blocked.clone(),
            by_x,
            xs,
            wmax: self.wmax,
        }
    }
}

impl Bin {
    pub fn new(box_kind: usize, size: V3, cap: i64) -> Self {
        let (placed, mut points, by_x, xs) = take_lists();
        points.push(points::Point {
            at: [0, 0, 0],
            room: size,
        });
        let room = size[0] as i128 * size[1] as i128 * size[2] as i128;
        Bin {
            box_kind,
            size,
            cap,
            weight: 0,
            volume: 0,
            room,
            room_f: room as f64,
            placed,
            points,
            blocked: Vec::new(),
            by_x,
            xs,
            wmax: 0,
        }
    }

    /// Where the units that may relate to `c` start in `by_x` (binary search): the first one
    /// starting along x within `wmax` before `c`.
    fn near_start(&self, c: &Cuboid) -> usize {
        let lo = c.pos[0] - self.wmax;
        self.xs.partition_point(|&x| x < lo)
    }

    /// Where the units that may relate to `c` end in `by_x`, from their start `from`: past
    /// the last one starting along x before `c` ends.
    fn near_end(&self, from: usize, c: &Cuboid) -> usize {
        let hi = c.end(0);
        from + self.xs[from..].partition_point(|&x| x <= hi)
    }

    pub fn capacity(&self) -> i128 {
        self.room
    }

    pub fn fill_ratio(&self) -> f64 {
        // The same float as `self.volume as f64`, without the 128-bit conversion when the
        // volume fits 64 bits (it always does but for boxes of over 2,000 units a side).
        let v = match i64::try_from(self.volume) {
            Ok(v) => v as f64,
            Err(_) => self.volume as f64,
        };
        v / self.room_f
    }

    /// Cheap tests that do not depend on positions: segregation, weight, unit count, volume.
    pub fn admits(&self, k: u32, ctx: &Ctx) -> bool {
        let kind = &ctx.kinds[k as usize];
        self.weight + kind.weight <= self.cap
            && self.volume + kind.volume <= self.capacity()
            && ctx
                .rules
                .max_units
                .is_none_or(|m| self.placed.len() < m as usize)
            && self.blocked.binary_search(&k).is_err()
    }

    /// The best feasible position of a unit of kind `k`, if any.
    pub fn best(&self, k: u32, ctx: &Ctx, merit: Merit) -> Option<Candidate> {
        if !self.admits(k, ctx) {
            return None;
        }
        let mut best: Option<Candidate> = None;
        let mut evaluated = 0u64;
        let lowest = matches!(merit, Merit::Lowest | Merit::LowestTall);
        let limit = if self.placed.len() > PACKED {
            PACKED_POINTS
        } else if self.placed.len() > CROWDED {
            CROWDED_POINTS
        } else {
            usize::MAX
        };
        let kind = &ctx.kinds[k as usize];
        let (turns, sides) = (kind.turns.len() as u64, sorted3(kind.turns[0].dim));
        for (seen, pt) in self.points.iter().enumerate() {
            // Points come lowest first: under a lowest-first merit the first point with a
            // feasible turn wins; under a contact merit only the lowest points are weighed
            // once a box holds many units, which keeps a box of hundreds of units fast.
            if best.is_some() && (lowest || seen >= limit) {
                break;
            }
            // The test `best_turn` opens with, here where it is cheap to skip the call.
            if !fits_sorted(sides, pt.room) {
                evaluated += turns;
                continue;
            }
            evaluated += self.best_turn(pt, k, ctx, merit, &mut best);
        }
        ctx.spend(evaluated);
        best
    }

    /// Candidate positions, lowest, then rearmost, then leftmost first.
    pub fn points(&self) -> &[points::Point] {
        &self.points
    }

    /// The best turn of a unit of kind `k` at point `at` of [`Bin::points`], if one is
    /// feasible there; the caller has checked [`Bin::admits`].
    pub fn best_at(&self, at: usize, k: u32, ctx: &Ctx, merit: Merit) -> Option<Candidate> {
        let (kind, pt) = (&ctx.kinds[k as usize], &self.points[at]);
        if !fits_sorted(sorted3(kind.turns[0].dim), pt.room) {
            ctx.spend(kind.turns.len() as u64);
            return None;
        }
        let mut best = None;
        let evaluated = self.best_turn(pt, k, ctx, merit, &mut best);
        ctx.spend(evaluated);
        best
    }

    /// The contact area of a unit of kind `k` standing as cuboid `c`, if it may stand there
    /// (inside the box, every hard rule but the cheap ones of [`Bin::admits`], which the
    /// caller has checked); counts the work as [`Bin::best`] does for one turn.
    pub fn fits(&self, c: &Cuboid, k: u32, ctx: &Ctx) -> Option<i128> {
        self.exact(c, k, ctx, Merit::Contact, 2)
    }

    /// Places a unit of kind `k` in turn `turn` with its lowest corner at `pos` if it may stand
    /// there (the cheap tests of [`Bin::admits`], inside the box, and the exact test of
    /// [`Bin::best`]); false, the box unchanged, if not.
    pub fn put_turn_at(&mut self, k: u32, turn: u8, pos: V3, ctx: &Ctx) -> bool {
        let dim = ctx.kinds[k as usize].turns[turn as usize].dim;
        let c = Cuboid { pos, dim };
        if !self.admits(k, ctx) || self.exact(&c, k, ctx, Merit::Lowest, 1).is_none() {
            return false;
        }
        self.push(Placed { kind: k, turn, c }, ctx);
        true
    }

    /// Places a unit at a candidate returned by [`Bin::best`] for the same kind.
    pub fn place(&mut self, k: u32, cand: &Candidate, ctx: &Ctx) {
        let kind = &ctx.kinds[k as usize];
        let turn = &kind.turns[cand.turn as usize];
        let c = Cuboid {
            pos: cand.pos,
            dim: turn.dim,
        };
        self.push(
            Placed {
                kind: k,
                turn: cand.turn,
                c,
            },
            ctx,
        );
    }

    /// Adds a unit whose position is already known to be feasible.
    pub fn push(&mut self, p: Placed, ctx: &Ctx) {
        let kind = &ctx.kinds[p.kind as usize];
        if !kind.conflicts.is_empty() && !self.placed.iter().any(|q| q.kind == p.kind) {
            for &b in &kind.conflicts {
                if let Err(i) = self.blocked.binary_search(&b) {
                    self.blocked.insert(i, b);
                }
            }
        }
        ctx.spend((self.points.len() + 6 * self.placed.len()) as u64);
        self.weight += kind.weight;
        self.volume += kind.volume;
        let at = self.xs.partition_point(|&x| x <= p.c.pos[0]);
        self.by_x.insert(at, self.placed.len() as u32);
        self.xs.insert(at, p.c.pos[0]);
        self.wmax = self.wmax.max(p.c.dim[0]);
        self.placed.push(p);
        let pl = points::Placement {
            placed: &self.placed,
            by_x: &self.by_x,
            xs: &self.xs,
            wmax: self.wmax,
        };
        points::update(&mut self.points, pl, self.size, ctx.rules.require_support);
    }

    /// The box with only the units at indices `keep`, same positions, if every one of them is
    /// still supported (removing a unit can leave the ones above it hanging); else the kept
    /// units packed afresh, if some configuration manages.
    pub fn keep_only(&self, keep: &[usize], ctx: &Ctx) -> Option<Bin> {
        let mut rest: Vec<Placed> = keep.iter().map(|&i| self.placed[i]).collect();
        rest.sort_by_key(|p| (p.c.pos[1], p.c.pos[2], p.c.pos[0]));
        let mut bin = Bin::new(self.box_kind, self.size, self.cap);
        for p in &rest {
            bin.push(*p, ctx);
        }
        if all_rest(&rest, ctx.rules) {
            return Some(bin);
        }
        let units: Vec<u32> = rest.iter().map(|p| p.kind).collect();
        crate::construct::CONFIGS
            .iter()
            .find_map(|&(order, merit)| {
                let mut sorted = units.clone();
                crate::construct::sort_units(&mut sorted, ctx.kinds, order);
                let mut b = Bin::new(self.box_kind, self.size, self.cap);
                let taken = vec![false; sorted.len()];
                (crate::construct::fill(&mut b, &sorted, &taken, ctx, merit).len() == sorted.len())
                    .then_some(b)
            })
    }

    /// Moves every unit (and candidate position) by `d`; the caller keeps it inside the box.
    pub fn shift(&mut self, d: V3) {
        for p in &mut self.placed {
            (0..3).for_each(|a| p.c.pos[a] += d[a]);
        }
        for x in &mut self.xs {
            *x += d[0];
        }
        for p in &mut self.points {
            (0..3).for_each(|a| p.at[a] += d[a]);
            let pl = points::Placement {
                placed: &self.placed,
                by_x: &self.by_x,
                xs: &self.xs,
                wmax: self.wmax,
            };
            p.room = points::room_of(p.at, pl, self.size);
        }
    }
}

/// Whether every unit of `placed` rests on the floor or on the units just below it as the
/// rules ask (always, when they do not require support).
pub(crate) fn all_rest(placed: &[Placed], rules: &Rules) -> bool {
    !rules.require_support
        || placed.iter().all(|p| {
            let base = p.c.dim[0] as i128 * p.c.dim[2] as i128;
            let area: i64 = placed
                .iter()
                .filter(|q| q.c.end(1) == p.c.pos[1])
                .map(|q| p.c.footprint_overlap(&q.c))
                .sum();
            p.c.pos[1] == 0 || rules.rests(area as i128, base)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    #[test]
    fn a_packed_box_weighs_few_positions_per_unit() {
        let kinds = vec![Kind::plain([1, 1, 1], Orientation::Any, 1000)];
        let rules = Rules::default();
        let ctx = Ctx::new(&kinds, &rules);
        let mut bin = Bin::new(0, [10, 10, 10], 1 << 40);
        while bin.placed.len() <= PACKED {
            let c = bin.best(0, &ctx, Merit::Contact).expect("room left");
            bin.place(0, &c, &ctx);
        }
        assert!(bin.points().len() > 8);
        // Each position weighed costs one turn plus a scan of at most every placed unit: four
        // positions' worth at most.
        ctx.work.set(0);
        bin.best(0, &ctx, Merit::Contact).expect("room left");
        let per_point = 2 + bin.placed.len() as u64;
        assert!(ctx.work.get() <= 4 * per_point, "{}", ctx.work.get());
    }
}
