//! The I/O of the socket samplers, each failure written as the Java exception JMeter's class
//! reports (`toString()`), and the byte formats they share: hex strings, Windows-1252, the
//! Raw Data Source's length-prefixed chunks.

use crate::record::ErrorKind;
use std::io;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpStream, UdpSocket};
use tokio_util::sync::CancellationToken;

/// A failure: the kind counted in summaries, the exception JMeter's result shows.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) kind: ErrorKind,
    pub(super) text: String,
}

/// Why a read or a connect did not complete.
#[derive(Debug)]
pub(super) enum Io {
    Timeout,
    Abandoned,
    Err(io::Error),
}

/// How a connect timeout is reported: `java.net.Socket` (TCP Sampler) or the plugins'
/// `SocketChannelWithTimeouts`.
#[derive(Clone, Copy)]
pub(super) struct TimedOut(bool);
pub(super) const TIMED_OUT_SOCKET: TimedOut = TimedOut(false);
pub(super) const TIMED_OUT_CHANNEL: TimedOut = TimedOut(true);

/// JMeter's `getPropertyAsInt`: a whole number, else 0.
pub(super) fn java_int(s: &str) -> i32 {
    s.parse().unwrap_or(0)
}

/// An I/O error as Java's socket classes throw it.
pub(super) fn java_io(e: &io::Error) -> Failure {
    let (kind, text) = match e.kind() {
        io::ErrorKind::ConnectionRefused => {
            (ErrorKind::Refused, "java.net.ConnectException: Connection refused".into())
        }
        io::ErrorKind::ConnectionReset => (ErrorKind::Reset, "java.net.SocketException: Connection reset".into()),
        io::ErrorKind::BrokenPipe => (ErrorKind::Reset, "java.net.SocketException: Broken pipe".into()),
        io::ErrorKind::TimedOut => (ErrorKind::Timeout, "java.net.SocketTimeoutException: Read timed out".into()),
        _ => (ErrorKind::Io, format!("java.io.IOException: {e}")),
    };
    Failure { kind, text }
}

/// A read failure of the plugins' channels.
pub(super) fn channel_io(e: &Io) -> Failure {
    match e {
        Io::Timeout => Failure {
            kind: ErrorKind::Timeout,
            text: "java.net.SocketTimeoutException: Timeout exceeded while reading from socket".into(),
        },
        Io::Abandoned => abandoned(),
        Io::Err(e) => java_io(e),
    }
}

/// A UDP failure: an ICMP "port unreachable" comes back as a refused read or write.
pub(super) fn udp_io(e: &io::Error) -> Failure {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => {
            Failure { kind: ErrorKind::Refused, text: "java.net.PortUnreachableException".into() }
        }
        _ => java_io(e),
    }
}

pub(super) fn closed_channel() -> Failure {
    Failure { kind: ErrorKind::Closed, text: "java.nio.channels.ClosedChannelException".into() }
}

fn abandoned() -> Failure {
    Failure { kind: ErrorKind::Aborted, text: "java.nio.channels.ClosedByInterruptException".into() }
}

pub(super) fn file_not_found(name: &str, e: &io::Error) -> Failure {
    let why = match e.kind() {
        io::ErrorKind::NotFound => "No such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => e.to_string(),
    };
    Failure { kind: ErrorKind::Io, text: format!("java.io.FileNotFoundException: {name} ({why})") }
}

/// Opens a TCP connection to the first address of `host` within `timeout_ms` (0: no limit).
/// An empty host is the loopback, as Java's `InetAddress.getByName("")`.
pub(super) async fn connect(
    host: &str,
    port: i32,
    timeout_ms: u64,
    abandon: &CancellationToken,
    style: TimedOut,
) -> Result<TcpStream, Failure> {
    let port = u16::try_from(port).map_err(|_| Failure {
        kind: ErrorKind::Io,
        text: format!("java.lang.IllegalArgumentException: port out of range:{port}"),
    })?;
    let host = if host.is_empty() { "localhost" } else { host };
    let unknown = || Failure { kind: ErrorKind::Dns, text: format!("java.net.UnknownHostException: {host}") };
    let addr = tokio::net::lookup_host((host, port)).await.map_err(|_| unknown())?.next().ok_or_else(unknown)?;
    tokio::select! {
        r = TcpStream::connect(addr) => r.map_err(|e| java_io(&e)),
        _ = limit(timeout_ms) => Err(Failure {
            kind: ErrorKind::ConnectTimeout,
            text: if style.0 {
                // InetSocketAddress.toString(): `host/ip:port`.
                format!("java.net.SocketTimeoutException: Failed to connect to {host}/{}:{port}", addr.ip())
            } else {
                "java.net.SocketTimeoutException: Connect timed out".into()
            },
        }),
        _ = abandon.cancelled() => Err(abandoned()),
    }
}

/// Ends after `ms` milliseconds; never when 0 (Java's "no timeout").
pub(super) async fn limit(ms: u64) {
    if ms == 0 {
        std::future::pending::<()>().await
    } else {
        tokio::time::sleep(Duration::from_millis(ms)).await
    }
}

