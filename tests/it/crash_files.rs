//! Files a crash may leave empty: a generated certificate or token signing key found
//! empty at start is generated again with a warning (earlier tokens then stop working);
//! a certificate given by flag is never replaced, an empty one is an error naming it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::support::{access_token, request_token, serve_command, ChildServer};

/// `fulfilld serve` on port 0 with its log (at warn) written to `log`.
fn spawn_logged(dir: &Path, log: &Path) -> ChildServer {
    let mut child = serve_command(dir)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("spawn fulfilld");
    let ready = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .next()
        .expect("a ready line")
        .unwrap();
    let field = |name: &str| {
        ready
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name))
            .unwrap_or_else(|| panic!("unexpected first line {ready:?}"))
            .to_string()
    };
    ChildServer {
        base: field("fulfillment="),
        packing: field("packing="),
        child,
        dir: dir.to_path_buf(),
    }
}

async fn token(server: &ChildServer) -> String {
    let url = server.url("/oauth/token");
    access_token(request_token(&server.client(), url, &server.bootstrap()).await).await
}

async fn status_with_token(server: &ChildServer, token: &str) -> u16 {
    server
        .client()
        .get(server.url("/api/products"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_generated_certificate_or_token_key_is_generated_again_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fulfilld.log");
    let server = spawn_logged(dir.path(), &log);
    let old_token = token(&server).await;
    assert_eq!(status_with_token(&server, &old_token).await, 200);
    assert_eq!(server.terminate().code(), Some(0));

    let (cert, _) = fulfilld::tls::self_signed_paths(dir.path());
    std::fs::write(&cert, b"").unwrap();
    std::fs::write(dir.path().join("token-signing.key"), b"").unwrap();
    let server = spawn_logged(dir.path(), &log);
    // The client trusts the certificate on disk now: the new one.
    assert!(!std::fs::read(&cert).unwrap().is_empty());
    assert_eq!(
        status_with_token(&server, &old_token).await,
        401,
        "tokens signed with the lost key stop working"
    );
    let new_token = token(&server).await;
    assert_eq!(status_with_token(&server, &new_token).await, 200);
    assert_eq!(server.terminate().code(), Some(0));

    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("generating a new one") && text.contains("cert.pem"),
        "{text}"
    );
    assert!(
        text.contains("access tokens issued earlier stop working"),
        "{text}"
    );
}

#[test]
fn an_empty_certificate_given_by_flag_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("given-cert.pem");
    let key = dir.path().join("given-key.pem");
    std::fs::write(&cert, b"").unwrap();
    let pair = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    std::fs::write(&key, pair.signing_key.serialize_pem()).unwrap();
    let out = serve_command(&dir.path().join("data"))
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("no certificate in {}", cert.display())),
        "{err}"
    );
    assert!(err.contains("never replaces"), "{err}");
    assert!(out.stdout.is_empty(), "never ready");
    assert_eq!(
        std::fs::read(&cert).unwrap(),
        b"",
        "the given file is left alone"
    );
}
