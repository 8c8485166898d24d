//! The samples over a raw socket (TCP Sampler, FTP Request, HTTP Raw Request, UDP Request) and
//! the Raw Data Source that feeds them: each does what its JMeter class does on the wire, keeps
//! the user's connections as that class keeps them, and makes the result that class makes
//! (code, message, response data, bytes), which the extractors and assertions of its scope
//! read.

mod dns;
mod ftp;
mod process;
mod wire;

use super::super::response::{apply_rules, reads_request_data, Response, Rules};
use super::super::scripting::SampleState;
use super::super::user::{Connections, VirtualUser};
use super::after::After;
use super::{How, Made};
use crate::plan::flow::StopKind;
use crate::plan::sampler::socket::{HttpRaw, RawSource, Socket, SocketKind, SocketStep, Tcp, TcpClient, Udp, UdpCodec};
use crate::plan::LabelId;
use crate::record::{ErrorKind, Sample};
use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Instant;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpStream, UdpSocket};
use wire::{hex, java_int, java_io, Failure, Io};

/// The response data is read in full by extractors and assertions.
const NO_LIMIT: u64 = u64::MAX;

/// The plugins' receive buffer (`kg.apc.jmeter.samplers.ReceiveBufferSize`), which is also the
/// largest datagram a UDP Request reads.
const RECV_BUFFER: usize = 4096;

/// A user's raw sockets.
#[derive(Default)]
pub(in crate::engine) struct Sockets {
    /// TCP Sampler connections by JMeter's key: server, port, user name and password.
    tcp: HashMap<String, TcpStream>,
    /// Each HTTP Raw Request's saved channel.
    raw: HashMap<u32, Saved>,
    /// Each UDP Request's channel.
    udp: HashMap<u32, UdpSocket>,
}

/// The HTTP Raw Request's saved channel, which it reuses with keep-alive whatever became of it
/// (the plugin's own words: "keep-alive does not work").
enum Saved {
    Open(TcpStream),
    /// Closed after a failure or at the end of the stream: writing to it fails.
    Closed,
    /// Its connect failed: writing to it fails.
    Unconnected,
}

/// What a socket sample came to, as its JMeter class sets the result.
struct Outcome {
    ok: bool,
    code: String,
    message: String,
    body: Vec<u8>,
    /// Response headers (the HTTP Raw Request's parsing), CRLF-terminated lines.
    headers: String,
    /// The results' bytes: JMeter's `getBytesAsLong`, the response data's length unless the
    /// sampler set its own.
    bytes: u64,
    latency: Option<Instant>,
    connected: Option<Instant>,
    end: Option<Instant>,
    kind: Option<ErrorKind>,
    new_connection: bool,
    /// The results' sent bytes (JMeter's `setSentBytes`; only the FTP Request sets them).
    sent: u64,
    /// The results' URL (the FTP Request's label); `None`: JMeter's `null`.
    url: Option<String>,
    /// JMeter's data type: `text`, or empty (an FTP Request's binary or unsaved data).
    data_type: &'static str,
    /// JMeter's sampler data (what a Response Assertion on "Request Data" reads).
    sampler_data: String,
}

impl Outcome {
    fn new() -> Outcome {
        Outcome {
            ok: true,
            code: "200".into(),
            message: String::new(),
            body: Vec::new(),
            headers: String::new(),
            bytes: 0,
            latency: None,
            connected: None,
            end: None,
            kind: None,
            new_connection: false,
            sent: 0,
            url: None,
            data_type: "text",
            sampler_data: String::new(),
        }
    }

    /// The plugins' failed result (`AbstractIPSampler.sample`): code 500, the exception as the
    /// message and as the response data (without Java's stack trace).
    fn plugin_failure(&mut self, f: Failure) {
        self.end.get_or_insert_with(Instant::now);
        self.ok = false;
        self.code = "500".into();
        self.body = format!("{}\r\n", f.text).into_bytes();
        self.bytes = self.body.len() as u64;
        self.message = f.text;
        self.kind = Some(f.kind);
    }
}

