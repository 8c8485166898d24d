//! The WebSocket sample step (the eu.luminis WebSocket samplers, `plan::sampler::websocket`): a user's
//! one WebSocket connection, opened by a sample and kept for the next ones, as the plugin keeps
//! one per JMeter thread.
//!
//! The upgrade is written and read here, as the plugin's own client does (its bytes are the
//! sample's sent and received bytes, and its status the sample's code); the frames after it
//! are tokio-tungstenite's. Figures follow the plugin's `WebsocketSampler.sample`: the code is
//! 101 when the sample opened the connection, else 200; sent bytes are the upgrade request's,
//! replaced by the frame's when one is sent; received bytes are the upgrade response's plus
//! the frame read; the elapsed time runs from the start to the end of the sample, its connect
//! time to the end of the upgrade; a read frame's text (or bytes) is the response body.

use super::super::response::{apply_rules, Response, Rules};
use super::super::scripting::SampleState;
use super::super::user::VirtualUser;
use super::after::After;
use super::{How, Made};
use crate::plan::sampler::websocket::{
    frame_size, parse_hex, Connect, FilterRule, FrameKind, Payload, WebSocket, WsOp,
};
use crate::record::{ErrorKind, Sample};
use futures_util::{SinkExt, StreamExt};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::WebSocketStream;

/// The plugin's limits for its timeouts (ms), and its close reason.
const MAX_TIMEOUT: i64 = 999_999;
const CLOSE_REASON: &str = "sampler requested close";
/// The most an upgrade response's head may be.
const MAX_HEAD: usize = 64 * 1024;
/// Extractors and assertions read a frame whole.
const NO_LIMIT: u64 = u64::MAX;

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A user's WebSocket connection.
pub(in crate::engine) struct WsConn {
    ws: WebSocketStream<Box<dyn Io>>,
}

/// What a sample came to.
#[derive(Default)]
struct Outcome {
    error: Option<ErrorKind>,
    status: u16,
    /// The upgrade response's head (new connections), and the frame read.
    head: Vec<u8>,
    body: Vec<u8>,
    sent: u64,
    received: u64,
    connected_at: Option<Instant>,
    /// The plugin started timing: its fields were valid and there was a connection to use.
    timed: bool,
    /// The connection is no longer usable (closed, or broken): the user forgets it.
    drop: bool,
    /// The frames the filters discarded, each a sub-sample.
    discarded: Vec<Sample>,
}

