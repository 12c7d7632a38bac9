//! Deterministic reader of the free-text `options.instructions`: each sentence is matched
//! against the documented phrasings (see [`read`]) and comes back applied or not understood.

mod text;

use crate::model::{Goal, PackRequest};
use crate::solution::{InstructionOutcome, InstructionStatus};
use text::{capture, items_named, list, names, normalise, quantity, sentences, warehouse_named};

/// Everything the instructions asked for, resolved to item and warehouse indices.
#[derive(Debug, Clone, Default)]
pub(crate) struct Directives {
    pub apart: Vec<(usize, usize)>,
    pub upright: Vec<usize>,
    pub fixed: Vec<usize>,
    pub no_stack: Vec<usize>,
    pub fragile_on_top: bool,
    pub heavy_bottom: bool,
    pub prefer: Vec<usize>,
    pub avoid: Vec<usize>,
    /// Gross weight cap per package, in the request's weight unit.
    pub max_weight: Option<f64>,
    pub max_units: Option<u32>,
    pub goal: Option<Goal>,
    pub outcomes: Vec<InstructionOutcome>,
}

#[derive(Clone, Copy)]
enum Rule {
    Apart,
    ApartPair,
    Alone,
    AloneOrApart,
    Upright,
    Fixed,
    NoStack,
    FragileTop,
    HeavyBottom,
    Prefer,
    Avoid,
    Cap,
    WeightCap,
    Goal(Goal),
}

const PATTERNS: &[(&str, Rule)] = &[
    ("keep {} apart", Rule::Apart),
    ("keep {} separated", Rule::Apart),
    ("keep {} away from {}", Rule::ApartPair),
    ("keep {} separate from {}", Rule::ApartPair),
    ("keep {} separate", Rule::AloneOrApart),
    ("do not pack {} with {}", Rule::ApartPair),
    ("never pack {} with {}", Rule::ApartPair),
    ("{} in separate packages", Rule::Apart),
    ("{} in separate boxes", Rule::Apart),
    ("separate {}", Rule::Apart),
    ("pack {} alone", Rule::Alone),
    ("ship {} alone", Rule::Alone),
    ("put {} in its own package", Rule::Alone),
    ("put {} in its own box", Rule::Alone),
    ("{} in its own package", Rule::Alone),
    ("{} in its own box", Rule::Alone),
    ("pack {} separately", Rule::AloneOrApart),
    ("ship {} separately", Rule::AloneOrApart),
    ("keep {} upright", Rule::Upright),
    ("{} this side up", Rule::Upright),
    ("{} must stay upright", Rule::Upright),
    ("{} upright", Rule::Upright),
    ("do not rotate {}", Rule::Fixed),
    ("never rotate {}", Rule::Fixed),
    ("no rotation for {}", Rule::Fixed),
    ("nothing on top of {}", Rule::NoStack),
    ("do not stack anything on {}", Rule::NoStack),
    ("do not stack on {}", Rule::NoStack),
    ("do not stack {}", Rule::NoStack),
    ("{} is not stackable", Rule::NoStack),
    ("{} are not stackable", Rule::NoStack),
    ("fragile on top", Rule::FragileTop),
    ("fragile items on top", Rule::FragileTop),
    ("put fragile items on top", Rule::FragileTop),
    ("pack fragile items on top", Rule::FragileTop),
    ("fragile items go on top", Rule::FragileTop),
    ("heavy items on the bottom", Rule::HeavyBottom),
    ("heavy items at the bottom", Rule::HeavyBottom),
    ("put heavy items on the bottom", Rule::HeavyBottom),
    ("heavy items below light items", Rule::HeavyBottom),
    ("prefer shipping from {}", Rule::Prefer),
    ("prefer {}", Rule::Prefer),
    ("ship from {}", Rule::Prefer),
    ("use warehouse {}", Rule::Prefer),
    ("avoid {}", Rule::Avoid),
    ("do not ship from {}", Rule::Avoid),
    ("do not use {}", Rule::Avoid),
    ("at most {} per package", Rule::Cap),
    ("max {} per package", Rule::Cap),
    ("maximum {} per package", Rule::Cap),
    ("no more than {} per package", Rule::Cap),
    ("no package over {}", Rule::WeightCap),
    ("no package heavier than {}", Rule::WeightCap),
    ("keep packages under {}", Rule::WeightCap),
    ("weight limit of {} per package", Rule::WeightCap),
    ("weight limit {} per package", Rule::WeightCap),
    ("weight limit of {}", Rule::WeightCap),
    ("weight limit {}", Rule::WeightCap),
    ("minimize cost", Rule::Goal(Goal::LowestCost)),
    ("lowest cost", Rule::Goal(Goal::LowestCost)),
    ("cheapest boxes", Rule::Goal(Goal::LowestCost)),
    ("cheapest", Rule::Goal(Goal::LowestCost)),
    ("fewest packages", Rule::Goal(Goal::FewestPackages)),
    ("fewest boxes", Rule::Goal(Goal::FewestPackages)),
    ("fewest warehouses", Rule::Goal(Goal::FewestWarehouses)),
    (
        "ship from one warehouse",
        Rule::Goal(Goal::FewestWarehouses),
    ),
    ("best fit", Rule::Goal(Goal::BestFit)),
    ("maximize utilization", Rule::Goal(Goal::BestFit)),
    ("balance the weight", Rule::Goal(Goal::BalancedWeight)),
    ("balance weight", Rule::Goal(Goal::BalancedWeight)),
    ("balanced weight", Rule::Goal(Goal::BalancedWeight)),
];

