//! The instruction reader: every documented phrasing is applied and has its effect (checked on
//! validated solutions); anything else comes back as not understood.

mod common;

use common::*;
use packing::{Goal, InstructionStatus, Item, Orientation, PackRequest, PackSolution};

fn with(mut req: PackRequest, text: &str) -> PackSolution {
    req.options.instructions = text.into();
    solve(&req)
}

fn statuses(sol: &PackSolution) -> Vec<InstructionStatus> {
    sol.instructions.iter().map(|i| i.status).collect()
}

fn two_items() -> PackRequest {
    request(
        vec![
            Item::new("battery", 2.0, 2.0, 2.0, 1.0, 2),
            Item::new("perfume", 2.0, 2.0, 2.0, 1.0, 2),
        ],
        vec![bx("B", 10.0, 10.0, 10.0)],
    )
}

fn share_a_package(sol: &PackSolution, a: &str, b: &str) -> bool {
    sol.packages
        .iter()
        .any(|p| p.items.iter().any(|i| i.item_id == a) && p.items.iter().any(|i| i.item_id == b))
}

#[test]
fn keep_apart_phrasings() {
    assert!(share_a_package(&solve(&two_items()), "battery", "perfume"));
    for text in [
        "Keep battery and perfume apart.",
        "keep the battery and the perfume separated",
        "Separate battery and perfume",
        "battery and perfume in separate boxes",
        "Keep battery away from perfume.",
        "Do not pack battery with perfume",
        "don't pack battery with perfume!",
        "Never pack perfume with battery.",
        "keep battery separate from perfume",
        "Please keep batteries and perfume apart",
    ] {
        let sol = with(two_items(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert!(!share_a_package(&sol, "battery", "perfume"), "{text}");
    }
}

#[test]
fn alone_phrasings() {
    let mut req = two_items();
    req.items.push(Item::new("towel", 2.0, 2.0, 2.0, 1.0, 1));
    req.warehouses[0].inventory.insert("towel".into(), 5);
    for text in [
        "Pack battery alone",
        "ship battery separately",
        "Put battery in its own box.",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert!(!share_a_package(&sol, "battery", "perfume"));
        assert!(!share_a_package(&sol, "battery", "towel"));
        assert!(share_a_package(&sol, "perfume", "towel"));
    }
}

#[test]
fn upright_and_no_rotation() {
    // Fits lying down only: 8 long, 2 high.
    let req = request(
        vec![Item::new("lamp", 2.0, 8.0, 2.0, 1.0, 1)],
        vec![bx("B", 2.0, 2.0, 8.0)],
    );
    assert_eq!(placed(&solve(&req), "lamp"), 1);
    for text in [
        "Keep lamp upright.",
        "lamp this side up",
        "The lamp must stay upright",
        "do not rotate lamp",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert_eq!(unfitted(&sol, "lamp", "too_large"), 1, "{text}");
    }
    let sol = with(req, "keep everything upright");
    assert_eq!(unfitted(&sol, "lamp", "too_large"), 1);
}

#[test]
fn nothing_on_top_and_fragile_on_top() {
    let mut vase = Item::new("vase", 4.0, 2.0, 4.0, 1.0, 1);
    vase.fragile = true;
    vase.orientation = Orientation::Fixed;
    let mut plate = Item::new("plate", 4.0, 2.0, 4.0, 1.0, 2);
    plate.fragile = true;
    plate.orientation = Orientation::Fixed;
    let req = request(vec![vase, plate], vec![bx("col", 4.0, 10.0, 4.0)]);
    assert_eq!(
        solve(&req).summary.total_packages,
        1,
        "fragile on fragile is allowed"
    );
    for text in [
        "Fragile items on top",
        "put fragile items on top.",
        "fragile on top",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied]);
        assert_eq!(
            sol.summary.total_packages, 3,
            "{text}: a column holds one fragile unit"
        );
    }
    for text in [
        "Nothing on top of vase",
        "do not stack anything on vase",
        "vase is not stackable",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        let vase_pkg = sol
            .packages
            .iter()
            .find(|p| p.items.iter().any(|i| i.item_id == "vase"))
            .unwrap();
        let top = vase_pkg
            .items
            .iter()
            .map(|i| i.position.y)
            .fold(0.0, f64::max);
        let v = vase_pkg.items.iter().find(|i| i.item_id == "vase").unwrap();
        assert_eq!(v.position.y, top, "{text}");
    }
}

#[test]
fn heavy_items_on_the_bottom() {
    let mut light = Item::new("light", 4.0, 2.0, 4.0, 1.0, 2);
    light.orientation = Orientation::Fixed;
    let mut heavy = Item::new("heavy", 4.0, 2.0, 4.0, 9.0, 2);
    heavy.orientation = Orientation::Fixed;
    let req = request(vec![light, heavy], vec![bx("col", 4.0, 8.0, 4.0)]);
    let sol = with(req, "Heavy items on the bottom.");
    assert_eq!(statuses(&sol), [InstructionStatus::Applied]);
    for p in &sol.packages {
        for a in &p.items {
            for b in p.items.iter().filter(|b| b.position.y > a.position.y) {
                assert!(b.weight <= a.weight);
            }
        }
    }
}

