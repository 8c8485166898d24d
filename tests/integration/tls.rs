//! HTTPS: certificates are verified by default, so a server whose certificate no trusted
//! authority signed fails every sample with the `tls` kind, and nothing reaches the application.

use crate::util::stampede::run_quick;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A TLS server with a self-signed certificate for 127.0.0.1; counts handshakes begun and
/// requests that got through.
struct SelfSigned {
    port: u16,
    accepted: Arc<AtomicU64>,
    requests: Arc<AtomicU64>,
    _runtime: tokio::runtime::Runtime,
}

fn self_signed_server() -> SelfSigned {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (accepted, requests) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (a, r) = (accepted.clone(), requests.clone());
    runtime.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            a.fetch_add(1, Ordering::SeqCst);
            let (acceptor, r) = (acceptor.clone(), r.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                let mut buf = [0u8; 4096];
                if tls.read(&mut buf).await.unwrap_or(0) > 0 {
                    r.fetch_add(1, Ordering::SeqCst);
                    let _ = tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK").await;
                }
            });
        }
    });
    SelfSigned { port, accepted, requests, _runtime: runtime }
}

#[test]
fn an_untrusted_certificate_fails_with_the_tls_kind() {
    let server = self_signed_server();
    let run = run_quick("tls", &format!("https://127.0.0.1:{}/", server.port), &["--users", "2", "--iterations", "3"]);
    let t = run.total();
    assert_eq!(t["samples"], 6);
    assert_eq!(t["errors_by_kind"], serde_json::json!({"tls": 6}));
    assert_eq!(server.accepted.load(Ordering::SeqCst), 6, "one handshake per sample");
    assert_eq!(server.requests.load(Ordering::SeqCst), 0, "no request crosses an unverified connection");
}
