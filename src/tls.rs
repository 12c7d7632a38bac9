//! Server TLS: loads the configured certificate, or generates a self-signed one on first
//! start and keeps it in the data directory so clients can pin it across restarts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::TlsMode;
use crate::fsutil::write_private;

/// Where the generated certificate lives inside the data directory.
pub fn self_signed_paths(data_dir: &Path) -> (PathBuf, PathBuf) {
    (
        data_dir.join("tls").join("cert.pem"),
        data_dir.join("tls").join("key.pem"),
    )
}

/// Builds the rustls configuration both listeners share, or `None` in plain-HTTP mode.
pub fn server_config(mode: &TlsMode, data_dir: &Path) -> anyhow::Result<Option<Arc<ServerConfig>>> {
    let (cert, key) = match mode {
        TlsMode::Plain => return Ok(None),
        TlsMode::Files { cert, key } => (cert.clone(), key.clone()),
        TlsMode::SelfSigned => {
            let (cert, key) = self_signed_paths(data_dir);
            if !cert.exists() || !key.exists() {
                generate(&cert, &key)?;
            }
            (cert, key)
        }
    };
    let chain = CertificateDer::pem_file_iter(&cert)
        .with_context(|| format!("reading certificate {}", cert.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("parsing certificate {}", cert.display()))?;
    anyhow::ensure!(!chain.is_empty(), "no certificate in {}", cert.display());
    let key_der = PrivateKeyDer::from_pem_file(&key)
        .with_context(|| format!("reading private key {}", key.display()))?;
    let mut config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(chain, key_der)
        .context("certificate and key do not match")?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Some(Arc::new(config)))
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
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    write_private(key_path, certified.signing_key.serialize_pem().as_bytes())?;
    std::fs::write(cert_path, certified.cert.pem())
        .with_context(|| format!("writing {}", cert_path.display()))?;
    tracing::info!(cert = %cert_path.display(), "generated a self-signed TLS certificate");
    Ok(())
}
