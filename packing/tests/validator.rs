//! The validator itself: a valid solution passes, and each way of breaking one is caught
//! under its rule name.

mod common;

use common::*;
use packing::{
    validate, BoxType, Item, Orientation, PackRequest, PackSolution, UnfitReason, UnfittedItem,
};

fn base() -> (PackRequest, PackSolution) {
    let mut upright = Item::new("lamp", 2.0, 4.0, 2.0, 2.0, 1);
    upright.orientation = Orientation::Upright;
    let items = vec![Item::new("cube", 2.0, 2.0, 2.0, 1.0, 4), upright];
    let mut b = BoxType::new("B", 4.0, 4.0, 4.0, 50.0);
    b.quantity = Some(3);
    b.cost = 1.5;
    let req = request(items, vec![b]);
    let sol = solve(&req);
    (req, sol)
}

/// The rule names reported for `sol`.
fn rules(req: &PackRequest, sol: &PackSolution) -> Vec<&'static str> {
    match validate(req, sol) {
        Ok(()) => Vec::new(),
        Err(v) => v.iter().map(|v| v.rule).collect(),
    }
}

fn unit<'a>(sol: &'a mut PackSolution, id: &str) -> &'a mut packing::PlacedItem {
    sol.packages[0]
        .items
        .iter_mut()
        .find(|i| i.item_id == id)
        .unwrap()
}

#[test]
fn valid_solution_passes() {
    let (req, sol) = base();
    assert_eq!(rules(&req, &sol), Vec::<&str>::new());
    assert_eq!(sol.summary.total_packages, 1);
}

#[test]
fn geometry_violations_are_caught() {
    let (req, sol) = base();
    let mut s = sol.clone();
    unit(&mut s, "lamp").position.x = 3.0;
    assert!(rules(&req, &s).contains(&"inside"));

    let mut s = sol.clone();
    let first = s.packages[0].items[0].position;
    s.packages[0].items[1].position = first;
    assert!(rules(&req, &s).contains(&"overlap"));

    // Lift the top unit: it floats.
    let mut s = sol.clone();
    let top = s.packages[0]
        .items
        .iter_mut()
        .max_by(|a, b| a.position.y.total_cmp(&b.position.y))
        .unwrap();
    assert!(top.position.y > 0.0, "the base solution stacks");
    top.position.y += 0.5;
    let r = rules(&req, &s);
    assert!(r.contains(&"support") || r.contains(&"inside"), "{r:?}");
}

