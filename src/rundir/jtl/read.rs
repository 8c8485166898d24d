//! Reading a results file as fast as the disk gives it: a reader thread cuts the file into
//! blocks that hold whole records, parser threads turn blocks into [`Row`]s on every core, and
//! the caller gets the blocks back in file order, so what it builds from them is the same as a
//! sequential read. Memory holds a few blocks, however large the file.
//!
//! Hand-written rather than the csv crate's reader: building a record per row, with its UTF-8
//! checks, on one thread made an import several times slower than reading the file. A plain line
//! is cut at its commas where it lies; only a record with a quote (which may hold commas and line
//! breaks) goes through the csv crate.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Read;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

/// Bytes per block.
pub(crate) const BLOCK: usize = 4 << 20;
/// The longest record read: far beyond any row JMeter writes.
const MAX_RECORD: usize = 64 << 20;

/// Why a record of a results file cannot be read (the caller adds the file and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RecordError {
    #[error("the header has no `{0}` column")]
    MissingColumn(&'static str),
    #[error("{what} `{text}` is too large for a JMeter results file")]
    TooLarge { what: &'static str, text: String },
    #[error("{what} `{text}` is not a whole number")]
    NotANumber { what: &'static str, text: String },
    #[error("timeStamp `{0}` is not milliseconds since 1970")]
    NotEpochMillis(String),
    #[error("a quoted field is not closed")]
    UnclosedQuote,
    #[error("not a JMeter CSV results file: {0}")]
    NotCsv(String),
    #[error("a header line with other columns than the file's: rows after it cannot be read with the file's columns")]
    OtherHeader,
    #[error("a parser thread stopped before the end of the file")]
    ParserStopped,
    /// Reading the file failed.
    #[error("{0}")]
    Io(String),
}

/// Where a results file keeps each value: column indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Columns {
    pub timestamp: usize,
    pub elapsed: usize,
    pub label: usize,
    pub code: Option<usize>,
    pub message: Option<usize>,
    pub success: usize,
    pub failure: Option<usize>,
    pub bytes: Option<usize>,
    pub sent: Option<usize>,
    pub latency: Option<usize>,
    pub connect: Option<usize>,
    pub all_threads: Option<usize>,
}

impl Columns {
    pub(crate) fn from_names(names: &[&str]) -> Result<Columns, RecordError> {
        let find = |n: &str| names.iter().position(|c| c.trim() == n);
        let need = |n: &'static str| find(n).ok_or(RecordError::MissingColumn(n));
        Ok(Columns {
            timestamp: need("timeStamp")?,
            elapsed: need("elapsed")?,
            label: need("label")?,
            code: find("responseCode"),
            message: find("responseMessage"),
            success: need("success")?,
            failure: find("failureMessage"),
            bytes: find("bytes"),
            sent: find("sentBytes"),
            latency: find("Latency"),
            connect: find("Connect"),
            all_threads: find("allThreads"),
        })
    }
}

/// One sample of the file, its numbers read.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The line it starts on, counted from the start of its block (1-based).
    // Read only by the tests that pin the reader's line counting.
    #[cfg_attr(not(test), allow(dead_code))]
    pub line: u64,
    pub timestamp_ms: u64,
    pub elapsed_ms: u64,
    /// The label, by [`Reader::label_name`].
    pub label: u32,
    pub bytes: u64,
    pub sent: u64,
    pub latency_ms: u64,
    pub connect_ms: u64,
    pub threads: u64,
    /// `None` for a successful sample.
    pub failure: Option<Box<Failure>>,
    /// False for a Transaction Controller's sample, which sums others in the file.
    pub in_total: bool,
}

/// What a failed sample's row says about why.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub code: String,
    pub failure_message: String,
    pub response_message: String,
}

/// A block's rows, in order; `error` (line in the block, message) stops the import there.
pub(crate) struct Block {
    pub rows: Vec<Row>,
    pub error: Option<(u64, RecordError)>,
    /// Lines in the block, to number the next block's lines.
    pub lines: u64,
    buf: Vec<u8>,
}

struct Work {
    seq: u64,
    data: Result<Vec<u8>, RecordError>,
    rows: Vec<Row>,
}

