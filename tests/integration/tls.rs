//! HTTPS: certificates are verified by default, so a server whose certificate no trusted
//! authority signed fails every sample with the `tls` kind, and nothing reaches the application;
//! a plan can trust another authority, accept any certificate, or present a client certificate.

use crate::util::stampede::{run_quick, OutputExt, Stampede, TempRun};
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

/// A test PKI: an authority, a server certificate for 127.0.0.1 it signed, and a client
/// certificate it signed.
struct Pki {
    ca_pem: String,
    server_chain: Vec<rustls::pki_types::CertificateDer<'static>>,
    server_key: rustls::pki_types::PrivateKeyDer<'static>,
    client_cert_pem: String,
    client_key_pem: String,
    ca_der: rustls::pki_types::CertificateDer<'static>,
}

fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().unwrap();
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::from_params(&ca_params, &ca_key);
    let server_key = KeyPair::generate().unwrap();
    let server =
        CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap().signed_by(&server_key, &issuer).unwrap();
    let client_key = KeyPair::generate().unwrap();
    let client = CertificateParams::new(vec!["client".to_string()]).unwrap().signed_by(&client_key, &issuer).unwrap();
    Pki {
        ca_pem: ca.pem(),
        server_chain: vec![server.der().clone()],
        server_key: rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into()),
        client_cert_pem: client.pem(),
        client_key_pem: client_key.serialize_pem(),
        ca_der: ca.der().clone(),
    }
}

/// An HTTPS server with the PKI's certificate that answers every GET on a connection with
/// `200 OK`; with `client_auth`, a handshake without a client certificate from the PKI fails.
/// Counts requests answered.
struct Https {
    port: u16,
    requests: Arc<AtomicU64>,
    _runtime: tokio::runtime::Runtime,
}

fn https_server(p: &Pki, client_auth: bool) -> Https {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder =
        rustls::ServerConfig::builder_with_provider(provider.clone()).with_safe_default_protocol_versions().unwrap();
    let builder = if client_auth {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(p.ca_der.clone()).unwrap();
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider).build().unwrap();
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let config = builder.with_single_cert(p.server_chain.clone(), p.server_key.clone_key()).unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(AtomicU64::new(0));
    let r = requests.clone();
    runtime.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, r) = (acceptor.clone(), r.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    // Requests here are GETs without bodies: a head ends the request.
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        r.fetch_add(1, Ordering::SeqCst);
                        if tls.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK").await.is_err() {
                            return;
                        }
                    }
                    match tls.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
            });
        }
    });
    Https { port, requests, _runtime: runtime }
}

fn tls_plan(port: u16, tls: &str) -> String {
    format!(
        r#"
defaults: {{base_url: "https://127.0.0.1:{port}", tls: {tls}}}
scenarios:
  - workload: {{users: 2, iterations: 5}}
    flow: [{{request: {{url: /}}}}]
"#
    )
}

#[test]
fn insecure_and_custom_authorities_let_test_servers_through() {
    let p = pki();
    let server = https_server(&p, false);
    let run = TempRun::new("tls-ca");
    run.write("ca.pem", &p.ca_pem);
    // Without the authority: refused.
    let plan = run.write("plain.yaml", tls_plan(server.port, "{}"));
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(run.total()["errors_by_kind"], serde_json::json!({"tls": 10}));
    for (name, tls) in [("ca.yaml", "{ca: ca.pem}"), ("insecure.yaml", "{insecure: true}")] {
        let plan = run.write(name, tls_plan(server.port, tls));
        Stampede::new().arg("run").arg(&plan).args(["-q", "--replace", "--out"]).arg(run.path()).run().assert_exit(0);
        let t = run.total();
        assert_eq!((t["samples"].as_u64(), t["errors"].as_u64()), (Some(10), Some(0)), "{name}: {t:#}");
        assert_eq!(t["connections_opened"], 2, "{name}: keep-alive over TLS");
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), 20);
}

#[test]
fn mutual_tls_sends_the_client_certificate() {
    let p = pki();
    let server = https_server(&p, true);
    let run = TempRun::new("mtls");
    run.write("ca.pem", &p.ca_pem);
    run.write("client.pem", &p.client_cert_pem);
    run.write("client.key", &p.client_key_pem);
    let without = run.write("without.yaml", tls_plan(server.port, "{ca: ca.pem}"));
    Stampede::new().arg("run").arg(&without).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(run.total()["errors"], 10, "the server wants a client certificate");
    assert_eq!(server.requests.load(Ordering::SeqCst), 0);
    let with =
        run.write("with.yaml", tls_plan(server.port, "{ca: ca.pem, client_cert: client.pem, client_key: client.key}"));
    Stampede::new().arg("run").arg(&with).args(["-q", "--replace", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(run.total()["errors"], 0, "{:#}", run.total());
    assert_eq!(server.requests.load(Ordering::SeqCst), 10);
    // A key file that is not PEM is a plan error naming the element.
    run.write("bad.key", "not a key");
    let bad = run.write("bad.yaml", tls_plan(server.port, "{client_cert: client.pem, client_key: bad.key}"));
    let out = Stampede::new().arg("run").arg(&bad).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("defaults.tls"), "{}", out.stderr_str());
}
