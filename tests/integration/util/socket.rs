//! Loopback servers for the raw socket samplers (TCP Sampler, HTTP Raw Request, UDP Request)
//! that count what they received: connections, messages and bytes, so that a test compares
//! stampede's sample counts with them exactly.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a TCP test server does with a connection.
#[derive(Debug, Clone)]
pub enum TcpMode {
    /// Each line (up to `\n`) is answered `echo:<line>\n`; the connection stays open.
    Lines,
    /// Reads up to an empty line (`\r\n\r\n`), answers `reply` and closes.
    HttpClose(Vec<u8>),
    /// Reads and counts, never answers.
    Silent,
    /// Messages after their length in 2 big-endian bytes, each answered `echo:<message>`,
    /// framed the same way; the connection stays open.
    LengthPrefixed,
}

/// Counts of a test server.
#[derive(Default)]
pub struct Counts {
    pub connections: AtomicU64,
    pub messages: AtomicU64,
    pub bytes: AtomicU64,
    /// Every message received, in order.
    pub received: Mutex<Vec<Vec<u8>>>,
}

pub struct TcpServer {
    addr: SocketAddr,
    pub counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
}

impl TcpServer {
    pub fn start(mode: TcpMode) -> TcpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let counts = Arc::new(Counts::default());
        let stop = Arc::new(AtomicBool::new(false));
        listener.set_nonblocking(true).unwrap();
        let (c, s) = (counts.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        c.connections.fetch_add(1, Ordering::SeqCst);
                        let (c, mode) = (c.clone(), mode.clone());
                        std::thread::spawn(move || serve(conn, &mode, &c));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        TcpServer { addr, counts, stop }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn connections(&self) -> u64 {
        self.counts.connections.load(Ordering::SeqCst)
    }

    pub fn messages(&self) -> u64 {
        self.counts.messages.load(Ordering::SeqCst)
    }

    pub fn received(&self) -> Vec<Vec<u8>> {
        self.counts.received.lock().unwrap().clone()
    }
}

impl Drop for TcpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(mut conn: TcpStream, mode: &TcpMode, c: &Counts) {
    conn.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut pending = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        c.bytes.fetch_add(n as u64, Ordering::SeqCst);
        pending.extend_from_slice(&buf[..n]);
        if let TcpMode::LengthPrefixed = mode {
            while pending.len() >= 2 && pending.len() >= 2 + usize::from(u16::from_be_bytes([pending[0], pending[1]])) {
                let n = usize::from(u16::from_be_bytes([pending[0], pending[1]]));
                let message: Vec<u8> = pending.drain(..2 + n).skip(2).collect();
                c.received.lock().unwrap().push(message.clone());
                c.messages.fetch_add(1, Ordering::SeqCst);
                let mut reply = ((n + 5) as u16).to_be_bytes().to_vec();
                reply.extend_from_slice(b"echo:");
                reply.extend_from_slice(&message);
                if conn.write_all(&reply).is_err() {
                    return;
                }
            }
            continue;
        }
        let end: &[u8] = match mode {
            TcpMode::HttpClose(_) => b"\r\n\r\n",
            _ => b"\n",
        };
        while let Some(i) = pending.windows(end.len()).position(|w| w == end) {
            let message: Vec<u8> = pending.drain(..i + end.len()).collect();
            c.received.lock().unwrap().push(message.clone());
            c.messages.fetch_add(1, Ordering::SeqCst);
            match mode {
                TcpMode::Lines => {
                    let mut reply = b"echo:".to_vec();
                    reply.extend_from_slice(&message);
                    if conn.write_all(&reply).is_err() {
                        return;
                    }
                }
                TcpMode::HttpClose(reply) => {
                    let _ = conn.write_all(reply);
                    return;
                }
                TcpMode::Silent | TcpMode::LengthPrefixed => {}
            }
        }
    }
}

/// What a UDP test server answers.
#[derive(Debug, Clone, Copy)]
pub enum UdpMode {
    /// The datagram back.
    Echo,
    /// A DNS answer to the query: `127.0.0.1` for its first question, TTL 60.
    Dns,
    /// Nothing.
    Silent,
}

pub struct UdpServer {
    addr: SocketAddr,
    pub counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
}

impl UdpServer {
    pub fn start(mode: UdpMode) -> UdpServer {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let addr = socket.local_addr().unwrap();
        socket.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        let counts = Arc::new(Counts::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (counts.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while !s.load(Ordering::Relaxed) {
                let Ok((n, from)) = socket.recv_from(&mut buf) else { continue };
                let q = buf[..n].to_vec();
                c.messages.fetch_add(1, Ordering::SeqCst);
                c.bytes.fetch_add(n as u64, Ordering::SeqCst);
                c.received.lock().unwrap().push(q.clone());
                let reply = match mode {
                    UdpMode::Echo => q,
                    UdpMode::Dns => dns_answer(&q),
                    UdpMode::Silent => continue,
                };
                let _ = socket.send_to(&reply, from);
            }
        });
        UdpServer { addr, counts, stop }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn datagrams(&self) -> u64 {
        self.counts.messages.load(Ordering::SeqCst)
    }

    pub fn received(&self) -> Vec<Vec<u8>> {
        self.counts.received.lock().unwrap().clone()
    }
}

impl Drop for UdpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The query with `qr rd ra`, NOERROR and one A record, 127.0.0.1, for its question's name.
fn dns_answer(q: &[u8]) -> Vec<u8> {
    let mut r = q.to_vec();
    r[2] = 0x81 | (q[2] & 0x01);
    r[3] = 0x80;
    r[6..8].copy_from_slice(&[0, 1]);
    r.extend([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]);
    r
}

/// A loopback port nothing listens on.
pub fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
