//! The packing station over the real API and in a real headless Chromium: "packed" from a
//! bench moves a package exactly as the WMS callback does (rules, answer, audit), the
//! station's queue (oldest `created` at a warehouse), who may call what, a packer stepping
//! through a package on `/console/station`, and the slip printed to PDF by Chromium whose
//! Code 128 decodes to the package id.

use fantoccini::Locator;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::print::{
    decode_code128, pdf_info, print_to_pdf, printing_available, rasterize,
};
use crate::support::{
    assert_error, body, browser, now, stacked_order, stacking_catalog, Person, Server, WMS,
    WMS_SECRET,
};

const ENTER: &str = "\u{e007}";
const LEFT: &str = "\u{e012}";
const RIGHT: &str = "\u{e014}";

/// A started server with the station catalog and `n` packed orders of 3 plates and 2 cups;
/// (server, package ids oldest first).
async fn bench(n: usize) -> (Server, Vec<String>) {
    let s = Server::start().await;
    stacking_catalog(&s).await;
    let mut ids = Vec::new();
    for i in 0..n {
        let o = stacked_order(&s, &format!("SO-BENCH-{i}"), 3, 2).await;
        let packages = s.packages_of(o["id"].as_str().unwrap()).await;
        assert_eq!(packages.len(), 1, "{packages:?}");
        ids.push(packages[0]["id"].as_str().unwrap().to_string());
    }
    (s, ids)
}

fn packed_path(pkg: &str) -> String {
    format!("/api/fulfillment/packages/{pkg}/packed")
}

