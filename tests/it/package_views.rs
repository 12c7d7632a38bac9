//! The packer's views of a stored package over the real API: instructions that keep the two
//! loading rules and name the units, step diagrams that parse as SVG with exactly K units at
//! step K, the printable slip with its barcode and address, and the errors.

use serde_json::Value;

use crate::support::{assert_error, stacked_order, stacking_catalog, Server};

const EPS: f64 = 1e-6;

/// A started server with one packed order of 4 plates and 2 cups; (server, package id).
async fn packed() -> (Server, String) {
    let s = Server::start().await;
    stacking_catalog(&s).await;
    let o = stacked_order(&s, "SO-STATION-1", 4, 2).await;
    let packages = s.packages_of(o["id"].as_str().unwrap()).await;
    assert_eq!(packages.len(), 1, "{packages:?}");
    let id = packages[0]["id"].as_str().unwrap().to_string();
    (s, id)
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap()
}

/// The x and z ranges of two steps overlap with positive area.
fn footprints_overlap(a: &Value, b: &Value) -> bool {
    [("x", "width"), ("z", "length")].iter().all(|(axis, dim)| {
        let (a0, b0) = (f(&a["position"], axis), f(&b["position"], axis));
        let (a1, b1) = (a0 + f(&a["dimensions"], dim), b0 + f(&b["dimensions"], dim));
        a0.max(b0) < a1.min(b1) - EPS
    })
}

fn bottom(s: &Value) -> f64 {
    f(&s["position"], "y")
}

