//! Ejection chains for the eviction move: a unit that no box takes as it is goes into a full
//! box in the place of up to three smaller units of that box, which must find free positions in
//! the other boxes or, one level deeper, eject smaller units in turn; the boxes' other units keep
//! their places, so support is checked, not repacked. A chain that does not close is undone.

use crate::construct::CONFIGS;
use crate::geometry::Cuboid;
use crate::placement::{all_rest, Bin, Ctx, Placed};

/// Boxes tried per unit, fullest first.
const TARGETS: usize = 8;
/// Units one placement may displace.
const MAX_OUT: usize = 3;
/// Placements tried per box, least displaced volume first.
const TRIES: usize = 4;
/// Levels of a chain: the unit's ejection, then those of the units it displaced.
const DEPTH: usize = 2;
/// Placements tried in one chain, all levels together.
const CHAIN_TRIES: usize = 1000;

/// One ejection chain under way: the boxes, the victim no unit may go back to, the boxes the
/// chain replaced (with their state before, newest last) and the placements it may still try.
struct Chain<'b, 'c> {
    bins: &'b mut [Bin],
    victim: usize,
    log: Vec<(usize, Bin)>,
    tries: usize,
    ctx: &'c Ctx<'c>,
}

/// Puts a unit of kind `k` into one of `targets` (fullest first) where it displaces at most
/// [`MAX_OUT`] units of less volume in all, and those units into the other boxes but `victim`
/// at free positions or by ejections of their own. True when done; `bins` are unchanged
/// otherwise.
pub(crate) fn eject(bins: &mut [Bin], victim: usize, k: u32, targets: &[usize], ctx: &Ctx) -> bool {
    let mut ch = Chain {
        bins,
        victim,
        log: Vec::new(),
        tries: CHAIN_TRIES,
        ctx,
    };
    let done = ch.chain(k, targets, DEPTH);
    if !done {
        ch.undo(0);
    }
    done
}

impl Chain<'_, '_> {
    /// Puts back the boxes replaced since the log was `mark` long.
    fn undo(&mut self, mark: usize) {
        while self.log.len() > mark {
            let (b, old) = self.log.pop().expect("the log is longer than the mark");
            self.bins[b] = old;
        }
    }

    /// One level of a chain: a unit of kind `k` into one of `targets`, the units it displaces
    /// rehomed with `depth - 1` levels left. On failure the caller undoes the log.
    fn chain(&mut self, k: u32, targets: &[usize], depth: usize) -> bool {
        let ctx = self.ctx;
        let kind = &ctx.kinds[k as usize];
        for &b in targets.iter().take(TARGETS) {
            let bin = &self.bins[b];
            // The unit in the corner of a placed unit, in each turn.
            let mut cands: Vec<(i128, Cuboid, u8, Vec<usize>)> = Vec::new();
            for q in &bin.placed {
                for (t, turn) in kind.turns.iter().enumerate() {
                    let c = Cuboid {
                        pos: q.c.pos,
                        dim: turn.dim,
                    };
                    if (0..3).any(|a| c.end(a) > bin.size[a]) {
                        continue;
                    }
                    ctx.spend(bin.placed.len() as u64 / 4 + 1);
                    let hit: Vec<usize> = (0..bin.placed.len())
                        .filter(|&i| bin.placed[i].c.intersects(&c))
                        .collect();
                    if hit.is_empty() || hit.len() > MAX_OUT {
                        continue;
                    }
                    let out: i128 = hit
                        .iter()
                        .map(|&i| ctx.kinds[bin.placed[i].kind as usize].volume)
                        .sum();
                    if out < kind.volume {
                        cands.push((out, c, t as u8, hit));
                    }
                }
            }
            cands.sort_by_key(|x| x.0);
            for (_, c, turn, hit) in cands.into_iter().take(TRIES) {
                if self.tries == 0 {
                    return false;
                }
                self.tries -= 1;
                if let Some(nb) = without(&self.bins[b], &hit, k, c, turn, ctx) {
                    let out: Vec<u32> = hit.iter().map(|&i| self.bins[b].placed[i].kind).collect();
                    let mark = self.log.len();
                    self.log.push((b, std::mem::replace(&mut self.bins[b], nb)));
                    if self.rehome(&out, depth) {
                        return true;
                    }
                    self.undo(mark);
                }
            }
        }
        false
    }

