//! The packing listener's `POST /api/v1/optimize`: API-key auth, the response shape with
//! valid placements, unfitted reasons, input errors by field path, `options.min_support`, the
//! same answer whether one worker or two pack a request, and 503 when the worker queue is full.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{assert_error, body, Server};

fn request() -> Value {
    json!({
        "units": "in",
        "items": [
            {"item_id": "mug", "width": 4, "height": 4, "length": 4, "weight": 1, "quantity": 6, "orientation": "upright"},
            {"item_id": "crate", "width": 40, "height": 40, "length": 40, "weight": 5, "quantity": 1},
            {"item_id": "ghost", "width": 2, "height": 2, "length": 2, "weight": 1, "quantity": 2},
        ],
        "warehouses": [{"warehouse_id": "w1",
            "boxes": [{"box_id": "M", "width": 12, "height": 8, "length": 10, "max_weight": 40, "quantity": 10, "cost": 1.5}],
            "inventory": {"mug": 10, "crate": 1}}],
        "options": {"goal": "fewest_packages", "instructions": "keep mug upright\nplease sing a song"},
    })
}

fn optimize(s: &Server, key: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let mut r = s
        .http
        .post(format!("{}/api/v1/optimize", s.packing))
        .json(body);
    if let Some(k) = key {
        r = r.header("X-API-Key", k);
    }
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_packs_with_valid_placements_and_reports_what_did_not_fit() {
    let s = Server::start().await;
    let (status, v) = body(
        optimize(&s, Some(&s.creds.api_key), &request())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let packages = v["packages"].as_array().unwrap();
    assert_eq!(v["summary"]["total_packages"], packages.len());
    assert_eq!(v["summary"]["total_items_packed"], 6);
    assert_eq!(v["summary"]["warehouses_used"], json!(["w1"]));
    assert!(v["summary"]["solve_ms"].is_number());
    for p in packages {
        let id = p["package_id"].as_str().unwrap();
        assert!(
            id.starts_with("pkg_w1_M_") && id.len() > "pkg_w1_M_".len(),
            "{id}"
        );
        let bx = &p["box_dimensions"];
        for it in p["items"].as_array().unwrap() {
            for (axis, dim) in [("x", "width"), ("y", "height"), ("z", "length")] {
                let start = it["position"][axis].as_f64().unwrap();
                let end = start + it["dimensions"][dim].as_f64().unwrap();
                assert!(
                    start >= -1e-9 && end <= bx[dim].as_f64().unwrap() + 1e-9,
                    "{it} outside {bx}"
                );
            }
            assert_eq!(
                it["dimensions"]["height"], 4.0,
                "upright keeps the height vertical"
            );
        }
        assert!(p["volume_utilization"].as_f64().unwrap() > 0.0);
        assert!(p["weight_distribution"]["balance_score"].is_number());
        assert!(p["center_of_gravity"]["y"].is_number());
    }
    let mut unfitted: Vec<(String, String)> = v["unfitted_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["item_id"].as_str().unwrap().to_string(),
                u["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    unfitted.sort();
    assert_eq!(
        unfitted,
        [
            ("crate".to_string(), "too_large".to_string()),
            ("ghost".to_string(), "no_inventory".to_string())
        ]
    );
    let statuses: Vec<&str> = v["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["applied", "not_understood"],
        "{}",
        v["instructions"]
    );
    assert_eq!(v["compliance"]["hazmat_compliant"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_needs_an_api_key_and_names_bad_fields() {
    let s = Server::start().await;
    let no_key = optimize(&s, None, &request()).send().await.unwrap();
    assert_eq!(no_key.status(), 401);
    assert_error(&no_key.json().await.unwrap(), "unauthorized", None);
    let token = s.token_for(&s.creds).await;
    let bearer = s
        .http
        .post(format!("{}/api/v1/optimize", s.packing))
        .bearer_auth(token)
        .json(&request())
        .send()
        .await
        .unwrap();
    assert_eq!(
        bearer.status(),
        401,
        "the packing service takes X-API-Key only"
    );

    let key = s.creds.api_key.clone();
    let mut cases: Vec<(Value, u16, &str)> = Vec::new();
    let mut r = request();
    r.as_object_mut().unwrap().remove("items");
    cases.push((r, 422, "items"));
    let mut r = request();
    r["items"][1].as_object_mut().unwrap().remove("width");
    cases.push((r, 422, "items[1].width"));
    let mut r = request();
    r["items"][0]["width"] = json!(-4);
    cases.push((r, 422, "items[0].width"));
    let mut r = request();
    r["options"]["goal"] = json!("cheapest");
    cases.push((r, 422, "options.goal"));
    let mut r = request();
    r["warehouses"][0]["boxes"][0]["max_weight"] = json!("heavy");
    cases.push((r, 400, "warehouses[0].boxes[0].max_weight"));
    let mut r = request();
    r["units"] = json!("ft");
    cases.push((r, 422, "units"));
    for (input, status, field) in cases {
        let (st, v) = body(optimize(&s, Some(&key), &input).send().await.unwrap()).await;
        assert_eq!(st, status, "{field}: {v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
    let resp = s
        .http
        .post(format!("{}/api/v1/optimize", s.packing))
        .header("X-API-Key", &key)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_packing_queue_answers_503_with_retry_after() {
    // No worker threads and one queue slot: the first request waits in the queue (until
    // the request timeout), the second finds it full.
    let s = Server::start_with(|c| {
        c.packing_workers = 0;
        c.packing_queue = 1;
        c.limits.request_timeout = Duration::from_millis(500);
    })
    .await;
    let key = s.creds.api_key.clone();
    let (a, b) = tokio::join!(
        optimize(&s, Some(&key), &request()).send(),
        optimize(&s, Some(&key), &request()).send()
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (503, 503));
    let busy: Vec<&reqwest::Response> = [&a, &b]
        .into_iter()
        .filter(|r| r.headers().get("retry-after").is_some_and(|v| v == "1"))
        .collect();
    assert_eq!(busy.len(), 1, "exactly one found the queue full");
    let (_, v) = body(optimize(&s, Some(&key), &request()).send().await.unwrap()).await;
    assert_error(&v, "unavailable", None);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("queue is full"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_steps_adds_each_packages_loading_order_and_diagram() {
    let s = Server::start().await;
    let key = s.creds.api_key.clone();
    // 12 mugs: more than one layer of the 12 x 8 x 10 box, so some stand on others.
    let mut r = request();
    r["items"][0]["quantity"] = json!(12);
    r["warehouses"][0]["inventory"]["mug"] = json!(12);
    r["options"]["include_steps"] = json!(true);
    let (status, v) = body(optimize(&s, Some(&key), &r).send().await.unwrap()).await;
    assert_eq!(status, 200, "{v}");
    let packages = v["packages"].as_array().unwrap();
    let mut stacked = 0;
    for p in packages {
        let items = p["items"].as_array().unwrap();
        let steps = p["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), items.len());
        for (i, st) in steps.iter().enumerate() {
            assert_eq!(st["step"], i + 1);
            assert_eq!(st["item_id"], "mug");
            assert_eq!(st["orientation"], "upright");
            assert_eq!(st["hazmat_class"], Value::Null);
            let rests_on = st["rests_on"].as_array().unwrap();
            assert!(rests_on.iter().all(|r| r.as_u64().unwrap() < i as u64 + 1));
            let y = st["position"]["y"].as_f64().unwrap();
            assert_eq!(y > 1e-9, !rests_on.is_empty(), "{st}");
            stacked += usize::from(!rests_on.is_empty());
        }
        // Each step is one of the package's units, where the package placed it.
        let mut placed: Vec<String> = items.iter().map(|i| i["position"].to_string()).collect();
        let mut listed: Vec<String> = steps.iter().map(|s| s["position"].to_string()).collect();
        placed.sort();
        listed.sort();
        assert_eq!(listed, placed);
        let svg = p["diagram_svg"].as_str().expect("diagram_svg");
        let doc = roxmltree::Document::parse(svg).expect("the diagram is XML");
        let units = doc
            .descendants()
            .filter(|n| n.has_tag_name("g") && n.has_attribute("data-step"))
            .count();
        assert_eq!(units, items.len());
    }
    assert!(stacked > 0, "some mug stands on another");
    // The default, and false, leave both out.
    for include in [None, Some(false)] {
        let mut r = request();
        if let Some(b) = include {
            r["options"]["include_steps"] = json!(b);
        }
        let (status, v) = body(optimize(&s, Some(&key), &r).send().await.unwrap()).await;
        assert_eq!(status, 200, "{v}");
        for p in v["packages"].as_array().unwrap() {
            assert!(
                p.get("steps").is_none() && p.get("diagram_svg").is_none(),
                "{p}"
            );
        }
    }
    r["options"]["include_steps"] = json!("yes");
    let (status, v) = body(optimize(&s, Some(&key), &r).send().await.unwrap()).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["field"], "options.include_steps", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_support_is_checked_and_reported() {
    let s = Server::start().await;
    let key = s.creds.api_key.clone();
    let support = |v: &Value| v["summary"]["min_support"].as_f64();
    let (st, v) = body(optimize(&s, Some(&key), &request()).send().await.unwrap()).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(support(&v), Some(1.0), "the default rests the whole base");
    let mut r = request();
    r["options"]["min_support"] = json!(0.75);
    let (st, v) = body(optimize(&s, Some(&key), &r).send().await.unwrap()).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(support(&v), Some(0.75));
    for bad in [json!(0.4), json!(1.1)] {
        let mut r = request();
        r["options"]["min_support"] = bad.clone();
        let (st, v) = body(optimize(&s, Some(&key), &r).send().await.unwrap()).await;
        assert_eq!(st, 422, "{bad}: {v}");
        assert_error(&v, "validation_error", Some("options.min_support"));
    }
}

/// 30 units of MPV class 1 (instance 2) at a 10 ms budget: portfolio variants 0 and 1 pack
/// them differently (8 and 7 boxes), so an answer that depended on which thread finished
/// first, or on a lone variant, would show.
fn mpv_request(class: u8, index: u32, items: usize) -> (packing::PackRequest, Value) {
    let mut req = packing::mpv::instance(class, 50, index).request(packing::Orientation::Any);
    req.items.truncate(items);
    req.options.time_limit_ms = Some(10);
    let items: Vec<Value> = req
        .items
        .iter()
        .map(|it| {
            json!({"item_id": it.item_id, "width": it.width, "height": it.height,
                "length": it.length, "weight": it.weight, "quantity": it.quantity})
        })
        .collect();
    let inventory: BTreeMap<&str, i64> = req.items.iter().map(|it| (&*it.item_id, 1)).collect();
    let b = &req.warehouses[0].boxes[0];
    let body = json!({
        "items": items,
        "warehouses": [{"warehouse_id": "mpv", "inventory": inventory,
            "boxes": [{"box_id": "bin", "width": b.width, "height": b.height, "length": b.length,
                "max_weight": b.max_weight}]}],
        "options": {"time_limit_ms": 10},
    });
    (req, body)
}

/// Every unit's box number, id, position and size: the packing without the random package ids.
fn placements(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, p) in v["packages"].as_array().unwrap().iter().enumerate() {
        for it in p["items"].as_array().unwrap() {
            out.push(json!([i, it["item_id"], it["position"], it["dimensions"]]));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_answers_the_same_on_one_worker_or_two() {
    // The first small MPV request on which the second variant beats the first, so that an
    // answer taken from the wrong variant shows; which one that is moves with the engine.
    let candidates = [1u8, 2, 3, 5, 8]
        .into_iter()
        .flat_map(|c| (1..=5u32).flat_map(move |v| [30, 50].map(|n| (c, v, n))));
    let (input, best) = candidates
        .filter_map(|(c, v, n)| {
            let (req, input) = mpv_request(c, v, n);
            let lone = packing::pack_variant(&req, 0)
                .unwrap()
                .summary
                .total_packages;
            let best = packing::pack_portfolio(&req, 2)
                .unwrap()
                .summary
                .total_packages;
            (best < lone).then_some((input, best))
        })
        .next()
        .expect("the variants must differ on some request for this test to mean anything");
    let mut answers = Vec::new();
    for workers in [2, 2, 1] {
        // One worker: the pool is never idle enough for a second thread.
        let s = Server::start_with(|c| c.packing_workers = workers).await;
        let (st, v) = body(
            optimize(&s, Some(&s.creds.api_key), &input)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["summary"]["total_packages"], best, "{workers} workers");
        answers.push(placements(&v));
    }
    assert_eq!(answers[0], answers[1], "two runs on two workers");
    assert_eq!(answers[0], answers[2], "two workers and one");
}

/// The request is read as its OpenAPI document describes it: null is absent where the document
/// allows it, an integral float is an integer, and an object field sent as an array is refused
/// by name (serde alone would read a struct from its fields in order).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_reads_nulls_integral_floats_and_objects_as_documented() {
    let s = Server::start().await;
    let key = Some(s.creds.api_key.as_str());
    let mut r = request();
    r["weight_units"] = Value::Null;
    r["items"][0]["quantity"] = json!(6.0);
    r["options"]["time_limit_ms"] = json!(50.0);
    let (status, v) = body(optimize(&s, key, &r).send().await.unwrap()).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["summary"]["total_items_packed"], 6);

    for (path, bad, field) in [
        ("options", json!([]), "options"),
        ("items", json!([["mug", 4, 4, 4, 1, 6]]), "items[0]"),
        ("quantity", json!(6.5), "items[0].quantity"),
    ] {
        let mut r = request();
        match path {
            "quantity" => r["items"][0]["quantity"] = bad,
            p => r[p] = bad,
        }
        let (status, v) = body(optimize(&s, key, &r).send().await.unwrap()).await;
        assert_eq!(status, 400, "{path}: {v}");
        assert_error(&v, "bad_request", Some(field));
    }
    let (status, v) = body(optimize(&s, key, &json!([])).send().await.unwrap()).await;
    assert_eq!(status, 400, "a top-level array: {v}");
    let mut r = request();
    r["options"]["time_limit_ms"] = json!(-1);
    let (status, v) = body(optimize(&s, key, &r).send().await.unwrap()).await;
    assert_eq!(status, 422, "{v}");
    assert_error(&v, "validation_error", Some("options.time_limit_ms"));
}
