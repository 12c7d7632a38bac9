//! The diagrams parse as XML, hold exactly the units of steps 1..K with step K highlighted, and
//! paint back to front.

mod common;

use views::{diagram, loading_order, PackedBox, Size, Unit};

fn boxed(units: Vec<Unit>) -> PackedBox {
    PackedBox {
        box_id: "B".into(),
        inner: Size {
            width: 10.0,
            height: 10.0,
            length: 10.0,
        },
        units,
    }
}

/// `(step, class)` of the unit groups in document (painting) order.
fn groups(svg: &str) -> Vec<(usize, String)> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter_map(|n| {
            let step = n.attribute("data-step")?.parse().expect("a step number");
            Some((step, n.attribute("class").unwrap_or("").to_string()))
        })
        .collect()
}

/// Painting order of the units named by SKU.
fn painted(bx: &PackedBox) -> Vec<String> {
    let steps = loading_order(bx);
    groups(&diagram(bx, &steps, None))
        .into_iter()
        .map(|(k, _)| steps[k - 1].sku.clone())
        .collect()
}

#[test]
fn the_nearer_unit_is_painted_after_the_farther() {
    // "back" stands behind "front" (larger z) and is listed last: drawn first all the same.
    let bx = boxed(vec![
        Unit::new("front", [2.0, 0.0, 0.0], [4.0, 4.0, 3.0]),
        Unit::new("back", [2.0, 0.0, 6.0], [4.0, 4.0, 3.0]),
    ]);
    assert_eq!(painted(&bx), ["back", "front"]);
    // The viewer is at the right (+x) and above: the right one and the upper one are nearer.
    let bx = boxed(vec![
        Unit::new("right", [5.0, 0.0, 0.0], [3.0, 3.0, 3.0]),
        Unit::new("left", [0.0, 0.0, 0.0], [3.0, 3.0, 3.0]),
    ]);
    assert_eq!(painted(&bx), ["left", "right"]);
    let bx = boxed(vec![
        Unit::new("top", [0.0, 3.0, 0.0], [3.0, 3.0, 3.0]),
        Unit::new("bottom", [0.0, 0.0, 0.0], [3.0, 3.0, 3.0]),
    ]);
    assert_eq!(painted(&bx), ["bottom", "top"]);
}

#[test]
fn a_long_unit_in_front_is_painted_after_a_near_looking_one_behind_it() {
    // A sort by any single point (centre depth, nearest corner) gets this wrong: the long
    // plank lies in front of the cube, but the cube's corner is nearer to the viewer.
    let bx = boxed(vec![
        Unit::new("plank", [0.0, 0.0, 0.0], [10.0, 1.0, 1.0]),
        Unit::new("cube", [8.0, 0.0, 1.0], [2.0, 6.0, 2.0]),
    ]);
    assert_eq!(painted(&bx), ["cube", "plank"]);
}

#[test]
fn step_k_holds_exactly_the_units_of_steps_1_to_k() {
    let boxes = common::cart_boxes(1..=6, 8);
    assert!(boxes.len() >= 3);
    for bx in &boxes {
        let steps = loading_order(bx);
        let n = steps.len();
        for k in 0..=n {
            let g = groups(&diagram(bx, &steps, Some(k)));
            let mut seen: Vec<usize> = g.iter().map(|(s, _)| *s).collect();
            seen.sort_unstable();
            assert_eq!(seen, (1..=k).collect::<Vec<_>>(), "step {k}");
            let lit: Vec<usize> = g
                .iter()
                .filter(|(_, c)| c.split(' ').any(|c| c == "h"))
                .map(|(s, _)| *s)
                .collect();
            assert_eq!(lit, if k == 0 { vec![] } else { vec![k] }, "step {k}");
        }
        let all = groups(&diagram(bx, &steps, None));
        assert_eq!(all.len(), n);
        assert!(all.iter().all(|(_, c)| !c.contains(" h")));
    }
}

#[test]
fn touching_units_of_real_packings_paint_the_farther_first() {
    // Two units sharing a face (positive area) always overlap in the picture; the one on the
    // far side of the face (lower, more to the left, or further back) must be painted first.
    let mut pairs = 0;
    for bx in common::cart_boxes(1..=12, 2) {
        let steps = loading_order(&bx);
        let order: Vec<usize> = groups(&diagram(&bx, &steps, None))
            .iter()
            .map(|(k, _)| *k)
            .collect();
        let pos = |step: usize| order.iter().position(|&k| k == step).unwrap();
        let span = |k: usize| {
            let s = &steps[k - 1];
            let (p, d) = (s.position, s.dimensions);
            [
                (p.x, p.x + d.width),
                (p.y, p.y + d.height),
                (p.z, p.z + d.length),
            ]
        };
        let meet = |a: (f64, f64), b: (f64, f64)| a.1.min(b.1) - a.0.max(b.0) > 1e-6;
        for a in 1..=steps.len() {
            for b in 1..=steps.len() {
                let (sa, sb) = (span(a), span(b));
                let touch = |ax: usize| (sa[ax].1 - sb[ax].0).abs() < 2e-3;
                let others = |ax: usize| (0..3).filter(|&o| o != ax).all(|o| meet(sa[o], sb[o]));
                // a is left of b, below b, or behind b (a's z range starts where b's ends).
                let farther = (touch(0) && others(0))
                    || (touch(1) && others(1))
                    || ((sb[2].1 - sa[2].0).abs() < 2e-3 && others(2));
                if farther {
                    pairs += 1;
                    assert!(
                        pos(a) < pos(b),
                        "step {a} is painted over the nearer step {b}"
                    );
                }
            }
        }
    }
    assert!(pairs > 100, "{pairs} touching pairs");
}

