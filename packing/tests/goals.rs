//! Engine behaviour per goal, orientation rule (including the BoxPacker cache bug) and hazmat
//! segregation, and determinism; every solution is validated.

mod common;

use common::*;
use packing::{Goal, Hazmat, Item, Orientation, PackOptions, PackRequest};

fn hazmat(class: &str) -> Option<Hazmat> {
    Some(Hazmat {
        class: class.into(),
        un_number: None,
    })
}

#[test]
fn fixed_and_upright_items_never_turn() {
    let mut fixed = Item::new("fixed", 8.0, 2.0, 2.0, 1.0, 1);
    fixed.orientation = Orientation::Fixed;
    let mut upright = Item::new("upright", 2.0, 8.0, 2.0, 1.0, 1);
    upright.orientation = Orientation::Upright;
    let free = Item::new("free", 2.0, 8.0, 2.0, 1.0, 1);
    // Only lying flat along the length fits: 2 wide, 2 high, 8 long.
    let req = request(vec![fixed, upright, free], vec![bx("B", 2.0, 2.0, 8.0)]);
    let sol = solve(&req);
    assert_eq!(unfitted(&sol, "fixed", "too_large"), 1);
    assert_eq!(unfitted(&sol, "upright", "too_large"), 1);
    assert_eq!(placed(&sol, "free"), 1);
    let it = &sol.packages[0].items[0];
    assert!(it.rotated);
    assert_eq!(it.dimensions.height, 2.0);
}

#[test]
fn upright_items_turn_only_about_the_vertical_axis() {
    let mut up = Item::new("up", 8.0, 3.0, 2.0, 1.0, 1);
    up.orientation = Orientation::Upright;
    // Needs the quarter turn: 2 wide, 3 high, 8 long.
    let req = request(vec![up], vec![bx("B", 2.0, 3.0, 8.0)]);
    let sol = solve(&req);
    let it = &sol.packages[0].items[0];
    assert!(it.rotated);
    let d = it.dimensions;
    assert_eq!((d.width, d.height, d.length), (2.0, 3.0, 8.0));
}

/// BoxPacker cached orientations by sorted dimensions, so two items with the same sorted
/// dimensions but different rules shared one list. Each item must keep its own rule, in
/// whatever order the items come.
#[test]
fn same_sorted_dimensions_keep_their_own_orientation_rules() {
    let free = Item::new("free", 1.0, 2.0, 3.0, 1.0, 1);
    let mut upright = Item::new("upright", 1.0, 2.0, 3.0, 1.0, 1);
    upright.orientation = Orientation::Upright;
    let mut fixed = Item::new("fixed", 3.0, 1.0, 2.0, 1.0, 1);
    fixed.orientation = Orientation::Fixed;
    // A box only one unit high: everything must lie with its 1-side vertical.
    let flat = || vec![bx("flat", 3.0, 1.0, 2.0)];
    for items in [
        vec![free.clone(), upright.clone(), fixed.clone()],
        vec![upright.clone(), fixed.clone(), free.clone()],
        vec![fixed.clone(), free.clone(), upright.clone()],
    ] {
        let sol = solve(&request(items, flat()));
        assert_eq!(placed(&sol, "free"), 1);
        assert_eq!(placed(&sol, "fixed"), 1);
        assert_eq!(unfitted(&sol, "upright", "too_large"), 1);
        let f = sol
            .packages
            .iter()
            .flat_map(|p| &p.items)
            .find(|i| i.item_id == "fixed")
            .unwrap();
        assert!(!f.rotated);
    }
    // And in a box where the upright one fits standing, it stands.
    let tall = vec![bx("tall", 1.0, 2.0, 3.0)];
    let sol = solve(&request(vec![free, upright], tall));
    let u = sol
        .packages
        .iter()
        .flat_map(|p| &p.items)
        .find(|i| i.item_id == "upright")
        .unwrap();
    assert_eq!(u.dimensions.height, 2.0);
}

#[test]
fn lowest_cost_prefers_cheap_boxes_and_fewest_packages_prefers_one() {
    let mut small = bx("small", 5.0, 5.0, 5.0);
    small.cost = 1.0;
    let mut big = bx("big", 10.0, 5.0, 5.0);
    big.cost = 10.0;
    let mut req = request(
        vec![Item::new("c", 5.0, 5.0, 5.0, 1.0, 2)],
        vec![small, big],
    );
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 1);
    assert_eq!(sol.packages[0].box_id, "big");
    req.options.goal = Goal::LowestCost;
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 2);
    assert!((sol.summary.total_cost - 2.0).abs() < 1e-9);
}

#[test]
fn fewest_packages_downsizes_to_the_smallest_box_that_holds_the_load() {
    let boxes = vec![
        bx("huge", 30.0, 30.0, 30.0),
        bx("snug", 4.0, 2.0, 2.0),
        bx("mid", 8.0, 8.0, 8.0),
    ];
    let sol = solve(&request(vec![Item::new("c", 2.0, 2.0, 2.0, 1.0, 2)], boxes));
    assert_eq!(sol.summary.total_packages, 1);
    assert_eq!(sol.packages[0].box_id, "snug");
}

#[test]
fn best_fit_prefers_full_boxes() {
    let boxes = vec![bx("exact", 5.0, 5.0, 5.0), bx("loose", 10.0, 5.0, 6.0)];
    let mut req = request(vec![Item::new("c", 5.0, 5.0, 5.0, 1.0, 2)], boxes);
    assert_eq!(solve(&req).summary.total_packages, 1);
    req.options.goal = Goal::BestFit;
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 2);
    assert!((sol.summary.average_utilization - 1.0).abs() < 1e-9);
}

