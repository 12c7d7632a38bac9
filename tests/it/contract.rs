//! A refused upload ends the exchange cleanly: the answer, then a TLS close_notify (a
//! clean EOF to rustls), not a dropped socket that a client reports as an EOF in
//! violation of the protocol.

use std::io::ErrorKind;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use crate::support::{raw_tls, Server};

/// Reads the answer and how the stream ended: `Ok` for a close_notify, the error else.
async fn answer_and_end(tls: &mut TlsStream<TcpStream>) -> (String, Result<(), ErrorKind>) {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // The guard only bounds a broken server that never closes.
        match tokio::time::timeout(Duration::from_secs(20), tls.read(&mut buf)).await {
            Ok(Ok(0)) => return (String::from_utf8_lossy(&all).into_owned(), Ok(())),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => return (String::from_utf8_lossy(&all).into_owned(), Err(e.kind())),
            Err(_) => panic!("the server kept the connection open"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_over_the_limit_gets_413_then_close_notify() {
    let s = Server::start_with(|c| c.limits.body_max_bytes = 1024).await;
    let mut tls = raw_tls(&s).await;
    let head = format!(
        "POST /api/products HTTP/1.1\r\nHost: localhost\r\nX-API-Key: {}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
        s.creds.api_key
    );
    tls.write_all(head.as_bytes()).await.unwrap();
    // Part of the body follows, unread by the server, as a client that streams it would.
    tls.write_all(&[b' '; 8192]).await.unwrap();
    let (answer, end) = answer_and_end(&mut tls).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("payload_too_large"), "{answer}");
    assert_eq!(end, Ok(()), "no close_notify after: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_of_another_media_type_gets_415_and_a_clean_end() {
    let s = Server::start().await;
    let mut tls = raw_tls(&s).await;
    let body = "x".repeat(64 << 10);
    let req = format!(
        "POST /api/warehouses HTTP/1.1\r\nHost: localhost\r\nX-API-Key: {}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.creds.api_key,
        body.len()
    );
    tls.write_all(req.as_bytes()).await.unwrap();
    let (answer, end) = answer_and_end(&mut tls).await;
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");
    assert_eq!(end, Ok(()), "no close_notify after: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_request_gets_an_answer_and_close_notify() {
    let s = Server::start().await;
    let mut tls = raw_tls(&s).await;
    tls.write_all(b"POST /api/orders/bulk-import HTTP/1.1\r\nHost: localhost\r\nContent-Length: nope\r\n\r\n{}")
        .await
        .unwrap();
    let (answer, end) = answer_and_end(&mut tls).await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert_eq!(end, Ok(()), "no close_notify after: {answer}");
}
