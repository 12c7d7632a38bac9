//! Extreme points (Crainic, Perboli and Tadei, INFORMS J. Computing 20(3), 2008): after a unit
//! is placed, its three outer corners and their projections onto the nearest surfaces behind,
//! left of and below them become candidate positions, kept lowest first.

use super::Placed;
use crate::geometry::{Cuboid, V3};

/// A candidate position and its residual space: how far one can go from it along +x, +y and
/// +z before meeting a unit or a wall. A unit longer than that along some axis cannot stand
/// there, which rejects most candidates without looking at every placed unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Point {
    pub at: V3,
    pub room: V3,
}

/// Shortens `room` of the point `p` by the cuboid `c` where it crosses one of its rays.
fn clip(p: V3, room: &mut V3, c: &Cuboid) {
    for a in 0..3 {
        let (b, d) = ((a + 1) % 3, (a + 2) % 3);
        if c.pos[a] >= p[a]
            && c.pos[b] <= p[b]
            && p[b] < c.end(b)
            && c.pos[d] <= p[d]
            && p[d] < c.end(d)
        {
            room[a] = room[a].min(c.pos[a] - p[a]);
        }
    }
}

/// The placed units of a box with their order along x: indices of `placed` by increasing x
/// start, and the widest unit along x. Every unit whose x span holds a given x starts within
/// `wmax` before it, so the scans below look at a window of units rather than all of them.
#[derive(Clone, Copy)]
pub(crate) struct Placement<'a> {
    pub placed: &'a [Placed],
    pub by_x: &'a [u32],
    /// The x start of each unit of `by_x`, in its order.
    pub xs: &'a [i64],
    pub wmax: i64,
}

impl<'a> Placement<'a> {
    /// Position in `by_x` of the first unit starting at `x` or later.
    fn at_x(&self, x: i64) -> usize {
        self.xs.partition_point(|&s| s < x)
    }

    /// Units whose x span may hold `x`.
    fn over(&self, x: i64) -> impl Iterator<Item = &'a Placed> + 'a {
        let (me, lo) = (*self, self.at_x(x - self.wmax));
        self.by_x[lo..]
            .iter()
            .map(move |&i| &me.placed[i as usize])
            .take_while(move |q| q.c.pos[0] <= x)
    }
}

/// Whether `c` spans `p` along the two axes other than `axis`.
fn spans_across(c: &Cuboid, p: V3, axis: usize) -> bool {
    let (b, d) = ((axis + 1) % 3, (axis + 2) % 3);
    c.pos[b] <= p[b] && p[b] < c.end(b) && c.pos[d] <= p[d] && p[d] < c.end(d)
}

/// The residual space of `p` among the placed units in a box of `size`.
pub(crate) fn room_of(p: V3, pl: Placement, size: V3) -> V3 {
    let mut room = [size[0] - p[0], size[1] - p[1], size[2] - p[2]];
    // The rays along y and z only meet units over p's x.
    for q in pl.over(p[0]) {
        clip(p, &mut room, &q.c);
    }
    ray_x(p, room, pl, pl.at_x(p[0]))
}

/// `room` with its x ray ended by the first unit (by x start) at or after `p` across it;
/// `from` is where in `by_x` the units starting at `p`'s x or later begin.
fn ray_x(p: V3, mut room: V3, pl: Placement, from: usize) -> V3 {
    for &i in &pl.by_x[from..] {
        let q = &pl.placed[i as usize];
        if q.c.pos[0] - p[0] >= room[0] {
            break;
        }
        if spans_across(&q.c, p, 0) {
            room[0] = q.c.pos[0] - p[0];
            break;
        }
    }
    room
}

/// Moves `p` along `-axis` until it meets a placed unit's face or the wall.
#[inline(always)]
fn project(p: V3, axis: usize, pl: Placement) -> V3 {
    // Corners on a wall are common; they skip the call and its scan.
    if p[axis] == 0 {
        return p;
    }
    project_scan(p, axis, pl)
}

/// [`project`] off the wall.
fn project_scan(p: V3, axis: usize, pl: Placement) -> V3 {
    let meets = |q: &Placed, stop: i64| {
        let end = q.c.end(axis);
        end <= p[axis] && end > stop && spans_across(&q.c, p, axis)
    };
    let mut stop = 0;
    if axis == 0 {
        // Backwards by x start; nothing starting `wmax` before the best stop ends after it.
        for &i in pl.by_x[..pl.at_x(p[0] + 1)].iter().rev() {
            let q = &pl.placed[i as usize];
            if q.c.pos[0] + pl.wmax <= stop {
                break;
            }
            if meets(q, stop) {
                stop = q.c.end(axis);
            }
        }
    } else {
        for q in pl.over(p[0]) {
            if meets(q, stop) {
                stop = q.c.end(axis);
            }
        }
    }
    let mut out = p;
    out[axis] = stop;
    out
}