#[test]
fn balanced_weight_centres_the_load() {
    let heavy = Item::new("heavy", 10.0, 5.0, 10.0, 10.0, 1);
    let mut req = request(vec![heavy], vec![bx("B", 20.0, 10.0, 20.0)]);
    let plain = solve(&req);
    req.options.goal = Goal::BalancedWeight;
    let balanced = solve(&req);
    let (a, b) = (&plain.packages[0], &balanced.packages[0]);
    assert!(
        a.weight_distribution.balance_score < 0.01,
        "corner placement is unbalanced"
    );
    assert!(b.weight_distribution.balance_score > 0.99);
    assert!((b.center_of_gravity.x - 10.0).abs() < 1e-9);
    assert!((b.center_of_gravity.z - 10.0).abs() < 1e-9);
}

#[test]
fn hazmat_classes_that_must_be_segregated_go_to_separate_packages() {
    let mut fuel = Item::new("fuel", 2.0, 2.0, 2.0, 1.0, 2);
    fuel.hazmat = Some(Hazmat {
        class: "3".into(),
        un_number: Some("UN1203".into()),
    });
    let mut oxidizer = Item::new("oxidizer", 2.0, 2.0, 2.0, 1.0, 1);
    oxidizer.hazmat = hazmat("5.1");
    let mut acid = Item::new("acid", 2.0, 2.0, 2.0, 1.0, 1);
    acid.hazmat = hazmat("8");
    let req = request(vec![fuel, oxidizer, acid], vec![bx("B", 10.0, 10.0, 10.0)]);
    let sol = solve(&req);
    assert_eq!(sol.summary.total_packages, 2);
    assert!(sol.compliance.hazmat_compliant);
    let with = |id: &str| {
        sol.packages
            .iter()
            .position(|p| p.items.iter().any(|i| i.item_id == id))
            .unwrap()
    };
    assert_ne!(with("fuel"), with("oxidizer"));
    let fuel_pkg = &sol.packages[with("fuel")];
    assert!(fuel_pkg.hazmat.compliant);
    assert!(fuel_pkg.hazmat.classes.contains(&"3".to_string()));
    assert!(fuel_pkg
        .hazmat
        .notes
        .iter()
        .any(|n| n.contains("177.848") && n.contains("5.1")));
}

#[test]
fn hazmat_with_one_box_leaves_the_conflicting_class_out() {
    let mut b = bx("B", 10.0, 10.0, 10.0);
    b.quantity = Some(1);
    let mut fuel = Item::new("fuel", 2.0, 2.0, 2.0, 1.0, 1);
    fuel.hazmat = hazmat("3");
    let mut ox = Item::new("ox", 2.0, 2.0, 2.0, 1.0, 1);
    ox.hazmat = hazmat("5.1");
    let sol = solve(&request(vec![fuel, ox], vec![b]));
    assert_eq!(sol.summary.total_packages, 1);
    let out: i64 = sol.unfitted_items.iter().map(|u| u.quantity).sum();
    assert_eq!(out, 1);
    assert_eq!(sol.unfitted_items[0].reason.as_str(), "hazmat_restriction");
}

#[test]
fn same_input_same_output() {
    for seed in 0..5 {
        let req = packing::carts::cart(seed);
        assert_eq!(solve(&req), solve(&req));
    }
    let mut req = packing::mpv::instance(8, 50, 1).request(Orientation::Any);
    req.options.time_limit_ms = Some(30);
    assert_eq!(solve(&req), solve(&req));
}

/// W1 can ship the whole order but only in boxes of one unit; W2 has a box for everything but
/// only three units. Fewest warehouses ships from W1 alone (four packages); fewest packages
/// ships three units from W2 in one box and one from W1 (two packages).
#[test]
fn fewest_warehouses_and_fewest_packages_choose_different_warehouses() {
    let req = PackRequest {
        items: vec![Item::new("a", 2.0, 2.0, 2.0, 1.0, 4)],
        warehouses: vec![
            warehouse("W1", vec![bx("small", 2.0, 2.0, 2.0)], &[("a", 4)]),
            warehouse("W2", vec![bx("big", 10.0, 10.0, 10.0)], &[("a", 3)]),
        ],
        ..PackRequest::default()
    };
    let mut fw = req.clone();
    fw.options.goal = Goal::FewestWarehouses;
    let sol = solve(&fw);
    assert_eq!(sol.summary.warehouses_used, ["W1"]);
    assert_eq!(sol.summary.total_packages, 4);
    let sol = solve(&req);
    assert_eq!(sol.summary.warehouses_used, ["W1", "W2"]);
    assert_eq!(sol.summary.total_packages, 2);
    let from_w2: usize = sol
        .packages
        .iter()
        .filter(|p| p.warehouse_id == "W2")
        .map(|p| p.items.len())
        .sum();
    assert_eq!(from_w2, 3);
}

/// Among sets of equally few warehouses, fewest warehouses takes the one needing fewer
/// packages, even when it ships less volume otherwise.
#[test]
fn fewest_warehouses_breaks_ties_by_packages() {
    let req = PackRequest {
        items: vec![Item::new("a", 2.0, 2.0, 2.0, 1.0, 3)],
        warehouses: vec![
            warehouse("W1", vec![bx("small", 2.0, 2.0, 2.0)], &[("a", 9)]),
            warehouse("W2", vec![bx("big", 10.0, 10.0, 10.0)], &[("a", 3)]),
        ],
        options: PackOptions {
            goal: Goal::FewestWarehouses,
            ..PackOptions::default()
        },
        ..PackRequest::default()
    };
    let sol = solve(&req);
    assert_eq!(sol.summary.warehouses_used, ["W2"]);
    assert_eq!(sol.summary.total_packages, 1);
}
