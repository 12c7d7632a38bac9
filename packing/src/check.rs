//! Checks a request field by field before anything is built from it: every error names the
//! offending field (e.g. `items[2].width`) and says what it accepts.

use crate::error::{Error, Result};
use crate::hazmat;
use crate::model::{PackRequest, MAX_TIME_LIMIT_MS};

/// Largest accepted length, in request units.
pub const MAX_LENGTH: f64 = 1.0e6;
/// Largest accepted weight, in request units.
pub const MAX_WEIGHT: f64 = 1.0e9;
/// Most physical units one request may ask for.
pub const MAX_UNITS: i64 = 10_000;

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
