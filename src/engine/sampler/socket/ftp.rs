//! JMeter's FTP Request (`FTPSampler.sample`) as it drives commons-net's `FTPClient`: connect and
//! read the greeting (the latency ends there), USER/PASS, `TYPE I` in binary mode only, a
//! passive data connection (PASV, or EPSV over IPv6) opened before RETR or STOR, the transfer,
//! then QUIT. The result is JMeter's: `200 OK`, or the last reply's code and text (each line
//! ending in CRLF, as `getReplyString`), or `000` and the Java exception.
//!
//! Written here rather than taken from an FTP crate: JMeter's result is made of commons-net's
//! internals (the raw text of whichever reply came last, e.g. the `125`/`150` of a download of
//! 0 bytes, whose `226` JMeter never reads; commons-net's exception texts; its NETASCII
//! conversions), which a client crate keeps behind its own errors, and each read here must end
//! with the run's stop as the other socket samplers' do.

use super::wire::{self, Failure, Io};
use super::{plan_file, Outcome};
use crate::engine::user::VirtualUser;
use crate::plan::sampler::socket::Ftp;
use crate::record::ErrorKind;
use std::net::{IpAddr, SocketAddr};
use std::time::Instant;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

/// commons-net's `FTP.DEFAULT_PORT`, for a port that is empty or not positive.
const DEFAULT_PORT: i32 = 21;

/// One sample's fields, rendered.
struct Request {
    server: String,
    port: i32,
    remote: String,
    local: String,
    input: String,
    user: String,
    password: String,
}

/// The longest reply line read (commons-net has no limit): a server that never sends its CRLF
/// fails the sample instead of growing memory without bound.
const MAX_LINE: usize = 64 * 1024;

/// The most text one reply may have, its line ends counted: an endless multi-line reply
/// fails the sample too.
const MAX_REPLY: usize = 1024 * 1024;

/// The control connection, and the last reply read on it.
struct Control {
    stream: TcpStream,
    pending: Vec<u8>,
    /// How much of `pending` was searched for a CRLF without finding one.
    scanned: usize,
    abandon: CancellationToken,
    code: u16,
    /// The last reply's lines, each ending in CRLF (`getReplyString`).
    text: String,
}

fn closed() -> Failure {
    Failure {
        kind: ErrorKind::Closed,
        text: "org.apache.commons.net.ftp.FTPConnectionClosedException: Connection closed without indication.".into(),
    }
}

fn malformed(what: String) -> Failure {
    Failure { kind: ErrorKind::Protocol, text: format!("org.apache.commons.net.MalformedServerReplyException: {what}") }
}

/// A reply past stampede's limits ([`MAX_LINE`], [`MAX_REPLY`]): a protocol error, which
/// commons-net (reading without a limit) has no text for.
fn too_long(what: String) -> Failure {
    Failure { kind: ErrorKind::Protocol, text: format!("FTP server reply too long: {what} (stampede's limit)") }
}

fn io_failure(e: Io) -> Failure {
    match e {
        // commons-net's control and data sockets have no read timeout in JMeter's use.
        Io::Timeout => {
            Failure { kind: ErrorKind::Timeout, text: "java.net.SocketTimeoutException: Read timed out".into() }
        }
        Io::Abandoned => Failure { kind: ErrorKind::Aborted, text: "java.net.SocketException: Socket closed".into() },
        Io::Err(e) => wire::java_io(&e),
    }
}

/// Text as commons-net's control encoding (ISO-8859-1) writes it.
fn latin1(s: &str) -> Vec<u8> {
    s.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
}

