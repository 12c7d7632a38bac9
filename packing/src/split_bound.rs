//! A provable lower bound on the packages of a whole request, over every way of splitting its
//! units among the warehouses that stock them: what the reports compare the packers with. It
//! counts only the units some warehouse can ship (a packing that leaves others out may use
//! fewer packages).

use crate::apart;
use crate::bound;
use crate::error::Result;
use crate::kind_cap;
use crate::model::PackRequest;
use crate::problem::{self, BoxKind, Depot, Kind, Problem};
use crate::suit::{suit, Suit};

/// A quantity each unit uses up (volume, weight or a dual-feasible value): per kind, and what
/// `n` boxes of each warehouse hold at most.
struct Resource {
    value: Vec<i128>,
    cap: Caps,
}

/// What `n` boxes of a warehouse hold of a resource.
enum Caps {
    /// `[w][n]`: what the `n` roomiest boxes of warehouse `w` hold together.
    Table(Vec<Vec<i128>>),
    /// The same for every box: `n` boxes (at most the warehouse's `most`) hold `n` times it.
    PerBox(i128),
}

impl Caps {
    fn at(&self, w: usize, n: usize, most: &[usize]) -> i128 {
        match self {
            Caps::Table(t) => t[w][n],
            Caps::PerBox(unit) => n.min(most[w]) as i128 * unit,
        }
    }
}

/// The `n` largest of `per_box` (one entry per box in stock), summed, for `n` = 0..=`most`.
fn prefix_caps(mut per_box: Vec<i128>, most: usize) -> Vec<i128> {
    per_box.sort_unstable_by(|a, b| b.cmp(a));
    let mut out = vec![0i128];
    for n in 1..=most {
        let add = per_box.get(n - 1).copied().unwrap_or(0);
        out.push(out[n - 1] + add);
    }
    out
}

/// Boxes of `depot` that can take anything, each repeated by its quantity (at most `most`).
fn box_list(depot: &Depot, most: usize) -> Vec<&BoxKind> {
    depot
        .boxes
        .iter()
        .filter(|b| b.cap >= 0)
        .flat_map(|b| std::iter::repeat_n(b, b.quantity.map_or(most, |q| (q as usize).min(most))))
        .collect()
}

/// Per resource and set `a` of warehouses (a bit mask), what the warehouses outside `a`
/// cannot take of `need`, in that resource.
fn forced(res: &[Resource], usable: &[Vec<u64>], need: &[u64]) -> Vec<Vec<i128>> {
    let nd = usable.len();
    let outside: Vec<Vec<u64>> = (0u32..1 << nd)
        .map(|a| {
            need.iter()
                .enumerate()
                .map(|(k, &d)| {
                    let elsewhere: u64 = (0..nd)
                        .filter(|&w| a & 1 << w == 0)
                        .map(|w| usable[w][k])
                        .sum();
                    d.saturating_sub(elsewhere)
                })
                .collect()
        })
        .collect();
    res.iter()
        .map(|r| {
            outside
                .iter()
                .map(|o| o.iter().zip(&r.value).map(|(&c, &v)| c as i128 * v).sum())
                .collect()
        })
        .collect()
}

/// Whether some split sends at most `cap[w][n[w]]` of every resource to each warehouse `w`,
/// units taken apart (fractions allowed): by max-flow min-cut, exactly when for every set `a`
/// of warehouses what the others cannot take (`forced`) fits into `a`.
fn fractional_fit(n: &[usize], res: &[Resource], forced: &[Vec<i128>], most: &[usize]) -> bool {
    let nd = n.len();
    res.iter().zip(forced).all(|(r, f)| {
        (0u32..1 << nd).all(|a| {
            let cap: i128 = (0..nd)
                .filter(|&w| a & 1 << w != 0)
                .map(|w| r.cap.at(w, n[w], most))
                .sum();
            f[a as usize] <= cap
        })
    })
}

