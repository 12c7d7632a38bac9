//! Turns a request (checked by `check.rs`) into the packer's fixed-point problem: unit kinds
//! with their turns and conflicts, warehouses with box kinds and stock, the request-wide rules,
//! instructions applied, and the work budgets of a pass and of the whole request.

use crate::check::check;
use crate::error::Result;
use crate::geometry::{len_down, len_up, volume, weight_down, weight_up, V3};
use crate::hazmat::{self, HazClass};
use crate::instructions::{self, Directives};
use crate::model::{default_time_limit_ms, Goal, Orientation, PackRequest};
use crate::orientation::{turns, Turn};

/// Default share of a unit's base that must rest on the floor or on tops of units directly
/// below it, as `SUPPORT_NUM / SUPPORT_DEN`: full support is what a packer at the bench can
/// trust without thinking about overhangs. `options.min_support` may lower it to a half; the
/// validator checks the request's share.
pub const SUPPORT_NUM: i64 = 1;
pub const SUPPORT_DEN: i64 = 1;

/// Work units (candidate positions and unit pairs examined) the packer may spend per
/// millisecond of `time_limit_ms`. A release build on one core of the development machine does
/// 50,000-140,000 per millisecond depending on the load, so the limit is kept about as a time
/// limit; it is never read from a clock, which keeps results identical for identical requests.
pub const WORK_PER_MS: u64 = 60_000;

/// Passes the default budget allows a request in all: the packing of the assigned warehouse
/// split, then, for an order from several warehouses still above its bound, the close splits,
/// the harder search and the moves between warehouses. Ten pack every benchmark cart as
/// sixteen did, and the slowest in 1.0-1.2 s instead of 1.7-1.9; nine lose a package
/// (BENCHMARKS.md, sessions 19-20).
pub const DEFAULT_PASSES: u64 = 10;

/// The parts a named `time_limit_ms` of an order from several warehouses is cut into, at the
/// least, one a pass: at 1,600 ms, sixteen parts pack the benchmark carts in 1,160 packages,
/// ten parts in 1,162 (BENCHMARKS.md, session 20).
const NAMED_PARTS: u64 = 16;

/// Request-wide placement rules.
#[derive(Debug, Clone)]
pub(crate) struct Rules {
    pub require_support: bool,
    /// Share of a unit's base that must rest, `support.0 / support.1` (with support required).
    pub support: (i64, i64),
    pub heavy_bottom: bool,
    pub max_units: Option<u32>,
}

#[cfg(test)]
impl Rules {
    /// Every unit rests wholly on the floor or on units below: what the packer's unit tests
    /// pack under.
    pub(crate) fn full_support() -> Rules {
        Rules {
            require_support: true,
            ..Rules::default()
        }
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            require_support: false,
            support: (SUPPORT_NUM, SUPPORT_DEN),
            heavy_bottom: false,
            max_units: None,
        }
    }
}

impl Rules {
    /// Whether `area` of a base of `base` resting on something is enough.
    pub fn rests(&self, area: i128, base: i128) -> bool {
        area * self.support.1 as i128 >= base * self.support.0 as i128
    }
}

/// Thousandths in which `options.min_support` is applied, rounded up so that the packer never
/// accepts less than asked.
const SUPPORT_STEPS: i64 = 1000;

/// All units of one request item.
#[derive(Debug, Clone)]
pub(crate) struct Kind {
    pub item: usize,
    /// Units requested.
    pub quantity: u64,
    pub turns: Vec<Turn>,
    pub volume: i128,
    pub weight: i64,
    pub fragile: bool,
    /// Nothing may be placed above a unit of this kind.
    pub no_load: bool,
    pub hazmat: Option<HazClass>,
    /// Kinds that may not share a package with this one (segregation and instructions), sorted.
    pub conflicts: Vec<u32>,
}

#[cfg(test)]
impl Kind {
    /// `quantity` units of item 0 measuring `dims`, turned as `rule` allows, of weight 1
    /// and free of every other constraint: what the packer's unit tests start from.
    pub(crate) fn plain(dims: V3, rule: Orientation, quantity: u64) -> Kind {
        Kind {
            item: 0,
            quantity,
            turns: turns(dims, rule),
            volume: volume(dims),
            weight: 1,
            fragile: false,
            no_load: false,
            hazmat: None,
            conflicts: Vec::new(),
        }
    }
}