/// A block's memory, handed back for the next read: its bytes and its rows' vector.
type Spare = (Vec<u8>, Vec<Row>);

/// Label names in the order parsers first met them (not file order: the caller keeps its own).
#[derive(Default)]
struct Labels {
    names: Vec<Vec<u8>>,
    ids: HashMap<Vec<u8>, u32>,
}

pub(crate) struct Reader {
    results: Receiver<(u64, Block)>,
    pending: BTreeMap<u64, Block>,
    next: u64,
    free: SyncSender<Spare>,
    labels: Arc<Mutex<Labels>>,
}

impl Reader {
    /// Starts reading `file`, whose records are laid out as `columns` says (the first record
    /// skipped when it is the header line), in blocks of `block` bytes (several files read at
    /// once share the memory one file gets).
    pub(crate) fn start_with(file: File, columns: Columns, skip_header: bool, block: usize) -> Reader {
        let parsers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
        // Buffers in flight: one being read, one per parser, one waiting for the caller.
        let buffers = parsers + 2;
        let (work_tx, work_rx) = mpsc::sync_channel::<Work>(1);
        let (free, free_rx) = mpsc::sync_channel::<Spare>(buffers);
        let (results_tx, results) = mpsc::channel::<(u64, Block)>();
        std::thread::spawn(move || cut_blocks(file, block, buffers, &free_rx, &work_tx));
        let work_rx = Arc::new(Mutex::new(work_rx));
        let columns = Arc::new(columns);
        let labels = Arc::new(Mutex::new(Labels::default()));
        for _ in 0..parsers {
            let (work_rx, results_tx, columns, labels) =
                (work_rx.clone(), results_tx.clone(), columns.clone(), labels.clone());
            std::thread::spawn(move || parse_blocks(&work_rx, &results_tx, &columns, skip_header, &labels));
        }
        Reader { results, pending: BTreeMap::new(), next: 0, free, labels }
    }

    /// The next block in file order; `None` at the end.
    pub(crate) fn next_block(&mut self) -> Option<Block> {
        loop {
            if let Some(b) = self.pending.remove(&self.next) {
                self.next += 1;
                return Some(b);
            }
            match self.results.recv() {
                Ok((seq, block)) => {
                    self.pending.insert(seq, block);
                }
                // Every parser has stopped: the end of the file, unless one stopped early.
                Err(_) if self.pending.is_empty() => return None,
                Err(_) => {
                    let error = Some((1, RecordError::ParserStopped));
                    self.pending.clear();
                    return Some(Block { rows: Vec::new(), error, lines: 0, buf: Vec::new() });
                }
            }
        }
    }

    /// Gives a block's memory back for the next read.
    pub(crate) fn recycle(&mut self, block: Block) {
        let _ = self.free.try_send((block.buf, block.rows));
    }

    pub(crate) fn label_name(&self, id: u32) -> Vec<u8> {
        let labels = self.labels.lock().unwrap_or_else(|e| e.into_inner());
        labels.names.get(id as usize).cloned().unwrap_or_default()
    }
}

