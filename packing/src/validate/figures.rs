//! Validator checks of one package's figures: weights and limits, hazmat segregation and the
//! instructions' limits, utilization, cost, centre of gravity and weight distribution.

use super::{close, shared, span, Checker};
use crate::hazmat;
use crate::instructions::Directives;
use crate::solution::Package;

/// Weights, limits, hazmat, instructions and the reported figures of one package.
pub(super) fn check(
    c: &mut Checker,
    pi: usize,
    pkg: &Package,
    d: &Directives,
    idx: &[(usize, usize)],
    bx: &crate::model::BoxType,
    size: [f64; 3],
) {
    let p = Some(pi);
    let weight: f64 = pkg.items.iter().map(|u| u.weight).sum();
    if !close(weight, pkg.total_weight) || !close(pkg.gross_weight, weight + bx.tare_weight) {
        c.fail(p, "weight", "total or gross weight does not add up".into());
    }
    let limit = d.max_weight.map_or(bx.max_weight, |m| m.min(bx.max_weight));
    if pkg.gross_weight > limit * (1.0 + 1e-9) + 1e-9 {
        c.fail(
            p,
            "max_weight",
            format!("gross weight {} exceeds {limit}", pkg.gross_weight),
        );
    }
    if d.max_units.is_some_and(|m| pkg.items.len() > m as usize) {
        c.fail(
            p,
            "max_units",
            "more units than the instructions allow".into(),
        );
    }
    let mut classes: Vec<hazmat::HazClass> = Vec::new();
    for &(_, i) in idx {
        if let Some(h) = c.req.items[i]
            .hazmat
            .as_ref()
            .and_then(|h| hazmat::parse_class(&h.class))
        {
            if !classes.iter().any(|o| o.name == h.name) {
                classes.push(h);
            }
        }
    }
    let mut names: Vec<String> = classes.iter().map(|h| h.name.clone()).collect();
    names.sort();
    if names != pkg.hazmat.classes {
        c.fail(
            p,
            "hazmat",
            "reported classes differ from the units'".into(),
        );
    }
    let mixed = classes
        .iter()
        .enumerate()
        .any(|(i, a)| classes[i + 1..].iter().any(|b| !hazmat::compatible(a, b)));
    if mixed || !pkg.hazmat.compliant {
        c.fail(
            p,
            "hazmat",
            format!("segregated classes share the package: {names:?}"),
        );
    }
    for &(a, b) in &d.apart {
        if idx.iter().any(|&(_, i)| i == a) && idx.iter().any(|&(_, i)| i == b) {
            let (x, y) = (&c.req.items[a].item_id, &c.req.items[b].item_id);
            c.fail(p, "apart", format!("{x} and {y} were to be kept apart"));
        }
    }
    let box_volume = size[0] * size[1] * size[2];
    let unit_volume: f64 = pkg
        .items
        .iter()
        .map(|u| u.dimensions.width * u.dimensions.height * u.dimensions.length)
        .sum();
    let util = pkg.volume_utilization;
    if !(0.0..=1.0).contains(&util) || !close(util, (unit_volume / box_volume).min(1.0)) {
        c.fail(
            p,
            "utilization",
            format!("{util} does not match the units' volume"),
        );
    }
    if pkg.cost != bx.cost {
        c.fail(p, "cost", "differs from the box's cost".into());
    }
    let masses: Vec<f64> = if pkg.items.iter().all(|u| u.weight <= 0.0) {
        vec![1.0; pkg.items.len()]
    } else {
        pkg.items.iter().map(|u| u.weight.max(0.0)).collect()
    };
    let m: f64 = masses.iter().sum();
    if m > 0.0 {
        for (a, got) in [
            pkg.center_of_gravity.x,
            pkg.center_of_gravity.y,
            pkg.center_of_gravity.z,
        ]
        .into_iter()
        .enumerate()
        {
            let want: f64 = pkg
                .items
                .iter()
                .zip(&masses)
                .map(|(u, w)| w * (span(u, a).0 + span(u, a).1) / 2.0)
                .sum::<f64>()
                / m;
            if !close(got, want) {
                c.fail(
                    p,
                    "center_of_gravity",
                    format!("axis {a}: {got} but the units give {want}"),
                );
            }
        }
        let wd = pkg.weight_distribution;
        let shares = [wd.front_left, wd.front_right, wd.back_left, wd.back_right];
        let mut want = [0.0f64; 4];
        for (u, w) in pkg.items.iter().zip(&masses) {
            let area = u.dimensions.width * u.dimensions.length;
            for (q, share) in want.iter_mut().enumerate() {
                let xs = if q % 2 == 0 {
                    (0.0, size[0] / 2.0)
                } else {
                    (size[0] / 2.0, size[0])
                };
                let zs = if q < 2 {
                    (0.0, size[2] / 2.0)
                } else {
                    (size[2] / 2.0, size[2])
                };
                *share += w * shared(span(u, 0), xs) * shared(span(u, 2), zs) / area / m;
            }
        }
        if shares.iter().zip(&want).any(|(a, b)| (a - b).abs() > 1e-6)
            || !(0.0..=1.0).contains(&wd.balance_score)
        {
            c.fail(
                p,
                "weight_distribution",
                format!("{shares:?} but the units give {want:?}"),
            );
        }
    }
}
