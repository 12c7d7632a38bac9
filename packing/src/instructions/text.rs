//! Text handling of the instruction reader: sentence splitting, normalisation, pattern
//! capture, and resolving names of items, warehouses and quantities in a request.

use crate::model::{PackRequest, WeightUnit};

/// Splits the text into sentences: at line breaks, `;`, and `.`/`!`/`?` followed by a space
/// or the end (so `2.5 lb` stays whole).
pub(super) fn sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &ch) in chars.iter().enumerate() {
        let ends = matches!(ch, '\n' | '\r' | ';')
            || (matches!(ch, '.' | '!' | '?')
                && chars.get(i + 1).is_none_or(|n| n.is_whitespace()));
        if ends {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The sentence with single spaces, contractions and synonyms unified and politeness dropped,
/// as (ASCII lower case, original case) with the same byte layout, so that names captured from
/// the first can be cut, in the caller's spelling, from the second.
pub(super) fn normalise(s: &str) -> (String, String) {
    let mut orig = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut low = orig.to_ascii_lowercase();
    for (from, to) in [
        ("don't", "do not"),
        ("dont ", "do not "),
        ("never stack", "do not stack"),
        (" per box", " per package"),
        (" per parcel", " per package"),
        (" per carton", " per package"),
        ("no box ", "no package "),
        ("warehouse warehouse", "warehouse"),
    ] {
        while let Some(at) = low.find(from) {
            low.replace_range(at..at + from.len(), to);
            orig.replace_range(at..at + from.len(), to);
        }
    }
    let end = low.trim_end_matches(['.', '!', '?', ',', ' ']).len();
    let start = if low.starts_with("please ") { 7 } else { 0 };
    let end = if low[..end].ends_with(" please") {
        end - 7
    } else {
        end
    };
    let end = end.max(start);
    (low[start..end].to_string(), orig[start..end].to_string())
}

/// Matches `s` against a pattern whose `{}` capture non-empty text.
pub(super) fn capture<'s>(s: &'s str, pattern: &str) -> Option<Vec<&'s str>> {
    let parts: Vec<&str> = pattern.split("{}").collect();
    let mut rest = s.strip_prefix(parts[0])?;
    let mut caps = Vec::new();
    for (i, lit) in parts.iter().enumerate().skip(1) {
        let at = if i == parts.len() - 1 {
            if !rest.ends_with(lit) {
                return None;
            }
            rest.len() - lit.len()
        } else {
            rest.find(lit)?
        };
        let cap = rest[..at].trim();
        if cap.is_empty() {
            return None;
        }
        caps.push(cap);
        rest = &rest[at + lit.len()..];
    }
    Some(caps)
}

/// Resolves a phrase naming items to item indices, or the unknown name.
pub(super) fn items_named(phrase: &str, req: &PackRequest) -> Result<Vec<usize>, String> {
    let p = phrase
        .trim()
        .trim_matches(|c| c == '"' || c == '\'' || c == '`');
    let p = if p.to_ascii_lowercase().starts_with("the ") {
        &p[4..]
    } else {
        p
    }
    .trim();
    let low = p.to_ascii_lowercase();
    let all = 0..req.items.len();
    let found: Vec<usize> = match low.as_str() {
        "all items" | "everything" | "all" | "all units" => all.collect(),
        "fragile items" | "fragile" => all.filter(|&i| req.items[i].fragile).collect(),
        "hazmat items" | "hazmat" | "hazardous items" | "dangerous goods" => {
            all.filter(|&i| req.items[i].hazmat.is_some()).collect()
        }
        _ => {
            let class = low
                .strip_suffix(" items")
                .unwrap_or(&low)
                .strip_prefix("class ")
                .and_then(crate::hazmat::parse_class);
            if let Some(c) = class {
                all.filter(|&i| {
                    req.items[i]
                        .hazmat
                        .as_ref()
                        .and_then(|h| crate::hazmat::parse_class(&h.class))
                        .is_some_and(|h| h.name == c.name)
                })
                .collect()
            } else {
                let by_id = |name: &str| {
                    all.clone()
                        .find(|&i| req.items[i].item_id.eq_ignore_ascii_case(name))
                };
                // The name itself, else a plural of it: batteries, boxes, mugs.
                let singulars = [
                    low.strip_suffix("ies").map(|s| format!("{s}y")),
                    low.strip_suffix("es").map(str::to_string),
                    low.strip_suffix('s').map(str::to_string),
                ];
                let hit = by_id(p).or_else(|| singulars.iter().flatten().find_map(|s| by_id(s)));
                hit.into_iter().collect()
            }
        }
    };
    if found.is_empty() {
        Err(format!("no item matches '{p}'"))
    } else {
        Ok(found)
    }
}

/// Splits "a, b and c" into its parts.
pub(super) fn list(phrase: &str) -> Vec<&str> {
    phrase
        .split([','])
        .flat_map(|p| p.split(" and "))
        .flat_map(|p| p.split(" & "))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

pub(super) fn warehouse_named(phrase: &str, req: &PackRequest) -> Result<usize, String> {
    let p = phrase.trim();
    let p = if p.to_ascii_lowercase().starts_with("warehouse ") {
        &p[10..]
    } else {
        p
    }
    .trim();
    req.warehouses
        .iter()
        .position(|w| w.warehouse_id.eq_ignore_ascii_case(p))
        .ok_or_else(|| format!("no warehouse matches '{p}'"))
}

/// Reads `N U`: a count of units (`Ok(None, n)`) or a weight converted to the request's unit.
pub(super) fn quantity(phrase: &str, unit: WeightUnit) -> Option<(Option<f64>, f64)> {
    let mut words = phrase.split_whitespace();
    let n: f64 = words
        .next()?
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n > 0.0)?;
    let u = words.next()?.to_ascii_lowercase();
    if words.next().is_some() {
        return None;
    }
    let in_lb = match u.as_str() {
        "lb" | "lbs" | "pound" | "pounds" => 1.0,
        "kg" | "kgs" | "kilo" | "kilos" | "kilogram" | "kilograms" => 1.0 / 0.453_592_37,
        "oz" | "ounce" | "ounces" => 1.0 / 16.0,
        "g" | "gram" | "grams" => 0.001 / 0.453_592_37,
        "item" | "items" | "unit" | "units" => return Some((None, n)),
        _ => return None,
    };
    let per_unit = match unit {
        WeightUnit::Lb => 1.0,
        WeightUnit::Kg => 0.453_592_37,
    };
    Some((Some(n * in_lb * per_unit), n))
}

pub(super) fn names(idx: &[usize], req: &PackRequest) -> String {
    let v: Vec<&str> = idx.iter().map(|&i| req.items[i].item_id.as_str()).collect();
    v.join(", ")
}
