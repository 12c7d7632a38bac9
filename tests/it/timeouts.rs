//! Slow clients cannot hold a connection: incomplete headers are cut off by the
//! header-read timeout, and a body that stops arriving gets 408 and a closed connection.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use crate::support::{raw_tls, Server};

/// Reads until the server closes the connection; the guard only bounds a broken server.
async fn read_until_closed(tls: &mut TlsStream<TcpStream>) -> String {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(20), tls.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return String::from_utf8_lossy(&all).into_owned(),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
            Err(_) => panic!("the server kept a stalled connection open"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incomplete_headers_are_cut_off() {
    let s = Server::start_with(|c| c.limits.header_read_timeout = Duration::from_millis(300)).await;
    let mut tls = raw_tls(&s).await;
    tls.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut tls).await;
    assert!(
        !answer.contains("200 OK"),
        "no request was ever completed: {answer}"
    );
    // The server still serves others.
    assert_eq!(
        s.http.get(s.url("/health")).send().await.unwrap().status(),
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_gets_408_and_the_connection_closes() {
    let s = Server::start_with(|c| c.limits.request_timeout = Duration::from_millis(300)).await;
    let mut tls = raw_tls(&s).await;
    let head = format!(
        "POST /api/products HTTP/1.1\r\nHost: localhost\r\nX-API-Key: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"sku\":",
        s.creds.api_key
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    let answer = read_until_closed(&mut tls).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("request_timeout"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("x-ratelimit-limit"),
        "{answer}"
    );
}