/// The reader thread: fills buffers and cuts each after its last complete record (a newline
/// outside quotes); the rest starts the next buffer.
fn cut_blocks(mut file: File, block: usize, buffers: usize, free: &Receiver<Spare>, work: &SyncSender<Work>) {
    let mut carry: Vec<u8> = Vec::new();
    let (mut seq, mut made) = (0u64, 0usize);
    let mut eof = false;
    while !eof || !carry.is_empty() {
        let (mut buf, rows) = if made < buffers {
            made += 1;
            (Vec::with_capacity(block), Vec::new())
        } else {
            match free.recv() {
                Ok(b) => b,
                Err(_) => return,
            }
        };
        buf.clear();
        buf.append(&mut carry);
        let mut want = block.max(buf.len() + 1);
        loop {
            if !eof && buf.len() < want {
                // `read_to_end` on a `take` reads into the spare capacity without zeroing it first.
                let missing = (want - buf.len()) as u64;
                buf.reserve(missing as usize);
                match (&mut file).take(missing).read_to_end(&mut buf) {
                    Ok(n) => eof = (n as u64) < missing,
                    Err(e) => {
                        let _ = work.send(Work { seq, data: Err(RecordError::Io(e.to_string())), rows: Vec::new() });
                        return;
                    }
                }
            }
            let mut cut = if eof { buf.len() } else { record_end(&buf) };
            // A record this long is a quote that never closes: give it to the parser, which
            // names the line it starts on, rather than reading the rest of the file into memory.
            if cut == 0 && buf.len() >= MAX_RECORD {
                cut = buf.len();
            }
            if cut > 0 || eof {
                carry.extend_from_slice(&buf[cut..]);
                buf.truncate(cut);
                break;
            }
            // Not one whole record in the buffer: a record longer than a block. Read more.
            want *= 2;
        }
        if seq == 0 && buf.starts_with(b"\xEF\xBB\xBF") {
            // A byte order mark (a file saved by a spreadsheet) is not part of the first field.
            buf.drain(..3);
        }
        if buf.is_empty() {
            break;
        }
        if work.send(Work { seq, data: Ok(buf), rows }).is_err() {
            return;
        }
        seq += 1;
    }
}

/// Just past the last newline that ends a record; 0 if none. A quote opens a quoted field only
/// at the start of a field (as in the csv crate and JMeter's writer); one inside a plain field
/// is a character like any other, and `""` inside a quoted field is an escaped quote.
fn record_end(buf: &[u8]) -> usize {
    let mut in_quotes = false;
    let mut end = 0;
    let mut skip = usize::MAX;
    for p in memchr::memchr2_iter(b'"', b'\n', buf) {
        if p == skip {
            continue;
        }
        match (buf[p], in_quotes) {
            (b'\n', false) => end = p + 1,
            (b'"', false) if opens_quote(buf, p) => in_quotes = true,
            (b'"', true) if buf.get(p + 1) == Some(&b'"') => skip = p + 1,
            (b'"', true) => in_quotes = false,
            _ => {}
        }
    }
    end
}

/// Whether the quote at `p` starts a quoted field: it is the first character of its field.
fn opens_quote(buf: &[u8], p: usize) -> bool {
    p == 0 || matches!(buf[p - 1], b',' | b'\n')
}

fn parse_blocks(
    work: &Mutex<Receiver<Work>>,
    results: &Sender<(u64, Block)>,
    columns: &Columns,
    skip_header: bool,
    labels: &Mutex<Labels>,
) {
    let mut cache: Vec<(Vec<u8>, u32)> = Vec::new();
    loop {
        let next = work.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok(Work { seq, data, rows }) = next else { return };
        let block = match data {
            Ok(buf) => parse(buf, rows, columns, skip_header && seq == 0, &mut cache, labels),
            Err(e) => Block { rows: Vec::new(), error: Some((1, e)), lines: 0, buf: Vec::new() },
        };
        if results.send((seq, block)).is_err() {
            return;
        }
    }
}

