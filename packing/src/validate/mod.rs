//! The independent validator: checks a solution against the request from the rules alone, in
//! plain f64 arithmetic, sharing no geometry with the packer. Placement checks live here;
//! `figures` checks each package's reported figures, `counts` the totals and accounting.

mod counts;
mod figures;

use crate::instructions::{self, Directives};
use crate::model::{Orientation, PackRequest};
use crate::solution::{PackSolution, PlacedItem};
use std::collections::BTreeMap;
use std::fmt;

/// The engine resolves lengths to 1/1000 of the unit and rounds item sizes up, so a unit may
/// rest up to this far above the top of the unit carrying it.
pub const CONTACT_TOLERANCE: f64 = 1e-3;

/// A broken rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// Index of the package concerned, if any.
    pub package: Option<usize>,
    /// Short rule name, e.g. `overlap`, `support`, `inventory`.
    pub rule: &'static str,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.package {
            Some(p) => write!(f, "package {p}: {}: {}", self.rule, self.message),
            None => write!(f, "{}: {}", self.rule, self.message),
        }
    }
}

pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * (1.0 + a.abs().max(b.abs()))
}

/// Extent of a unit along x, y, z and its start.
pub(super) fn span(i: &PlacedItem, axis: usize) -> (f64, f64) {
    match axis {
        0 => (i.position.x, i.position.x + i.dimensions.width),
        1 => (i.position.y, i.position.y + i.dimensions.height),
        _ => (i.position.z, i.position.z + i.dimensions.length),
    }
}

pub(super) fn shared(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.1.min(b.1) - a.0.max(b.0)).max(0.0)
}

/// Whether `placed` is a turn of `own` (width, height, length) that `rule` allows.
fn turn_allowed(placed: [f64; 3], own: [f64; 3], rule: Orientation) -> bool {
    let mut a = placed;
    let mut b = own;
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let same_set = a == b;
    match rule {
        Orientation::Any => same_set,
        Orientation::Upright => {
            placed[1] == own[1]
                && ((placed[0] == own[0] && placed[2] == own[2])
                    || (placed[0] == own[2] && placed[2] == own[0]))
        }
        Orientation::Fixed => placed == own,
    }
}

/// The item's orientation rule with the instructions applied.
pub(super) fn rule_of(req: &PackRequest, d: &Directives, i: usize) -> Orientation {
    let mut rule = req.items[i].orientation;
    if d.upright.contains(&i) && rule == Orientation::Any {
        rule = Orientation::Upright;
    }
    if d.fixed.contains(&i) {
        rule = Orientation::Fixed;
    }
    rule
}

pub(super) struct Checker<'a> {
    pub req: &'a PackRequest,
    pub out: Vec<Violation>,
}

impl Checker<'_> {
    pub fn fail(&mut self, package: Option<usize>, rule: &'static str, message: String) {
        self.out.push(Violation {
            package,
            rule,
            message,
        });
    }
}