/// The order points are kept in: lowest, then rearmost, then leftmost.
pub(crate) fn order(p: V3) -> (i64, i64, i64) {
    (p[1], p[2], p[0])
}

/// What one scan of the units over a position's x learns about it: whether a unit holds it,
/// whether it lies on the floor or a top, its room along the rays that scan meets, and where
/// in `by_x` the units starting at its x or later begin.
struct Probe {
    inside: bool,
    surface: bool,
    room: V3,
    from_x: usize,
}

/// One pass over the units whose x span may hold `p` (see [`Probe`]); stops early at a unit
/// holding `p`. `room` is complete along y and z, and along x up to the units starting at or
/// after `p`'s x, which [`room_of`] goes on to scan.
fn probe(p: V3, pl: Placement, size: V3) -> Probe {
    let mut out = Probe {
        inside: false,
        surface: p[1] == 0,
        room: [size[0] - p[0], size[1] - p[1], size[2] - p[2]],
        from_x: pl.by_x.len(),
    };
    let lo = pl.at_x(p[0] - pl.wmax);
    for (j, &i) in pl.by_x.iter().enumerate().skip(lo) {
        let q = &pl.placed[i as usize].c;
        if q.pos[0] >= p[0] && out.from_x == pl.by_x.len() {
            out.from_x = j;
        }
        if q.pos[0] > p[0] {
            break;
        }
        if q.contains(p) {
            out.inside = true;
            return out;
        }
        if !out.surface
            && q.end(1) == p[1]
            && p[0] < q.end(0)
            && q.pos[2] <= p[2]
            && p[2] < q.end(2)
        {
            out.surface = true;
        }
        clip(p, &mut out.room, q);
    }
    out
}

