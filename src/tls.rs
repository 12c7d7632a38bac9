//! Server TLS: loads the configured certificate, or generates a self-signed one on first
//! start and keeps it in the data directory so clients can pin it across restarts. A
//! generated pair found empty or unreadable is generated again (with a warning); a
//! certificate given by flag or config is never replaced: a bad one is an error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::TlsMode;
use crate::fsutil;

/// Where the generated certificate lives inside the data directory.
pub fn self_signed_paths(data_dir: &Path) -> (PathBuf, PathBuf) {
    (
        data_dir.join("tls").join("cert.pem"),
        data_dir.join("tls").join("key.pem"),
    )
}

/// Builds the rustls configuration both listeners share, or `None` in plain-HTTP mode.
pub fn server_config(mode: &TlsMode, data_dir: &Path) -> anyhow::Result<Option<Arc<ServerConfig>>> {
    let config = match mode {
        TlsMode::Plain => return Ok(None),
        TlsMode::Files { cert, key } => load(cert, key).with_context(|| {
            format!(
                "the TLS certificate given ({}, {}) is not usable; fulfilld never replaces \
                 a certificate it was given",
                cert.display(),
                key.display()
            )
        })?,
        TlsMode::SelfSigned => {
            let (cert, key) = self_signed_paths(data_dir);
            if !cert.exists() && !key.exists() {
                generate(&cert, &key)?;
                load(&cert, &key)?
            } else {
                match load(&cert, &key) {
                    Ok(config) => config,
                    Err(e) => {
                        tracing::warn!(
                            cert = %cert.display(),
                            error = %format!("{e:#}"),
                            "the generated TLS certificate or key is empty or unreadable \
                             (a crash while it was written?); generating a new one: clients \
                             that pinned the old certificate must trust the new one"
                        );
                        generate(&cert, &key)?;
                        load(&cert, &key)?
                    }
                }
            }
        }
    };
    Ok(Some(Arc::new(config)))
}

/// The rustls configuration of a PEM certificate chain and key; errors name the file.
fn load(cert: &Path, key: &Path) -> anyhow::Result<ServerConfig> {
    let chain = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("reading certificate {}", cert.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("parsing certificate {}", cert.display()))?;
    anyhow::ensure!(
        !chain.is_empty(),
        "no certificate in {} (the file is empty or holds no CERTIFICATE block)",
        cert.display()
    );
    let key_der = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("reading private key {}", key.display()))?;
    let mut config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .with_context(|| {
            format!(
                "certificate {} and key {} do not match",
                cert.display(),
                key.display()
            )
        })?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

fn generate(cert_path: &Path, key_path: &Path) -> anyhow::Result<()> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
        let host = host.trim();
        if !host.is_empty() && host != "localhost" {
            names.push(host.to_string());
        }
    }
    let certified = rcgen::generate_simple_self_signed(names)
        .context("generating a self-signed certificate")?;
    let dir = cert_path.parent().expect("cert path has a parent");
    fsutil::create_dir(dir)?;
    // The key first: a certificate is only ever on disk beside its key.
    fsutil::write_private(key_path, certified.signing_key.serialize_pem().as_bytes())?;
    fsutil::write_atomic(cert_path, certified.cert.pem().as_bytes(), fsutil::PUBLIC)?;
    tracing::info!(cert = %cert_path.display(), "generated a self-signed TLS certificate");
    Ok(())
}