/// Checks `sol` against `req`; `Err` lists every violation found.
pub fn validate(req: &PackRequest, sol: &PackSolution) -> Result<(), Vec<Violation>> {
    let mut c = Checker {
        req,
        out: Vec::new(),
    };
    if let Err(e) = crate::check::check(req) {
        c.fail(None, "request", e.to_string());
        return Err(c.out);
    }
    let d = instructions::read(req);
    let item_index: BTreeMap<&str, usize> = req
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.item_id.as_str(), i))
        .collect();
    let mut placed_count = vec![0i64; req.items.len()];
    let mut stock_used: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    let mut boxes_used: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    for (pi, pkg) in sol.packages.iter().enumerate() {
        let p = Some(pi);
        let Some(w) = req
            .warehouses
            .iter()
            .position(|w| w.warehouse_id == pkg.warehouse_id)
        else {
            c.fail(
                p,
                "warehouse",
                format!("unknown warehouse {}", pkg.warehouse_id),
            );
            continue;
        };
        let wh = &req.warehouses[w];
        let Some(b) = wh.boxes.iter().position(|b| b.box_id == pkg.box_id) else {
            c.fail(
                p,
                "box",
                format!("warehouse {} has no box {}", wh.warehouse_id, pkg.box_id),
            );
            continue;
        };
        *boxes_used.entry((w, b)).or_default() += 1;
        let bx = &wh.boxes[b];
        let size = [bx.width, bx.height, bx.length];
        let bd = pkg.box_dimensions;
        if [bd.width, bd.height, bd.length] != size {
            c.fail(p, "box_dimensions", "differ from the box's".into());
        }
        let tol = 1e-7 * (1.0 + size.iter().fold(0.0f64, |m, v| m.max(*v)));
        let mut idx = Vec::with_capacity(pkg.items.len());
        for (ui, u) in pkg.items.iter().enumerate() {
            let Some(&i) = item_index.get(u.item_id.as_str()) else {
                c.fail(p, "item", format!("unknown item {}", u.item_id));
                continue;
            };
            idx.push((ui, i));
            placed_count[i] += 1;
            *stock_used.entry((w, i)).or_default() += 1;
            let it = &req.items[i];
            let own = [it.width, it.height, it.length];
            let dims = [u.dimensions.width, u.dimensions.height, u.dimensions.length];
            let rule = rule_of(req, &d, i);
            if !turn_allowed(dims, own, rule) {
                c.fail(
                    p,
                    "orientation",
                    format!(
                        "{} placed as {dims:?} breaks its rule {}",
                        u.item_id,
                        rule.as_str()
                    ),
                );
            }
            if u.rotated != (dims != own) {
                c.fail(
                    p,
                    "rotated",
                    format!("{}: rotated flag does not match its dimensions", u.item_id),
                );
            }
            if u.weight != it.weight {
                c.fail(
                    p,
                    "weight",
                    format!("{}: unit weight differs from the item's", u.item_id),
                );
            }
            for (a, &s) in size.iter().enumerate() {
                let (lo, hi) = span(u, a);
                if lo < -tol || hi > s + tol {
                    c.fail(
                        p,
                        "inside",
                        format!("{} sticks out of the box along axis {a}", u.item_id),
                    );
                }
            }
        }
        let items = &pkg.items;
        // Every pair rule below needs the two units to share some width (x), so the units are
        // swept by where they start along x: a unit only meets those starting before it ends
        // and, at most the widest width earlier, after it starts. This keeps a package of
        // thousands of units fast without weakening any check.
        let by_x = |a: &(usize, usize), b: &(usize, usize)| {
            span(&items[a.0], 0).0.total_cmp(&span(&items[b.0], 0).0)
        };
        idx.sort_by(by_x);
        let starts: Vec<f64> = idx.iter().map(|&(ui, _)| span(&items[ui], 0).0).collect();
        let widest = idx
            .iter()
            .map(|&(ui, _)| items[ui].dimensions.width)
            .fold(0.0f64, f64::max);
        for (x, &(ui, i)) in idx.iter().enumerate() {
            let u = &items[ui];
            let (y0, _) = span(u, 1);
            let (x0, x1) = span(u, 0);
            let base = u.dimensions.width * u.dimensions.length;
            let mut support = 0.0;
            let after = starts[x + 1..].partition_point(|&s| s < x1);
            for &(vj, j) in &idx[x + 1..x + 1 + after] {
                let v = &items[vj];
                if (0..3).all(|a| shared(span(u, a), span(v, a)) > tol) {
                    c.fail(
                        p,
                        "overlap",
                        format!("{} and {} overlap", u.item_id, v.item_id),
                    );
                }
                for (lo, hi, lo_i, hi_i) in [(u, v, i, j), (v, u, j, i)] {
                    let foot = shared(span(lo, 0), span(hi, 0)) * shared(span(lo, 2), span(hi, 2));
                    if foot > tol * tol && span(hi, 1).0 >= span(lo, 1).1 - tol {
                        let (a, b) = (&req.items[lo_i], &req.items[hi_i]);
                        let no_load = !a.stackable
                            || d.no_stack.contains(&lo_i)
                            || (d.fragile_on_top && a.fragile);
                        if no_load
                            || (a.fragile && !b.fragile)
                            || (d.heavy_bottom && b.weight > a.weight)
                        {
                            c.fail(
                                p,
                                "stacking",
                                format!("{} may not carry {}", a.item_id, b.item_id),
                            );
                        }
                    }
                }
            }
            // Each carrying unit may fall short of its rounded-up size by one resolution step
            // along its edges, which the required area allows for.
            let mut slack = tol * (1.0 + base);
            let from = starts.partition_point(|&s| s < x0 - widest - tol);
            let to = starts.partition_point(|&s| s < x1);
            for &(vj, _) in &idx[from..to] {
                let v = &items[vj];
                if vj != ui && (span(v, 1).1 - y0).abs() <= CONTACT_TOLERANCE + tol {
                    let area = shared(span(u, 0), span(v, 0)) * shared(span(u, 2), span(v, 2));
                    if area > 0.0 {
                        support += area;
                        slack += CONTACT_TOLERANCE * (u.dimensions.width + u.dimensions.length);
                    }
                }
            }
            let ratio = req.options.min_support.clamp(0.5, 1.0);
            if req.options.require_support && y0 > tol && support < ratio * base - slack {
                c.fail(
                    p,
                    "support",
                    format!(
                        "{} at y={y0} rests on {:.1}% of its base",
                        u.item_id,
                        100.0 * support / base
                    ),
                );
            }
        }
        figures::check(&mut c, pi, pkg, &d, &idx, bx, size);
    }
    counts::check(&mut c, sol, &d, &placed_count, &stock_used, &boxes_used);
    if c.out.is_empty() {
        Ok(())
    } else {
        Err(c.out)
    }
}
