//! Checks a request field by field (errors name the field, e.g. `items[2].width`) and turns it
//! into the packer's fixed-point problem: unit kinds with their turns and conflicts, warehouses
//! with box kinds and stock, and the request-wide rules, instructions applied.

use crate::error::{Error, Result};
use crate::geometry::{len_down, len_up, volume, weight_down, weight_up, V3};
use crate::hazmat::{self, HazClass};
use crate::instructions::{self, Directives};
use crate::model::{default_time_limit_ms, Goal, Orientation, PackRequest, MAX_TIME_LIMIT_MS};
use crate::orientation::{turns, Turn};

/// Default share of a unit's base that must rest on the floor or on tops of units directly
/// below it, as `SUPPORT_NUM / SUPPORT_DEN`: full support is what a packer at the bench can
/// trust without thinking about overhangs. `options.min_support` may lower it to a half; the
/// validator checks the request's share.
pub const SUPPORT_NUM: i64 = 1;
pub const SUPPORT_DEN: i64 = 1;

/// Largest accepted length, in request units.
pub const MAX_LENGTH: f64 = 1.0e6;
/// Largest accepted weight, in request units.
pub const MAX_WEIGHT: f64 = 1.0e9;
/// Most physical units one request may ask for.
pub const MAX_UNITS: i64 = 10_000;
/// Work units (candidate positions and unit pairs examined) the packer may spend per
/// millisecond of `time_limit_ms`. A release build on one core of the development machine does
/// 50,000-140,000 per millisecond depending on the load, so the limit is kept about as a time
/// limit; it is never read from a clock, which keeps results identical for identical requests.
pub const WORK_PER_MS: u64 = 60_000;

/// Passes the default budget allows a request in all: the packing of the assigned warehouse
/// split, then, for an order from several warehouses still above its bound, the close splits,
/// the harder search and the moves between warehouses (BENCHMARKS.md, session 19).
pub const DEFAULT_PASSES: u64 = 16;

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

fn positive(v: f64, max: f64, field: impl FnOnce() -> String) -> Result<()> {
    if !v.is_finite() || v <= 0.0 || v > max {
        return Err(Error::field(
            field(),
            format!("must be a number above 0 and at most {max}"),
        ));
    }
    Ok(())
}

fn non_negative(v: f64, max: f64, field: impl FnOnce() -> String) -> Result<()> {
    if !v.is_finite() || v < 0.0 || v > max {
        return Err(Error::field(
            field(),
            format!("must be a number from 0 to {max}"),
        ));
    }
    Ok(())
}

/// Width, height and length (in that order, named by `f`) must be positive lengths.
fn lengths(whl: [f64; 3], f: impl Fn(&str) -> String) -> Result<()> {
    for (v, name) in whl.into_iter().zip(["width", "height", "length"]) {
        positive(v, MAX_LENGTH, || f(name))?;
    }
    Ok(())
}

/// An id (`name`, at `field`) must not be blank nor repeat one of the `earlier` ones.
fn unique_id<'a>(
    id: &str,
    mut earlier: impl Iterator<Item = &'a str>,
    field: String,
    name: &str,
) -> Result<()> {
    if id.trim().is_empty() {
        return Err(Error::field(field, "must not be empty"));
    }
    if earlier.any(|o| o == id) {
        return Err(Error::field(field, format!("duplicates an earlier {name}")));
    }
    Ok(())
}

/// Field-by-field checks of the request.
pub(crate) fn check(req: &PackRequest) -> Result<()> {
    if req.items.is_empty() {
        return Err(Error::field("items", "must list at least one item"));
    }
    let mut total = 0i64;
    for (i, it) in req.items.iter().enumerate() {
        let f = |name: &str| format!("items[{i}].{name}");
        let earlier = req.items[..i].iter().map(|o| o.item_id.as_str());
        unique_id(&it.item_id, earlier, f("item_id"), "item_id")?;
        lengths([it.width, it.height, it.length], f)?;
        non_negative(it.weight, MAX_WEIGHT, || f("weight"))?;
        if !(1..=MAX_UNITS).contains(&it.quantity) {
            return Err(Error::field(
                f("quantity"),
                format!("must be from 1 to {MAX_UNITS}"),
            ));
        }
        total += it.quantity;
        if let Some(h) = &it.hazmat {
            if hazmat::parse_class(&h.class).is_none() {
                return Err(Error::field(
                    f("hazmat.class"),
                    "must be a DOT hazard class or division such as 3, 2.1 or 5.1",
                ));
            }
        }
    }
    if total > MAX_UNITS {
        return Err(Error::field(
            "items",
            format!("at most {MAX_UNITS} units in total"),
        ));
    }
    if req.warehouses.is_empty() {
        return Err(Error::field(
            "warehouses",
            "must list at least one warehouse",
        ));
    }
    for (w, wh) in req.warehouses.iter().enumerate() {
        let earlier = req.warehouses[..w].iter().map(|o| o.warehouse_id.as_str());
        let field = format!("warehouses[{w}].warehouse_id");
        unique_id(&wh.warehouse_id, earlier, field, "warehouse_id")?;
        for (b, bx) in wh.boxes.iter().enumerate() {
            let f = |name: &str| format!("warehouses[{w}].boxes[{b}].{name}");
            let earlier = wh.boxes[..b].iter().map(|o| o.box_id.as_str());
            unique_id(&bx.box_id, earlier, f("box_id"), "box_id")?;
            lengths([bx.width, bx.height, bx.length], f)?;
            positive(bx.max_weight, MAX_WEIGHT, || f("max_weight"))?;
            non_negative(bx.cost, MAX_WEIGHT, || f("cost"))?;
            non_negative(bx.tare_weight, MAX_WEIGHT, || f("tare_weight"))?;
            if bx.quantity.is_some_and(|q| !(0..=1_000_000).contains(&q)) {
                return Err(Error::field(f("quantity"), "must be from 0 to 1000000"));
            }
        }
        for (id, &n) in &wh.inventory {
            if n < 0 {
                let field = format!("warehouses[{w}].inventory.{id}");
                return Err(Error::field(field, "must not be negative"));
            }
        }
    }
    let min = req.options.min_support;
    if !(0.5..=1.0).contains(&min) {
        return Err(Error::field(
            "options.min_support",
            "must be a number from 0.5 to 1",
        ));
    }
    if req
        .options
        .time_limit_ms
        .is_some_and(|t| t > MAX_TIME_LIMIT_MS)
    {
        let msg = format!("must be at most {MAX_TIME_LIMIT_MS}");
        return Err(Error::field("options.time_limit_ms", msg));
    }
    Ok(())
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
    let time = req
        .options
        .time_limit_ms
        .unwrap_or_else(|| default_time_limit_ms(units));
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
        total: match req.options.time_limit_ms {
            Some(named) => named * WORK_PER_MS,
            None => DEFAULT_PASSES * time * WORK_PER_MS,
        },
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
    fn a_named_limit_is_the_whole_requests_and_the_default_allows_several_passes() {
        let total = |units, limit| build(&request(units, limit)).unwrap().total / WORK_PER_MS;
        assert_eq!(total(20, Some(40)), 40);
        assert_eq!(total(5_000, Some(60_000)), 60_000);
        assert_eq!(total(20, None), DEFAULT_PASSES * 100);
        assert_eq!(total(5_000, None), DEFAULT_PASSES * 200);
    }
}