impl Control {
    /// The next line, without its CRLF (commons-net's `CRLFLineReader`); `None` at the end of
    /// the stream with nothing read.
    async fn line(&mut self) -> Result<Option<String>, Failure> {
        let mut buf = [0u8; 1024];
        loop {
            // Only the bytes read since the last search (and a CR that ended them) are searched.
            let from = self.scanned.saturating_sub(1);
            if let Some(i) = self.pending[from..].windows(2).position(|w| w == b"\r\n") {
                let i = from + i;
                let line: String = self.pending[..i].iter().map(|b| char::from(*b)).collect();
                self.pending.drain(..i + 2);
                self.scanned = 0;
                return Ok(Some(line));
            }
            self.scanned = self.pending.len();
            if self.pending.len() > MAX_LINE {
                return Err(too_long(format!("a line of more than {MAX_LINE} bytes without CRLF")));
            }
            match wire::read(&mut self.stream, &mut buf, 0, &self.abandon).await {
                Ok(0) if self.pending.is_empty() => return Ok(None),
                Ok(0) => {
                    let line = self.pending.drain(..).map(char::from).collect();
                    self.scanned = 0;
                    return Ok(Some(line));
                }
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) => return Err(io_failure(e)),
            }
        }
    }

    /// Reads one reply (`FTP.getReply`): a multi-line reply (`123-`) runs to a line that starts
    /// with a digit and has no `-` after its code. A 421 closes the connection.
    async fn reply(&mut self) -> Result<u16, Failure> {
        let first = self.line().await?.ok_or_else(closed)?;
        if first.len() < 3 {
            return Err(malformed(format!("Truncated server reply: {first}")));
        }
        let code = first
            .get(..3)
            .filter(|c| c.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|c| c.parse::<u16>().ok())
            .ok_or_else(|| malformed(format!("Could not parse response code.\nServer Reply: {first}")))?;
        let multi = first.as_bytes().get(3) == Some(&b'-');
        let mut text = format!("{first}\r\n");
        if multi {
            loop {
                let line = self.line().await?.ok_or_else(closed)?;
                if text.len() + line.len() + 2 > MAX_REPLY {
                    return Err(too_long(format!("a multi-line reply of more than {MAX_REPLY} bytes")));
                }
                text.push_str(&line);
                text.push_str("\r\n");
                let b = line.as_bytes();
                if b.len() > 3 && b[3] != b'-' && b[0].is_ascii_digit() {
                    break;
                }
            }
        }
        self.code = code;
        self.text = text;
        if code == 421 {
            return Err(Failure {
                kind: ErrorKind::Closed,
                text: "org.apache.commons.net.ftp.FTPConnectionClosedException: FTP response 421 received.  Server \
                       closed connection."
                    .into(),
            });
        }
        Ok(code)
    }

    /// Sends a command (`COMMAND arg`, the space there even for an empty argument) and reads
    /// its reply.
    async fn command(&mut self, command: &str, arg: Option<&str>) -> Result<u16, Failure> {
        let line = match arg {
            Some(a) => format!("{command} {a}\r\n"),
            None => format!("{command}\r\n"),
        };
        let bytes = latin1(&line);
        tokio::select! {
            r = self.stream.write_all(&bytes) => r.map_err(|e| wire::java_io(&e))?,
            _ = self.abandon.cancelled() => return Err(io_failure(Io::Abandoned)),
        }
        self.reply().await
    }

    /// `FTPClient.login`: USER, then PASS unless USER was enough.
    async fn login(&mut self, user: &str, password: &str) -> Result<bool, Failure> {
        let code = self.command("USER", Some(user)).await?;
        if (200..300).contains(&code) {
            return Ok(true);
        }
        if !(300..400).contains(&code) {
            return Ok(false);
        }
        Ok((200..300).contains(&self.command("PASS", Some(password)).await?))
    }

    /// `_openDataConnection_` in local passive mode: the data connection is made, then the
    /// command sent; `None` when a reply says no (the caller reports that reply).
    async fn open_data(&mut self, peer: SocketAddr, command: &str, arg: &str) -> Result<Option<TcpStream>, Failure> {
        let (host, port) = if peer.is_ipv6() {
            if self.command("EPSV", None).await? != 229 {
                return Ok(None);
            }
            let port = epsv_port(&self.text).ok_or_else(|| {
                malformed(format!(
                    "Could not parse extended passive host information.\nServer Reply: {}",
                    self.text.trim_end()
                ))
            })?;
            (peer.ip(), port)
        } else {
            if self.command("PASV", None).await? != 227 {
                return Ok(None);
            }
            let (ip, port) = pasv_address(&self.text).ok_or_else(|| {
                malformed(format!("Could not parse passive host information.\nServer Reply: {}", self.text.trim_end()))
            })?;
            (nat_workaround(ip, peer.ip()), port)
        };
        let data = wire::connect(&host.to_string(), i32::from(port), 0, &self.abandon, wire::TIMED_OUT_SOCKET).await?;
        let code = self.command(command, Some(arg)).await?;
        Ok((100..200).contains(&code).then_some(data))
    }
}

