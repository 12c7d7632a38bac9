//! Console accounts over the real server: the login form and its cookie, the session
//! seam of the console's script, CSRF, every role on every route class, logout, the
//! login throttle, sessions across a restart and idle expiry, and `users` commands with
//! and without a running server.

use fulfilld::http::classes::{self, Class};
use fulfilld::http::routes::{Access, BodyKind, Service, ROUTES};
use reqwest::Method;
use serde_json::{json, Value};
use storage::Role;

use crate::support::{
    assert_error, body, console_client, log_in, post_login, session_cookie, Person, Server,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_sets_a_strict_session_cookie_and_the_session_tells_who_and_the_csrf_token() {
    let s = Server::start().await;
    s.create_user("ann", "operator", "ann-password");
    let http = s.console_client();

    let resp = http
        .get(s.url("/console/login?next=/console/orders/42"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let csp = resp.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    let html = resp.text().await.unwrap();
    for part in [
        "<label for=\"username\">",
        "name=\"username\"",
        "<label for=\"password\">",
        "name=\"password\" type=\"password\"",
        "value=\"/console/orders/42\"",
    ] {
        assert!(html.contains(part), "{part} in {html}");
    }

    // Wrong password and unknown user: the same plain answer, no cookie.
    for (user, password) in [("ann", "not-her-password"), ("nobody", "ann-password")] {
        let resp = post_login(&http, &s.base, user, password, None).await;
        assert_eq!(resp.status(), 401);
        assert!(session_cookie(&resp).is_none());
        let html = resp.text().await.unwrap();
        assert!(
            html.contains("role=\"alert\">Wrong user name or password."),
            "{html}"
        );
    }

    let resp = post_login(
        &http,
        &s.base,
        "ann",
        "ann-password",
        Some("/console/orders/42"),
    )
    .await;
    assert_eq!(resp.status(), 303);
    assert_eq!(resp.headers()["location"], "/console/orders/42");
    let set = resp.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(set.starts_with("__Host-fulfilld-session="), "{set}");
    let attrs: Vec<&str> = set.split(';').skip(1).map(str::trim).collect();
    for flag in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
        assert!(attrs.contains(&flag), "{flag} in {set}");
    }
    let cookie = session_cookie(&resp).unwrap();

    // Only a path on this origin is followed after login.
    for bad in [
        "//evil.example/x",
        "https://evil.example/",
        "/\\evil.example",
    ] {
        let resp = post_login(&http, &s.base, "ann", "ann-password", Some(bad)).await;
        assert_eq!(resp.headers()["location"], "/console/", "next={bad}");
    }

    let resp = http
        .get(s.url("/console/session"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let (status, v) = body(resp).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["username"], "ann");
    assert_eq!(v["role"], "operator");
    assert!(v["csrfToken"].as_str().unwrap().len() >= 32, "{v}");

    // Not logged in, an unknown session, or an API client: 401 in the envelope.
    let unknown = "__Host-fulfilld-session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    for req in [
        http.get(s.url("/console/session")),
        http.get(s.url("/console/session"))
            .header("cookie", unknown),
        s.get("/console/session"),
    ] {
        let (status, v) = answer(req).await;
        assert_eq!(status, 401, "{v}");
        assert_error(&v, "unauthorized", None);
    }
    // An unknown session on an API route is refused too, not taken as anonymous.
    let resp = http
        .get(s.url("/api/orders"))
        .header("cookie", unknown)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);

    // At rest: an Argon2id hash, and the session under the digest of its id only.
    let user = s
        .store
        .get::<storage::tables::Users>(&"ann".into())
        .unwrap()
        .unwrap();
    assert!(user.password_hash.starts_with("$argon2id$"));
    assert!(!user.password_hash.contains("ann-password"));
    let raw_id = cookie.split_once('=').unwrap().1;
    for row in s.store.iter::<storage::tables::Sessions>() {
        let (key, rec) = row.unwrap();
        assert_ne!(key, raw_id.as_bytes());
        assert!(!format!("{rec:?}").contains(raw_id));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_requests_by_cookie_need_the_csrf_token_and_bearer_clients_do_not() {
    let s = Server::start().await;
    let ada = s.person("ada", "admin").await;
    let http = s.console_client();
    let product = json!({"sku": "CSRF-1", "name": "Mug", "price": 4.50});

    let (status, _) = answer(ada.req(&http, Method::GET, &s.url("/api/products"), false)).await;
    assert_eq!(status, 200, "a safe method needs no token");

    let mut wrong = ada.clone();
    wrong.csrf = "not-the-token".into();
    for req in [
        ada.req(&http, Method::POST, &s.url("/api/products"), false)
            .json(&product),
        wrong
            .req(&http, Method::POST, &s.url("/api/products"), true)
            .json(&product),
        // What a cross-site form could send: the browser adds the cookie, never the header.
        ada.req(&http, Method::POST, &s.url("/api/products"), false)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("sku=CSRF-1"),
    ] {
        let (status, v) = answer(req).await;
        assert_eq!(status, 403, "{v}");
        assert_error(&v, "csrf_failed", None);
    }
    let list = s.get_ok("/api/products").await;
    assert_eq!(
        list["pagination"]["total"], 0,
        "nothing was created: {list}"
    );

    let (status, v) = answer(
        ada.req(&http, Method::POST, &s.url("/api/products"), true)
            .json(&product),
    )
    .await;
    assert_eq!(status, 201, "{v}");

    // The audit trail names the person.
    let (status, _) = s
        .post("/api/warehouses", &json!({"id": "WH-C", "name": "C"}))
        .await;
    assert_eq!(status, 201);
    let inv = s.stock("CSRF-1", "WH-C", 5).await;
    let id = inv["id"].as_str().unwrap();
    let (status, v) = answer(
        ada.req(
            &http,
            Method::PATCH,
            &s.url(&format!("/api/inventory/{id}/adjust")),
            true,
        )
        .json(&json!({"delta": -1, "reason": "broken"})),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let trail = s.get_ok(&format!("/api/inventory/{id}/adjustments")).await;
    assert_eq!(trail["adjustments"][0]["clientId"], "user:ada", "{trail}");

    // A client credential wins over a cookie and needs no token.
    let resp = s
        .req(Method::POST, "/api/products")
        .header("cookie", &ada.cookie)
        .json(&json!({"sku": "CSRF-2", "name": "Cup", "price": 2.00}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
}

/// Sends `req`; the status and the parsed answer.
async fn answer(req: reqwest::RequestBuilder) -> (u16, Value) {
    body(req.send().await.unwrap()).await
}

/// A request as `p` with the CSRF token and, when given, a JSON body.
fn with_token(
    p: &Person,
    http: &reqwest::Client,
    method: Method,
    url: &str,
    json: Option<&Value>,
) -> reqwest::RequestBuilder {
    let req = p.req(http, method, url, true);
    match json {
        Some(v) => req.json(v),
        None => req,
    }
}

fn concrete(path: &str) -> String {
    path.replace("{id}", "00000000-0000-0000-0000-000000000000")
        .replace("{deliveryId}", "00000000-0000-0000-0000-000000000000")
        .replace("{sku}", "NONE")
        .replace("{carrier}", "ups")
        .replace("{name}", "nobody")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_role_on_every_route_class_is_allowed_or_forbidden_by_the_one_table() {
    let s = Server::start().await;
    let http = s.console_client();
    let mut seen = std::collections::HashSet::new();
    for role in Role::ALL {
        let person = s
            .person(&format!("{}-1", role.as_str()), role.as_str())
            .await;
        for r in ROUTES.iter().filter(|r| {
            r.service == Service::Fulfillment
                && matches!(r.access, Access::Client | Access::Inbound | Access::Console)
                && r.id != fulfilld::http::routes::RouteId::ConsoleLogout
        }) {
            let class = classes::class(r.id);
            seen.insert(class);
            let json = matches!(r.body, BodyKind::Json | BodyKind::JsonOrCsv).then(|| json!({}));
            let url = s.url(&concrete(r.path));
            let req = with_token(&person, &http, r.method.clone(), &url, json.as_ref());
            let (status, v) = answer(req).await;
            let what = format!("{} {} {} ({class:?})", role.as_str(), r.method, r.path);
            if classes::allows(role, class) {
                assert!(status != 401 && status != 403, "{what}: {status} {v}");
            } else {
                assert_eq!(status, 403, "{what}: {v}");
                assert_error(&v, "forbidden", None);
            }
        }
    }
    for class in [
        Class::Session,
        Class::ReadOrders,
        Class::Pack,
        Class::Operate,
        Class::Administer,
        Class::Machines,
    ] {
        assert!(seen.contains(&class), "{class:?} exercised");
    }

    // And what each role is for, end to end.
    let packer = s.person("pat", "packer").await;
    let operator = s.person("olga", "operator").await;
    let product = json!({"sku": "ROLE-1", "name": "Mug", "price": 4.50});
    let send = |p: &Person, m: Method, path: &str, v: Option<&Value>| {
        answer(with_token(p, &http, m, &s.url(path), v))
    };
    assert_eq!(send(&packer, Method::GET, "/api/orders", None).await.0, 200);
    assert_eq!(
        send(&packer, Method::GET, "/api/packages", None).await.0,
        200
    );
    assert_eq!(
        send(&packer, Method::POST, "/api/products", Some(&product))
            .await
            .0,
        403
    );
    assert_eq!(
        s.get_ok("/api/products").await["pagination"]["total"],
        0,
        "refused before anything ran"
    );
    assert_eq!(
        send(&operator, Method::POST, "/api/products", Some(&product))
            .await
            .0,
        201
    );
    let hook = json!({"url": "https://127.0.0.1:9/hook", "events": ["order.created"]});
    assert_eq!(
        send(&operator, Method::POST, "/api/webhooks", Some(&hook))
            .await
            .0,
        403
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_needs_the_csrf_token_and_ends_the_session() {
    let s = Server::start().await;
    let lou = s.person("lou", "packer").await;
    let http = s.console_client();
    let logout = s.url("/console/logout");

    let (status, v) = answer(lou.req(&http, Method::POST, &logout, false)).await;
    assert_eq!(status, 403);
    assert_error(&v, "csrf_failed", None);
    let session = s.url("/console/session");
    assert_eq!(
        answer(lou.req(&http, Method::GET, &session, false)).await.0,
        200
    );

    let resp = lou
        .req(&http, Method::POST, &logout, true)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    let cleared = resp.headers()["set-cookie"].to_str().unwrap();
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    for url in [session.clone(), s.url("/api/orders")] {
        let (status, _) = answer(lou.req(&http, Method::GET, &url, false)).await;
        assert_eq!(status, 401, "{url}");
    }
    let (status, _) = answer(lou.req(&http, Method::POST, &logout, true)).await;
    assert_eq!(status, 401);
    assert_eq!(s.store.iter::<storage::tables::Sessions>().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_failed_logins_are_refused_with_429_per_user_and_per_address() {
    let s = Server::start_with(|c| {
        c.accounts.login.per_user = 3;
        c.accounts.login.per_address = 6;
        c.accounts.login.lockout = std::time::Duration::from_secs(60);
    })
    .await;
    s.create_user("ann", "packer", "ann-password");
    s.create_user("bob", "packer", "bob-password");
    let http = s.console_client();
    for _ in 0..3 {
        let resp = post_login(&http, &s.base, "ann", "guess-guess", None).await;
        assert_eq!(resp.status(), 401);
    }
    // Locked: even the right password waits, and says how long.
    let resp = post_login(&http, &s.base, "ann", "ann-password", None).await;
    assert_eq!(resp.status(), 429);
    assert!(session_cookie(&resp).is_none());
    let wait: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert!(resp
        .text()
        .await
        .unwrap()
        .contains("Too many failed logins"));

    // Another user from the same address is not locked yet...
    log_in(&http, &s.base, "bob", "bob-password").await;
    // ...until the address has failed often enough, with names that do not exist too.
    for _ in 0..3 {
        let resp = post_login(&http, &s.base, "nobody", "guess-guess", None).await;
        assert_eq!(resp.status(), 401);
    }
    let resp = post_login(&http, &s.base, "bob", "bob-password", None).await;
    assert_eq!(resp.status(), 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_idle_past_the_timeout_is_over() {
    let s =
        Server::start_with(|c| c.accounts.session_idle_timeout = std::time::Duration::from_secs(1))
            .await;
    let ida = s.person("ida", "packer").await;
    let http = s.console_client();
    // Time itself is what is tested: nothing to await but its passing.
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let (status, v) = answer(ida.req(&http, Method::GET, &s.url("/console/session"), false)).await;
    assert_eq!(status, 401, "{v}");
    // The removal is applied to sled with its batch; wait for it, as a reader after a
    // restart would see it.
    s.store.durable().await.unwrap();
    assert_eq!(
        s.store.iter::<storage::tables::Sessions>().count(),
        0,
        "ended in storage too"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_commands_work_without_and_with_a_server_and_sessions_survive_a_restart() {
    use crate::support::{admin_with_stdin, ChildServer};
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();

    // No server: the commands open the database themselves.
    let (ok, v) = admin_with_stdin(
        &[
            "users",
            "create",
            "--name",
            "ann",
            "--role",
            "operator",
            "--password-stdin",
            "--data-dir",
            d,
        ],
        "ann-password\n",
    );
    assert!(ok, "{v}");
    assert_eq!(
        v,
        json!({"username": "ann", "role": "operator"}),
        "no password echoed"
    );
    let (ok, v) = admin_with_stdin(
        &[
            "users",
            "create",
            "--name",
            "bob",
            "--role",
            "packer",
            "--data-dir",
            d,
        ],
        "",
    );
    assert!(ok, "{v}");
    let bob_password = v["password"]
        .as_str()
        .expect("a generated password")
        .to_string();
    assert!(bob_password.len() >= 16);
    let (ok, v) = admin_with_stdin(
        &[
            "users",
            "create",
            "--name",
            "cy",
            "--role",
            "boss",
            "--data-dir",
            d,
        ],
        "",
    );
    assert!(!ok && v.is_null(), "an unknown role is refused");
    let (ok, _) = admin_with_stdin(
        &[
            "users",
            "create",
            "--name",
            "dee",
            "--role",
            "packer",
            "--password-stdin",
            "--data-dir",
            d,
        ],
        "short\n",
    );
    assert!(!ok, "a short password is refused");
    let (ok, _) = admin_with_stdin(
        &[
            "users",
            "create",
            "--name",
            "ann",
            "--role",
            "packer",
            "--data-dir",
            d,
        ],
        "",
    );
    assert!(!ok, "a taken name is refused");

    let server = ChildServer::start(dir.path(), &[]).await;
    // The first start wrote a bootstrap admin beside the bootstrap client.
    let boot: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("bootstrap-credentials.json")).unwrap(),
    )
    .unwrap();
    assert!(boot["client_id"].is_string(), "{boot}");
    assert_eq!(boot["admin_user"]["username"], "admin");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.path().join("bootstrap-credentials.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let admin_password = boot["admin_user"]["password"].as_str().unwrap().to_string();
    let http = console_client(dir.path());
    let admin = log_in(&http, &server.base, "admin", &admin_password).await;
    let ann = log_in(&http, &server.base, "ann", "ann-password").await;
    let bob = log_in(&http, &server.base, "bob", &bob_password).await;

    // With the server running, through its socket: listed, deleted, new password.
    let (ok, v) = admin_with_stdin(&["users", "list", "--data-dir", d], "");
    assert!(ok);
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["admin", "ann", "bob"]);
    let (ok, v) = admin_with_stdin(&["users", "delete", "bob", "--data-dir", d], "");
    assert!(ok, "{v}");
    let session = format!("{}/console/session", server.base);
    assert_eq!(
        answer(bob.req(&http, Method::GET, &session, false)).await.0,
        401,
        "deleted: session over at once"
    );
    assert_eq!(
        post_login(&http, &server.base, "bob", &bob_password, None)
            .await
            .status(),
        401
    );
    let (ok, v) = admin_with_stdin(&["users", "set-password", "ann", "--data-dir", d], "");
    assert!(ok, "{v}");
    let ann_password = v["password"].as_str().unwrap().to_string();
    assert_eq!(
        answer(ann.req(&http, Method::GET, &session, false)).await.0,
        401,
        "new password: logged out"
    );
    assert_eq!(
        post_login(&http, &server.base, "ann", "ann-password", None)
            .await
            .status(),
        401
    );
    let ann = log_in(&http, &server.base, "ann", &ann_password).await;

    // A restart keeps both sessions; one idle past the timeout (12 h) is over.
    assert!(server.terminate().success());
    {
        let store = storage::Store::open(&dir.path().join("db"), &Default::default()).unwrap();
        let digest: [u8; 32] =
            sha2::Sha256::digest(ann.cookie.split_once('=').unwrap().1.as_bytes()).into();
        store
            .transact(|tx| {
                let key = digest.to_vec();
                let mut rec = tx
                    .get::<storage::tables::Sessions>(&key)?
                    .expect("ann's session is stored");
                rec.last_seen_unix -= 13 * 3600;
                tx.insert::<storage::tables::Sessions>(&key, &rec)?;
                Ok::<_, storage::Abort<()>>(())
            })
            .unwrap();
        store.durable_blocking().unwrap();
    }
    let server = ChildServer::start(dir.path(), &[]).await;
    let session = format!("{}/console/session", server.base);
    let (status, v) = answer(admin.req(&http, Method::GET, &session, false)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["csrfToken"], admin.csrf.as_str(), "the same session");
    let product = json!({"sku": "AFTER", "name": "Mug", "price": 1.00});
    let products = format!("{}/api/products", server.base);
    let (status, v) = answer(with_token(
        &admin,
        &http,
        Method::POST,
        &products,
        Some(&product),
    ))
    .await;
    assert_eq!(status, 201, "{v}");
    let (status, _) = answer(ann.req(&http, Method::GET, &session, false)).await;
    assert_eq!(status, 401, "idle past the timeout");
    assert!(server.terminate().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_manages_users_and_clients_from_the_console_and_nobody_else_does() {
    let s = Server::start().await;
    let http = s.console_client();
    let ada = s.person("ada", "admin").await;
    let olga = s.person("olga", "operator").await;
    let send = |p: &Person, m: Method, path: &str, v: Option<Value>| {
        answer(with_token(p, &http, m, &s.url(path), v.as_ref()))
    };
    let post = |path: &str, v: Value| send(&ada, Method::POST, path, Some(v));

    // A user with a generated password, shown once, who can then log in.
    let (status, v) = post(
        "/console/api/users",
        json!({"username": "pat", "role": "packer"}),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let pat_password = v["password"].as_str().unwrap().to_string();
    let pat = log_in(&http, &s.base, "pat", &pat_password).await;
    let (status, v) = post(
        "/console/api/users",
        json!({"username": "pat", "role": "packer"}),
    )
    .await;
    assert_eq!(status, 409, "{v}");
    assert_error(&v, "conflict", Some("username"));
    for (input, field) in [
        (
            json!({"username": "bad name", "role": "packer"}),
            "username",
        ),
        (json!({"username": "cy", "role": "boss"}), "role"),
        (
            json!({"username": "cy", "role": "packer", "password": "short"}),
            "password",
        ),
    ] {
        let (status, v) = post("/console/api/users", input).await;
        assert_eq!(status, 422, "{v}");
        assert_error(&v, "validation_error", Some(field));
    }
    let (_, v) = send(&ada, Method::GET, "/console/api/users", None).await;
    let names: Vec<&str> = v["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ada", "admin", "olga", "pat"], "{v}");

    // An API client: its key works until it is deleted.
    let (status, c) = post(
        "/console/api/clients",
        json!({"name": "wms", "tier": "pro"}),
    )
    .await;
    assert_eq!(status, 201, "{c}");
    let key = c["apiKey"].as_str().unwrap();
    assert_eq!(s.get_with_key("/api/orders", key).await.status(), 200);
    let (_, v) = send(&ada, Method::GET, "/console/api/clients", None).await;
    assert!(
        v["clients"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["clientId"] == c["clientId"] && x.get("clientSecret").is_none()),
        "{v}"
    );
    let id = c["clientId"].as_str().unwrap();
    assert_eq!(
        send(
            &ada,
            Method::DELETE,
            &format!("/console/api/clients/{id}"),
            None
        )
        .await
        .0,
        200
    );
    assert_eq!(s.get_with_key("/api/orders", key).await.status(), 401);

    let (status, v) = post(
        "/console/api/inbound-secrets",
        json!({"source": "carrier:ups", "secret": "0123456789abcdef"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = post(
        "/console/api/inbound-secrets",
        json!({"source": "fax", "secret": "0123456789abcdef"}),
    )
    .await;
    assert_eq!(status, 422);
    assert_error(&v, "validation_error", Some("source"));

    // Deleting a user ends their session; an operator and an API client are refused.
    assert_eq!(
        send(&ada, Method::DELETE, "/console/api/users/pat", None)
            .await
            .0,
        200
    );
    assert_eq!(
        send(&pat, Method::GET, "/console/session", None).await.0,
        401
    );
    let (status, v) = send(
        &olga,
        Method::POST,
        "/console/api/clients",
        Some(json!({"name": "x"})),
    )
    .await;
    assert_eq!(status, 403);
    assert_error(&v, "forbidden", None);
    let (status, _) = body(s.get("/console/api/users").send().await.unwrap()).await;
    assert_eq!(status, 401, "API clients do not manage people");
}