/// A box type of one warehouse.
#[derive(Debug, Clone)]
pub(crate) struct BoxKind {
    /// Index in the warehouse's `boxes`.
    pub index: usize,
    pub size: V3,
    /// Weight the units may add up to: the limit (and the instruction cap) less the tare.
    pub cap: i64,
    pub cost: f64,
    pub quantity: Option<u64>,
    pub volume: i128,
}

#[cfg(test)]
impl BoxKind {
    /// A box kind of `size` in unlimited supply, cost 0 and no weight limit to speak of: what
    /// the packer's unit tests pack into.
    pub(crate) fn test_box(size: V3) -> BoxKind {
        BoxKind {
            index: 0,
            size,
            cap: 1 << 40,
            cost: 0.0,
            quantity: None,
            volume: size.iter().map(|&s| s as i128).product(),
        }
    }
}

/// A warehouse as the packer sees it.
#[derive(Debug, Clone)]
pub(crate) struct Depot {
    pub boxes: Vec<BoxKind>,
    /// Stock per kind.
    pub stock: Vec<u64>,
}

#[derive(Clone)]
pub(crate) struct Problem {
    pub kinds: Vec<Kind>,
    pub depots: Vec<Depot>,
    pub rules: Rules,
    pub goal: Goal,
    /// Candidate evaluations allowed to one pass (the packing of one warehouse split).
    pub budget: u64,
    /// Candidate evaluations allowed to the whole request, every pass together: the named
    /// `time_limit_ms`, or [`DEFAULT_PASSES`] passes at the default budget.
    pub total: u64,
    /// Improvement moves without gain tolerated before the search stops early.
    pub patience: usize,
    /// Randomised fills per new box in the first packing (half that in later moves).
    pub restarts: usize,
    pub directives: Directives,
}

/// `min_support` as a fraction in thousandths, rounded up.
fn support_ratio(min: f64) -> (i64, i64) {
    let num = (min * SUPPORT_STEPS as f64 - 1e-9).ceil() as i64;
    if num >= SUPPORT_STEPS {
        (SUPPORT_NUM, SUPPORT_DEN)
    } else {
        (num, SUPPORT_STEPS)
    }
}