fn parse(
    buf: Vec<u8>,
    mut rows: Vec<Row>,
    c: &Columns,
    skip_first: bool,
    cache: &mut Vec<(Vec<u8>, u32)>,
    labels: &Mutex<Labels>,
) -> Block {
    rows.clear();
    let mut fields: Vec<(usize, usize)> = Vec::with_capacity(24);
    let mut quoted: Vec<u8> = Vec::new();
    let mut line = 0u64;
    let mut first = true;
    let mut error = None;
    // One pass over the block finds every comma, quote and newline (SIMD, set up once per block
    // rather than once per field); a record ends at a newline outside a quoted field.
    // `has_quotes`: the record has a quoted field (the csv crate reads it); `open`: inside one
    // now; `skip`: the second quote of an escaped `""`.
    let (mut start, mut field_start, mut start_line) = (0usize, 0usize, 1u64);
    let (mut has_quotes, mut open, mut skip) = (false, false, usize::MAX);
    let ends = memchr::memchr3_iter(b',', b'"', b'\n', &buf).chain(std::iter::once(buf.len()));
    for p in ends {
        let at_end = p == buf.len();
        if p == skip {
            continue;
        }
        match (buf.get(p), open) {
            (Some(b','), false) => {
                fields.push((field_start - start, p - start));
                field_start = p + 1;
                continue;
            }
            (Some(b'"'), false) => {
                if opens_quote(&buf[start..], p - start) {
                    (has_quotes, open) = (true, true);
                }
                continue;
            }
            (Some(b'"'), true) => {
                if buf.get(p + 1) == Some(&b'"') {
                    skip = p + 1;
                } else {
                    open = false;
                }
                continue;
            }
            (Some(b','), true) => continue,
            _ => {}
        }
        line += 1;
        if at_end && start == buf.len() {
            line -= 1;
            break;
        }
        if open && !at_end {
            // A quoted field holds this line break: the record goes on.
            continue;
        }
        let mut end = p;
        while end > start && buf[end - 1] == b'\r' {
            end -= 1;
        }
        let record = &buf[start..end];
        fields.push((field_start - start, end.max(field_start) - start));
        let record_line = start_line;
        let (in_quotes, unclosed) = (has_quotes, open);
        (start, field_start, start_line, has_quotes, open) = (p + 1, p + 1, line + 1, false, false);
        if std::mem::take(&mut first) && skip_first {
            fields.clear();
            continue;
        }
        if unclosed {
            // Only the file's last record (or one of more than MAX_RECORD bytes) ends inside quotes.
            error = Some((record_line, RecordError::UnclosedQuote));
            break;
        }
        if in_quotes {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(record);
            let mut r = csv::ByteRecord::new();
            if let Err(e) = reader.read_byte_record(&mut r) {
                error = Some((record_line, RecordError::NotCsv(e.to_string())));
                break;
            }
            quoted.clear();
            fields.clear();
            for f in r.iter() {
                let from = quoted.len();
                quoted.extend_from_slice(f);
                fields.push((from, quoted.len()));
            }
        }
        let text: &[u8] = if in_quotes { &quoted } else { record };
        let field = |i: usize| fields.get(i).map_or(&b""[..], |&(a, b)| &text[a..b]);
        let blank = fields.len() == 1 && field(0).trim_ascii().is_empty();
        // Several processes appending to one file each write a header line: one with the
        // file's own columns is skipped; one with others would misread every row after it.
        if field(c.timestamp).trim_ascii() == b"timeStamp" {
            let names: Vec<String> =
                (0..fields.len()).map(|i| String::from_utf8_lossy(field(i)).into_owned()).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            if Columns::from_names(&names).as_ref() != Ok(c) {
                error = Some((record_line, RecordError::OtherHeader));
                break;
            }
        } else if !blank {
            match row(record_line, &field, c, cache, labels) {
                Ok(r) => rows.push(r),
                Err(m) => {
                    error = Some((record_line, m));
                    break;
                }
            }
        }
        fields.clear();
    }
    Block { rows, error, lines: line, buf }
}

