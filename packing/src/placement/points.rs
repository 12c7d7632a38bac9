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

/// The residual space of `p` among `placed` in a box of `size`.
pub(crate) fn room_of(p: V3, placed: &[Placed], size: V3) -> V3 {
    let mut room = [size[0] - p[0], size[1] - p[1], size[2] - p[2]];
    for q in placed {
        clip(p, &mut room, &q.c);
    }
    room
}

/// Moves `p` along `-axis` until it meets a placed unit's face or the wall.
fn project(p: V3, axis: usize, placed: &[Placed]) -> V3 {
    let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut stop = 0;
    for q in placed {
        let end = q.c.end(axis);
        if end <= p[axis]
            && end > stop
            && q.c.pos[b] <= p[b]
            && p[b] < q.c.end(b)
            && q.c.pos[c] <= p[c]
            && p[c] < q.c.end(c)
        {
            stop = end;
        }
    }
    let mut out = p;
    out[axis] = stop;
    out
}

/// Whether a unit could stand on `p`: the floor, or inside the top face of a placed unit.
fn on_surface(p: V3, placed: &[Placed]) -> bool {
    p[1] == 0
        || placed.iter().any(|q| {
            q.c.end(1) == p[1]
                && q.c.pos[0] <= p[0]
                && p[0] < q.c.end(0)
                && q.c.pos[2] <= p[2]
                && p[2] < q.c.end(2)
        })
}

/// The order points are kept in: lowest, then rearmost, then leftmost.
pub(crate) fn order(p: V3) -> (i64, i64, i64) {
    (p[1], p[2], p[0])
}

/// Updates `points` (kept in [`order`]) after the last unit of `placed` was added.
pub(super) fn update(points: &mut Vec<Point>, placed: &[Placed], size: V3, support: bool) {
    let Some(last) = placed.last() else { return };
    let c = last.c;
    points.retain(|p| !c.contains(p.at));
    for p in points.iter_mut() {
        clip(p.at, &mut p.room, &c);
    }
    let corners = [
        ([c.end(0), c.pos[1], c.pos[2]], [1, 2]),
        ([c.pos[0], c.end(1), c.pos[2]], [0, 2]),
        ([c.pos[0], c.pos[1], c.end(2)], [0, 1]),
    ];
    for (corner, axes) in corners {
        let cands = [
            corner,
            project(corner, axes[0], placed),
            project(corner, axes[1], placed),
        ];
        for p in cands {
            let at = points.partition_point(|o| order(o.at) < order(p));
            if (0..3).any(|a| p[a] >= size[a])
                || points.get(at).is_some_and(|o| o.at == p)
                || placed.iter().any(|q| q.c.contains(p))
                || (support && !on_surface(p, placed))
            {
                continue;
            }
            let room = room_of(p, placed, size);
            points.insert(at, Point { at: p, room });
        }
    }
}