impl Connections {
    /// The user's raw sockets, made on its first socket sample: a user of a plan with none
    /// carries a pointer, not three maps.
    fn sockets(&mut self) -> &mut Sockets {
        self.sockets.get_or_insert_with(Default::default)
    }
}

impl VirtualUser {
    /// Runs one step of this family starting at `start`: whether the sample failed (none for
    /// the Raw Data Source, which makes no sample) and what the user does after a failure (or,
    /// for a Raw Data Source out of data, `User`: the user stops).
    pub(in crate::engine) async fn socket(&mut self, step: &SocketStep, start: Instant) -> (Option<bool>, StopKind) {
        match step {
            SocketStep::RawSource(r) => match self.raw_source(r) {
                true => (None, StopKind::Continue),
                // Out of data without rewind, or a malformed chunk: the plugin's exception stops
                // the thread. No sample: not the thread group's action after a sampler error.
                false => (None, StopKind::User),
            },
            SocketStep::Sample(s) => {
                // The sampler's name as rendered before it samples (JMeter's sample label).
                let label = self.sample_label(s.label);
                let o = match &s.kind {
                    SocketKind::Tcp(t) => {
                        // JMeter's sampler data, made only for what reads it.
                        let data = !s.after.scripts.is_empty()
                            || self.session.keep_prev
                            || reads_request_data(&s.after.checks);
                        self.tcp(t, data).await
                    }
                    SocketKind::HttpRaw(r) => self.http_raw(r).await,
                    SocketKind::Udp(u) => self.udp(u).await,
                    SocketKind::Ftp(f) => self.ftp(f).await,
                    SocketKind::Process(p) => self.os_process(p).await,
                };
                (Some(self.socket_result(s, label, start, o).await), s.after.on_error)
            }
        }
    }