fn row<'a>(
    line: u64,
    field: &dyn Fn(usize) -> &'a [u8],
    c: &Columns,
    cache: &mut Vec<(Vec<u8>, u32)>,
    labels: &Mutex<Labels>,
) -> Result<Row, RecordError> {
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    // Values past these bounds are not what JMeter writes; refusing them keeps every sum and
    // product below u64's range.
    let number = |i: Option<usize>, what: &'static str, most: u64| -> Result<u64, RecordError> {
        let Some(t) = i.map(|i| field(i).trim_ascii()) else { return Ok(0) };
        if t.is_empty() {
            return Ok(0);
        }
        match whole(t) {
            Some(n) if n <= most => Ok(n),
            Some(_) => Err(RecordError::TooLarge { what, text: lossy(t) }),
            None => Err(RecordError::NotANumber { what, text: lossy(t) }),
        }
    };
    const YEAR_3000_MS: u64 = 32_503_680_000_000;
    const TEN_DAYS_MS: u64 = 864_000_000;
    const PETABYTE: u64 = 1 << 50;
    let timestamp_ms = number(Some(c.timestamp), "timeStamp", YEAR_3000_MS)?;
    if timestamp_ms < 1_000_000_000 {
        // A formatted date (jmeter.save.saveservice.timestamp_format) instead of ms.
        return Err(RecordError::NotEpochMillis(lossy(field(c.timestamp))));
    }
    let name = field(c.label);
    let label = match cache.iter().find(|(n, _)| n.as_slice() == name) {
        Some((_, id)) => *id,
        None => {
            let mut l = labels.lock().unwrap_or_else(|e| e.into_inner());
            let id = match l.ids.get(name) {
                Some(id) => *id,
                None => {
                    let id = l.names.len() as u32;
                    l.names.push(name.to_vec());
                    l.ids.insert(name.to_vec(), id);
                    id
                }
            };
            // Few labels (the usual case) are then found by comparing bytes, not hashing.
            if cache.len() < 32 {
                cache.push((name.to_vec(), id));
            }
            id
        }
    };
    let message = c.message.map_or(&b""[..], field);
    let ok = field(c.success).trim_ascii().eq_ignore_ascii_case(b"true");
    let failure = (!ok).then(|| {
        Box::new(Failure {
            code: lossy(c.code.map_or(&b""[..], field).trim_ascii()),
            failure_message: lossy(c.failure.map_or(&b""[..], field).trim_ascii()),
            response_message: lossy(message.trim_ascii()),
        })
    });
    Ok(Row {
        line,
        timestamp_ms,
        elapsed_ms: number(Some(c.elapsed), "elapsed", TEN_DAYS_MS)?,
        label,
        bytes: number(c.bytes, "bytes", PETABYTE)?,
        sent: number(c.sent, "sentBytes", PETABYTE)?,
        latency_ms: number(c.latency, "Latency", TEN_DAYS_MS)?,
        connect_ms: number(c.connect, "Connect", TEN_DAYS_MS)?,
        threads: number(c.all_threads, "allThreads", u64::from(u32::MAX))?,
        failure,
        in_total: !message.starts_with(b"Number of samples in transaction"),
    })
}