    /// Places each unit of `out` at the best free position of the fullest box but the victim
    /// that has one, else (with levels left) by a chain of its own into the fullest boxes;
    /// false when one of them finds no place (the caller undoes the log).
    fn rehome(&mut self, out: &[u32], depth: usize) -> bool {
        let ctx = self.ctx;
        for &e in out {
            let fill: Vec<f64> = self.bins.iter().map(Bin::fill_ratio).collect();
            let mut order: Vec<usize> = (0..self.bins.len())
                .filter(|&x| x != self.victim && self.bins[x].admits(e, ctx))
                .collect();
            order.sort_by(|&x, &y| fill[y].total_cmp(&fill[x]).then(x.cmp(&y)));
            let spot = order
                .iter()
                .find_map(|&x| self.bins[x].best(e, ctx, CONFIGS[0].1).map(|c| (x, c)));
            if let Some((x, cand)) = spot {
                self.log.push((x, self.bins[x].clone()));
                self.bins[x].place(e, &cand, ctx);
                continue;
            }
            if depth > 1 && self.chain(e, &order, depth - 1) {
                continue;
            }
            return false;
        }
        true
    }
}

/// `bin` without the units at `hit` and with a unit of kind `k` as cuboid `c` in turn `turn`,
/// if every unit left still rests as the rules ask and the unit may stand there.
fn without(bin: &Bin, hit: &[usize], k: u32, c: Cuboid, turn: u8, ctx: &Ctx) -> Option<Bin> {
    let mut rest: Vec<Placed> = (0..bin.placed.len())
        .filter(|i| !hit.contains(i))
        .map(|i| bin.placed[i])
        .collect();
    ctx.spend((rest.len() * rest.len()) as u64 / 8 + 1);
    if !all_rest(&rest, ctx.rules) {
        return None;
    }
    rest.sort_by_key(|p| (p.c.pos[1], p.c.pos[2], p.c.pos[0]));
    let mut nb = Bin::new(bin.box_kind, bin.size, bin.cap);
    for p in &rest {
        nb.push(*p, ctx);
    }
    if !nb.admits(k, ctx) || nb.fits(&c, k, ctx).is_none() {
        return None;
    }
    nb.push(Placed { kind: k, turn, c }, ctx);
    Some(nb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;
    use crate::problem::{Kind, Rules};

    /// Rods along x in boxes 10 x 1 x 1. The victim's rod of 5 fits box 1 only in the place
    /// of its rod of 3; that rod finds no free stretch of 3 anywhere, but box 2 has room for
    /// it by volume (two free stretches of 1 and 2) and takes it in the place of its rod of 2,
    /// which then fits box 2's stretch of 2: a chain two levels deep.
    fn rods() -> (Vec<Kind>, Vec<Vec<(u32, i64)>>) {
        let kinds = [5, 3, 5, 2, 5, 8]
            .map(|len| Kind::plain([len, 1, 1], Orientation::Fixed, 1))
            .to_vec();
        // (kind, x) per box: the victim, then boxes with free stretches 3-5; 2-3 and 8-10; 8-10.
        let boxes = vec![
            vec![(0, 0)],
            vec![(1, 0), (2, 5)],
            vec![(3, 0), (4, 3)],
            vec![(5, 0)],
        ];
        (kinds, boxes)
    }

    fn bins(boxes: &[Vec<(u32, i64)>], ctx: &Ctx) -> Vec<Bin> {
        boxes
            .iter()
            .map(|units| {
                let mut bin = Bin::new(0, [10, 1, 1], 1 << 40);
                for &(k, x) in units {
                    let dim = ctx.kinds[k as usize].turns[0].dim;
                    let c = Cuboid {
                        pos: [x, 0, 0],
                        dim,
                    };
                    bin.push(
                        Placed {
                            kind: k,
                            turn: 0,
                            c,
                        },
                        ctx,
                    );
                }
                bin
            })
            .collect()
    }

    fn kinds_in(bin: &Bin) -> Vec<u32> {
        let mut ks: Vec<u32> = bin.placed.iter().map(|p| p.kind).collect();
        ks.sort_unstable();
        ks
    }

    #[test]
    fn a_chain_of_two_levels_closes_where_one_level_is_undone() {
        let (kinds, boxes) = rods();
        let rules = Rules::default();
        let ctx = Ctx::new(&kinds, &rules);
        let mut bs = bins(&boxes, &ctx);
        let before: Vec<Vec<u32>> = bs.iter().map(kinds_in).collect();

        let mut one = Chain {
            bins: &mut bs,
            victim: 0,
            log: Vec::new(),
            tries: CHAIN_TRIES,
            ctx: &ctx,
        };
        assert!(
            !one.chain(0, &[1, 2, 3], 1),
            "the rod of 3 has no free room"
        );
        one.undo(0);
        assert_eq!(bs.iter().map(kinds_in).collect::<Vec<_>>(), before);

        assert!(eject(&mut bs, 0, 0, &[1, 2, 3], &ctx));
        let after: Vec<Vec<u32>> = bs.iter().map(kinds_in).collect();
        assert_eq!(after, vec![vec![0], vec![0, 2], vec![1, 3, 4], vec![5]]);
    }
}
