//! Process lifecycle: graceful shutdown finishing in-flight writes, kill -9 losing no
//! acknowledged write, the admin CLI against stopped and running servers, SIGTERM.

use futures_util::stream;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::support::{admin, ChildServer, Crashable, Load, Server, Write};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_finishes_in_flight_requests_and_flushes() {
    let mut s = Server::start().await;
    // Two uploads with one idempotency key: the 409 of one proves the other is in
    // flight on the server before shutdown starts.
    let held = || {
        let (tx, rx) = mpsc::channel::<Result<Vec<u8>, std::io::Error>>(2);
        tx.try_send(Ok(b"{\"sku\":\"LATE\",".to_vec())).unwrap();
        let body = reqwest::Body::wrap_stream(stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|c| (c, rx))
        }));
        let req = s
            .req(Method::POST, "/api/products")
            .header("Idempotency-Key", "graceful")
            .header("content-type", "application/json")
            .body(body)
            .send();
        (tx, tokio::spawn(req))
    };
    let (tx_a, a) = held();
    let (tx_b, b) = held();
    let (loser, tx, winner) = match futures_util::future::select(a, b).await {
        futures_util::future::Either::Left((r, b)) => (r, tx_b, b),
        futures_util::future::Either::Right((r, a)) => (r, tx_a, a),
    };
    assert_eq!(loser.unwrap().unwrap().status(), 409);

    s.signal_stop();
    // New connections are refused once shutdown began (the request still in flight
    // keeps its own connection).
    let fresh = s.new_client();
    let mut refused = false;
    for _ in 0..200 {
        if fresh.get(s.url("/health")).send().await.is_err() {
            refused = true;
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(refused, "listener closed after shutdown");

    tx.send(Ok(b"\"name\":\"Late\",\"price\":2}".to_vec()))
        .await
        .unwrap();
    drop(tx);
    let resp = winner.await.unwrap().unwrap();
    assert_eq!(resp.status(), 201, "the in-flight request completed");
    s.join().await.expect("run returned cleanly");
    let dir = s.dir;
    drop(s.store);

    let store = storage::Store::open(&dir.path().join("db"), &Default::default()).unwrap();
    let by_sku = store
        .get::<storage::tables::ProductsBySku>(&"LATE".to_string())
        .unwrap();
    assert!(by_sku.is_some(), "acknowledged write present after restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_while_clients_write_loses_no_acknowledged_write() {
    let mut c = Crashable::start(&[]).await;
    let cert_before = std::fs::read(fulfilld::tls::self_signed_paths(c.dir.path()).0).unwrap();
    c.after_restart(move |server| {
        let cert = fulfilld::tls::self_signed_paths(&server.dir).0;
        assert_eq!(
            std::fs::read(cert).unwrap(),
            cert_before,
            "certificate reused"
        );
    });
    let acked = c
        .kill_9_during(Load {
            writers: 8,
            kill_after: 300,
            ok: &[201],
            write: |w, i| {
                let sku = format!("W{w}-{i}");
                let body = json!({"sku": sku, "name": "crash", "price": 1});
                Write::new(Method::POST, "/api/products", body, sku)
            },
        })
        .await;
    assert!(acked.len() >= 300);

    c.restart().await;
    let (_, list) = c
        .send(Method::GET, "/api/products?limit=1", &Value::Null)
        .await;
    assert!(list["pagination"]["total"].as_u64().unwrap() >= acked.len() as u64);
    for sku in &acked {
        let (status, _) = c
            .send(
                Method::GET,
                &format!("/api/products/sku/{sku}"),
                &Value::Null,
            )
            .await;
        assert_eq!(status, 200, "acknowledged {sku} lost");
    }
    let status = c.terminate();
    assert!(status.success(), "SIGTERM exits 0: {status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_cli_works_on_a_stopped_data_dir_and_through_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();

    // Stopped: the CLI opens the database itself.
    let (ok, offline) = admin(&[
        "clients",
        "create",
        "--name",
        "ops",
        "--tier",
        "pro",
        "--data-dir",
        d,
    ]);
    assert!(ok, "{offline}");
    assert_eq!(offline["tier"], "pro");
    for k in ["client_id", "client_secret", "api_key"] {
        assert!(
            offline[k].as_str().is_some_and(|v| v.len() > 8),
            "{k} in {offline}"
        );
    }
    let (ok, _) = admin(&[
        "clients",
        "create",
        "--name",
        "x",
        "--tier",
        "gold",
        "--data-dir",
        d,
    ]);
    assert!(!ok, "unknown tier refused");

    let server = ChildServer::spawn(dir.path(), &[]);
    let http = server.client();
    let products = server.url("/api/products");
    let get_products = |key: &str| http.get(&products).header("X-API-Key", key).send();
    let resp = get_products(offline["api_key"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-limit"], "200", "pro tier");

    // Running: the CLI goes through the admin socket and the server sees it at once.
    let (ok, live) = admin(&["clients", "create", "--name", "live", "--data-dir", d]);
    assert!(ok, "{live}");
    assert_eq!(live["tier"], "starter");
    let key = live["api_key"].as_str().unwrap();
    assert_eq!(get_products(key).await.unwrap().status(), 200);
    let (ok, list) = admin(&["clients", "list", "--data-dir", d]);
    assert!(ok);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in ["bootstrap", "ops", "live"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let (ok, _) = admin(&[
        "clients",
        "delete",
        live["client_id"].as_str().unwrap(),
        "--data-dir",
        d,
    ]);
    assert!(ok);
    assert_eq!(get_products(key).await.unwrap().status(), 401);
    let (ok, _) = admin(&[
        "inbound",
        "set-secret",
        "--source",
        "carrier:ups",
        "--secret",
        "0123456789abcdef",
        "--data-dir",
        d,
    ]);
    assert!(ok);
    let (ok, _) = admin(&[
        "inbound",
        "set-secret",
        "--source",
        "mailroom",
        "--secret",
        "0123456789abcdef",
        "--data-dir",
        d,
    ]);
    assert!(!ok, "unknown source refused");

    assert!(server.terminate().success());
    let (ok, list) = admin(&["clients", "list", "--data-dir", d]);
    assert!(ok, "works again once the server stopped");
    assert_eq!(
        list.as_array().unwrap().len(),
        2,
        "bootstrap and ops remain"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn systemd_is_told_ready_once_both_listeners_serve_and_stopping_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let sock_path = dir.path().join("notify.sock");
    let sock = std::os::unix::net::UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let data = dir.path().join("data");
    let server = ChildServer::spawn_with_env(&data, &[], &[("NOTIFY_SOCKET", sock_path.as_path())]);
    let mut buf = [0u8; 256];
    let n = sock.recv(&mut buf).expect("a notification from the server");
    assert_eq!(std::str::from_utf8(&buf[..n]).unwrap().trim(), "READY=1");
    // Both listeners answer by the time READY=1 was sent.
    let http = server.client();
    assert_eq!(
        http.get(server.url("/health"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let packing = http
        .get(format!("{}/api/v1/health", server.packing))
        .send()
        .await
        .unwrap();
    assert_eq!(packing.status(), 200);
    let status = server.terminate();
    assert!(status.success());
    let n = sock.recv(&mut buf).expect("STOPPING=1 on shutdown");
    assert_eq!(std::str::from_utf8(&buf[..n]).unwrap().trim(), "STOPPING=1");
}
