//! TLS for `https://` portals: the client's configuration, trusting Mozilla's root certificates
//! and, for a portal whose certificate another authority signed (a company's own, a test's), the
//! PEM certificates of the file `HEXFORGE_CA_FILE` names; and the server's, from a certificate
//! chain and its key in PEM files (`hexforge portal serve --tls-cert FILE --tls-key FILE`).

use crate::error::PortalError;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The environment variable naming a PEM file of extra certificate authorities to trust.
pub const CA_FILE_VAR: &str = "HEXFORGE_CA_FILE";

/// The configurations built so far, by the value `HEXFORGE_CA_FILE` had (reading the roots
/// again for every request would cost more than the request).
static BUILT: Mutex<Vec<(Option<OsString>, Arc<ClientConfig>)>> = Mutex::new(Vec::new());

/// The client configuration for the current value of `HEXFORGE_CA_FILE`.
pub fn client_config() -> Result<Arc<ClientConfig>, PortalError> {
    let extra = std::env::var_os(CA_FILE_VAR).filter(|v| !v.is_empty());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = built.iter().find(|(k, _)| *k == extra) {
        return Ok(c.clone());
    }
    let c = Arc::new(config_with(extra.as_deref().map(Path::new))?);
    built.push((extra, c.clone()));
    Ok(c)
}

/// A client configuration trusting Mozilla's roots and the certificates of the PEM file
/// `extra`, if given.
pub fn config_with(extra: Option<&Path>) -> Result<ClientConfig, PortalError> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = extra {
        let about =
            format!("{CA_FILE_VAR} names a PEM file of the certificate authorities to trust");
        for c in certificates(path, &about)? {
            roots.add(c).map_err(|e| {
                PortalError::Io(format!(
                    "{}: a certificate that cannot be used: {e}: {about}",
                    path.display()
                ))
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| PortalError::Http(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The certificates of the PEM file `path`, at least one; `what` says what the file is for.
fn certificates(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, PortalError> {
    let fail = |e: String| PortalError::Io(format!("{}: {e}: {what}", path.display()));
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .map_err(|e| fail(e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| fail(e.to_string()))?;
    if certs.is_empty() {
        return Err(fail("no certificate in it".to_string()));
    }
    Ok(certs)
}

/// The server's configuration: the certificate chain of the PEM file `cert` (the portal's own
/// first) and the private key of the PEM file `key`.
pub fn server_config(cert: &Path, key: &Path) -> Result<ServerConfig, PortalError> {
    let chain = certificates(
        cert,
        "--tls-cert names a PEM file with the portal's certificate (and its chain)",
    )?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        PortalError::Io(format!(
            "{}: {e}: --tls-key names a PEM file with the certificate's private key",
            key.display()
        ))
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| PortalError::Http(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            PortalError::Io(format!(
                "{}: {e}: the key does not go with the certificate",
                cert.display()
            ))
        })
}