#[test]
fn warehouse_preference_and_avoidance() {
    let boxes = || vec![bx("B", 10.0, 10.0, 10.0)];
    let req = PackRequest {
        items: vec![Item::new("a", 2.0, 2.0, 2.0, 1.0, 2)],
        warehouses: vec![
            warehouse("North", boxes(), &[("a", 5)]),
            warehouse("South", boxes(), &[("a", 5)]),
        ],
        ..PackRequest::default()
    };
    assert_eq!(solve(&req).summary.warehouses_used, ["North"]);
    for text in [
        "Prefer warehouse South",
        "prefer south.",
        "Ship from South",
        "avoid North",
        "Do not ship from warehouse North",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert_eq!(sol.summary.warehouses_used, ["South"], "{text}");
    }
    // Avoided, but the only one with stock: still used, and said so.
    let mut only = req.clone();
    only.warehouses[1].inventory.clear();
    let sol = with(only, "avoid North");
    assert_eq!(sol.summary.warehouses_used, ["North"]);
    let sol = with(req, "prefer warehouse East");
    assert_eq!(statuses(&sol), [InstructionStatus::NotUnderstood]);
    assert!(sol.instructions[0].detail.contains("East"));
}

#[test]
fn weight_and_unit_caps() {
    let req = request(
        vec![Item::new("tin", 2.0, 2.0, 2.0, 2.0, 6)],
        vec![bx("B", 10.0, 10.0, 10.0)],
    );
    assert_eq!(solve(&req).summary.total_packages, 1);
    for text in [
        "At most 4 lb per package",
        "max 4 lbs per box",
        "No package over 4 pounds.",
        "keep packages under 4 lb",
        "weight limit 64 oz",
        "at most 1.82 kg per parcel",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert_eq!(sol.summary.total_packages, 3, "{text}");
        assert!(sol.packages.iter().all(|p| p.gross_weight <= 4.0 + 1e-9));
    }
    let sol = with(req.clone(), "No more than 2 items per package");
    assert_eq!(sol.summary.total_packages, 3);
    let sol = with(req, "at most 4 bananas per package");
    assert_eq!(statuses(&sol), [InstructionStatus::NotUnderstood]);
}

#[test]
fn goal_phrasings() {
    let req = two_items();
    for (text, goal) in [
        ("Minimize cost", Goal::LowestCost),
        ("cheapest boxes please", Goal::LowestCost),
        ("fewest packages", Goal::FewestPackages),
        ("Ship from one warehouse", Goal::FewestWarehouses),
        ("best fit", Goal::BestFit),
        ("Balance the weight.", Goal::BalancedWeight),
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert!(sol.instructions[0].detail.contains(goal.as_str()), "{text}");
    }
}

#[test]
fn several_sentences_each_get_an_outcome_and_nothing_is_ignored() {
    let text = "Keep battery and perfume apart. Deliver on Tuesday; at most 2.5 lb per package\nkeep unicorn upright";
    let sol = with(two_items(), text);
    let got: Vec<(&str, InstructionStatus)> = sol
        .instructions
        .iter()
        .map(|i| (i.text.as_str(), i.status))
        .collect();
    assert_eq!(
        got,
        [
            ("Keep battery and perfume apart", InstructionStatus::Applied),
            ("Deliver on Tuesday", InstructionStatus::NotUnderstood),
            ("at most 2.5 lb per package", InstructionStatus::Applied),
            ("keep unicorn upright", InstructionStatus::NotUnderstood),
        ]
    );
    assert!(sol.instructions[3].detail.contains("unicorn"));
    assert!(sol.packages.iter().all(|p| p.gross_weight <= 2.5));
}

#[test]
fn hazmat_classes_and_groups_can_be_named() {
    let mut a = Item::new("paint", 2.0, 2.0, 2.0, 1.0, 1);
    a.hazmat = Some(packing::Hazmat {
        class: "3".into(),
        un_number: None,
    });
    let b = Item::new("food", 2.0, 2.0, 2.0, 1.0, 1);
    let req = request(vec![a, b], vec![bx("B", 10.0, 10.0, 10.0)]);
    assert!(share_a_package(&solve(&req), "paint", "food"));
    for text in [
        "keep class 3 and food apart",
        "keep hazmat items away from food",
        "pack hazmat items alone",
    ] {
        let sol = with(req.clone(), text);
        assert_eq!(statuses(&sol), [InstructionStatus::Applied], "{text}");
        assert!(!share_a_package(&sol, "paint", "food"), "{text}");
    }
}