/// commons-net's `__PARMS_PAT`: `h1,h2,h3,h4,p1,p2`, numbers of 1-3 ASCII digits.
static PASV_PARMS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3}),([0-9]{1,3})")
        .expect("a valid pattern")
});

/// The address of a `227` reply: the pattern's first match in its first line, as
/// `_parsePassiveModeReply` finds it. `None` where commons-net or the socket it opens throws
/// (the sample then fails as with a malformed reply): an address byte over 255 (not an
/// address, so looked up as a host name that does not resolve), or `(p1 << 8) | p2` past
/// 65535 (`IllegalArgumentException: port out of range`).
fn pasv_address(reply: &str) -> Option<(IpAddr, u16)> {
    let line = reply.lines().next()?;
    let m = PASV_PARMS.captures(line)?;
    let n = |i: usize| m.get(i).and_then(|g| g.as_str().parse::<u32>().ok());
    let octet = |i: usize| n(i).and_then(|v| u8::try_from(v).ok());
    let ip = std::net::Ipv4Addr::new(octet(1)?, octet(2)?, octet(3)?, octet(4)?);
    let port = u16::try_from((n(5)? << 8) | n(6)?).ok()?;
    Some((IpAddr::V4(ip), port))
}

/// The port of a `229` reply as `_parseExtendedPassiveModeReply` reads its first line: the
/// text from after the first `(` (from the start without one) to the first `)`, trimmed, is
/// three equal delimiters, the port and the delimiter again. `None` for anything else (where
/// commons-net throws, the sample fails as with a malformed reply): a `)` before the `(` or
/// none, fewer than four characters, delimiters that differ, a port that is not a number.
fn epsv_port(reply: &str) -> Option<u16> {
    let line = reply.lines().next()?;
    let open = line.find('(').map_or(0, |i| i + 1);
    // `String.trim`: every character up to the space.
    let inner = line.get(open..line.find(')')?)?.trim_matches(|c: char| c <= ' ');
    let chars: Vec<char> = inner.chars().collect();
    let [d1, d2, d3, .., d4] = chars.as_slice() else { return None };
    if !(d1 == d2 && d2 == d3 && d3 == d4) {
        return None;
    }
    chars[3..chars.len() - 1].iter().collect::<String>().parse().ok()
}

/// commons-net's `NatServerResolverImpl`: a private address in the reply from a server that is
/// not on a private address was rewritten by a NAT box; the server's own address is used.
fn nat_workaround(reply: IpAddr, server: IpAddr) -> IpAddr {
    let private = |ip: IpAddr| matches!(ip, IpAddr::V4(v4) if v4.is_private());
    if private(reply) && !private(server) {
        server
    } else {
        reply
    }
}

/// commons-net's `FromNetASCIIInputStream` on Linux: CRLF becomes LF. `cr` carries a CR that
/// ended the previous piece.
fn from_net_ascii(piece: &[u8], cr: &mut bool, out: &mut Vec<u8>) {
    for &b in piece {
        if *cr && b != b'\n' {
            out.push(b'\r');
        }
        *cr = b == b'\r';
        if !*cr {
            out.push(b);
        }
    }
}

/// commons-net's `ToNetASCIIOutputStream`: an LF not after a CR becomes CRLF.
fn to_net_ascii(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 16);
    let mut cr = false;
    for &b in data {
        if b == b'\n' && !cr {
            out.push(b'\r');
        }
        out.push(b);
        cr = b == b'\r';
    }
    out
}

/// `FTPSampler.getLabel`: the sampler data, and (trimmed, as `java.net.URL` keeps it) the URL.
fn label(server: &str, port: &str, remote: &str, binary: bool, upload: bool, local: &str) -> String {
    let port = if port.is_empty() { String::new() } else { format!(":{port}") };
    let mode = if binary { " (Binary) " } else { " (Ascii) " };
    let way = if upload { " <- " } else { " -> " };
    format!("ftp://{server}{port}/{remote}{mode}{way}{local}")
}

