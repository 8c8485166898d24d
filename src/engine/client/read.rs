//! Reading one response: a state machine fed each read as it lands in the worker thread's
//! scratch buffer, which finds the head, the body's framing and its end, counts bytes and times
//! the first byte, keeping only what a check or an extractor needs.

use super::*;

/// How the response body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
    UntilClose,
}

/// Where a response's head is copied, and its body if it is kept.
pub(super) struct Capture<'a> {
    pub(super) head: &'a mut Vec<u8>,
    pub(super) body: Option<&'a mut Vec<u8>>,
}

/// Copies body data when the body is kept (a free function, so that the head can be borrowed
/// meanwhile).
fn keep_body(body: &mut Option<&mut Vec<u8>>, data: &[u8]) {
    if let Some(b) = body {
        b.extend_from_slice(data);
    }
}

/// How far a response has been read.
enum ReadState {
    /// Reading the head. The bytes of a head that has not arrived whole wait in the capture's
    /// `head`; usually the head comes in one read and is parsed where it was read.
    Head,
    /// The head says there is no body.
    NoBody,
    /// `left` body bytes to come; `surplus`: the last read held bytes past the body's end.
    Length {
        left: u64,
        surplus: bool,
    },
    Chunked(Chunked),
    UntilClose,
}

/// What the head parsed so far is.
enum HeadParse {
    /// Not whole yet; what it has is from this offset on (interim responses before it skipped).
    Partial(usize),
    /// The final response's head is `[start..start + len]`.
    Complete { start: usize, len: usize },
}

/// Reads one response from the bytes each read hands it, without a buffer of its own: reads
/// land in the worker thread's scratch buffer ([`Stream::read_with`]), and only a head split
/// over several reads, the head as received and a body the request keeps are copied out. So
/// a user waiting for its response holds no read buffer, however many users there are.
struct ResponseReader<'w, 'a> {
    req: &'w Wire<'a>,
    reused: bool,
    /// A byte of the response has arrived.
    started: bool,
    /// Whether the head lets the connection carry another request.
    keep: bool,
    state: ReadState,
}

impl<'w, 'a> ResponseReader<'w, 'a> {
    fn new(req: &'w Wire<'a>, reused: bool) -> Self {
        ResponseReader { req, reused, started: false, keep: false, state: ReadState::Head }
    }

    /// Takes the bytes of one read (none: the end of the stream). Returns, once the response is
    /// complete, whether the connection can carry another request; `None` while more is to come.
    fn feed(&mut self, data: &[u8], ex: &mut Exchange, out: &mut Capture<'_>) -> Result<Option<bool>, ErrorKind> {
        if data.is_empty() {
            return match self.state {
                ReadState::Head => {
                    Err(if !self.started && self.reused { ErrorKind::ResetOnReuse } else { ErrorKind::Closed })
                }
                ReadState::UntilClose => Ok(Some(false)),
                _ => Err(ErrorKind::Closed),
            };
        }
        if !self.started {
            self.started = true;
            ex.first_byte = Some(Instant::now());
        }
        ex.bytes_received += data.len() as u64;
        if let ReadState::Head = self.state {
            return self.head(data, ex, out);
        }
        check_size(ex, self.req)?;
        self.body(data, &mut out.body)
    }

    /// A read that failed.
    fn failed(&self, e: &io::Error) -> Result<Option<bool>, ErrorKind> {
        match self.state {
            ReadState::Head => Err(io_kind(e, self.reused && !self.started, false)),
            // Many TLS servers end a close-delimited body without close_notify; the body is
            // complete all the same (as browsers and curl accept).
            ReadState::UntilClose if e.kind() == io::ErrorKind::UnexpectedEof => Ok(Some(false)),
            _ => Err(io_kind(e, false, false)),
        }
    }

    /// Head bytes: parsed where they were read, unless part of the head came in earlier reads.
    fn head(&mut self, data: &[u8], ex: &mut Exchange, out: &mut Capture<'_>) -> Result<Option<bool>, ErrorKind> {
        if out.head.is_empty() {
            match self.parse_head(data, ex)? {
                HeadParse::Partial(from) => {
                    out.head.extend_from_slice(&data[from..]);
                    Ok(None)
                }
                HeadParse::Complete { start, len } => {
                    out.head.extend_from_slice(&data[start..start + len]);
                    check_size(ex, self.req)?;
                    self.body(&data[start + len..], &mut out.body)
                }
            }
        } else {
            out.head.extend_from_slice(data);
            match self.parse_head(out.head, ex)? {
                HeadParse::Partial(from) => {
                    out.head.drain(..from);
                    Ok(None)
                }
                HeadParse::Complete { start, len } => {
                    check_size(ex, self.req)?;
                    let Capture { head, body } = out;
                    let done = self.body(&head[start + len..], body);
                    head.truncate(start + len);
                    head.drain(..start);
                    done
                }
            }
        }
    }

