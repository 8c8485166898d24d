//! HTTP/1.x wire details shared by the client and the mock server: finding where a chunked
//! body ends, and handing over its data when a caller keeps it. Hand-written because both sides
//! mostly need only the framing, and decoding in place avoids copying bodies nobody reads.
//! [`client`] is the small blocking client that `export` and `watch` send their requests with.

pub(crate) mod client;

/// The chunked framing is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadChunk;

/// Incremental parser of chunked transfer coding; it only finds where the body ends.
#[derive(Debug, Default)]
pub(crate) struct Chunked {
    state: ChunkState,
    size: u64,
    /// Hex digits seen in the current size line (an empty size is malformed, not a last chunk).
    digits: u32,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    #[default]
    Size,
    /// After the size digits: chunk extensions up to the line end.
    SizeLine,
    SizeLf,
    Data,
    DataCr,
    DataLf,
    /// Trailer section: at the start of a line.
    TrailerLineStart,
    TrailerLine,
    TrailerLf,
    EndLf,
    Done,
}

impl Chunked {
    /// True once the final chunk and the trailers have been seen.
    pub(crate) fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Feeds body bytes; returns how many belong to the body (fewer than given only when the
    /// body ends inside `data`: the rest belongs to whatever follows on the connection).
    pub(crate) fn feed(&mut self, data: &[u8]) -> Result<usize, BadChunk> {
        self.feed_with(data, |_| {})
    }

    /// As [`Chunked::feed`], also passing each piece of body data to `on_data`.
    pub(crate) fn feed_with(&mut self, mut data: &[u8], mut on_data: impl FnMut(&[u8])) -> Result<usize, BadChunk> {
        use ChunkState::*;
        let given = data.len();
        while !data.is_empty() && self.state != Done {
            let b = data[0];
            match self.state {
                Size => match (b as char).to_digit(16) {
                    Some(d) => {
                        self.size = self.size.checked_mul(16).and_then(|s| s.checked_add(d as u64)).ok_or(BadChunk)?;
                        self.digits += 1;
                    }
                    None if self.digits == 0 => return Err(BadChunk),
                    None if b == b'\r' => self.state = SizeLf,
                    None if b == b';' || b == b' ' || b == b'\t' => self.state = SizeLine,
                    None => return Err(BadChunk),
                },
                SizeLine => {
                    if b == b'\r' {
                        self.state = SizeLf;
                    }
                }
                SizeLf => {
                    if b != b'\n' {
                        return Err(BadChunk);
                    }
                    self.state = if self.size == 0 { TrailerLineStart } else { Data };
                }
                Data => {
                    let take = (data.len() as u64).min(self.size) as usize;
                    on_data(&data[..take]);
                    self.size -= take as u64;
                    data = &data[take..];
                    if self.size == 0 {
                        self.state = DataCr;
                    }
                    continue;
                }
                DataCr => {
                    if b != b'\r' {
                        return Err(BadChunk);
                    }
                    self.state = DataLf;
                }
                DataLf => {
                    if b != b'\n' {
                        return Err(BadChunk);
                    }
                    self.state = Size;
                    self.digits = 0;
                }
                TrailerLineStart => self.state = if b == b'\r' { EndLf } else { TrailerLine },
                TrailerLine => {
                    if b == b'\r' {
                        self.state = TrailerLf;
                    }
                }
                TrailerLf => {
                    if b != b'\n' {
                        return Err(BadChunk);
                    }
                    self.state = TrailerLineStart;
                }
                EndLf => {
                    if b != b'\n' {
                        return Err(BadChunk);
                    }
                    self.state = Done;
                }
                Done => {}
            }
            data = &data[1..];
        }
        Ok(given - data.len())
    }
}

/// The reason phrase of a status code (RFC 9110's), for the codes a test server answers with
/// and a results file shows; "Status" for the others.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_finds_the_end_in_any_split() {
        let body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n";
        for split in 0..body.len() {
            let mut d = Chunked::default();
            assert_eq!(d.feed(&body[..split]).unwrap(), split);
            assert!(!d.is_done(), "done too early at {split}");
            assert_eq!(d.feed(&body[split..]).unwrap(), body.len() - split);
            assert!(d.is_done(), "not done with split {split}");
        }
        let mut d = Chunked::default();
        assert_eq!(d.feed(b"0\r\n\r\nGET / HTTP/1.1").unwrap(), 5);
        assert!(d.is_done());
        assert!(Chunked::default().feed(b"zz\r\n").is_err());
        assert!(Chunked::default().feed(b"\r\n").is_err(), "an empty size is not the last chunk");
        assert!(Chunked::default().feed(b" 4\r\n").is_err());
    }

    #[test]
    fn chunked_hands_over_the_data_in_any_split() {
        let body = b"4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n";
        for split in 0..body.len() {
            let mut d = Chunked::default();
            let mut out = Vec::new();
            d.feed_with(&body[..split], |b| out.extend_from_slice(b)).unwrap();
            d.feed_with(&body[split..], |b| out.extend_from_slice(b)).unwrap();
            assert_eq!(out, b"Wikipedia in\r\n\r\nchunks.", "split {split}");
        }
    }
}
