//! Lower bound from kinds that may not share a package (hazmat segregation, "pack X and Y
//! separately"): the units of pairwise conflicting kinds lie in different boxes, so such a set
//! of kinds needs at least the boxes each of them needs alone, added up.

use crate::problem::Kind;

/// Conflicting kinds weighed by trying every set of them; past this many, sets are grown
/// greedily from the kinds needing the most boxes (any set gives a valid bound).
const EXACT: usize = 10;

/// The most, over sets of pairwise conflicting kinds, of the boxes each kind needs alone
/// (`alone(k)`; 0 for a kind not shipped), added up (a set of one kind counts its own);
/// 0 when fewer than two shipped kinds have conflicts.
pub(crate) fn boxes(kinds: &[Kind], alone: impl Fn(usize) -> usize) -> usize {
    let mut c: Vec<(usize, usize)> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| !k.conflicts.is_empty())
        .map(|(i, _)| (i, alone(i)))
        .filter(|&(_, b)| b > 0)
        .collect();
    if c.len() < 2 {
        return 0;
    }
    // Heaviest first: the greedy sets below start from and take the kinds needing most.
    c.sort_by_key(|x| std::cmp::Reverse(x.1));
    let apart = |a: usize, b: usize| {
        kinds[c[a].0]
            .conflicts
            .binary_search(&(c[b].0 as u32))
            .is_ok()
    };
    if c.len() <= EXACT {
        // Sets grown one kind at a time, each kind after the last one taken: every set of
        // pairwise conflicting kinds once.
        let mut best = 0;
        let mut stack: Vec<(Vec<usize>, usize)> = (0..c.len()).map(|i| (vec![i], c[i].1)).collect();
        while let Some((set, sum)) = stack.pop() {
            best = best.max(sum);
            let last = *set.last().unwrap_or(&0);
            for (j, &(_, boxes)) in c.iter().enumerate().skip(last + 1) {
                if set.iter().all(|&i| apart(i, j)) {
                    let mut more = set.clone();
                    more.push(j);
                    stack.push((more, sum + boxes));
                }
            }
        }
        return best;
    }
    let mut best = 0;
    for start in 0..c.len() {
        let mut set = vec![start];
        for j in 0..c.len() {
            if j != start && set.iter().all(|&i| apart(i, j)) {
                set.push(j);
            }
        }
        best = best.max(set.iter().map(|&i| c[i].1).sum());
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Orientation;

    /// `n` kinds, `pairs` of them in conflict.
    fn kinds(n: usize, pairs: &[(u32, u32)]) -> Vec<Kind> {
        let mut out: Vec<Kind> = (0..n)
            .map(|_| Kind::plain([1, 1, 1], Orientation::Any, 1))
            .collect();
        for &(a, b) in pairs {
            out[a as usize].conflicts.push(b);
            out[b as usize].conflicts.push(a);
        }
        for k in &mut out {
            k.conflicts.sort_unstable();
        }
        out
    }

    #[test]
    fn conflicting_kinds_add_up_their_boxes() {
        // 0 and 1 conflict and 1 and 2, but 0 and 2 may share: the heavier pair counts.
        let ks = kinds(3, &[(0, 1), (1, 2)]);
        let need = [3, 1, 2];
        assert_eq!(boxes(&ks, |k| need[k]), 4);
        // All three pairwise apart: all three add up.
        let ks = kinds(3, &[(0, 1), (1, 2), (0, 2)]);
        assert_eq!(boxes(&ks, |k| need[k]), 6);
        // A kind not shipped conflicts with nothing: the others may share.
        assert_eq!(boxes(&ks, |k| [3, 0, 2][k]), 5);
        assert_eq!(boxes(&ks, |k| [3, 0, 0][k]), 0);
        // No conflicts at all: nothing to say.
        assert_eq!(boxes(&kinds(3, &[]), |k| need[k]), 0);
    }

    #[test]
    fn many_conflicting_kinds_still_give_a_set_of_pairwise_conflicts() {
        // Twelve kinds, the even ones pairwise apart and the odd ones too: more than the exact
        // search takes. The greedy sets must still conflict pairwise: the odd kinds, one of
        // them needing two boxes, seven in all (not twelve or thirteen).
        let pairs: Vec<(u32, u32)> = (0..12u32)
            .flat_map(|a| (a + 2..12).step_by(2).map(move |b| (a, b)))
            .collect();
        let ks = kinds(12, &pairs);
        assert_eq!(boxes(&ks, |k| 1 + usize::from(k == 3)), 7);
    }
}