    /// Parses the head at the start of `bytes`, skipping interim 1xx responses (an interim
    /// response and the final one usually arrive in the same read).
    fn parse_head(&mut self, bytes: &[u8], ex: &mut Exchange) -> Result<HeadParse, ErrorKind> {
        let mut at = 0;
        loop {
            // A head is looked at up to MAX_HEAD_BYTES: one that is not whole by then is too large.
            let view = &bytes[at..bytes.len().min(at + MAX_HEAD_BYTES)];
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut many: Vec<httparse::Header<'_>>;
            let mut resp = httparse::Response::new(&mut headers);
            let mut parsed = resp.parse(view);
            if parsed == Err(httparse::Error::TooManyHeaders) {
                // A legal response may have any number of fields; only its size is bounded
                // (MAX_HEAD_BYTES). Rare, so the larger array is made only then, and only once
                // the head is whole (a head dripping in line by line is not parsed each time).
                if memchr::memmem::find(view, b"\r\n\r\n").is_some() || memchr::memmem::find(view, b"\n\n").is_some() {
                    let lines = memchr::memchr_iter(b'\n', view).count();
                    many = vec![httparse::EMPTY_HEADER; lines];
                    resp = httparse::Response::new(&mut many);
                    parsed = resp.parse(view);
                } else {
                    parsed = Ok(httparse::Status::Partial);
                }
            }
            match parsed {
                Ok(httparse::Status::Complete(len)) => {
                    let status = resp.code.unwrap_or(0);
                    // 1xx interim responses (100 Continue) precede the real one: skip them.
                    if (100..200).contains(&status) && status != 101 {
                        at += len;
                        continue;
                    }
                    ex.status = status;
                    // One pass over the headers for both: a pass per timing source, on every
                    // response, cost ~4% of a plain request's instructions (#31).
                    let (mut set_cookie, mut timed) = (false, false);
                    for h in resp.headers.iter() {
                        set_cookie |= h.name.eq_ignore_ascii_case("set-cookie");
                        timed |= self.req.timing.may_name(h.name);
                    }
                    ex.set_cookie = set_cookie;
                    ex.upstream_us = if timed {
                        self.req.timing.upstream_us(resp.headers.iter().map(|h| (h.name, h.value)))
                    } else {
                        None
                    };
                    let (framing, keep) = framing_of(&resp, self.req)?;
                    self.keep = keep;
                    self.state = match framing {
                        Framing::None => ReadState::NoBody,
                        Framing::Length(left) => ReadState::Length { left, surplus: false },
                        Framing::Chunked => ReadState::Chunked(Chunked::default()),
                        Framing::UntilClose => ReadState::UntilClose,
                    };
                    return Ok(HeadParse::Complete { start: at, len });
                }
                Ok(httparse::Status::Partial) if view.len() >= MAX_HEAD_BYTES => return Err(ErrorKind::TooLarge),
                Ok(httparse::Status::Partial) => return Ok(HeadParse::Partial(at)),
                Err(_) => return Err(ErrorKind::Protocol),
            }
        }
    }

    /// Body bytes (those read with the head, possibly none, then each read's): counted and let
    /// go, or kept. Bytes past the body's end mean the server framed its response wrongly; the
    /// connection is then not reused, so the next response is not read out of step.
    fn body(&mut self, data: &[u8], body: &mut Option<&mut Vec<u8>>) -> Result<Option<bool>, ErrorKind> {
        match &mut self.state {
            ReadState::Head => unreachable!("the head is read by ResponseReader::head"),
            ReadState::NoBody => Ok(Some(self.keep && data.is_empty())),
            ReadState::Length { left, surplus } => {
                let take = (data.len() as u64).min(*left);
                keep_body(body, &data[..take as usize]);
                *surplus = data.len() as u64 > *left;
                *left -= take;
                Ok((*left == 0).then_some(self.keep && !*surplus))
            }
            ReadState::Chunked(dec) => {
                let consumed = dec.feed_with(data, |d| keep_body(body, d)).map_err(|_| ErrorKind::Protocol)?;
                Ok(dec.is_done().then_some(self.keep && consumed == data.len()))
            }
            ReadState::UntilClose => {
                keep_body(body, data);
                Ok(None)
            }
        }
    }
}