/// Applies one sentence; `Ok(detail)` when understood.
fn apply(
    (low, orig): (String, String),
    req: &PackRequest,
    d: &mut Directives,
) -> Result<String, String> {
    // Fixed phrasings first, so that "ship from one warehouse" is not read as a warehouse name.
    let fixed = PATTERNS.iter().filter(|(p, _)| !p.contains("{}"));
    let open = PATTERNS.iter().filter(|(p, _)| p.contains("{}"));
    let Some((caps, rule)) = fixed
        .chain(open)
        .find_map(|(p, r)| capture(&low, p).map(|c| (c, *r)))
    else {
        return Err("no known phrasing matches this sentence".into());
    };
    // The same text in the caller's spelling.
    let caps: Vec<&str> = caps
        .iter()
        .map(|c| {
            let at = c.as_ptr() as usize - low.as_ptr() as usize;
            &orig[at..at + c.len()]
        })
        .collect();
    let groups = |phrases: Vec<&str>| -> Result<Vec<Vec<usize>>, String> {
        phrases.into_iter().map(|p| items_named(p, req)).collect()
    };
    let apart = |gs: &[Vec<usize>], d: &mut Directives| {
        for (i, a) in gs.iter().enumerate() {
            for b in &gs[i + 1..] {
                for &x in a {
                    for &y in b.iter().filter(|&&y| y != x) {
                        d.apart.push((x.min(y), x.max(y)));
                    }
                }
            }
        }
    };
    match rule {
        Rule::Apart | Rule::ApartPair | Rule::AloneOrApart | Rule::Alone => {
            let phrases = if caps.len() == 2 { caps } else { list(caps[0]) };
            let gs = groups(phrases)?;
            let alone = matches!(rule, Rule::Alone)
                || (gs.len() == 1 && matches!(rule, Rule::AloneOrApart));
            if alone {
                let rest: Vec<usize> = (0..req.items.len())
                    .filter(|i| !gs[0].contains(i))
                    .collect();
                apart(&[gs[0].clone(), rest], d);
                return Ok(format!(
                    "{} shares no package with other items",
                    names(&gs[0], req)
                ));
            }
            if gs.len() < 2 {
                return Err("name at least two items to keep apart".into());
            }
            apart(&gs, d);
            let all: Vec<String> = gs.iter().map(|g| names(g, req)).collect();
            Ok(format!("{} are kept in separate packages", all.join(" / ")))
        }
        Rule::Upright | Rule::Fixed | Rule::NoStack => {
            let idx: Vec<usize> = groups(list(caps[0]))?.concat();
            let (target, what) = match rule {
                Rule::Upright => (&mut d.upright, "kept upright"),
                Rule::Fixed => (&mut d.fixed, "not rotated"),
                _ => (&mut d.no_stack, "carrying nothing on top"),
            };
            target.extend(&idx);
            Ok(format!("{} {what}", names(&idx, req)))
        }
        Rule::FragileTop => {
            d.fragile_on_top = true;
            Ok("nothing is placed on top of fragile units".into())
        }
        Rule::HeavyBottom => {
            d.heavy_bottom = true;
            Ok("no unit rests above a lighter unit".into())
        }
        Rule::Prefer | Rule::Avoid => {
            let w = warehouse_named(caps[0], req)?;
            let id = &req.warehouses[w].warehouse_id;
            if matches!(rule, Rule::Prefer) {
                d.prefer.push(w);
                Ok(format!("warehouse {id} is preferred"))
            } else {
                d.avoid.push(w);
                Ok(format!(
                    "warehouse {id} is used only for units no other warehouse can ship"
                ))
            }
        }
        Rule::Cap | Rule::WeightCap => {
            let unit = req.weight_unit();
            match quantity(caps[0], unit) {
                Some((Some(w), _)) => {
                    d.max_weight = Some(d.max_weight.map_or(w, |m| m.min(w)));
                    Ok(format!(
                        "packages weigh at most {w:.3} {} gross",
                        unit.as_str()
                    ))
                }
                Some((None, n))
                    if matches!(rule, Rule::Cap) && n.fract() == 0.0 && n <= u32::MAX as f64 =>
                {
                    let n = n as u32;
                    d.max_units = Some(d.max_units.map_or(n, |m| m.min(n)));
                    Ok(format!("at most {n} units per package"))
                }
                _ => Err(format!(
                    "'{}' is not a number with a unit (lb, kg, oz, g, items)",
                    caps[0]
                )),
            }
        }
        Rule::Goal(g) => {
            d.goal = Some(g);
            Ok(format!("goal set to {}", g.as_str()))
        }
    }
}