/// A whole number written in ASCII; `None` when it is not one (or does not fit).
fn whole(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 19 {
        return None;
    }
    b.iter().try_fold(0u64, |n, c| if c.is_ascii_digit() { Some(n * 10 + u64::from(c - b'0')) } else { None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_end_after_whole_records_only() {
        assert_eq!(record_end(b"a,b\nc,d\ne"), 8);
        assert_eq!(record_end(b"a,\"b\nc\",d\ne"), 10);
        assert_eq!(record_end(b"a,\"b\nc"), 0);
        assert_eq!(record_end(b"abc"), 0);
        // A quote inside a plain field is a character; "" inside a quoted field is one quote.
        assert_eq!(record_end(b"1,5\" screen,x\n2,y\n"), 18);
        assert_eq!(record_end(b"1,\"a\"\"\nb\",x\n2"), 12);
        assert_eq!(whole(b"1700000000000"), Some(1_700_000_000_000));
        assert_eq!((whole(b"12x"), whole(b""), whole(b"99999999999999999999")), (None, None, None));
    }

    /// A row as the tests see it: line in the file, timestamp, label, failure message.
    type Seen = (u64, u64, String, String);

    /// Every row of `text` (header first), or the error and its line.
    fn read_all(text: &str, block: usize) -> Result<Vec<Seen>, (u64, String)> {
        // Tests run in parallel: every call gets a file of its own.
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("stampede-jtl-read-{}-{n}.jtl", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let names = ["timeStamp", "elapsed", "label", "success", "failureMessage"];
        let columns = Columns::from_names(&names).unwrap();
        let mut reader = Reader::start_with(File::open(&path).unwrap(), columns, true, block);
        let (mut out, mut before) = (Vec::new(), 0);
        while let Some(b) = reader.next_block() {
            for r in &b.rows {
                let failure = r.failure.as_ref().map_or(String::new(), |f| f.failure_message.clone());
                let label = String::from_utf8_lossy(&reader.label_name(r.label)).into_owned();
                out.push((before + r.line, r.timestamp_ms, label, failure));
            }
            if let Some((line, m)) = &b.error {
                let _ = std::fs::remove_file(&path);
                return Err((before + line, m.to_string()));
            }
            before += b.lines;
            reader.recycle(b);
        }
        let _ = std::fs::remove_file(&path);
        Ok(out)
    }

    #[test]
    fn rows_are_read_the_same_at_every_block_size_and_in_file_order() {
        // Quoted commas and line breaks, doubled quotes, CRLF, a blank line, no final newline.
        let text = "timeStamp,elapsed,label,success,failureMessage\r\n\
                    1700000000001,5,\"A, quoted\",true,\r\n\
                    \n\
                    1700000000002,5,B,false,\"two\nlines \"\"q\"\"\"\n\
                    1700000000003,5,A,true,\n\
                    1700000000004,5,C,true,";
        let want = vec![
            (2, 1_700_000_000_001, "A, quoted".to_string(), String::new()),
            (4, 1_700_000_000_002, "B".into(), "two\nlines \"q\"".into()),
            (6, 1_700_000_000_003, "A".into(), String::new()),
            (7, 1_700_000_000_004, "C".into(), String::new()),
        ];
        for block in [1, 2, 3, 5, 8, 13, 64, BLOCK] {
            assert_eq!(read_all(text, block).unwrap(), want, "block size {block}");
        }
        // Many blocks, parsed on several threads, come back in file order.
        let mut big = String::from("timeStamp,elapsed,label,success,failureMessage\n");
        for i in 0..20_000u64 {
            big.push_str(&format!("{},1,L{},true,\n", 1_700_000_000_000 + i, i % 7));
        }
        let rows = read_all(&big, 4096).unwrap();
        assert_eq!(rows.len(), 20_000);
        assert!(rows.iter().enumerate().all(|(i, r)| r.0 == i as u64 + 2 && r.1 == 1_700_000_000_000 + i as u64));
    }

    #[test]
    fn a_bad_row_or_an_open_quote_names_its_line() {
        let text =
            "timeStamp,elapsed,label,success,failureMessage\n1700000000001,5,A,true,\n1700000000002,x5,A,true,\n";
        for block in [3, BLOCK] {
            assert_eq!(read_all(text, block).unwrap_err(), (3, "elapsed `x5` is not a whole number".into()));
        }
        let huge = "timeStamp,elapsed,label,success,failureMessage\n1700000000001,99999999999999999,A,true,\n";
        let e = read_all(huge, BLOCK).unwrap_err();
        assert_eq!(e, (2, "elapsed `99999999999999999` is too large for a JMeter results file".into()));
        let open = "timeStamp,elapsed,label,success,failureMessage\n1700000000001,5,\"A,true,\n";
        assert_eq!(read_all(open, BLOCK).unwrap_err(), (2, "a quoted field is not closed".into()));
    }

    #[test]
    fn a_quote_inside_a_plain_field_is_just_a_character() {
        let text = "\u{feff}timeStamp,elapsed,label,success,failureMessage\n\
                    1700000000001,5,5\" screen,false,said \"no\"\n\
                    1700000000002,5,B,true,\n";
        for block in [1, 4, 16, BLOCK] {
            let rows = read_all(text, block).unwrap();
            assert_eq!(rows[0], (2, 1_700_000_000_001, "5\" screen".to_string(), "said \"no\"".to_string()));
            assert_eq!(rows[1].0, 3);
        }
    }

    /// Issue 11: several processes appending to one file each wrote a header line.
    #[test]
    fn a_header_line_mid_file_is_skipped_and_one_with_other_columns_is_an_error() {
        let header = "timeStamp,elapsed,label,success,failureMessage\n";
        let text = format!("{header}1700000000001,5,A,true,\n{header}1700000000002,5,B,true,\n{header}");
        for block in [1, 7, 64, BLOCK] {
            let rows = read_all(&text, block).unwrap();
            assert_eq!(rows.iter().map(|r| (r.0, r.2.as_str())).collect::<Vec<_>>(), [(2, "A"), (4, "B")], "{block}");
        }
        let other =
            format!("{header}1700000000001,5,A,true,\ntimeStamp,label,elapsed,success\n1700000000002,B,5,true\n");
        let e = read_all(&other, BLOCK).unwrap_err();
        assert_eq!(e.0, 3, "{e:?}");
        assert!(e.1.contains("a header line with other columns"), "{e:?}");
    }
}