impl VirtualUser {
    /// JMeter's FTPSampler.sample.
    pub(super) async fn ftp(&mut self, f: &Ftp) -> Outcome {
        let mut o = Outcome::new();
        o.ok = false;
        o.data_type = "";
        let port = f.port.render_string(&mut self.session.vars);
        let r = Request {
            server: f.server.render_string(&mut self.session.vars),
            port: wire::java_int(port.trim()),
            remote: f.remote.render_string(&mut self.session.vars),
            local: f.local.render_string(&mut self.session.vars),
            input: f.input.render_string(&mut self.session.vars),
            user: f.user.render_string(&mut self.session.vars),
            password: f.password.render_string(&mut self.session.vars),
        };
        let label = label(&r.server, &port, &r.remote, f.binary, f.upload, &r.local);
        o.url = Some(label.trim().to_string());
        // `FTPSampler.sample` sets the sampler data to its label before it connects.
        o.sampler_data = label;
        let mut control = None;
        if let Err(e) = self.ftp_session(f, &r, &mut control, &mut o).await {
            o.ok = false;
            o.code = "000".into();
            o.message = e.text;
            o.kind = Some(e.kind);
        }
        // The `finally` of FTPSampler: QUIT (its reply may be the 226 of a download that
        // JMeter never read), then the socket closed; failures there change nothing.
        if let Some(mut c) = control {
            let _ = c.command("QUIT", None).await;
        }
        o.end = Some(Instant::now());
        if !o.ok && o.kind.is_none() {
            o.kind = Some(ErrorKind::Protocol);
        }
        o
    }

    /// Connect, log in, transfer; `Err` is what JMeter catches as an `IOException` (code 000).
    async fn ftp_session(
        &mut self,
        f: &Ftp,
        r: &Request,
        control: &mut Option<Control>,
        o: &mut Outcome,
    ) -> Result<(), Failure> {
        let abandon = self.abandon.clone();
        let port = if r.port > 0 { r.port } else { DEFAULT_PORT };
        let stream = wire::connect(&r.server, port, 0, &abandon, wire::TIMED_OUT_SOCKET).await?;
        o.new_connection = true;
        let peer = stream.peer_addr().map_err(|e| wire::java_io(&e))?;
        let c =
            control.insert(Control { stream, pending: Vec::new(), scanned: 0, abandon, code: 0, text: String::new() });
        // `_connectAction_`: a 1xx greeting ("ready in nnn minutes") is followed by another.
        if (100..200).contains(&c.reply().await?) {
            c.reply().await?;
        }
        o.latency = Some(Instant::now());
        if !(200..300).contains(&c.code) {
            o.code = "501".into();
            o.message = if c.text.is_empty() { "Could not connect".into() } else { c.text.clone() };
            return Ok(());
        }
        let ok = if !c.login(&r.user, &r.password).await? {
            false
        } else {
            if f.binary {
                c.command("TYPE", Some("I")).await?;
            }
            if f.upload {
                store(c, f, r, peer, o).await?
            } else {
                retrieve(c, f, r, peer, o).await?
            }
        };
        if ok {
            o.ok = true;
            o.code = "200".into();
            o.message = "OK".into();
        } else {
            o.code = c.code.to_string();
            o.message = c.text.clone();
        }
        Ok(())
    }
}

/// The upload: the input data as UTF-8 (Java's default charset), else the local file.
async fn store(c: &mut Control, f: &Ftp, r: &Request, peer: SocketAddr, o: &mut Outcome) -> Result<bool, Failure> {
    let bytes = if r.input.is_empty() {
        plan_file(&f.base_dir, &r.local, f.local.is_const()).map_err(|e| wire::file_not_found(&r.local, &e))?
    } else {
        r.input.as_bytes().to_vec()
    };
    o.sent = bytes.len() as u64;
    let Some(mut data) = c.open_data(peer, "STOR", &r.remote).await? else { return Ok(false) };
    let payload = if f.binary { bytes } else { to_net_ascii(&bytes) };
    tokio::select! {
        w = data.write_all(&payload) => w.map_err(|e| wire::java_io(&e))?,
        _ = c.abandon.cancelled() => return Err(io_failure(Io::Abandoned)),
    }
    let _ = data.shutdown().await;
    drop(data);
    // `completePendingCommand`.
    Ok((200..300).contains(&c.reply().await?))
}