/// The fewest boxes any packing of every shippable unit of `p` can use: the smallest total of
/// boxes per warehouse for which some split fits volume, weight, each kind's units (against
/// what one box holds of them) and the dual-feasible values.
pub(crate) fn bound_of(p: &Problem) -> usize {
    let nd = p.depots.len();
    let nk = p.kinds.len();
    let usable: Vec<Vec<u64>> = p
        .depots
        .iter()
        .map(|d| {
            (0..nk)
                .map(|k| {
                    if suit(d, &p.kinds[k]) == Suit::Yes {
                        d.stock[k]
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect();
    let mut need: Vec<u64> = (0..nk)
        .map(|k| p.kinds[k].quantity.min((0..nd).map(|w| usable[w][k]).sum()))
        .collect();
    let total: usize = need.iter().sum::<u64>() as usize;
    if total == 0 {
        return 0;
    }
    let lists: Vec<_> = p.depots.iter().map(|d| box_list(d, total)).collect();
    let most: Vec<usize> = lists.iter().map(|l| l.len().min(total)).collect();
    let mut res = vec![
        Resource {
            value: p.kinds.iter().map(|k| k.volume).collect(),
            cap: Caps::Table(
                lists
                    .iter()
                    .map(|l| prefix_caps(l.iter().map(|b| b.volume).collect(), total))
                    .collect(),
            ),
        },
        Resource {
            value: p.kinds.iter().map(|k| k.weight as i128).collect(),
            cap: Caps::Table(
                lists
                    .iter()
                    .map(|l| prefix_caps(l.iter().map(|b| b.cap as i128).collect(), total))
                    .collect(),
            ),
        },
    ];
    // Each kind of two units or more against what each box holds of it. Boxes in short
    // supply may not hold every unit that suits them: the bound is then about the units they
    // can hold (and a packing leaves the others out anyway).
    for (k, kind) in p.kinds.iter().enumerate() {
        if need[k] < 2 {
            continue;
        }
        let per_box = kind_caps(p, kind, &lists);
        let holds: u64 = per_box
            .iter()
            .zip(&usable)
            .map(|(c, u)| (c.iter().sum::<i128>().min(u[k] as i128)) as u64)
            .sum();
        need[k] = need[k].min(holds);
        // A kind one box holds in full adds nothing the volume does not nearly say.
        if per_box.iter().flatten().all(|&c| c < need[k] as i128) {
            res.push(Resource {
                value: (0..nk).map(|j| i128::from(j == k)).collect(),
                cap: Caps::Table(per_box.into_iter().map(|c| prefix_caps(c, total)).collect()),
            });
        }
    }
    // Dual-feasible values hold when one box size contains every box of every warehouse.
    let all: Vec<_> = lists.iter().flatten().collect();
    let outer = all
        .iter()
        .find(|o| all.iter().all(|b| (0..3).all(|a| b.size[a] <= o.size[a])));
    if let Some(o) = outer {
        let units: Vec<u32> = (0..nk as u32)
            .flat_map(|k| std::iter::repeat_n(k, need[k as usize] as usize))
            .collect();
        // Many functions map these few kinds alike: each distinct one is weighed once.
        let mut functions = bound::functions(&units, &p.kinds, o.size);
        functions.sort_unstable();
        functions.dedup();
        for (unit, value) in functions {
            res.push(Resource {
                value,
                cap: Caps::PerBox(unit),
            });
        }
    }
    let least = least_boxes(p, &usable, &need, &most);
    // Box counts per warehouse in order of their total; the first that fits is the bound.
    let forced = forced(&res, &usable, &need);
    for t in least.iter().sum::<usize>().max(1)..=most.iter().sum::<usize>() {
        let mut n = vec![0usize; nd];
        if counts_summing_to(t, 0, &mut n, &least, &most, &mut |n| {
            fractional_fit(n, &res, &forced, &most)
        }) {
            return t;
        }
    }
    most.iter().sum()
}

/// Per warehouse, per box of its list (`box_list`), the most units of `kind` the box holds.
fn kind_caps(p: &Problem, kind: &Kind, lists: &[Vec<&BoxKind>]) -> Vec<Vec<i128>> {
    // Warehouses often keep the same box sizes: each size weighed once.
    let mut seen: Vec<([i64; 3], i64, i128)> = Vec::new();
    let mut capacity = |b: &BoxKind| {
        if let Some(s) = seen.iter().find(|s| s.0 == b.size && s.1 == b.cap) {
            return s.2;
        }
        let c = kind_cap::capacity(kind, b, p.rules.max_units) as i128;
        seen.push((b.size, b.cap, c));
        c
    };
    p.depots
        .iter()
        .zip(lists)
        .map(|(d, l)| {
            let caps: Vec<i128> = d.boxes.iter().map(&mut capacity).collect();
            l.iter().map(|b| caps[b.index]).collect()
        })
        .collect()
}

/// Per warehouse, the boxes it needs at least: it ships whatever no other warehouse stocks,
/// and of that, kinds that may not share a box each need their own boxes there.
fn least_boxes(p: &Problem, usable: &[Vec<u64>], need: &[u64], most: &[usize]) -> Vec<usize> {
    let nd = p.depots.len();
    (0..nd)
        .map(|w| {
            let only_here = |k: usize| {
                let elsewhere: u64 = (0..nd).filter(|&v| v != w).map(|v| usable[v][k]).sum();
                need[k].saturating_sub(elsewhere)
            };
            let d = &p.depots[w];
            let alone = |k: usize| {
                kind_cap::boxes_alone(&p.kinds[k], only_here(k), &d.boxes, p.rules.max_units)
            };
            apart::boxes(&p.kinds, alone).min(most[w])
        })
        .collect()
}

/// Calls `fits` on every vector of counts from `w` on (each from `least` to `most`) totalling
/// `left`; true as soon as one fits.
fn counts_summing_to(
    left: usize,
    w: usize,
    n: &mut Vec<usize>,
    least: &[usize],
    most: &[usize],
    fits: &mut impl FnMut(&[usize]) -> bool,
) -> bool {
    if w == n.len() {
        return left == 0 && fits(n);
    }
    for c in least[w]..=left.min(most[w]) {
        n[w] = c;
        if counts_summing_to(left - c, w + 1, n, least, most, fits) {
            return true;
        }
    }
    n[w] = 0;
    false
}

/// No packing of `req` that ships every unit some warehouse can ship uses fewer packages.
/// Errors when the request is invalid.
pub fn lower_bound(req: &PackRequest) -> Result<usize> {
    Ok(bound_of(&problem::build(req)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoxType, Item, Warehouse};

    fn wh(id: &str, stock: &[(&str, i64)], boxes: Option<i64>) -> Warehouse {
        let mut w = Warehouse {
            warehouse_id: id.into(),
            boxes: vec![BoxType {
                quantity: boxes,
                ..BoxType::new("cube", 10.0, 10.0, 10.0, 100.0)
            }],
            ..Warehouse::default()
        };
        for (k, q) in stock {
            w.inventory.insert((*k).into(), *q);
        }
        w
    }

    #[test]
    fn counts_warehouses_volume_and_shape() {
        // Two items each stocked in one warehouse only: two packages, though one box holds
        // both.
        let req = PackRequest {
            items: vec![
                Item::new("a", 2.0, 2.0, 2.0, 1.0, 1),
                Item::new("b", 2.0, 2.0, 2.0, 1.0, 1),
            ],
            warehouses: vec![wh("w1", &[("a", 1)], None), wh("w2", &[("b", 1)], None)],
            ..PackRequest::default()
        };
        assert_eq!(lower_bound(&req).unwrap(), 2);
        // Both in one warehouse: one.
        let mut one = req.clone();
        one.warehouses[0].inventory.insert("b".into(), 1);
        assert_eq!(lower_bound(&one).unwrap(), 1);
        // Nine cubes of 6 in boxes of 10: one per box, whatever their volume says (a fifth
        // of a box each), split over two warehouses as they like.
        let cubes = PackRequest {
            items: vec![Item::new("c", 6.0, 6.0, 6.0, 1.0, 9)],
            warehouses: vec![wh("w1", &[("c", 5)], None), wh("w2", &[("c", 5)], None)],
            ..PackRequest::default()
        };
        assert_eq!(lower_bound(&cubes).unwrap(), 9);
        // Small cubes by volume: 20 of side 5 need three boxes of 10 (8 each).
        let small = PackRequest {
            items: vec![Item::new("s", 5.0, 5.0, 5.0, 1.0, 20)],
            warehouses: vec![wh("w1", &[("s", 20)], None)],
            ..PackRequest::default()
        };
        assert_eq!(lower_bound(&small).unwrap(), 3);
        // With one box in stock per warehouse, the other warehouse must ship some.
        let mut short = small.clone();
        short.warehouses = vec![
            wh("w1", &[("s", 20)], Some(1)),
            wh("w2", &[("s", 20)], Some(5)),
        ];
        assert_eq!(lower_bound(&short).unwrap(), 3);
    }

    #[test]
    fn counts_each_kind_against_what_a_box_holds_of_it() {
        // Upright units of 10 x 10 x 11 go two to a 24 x 18 x 16 box, side by side: nine
        // need five boxes, though their volume fits in two.
        let boxes = |quantity| {
            vec![BoxType {
                quantity,
                ..BoxType::new("b", 24.0, 18.0, 16.0, 100.0)
            }]
        };
        let mut item = Item::new("u", 10.0, 10.0, 11.0, 1.0, 9);
        item.orientation = crate::model::Orientation::Upright;
        let stocked = |q, b| {
            let mut w = Warehouse {
                warehouse_id: format!("w{q}"),
                boxes: boxes(b),
                ..Warehouse::default()
            };
            w.inventory.insert("u".into(), q);
            w
        };
        let req = PackRequest {
            items: vec![item],
            warehouses: vec![stocked(5, Some(2)), stocked(6, None)],
            ..PackRequest::default()
        };
        assert_eq!(lower_bound(&req).unwrap(), 5);
        // Three boxes in all hold six of the nine: the bound is about the six they can hold,
        // not a count no packing reaches.
        let mut short = req.clone();
        short.warehouses = vec![stocked(9, Some(3))];
        assert_eq!(lower_bound(&short).unwrap(), 3);
    }

    #[test]
    fn kinds_that_may_not_share_a_box_need_their_own_where_only_one_warehouse_has_them() {
        // A flammable liquid and an oxidizer (classes 3 and 5.1 are kept apart), small enough
        // to share one box by volume: two boxes when one warehouse must ship both.
        let mut items = vec![
            Item::new("fuel", 2.0, 2.0, 2.0, 1.0, 1),
            Item::new("oxidizer", 2.0, 2.0, 2.0, 1.0, 1),
        ];
        for (it, class) in items.iter_mut().zip(["3", "5.1"]) {
            it.hazmat = Some(crate::model::Hazmat {
                class: class.into(),
                un_number: None,
            });
        }
        let req = PackRequest {
            items,
            warehouses: vec![
                wh("w1", &[("fuel", 1), ("oxidizer", 1)], None),
                wh("w2", &[("fuel", 0)], None),
            ],
            ..PackRequest::default()
        };
        assert_eq!(lower_bound(&req).unwrap(), 2);
        // A class that may travel with both (9, miscellaneous) in their place: one box.
        let mut calm = req.clone();
        calm.items[1].hazmat.as_mut().unwrap().class = "9".into();
        assert_eq!(lower_bound(&calm).unwrap(), 1);
    }
}