impl VirtualUser {
    /// Runs one WebSocket sample starting at `start`; returns whether it failed.
    pub(in crate::engine) async fn websocket(&mut self, x: &WebSocket, start: Instant) -> bool {
        // The sampler's name as rendered before it samples (JMeter's sample label).
        let label = self.sample_label(x.label);
        let ctx = self.ctx.clone();
        let mut o = Outcome::default();
        let abandon = self.abandon.clone();
        let end = tokio::select! {
            _ = self.ws_sample(x, &mut o) => Instant::now(),
            _ = abandon.cancelled() => {
                o.error = Some(ErrorKind::Aborted);
                o.drop = true;
                Instant::now()
            }
        };
        if o.drop {
            self.conns.ws = None;
        }
        // A sample refused before it starts (its fields, no connection) takes no time.
        let end = if o.timed { end } else { start };
        let elapsed = end.saturating_duration_since(start);
        let head = std::mem::take(&mut o.head);
        let (status, received) = (o.status, o.received);
        let rules = |this: &mut Self, state: &SampleState, rules: Rules<'_>| {
            let resp = Response::new(&head, &state.data, status);
            apply_rules(rules, &resp, &[], "", elapsed, received, &mut this.session.vars)
        };
        let mut state = SampleState {
            code: o.status.to_string(),
            data: std::mem::take(&mut o.body),
            elapsed_ms: elapsed.as_millis() as u64,
            bytes: o.received,
            sent_bytes: o.sent,
            data_type: "text".into(),
            start_ms: ctx.shared.epoch_unix_ms + ctx.micros(start) / 1000,
            end_ms: ctx.shared.epoch_unix_ms + ctx.micros(end) / 1000,
            ..Default::default()
        };
        if !x.after.scripts.is_empty() {
            state.label = self.label_name(label);
        }
        let sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: 0,
            connect_us: o.connected_at.map_or(0, |c| ctx.micros(c).saturating_sub(ctx.micros(start))),
            bytes_sent: o.sent,
            bytes_received: o.received,
            new_connection: o.connected_at.is_some(),
            error: o.error,
            in_total: true,
            upstream_us: None,
        };
        let after =
            After { extract: &x.after.extract, checks: &x.after.checks, scripts: &x.after.scripts, limit: NO_LIMIT };
        // The plugin's sub-results: rows of their own, the sample itself is the exchange.
        let (before, state, url) = (&o.discarded[..], Some(state), Cow::Borrowed(""));
        let made = Made { sample, start, end, plan_label: x.label, status, state, url, before, how: How::WEBSOCKET };
        self.finish(after, made, rules).await
    }

    /// The sample itself, into `o`.
    async fn ws_sample(&mut self, x: &WebSocket, o: &mut Outcome) {
        let f = &x.failures;
        let invalid = Some(ErrorKind::Check(f.invalid.0));
        // The plugin checks its fields first: the port and connect timeout of a new connection,
        // the read timeout of a sample that reads.
        let connect = x.connect.as_ref().map(|c| self.ws_target(c));
        let connect_timeout = timeout_ms(&x.connect_timeout.render_string(&mut self.session.vars), 1);
        let read_timeout = timeout_ms(&x.read_timeout.render_string(&mut self.session.vars), 0);
        let reads = !matches!(x.op, WsOp::Write(_));
        if matches!(connect, Some(None))
            || (connect.is_some() && connect_timeout.is_none())
            || (reads && read_timeout.is_none())
        {
            o.error = invalid;
            return;
        }
        let read_timeout = read_timeout.unwrap_or(Duration::from_secs(6));
        let connect_timeout = connect_timeout.unwrap_or(Duration::from_secs(20));
        if connect.is_none() && self.conns.ws.is_none() {
            o.error = Some(ErrorKind::Check(f.no_connection.0));
            return;
        }
        o.timed = true;
        if let Some(Some(target)) = connect {
            // A new connection replaces the user's (the plugin disposes of the old one).
            self.conns.ws = None;
            let headers: Vec<(String, String)> =
                x.headers.iter().map(|(n, v)| (n.clone(), v.render_string(&mut self.session.vars))).collect();
            let headers = self.with_cookie(&target, headers);
            let upgrade = upgrade(&target, &headers, connect_timeout, read_timeout, self.ctx.tls.clone());
            match upgrade.await {
                Ok((conn, up)) => {
                    self.conns.ws = Some(Box::new(conn));
                    o.connected_at = Some(Instant::now());
                    o.status = 101;
                    o.sent = up.sent;
                    o.received = up.received;
                    o.head = up.head;
                }
                Err(Failed::Kind(k)) => {
                    o.error = Some(k);
                    return;
                }
                Err(Failed::Status(s, head)) => {
                    o.status = s;
                    o.head = head;
                    o.error = Some(ErrorKind::Status(s));
                    return;
                }
                Err(Failed::Upgrade) => {
                    o.error = Some(ErrorKind::Check(f.upgrade.0));
                    return;
                }
            }
        } else {
            o.status = 200;
        }
        let Some(conn) = self.conns.ws.as_mut() else { return };
        let sent = match &x.op {
            WsOp::Open | WsOp::Read { .. } => Ok(None),
            WsOp::Write(p) | WsOp::RequestResponse(p) => match payload(p, &mut self.session.vars) {
                Some(m) => conn.send(m).await.map(Some),
                None => {
                    o.error = Some(ErrorKind::Check(f.bad_data.0));
                    return;
                }
            },
            WsOp::Close { status } => match status.render_string(&mut self.session.vars).trim().parse::<u16>() {
                Ok(code) => {
                    let frame = CloseFrame { code: CloseCode::from(code), reason: CLOSE_REASON.into() };
                    conn.send(Message::Close(Some(frame))).await.map(Some)
                }
                Err(_) => {
                    o.error = invalid;
                    return;
                }
            },
            WsOp::Ping => conn.send(Message::Ping(Default::default())).await.map(Some),
            WsOp::Pong => conn.send(Message::Pong(Default::default())).await.map(Some),
        };
        match sent {
            Ok(Some(n)) => o.sent = n,
            Ok(None) => {}
            Err(k) => {
                o.error = Some(k);
                o.drop = true;
                return;
            }
        }
        let expect = match &x.op {
            WsOp::Open | WsOp::Write(_) | WsOp::Pong => return,
            WsOp::Read { kind, .. } => Expect::Data(*kind),
            WsOp::RequestResponse(p) => Expect::Data(if p.binary { FrameKind::Binary } else { FrameKind::Text }),
            WsOp::Close { .. } => Expect::Close,
            WsOp::Ping => Expect::Pong,
        };
        // A close sent leaves the connection unusable, whatever comes back (the plugin's
        // client is closing, no longer connected).
        o.drop = matches!(expect, Expect::Close);
        let got = match read_filtered(conn, x, read_timeout, &mut self.session.vars, o, &self.ctx).await {
            Ok(m) => m,
            Err(ErrorKind::Timeout) if matches!(x.op, WsOp::Read { optional: true, .. }) => {
                // An optional read that times out succeeds without a response.
                o.status = 0;
                return;
            }
            Err(k) => {
                o.error = Some(k);
                o.drop |= k != ErrorKind::Timeout;
                return;
            }
        };
        let closed = matches!(got, Message::Close(_));
        o.drop |= closed;
        let size = frame_size(payload_len(&got), false);
        match (expect, got) {
            (Expect::Data(FrameKind::Text | FrameKind::Any), Message::Text(t)) => o.body = t.as_bytes().to_vec(),
            (Expect::Data(FrameKind::Binary | FrameKind::Any), Message::Binary(b)) => o.body = b.to_vec(),
            (Expect::Pong, Message::Pong(_)) => {}
            (Expect::Close, Message::Close(frame)) => {
                // The code is the server's close status, the body `status: reason`.
                if let Some(fr) = frame {
                    let code = u16::from(fr.code);
                    o.status = code;
                    o.body = format!("{code}: {}", fr.reason).into_bytes();
                } else {
                    o.status = 0;
                }
            }
            _ => {
                o.error = Some(ErrorKind::Check(f.unexpected.0));
                return;
            }
        }
        if closed && !matches!(expect, Expect::Close) {
            return;
        }
        o.received += size;
        if matches!(expect, Expect::Data(_)) {
            self.session.vars.set(x.last_frame_final, "true");
        }
    }

    /// Where a new connection goes, its fields rendered; none when the port is not one.
    fn ws_target(&mut self, c: &Connect) -> Option<Target> {
        let port = c.port.render_string(&mut self.session.vars).trim().parse::<i64>().ok()?;
        let port = u16::try_from(port).ok().filter(|p| *p > 0)?;
        let host = c.server.render_string(&mut self.session.vars);
        let path = c.path.render_string(&mut self.session.vars);
        // java.net.URL drops a fragment; the plugin puts a `/` before a path without one.
        let path = path.split('#').next().unwrap_or_default().trim().to_string();
        let path = if path.starts_with('/') { path } else { format!("/{path}") };
        Some(Target { tls: c.tls, host, port, path })
    }

    /// The Cookie Manager's cookies for the upgrade's URL (`http`/`https`, as the plugin asks
    /// the manager), as one `Cookie` header.
    fn with_cookie(&self, t: &Target, mut headers: Vec<(String, String)>) -> Vec<(String, String)> {
        let Some(jar) = self.session.jar.as_ref() else { return headers };
        let scheme = if t.tls { "https" } else { "http" };
        let Ok(url) = url::Url::parse(&format!("{scheme}://{}{}", t.authority(), t.path)) else { return headers };
        let cookies: Vec<String> = jar.get_request_values(&url).map(|(k, v)| format!("{k}={v}")).collect();
        if !cookies.is_empty() {
            headers.push(("Cookie".into(), cookies.join("; ")));
        }
        headers
    }
}

