//! The console in a real headless Chromium over WebDriver, against a real server: log
//! in (and a wrong password refused), find, open and cancel an order, adjust stock,
//! retry a failed webhook delivery against a real HTTPS receiver, a packer refused, a
//! reload that keeps the page, and logout. One browser per test; every wait is on a DOM
//! condition or the receiver's channel.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::*;

const GUARD: Duration = Duration::from_secs(20);

/// A fetch from the page with the session (and its CSRF token for unsafe methods):
/// the status the API answered and its error code.
async fn fetch_in_page(b: &browser::Browser, method: &str, path: &str) -> (u64, Value) {
    let v = b
        .client
        .execute_async(
            "const [method, path, done] = arguments;
             fetch('/console/session').then((r) => r.json()).then((s) =>
               fetch(path, { method, headers: { 'X-CSRF-Token': s.csrfToken, 'Content-Type': 'application/json' },
                             body: method === 'GET' ? undefined : '{}' }))
             .then(async (r) => done([r.status, await r.json().catch(() => null)]));",
            vec![json!(method), json!(path)],
        )
        .await
        .expect("script runs");
    (v[0].as_u64().unwrap(), v[1].clone())
}

#[tokio::test]
async fn a_wrong_password_is_refused_login_returns_to_the_page_a_reload_keeps_it_and_logout_ends_the_session(
) {
    let s = Server::start().await;
    let Some(b) = browser::browser().await else {
        return;
    };
    browser::add_user(&s, "ops", "operator", "ops-password-123456").await;

    // Without a session, a console page sends the browser to the login form, which
    // remembers where it was going.
    b.goto(&format!("{}/console/inventory?sku=MUG", s.base))
        .await;
    b.at("/console/login?next=%2Fconsole%2Finventory%3Fsku%3DMUG")
        .await;
    b.fill("#username", "ops").await;
    b.fill("#password", "not-the-password").await;
    b.click("button[type=submit]").await;
    b.text("#login-error", "Wrong user name or password").await;
    assert!(b.path().await.starts_with("/console/login"));

    b.fill("#password", "ops-password-123456").await;
    b.click("button[type=submit]").await;
    b.text("#whoami", "ops (operator)").await;
    b.at("/console/inventory?sku=MUG").await;
    b.text("h1", "Inventory").await;
    assert_eq!(
        b.css("input[name=sku]").await.prop("value").await.unwrap(),
        Some("MUG".into())
    );

    // A reload keeps the page and its filter.
    b.client.refresh().await.unwrap();
    b.text("h1", "Inventory").await;
    b.at("/console/inventory?sku=MUG").await;
    assert_eq!(
        b.css("input[name=sku]").await.prop("value").await.unwrap(),
        Some("MUG".into())
    );

    // Logout ends the session on the server, not only in this browser.
    let cookie = b
        .client
        .get_all_cookies()
        .await
        .unwrap()
        .into_iter()
        .find(|c| c.http_only() == Some(true))
        .expect("the session cookie");
    let cookie = format!("{}={}", cookie.name(), cookie.value());
    let session = |http: reqwest::Client| {
        let (url, cookie) = (s.url("/console/session"), cookie.clone());
        async move {
            http.get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(session(s.new_client()).await, 200);
    b.click("#logout").await;
    b.css("#username").await;
    assert_eq!(session(s.new_client()).await, 401);
    b.goto(&format!("{}/console/orders", s.base)).await;
    b.at("/console/login?next=%2Fconsole%2Forders").await;
    b.close().await;
}

#[tokio::test]
async fn an_operator_finds_an_order_by_external_id_opens_it_and_cancels_it() {
    let s = Server::start().await;
    order_catalog(&s, &[("MUG", "A", 10)]).await;
    for ext in ["SHOP-1001", "SHOP-1002", "OTHER-7"] {
        let (status, v) = s
            .create_order(&order_body(ext, json!([{"sku": "MUG", "quantity": 1}])))
            .await;
        assert_eq!(status, 201, "{v}");
    }
    let Some(b) = browser::logged_in(&s, "olivia", "operator").await else {
        return;
    };
    b.click("nav a[href='/console/orders']").await;
    b.text("h1", "Orders").await;
    b.fill("input[name=q]", "SHOP-1002").await;
    b.click("#order-search button[type=submit]").await;
    b.at("/console/orders?q=SHOP-1002").await;
    b.text("span", "1-1 of 1").await;
    b.click_text("a", "SHOP-1002").await;
    b.text("h1", "Order SHOP-1002").await;
    b.text("#order-events", "Order created").await;
    let id = b.path().await.rsplit('/').next().unwrap().to_string();

    b.fill("#cancel-reason", "customer called").await;
    b.click("#cancel-order").await;
    b.client.accept_alert().await.unwrap();
    b.text("#order-status", "cancelled").await;
    b.text("#order-events", "Order cancelled: customer called")
        .await;
    assert!(b
        .client
        .find_all(fantoccini::Locator::Css("#cancel-order"))
        .await
        .unwrap()
        .is_empty());
    let order = s.order(&id).await;
    assert_eq!(order["externalId"], "SHOP-1002");
    assert_eq!(order["status"], "cancelled");
    assert_eq!(order["cancelReason"], "customer called");
    // Its stock was released: the other two orders hold 2 of the 10.
    assert_eq!(s.inventory_of("MUG").await["reserved"], 2);
    b.close().await;
}

#[tokio::test]
async fn adjusting_stock_in_the_console_shows_the_audit_entry() {
    let s = Server::start().await;
    let id = stocked_sku(&s, "LAMP").await;
    let Some(b) = browser::logged_in(&s, "ines", "operator").await else {
        return;
    };
    b.click("nav a[href='/console/inventory']").await;
    b.click_text("a", "LAMP").await;
    b.at(&format!("/console/inventory/{id}")).await;
    b.text("#on-hand", "100").await;
    b.fill("#adjust-delta", "-3").await;
    b.fill("#adjust-reason", "damaged in aisle 4").await;
    b.click("#adjust-submit").await;
    b.text("#adjust-result", "Adjusted by -3.").await;
    b.text("#on-hand", "97").await;
    let row = b.text("tr", "damaged in aisle 4").await;
    assert!(row.text().await.unwrap().contains("adjusted"));
    let (status, v) = s
        .get_json(&format!("/api/inventory/{id}/adjustments"))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["adjustments"][0]["reason"], "damaged in aisle 4");
    assert_eq!(v["adjustments"][0]["delta"], -3);
    assert_eq!(v["adjustments"][0]["onHand"], 97);
    b.close().await;
}

#[tokio::test]
async fn an_admin_retries_a_failed_delivery_and_the_receiver_gets_it() {
    let ca = TestCa::new();
    let pem = ca.pem.clone();
    let s = Server::start_with(move |c| {
        c.webhook_ca = vec![pem];
        c.webhook_retry_delays = vec![Duration::from_millis(20); 4];
    })
    .await;
    let mut r = Receiver::start(&ca, Mode::AlwaysFail).await;
    let (status, hook) = s
        .post(
            "/api/webhooks",
            &json!({"url": r.url, "events": ["inventory.adjusted"], "secret": "whsec-console-0123456789"}),
        )
        .await;
    assert_eq!(status, 201, "{hook}");
    let hook = hook["id"].as_str().unwrap().to_string();
    stocked_sku(&s, "BELL").await;
    let first = r.next(GUARD).await.event_id();
    for _ in 1..5 {
        assert_eq!(r.next(GUARD).await.event_id(), first);
    }
    // The fifth failure is recorded just after the receiver answers it.
    let deadline = Instant::now() + GUARD;
    let delivery = loop {
        let (_, v) = s
            .get_json(&format!("/api/webhooks/{hook}/deliveries?status=failed"))
            .await;
        if let Some(id) = v["deliveries"][0]["id"].as_str() {
            break id.to_string();
        }
        assert!(Instant::now() < deadline, "never failed: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    r.set_mode(Mode::Succeed);

    let Some(b) = browser::logged_in(&s, "ada", "admin").await else {
        return;
    };
    b.click("nav a[href='/console/webhooks']").await;
    b.click_text("a", &r.url).await;
    b.text("h1", "Webhook").await;
    b.css("#delivery-filter select")
        .await
        .select_by_value("failed")
        .await
        .unwrap();
    b.click("#delivery-filter button").await;
    b.at(&format!("/console/webhooks/{hook}?status=failed"))
        .await;
    b.click(&format!("button.retry[data-delivery='{delivery}']"))
        .await;
    b.text("#webhook-result", "Delivery queued again.").await;
    let hit = r.next(GUARD).await;
    assert_eq!(hit.event_id(), first, "the same event, sent again");
    assert!(verify("whsec-console-0123456789", &hit));
    b.close().await;
}

#[tokio::test]
async fn a_packer_is_refused_the_clients_page_and_by_the_api() {
    let s = Server::start().await;
    let Some(b) = browser::logged_in(&s, "pat", "packer").await else {
        return;
    };
    // The navigation offers what a packer may use, and not the admin's pages.
    b.css("nav a[href='/console/orders']").await;
    assert!(b
        .client
        .find_all(fantoccini::Locator::Css("nav a[href='/console/clients']"))
        .await
        .unwrap()
        .is_empty());
    // The page itself asks the API, which refuses; the console shows its answer.
    b.goto(&format!("{}/console/clients", s.base)).await;
    b.text(
        "#clients-list",
        "403 forbidden: The packer role may not do this.",
    )
    .await;
    let (status, v) = fetch_in_page(&b, "GET", "/console/api/clients").await;
    assert_eq!(status, 403);
    assert_eq!(v["error"]["code"], "forbidden");
    let (status, v) = fetch_in_page(&b, "POST", "/console/api/clients").await;
    assert_eq!((status, &v["error"]["code"]), (403, &json!("forbidden")));
    // What a packer may read still works.
    let (status, _) = fetch_in_page(&b, "GET", "/api/orders").await;
    assert_eq!(status, 200);
    b.close().await;
}

#[tokio::test]
async fn every_console_path_answers_the_shell_and_assets_revalidate_by_etag() {
    let s = Server::start().await;
    let http = s.new_client();
    let get = |path: &str| http.get(s.url(path)).send();
    let shell = get("/console/").await.unwrap();
    assert_eq!(shell.status(), 200);
    let csp = shell.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'self'"), "{csp}");
    let html = shell.text().await.unwrap();
    assert!(html.contains("/console/assets/js/app.js") && !html.contains("<script>"));
    // A deep page path gets the same shell: the script renders it from the URL.
    let deep = get("/console/orders/0193a1b2-c3d4-7e8f-9a0b-1c2d3e4f5a6b?x=1")
        .await
        .unwrap();
    assert_eq!(deep.status(), 200);
    assert_eq!(deep.text().await.unwrap(), html);

    let js = get("/console/assets/js/app.js").await.unwrap();
    assert_eq!(js.status(), 200);
    assert!(js.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(js.headers()["cache-control"], "no-cache");
    let etag = js.headers()["etag"].clone();
    let again = http
        .get(s.url("/console/assets/js/app.js"))
        .header("if-none-match", etag.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"], etag);
    assert!(again.bytes().await.unwrap().is_empty());
    let css = get("/console/assets/app.css").await.unwrap();
    assert_ne!(css.headers()["etag"], etag, "each file has its own tag");
    assert_eq!(get("/console/assets/nope.js").await.unwrap().status(), 404);
}

#[tokio::test]
async fn assets_are_served_compressed_as_the_browser_accepts_each_with_its_own_tag() {
    use std::io::Read;
    let s = Server::start().await;
    let http = s.new_client();
    let get = |coding: &str| {
        http.get(s.url("/console/assets/js/orders.js"))
            .header("accept-encoding", coding)
            .send()
    };
    let plain = get("identity").await.unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.headers()["vary"], "accept-encoding");
    let plain_tag = plain.headers()["etag"].clone();
    let raw = plain.bytes().await.unwrap();

    let br = get("gzip, deflate, br, zstd").await.unwrap();
    assert_eq!(br.headers()["content-encoding"], "br");
    assert_eq!(br.headers()["vary"], "accept-encoding");
    let br_tag = br.headers()["etag"].clone();
    let body = br.bytes().await.unwrap();
    assert!(
        body.len() * 3 < raw.len(),
        "{} of {}",
        body.len(),
        raw.len()
    );
    let mut back = Vec::new();
    brotli::BrotliDecompress(&mut &body[..], &mut back).unwrap();
    assert_eq!(back, raw);

    let gz = get("gzip;q=1, br;q=0").await.unwrap();
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    let gz_tag = gz.headers()["etag"].clone();
    let mut back = Vec::new();
    flate2::read::GzDecoder::new(&gz.bytes().await.unwrap()[..])
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, raw);
    assert!(plain_tag != br_tag && br_tag != gz_tag && plain_tag != gz_tag);

    // A tag matches only its own representation.
    let revalidate = |coding: &str, tag| {
        http.get(s.url("/console/assets/js/orders.js"))
            .header("accept-encoding", coding)
            .header("if-none-match", tag)
            .send()
    };
    let same = revalidate("br", br_tag.clone()).await.unwrap();
    assert_eq!(same.status(), 304);
    assert_eq!(same.headers()["content-encoding"], "br");
    let other = revalidate("gzip", br_tag).await.unwrap();
    assert_eq!(other.status(), 200);
    assert_eq!(other.headers()["content-encoding"], "gzip");
}