/// One read, waiting at most `timeout_ms` for data (0: no limit): Java's SO_TIMEOUT.
pub(super) async fn read(
    stream: &mut TcpStream,
    buf: &mut [u8],
    timeout_ms: u64,
    abandon: &CancellationToken,
) -> Result<usize, Io> {
    tokio::select! {
        r = stream.read(buf) => r.map_err(Io::Err),
        _ = limit(timeout_ms) => Err(Io::Timeout),
        _ = abandon.cancelled() => Err(Io::Abandoned),
    }
}

/// The UDP Request's channel: bound to the bind address and port (empty: any address, 0: any
/// port), connected to the host and port.
pub(super) async fn udp_channel(bind: &str, bind_port: i32, host: &str, port: &str) -> Result<UdpSocket, Failure> {
    let port: u16 = match port.parse::<i32>() {
        Ok(p) => u16::try_from(p).map_err(|_| Failure {
            kind: ErrorKind::Io,
            text: format!("java.lang.IllegalArgumentException: port out of range:{p}"),
        })?,
        Err(_) => {
            return Err(Failure {
                kind: ErrorKind::Io,
                text: format!("java.lang.NumberFormatException: For input string: \"{port}\""),
            })
        }
    };
    let bind = if bind.is_empty() { "0.0.0.0" } else { bind };
    // The plugin logs a channel it cannot open and goes on without one.
    let none = |_| Failure { kind: ErrorKind::Io, text: "java.lang.NullPointerException".into() };
    let socket = UdpSocket::bind((bind, u16::try_from(bind_port).unwrap_or(0))).await.map_err(none)?;
    let host = if host.is_empty() { "localhost" } else { host };
    let Some(addr) = tokio::net::lookup_host((host, port)).await.ok().and_then(|mut a| a.next()) else {
        return Err(Failure { kind: ErrorKind::Dns, text: "java.nio.channels.UnresolvedAddressException".into() });
    };
    socket.connect(addr).await.map_err(|e| udp_io(&e))?;
    Ok(socket)
}

/// Java's `String.getBytes("Windows-1252")`: a character it cannot write is `?`.
pub(super) fn windows_1252(s: &str) -> Vec<u8> {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}', '‘',
        '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
    ];
    s.chars()
        .map(|c| match c as u32 {
            0..=0x7f | 0xa0..=0xff => c as u32 as u8,
            _ => HIGH.iter().position(|h| *h == c).map_or(b'?', |i| 0x80 + i as u8),
        })
        .collect()
}

pub(super) mod hex {
    use super::{ErrorKind, Failure};

    /// JOrphanUtils.baToHexString: two lowercase digits a byte.
    pub(in crate::engine::sampler::socket) fn encode(b: &[u8]) -> String {
        b.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// BinaryTCPClientImpl.hexStringToByteArray.
    pub(in crate::engine::sampler::socket) fn decode(s: &str) -> Result<Vec<u8>, Failure> {
        let chars: Vec<char> = s.chars().collect();
        let bad =
            |m: String| Failure { kind: ErrorKind::Protocol, text: format!("java.lang.IllegalArgumentException: {m}") };
        if chars.len() % 2 != 0 {
            return Err(bad("Hex-encoded binary string contains an uneven no. of digits".into()));
        }
        chars
            .chunks(2)
            .map(|p| match (p[0].to_digit(16), p[1].to_digit(16)) {
                (Some(a), Some(b)) => Ok((a << 4 | b) as u8),
                _ => Err(bad(format!("Hex-encoded binary string contains an invalid hex digit in '{}{}'", p[0], p[1]))),
            })
            .collect()
    }
}

/// What the Raw Data Source reads next.
#[derive(Debug, PartialEq)]
pub(super) enum Chunk {
    Data(Vec<u8>),
    /// The end of the file, or a chunk of length 0.
    End,
    /// A length that is not a number, or a chunk cut short: the plugin throws, and the thread
    /// that read it ends.
    Bad,
}

/// RawRequestSourcePreProcessor: a line (leading line ends skipped; `\r\n` is one end) whose
/// first word is the length, then that many bytes.
pub(super) fn next_chunk(data: &[u8], pos: &mut usize) -> Chunk {
    let mut meta = Vec::new();
    loop {
        let Some(&b) = data.get(*pos) else { return Chunk::End };
        *pos += 1;
        if b == b'\n' || b == b'\r' {
            let Some(&b2) = data.get(*pos) else { return Chunk::End };
            if b2 == b'\n' {
                *pos += 1;
            }
            if !meta.is_empty() {
                break;
            }
        } else {
            meta.push(b);
            if meta.len() > 1024 {
                return Chunk::Bad;
            }
        }
    }
    let line = String::from_utf8_lossy(&meta);
    let first = line.trim_matches(|c: char| c <= ' ').split(|c: char| c.is_ascii_whitespace()).next().unwrap_or("");
    let Ok(n) = first.parse::<i32>() else { return Chunk::Bad };
    if n == 0 {
        return Chunk::End;
    }
    let Ok(n) = usize::try_from(n) else { return Chunk::Bad };
    if data.len() - *pos < n {
        *pos = data.len();
        return Chunk::Bad;
    }
    let chunk = data[*pos..*pos + n].to_vec();
    *pos += n;
    Chunk::Data(chunk)
}
