//! `WsServer`: a loopback WebSocket server that counts what it saw, the witness of the
//! WebSocket samplers' tests. It upgrades any path but `/reject` (403), echoes every text and
//! binary message, answers pings with pongs and a close with a close (tungstenite's own
//! replies), and on `/greet` sends `hello` as soon as the upgrade is written (so the frame may
//! arrive with the upgrade's response), and on `/noisy` a ping, `hb:1` and `data`. It counts upgrades, frames received and sent by kind,
//! and the bytes of the upgrade requests; it records each upgrade request's head.
//! [`WsServer::start_tls`] serves `wss://` with a self-signed certificate for 127.0.0.1.

use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// What the server saw, each a count.
#[derive(Debug, Default)]
pub struct WsCounts {
    /// TCP connections accepted.
    pub connections: AtomicU64,
    /// Upgrades answered with 101.
    pub upgrades: AtomicU64,
    pub rejected: AtomicU64,
    pub text_in: AtomicU64,
    pub binary_in: AtomicU64,
    pub ping_in: AtomicU64,
    pub pong_in: AtomicU64,
    pub close_in: AtomicU64,
    /// Messages the server sent (echoes and greetings; tungstenite's pongs and close replies
    /// are counted as `replies`).
    pub data_out: AtomicU64,
    pub replies: AtomicU64,
    /// Bytes of the upgrade requests, head included.
    pub upgrade_bytes_in: AtomicU64,
}

pub struct WsServer {
    pub addr: std::net::SocketAddr,
    pub counts: Arc<WsCounts>,
    heads: Arc<Mutex<Vec<String>>>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl WsServer {
    pub fn start() -> WsServer {
        WsServer::serve(None)
    }

    /// The same over TLS, with a self-signed certificate for 127.0.0.1.
    pub fn start_tls() -> WsServer {
        let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).expect("certificate");
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.signing_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(vec![cert.cert.der().clone()], key)
            .expect("TLS config");
        WsServer::serve(Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))))
    }

    fn serve(tls: Option<tokio_rustls::TlsAcceptor>) -> WsServer {
        let counts = Arc::new(WsCounts::default());
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (addr_tx, addr_rx) = mpsc::channel();
        let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
        let (c, h) = (counts.clone(), heads.clone());
        let thread = thread::Builder::new()
            .name("ws-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                rt.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
                    addr_tx.send(listener.local_addr().expect("address")).expect("send address");
                    let accept = async {
                        loop {
                            let Ok((tcp, _)) = listener.accept().await else { continue };
                            c.connections.fetch_add(1, Ordering::SeqCst);
                            let (c, h, tls) = (c.clone(), h.clone(), tls.clone());
                            tokio::spawn(async move {
                                match tls {
                                    Some(tls) => {
                                        if let Ok(s) = tls.accept(tcp).await {
                                            serve(s, c, h).await;
                                        }
                                    }
                                    None => serve(tcp, c, h).await,
                                }
                            });
                        }
                    };
                    tokio::select! {
                        () = accept => {}
                        _ = shutdown_rx => {}
                    }
                });
            })
            .expect("spawn the WebSocket server");
        let addr = addr_rx.recv().expect("the WebSocket server started");
        WsServer { addr, counts, heads, shutdown: Some(shutdown_tx), thread: Some(thread) }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn get(&self, f: impl Fn(&WsCounts) -> &AtomicU64) -> u64 {
        f(&self.counts).load(Ordering::SeqCst)
    }

    /// The heads of the upgrade requests, in the order they came.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for WsServer {
    fn drop(&mut self) {
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve<S>(mut tcp: S, c: Arc<WsCounts>, heads: Arc<Mutex<Vec<String>>>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut buf = Vec::new();
    let head_len = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 1024];
        match tcp.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 64 * 1024 {
            return;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_len]).into_owned();
    c.upgrade_bytes_in.fetch_add(head_len as u64, Ordering::SeqCst);
    heads.lock().unwrap().push(head.clone());
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    if path.starts_with("/reject") {
        c.rejected.fetch_add(1, Ordering::SeqCst);
        let _ = tcp.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
        return;
    }
    let key = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("sec-websocket-key")))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let accept = {
        use base64::Engine as _;
        let d = ring::digest::digest(
            &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
            format!("{key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11").as_bytes(),
        );
        base64::engine::general_purpose::STANDARD.encode(d.as_ref())
    };
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    if tcp.write_all(reply.as_bytes()).await.is_err() {
        return;
    }
    c.upgrades.fetch_add(1, Ordering::SeqCst);
    let mut ws = WebSocketStream::from_partially_read(tcp, buf[head_len..].to_vec(), Role::Server, None).await;
    let first: &[Message] = if path.starts_with("/greet") {
        &[Message::text("hello")]
    } else if path.starts_with("/noisy") {
        &[Message::Ping(b"p".to_vec().into()), Message::text("hb:1"), Message::text("data")]
    } else {
        &[]
    };
    for m in first {
        if ws.send(m.clone()).await.is_err() {
            return;
        }
        c.data_out.fetch_add(1, Ordering::SeqCst);
    }
    while let Some(Ok(m)) = ws.next().await {
        let counter = match &m {
            Message::Text(_) => &c.text_in,
            Message::Binary(_) => &c.binary_in,
            Message::Ping(_) => &c.ping_in,
            Message::Pong(_) => &c.pong_in,
            Message::Close(_) => &c.close_in,
            Message::Frame(_) => continue,
        };
        counter.fetch_add(1, Ordering::SeqCst);
        match m {
            Message::Text(_) | Message::Binary(_) => {
                if ws.send(m).await.is_err() {
                    return;
                }
                c.data_out.fetch_add(1, Ordering::SeqCst);
            }
            // tungstenite answers these itself, with the next flush.
            Message::Ping(_) | Message::Close(_) => {
                let _ = ws.flush().await;
                c.replies.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
    }
}