fn top(s: &Value) -> f64 {
    bottom(s) + f(&s["dimensions"], "height")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_follow_the_loading_rules_and_name_every_unit() {
    let (s, id) = packed().await;
    let (status, v) = s.instructions(&id).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["packageId"], id.as_str());
    assert_eq!(v["boxId"], "TALL");
    assert_eq!(v["boxDimensions"]["height"], 12.0);
    assert_eq!(v["lengthUnit"], "in");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    for (i, st) in steps.iter().enumerate() {
        assert_eq!(st["step"], i + 1, "numbered from 1 in order");
        let (name, hazmat) = match st["sku"].as_str().unwrap() {
            "PLATE" => ("Dinner plate", Value::Null),
            "CUP" => ("Paint cup", Value::from("3")),
            other => panic!("unexpected {other}"),
        };
        assert_eq!(st["name"], name);
        assert_eq!(st["hazmatClass"], hazmat);
        assert_eq!(st["orientation"], "upright");
        assert_eq!(st["fragile"], false);
        assert_eq!(st["rotated"], false);
    }
    // Rule 1: each unit after the units it rests on, and restsOn is exactly those units.
    // Rule 2: no earlier unit lies above a later one (its base at or over the later top).
    for (j, later) in steps.iter().enumerate() {
        let carriers: Vec<u64> = steps
            .iter()
            .filter(|u| (top(u) - bottom(later)).abs() < EPS && footprints_overlap(u, later))
            .map(|u| u["step"].as_u64().unwrap())
            .collect();
        let rests_on: Vec<u64> = later["restsOn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_u64().unwrap())
            .collect();
        assert_eq!(rests_on, carriers, "step {}", j + 1);
        assert!(rests_on.iter().all(|&r| r < j as u64 + 1), "step {}", j + 1);
        assert_eq!(
            bottom(later) > EPS,
            !rests_on.is_empty(),
            "floor or support"
        );
        for earlier in &steps[..j] {
            assert!(
                !(footprints_overlap(earlier, later) && bottom(earlier) >= top(later) - EPS),
                "step {} lies above the later step {}",
                earlier["step"],
                later["step"]
            );
        }
    }
    // Plates only fit one per layer: they stack, and the cups stand on the top plate.
    let plates: Vec<&Value> = steps.iter().filter(|s| s["sku"] == "PLATE").collect();
    assert!(plates
        .iter()
        .skip(1)
        .all(|p| p["restsOn"].as_array().unwrap().len() == 1));
    // The steps are the package's units, placed where the package says.
    let pkg = s.get_ok(&format!("/api/packages/{id}")).await;
    let mut stored: Vec<String> = Vec::new();
    for item in pkg["items"].as_array().unwrap() {
        for p in item["placements"].as_array().unwrap() {
            stored.push(format!("{} {}", item["sku"], p["position"]));
        }
    }
    let mut listed: Vec<String> = steps
        .iter()
        .map(|st| format!("{} {}", st["sku"], st["position"]))
        .collect();
    stored.sort();
    listed.sort();
    assert_eq!(listed, stored);
}

/// The `<g data-step>` unit groups of an SVG, as (step, class).
fn unit_groups(svg: &str) -> Vec<(usize, String)> {
    let doc = roxmltree::Document::parse(svg).expect("the diagram is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("g"))
        .filter_map(|n| {
            let step = n.attribute("data-step")?.parse().unwrap();
            Some((step, n.attribute("class").unwrap_or("").to_string()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_step_draws_exactly_the_units_placed_so_far() {
    let (s, id) = packed().await;
    for k in 0..=6usize {
        let a = s.diagram(&id, &format!("?step={k}")).await;
        assert_eq!(a.status, 200, "step {k}: {}", a.text);
        assert_eq!(a.content_type, "image/svg+xml");
        let groups = unit_groups(&a.text);
        assert_eq!(groups.len(), k, "step {k}");
        let mut drawn: Vec<usize> = groups.iter().map(|(s, _)| *s).collect();
        drawn.sort();
        assert_eq!(drawn, (1..=k).collect::<Vec<_>>());
        // Step K alone is highlighted; the earlier ones are muted.
        for (step, class) in &groups {
            let words: Vec<&str> = class.split(' ').collect();
            assert_eq!(
                words.contains(&"h"),
                *step == k,
                "step {step} at {k}: {class}"
            );
            assert_eq!(
                words.contains(&"m"),
                *step < k,
                "step {step} at {k}: {class}"
            );
        }
    }
    // Without a step: the packed box, every unit in its SKU's colour.
    let a = s.diagram(&id, "").await;
    assert_eq!(a.status, 200);
    let groups = unit_groups(&a.text);
    assert_eq!(groups.len(), 6);
    assert!(groups
        .iter()
        .all(|(_, c)| !c.contains('h') && !c.contains('m')));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_past_the_last_or_not_a_number_is_refused_naming_step() {
    let (s, id) = packed().await;
    for (query, status, code) in [
        ("?step=7", 422, "validation_error"),
        ("?step=-1", 422, "validation_error"),
        ("?step=two", 400, "bad_request"),
        ("?step=", 400, "bad_request"),
    ] {
        let a = s.diagram(&id, query).await;
        assert_eq!(a.status, status, "{query}: {}", a.text);
        assert_eq!(a.content_type, "application/json");
        assert_error(&a.json(), code, Some("step"));
    }
    let a = s.slip(&id, "?paper=legal").await;
    assert_eq!(a.status, 422);
    assert_error(&a.json(), "validation_error", Some("paper"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_or_malformed_package_ids_are_404_on_every_view() {
    let s = Server::start().await;
    for id in ["pkg_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b", "nope"] {
        let (status, v) = s.instructions(id).await;
        assert_eq!(status, 404, "{v}");
        assert_error(&v, "not_found", None);
        for a in [s.diagram(id, "?step=1").await, s.slip(id, "").await] {
            assert_eq!(a.status, 404, "{}", a.text);
            assert_error(&a.json(), "not_found", None);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slip_prints_the_barcode_address_contents_and_packed_box() {
    let (s, id) = packed().await;
    let a = s.slip(&id, "").await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.content_type, "text/html; charset=utf-8");
    let html = &a.text;
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("@page{size:A4;"));
    assert!(html.contains("SO-STATION-1"), "order reference");
    for line in ["Ann", "1 Main St", "Reno, NV 89501", "US"] {
        assert!(
            html.contains(&format!("<div>{line}</div>")),
            "address {line}"
        );
    }
    assert!(html.contains("<td>PLATE</td><td>Dinner plate</td><td class=\"q\">4</td>"));
    assert!(html.contains("<td>CUP</td><td>Paint cup</td><td class=\"q\">2</td>"));
    assert!(html.contains("TALL") && html.contains("6 \u{00d7} 12 \u{00d7} 6 in"));
    // The barcode: an SVG of dark bars, with the id printed under it.
    let start = html
        .find("<svg role=\"img\" aria-label=\"barcode\"")
        .expect("barcode");
    let end = start + html[start..].find("</svg>").unwrap() + "</svg>".len();
    let code = roxmltree::Document::parse(&html[start..end]).expect("barcode SVG");
    let bars = code
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .count();
    assert!(bars > 38 * 2, "{bars} rects");
    // Code 128 of the 36-character id: start, 36 characters and the checksum of 11 modules
    // each, and the 13-module stop, one SVG unit each.
    let view_box = code.root_element().attribute("viewBox").unwrap();
    assert_eq!(view_box, format!("0 0 {} 60", 11 * 38 + 13));
    assert!(html[end..].starts_with(&id));
    // The packed box's diagram, every unit drawn.
    let start = html.find("<svg xmlns=").expect("diagram");
    let end = start + html[start..].find("</svg>").unwrap() + "</svg>".len();
    assert_eq!(unit_groups(&html[start..end]).len(), 6);
    let letter = s.slip(&id, "?paper=letter").await;
    assert_eq!(letter.status, 200);
    assert!(letter.text.contains("@page{size:letter;"));
}
