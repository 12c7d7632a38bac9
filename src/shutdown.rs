//! The one shutdown signal: SIGTERM/SIGINT (or a test's future) flips it, every accept
//! loop and background task watches it. Also the systemd readiness notification.

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

/// Installs the SIGTERM/SIGINT handlers now (so a signal right after start-up is never
/// lost to the default action) and returns a future completing on the first one.
pub fn os_signals() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => tracing::info!("SIGTERM received, shutting down"),
            _ = int.recv() => tracing::info!("SIGINT received, shutting down"),
        }
    })
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