#[test]
fn a_unit_half_off_its_support_is_caught() {
    let req = request(
        vec![Item::new("c", 2.0, 2.0, 2.0, 1.0, 2)],
        vec![bx("B", 4.0, 4.0, 4.0)],
    );
    let mut sol = solve(&req);
    let items = &mut sol.packages[0].items;
    items[0].position = packing::Point {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    items[1].position = packing::Point {
        x: 1.0,
        y: 2.0,
        z: 0.0,
    };
    assert!(rules(&req, &sol).contains(&"support"));
    let mut loose = req.clone();
    loose.options.require_support = false;
    assert!(!rules(&loose, &sol).contains(&"support"));
}

#[test]
fn orientation_violations_are_caught() {
    let (req, sol) = base();
    let mut s = sol.clone();
    let lamp = unit(&mut s, "lamp");
    lamp.dimensions = packing::Dimensions {
        width: 4.0,
        height: 2.0,
        length: 2.0,
    };
    lamp.rotated = true;
    assert!(rules(&req, &s).contains(&"orientation"));

    let mut s = sol.clone();
    let cube = &mut s.packages[0].items[0];
    cube.rotated = !cube.rotated;
    assert!(rules(&req, &s).contains(&"rotated"));
}

#[test]
fn weight_count_and_stock_violations_are_caught() {
    let (req, sol) = base();
    let mut r = req.clone();
    r.warehouses[0].boxes[0].max_weight = 3.0;
    assert!(rules(&r, &sol).contains(&"max_weight"));

    let mut r = req.clone();
    r.warehouses[0].boxes[0].quantity = Some(0);
    assert!(rules(&r, &sol).contains(&"box_count"));

    let mut r = req.clone();
    r.warehouses[0].inventory.insert("cube".into(), 2);
    let got = rules(&r, &sol);
    assert!(got.contains(&"inventory"), "{got:?}");

    let mut s = sol.clone();
    s.packages[0].total_weight += 1.0;
    assert!(rules(&req, &s).contains(&"weight"));
}

#[test]
fn accounting_and_totals_are_checked() {
    let (req, sol) = base();
    let mut s = sol.clone();
    s.packages[0].items.pop();
    let r = rules(&req, &s);
    assert!(r.contains(&"accounting"), "{r:?}");

    let mut s = sol.clone();
    s.unfitted_items.push(UnfittedItem {
        item_id: "cube".into(),
        quantity: 1,
        reason: UnfitReason::NoBoxAvailable,
    });
    assert!(rules(&req, &s).contains(&"accounting"));

    let mut s = sol.clone();
    s.summary.total_packages = 2;
    assert!(rules(&req, &s).contains(&"summary"));

    let mut s = sol.clone();
    s.packages[0].volume_utilization = 0.99;
    assert!(rules(&req, &s).contains(&"utilization"));

    let mut s = sol.clone();
    s.packages[0].center_of_gravity.x += 0.5;
    assert!(rules(&req, &s).contains(&"center_of_gravity"));

    let mut s = sol.clone();
    s.packages[0].weight_distribution.front_left += 0.1;
    assert!(rules(&req, &s).contains(&"weight_distribution"));

    let mut s = sol;
    s.packages[0].cost = 0.0;
    assert!(rules(&req, &s).contains(&"cost"));
}

#[test]
fn unfit_reasons_must_hold() {
    let req = request(
        vec![Item::new("c", 2.0, 2.0, 2.0, 1.0, 1)],
        vec![bx("B", 4.0, 4.0, 4.0)],
    );
    let mut sol = solve(&req);
    sol.packages.clear();
    sol.summary = Default::default();
    for (reason, wrong) in [
        (UnfitReason::TooLarge, true),
        (UnfitReason::TooHeavy, true),
        (UnfitReason::NoInventory, true),
        (UnfitReason::NoBoxAvailable, false),
    ] {
        let mut s = sol.clone();
        s.unfitted_items = vec![UnfittedItem {
            item_id: "c".into(),
            quantity: 1,
            reason,
        }];
        assert_eq!(
            rules(&req, &s).contains(&"unfit_reason"),
            wrong,
            "{reason:?}"
        );
    }
}

#[test]
fn hazmat_and_instruction_violations_are_caught() {
    let mut a = Item::new("fuel", 1.0, 1.0, 1.0, 1.0, 1);
    a.hazmat = Some(packing::Hazmat {
        class: "3".into(),
        un_number: None,
    });
    let mut b = Item::new("ox", 1.0, 1.0, 1.0, 1.0, 1);
    b.hazmat = Some(packing::Hazmat {
        class: "5.1".into(),
        un_number: None,
    });
    let req = request(vec![a, b], vec![bx("B", 4.0, 4.0, 4.0)]);
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 2);
    // Merge the two packages into one.
    let mut s = sol.clone();
    let mut moved = s.packages.pop().unwrap().items;
    moved[0].position.x = 2.0;
    s.packages[0].items.extend(moved);
    let r = rules(&req, &s);
    assert!(r.contains(&"hazmat"), "{r:?}");

    let mut apart = request(
        vec![
            Item::new("x", 1.0, 1.0, 1.0, 1.0, 1),
            Item::new("y", 1.0, 1.0, 1.0, 1.0, 1),
        ],
        vec![bx("B", 4.0, 4.0, 4.0)],
    );
    let together = solve(&apart);
    assert_eq!(together.summary.total_packages, 1);
    apart.options.instructions = "keep x and y apart".into();
    assert!(rules(&apart, &together).contains(&"apart"));
}

/// The pair checks sweep units by their x start; a long unit starting far to the left must
/// still be seen by the units on and in it.
#[test]
fn pair_checks_reach_wide_units_starting_far_away() {
    let items = vec![
        Item::new("bar", 10.0, 1.0, 1.0, 1.0, 1),
        Item::new("die", 1.0, 1.0, 1.0, 0.1, 10),
    ];
    // One layer of floor: the bar lies on it, the dice ride on the bar.
    let req = request(items, vec![BoxType::new("B", 10.0, 2.0, 1.0, 50.0)]);
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 1);
    let last = |s: &mut PackSolution| {
        let at = s.packages[0]
            .items
            .iter()
            .position(|i| i.item_id == "die" && i.position.x == 9.0)
            .unwrap();
        s.packages[0].items.remove(at)
    };
    // Resting on the bar alone is fine (solve validated it); sunk into the bar it overlaps.
    let mut s = sol.clone();
    let mut die = last(&mut s);
    assert_eq!(die.position.y, 1.0);
    die.position.y = 0.5;
    s.packages[0].items.insert(0, die);
    assert!(rules(&req, &s).contains(&"overlap"));
}

#[test]
fn large_packages_are_checked_as_strictly() {
    let req = request(
        vec![Item::new("die", 1.0, 1.0, 1.0, 0.1, 600)],
        vec![BoxType::new("B", 10.0, 10.0, 10.0, 500.0)],
    );
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 1);
    // The last unit moved onto the first one: an overlap between units far apart in the list.
    let mut s = sol.clone();
    let first = s.packages[0].items[0].position;
    s.packages[0].items.last_mut().unwrap().position = first;
    assert!(rules(&req, &s).contains(&"overlap"));
    // A unit moved to the far corner at mid height floats.
    let mut s = sol;
    let p = &mut s.packages[0].items[0].position;
    (p.x, p.y, p.z) = (9.0, 8.5, 9.0);
    assert!(rules(&req, &s).contains(&"support"));
}
