//! The one shutdown signal: SIGTERM/SIGINT (or a test's future) flips it, every accept
//! loop and background task watches it. Also the systemd readiness notification.

use std::future::Future;

use tokio::sync::watch;

/// A cloneable view of the shutdown signal.
#[derive(Clone)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

/// The side that triggers shutdown.
pub struct Trigger {
    tx: watch::Sender<bool>,
}

pub fn channel() -> (Trigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (Trigger { tx }, Shutdown { rx })
}

impl Trigger {
    pub fn fire(&self) {
        let _ = self.tx.send(true);
    }
}

impl Shutdown {
    pub fn is_set(&self) -> bool {
        *self.rx.borrow()
    }

    /// Completes once shutdown has been requested.
    pub async fn wait(&mut self) {
        let _ = self.rx.wait_for(|set| *set).await;
    }
}

/// Completes on the first SIGTERM or SIGINT.
pub fn os_signals() -> impl Future<Output = ()> {
    async {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).expect("installing SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("installing SIGINT handler");
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM received, shutting down"),
            _ = int.recv() => tracing::info!("SIGINT received, shutting down"),
        }
    }
}

/// Tells systemd (Type=notify) that both listeners are bound. A no-op outside systemd.
pub fn notify_ready() {
    if let Err(e) = sd_notify::notify(false, &[sd_notify::NotifyState::Ready]) {
        tracing::warn!(error = %e, "sd_notify READY failed");
    }
}

pub fn notify_stopping() {
    let _ = sd_notify::notify(false, &[sd_notify::NotifyState::Stopping]);
}
