//! HTTP/1.x wire details shared by the client and the mock server: finding where a chunked
//! body ends. Hand-written because both sides only need the framing, not the bytes.

/// The chunked framing is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadChunk;

/// Incremental parser of chunked transfer coding; it only finds where the body ends.
#[derive(Debug, Default)]
pub struct Chunked {
    state: ChunkState,
    size: u64,
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
    /// Feeds body bytes; returns true once the final chunk and trailers have been seen.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<bool, BadChunk> {
        use ChunkState::*;
        while !data.is_empty() && self.state != Done {
            let b = data[0];
            match self.state {
                Size => match (b as char).to_digit(16) {
                    Some(d) => {
                        self.size = self.size.checked_mul(16).and_then(|s| s.checked_add(d as u64)).ok_or(BadChunk)?;
                    }
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
        Ok(self.state == Done)
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
            let a = d.feed(&body[..split]).unwrap();
            assert!(!a, "done too early at {split}");
            assert!(d.feed(&body[split..]).unwrap(), "not done with split {split}");
        }
        let mut d = Chunked::default();
        assert!(d.feed(b"0\r\n\r\n").unwrap());
        assert!(Chunked::default().feed(b"zz\r\n").is_err());
    }
}