#[derive(Clone, Copy)]
enum Expect {
    Data(FrameKind),
    Pong,
    Close,
}

/// Reads the next frame the filters in scope let through (`FrameFilter.receiveFrame`): each
/// frame a filter matches (the innermost filter asks first) is a sub-sample, its reply (a pong
/// to a ping) sent; the read timeout runs over all of them. As the plugin's, the time is
/// checked after each frame read, the one let through included, so a read timeout of 0 with a
/// filter always times out.
async fn read_filtered(
    conn: &mut WsConn,
    x: &WebSocket,
    timeout: Duration,
    vars: &mut crate::engine::session::UserVars,
    o: &mut Outcome,
    ctx: &crate::engine::session::ScenarioCtx,
) -> Result<Message, ErrorKind> {
    if x.filters.is_empty() {
        return conn.receive(timeout).await;
    }
    let began = Instant::now();
    loop {
        let left = timeout.saturating_sub(began.elapsed());
        if !timeout.is_zero() && left.is_zero() {
            return Err(ErrorKind::Timeout);
        }
        let start = Instant::now();
        let m = conn.receive(left).await?;
        let kind = match &m {
            Message::Text(_) => 0,
            Message::Binary(_) => 1,
            Message::Ping(_) => 2,
            Message::Pong(_) => 3,
            _ => 4,
        };
        let mut hit = None;
        for f in x.filters.iter().rev() {
            let Some(label) = f.labels.get(kind).copied().flatten() else { continue };
            let matched = match (&f.rule, &m) {
                (FilterRule::Ping { .. }, _) => true,
                (FilterRule::Text { cmp, value }, Message::Text(t)) => cmp
                    .text_matches(t.as_str(), &value.render_string(vars))
                    .map_err(|_| ErrorKind::Check(x.failures.invalid.0))?,
                (FilterRule::Binary { cmp, value, position }, Message::Binary(b)) => {
                    let value = parse_hex(&value.render_string(vars)).unwrap_or_default();
                    let position = position.render_string(vars).trim().parse::<i64>().ok();
                    cmp.bytes_match(b, &value, position)
                }
                _ => false,
            };
            if matched {
                let reply = matches!(f.rule, FilterRule::Ping { reply: true, .. }) && kind == 2;
                hit = Some((label, reply));
                break;
            }
        }
        if let Some((label, reply)) = hit {
            // tungstenite answers every ping with a pong of its data; the reply is counted
            // where the plugin's filter sends it.
            let len = payload_len(&m);
            o.discarded.push(Sample {
                label,
                start_us: ctx.micros(start),
                end_us: ctx.micros(Instant::now()),
                ttfb_us: 0,
                connect_us: 0,
                bytes_sent: if reply { frame_size(len, true) } else { 0 },
                bytes_received: frame_size(len, false),
                new_connection: false,
                error: None,
                in_total: false,
                upstream_us: None,
            });
        }
        if began.elapsed() >= timeout {
            return Err(ErrorKind::Timeout);
        }
        if hit.is_none() {
            return Ok(m);
        }
    }
}