/// Reads one response. Returns whether the connection can carry another request.
pub(super) async fn read_response(
    stream: &mut Stream,
    req: &Wire<'_>,
    reused: bool,
    ex: &mut Exchange,
    out: &mut Capture<'_>,
) -> Result<bool, ErrorKind> {
    let mut reader = ResponseReader::new(req, reused);
    let keep = loop {
        let step = match stream.read_with(|data| reader.feed(data, ex, out)).await {
            Ok(step) => step,
            Err(e) => reader.failed(&e),
        };
        if let Some(keep) = step? {
            break keep;
        }
    };
    ex.end = Some(Instant::now());
    Ok(keep)
}

fn check_size(ex: &Exchange, req: &Wire<'_>) -> Result<(), ErrorKind> {
    if ex.bytes_received > req.max_response_size {
        Err(ErrorKind::TooLarge)
    } else {
        Ok(())
    }
}

/// Reads body framing and connection persistence from the response head (RFC 9112 §6.3).
fn framing_of(resp: &httparse::Response<'_, '_>, req: &Wire<'_>) -> Result<(Framing, bool), ErrorKind> {
    let status = resp.code.unwrap_or(0);
    let http11 = resp.version == Some(1);
    let mut keep = http11;
    let mut length = None;
    let mut chunked = false;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("content-length") {
            let v = std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or(ErrorKind::Protocol)?;
            if length.is_some_and(|l| l != v) {
                return Err(ErrorKind::Protocol);
            }
            length = Some(v);
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = h
                .value
                .split(|b| *b == b',')
                .next_back()
                .is_some_and(|t| t.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|b| *b == b',') {
                let t = token.trim_ascii();
                if t.eq_ignore_ascii_case(b"close") {
                    keep = false;
                } else if t.eq_ignore_ascii_case(b"keep-alive") {
                    keep = true;
                }
            }
        }
    }
    let framing = if req.is_head || status == 204 || status == 304 || (100..200).contains(&status) {
        Framing::None
    } else if chunked {
        Framing::Chunked
    } else if let Some(l) = length {
        Framing::Length(l)
    } else {
        Framing::UntilClose
    };
    Ok((framing, keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a [`ResponseReader`] made of a response handed over in `reads` (then the end of the
    /// stream, if it asked for more).
    struct Read {
        result: Result<Option<bool>, ErrorKind>,
        ex: Exchange,
        head: Vec<u8>,
        body: Vec<u8>,
    }

    fn read(reads: &[&[u8]], reused: bool, max_response_size: u64) -> Read {
        let target = Target { tls: false, host: "127.0.0.1".into(), port: 80 };
        let abandon = tokio_util::sync::CancellationToken::new();
        let req = Wire {
            target: &target,
            keep_alive: true,
            is_head: false,
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(1),
            max_response_size,
            keep_body: true,
            abandon: &abandon,
            hosts: None,
            timing: &crate::plan::timing::TimingHeaders::default(),
            bandwidth: &super::Bandwidth::new(&Default::default(), crate::engine::session::Globals::new(0)),
        };
        let (mut ex, mut head, mut body) = (Exchange::default(), Vec::new(), Vec::new());
        let mut reader = ResponseReader::new(&req, reused);
        let mut out = Capture { head: &mut head, body: Some(&mut body) };
        let mut result = Ok(None);
        for data in reads.iter().copied().chain([&b""[..]]) {
            result = reader.feed(data, &mut ex, &mut out);
            if !matches!(result, Ok(None)) {
                break;
            }
        }
        Read { result, ex, head, body }
    }

    /// Every way of cutting `wire` in two reads, and byte by byte.
    fn splits(wire: &[u8]) -> Vec<Vec<&[u8]>> {
        let mut all: Vec<Vec<&[u8]>> = (0..=wire.len()).map(|i| vec![&wire[..i], &wire[i..]]).collect();
        all.push(wire.chunks(1).collect());
        all.into_iter().map(|r| r.into_iter().filter(|c| !c.is_empty()).collect()).collect()
    }

    #[test]
    fn cookies_and_the_upstream_time_are_read_in_the_one_pass_over_the_headers() {
        let wire = b"HTTP/1.1 200 OK\r\nServer-Timing: db;dur=3, app;dur=4.5\r\nset-cookie: a=b\r\n\
                     X-Kong-Upstream-Latency: 12\r\nContent-Length: 0\r\n\r\n";
        let r = read(&[wire], false, u64::MAX);
        // The first source with a value gives it, whatever the headers' order.
        assert_eq!((r.ex.set_cookie, r.ex.upstream_us), (true, Some(12_000)));
        let r = read(&[b"HTTP/1.1 200 OK\r\nServer-Timing: app;dur=4.5\r\nContent-Length: 0\r\n\r\n"], false, 9);
        assert_eq!((r.ex.set_cookie, r.ex.upstream_us), (false, Some(4_500)));
        let r = read(&[b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 0\r\n\r\n"], false, 9);
        assert_eq!((r.ex.set_cookie, r.ex.upstream_us), (false, None));
    }

    #[test]
    fn a_response_reads_the_same_however_it_is_cut() {
        let head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=b\r\n\r\n";
        let wire = [&b"HTTP/1.1 100 Continue\r\n\r\n"[..], head, b"5\r\nhello\r\n0\r\n\r\n"].concat();
        for reads in splits(&wire) {
            let r = read(&reads, false, u64::MAX);
            assert_eq!(r.result, Ok(Some(true)), "{reads:?}");
            assert_eq!((r.ex.status, r.ex.set_cookie), (200, true));
            // Only the final response's head is kept, and only the body's data.
            assert_eq!(r.head, head, "{reads:?}");
            assert_eq!(r.body, b"hello");
            assert_eq!(r.ex.bytes_received, wire.len() as u64);
            assert!(r.ex.first_byte.is_some());
        }
    }

    #[test]
    fn bytes_past_the_body_end_the_connection() {
        let exact = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
        let surplus = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOKX";
        let no_body = b"HTTP/1.1 204 No Content\r\n\r\nX";
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nX";
        for reads in splits(exact) {
            assert_eq!(read(&reads, false, u64::MAX).result, Ok(Some(true)), "{reads:?}");
        }
        for wire in [&surplus[..], no_body, chunked] {
            // Read at once: the surplus comes with the end of the response.
            let r = read(&[wire], false, u64::MAX);
            assert_eq!(r.result, Ok(Some(false)), "{}", String::from_utf8_lossy(wire));
        }
        assert_eq!(read(&[&surplus[..]], false, u64::MAX).body, b"OK");
    }

    #[test]
    fn a_close_delimited_body_ends_with_the_stream() {
        let wire = b"HTTP/1.1 200 OK\r\n\r\nsome body";
        for reads in splits(wire) {
            let r = read(&reads, false, u64::MAX);
            assert_eq!(r.result, Ok(Some(false)), "{reads:?}");
            assert_eq!(r.body, b"some body");
        }
    }

    #[test]
    fn an_early_end_of_stream_is_classified() {
        assert_eq!(read(&[], true, u64::MAX).result, Err(ErrorKind::ResetOnReuse));
        assert_eq!(read(&[], false, u64::MAX).result, Err(ErrorKind::Closed));
        // Once a byte came, a reused connection's end is no keep-alive race.
        assert_eq!(read(&[b"HTTP/1.1 2"], true, u64::MAX).result, Err(ErrorKind::Closed));
        let cut_body = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nOK";
        assert_eq!(read(&[cut_body], false, u64::MAX).result, Err(ErrorKind::Closed));
        assert_eq!(read(&[b"HTTP/1.1 200 OK\r\nfoo\r\n\r\n"], false, u64::MAX).result, Err(ErrorKind::Protocol));
    }

    #[test]
    fn heads_and_bodies_over_their_limits_are_too_large() {
        let mut big = b"HTTP/1.1 200 OK\r\n".to_vec();
        while big.len() < MAX_HEAD_BYTES {
            big.extend_from_slice(b"X-Filler: 0123456789012345678901234567890123456789\r\n");
        }
        let r = read(&big.chunks(4096).collect::<Vec<_>>(), false, u64::MAX);
        assert_eq!(r.result, Err(ErrorKind::TooLarge));
        // Many fields, but under the size limit: read.
        let mut many = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n".to_vec();
        for _ in 0..(MAX_HEADERS * 2) {
            many.extend_from_slice(b"X-F: 1\r\n");
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(read(&many.chunks(100).collect::<Vec<_>>(), false, u64::MAX).result, Ok(Some(true)));
        let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
        assert_eq!(read(&[&wire[..]], false, wire.len() as u64).result, Ok(Some(true)));
        assert_eq!(read(&[&wire[..]], false, wire.len() as u64 - 1).result, Err(ErrorKind::TooLarge));
    }
}