#[test]
fn text_is_escaped_and_upright_units_get_an_arrow() {
    let mut u = Unit::new("<A&B>", [0.0, 0.0, 0.0], [5.0, 5.0, 5.0]);
    u.name = "Jar \"large\" & lid".into();
    u.orientation = views::Orientation::Upright;
    u.fragile = true;
    let bx = boxed(vec![u]);
    let steps = loading_order(&bx);
    let svg = diagram(&bx, &steps, Some(1));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(texts
        .iter()
        .any(|t| t.contains("<A&B> \u{2014} Jar \"large\" & lid, this side up, fragile")));
    let arrows = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "use")
        .count();
    assert_eq!(arrows, 1);
    let plain = boxed(vec![Unit::new("p", [0.0, 0.0, 0.0], [5.0, 5.0, 5.0])]);
    assert!(!diagram(&plain, &loading_order(&plain), None).contains("<use"));
}

#[test]
fn the_complete_200_unit_box_is_under_100_kb() {
    let bx = common::box_of_200();
    let steps = loading_order(&bx);
    let svg = diagram(&bx, &steps, None);
    assert_eq!(groups(&svg).len(), 200);
    assert!(svg.len() < 100_000, "{} bytes", svg.len());
}

#[test]
fn a_scene_draws_every_step_as_diagram_does() {
    for bx in common::cart_boxes(3..=4, 5) {
        let steps = loading_order(&bx);
        let scene = views::Scene::new(&bx, &steps);
        for k in [
            None,
            Some(0),
            Some(1),
            Some(steps.len() / 2),
            Some(steps.len() + 5),
        ] {
            assert_eq!(scene.render(k), diagram(&bx, &steps, k), "step {k:?}");
        }
    }
}

#[test]
fn tall_and_flat_boxes_stay_a_readable_size() {
    for (w, h, l) in [(10.0, 200.0, 10.0), (100.0, 1.0, 80.0), (0.0, 0.0, 0.0)] {
        let mut bx = boxed(vec![]);
        bx.inner = Size {
            width: w,
            height: h,
            length: l,
        };
        let svg = diagram(&bx, &[], None);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let root = doc.root_element();
        let width: f64 = root.attribute("width").unwrap().parse().unwrap();
        let height: f64 = root.attribute("height").unwrap().parse().unwrap();
        assert!(
            (300.0..=600.0).contains(&width),
            "{w}x{h}x{l}: width {width}"
        );
        assert!(
            (60.0..=700.0).contains(&height),
            "{w}x{h}x{l}: height {height}"
        );
    }
}

#[test]
fn long_labels_stay_inside_the_picture() {
    let sku = "SKU-WITH-A-VERY-LONG-NAME-0001";
    let mut u = Unit::new(sku, [9.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
    u.name = "x".repeat(300);
    let bx = boxed(vec![u]);
    let svg = diagram(&bx, &loading_order(&bx), Some(1));
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let width: f64 = doc
        .root_element()
        .attribute("width")
        .unwrap()
        .parse()
        .unwrap();
    let label = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("lb"))
        .unwrap();
    assert_eq!(label.text(), Some(sku));
    let x: f64 = label.attribute("x").unwrap().parse().unwrap();
    let half = sku.len() as f64 * 13.0 * 0.6 / 2.0;
    assert!(x + half <= width, "label at {x} of {width}");
    let caption = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("cap"))
        .unwrap()
        .text()
        .unwrap();
    assert!(caption.ends_with('\u{2026}') && caption.chars().count() * 8 < width as usize);
    let title = doc
        .descendants()
        .find(|n| n.tag_name().name() == "title")
        .unwrap();
    assert!(title.text().unwrap().ends_with(&"x".repeat(300)));
}

#[test]
fn a_scene_can_be_shared_between_threads() {
    fn shared<T: Send + Sync + 'static>() {}
    shared::<views::Scene>();
}

#[test]
fn units_in_front_of_step_k_are_see_through() {
    // Loading: the base and the tall front unit (floor), then the unit on the base, which
    // stands behind the tall one in the picture.
    let bx = boxed(vec![
        Unit::new("base", [0.0, 0.0, 6.0], [4.0, 2.0, 4.0]),
        Unit::new("tall", [0.0, 0.0, 0.0], [6.0, 8.0, 3.0]),
        Unit::new("on-base", [0.0, 2.0, 6.0], [4.0, 2.0, 4.0]),
        Unit::new("aside", [8.0, 0.0, 8.0], [2.0, 1.0, 2.0]),
    ]);
    let steps = loading_order(&bx);
    let names: Vec<&str> = steps.iter().map(|s| s.sku.as_str()).collect();
    assert_eq!(names, ["base", "aside", "tall", "on-base"]);
    let class_of = |svg: &str, sku: &str| {
        let k = steps.iter().position(|s| s.sku == sku).unwrap() + 1;
        let g = groups(svg);
        g.into_iter().find(|(s, _)| *s == k).unwrap().1
    };
    let svg = diagram(&bx, &steps, Some(4));
    assert_eq!(class_of(&svg, "tall"), "u m o");
    assert_eq!(class_of(&svg, "base"), "u m");
    assert_eq!(class_of(&svg, "aside"), "u m");
    assert_eq!(class_of(&svg, "on-base"), "u h");
    // At step 3 nothing stands in front of the tall unit.
    let svg = diagram(&bx, &steps, Some(3));
    assert!(groups(&svg).iter().all(|(_, c)| !c.contains('o')));
}