/// Where a new connection goes.
struct Target {
    tls: bool,
    host: String,
    port: u16,
    /// Path and query, starting with `/`.
    path: String,
}

impl Target {
    /// `host:port`, the host of an IPv6 address in brackets (the plugin's `Host` header).
    fn authority(&self) -> String {
        if self.host.contains(':') && !self.host.starts_with('[') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// An upgrade that succeeded: its bytes each way and the response's head.
struct Upgraded {
    sent: u64,
    received: u64,
    head: Vec<u8>,
}

enum Failed {
    Kind(ErrorKind),
    /// The server answered with another status than 101 (the plugin's code is that status).
    Status(u16, Vec<u8>),
    /// A 101 without the headers RFC 6455 asks for, or with a wrong accept key.
    Upgrade,
}

/// Opens a connection and upgrades it as the plugin's `WebSocketClient.connect` does: the
/// connect timeout for TCP, the read timeout for each read after it.
async fn upgrade(
    t: &Target,
    headers: &[(String, String)],
    connect_timeout: Duration,
    read_timeout: Duration,
    tls: Arc<rustls::ClientConfig>,
) -> Result<(WsConn, Upgraded), Failed> {
    let host = t.host.trim_start_matches('[').trim_end_matches(']');
    // Java's `InetAddress.getByName("")` is the loopback address: an empty server name
    // connects there (the `Host` header stays as written).
    let host = if host.is_empty() { "127.0.0.1" } else { host };
    let tcp = match tokio::time::timeout(connect_timeout, tokio::net::TcpStream::connect((host, t.port))).await {
        Err(_) => return Err(Failed::Kind(ErrorKind::ConnectTimeout)),
        Ok(Err(e)) => return Err(Failed::Kind(io_error(&e, true))),
        Ok(Ok(s)) => s,
    };
    let _ = tcp.set_nodelay(true);
    let mut stream: Box<dyn Io> = if t.tls {
        let name =
            rustls::pki_types::ServerName::try_from(host.to_string()).map_err(|_| Failed::Kind(ErrorKind::Tls))?;
        let connector = tokio_rustls::TlsConnector::from(tls);
        match within(read_timeout, connector.connect(name, tcp)).await {
            None => return Err(Failed::Kind(ErrorKind::Timeout)),
            Some(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => return Err(Failed::Kind(ErrorKind::Tls)),
            Some(Err(e)) => return Err(Failed::Kind(io_error(&e, true))),
            Some(Ok(s)) => Box::new(s),
        }
    } else {
        Box::new(tcp)
    };
    let key = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 16]>())
    };
    let request = upgrade_request(t, headers, &key);
    let io = |e: std::io::Error| Failed::Kind(io_error(&e, false));
    stream.write_all(request.as_bytes()).await.map_err(io)?;
    stream.flush().await.map_err(io)?;
    let mut buf = Vec::with_capacity(1024);
    let head_len = loop {
        if let Some(i) = memchr::memmem::find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return Err(Failed::Kind(ErrorKind::TooLarge));
        }
        let mut chunk = [0u8; 4096];
        let n = match within(read_timeout, stream.read(&mut chunk)).await {
            None => return Err(Failed::Kind(ErrorKind::Timeout)),
            Some(r) => r.map_err(io)?,
        };
        if n == 0 {
            return Err(Failed::Kind(ErrorKind::Closed));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = buf[..head_len].to_vec();
    check_response(&head, &key)?;
    let ws = WebSocketStream::from_partially_read(stream, buf[head_len..].to_vec(), Role::Client, None).await;
    let up = Upgraded { sent: request.len() as u64, received: head_len as u64, head };
    Ok((WsConn { ws }, up))
}

/// The upgrade request, as the plugin writes it: the `Host` with its port, the user's headers
/// (but those the upgrade sets itself, and those with no name), then the upgrade's own.
fn upgrade_request(t: &Target, headers: &[(String, String)], key: &str) -> String {
    const OWN: [&str; 5] = ["Host", "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"];
    let mut r = format!("GET {} HTTP/1.1\r\nHost: {}\r\n", t.path, t.authority());
    for (name, value) in headers {
        let line = format!("{name}: {value}");
        if name.trim().is_empty() || OWN.iter().any(|o| o.eq_ignore_ascii_case(name)) || line.contains(['\r', '\n']) {
            continue;
        }
        r.push_str(&line);
        r.push_str("\r\n");
    }
    r.push_str("Upgrade: websocket\r\nConnection: Upgrade\r\n");
    r.push_str(&format!("Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"));
    r
}

/// The plugin's `checkServerResponse`: status 101, `Upgrade: websocket`, `Connection: Upgrade`
/// (any case) and the accept key derived from ours.
fn check_response(head: &[u8], key: &str) -> Result<(), Failed> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    match resp.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return Err(Failed::Kind(ErrorKind::Protocol)),
    }
    let status = resp.code.unwrap_or(0);
    if status != 101 {
        return Err(Failed::Status(status, head.to_vec()));
    }
    // Repeated headers read as one, their values joined with ", ", as the plugin's map does.
    let value = |name: &str| {
        let v: Vec<String> = resp
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
            .collect();
        (!v.is_empty()).then(|| v.join(", "))
    };
    let accept = accept_key(key);
    let ok = value("Upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
        && value("Connection").is_some_and(|v| v.eq_ignore_ascii_case("upgrade"))
        && value("Sec-WebSocket-Accept").is_some_and(|v| v == accept);
    if ok {
        Ok(())
    } else {
        Err(Failed::Upgrade)
    }
}

