//! The run's TLS client configuration, built once from the plan's [`TlsOptions`]: the Mozilla
//! roots plus any extra authority, an optional client certificate (mutual TLS), and, only
//! when the plan asks for it, a verifier that accepts any server certificate.

use crate::plan::TlsOptions;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;

pub(super) fn config(opts: &TlsOptions) -> Result<Arc<rustls::ClientConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    for cert in ca_certs(opts)? {
        roots.add(cert).map_err(|e| format!("ca: {e}"))?;
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = if opts.insecure {
        builder.dangerous().with_custom_certificate_verifier(Arc::new(AcceptAny(provider)))
    } else {
        builder.with_root_certificates(roots)
    };
    let mut config = match client_auth(opts)? {
        Some((chain, key)) => {
            builder.with_client_auth_cert(chain, key).map_err(|e| format!("client certificate: {e}"))?
        }
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The plan's extra trusted certificates, parsed.
pub(super) fn ca_certs(opts: &TlsOptions) -> Result<Vec<CertificateDer<'static>>, String> {
    match &opts.ca_pem {
        None => Ok(Vec::new()),
        Some(pem) => certs(pem, &named("ca", &opts.ca)),
    }
}

/// The plan's client certificate chain and key, parsed.
pub(super) fn client_auth(
    opts: &TlsOptions,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, String> {
    let (Some(cert), Some(key)) = (&opts.client_cert_pem, &opts.client_key_pem) else { return Ok(None) };
    let chain = certs(cert, &named("client_cert", &opts.client_cert))?;
    let key = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| format!("{}: no private key in PEM format ({e})", named("client_key", &opts.client_key)))?;
    Ok(Some((chain, key)))
}

/// A setting and the file it names, for messages: `ca (certs/ca.pem)`.
fn named(setting: &str, file: &Option<std::path::PathBuf>) -> String {
    match file {
        Some(f) => format!("{setting} ({})", f.display()),
        None => setting.to_string(),
    }
}

fn certs(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<_> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what}: not a PEM certificate file ({e})"))?;
    if certs.is_empty() {
        return Err(format!("{what}: the file has no `BEGIN CERTIFICATE` block"));
    }
    Ok(certs)
}

/// Accepts any server certificate, but still checks the handshake signatures, so the
/// connection is at least encrypted to whoever holds the certificate's key.
#[derive(Debug)]
struct AcceptAny(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_errors_name_the_setting_and_its_file() {
        let opts = TlsOptions {
            ca: Some("certs/ca.pem".into()),
            ca_pem: Some(b"not pem".to_vec()),
            client_cert: Some("c.pem".into()),
            client_cert_pem: Some(b"".to_vec()),
            client_key: Some("k.pem".into()),
            client_key_pem: Some(b"".to_vec()),
            ..Default::default()
        };
        assert_eq!(ca_certs(&opts).unwrap_err(), "ca (certs/ca.pem): the file has no `BEGIN CERTIFICATE` block");
        assert!(client_auth(&opts).unwrap_err().starts_with("client_cert (c.pem): "));
        assert!(config(&opts).unwrap_err().starts_with("ca (certs/ca.pem): "));
        assert!(
            ca_certs(&TlsOptions::default()).unwrap().is_empty()
                && client_auth(&TlsOptions::default()).unwrap().is_none()
        );
    }
}