/// Builds the problem of a checked request.
pub(crate) fn build(req: &PackRequest) -> Result<Problem> {
    check(req)?;
    let directives = instructions::read(req);
    let d = &directives;
    let mut kinds: Vec<Kind> = req
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let dims = [len_up(it.width), len_up(it.height), len_up(it.length)];
            let mut rule = it.orientation;
            if d.upright.contains(&i) && rule == Orientation::Any {
                rule = Orientation::Upright;
            }
            if d.fixed.contains(&i) {
                rule = Orientation::Fixed;
            }
            Kind {
                item: i,
                quantity: it.quantity as u64,
                turns: turns(dims, rule),
                volume: volume(dims),
                weight: weight_up(it.weight),
                fragile: it.fragile,
                no_load: !it.stackable
                    || d.no_stack.contains(&i)
                    || (d.fragile_on_top && it.fragile),
                hazmat: it
                    .hazmat
                    .as_ref()
                    .and_then(|h| hazmat::parse_class(&h.class)),
                conflicts: Vec::new(),
            }
        })
        .collect();
    let n = kinds.len();
    for a in 0..n {
        for b in 0..n {
            let haz = match (&kinds[a].hazmat, &kinds[b].hazmat) {
                (Some(x), Some(y)) => !hazmat::compatible(x, y),
                _ => false,
            };
            if a != b && (haz || d.apart.contains(&(a.min(b), a.max(b)))) {
                kinds[a].conflicts.push(b as u32);
            }
        }
    }
    let cap_gross = d.max_weight.map(weight_down);
    let depots = req
        .warehouses
        .iter()
        .map(|wh| Depot {
            boxes: wh
                .boxes
                .iter()
                .enumerate()
                .map(|(index, bx)| {
                    let size = [len_down(bx.width), len_down(bx.height), len_down(bx.length)];
                    let limit = weight_down(bx.max_weight).min(cap_gross.unwrap_or(i64::MAX));
                    BoxKind {
                        index,
                        size,
                        cap: limit - weight_up(bx.tare_weight),
                        cost: bx.cost,
                        quantity: bx.quantity.map(|q| q as u64),
                        volume: volume(size),
                    }
                })
                .collect(),
            stock: req
                .items
                .iter()
                .map(|it| wh.inventory.get(&it.item_id).copied().unwrap_or(0) as u64)
                .collect(),
        })
        .collect();
    let units: u64 = kinds.iter().map(|k| k.quantity).sum();
    let default = default_time_limit_ms(units);
    // One pass's time. A named limit is the whole request's: an order one warehouse ships
    // packs in one pass with all of it; an order from several may take several passes (other
    // splits, moves between warehouses), so each gets the default pass or a sixteenth of the
    // limit, whichever is more, and the passes share the limit.
    let time = match req.options.time_limit_ms {
        None => default,
        Some(named) if req.warehouses.len() < 2 => named,
        Some(named) => (named / NAMED_PARTS).max(default.min(named)),
    };
    Ok(Problem {
        kinds,
        depots,
        rules: Rules {
            require_support: req.options.require_support,
            support: support_ratio(req.options.min_support),
            heavy_bottom: d.heavy_bottom,
            max_units: d.max_units,
        },
        goal: d.goal.unwrap_or(req.options.goal),
        budget: time * WORK_PER_MS,
        total: req
            .options
            .time_limit_ms
            .unwrap_or(DEFAULT_PASSES * default)
            * WORK_PER_MS,
        patience: (time / 4) as usize,
        // 8 at the default budget: more randomised fills per box paid there (BENCHMARKS.md).
        restarts: (time / 12).min(64) as usize,
        directives,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoxType, Item, Warehouse};

    fn request(units: i64, time_limit_ms: Option<u64>) -> PackRequest {
        let mut wh = Warehouse {
            warehouse_id: "w".into(),
            boxes: vec![BoxType::new("b", 10.0, 10.0, 10.0, 1.0)],
            ..Warehouse::default()
        };
        wh.inventory.insert("a".into(), units);
        let mut req = PackRequest {
            items: vec![Item::new("a", 1.0, 1.0, 1.0, 0.0, units)],
            warehouses: vec![wh],
            ..PackRequest::default()
        };
        req.options.time_limit_ms = time_limit_ms;
        req
    }

    #[test]
    fn the_default_budget_grows_with_the_unit_count_between_its_bounds() {
        let budget = |units, limit| build(&request(units, limit)).unwrap().budget / WORK_PER_MS;
        assert_eq!(budget(20, None), 100);
        assert_eq!(budget(75, None), 150);
        assert_eq!(budget(5_000, None), 200);
        // A budget the caller names is taken as it is, whatever the order's size.
        assert_eq!(budget(5_000, Some(40)), 40);
    }

    #[test]
    fn a_named_limit_is_one_pass_from_one_warehouse_and_shared_by_passes_from_several() {
        let pass = |units, limit, warehouses: usize| {
            let mut req = request(units, limit);
            for w in 1..warehouses {
                let mut wh = req.warehouses[0].clone();
                wh.warehouse_id = format!("w{w}");
                req.warehouses.push(wh);
            }
            let p = build(&req).unwrap();
            (p.budget / WORK_PER_MS, p.total / WORK_PER_MS)
        };
        assert_eq!(pass(20, Some(5_000), 1), (5_000, 5_000));
        // From several warehouses: the default pass (100 ms for 20 units) or a sixteenth of
        // the limit, whichever is more, never more than the limit.
        assert_eq!(pass(20, Some(1_600), 2), (100, 1_600));
        assert_eq!(pass(20, Some(5_000), 3), (312, 5_000));
        assert_eq!(pass(20, Some(40), 2), (40, 40));
        assert_eq!(pass(20, None, 2), (100, DEFAULT_PASSES * 100));
    }

    #[test]
    fn a_named_limit_is_the_whole_requests_and_the_default_allows_several_passes() {
        let total = |units, limit| build(&request(units, limit)).unwrap().total / WORK_PER_MS;
        assert_eq!(total(20, Some(40)), 40);
        assert_eq!(total(5_000, Some(60_000)), 60_000);
        assert_eq!(total(20, None), DEFAULT_PASSES * 100);
        assert_eq!(total(5_000, None), DEFAULT_PASSES * 200);
    }
}