    /// Records a socket sample and runs its extractors, assertions and scripts; returns whether
    /// it failed.
    async fn socket_result(&mut self, s: &Socket, label: LabelId, start: Instant, o: Outcome) -> bool {
        let ctx = self.ctx.clone();
        let end = o.end.unwrap_or_else(Instant::now);
        let status = o.code.trim().parse::<u16>().unwrap_or(0);
        let error = match (self.abandon.is_cancelled(), o.ok) {
            (true, _) => Some(ErrorKind::Aborted),
            (false, true) => None,
            (false, false) => Some(o.kind.unwrap_or(ErrorKind::Io)),
        };
        let elapsed = end.saturating_duration_since(start);
        // The code and message as a status line, so that assertions on them read them.
        let rules = |this: &mut Self, state: &SampleState, rules: Rules<'_>| {
            let head = format!("SOCKET {} {}\r\n{}", state.code, state.message, state.headers);
            let resp = Response::new(head.as_bytes(), &state.data, status);
            apply_rules(rules, &resp, state.sampler_data.as_bytes(), "", elapsed, state.bytes, &mut this.session.vars)
        };
        let since = |t: Option<Instant>| t.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64);
        let mut state = SampleState {
            code: o.code,
            message: o.message,
            data: o.body,
            headers: o.headers,
            elapsed_ms: elapsed.as_millis() as u64,
            latency_ms: since(o.latency) / 1000,
            connect_ms: since(o.connected) / 1000,
            bytes: o.bytes,
            sent_bytes: o.sent,
            url: o.url.clone().unwrap_or_default(),
            data_type: o.data_type.into(),
            sampler_data: o.sampler_data,
            start_ms: ctx.shared.epoch_unix_ms + ctx.micros(start) / 1000,
            end_ms: ctx.shared.epoch_unix_ms + ctx.micros(end) / 1000,
            ..Default::default()
        };
        if !s.after.scripts.is_empty() {
            state.label = self.label_name(label);
        }
        let sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: since(o.latency),
            connect_us: since(o.connected),
            bytes_sent: o.sent,
            bytes_received: o.bytes,
            new_connection: o.new_connection,
            error,
            in_total: true,
            upstream_us: None,
        };
        let after =
            After { extract: &s.after.extract, checks: &s.after.checks, scripts: &s.after.scripts, limit: NO_LIMIT };
        // JMeter writes the URL of a sample without one as `null`.
        let url = o.url.map_or(Cow::Borrowed("null"), Cow::Owned);
        let (plan_label, state) = (s.label, Some(state));
        let made = Made { sample, start, end, plan_label, status, state, url, before: &[], how: How::SOCKET };
        self.finish(after, made, rules).await
    }

    /// JMeter's TCPSampler.sample with its client class.
    async fn tcp(&mut self, t: &Tcp, data: bool) -> Outcome {
        let mut o = Outcome::new();
        let server = t.server.render_string(&mut self.session.vars);
        let port = java_int(&t.port.render_string(&mut self.session.vars));
        let request = t.request.render_string(&mut self.session.vars);
        let timeout = java_int(&t.timeout.render_string(&mut self.session.vars)).max(0) as u64;
        let connect_timeout = java_int(&t.connect_timeout.render_string(&mut self.session.vars)).max(0) as u64;
        let eol = match &t.eol {
            Some(e) => {
                Some(java_int(&e.render_string(&mut self.session.vars)) as i64).filter(|e| (-128..=127).contains(e))
            }
            None => t.default_eol,
        }
        .map(|e| e as i8 as u8);
        // TCPSampler.sample: this until a handler sends, then the request.
        if data {
            o.sampler_data = format!(
                "Host: {server} Port: {port}\nReuse: {} Close: {}\n[SOLINGER: {} EOL: {} noDelay: {}]",
                t.reuse,
                t.close,
                java_int(&t.so_linger.render_string(&mut self.session.vars)),
                t.eol.as_ref().map_or(0, |e| java_int(&e.render_string(&mut self.session.vars))),
                t.nodelay
            );
        }
        let key = format!("TCP#{server}#{port}#{}", t.user);
        let cached = if t.reuse { self.conns.sockets().tcp.remove(&key) } else { None };
        let mut stream = match cached {
            Some(s) => s,
            None => {
                // Bug 44910: the previous socket of the key is closed (it was taken out above).
                self.conns.sockets().tcp.remove(&key);
                let c = wire::connect(&server, port, connect_timeout, &self.abandon, wire::TIMED_OUT_SOCKET).await;
                o.connected = Some(Instant::now());
                match c {
                    Ok(s) => {
                        o.new_connection = true;
                        s
                    }
                    Err(f) => {
                        // TCPSampler without a socket: 500 and the error, no response data.
                        o.ok = false;
                        o.code = "500".into();
                        o.message = f.text;
                        o.kind = Some(f.kind);
                        o.end = Some(Instant::now());
                        return o;
                    }
                }
            }
        };
        o.connected.get_or_insert_with(Instant::now);
        if let TcpClient::Missing { failure } = t.client {
            // No handler: nothing is written, the socket is kept as after a success.
            o.ok = false;
            o.code = "500".into();
            o.message = "Protocol handler not found".into();
            o.kind = Some(ErrorKind::Check(failure.0));
            o.end = Some(Instant::now());
            if t.reuse && !t.close {
                self.conns.sockets().tcp.insert(key, stream);
            }
            return o;
        }
        if data {
            o.sampler_data = request.clone();
        }
        let _ = stream.set_nodelay(t.nodelay);
        let result = self.tcp_exchange(&mut stream, t, &request, eol, timeout, &mut o).await;
        o.end = Some(Instant::now());
        let keep = match result {
            Ok(data) => {
                o.message = "OK".into();
                o.body = data;
                self.tcp_status(t, &mut o);
                true
            }
            Err((partial, f)) => {
                o.ok = false;
                o.code = "500".into();
                o.body = partial;
                o.message = f.text;
                o.kind = Some(f.kind);
                false
            }
        };
        o.bytes = o.body.len() as u64;
        if keep && t.reuse && !t.close {
            self.conns.sockets().tcp.insert(key, stream);
        }
        o
    }

    /// Writes the request and reads the response as the client class does: the response data
    /// (text, or hex), or the data read so far and the failure.
    async fn tcp_exchange(
        &mut self,
        stream: &mut TcpStream,
        t: &Tcp,
        request: &str,
        eol: Option<u8>,
        timeout: u64,
        o: &mut Outcome,
    ) -> Result<Vec<u8>, (Vec<u8>, Failure)> {
        let abandon = self.abandon.clone();
        let payload = match t.client {
            // `tcp` fails these before they send.
            TcpClient::Text | TcpClient::Missing { .. } => request.as_bytes().to_vec(),
            TcpClient::Binary => hex::decode(request).map_err(|f| (Vec::new(), f))?,
            TcpClient::LengthPrefixed { prefix } => {
                // The length goes first, so a bad hex string fails after it was sent.
                let n = request.encode_utf16().count() / 2;
                let len = (n as u64).to_be_bytes();
                let mut out = len[8 - prefix.min(8)..].to_vec();
                match hex::decode(request) {
                    Ok(b) => {
                        out.extend(b);
                        out
                    }
                    Err(f) => {
                        let _ = stream.write_all(&out).await;
                        return Err((Vec::new(), f));
                    }
                }
            }
        };
        if let Err(e) = stream.write_all(&payload).await {
            return Err((Vec::new(), java_io(&e)));
        }
        let mut got = Vec::new();
        let mut buf = vec![0u8; 4096];
        match t.client {
            TcpClient::Text | TcpClient::Binary | TcpClient::Missing { .. } => loop {
                match wire::read(stream, &mut buf, timeout, &abandon).await {
                    Ok(0) => break,
                    Ok(n) => {
                        o.latency.get_or_insert_with(Instant::now);
                        got.extend_from_slice(&buf[..n]);
                        // JMeter looks at the last byte of each read only.
                        if eol.is_some_and(|e| buf[n - 1] == e) {
                            break;
                        }
                    }
                    Err(e) => {
                        return match t.client {
                            TcpClient::Text => Err((
                                got.clone(),
                                read_exception(&format!("Error reading from server, bytes read: {}", got.len()), &e),
                            )),
                            // Without an end byte, the binary client takes a timeout for the end.
                            _ if matches!(e, Io::Timeout) && eol.is_none() => break,
                            _ if matches!(e, Io::Timeout) => Err((
                                hex::encode(&got).into_bytes(),
                                read_exception("Socket timed out while looking for EOM", &e),
                            )),
                            _ => Err((
                                hex::encode(&got).into_bytes(),
                                read_exception("Problems while trying to read", &e),
                            )),
                        };
                    }
                }
            },
            TcpClient::LengthPrefixed { prefix } => {
                let mut len = vec![0u8; prefix];
                match wire::read(stream, &mut len, timeout, &abandon).await {
                    Ok(n) if n == prefix => {
                        o.latency.get_or_insert_with(Instant::now);
                        let want = len.iter().fold(0u64, |a, b| (a << 8) | u64::from(*b)) as usize;
                        let mut msg = vec![0u8; want.min(1 << 30)];
                        let mut at = 0;
                        while at < msg.len() {
                            match wire::read(stream, &mut msg[at..], timeout, &abandon).await {
                                Ok(0) => break,
                                Ok(n) => at += n,
                                Err(e) => {
                                    return Err((hex::encode(&msg).into_bytes(), read_exception("", &e)));
                                }
                            }
                        }
                        got = msg;
                    }
                    Ok(_) => {}
                    Err(e) => return Err((Vec::new(), read_exception("", &e))),
                }
            }
        }
        Ok(match t.client {
            TcpClient::Text => got,
            _ => hex::encode(&got).into_bytes(),
        })
    }

    /// `tcp.status.prefix`/`suffix`: the response code is read from the response; a code
    /// outside 400..=599 fails the sample (JMeter's `checkResponseCode`, as it is).
    fn tcp_status(&self, t: &Tcp, o: &mut Outcome) {
        if t.status_prefix.is_empty() || o.body.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&o.body).into_owned();
        let found = text.find(&t.status_prefix).and_then(|i| {
            let from = i + t.status_prefix.len();
            text[from..]
                .find(&t.status_suffix)
                .filter(|j| *j > 0 || !t.status_suffix.is_empty())
                .map(|j| &text[from..from + j])
        });
        match found {
            Some(rc) => {
                o.code = rc.to_string();
                o.message = "No status property file".into();
                match rc.parse::<i32>() {
                    Ok(n) if (400..=599).contains(&n) => {}
                    Ok(_) => {
                        o.ok = false;
                        o.kind = Some(ErrorKind::Protocol);
                    }
                    Err(_) => {
                        o.ok = false;
                        o.code = "500".into();
                        o.message = format!("java.lang.NumberFormatException: For input string: \"{rc}\"");
                        o.body.clear();
                        o.kind = Some(ErrorKind::Protocol);
                    }
                }
            }
            None => {
                o.ok = false;
                o.code = "999".into();
                o.message = "Status value not found".into();
                o.kind = Some(ErrorKind::Protocol);
            }
        }
    }

    /// The plugins' HTTPRawSampler: the data, then the file, then the response to the end of
    /// the stream.
    async fn http_raw(&mut self, r: &HttpRaw) -> Outcome {
        let mut o = Outcome::new();
        let host = r.host.render_string(&mut self.session.vars);
        let port_text = r.port.render_string(&mut self.session.vars);
        // A port that is not a number is 80, the plugin's fallback.
        let port = port_text.trim().parse::<i32>().unwrap_or(80);
        let timeout = r.timeout.render_string(&mut self.session.vars).trim().parse::<i64>().unwrap_or(0).max(0) as u64;
        let data = r.data.render_string(&mut self.session.vars);
        let file = r.file.render_string(&mut self.session.vars);
        let abandon = self.abandon.clone();
        let saved = if r.keepalive { self.conns.sockets().raw.remove(&r.slot) } else { None };
        let mut stream = match saved {
            Some(Saved::Open(s)) => s,
            Some(Saved::Closed) => {
                self.conns.sockets().raw.insert(r.slot, Saved::Closed);
                o.plugin_failure(wire::closed_channel());
                return o;
            }
            Some(Saved::Unconnected) => {
                self.conns.sockets().raw.insert(r.slot, Saved::Unconnected);
                o.plugin_failure(Failure {
                    kind: ErrorKind::Io,
                    text: "java.nio.channels.NotYetConnectedException".into(),
                });
                return o;
            }
            None => match wire::connect(&host, port, timeout, &abandon, wire::TIMED_OUT_CHANNEL).await {
                Ok(s) => {
                    o.new_connection = true;
                    s
                }
                Err(f) => {
                    self.conns.sockets().raw.insert(r.slot, Saved::Unconnected);
                    o.plugin_failure(f);
                    return o;
                }
            },
        };
        let sent = async {
            if !data.is_empty() {
                stream.write_all(data.as_bytes()).await.map_err(|e| java_io(&e))?;
            }
            if !file.is_empty() {
                let bytes =
                    plan_file(&r.base_dir, &file, r.file.is_const()).map_err(|e| wire::file_not_found(&file, &e))?;
                stream.write_all(&bytes).await.map_err(|e| java_io(&e))?;
            }
            Ok::<(), Failure>(())
        }
        .await;
        if let Err(f) = sent {
            // The plugin leaves its channel open after a failed send (a missing file).
            self.conns.sockets().raw.insert(r.slot, Saved::Open(stream));
            o.plugin_failure(f);
            return o;
        }
        let mut got = Vec::new();
        let mut buf = vec![0u8; RECV_BUFFER];
        loop {
            match wire::read(&mut stream, &mut buf, timeout, &abandon).await {
                Ok(0) => break,
                Ok(n) => {
                    o.latency.get_or_insert_with(Instant::now);
                    got.extend_from_slice(&buf[..n]);
                }
                Err(e) => {
                    self.conns.sockets().raw.insert(r.slot, Saved::Closed);
                    o.plugin_failure(wire::channel_io(&e));
                    return o;
                }
            }
        }
        o.end = Some(Instant::now());
        // Nothing read: the plugin closes the channel ("seems it was closed"); without
        // keep-alive it closes it after every response.
        let state = if got.is_empty() || !r.keepalive { Saved::Closed } else { Saved::Open(stream) };
        self.conns.sockets().raw.insert(r.slot, state);
        o.bytes = got.len() as u64;
        o.body = got;
        if r.parse {
            parse_raw_response(&mut o);
        }
        o
    }

    /// The plugins' UDPSampler with its encoder.
    async fn udp(&mut self, u: &Udp) -> Outcome {
        let mut o = Outcome::new();
        let host = u.host.render_string(&mut self.session.vars);
        let port = u.port.render_string(&mut self.session.vars);
        let data = u.data.render_string(&mut self.session.vars);
        let timeout = u.timeout.render_string(&mut self.session.vars).trim().parse::<i64>().unwrap_or(0).max(0) as u64;
        let bind_address = u.bind_address.render_string(&mut self.session.vars);
        let bind_port = java_int(&u.bind_port.render_string(&mut self.session.vars));
        let abandon = self.abandon.clone();
        let socket = match self.conns.sockets().udp.remove(&u.slot) {
            Some(s) => Some(s),
            None => wire::udp_channel(&bind_address, bind_port, &host, &port).await.ok(),
        };
        o.connected = Some(Instant::now());
        // A channel that could not be opened: the plugin goes on with none and fails on it.
        let Some(socket) = socket else {
            o.plugin_failure(Failure { kind: ErrorKind::Io, text: "java.lang.NullPointerException".into() });
            return o;
        };
        let payload = match u.codec {
            UdpCodec::Raw => wire::windows_1252(&data),
            UdpCodec::Hex => match hex::decode(&data) {
                Ok(b) => b,
                Err(f) => {
                    self.conns.sockets().udp.insert(u.slot, socket);
                    o.plugin_failure(f);
                    return o;
                }
            },
            UdpCodec::Dns => match dns::query(&data, rand::random()) {
                Ok(b) => b,
                Err(f) => {
                    self.conns.sockets().udp.insert(u.slot, socket);
                    o.plugin_failure(f);
                    return o;
                }
            },
        };
        if let Err(e) = socket.send(&payload).await {
            o.plugin_failure(wire::udp_io(&e));
            return o;
        }
        if !u.wait {
            o.latency = Some(Instant::now());
            o.end = o.latency;
            if !u.close {
                self.conns.sockets().udp.insert(u.slot, socket);
            }
            return o;
        }
        let mut buf = vec![0u8; RECV_BUFFER];
        let got = tokio::select! {
            r = socket.recv(&mut buf) => r.map_err(|e| wire::udp_io(&e)),
            _ = wire::limit(timeout) => Err(Failure {
                kind: ErrorKind::Timeout,
                text: "java.net.SocketTimeoutException: Timeout exceeded while reading from socket".into(),
            }),
            _ = abandon.cancelled() => Err(Failure { kind: ErrorKind::Aborted, text: "java.nio.channels.ClosedByInterruptException".into() }),
        };
        let n = match got {
            Ok(n) => n,
            // The channel is closed on a failed read.
            Err(f) => {
                o.plugin_failure(f);
                return o;
            }
        };
        o.latency = Some(Instant::now());
        o.end = o.latency;
        let decoded = match u.codec {
            UdpCodec::Raw => Ok(buf[..n].to_vec()),
            UdpCodec::Hex => Ok(hex::encode(&buf[..n]).into_bytes()),
            UdpCodec::Dns => dns::describe(&buf[..n]).map(String::into_bytes),
        };
        if !u.close {
            self.conns.sockets().udp.insert(u.slot, socket);
        }
        match decoded {
            Ok(d) => {
                // JMeter's bytes: the decoded data's length, or the datagram's when it is empty.
                o.bytes = if d.is_empty() { n as u64 } else { d.len() as u64 };
                o.body = d;
            }
            Err(f) => o.plugin_failure(f),
        }
        o
    }

    /// The Raw Data Source: the next chunk into its variable; false when the user must stop.
    fn raw_source(&mut self, r: &RawSource) -> bool {
        let name = r.file.render_string(&mut self.session.vars);
        let lock = || r.state.0.lock().unwrap_or_else(|p| p.into_inner());
        // Read outside the lock: the other users' workers would block on it for the whole read.
        if lock().is_none() {
            // A file that cannot be opened: the plugin logs it and sets nothing.
            let Ok(data) = plan_file(&r.base_dir, &name, r.file.is_const()) else { return true };
            lock().get_or_insert(crate::plan::sampler::socket::RawRead { data, pos: 0 });
        }
        let chunk = {
            let mut state = lock();
            let Some(crate::plan::sampler::socket::RawRead { data, pos }) = state.as_mut() else { return true };
            match wire::next_chunk(data, pos) {
                wire::Chunk::Data(c) => Some(c),
                wire::Chunk::End if r.rewind => {
                    *pos = 0;
                    match wire::next_chunk(data, pos) {
                        wire::Chunk::Data(c) => Some(c),
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        let Some(chunk) = chunk else { return false };
        let value = if r.hex { hex::encode(&chunk) } else { String::from_utf8_lossy(&chunk).into_owned() };
        self.session.vars.set(r.var, &value);
        true
    }
}

/// The failure of a TCP client's read: JMeter's `ReadException` with its message.
/// The bytes of a file a socket element reads. A name written in the plan is its author's
/// choice ([`crate::confine::PlanDir::named`]); one made at run time (from variables) stays
/// under the plan's directory ([`crate::confine::PlanDir::confine`]). Either is opened as
/// resolved, and only if it is a regular file.
fn plan_file(dir: &crate::confine::PlanDir, name: &str, written_in_plan: bool) -> std::io::Result<Vec<u8>> {
    let name = std::path::Path::new(name);
    let path = if written_in_plan { dir.named(name) } else { dir.confine(name) }.map_err(std::io::Error::other)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut crate::confine::open(&path, crate::confine::Access::Read)?, &mut bytes)?;
    Ok(bytes)
}

fn read_exception(message: &str, cause: &Io) -> Failure {
    let kind = match cause {
        Io::Timeout => ErrorKind::Timeout,
        Io::Abandoned => ErrorKind::Aborted,
        Io::Err(e) => java_io(e).kind,
    };
    Failure { kind, text: format!("org.apache.jmeter.protocol.tcp.sampler.ReadException: {message}") }
}

/// The HTTP Raw Request's parsing (`HTTPRawSampler.parseResponse`): a status line with a code
/// of 100..=599 sets the code and message, the lines up to an empty one the headers, and the
/// data becomes the next CRLF-delimited piece of what follows (Java's `Scanner` as the plugin
/// uses it). The sample's success is unchanged.
fn parse_raw_response(o: &mut Outcome) {
    // Read as ISO-8859-1 (SampleResult's default), written back as UTF-8 (Java's default).
    let text: String = o.body.iter().map(|b| char::from(*b)).collect();
    let mut rest = text.as_str();
    let next_line = |rest: &mut &str| -> Option<String> {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\r', '\n', '\u{2028}', '\u{2029}', '\u{85}']).unwrap_or(rest.len());
        let line = rest[..end].to_string();
        let after = &rest[end..];
        let skip = if after.starts_with("\r\n") { 2 } else { after.chars().next().map_or(0, char::len_utf8) };
        *rest = &after[skip..];
        Some(line)
    };
    let Some(status) = next_line(&mut rest) else { return };
    let Some(s) = status.find(' ') else { return };
    let Some(e) = status[s + 1..].find(' ').map(|e| e + s + 1) else { return };
    let Ok(rc) = status[s..e].trim().parse::<i32>() else { return };
    if !(100..=599).contains(&rc) {
        return;
    }
    o.code = rc.to_string();
    o.message = status[e..].trim().to_string();
    if rest.is_empty() {
        return;
    }
    let mut headers = String::new();
    while let Some(line) = next_line(&mut rest) {
        if line.is_empty() {
            break;
        }
        headers.push_str(&line);
        headers.push_str("\r\n");
    }
    o.headers = headers;
    let body = rest.trim_start_matches("\r\n");
    let token = body.split("\r\n").next().unwrap_or("");
    o.body = token.as_bytes().to_vec();
    // JMeter's bytes: headers are not counted, the body's are (the whole response's when empty).
    if !o.body.is_empty() {
        o.bytes = o.body.len() as u64;
    }
}

#[cfg(test)]
mod tests;