/// POST `path` as `p`, with the CSRF token when `csrf`.
async fn as_person(s: &Server, p: &Person, method: Method, path: &str, csrf: bool) -> (u16, Value) {
    body(
        p.req(&s.console_client(), method, &s.url(path), csrf)
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// POST the packed route with the test client's API key (no body, as documented).
async fn client_packed(s: &Server, pkg: &str) -> (u16, Value) {
    body(s.req(Method::POST, &packed_path(pkg)).send().await.unwrap()).await
}

fn wms_packed(pkg: &str, event: &str) -> Value {
    json!({"eventId": event, "packageId": pkg, "status": "packed",
           "occurredAt": "2026-11-26T03:00:00Z"})
}

async fn events(s: &Server, pkg: &str) -> Vec<Value> {
    s.get_ok(&format!("/api/packages/{pkg}/events")).await["events"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packed_from_the_bench_follows_the_wms_rules_and_is_kept_for_audit() {
    let (s, ids) = bench(3).await;
    s.set_secret("wms", WMS_SECRET);
    let pat = s.person("pat", "packer").await;
    let pkg = &ids[0];

    // A person's write needs the CSRF token: refused before anything ran.
    let (status, v) = as_person(&s, &pat, Method::POST, &packed_path(pkg), false).await;
    assert_eq!(status, 403, "{v}");
    assert_error(&v, "csrf_failed", None);
    let (status, v) = body(s.http.post(s.url(&packed_path(pkg))).send().await.unwrap()).await;
    assert_eq!(status, 401, "no credentials: {v}");
    assert_eq!(
        s.get_ok(&format!("/api/packages/{pkg}")).await["status"],
        "created"
    );
    assert!(events(&s, pkg).await.is_empty());

    // A packer may: the answer is the WMS callback's, from the source station:user:pat.
    let (status, v) = as_person(&s, &pat, Method::POST, &packed_path(pkg), true).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["event"]["outcome"], "applied");
    assert_eq!(v["event"]["source"], "station:user:pat");
    assert_eq!(v["event"]["status"], "packed");
    assert_eq!(v["package"]["status"], "packed");
    assert_eq!(
        s.get_ok(&format!("/api/packages/{pkg}")).await["status"],
        "packed"
    );

    // Pressed again, or the WMS saying the same: recorded, not applied, with the same note.
    let (status, again) = as_person(&s, &pat, Method::POST, &packed_path(pkg), true).await;
    assert_eq!(status, 200, "{again}");
    let (status, wms) = s
        .signed(WMS, WMS_SECRET, now(), &wms_packed(pkg, "w1"))
        .await;
    assert_eq!(status, 200, "{wms}");
    for answer in [&again, &wms] {
        assert_eq!(answer["event"]["outcome"], "ignored", "{answer}");
        assert_eq!(
            answer["event"]["note"],
            "late event: the package is already packed"
        );
        assert_eq!(answer["package"]["status"], "packed");
    }
    let trail: Vec<(Value, Value)> = events(&s, pkg)
        .await
        .iter()
        .map(|e| (e["source"].clone(), e["outcome"].clone()))
        .collect();
    assert_eq!(
        trail,
        [
            ("station:user:pat", "applied"),
            ("station:user:pat", "ignored"),
            ("wms", "ignored")
        ]
        .map(|(a, b)| (json!(a), json!(b)))
    );

    // A voided package (its order cancelled) gets the WMS callback's answer too.
    let order = s.get_ok(&format!("/api/packages/{}", ids[1])).await["orderId"].clone();
    let (status, _) = s.cancel(order.as_str().unwrap(), &json!({})).await;
    assert_eq!(status, 200);
    let (_, station) = as_person(&s, &pat, Method::POST, &packed_path(&ids[1]), true).await;
    let (_, wms) = s
        .signed(WMS, WMS_SECRET, now(), &wms_packed(&ids[1], "w2"))
        .await;
    for answer in [&station, &wms] {
        assert_eq!(answer["event"]["outcome"], "ignored", "{answer}");
        assert_eq!(
            answer["event"]["note"],
            "the package is voided, a final status"
        );
        assert_eq!(answer["package"]["status"], "voided");
    }

    // A client may too (machines have no roles); unknown and malformed ids are 404.
    let (status, v) = client_packed(&s, &ids[2]).await;
    assert_eq!(
        (status, &v["event"]["outcome"]),
        (200, &json!("applied")),
        "{v}"
    );
    assert!(v["event"]["source"]
        .as_str()
        .unwrap()
        .starts_with("station:"));
    for id in ["pkg_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b", "nope"] {
        let (status, v) = as_person(&s, &pat, Method::POST, &packed_path(id), true).await;
        assert_eq!(status, 404, "{v}");
        assert_error(&v, "not_found", None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_packer_reads_every_view_and_nobody_without_credentials_does() {
    let (s, ids) = bench(1).await;
    let pat = s.person("pat", "packer").await;
    let pkg = &ids[0];
    for path in [
        format!("/api/packages/{pkg}/instructions"),
        format!("/api/packages/{pkg}/diagram.svg?step=1"),
        format!("/api/packages/{pkg}/slip"),
        "/api/warehouses".to_string(),
        "/api/warehouses/ST".to_string(),
    ] {
        let resp = pat
            .req(&s.console_client(), Method::GET, &s.url(&path), false)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "a packer reads {path}");
        let (status, v) = body(s.http.get(s.url(&path)).send().await.unwrap()).await;
        assert_eq!(status, 401, "{path} without credentials: {v}");
        assert_error(&v, "unauthorized", None);
    }
    // What a packer may not do with warehouses is still refused.
    let (status, v) = body(
        pat.req(
            &s.console_client(),
            Method::PATCH,
            &s.url("/api/warehouses/ST"),
            true,
        )
        .json(&json!({"name": "Mine"}))
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 403, "{v}");
    for id in ["pkg_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b", "nope"] {
        for path in [
            format!("/api/packages/{id}/instructions"),
            format!("/api/packages/{id}/slip"),
        ] {
            let (status, v) = as_person(&s, &pat, Method::GET, &path, false).await;
            assert_eq!(status, 404, "{path}: {v}");
            assert_error(&v, "not_found", None);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_package_is_the_oldest_created_one_at_the_warehouse() {
    let (s, ids) = bench(3).await;
    let v = queue(&s, "").await;
    assert_eq!(v["packages"][0]["id"], ids[0].as_str());
    assert_eq!(v["pagination"]["total"], 3);
    assert_eq!(
        queue(&s, "&offset=2").await["packages"][0]["id"],
        ids[2].as_str()
    );
    let (status, v) = client_packed(&s, &ids[0]).await;
    assert_eq!(status, 200, "{v}");
    let v = queue(&s, "").await;
    assert_eq!(
        v["packages"][0]["id"],
        ids[1].as_str(),
        "the packed one left the queue"
    );
    assert_eq!(v["pagination"]["total"], 2);

    // Newest first stays the default; another warehouse has nothing; sort is checked.
    let v = s.get_ok("/api/packages?warehouseId=ST").await;
    let listed: Vec<&str> = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [&ids[2], &ids[1], &ids[0]].map(String::as_str));
    let v = s
        .get_ok("/api/packages?warehouseId=ELSEWHERE&status=created")
        .await;
    assert_eq!(
        (
            v["pagination"]["total"].as_u64(),
            v["packages"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
    let v = s.get_ok("/api/packages?sort=oldest&limit=2").await;
    assert_eq!(v["packages"][0]["id"], ids[0].as_str());
    assert_eq!(v["pagination"]["total"], 3);
    let (status, v) = s.get_json("/api/packages?sort=sideways").await;
    assert_eq!(status, 400, "{v}");
    assert_error(&v, "bad_request", Some("sort"));
}

/// The station's queue at warehouse ST: `GET /api/packages?warehouseId=ST&status=created&sort=oldest&limit=1`.
async fn queue(s: &Server, more: &str) -> Value {
    s.get_ok(&format!(
        "/api/packages?warehouseId=ST&status=created&sort=oldest&limit=1{more}"
    ))
    .await
}

/// The value of a DOM property of the element matching `selector`.
async fn prop(b: &browser::Browser, selector: &str, name: &str) -> Value {
    b.client
        .execute(
            "const [s, n] = arguments; const e = document.querySelector(s); return e ? e[n] : null;",
            vec![json!(selector), json!(name)],
        )
        .await
        .expect("script runs")
}

/// Sends keys to whatever has the focus (a scanner types into the focused field).
async fn keys(b: &browser::Browser, text: &str) {
    let el = b.client.active_element().await.expect("a focused element");
    el.send_keys(text).await.expect("type");
}

/// Waits until the step diagram shows `step` (`None`: the packed box) and has loaded.
async fn diagram_at(b: &browser::Browser, pkg: &str, step: Option<usize>) {
    let want = match step {
        Some(k) => format!("/api/packages/{pkg}/diagram.svg?step={k}"),
        None => format!("/api/packages/{pkg}/diagram.svg"),
    };
    let script = "const [want, done] = arguments; const img = document.getElementById('station-diagram');
        const ok = () => img && img.getAttribute('src') === want && img.complete && img.naturalWidth > 0;
        const t = setInterval(() => { if (ok()) { clearInterval(t); done(true); } }, 20);";
    let shown = b.client.execute_async(script, vec![json!(want)]).await;
    assert_eq!(shown.ok(), Some(json!(true)), "diagram {want} shown");
}

#[tokio::test]
async fn a_packer_scans_a_package_steps_through_it_and_marks_it_packed() {
    let (s, ids) = bench(2).await;
    let Some(b) = browser::logged_in(&s, "pat", "packer").await else {
        return;
    };
    let pkg = &ids[0];
    b.click("nav a[href='/console/station']").await;
    b.text("h1", "Packing station").await;
    // The bench's warehouse is chosen once and remembered; its oldest waiting package is offered.
    b.css("#station-warehouse option[value='ST']").await;
    b.css("#station-warehouse")
        .await
        .select_by_value("ST")
        .await
        .unwrap();
    b.text("#station-next-id", pkg).await;
    b.goto(&format!("{}/console/station", s.base)).await;
    b.text("#station-next-id", pkg).await;
    assert_eq!(prop(&b, "#station-warehouse", "value").await, "ST");

    // The scan field has the focus: the scanner types the id and Enter.
    assert_eq!(prop(&b, "#scan", "id").await, json!("scan"));
    let focused = b.client.active_element().await.unwrap();
    assert_eq!(focused.attr("id").await.unwrap().as_deref(), Some("scan"));
    keys(&b, &format!("{pkg}{ENTER}")).await;
    b.text("#station-step", "Take box TALL").await;
    b.text("#station-what", "6 × 12 × 6 in").await;
    diagram_at(&b, pkg, Some(0)).await;

    // Enter for each step, one unit at a time, with its text and diagram.
    let plan = s.instructions(pkg).await.1;
    let steps = plan["steps"].as_array().unwrap();
    for (i, st) in steps.iter().enumerate() {
        keys(&b, ENTER).await;
        b.text(
            "#station-step",
            &format!("Step {} of {}", i + 1, steps.len()),
        )
        .await;
        b.text("#station-what", st["name"].as_str().unwrap()).await;
        diagram_at(&b, pkg, Some(i + 1)).await;
    }
    keys(&b, LEFT).await;
    b.text(
        "#station-step",
        &format!("Step {} of {}", steps.len() - 1, steps.len()),
    )
    .await;
    keys(&b, RIGHT).await;
    keys(&b, RIGHT).await;
    b.text("#station-step", "All units are in").await;
    diagram_at(&b, pkg, None).await;
    let slip = b.css("#station-slip").await.attr("href").await.unwrap();
    assert_eq!(
        slip.as_deref(),
        Some(format!("/api/packages/{pkg}/slip?paper=a4").as_str())
    );

    // The page fits the bench's screen and a narrow one: no sideways scrolling, and what a
    // packer needs at a step is on screen without scrolling down.
    let script = "const below = arguments[0].filter((s) =>
            document.querySelector(s).getBoundingClientRect().bottom > window.innerHeight);
        return [document.documentElement.scrollWidth <= window.innerWidth, below];";
    let needed = json!([
        "#scan",
        "#station-step",
        "#station-diagram",
        "#station-packed"
    ]);
    for (width, height) in [(1366, 768), (768, 1024)] {
        b.client.set_window_size(width, height).await.unwrap();
        let fits = b
            .client
            .execute(script, vec![needed.clone()])
            .await
            .unwrap();
        assert_eq!(fits, json!([true, []]), "{width}x{height}");
    }

    b.click("#station-packed").await;
    b.text("#station-message", &format!("Package {pkg} is packed."))
        .await;
    b.text("#station-status", "packed").await;
    // The next package waiting at the warehouse is offered.
    b.text("#station-next-id", &ids[1]).await;
    assert!(b
        .client
        .find_all(Locator::Css(".error"))
        .await
        .unwrap()
        .is_empty());

    let p = s.get_ok(&format!("/api/packages/{pkg}")).await;
    assert_eq!(p["status"], "packed");
    let trail = events(&s, pkg).await;
    assert_eq!(trail.len(), 1, "{trail:?}");
    assert_eq!(
        (
            &trail[0]["source"],
            &trail[0]["status"],
            &trail[0]["outcome"]
        ),
        (
            &json!("station:user:pat"),
            &json!("packed"),
            &json!("applied")
        )
    );

    // An order's id, or its external id, opens its package waiting to be packed.
    let other = s.get_ok(&format!("/api/packages/{}", ids[1])).await;
    keys(
        &b,
        &format!("{}{ENTER}", other["orderId"].as_str().unwrap()),
    )
    .await;
    b.text("#station-package", &ids[1]).await;
    b.text("#station-step", "Take box TALL").await;
    keys(&b, &format!("{pkg}{ENTER}")).await;
    b.text("#station-package", pkg).await;
    keys(&b, &format!("SO-BENCH-1{ENTER}")).await;
    b.text("#station-package", &ids[1]).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slip_printed_by_chromium_carries_the_package_id_as_code_128() {
    if !printing_available() {
        return;
    }
    let (s, ids) = bench(1).await;
    let pkg = &ids[0];
    for (query, size) in [("", "(A4)"), ("?paper=letter", "(letter)")] {
        let slip = s.slip(pkg, query).await;
        assert_eq!(slip.status, 200, "{}", slip.text);
        let dir = tempfile::tempdir().unwrap();
        let html = slip.text.clone();
        let pdf = tokio::task::spawn_blocking({
            let dir = dir.path().to_path_buf();
            move || print_to_pdf(&dir, &html)
        })
        .await
        .unwrap();
        let (pages, page_size) = pdf_info(&pdf);
        assert_eq!(pages, 1, "one sheet per package");
        assert!(page_size.ends_with(size), "{query}: {page_size}");
        // 300 dpi: the 0.3 mm bars are three pixels wide. The barcode is in the page's head.
        let page = rasterize(&pdf, 300);
        assert_eq!(decode_code128(&page, 0.25).as_deref(), Some(pkg.as_str()));
    }
}
