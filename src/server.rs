//! Accept loops for both listeners: TLS handshake with a timeout, HTTP/1.1 and HTTP/2 by
//! ALPN, a cap on open connections, header-read timeouts, a clean end of every connection
//! (close_notify, then a bounded lingering read) and a graceful drain.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Semaphore};
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
                            let (io, back) = HandBack::new(s);
                            let conn = b.serve_connection(TokioIo::new(io), svc).into_owned();
                            let result = watcher.watch(conn).await;
                            close_cleanly(back).await;
                            result
                        }
                        _ => return,
                    }
                }
                None => {
                    let (io, back) = HandBack::new(stream);
                    let conn = b.serve_connection(TokioIo::new(io), svc).into_owned();
                    let result = watcher.watch(conn).await;
                    close_cleanly(back).await;
                    result
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

/// How long and how much a closing connection keeps reading what the client still sends,
/// so that closing with unread input does not reset the connection before the client
/// has read the answer (a refused upload: 413, 415, 408).
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 64 << 20;

/// Ends a connection cleanly whatever hyper did (hyper drops its IO without a shutdown
/// when an exchange ends in an error, which a TLS client sees as an EOF in violation of
/// the protocol): close_notify, FIN, then a bounded read of what the client still sends.
async fn close_cleanly<S: AsyncRead + AsyncWrite + Unpin>(back: oneshot::Receiver<S>) {
    let Ok(mut s) = back.await else { return };
    let linger = async {
        // close_notify (unless hyper sent it already), then FIN.
        let _ = s.shutdown().await;
        let mut buf = vec![0u8; 16 << 10];
        let mut left = LINGER_BYTES;
        while left > 0 {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, linger).await;
}

/// The connection's stream as hyper sees it; hands the stream back when hyper drops it.
struct HandBack<S> {
    inner: Option<S>,
    back: Option<oneshot::Sender<S>>,
}

impl<S> HandBack<S> {
    fn new(s: S) -> (HandBack<S>, oneshot::Receiver<S>) {
        let (tx, rx) = oneshot::channel();
        let io = HandBack {
            inner: Some(s),
            back: Some(tx),
        };
        (io, rx)
    }

    fn io(&mut self) -> &mut S {
        self.inner.as_mut().expect("present until dropped")
    }
}

impl<S> Drop for HandBack<S> {
    fn drop(&mut self) {
        if let (Some(s), Some(tx)) = (self.inner.take(), self.back.take()) {
            let _ = tx.send(s);
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HandBack<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(self.get_mut().io()).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HandBack<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.get_mut().io()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.get_mut().io()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.as_ref().is_some_and(|s| s.is_write_vectored())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.get_mut().io()).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.get_mut().io()).poll_shutdown(cx)
    }
}
