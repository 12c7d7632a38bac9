//! Accept loops for both listeners: TLS handshake with a timeout, HTTP/1.1 and HTTP/2 by
//! ALPN, a cap on open connections, header-read timeouts, and a graceful drain.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;

use crate::config::Limits;
use crate::http::{self, routes::Service, Api};
use crate::shutdown::Shutdown;

fn builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut b = auto::Builder::new(TokioExecutor::new());
    b.http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    b.http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(256)
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(20));
    b
}

/// Serves one listener until shutdown, then waits (up to the grace period) for the
/// requests in flight to finish.
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    api: Arc<Api>,
    service: Service,
    mut shutdown: Shutdown,
) {
    let graceful = GracefulShutdown::new();
    let limits = &api.app.config.limits;
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.wait() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::warn!(%peer, "connection limit reached; closing new connection");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let api = Arc::clone(&api);
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let limits = &api.app.config.limits;
            let (handshake, b) = (limits.tls_handshake_timeout, builder(limits));
            let svc = service_fn(move |req| {
                let api = Arc::clone(&api);
                async move { Ok::<_, Infallible>(http::handle(api, service, peer.ip(), req).await) }
            });
            let result = match tls {
                Some(acceptor) => {
                    match tokio::time::timeout(handshake, acceptor.accept(stream)).await {
                        Ok(Ok(s)) => {
                            watcher
                                .watch(b.serve_connection(TokioIo::new(s), svc).into_owned())
                                .await
                        }
                        _ => return,
                    }
                }
                None => {
                    watcher
                        .watch(b.serve_connection(TokioIo::new(stream), svc).into_owned())
                        .await
                }
            };
            if let Err(e) = result {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
        });
    }
    drop(listener);
    let open = graceful.count();
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(open, "grace period over; closing remaining connections");
    }
}