/// The download: counted, kept as the response data with "save response", written to the
/// local file when one is named; a success only when a byte came.
async fn retrieve(c: &mut Control, f: &Ftp, r: &Request, peer: SocketAddr, o: &mut Outcome) -> Result<bool, Failure> {
    // JMeter opens the local file before it asks for the remote one.
    let mut local = if r.local.is_empty() {
        None
    } else {
        let file = local_file(&f.base_dir, &r.local, f.local.is_const());
        Some(tokio::fs::File::from_std(file.map_err(|e| wire::file_not_found(&r.local, &e))?))
    };
    let Some(mut data) = c.open_data(peer, "RETR", &r.remote).await? else { return Ok(false) };
    let mut buf = vec![0u8; 16 * 1024];
    let mut piece = Vec::new();
    let mut saved = Vec::new();
    let mut count = 0u64;
    let mut cr = false;
    loop {
        let n = wire::read(&mut data, &mut buf, 0, &c.abandon).await.map_err(io_failure)?;
        piece.clear();
        if n == 0 {
            if cr {
                piece.push(b'\r');
            }
        } else if f.binary {
            piece.extend_from_slice(&buf[..n]);
        } else {
            from_net_ascii(&buf[..n], &mut cr, &mut piece);
        }
        count += piece.len() as u64;
        if f.save {
            saved.extend_from_slice(&piece);
        }
        if let Some(file) = local.as_mut() {
            file.write_all(&piece).await.map_err(|e| wire::java_io(&e))?;
        }
        if n == 0 {
            break;
        }
    }
    if let Some(file) = local.as_mut() {
        file.flush().await.map_err(|e| wire::java_io(&e))?;
    }
    if f.save {
        o.bytes = saved.len() as u64;
        o.body = saved;
        if !f.binary {
            o.data_type = "text";
        }
    } else {
        o.bytes = count;
    }
    Ok(count > 0)
}