/// RFC 6455's `Sec-WebSocket-Accept` for a key: base64 of SHA-1 of the key and the GUID.
fn accept_key(key: &str) -> String {
    use base64::Engine as _;
    let text = format!("{key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    let digest = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, text.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(digest.as_ref())
}

impl WsConn {
    /// Sends one frame; its size on the wire.
    async fn send(&mut self, m: Message) -> Result<u64, ErrorKind> {
        let size = frame_size(payload_len(&m), true);
        self.ws.send(m).await.map_err(|e| ws_error(&e))?;
        Ok(size)
    }

    /// Reads one message within the read timeout (zero: none).
    async fn receive(&mut self, read_timeout: Duration) -> Result<Message, ErrorKind> {
        match within(read_timeout, self.ws.next()).await {
            None => Err(ErrorKind::Timeout),
            Some(None) => Err(ErrorKind::Closed),
            Some(Some(Err(e))) => Err(ws_error(&e)),
            Some(Some(Ok(m))) => Ok(m),
        }
    }
}

/// Runs `f` within `limit` (zero: no limit, as a socket timeout of 0); none when it ran out.
async fn within<F: std::future::Future>(limit: Duration, f: F) -> Option<F::Output> {
    if limit.is_zero() {
        Some(f.await)
    } else {
        tokio::time::timeout(limit, f).await.ok()
    }
}

fn payload_len(m: &Message) -> usize {
    match m {
        Message::Text(t) => t.len(),
        Message::Binary(b) | Message::Ping(b) | Message::Pong(b) => b.len(),
        Message::Close(Some(f)) => 2 + f.reason.len(),
        Message::Close(None) => 0,
        Message::Frame(f) => f.payload().len(),
    }
}

/// The frame a payload makes: its text, or the bytes its hex or its file says; none when the
/// hex is not hex or the file cannot be read (the plugin's "Sampler Error").
fn payload(p: &Payload, vars: &mut crate::engine::session::UserVars) -> Option<Message> {
    let file = p.file.as_ref().map(|f| f.render_string(vars));
    if p.binary {
        let bytes = match file {
            Some(f) => std::fs::read(f).ok()?,
            None => parse_hex(&p.data.render_string(vars))?,
        };
        Some(Message::binary(bytes))
    } else {
        let text = match file {
            Some(f) => String::from_utf8_lossy(&std::fs::read(f).ok()?).into_owned(),
            None => p.data.render_string(vars),
        };
        Some(Message::text(text))
    }
}

/// A timeout field: a whole number of ms from `min` to the plugin's maximum; none otherwise.
fn timeout_ms(text: &str, min: i64) -> Option<Duration> {
    let ms = text.trim().parse::<i64>().ok().filter(|ms| (min..=MAX_TIMEOUT).contains(ms))?;
    Some(Duration::from_millis(ms as u64))
}

fn io_error(e: &std::io::Error, connecting: bool) -> ErrorKind {
    super::super::client::io_kind(e, false, connecting)
}

fn ws_error(e: &tungstenite::Error) -> ErrorKind {
    use tungstenite::Error as E;
    match e {
        E::Io(e) => io_error(e, false),
        E::ConnectionClosed | E::AlreadyClosed => ErrorKind::Closed,
        E::Capacity(_) => ErrorKind::TooLarge,
        E::Tls(_) => ErrorKind::Tls,
        _ => ErrorKind::Protocol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_checked_as_the_plugin_does() {
        assert_eq!(timeout_ms("15000", 1), Some(Duration::from_millis(15000)));
        assert_eq!(timeout_ms(" 0 ", 0), Some(Duration::ZERO));
        assert_eq!(timeout_ms("0", 1), None);
        assert_eq!(timeout_ms("1000000", 0), None);
        assert_eq!(timeout_ms("${timeout}", 0), None);
    }

    #[test]
    fn the_upgrade_request_is_the_plugin_s() {
        let t = Target { tls: false, host: "::1".into(), port: 8080, path: "/chat?room=1".into() };
        let h =
            vec![("X-Token".to_string(), "abc".to_string()), ("host".into(), "evil".into()), (" ".into(), "x".into())];
        let r = upgrade_request(&t, &h, "k==");
        assert_eq!(
            r,
            "GET /chat?room=1 HTTP/1.1\r\nHost: [::1]:8080\r\nX-Token: abc\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: k==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
    }

    #[test]
    fn upgrade_responses_are_checked() {
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        let ok = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: upgrade\r\n\
                  Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
        assert!(check_response(ok.as_bytes(), key).is_ok());
        let wrong_key = ok.replace("s3p", "xxx");
        assert!(matches!(check_response(wrong_key.as_bytes(), key), Err(Failed::Upgrade)));
        let refused = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n";
        assert!(matches!(check_response(refused.as_bytes(), key), Err(Failed::Status(403, _))));
    }
}
