//! Property tests: random requests (sizes, weights, rules, flags, hazmat, stock, box counts,
//! goals, instructions) always give solutions the independent validator accepts, the same
//! solution twice, and a valid result from the baseline packer too.

use packing::{
    baseline, pack, validate, BoxType, Goal, Hazmat, Item, Orientation, PackOptions, PackRequest,
    Warehouse,
};
use proptest::prelude::*;

const CLASSES: [&str; 6] = ["3", "5.1", "8", "9", "2.1", "4.2"];
const PHRASES: [&str; 8] = [
    "keep i0 and i1 apart",
    "keep i1 upright",
    "fragile items on top",
    "at most 30 lb per package",
    "prefer warehouse w1",
    "heavy items on the bottom",
    "nothing on top of i2",
    "no more than 5 items per package",
];

fn item(i: usize) -> impl Strategy<Value = Item> {
    (
        (1u32..=24, 1u32..=24, 1u32..=24),
        0u32..=150,
        1i64..=6,
        0usize..3,
        (any::<bool>(), 0u8..10, 0usize..12),
    )
        .prop_map(move |((w, h, l), wt, q, o, (fragile, stack, haz))| {
            let mut it = Item::new(
                &format!("i{i}"),
                w as f64 / 2.0,
                h as f64 / 2.0,
                l as f64 / 2.0,
                wt as f64 / 10.0,
                q,
            );
            it.orientation = [Orientation::Any, Orientation::Upright, Orientation::Fixed][o];
            it.fragile = fragile && stack < 3;
            it.stackable = stack != 0;
            it.hazmat = CLASSES.get(haz).map(|c| Hazmat {
                class: c.to_string(),
                un_number: None,
            });
            it
        })
}

fn boxes() -> impl Strategy<Value = Vec<BoxType>> {
    prop::collection::vec(
        (
            (6u32..=40, 6u32..=40, 6u32..=40),
            5u32..=100,
            0u32..=20,
            0u32..=50,
            prop::option::of(0i64..=4),
        ),
        1..=3,
    )
    .prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(b, ((w, h, l), max, tare, cost, qty))| BoxType {
                quantity: qty,
                cost: cost as f64 / 10.0,
                tare_weight: tare as f64 / 10.0,
                ..BoxType::new(
                    &format!("b{b}"),
                    w as f64 / 2.0,
                    h as f64 / 2.0,
                    l as f64 / 2.0,
                    max as f64,
                )
            })
            .collect()
    })
}

fn request() -> impl Strategy<Value = PackRequest> {
    let items = (1usize..=5).prop_flat_map(|n| (0..n).map(item).collect::<Vec<_>>());
    (
        items,
        prop::collection::vec((boxes(), prop::collection::vec(0i64..=8, 5)), 1..=3),
        (
            0usize..5,
            0u8..10,
            1u64..=15,
            prop::collection::vec(any::<bool>(), PHRASES.len()),
        ),
    )
        .prop_map(|(items, whs, (goal, support, time, phrases))| {
            let warehouses = whs
                .into_iter()
                .enumerate()
                .map(|(w, (boxes, stock))| Warehouse {
                    warehouse_id: format!("w{w}"),
                    boxes,
                    inventory: items
                        .iter()
                        .zip(&stock)
                        .map(|(i, &s)| (i.item_id.clone(), s))
                        .collect(),
                })
                .collect();
            let goal = [
                Goal::FewestPackages,
                Goal::LowestCost,
                Goal::FewestWarehouses,
                Goal::BestFit,
                Goal::BalancedWeight,
            ][goal];
            let instructions: Vec<&str> = PHRASES
                .iter()
                .zip(&phrases)
                .filter(|(_, on)| **on)
                .map(|(p, _)| *p)
                .collect();
            PackRequest {
                items,
                warehouses,
                options: PackOptions {
                    goal,
                    instructions: instructions.join(". "),
                    time_limit_ms: Some(time),
                    require_support: support != 0,
                    // Partial support on some requests: half, or three quarters, of a base.
                    min_support: match support {
                        1 => 0.5,
                        2 => 0.75,
                        _ => 1.0,
                    },
                },
                ..PackRequest::default()
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn random_requests_always_give_valid_results(req in request()) {
        let sol = pack(&req).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Err(v) = validate(&req, &sol) {
            return Err(TestCaseError::fail(format!("{v:#?}")));
        }
        prop_assert_eq!(&sol, &pack(&req).unwrap());
        let plain = baseline::pack(&req).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Err(v) = validate(&req, &plain) {
            return Err(TestCaseError::fail(format!("baseline: {v:#?}")));
        }
    }

    /// Sizes with many decimals, as centimetre conversions give: the engine's 1/1000 grid
    /// rounds them, and the validator must still find nothing floating or overlapping.
    #[test]
    fn awkward_decimals_stay_valid(
        dims in prop::collection::vec((0.3f64..9.0, 0.3f64..9.0, 0.3f64..9.0, 1i64..=8), 1..=4),
        bin in (8.0f64..20.0, 8.0f64..20.0, 8.0f64..20.0),
        any_turn in any::<bool>(),
    ) {
        let items: Vec<Item> = dims
            .iter()
            .enumerate()
            .map(|(i, &(w, h, l, q))| {
                let mut it = Item::new(&format!("i{i}"), w * 2.54, h, l / 2.54, 1.0, q);
                if !any_turn {
                    it.orientation = Orientation::Upright;
                }
                it
            })
            .collect();
        let mut wh = Warehouse { warehouse_id: "w".into(), ..Warehouse::default() };
        wh.boxes.push(BoxType::new("b", bin.0 * 1.7, bin.1, bin.2, 1000.0));
        for it in &items {
            wh.inventory.insert(it.item_id.clone(), it.quantity);
        }
        let req = PackRequest { items, warehouses: vec![wh], units: packing::LengthUnit::Cm, ..PackRequest::default() };
        let sol = pack(&req).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(validate(&req, &sol).is_ok());
    }

    #[test]
    fn random_carts_always_give_valid_results(seed in any::<u64>()) {
        let req = packing::carts::cart(seed);
        let sol = pack(&req).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(validate(&req, &sol).is_ok());
        prop_assert_eq!(
            sol.summary.total_items_packed as i64 + sol.unfitted_items.iter().map(|u| u.quantity).sum::<i64>(),
            req.items.iter().map(|i| i.quantity).sum::<i64>()
        );
    }
}