/// Updates `points` (kept in [`order`]) after the last unit of `pl.placed` was added (and
/// indexed in `pl.by_x`).
pub(super) fn update(points: &mut Vec<Point>, pl: Placement, size: V3, support: bool) {
    let Some(last) = pl.placed.last() else { return };
    let c = last.c;
    points.retain_mut(|p| {
        let keep = !c.contains(p.at);
        if keep {
            clip(p.at, &mut p.room, &c);
        }
        keep
    });
    let corners = [
        ([c.end(0), c.pos[1], c.pos[2]], [1, 2]),
        ([c.pos[0], c.end(1), c.pos[2]], [0, 2]),
        ([c.pos[0], c.pos[1], c.end(2)], [0, 1]),
    ];
    for (corner, axes) in corners {
        let cands = [
            corner,
            project(corner, axes[0], pl),
            project(corner, axes[1], pl),
        ];
        for (i, p) in cands.into_iter().enumerate() {
            // A projection that did not move repeats the corner (or the other projection) and
            // would meet the same fate: skipped before any search (over half the candidates).
            if cands[..i].contains(&p) || (0..3).any(|a| p[a] >= size[a]) {
                continue;
            }
            let at = points.partition_point(|o| order(o.at) < order(p));
            if points.get(at).is_some_and(|o| o.at == p) {
                continue;
            }
            let found = probe(p, pl, size);
            if found.inside || (support && !found.surface) {
                continue;
            }
            let room = ray_x(p, found.room, pl, found.from_x);
            points.insert(at, Point { at: p, room });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Random disjoint units in a box of `size`, with their x index.
    fn scene(rng: &mut SplitMix64, size: V3, n: usize) -> (Vec<Placed>, Vec<u32>, Vec<i64>, i64) {
        let mut placed: Vec<Placed> = Vec::new();
        for _ in 0..20 * n {
            if placed.len() == n {
                break;
            }
            let dim = [0, 1, 2].map(|a| rng.range(1, size[a] / 3));
            let pos = [0, 1, 2].map(|a| rng.range(0, size[a] - dim[a]));
            let c = Cuboid { pos, dim };
            if !placed.iter().any(|q| q.c.intersects(&c)) {
                placed.push(Placed {
                    kind: 0,
                    turn: 0,
                    c,
                });
            }
        }
        let mut by_x: Vec<u32> = (0..placed.len() as u32).collect();
        by_x.sort_by_key(|&i| placed[i as usize].c.pos[0]);
        let xs = by_x.iter().map(|&i| placed[i as usize].c.pos[0]).collect();
        let wmax = placed.iter().map(|q| q.c.dim[0]).max().unwrap_or(0);
        (placed, by_x, xs, wmax)
    }

    /// The scans over every unit that the windowed ones replace.
    fn room_all(p: V3, placed: &[Placed], size: V3) -> V3 {
        let mut room = [size[0] - p[0], size[1] - p[1], size[2] - p[2]];
        for q in placed {
            clip(p, &mut room, &q.c);
        }
        room
    }

    fn project_all(p: V3, axis: usize, placed: &[Placed]) -> V3 {
        let mut out = p;
        out[axis] = placed
            .iter()
            .filter(|q| q.c.end(axis) <= p[axis] && spans_across(&q.c, p, axis))
            .map(|q| q.c.end(axis))
            .max()
            .unwrap_or(0);
        out
    }

    fn surface_all(p: V3, placed: &[Placed]) -> bool {
        p[1] == 0
            || placed.iter().any(|q| {
                q.c.end(1) == p[1] && (q.c.pos[0]..q.c.end(0)).contains(&p[0]) && {
                    (q.c.pos[2]..q.c.end(2)).contains(&p[2])
                }
            })
    }

    /// [`update`] done the slow way: every kept point's room and every candidate's fate
    /// recomputed over all the units, no window, no shortcut.
    fn update_all(points: &mut Vec<Point>, placed: &[Placed], size: V3, support: bool) {
        let c = placed.last().unwrap().c;
        points.retain(|p| !c.contains(p.at));
        for p in points.iter_mut() {
            p.room = room_all(p.at, placed, size);
        }
        let corners = [
            ([c.end(0), c.pos[1], c.pos[2]], [1, 2]),
            ([c.pos[0], c.end(1), c.pos[2]], [0, 2]),
            ([c.pos[0], c.pos[1], c.end(2)], [0, 1]),
        ];
        for (corner, axes) in corners {
            for p in [
                corner,
                project_all(corner, axes[0], placed),
                project_all(corner, axes[1], placed),
            ] {
                let outside = (0..3).any(|a| p[a] >= size[a]);
                if outside
                    || points.iter().any(|o| o.at == p)
                    || placed.iter().any(|q| q.c.contains(p))
                    || (support && !surface_all(p, placed))
                {
                    continue;
                }
                let at = points.partition_point(|o| order(o.at) < order(p));
                let room = room_all(p, placed, size);
                points.insert(at, Point { at: p, room });
            }
        }
    }

    #[test]
    fn update_keeps_the_points_a_full_recomputation_finds() {
        let mut rng = SplitMix64::new(11);
        let size = [30, 20, 40];
        for round in 0..60 {
            let support = round % 2 == 0;
            // Disjoint units anywhere in the box, added in random order; with support required
            // every other round, which drops the positions resting on nothing.
            let (units, _, _, _) = scene(&mut rng, size, 4 + round / 2);
            let mut placed = Vec::new();
            let (mut by_x, mut xs, mut wmax) = (Vec::new(), Vec::new(), 0);
            let start = Point {
                at: [0, 0, 0],
                room: size,
            };
            let (mut fast, mut slow) = (vec![start], vec![start]);
            for q in units {
                let at = xs.partition_point(|&x| x <= q.c.pos[0]);
                by_x.insert(at, placed.len() as u32);
                xs.insert(at, q.c.pos[0]);
                wmax = wmax.max(q.c.dim[0]);
                placed.push(q);
                let pl = Placement {
                    placed: &placed,
                    by_x: &by_x,
                    xs: &xs,
                    wmax,
                };
                update(&mut fast, pl, size, support);
                update_all(&mut slow, &placed, size, support);
                assert_eq!(fast, slow, "round {round}, {} units", placed.len());
            }
        }
    }

    #[test]
    fn windowed_scans_agree_with_scanning_every_unit() {
        let mut rng = SplitMix64::new(7);
        let size = [40, 30, 50];
        for round in 0..40 {
            let (placed, by_x, xs, wmax) = scene(&mut rng, size, 5 + round);
            let pl = Placement {
                placed: &placed,
                by_x: &by_x,
                xs: &xs,
                wmax,
            };
            for _ in 0..200 {
                // Points on unit corners and faces as well as anywhere.
                let p = if rng.below(2) == 0 && !placed.is_empty() {
                    let q = placed[rng.below(placed.len())].c;
                    [0, 1, 2].map(|a| {
                        if rng.below(2) == 0 {
                            q.pos[a]
                        } else {
                            q.end(a)
                        }
                    })
                } else {
                    [0, 1, 2].map(|a| rng.range(0, size[a] - 1))
                };
                if (0..3).any(|a| p[a] >= size[a]) {
                    continue;
                }
                let found = probe(p, pl, size);
                if placed.iter().any(|q| q.c.contains(p)) {
                    assert!(found.inside, "{p:?}");
                    continue;
                }
                assert!(!found.inside, "{p:?}");
                assert_eq!(room_of(p, pl, size), room_all(p, &placed, size), "{p:?}");
                let room = ray_x(p, found.room, pl, found.from_x);
                assert_eq!(room, room_all(p, &placed, size), "{p:?}");
                for axis in 0..3 {
                    assert_eq!(project(p, axis, pl), project_all(p, axis, &placed));
                }
                assert_eq!(found.surface, surface_all(p, &placed), "{p:?}");
            }
        }
    }
}