/// The local file a download is written to: created or emptied, under the plan's directory
/// as [`plan_file`] reads one.
fn local_file(dir: &crate::confine::PlanDir, name: &str, written_in_plan: bool) -> std::io::Result<std::fs::File> {
    let name = std::path::Path::new(name);
    let path = if written_in_plan { dir.named(name) } else { dir.confine(name) }.map_err(std::io::Error::other)?;
    crate::confine::open(&path, crate::confine::Access::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netascii_both_ways_as_commons_net() {
        let mut out = Vec::new();
        let mut cr = false;
        from_net_ascii(b"a\r", &mut cr, &mut out);
        from_net_ascii(b"\nb\rc\r\n", &mut cr, &mut out);
        assert_eq!(out, b"a\nb\rc\n");
        assert_eq!(to_net_ascii(b"a\nb\r\nc\r"), b"a\r\nb\r\nc\r");
    }

    #[test]
    fn passive_replies_parsed_as_commons_net() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(pasv_address("227 Entering passive mode (127,0,0,1,200,10).\r\n"), Some((ip("127.0.0.1"), 51210)));
        assert_eq!(pasv_address("227 =10,1,2,3,0,21\r\n"), Some((ip("10.1.2.3"), 21)));
        assert_eq!(pasv_address("227 no address\r\n"), None);
        assert_eq!(epsv_port("229 Entering extended passive mode (|||40001|).\r\n"), Some(40001));
        assert_eq!(epsv_port("229 Entering extended passive mode (!!!40001!).\r\n"), Some(40001));
        assert_eq!(nat_workaround(ip("10.0.0.5"), ip("203.0.113.9")), ip("203.0.113.9"));
        assert_eq!(nat_workaround(ip("10.0.0.5"), ip("10.0.0.1")), ip("10.0.0.5"));
        assert_eq!(nat_workaround(ip("127.0.0.1"), ip("127.0.0.1")), ip("127.0.0.1"));
    }

    /// Malformed `227` and `229` replies give no address (the caller fails the sample with
    /// commons-net's `MalformedServerReplyException`), never a panic: a `)` before the `(`,
    /// missing or out-of-range numbers, text that is not ASCII.
    #[test]
    fn malformed_passive_replies_fail_the_sample_without_a_panic() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        for reply in [
            "229 x)(",
            "229 )(|||21|)",
            "229 x) (|||21|)",
            "229 (|||21|",
            "229 |||21|)",
            "229 ()",
            "229 (|||)",
            "229 (|||x|)",
            "229 (|||-1|)",
            "229 (|||65536|)",
            "229 (||!21|)",
            "229 (|||21!)",
            "229 \u{e9})(\u{fc}",
            "229 (\u{e9}\u{e9})",
            "",
        ] {
            assert_eq!(epsv_port(reply), None, "{reply:?}");
        }
        assert_eq!(epsv_port("229 ( |||21| ) (|||22|)"), Some(21));
        assert_eq!(epsv_port("229 (\u{e9}\u{e9}\u{e9}+21\u{e9})"), Some(21));
        for reply in [
            "227 (1,2,3,4,5)",
            "227 (1,2,3,4,,5)",
            "227 (256,0,0,1,0,21)",
            "227 (1,2,3,4,256,0)",
            "227 (1,2,3,4,999,999)",
            "227 (,,,,,)",
            "227 \u{e9}\u{b2},\u{b3},1,2,3,4)(",
            "",
        ] {
            assert_eq!(pasv_address(reply), None, "{reply:?}");
        }
        // Java's `(p1 << 8) | p2`, and the pattern's first match, which may start inside a number.
        assert_eq!(pasv_address("227 (1,2,3,4,255,999)"), Some((ip("1.2.3.4"), 65511)));
        assert_eq!(pasv_address("227 \u{e9}1234,1,2,3,0,21"), Some((ip("234.1.2.3"), 21)));
    }

    /// A fake server that sends `first`, then `endless` over and over (far past the limits,
    /// then it waits for the client to close); the reply read from it.
    async fn reply_from(first: &'static [u8], endless: &'static [u8]) -> (Result<u16, Failure>, usize) {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let chunk = endless.repeat(8192 / endless.len());
            let _ = s.write_all(first).await;
            for _ in 0..4 * MAX_REPLY / chunk.len() {
                if s.write_all(&chunk).await.is_err() {
                    return;
                }
            }
            let _ = s.read(&mut [0u8; 1]).await;
        });
        let stream = TcpStream::connect(addr).await.unwrap();
        let abandon = CancellationToken::new();
        let mut c = Control { stream, pending: Vec::new(), scanned: 0, abandon, code: 0, text: String::new() };
        let limit = std::time::Duration::from_secs(20);
        let r = tokio::time::timeout(limit, c.reply()).await.expect("the reply ends in bounded time");
        let held = c.pending.len();
        drop(c);
        server.await.unwrap();
        (r, held)
    }

    /// A server that never sends a CRLF, or never ends a multi-line reply, fails the sample
    /// as a protocol error once stampede's limit is read, holding no more than the limit.
    #[tokio::test]
    async fn an_endless_reply_fails_the_sample_as_a_protocol_error() {
        let (r, held) = reply_from(b"", b"x").await;
        let e = r.unwrap_err();
        assert_eq!(e.kind, ErrorKind::Protocol);
        assert!(e.text.contains(&format!("a line of more than {MAX_LINE} bytes")), "{}", e.text);
        assert!(held <= MAX_LINE + 1024, "{held}");
        let (r, _) = reply_from(b"123-start\r\n", b"123-more\r\n").await;
        let e = r.unwrap_err();
        assert_eq!(e.kind, ErrorKind::Protocol);
        assert!(e.text.contains(&format!("a multi-line reply of more than {MAX_REPLY} bytes")), "{}", e.text);
    }

    #[test]
    fn label_is_jmeter_s() {
        assert_eq!(label("h", "", "a.txt", false, false, ""), "ftp://h/a.txt (Ascii)  -> ");
        assert_eq!(label("h", "2121", "/x", true, true, "in.bin"), "ftp://h:2121//x (Binary)  <- in.bin");
    }
}