/// Reads `req.options.instructions`; nothing is silently ignored.
///
/// Sentences are split at line breaks, `;` and sentence-ending `.`, `!`, `?`. Matching is
/// case-insensitive; "don't" reads as "do not"; "per box", "per parcel" and "per carton" read
/// as "per package". `X`, `Y` name an item id, `class N` (items of that hazard class), `fragile
/// items`, `hazmat items` or `all items`/`everything`; lists use commas and "and". `W` is a
/// warehouse id (optionally preceded by "warehouse"). `N U` is a number and a unit.
///
/// | Phrasing | Effect |
/// |---|---|
/// | keep X and Y apart / separated / separate; separate X and Y; X and Y in separate packages (or boxes); keep X away from Y; keep X separate from Y; do not pack X with Y; never pack X with Y | X and Y never share a package |
/// | pack X alone; ship X alone; X in its own package (or box); put X in its own package; pack X separately; ship X separately | X shares no package with other items |
/// | keep X upright; X this side up; X must stay upright; X upright | X only turns about the vertical axis |
/// | do not rotate X; never rotate X; no rotation for X | X is not turned at all |
/// | nothing on top of X; do not stack (anything) on X; do not stack X; X is (are) not stackable | nothing is placed above X |
/// | fragile (items) on top; put (or pack) fragile items on top; fragile items go on top | nothing is placed above a fragile unit |
/// | heavy items on (or at) the bottom; put heavy items on the bottom; heavy items below light items | no unit rests above a lighter one |
/// | prefer (warehouse) W; prefer shipping from W; ship from W; use warehouse W | W is chosen first among equally good warehouse sets |
/// | avoid (warehouse) W; do not ship from W; do not use (warehouse) W | W is used only for units no other warehouse can ship |
/// | at most / max / maximum / no more than N U per package; no package over (or heavier than) N U; keep packages under N U; weight limit (of) N U (per package) | gross package weight (units + tare) at most N U (lb, lbs, pound, kg, kilogram, oz, g) |
/// | at most / max / maximum / no more than N items (or units) per package | at most N units per package |
/// | minimize cost; lowest cost; cheapest (boxes); fewest packages (or boxes); fewest warehouses; ship from one warehouse; best fit; maximize utilization; balance (the) weight; balanced weight | sets the goal |
pub(crate) fn read(req: &PackRequest) -> Directives {
    let mut d = Directives::default();
    for text in sentences(&req.options.instructions) {
        let (status, detail) = match apply(normalise(&text), req, &mut d) {
            Ok(detail) => (InstructionStatus::Applied, detail),
            Err(why) => (InstructionStatus::NotUnderstood, why),
        };
        d.outcomes.push(InstructionOutcome {
            text,
            status,
            detail,
        });
    }
    d.apart.sort_unstable();
    d.apart.dedup();
    d
}
