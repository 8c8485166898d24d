//! Reading a data file through a bounded window: the load-time scan ([`scan`], [`DataFile::open`]),
//! the shared readers of a run ([`RowReader`]) and a user's own position ([`Cursor`]).

use super::{check_delimiter, empty_file_message, validate_names, CsvData, CsvError, CsvOptions, Halt, Parser, Record};
use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};

/// How many bytes a shared reader reads at once (and so holds, but for a longer row).
pub(crate) const CHUNK: usize = 64 * 1024;
/// The longest record (row, or header) a data file may have, in bytes: the window a row is
/// parsed in grows to hold it, and no further.
pub(crate) const MAX_ROW: usize = 16 * 1024 * 1024;
/// What a user's own read asks for first: a few rows' worth, doubled while the row is longer.
const USER_CHUNK: usize = 1024;

/// Bytes at an offset: a file, or text in memory (tests, and [`super::parse_csv`]).
pub(super) trait ReadAt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
}

impl ReadAt for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        // Positioned reads leave the file's own offset alone: every reader of a run shares one
        // open file, without a lock.
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// How the rows of a file are split: the options that matter once the header is read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    delimiter: String,
    delim_char: Option<char>,
    quoted: bool,
    ragged: bool,
}

impl Layout {
    fn new(opts: &CsvOptions) -> Layout {
        let mut chars = opts.delimiter.chars();
        let delim_char = match (chars.next(), chars.next()) {
            (Some(c), None) => Some(c),
            _ => None,
        };
        Layout { delimiter: opts.delimiter.clone(), delim_char, quoted: opts.quoted, ragged: opts.ragged }
    }
}

/// What the load-time pass learns of a file: its names, where its data rows start, how many
/// there are.
#[derive(Debug, Clone)]
pub(super) struct Scanned {
    layout: Layout,
    names: Vec<String>,
    /// Byte offset of the first data row's window (after the BOM, the header or skipped line).
    start: u64,
    /// Its 1-based line.
    start_line: usize,
    rows: u64,
}

impl Scanned {
    #[cfg(test)]
    pub(super) fn rows(&self) -> u64 {
        self.rows
    }
}

/// A window over a source, at a record boundary, that is refilled as records are parsed.
struct Window {
    buf: Vec<u8>,
    /// The first unparsed byte.
    start: usize,
    /// `buf[start..valid]` is UTF-8 (it may end inside a character cut by the last read).
    valid: usize,
    /// Bytes read into `buf`.
    end: usize,
    /// `buf[valid..]` starts with bytes that are not UTF-8 (not a character cut by the read).
    bad: bool,
    /// The source offset of `buf[end]`.
    next: u64,
    /// The source has no more bytes.
    eof: bool,
    /// The 1-based line of `buf[start]`.
    line: usize,
    /// How many bytes the next read asks for; doubled while a record is longer.
    chunk: usize,
    base_chunk: usize,
}

impl Window {
    fn at(buf: Vec<u8>, offset: u64, line: usize, chunk: usize) -> Window {
        Window { buf, start: 0, valid: 0, end: 0, bad: false, next: offset, eof: false, line, chunk, base_chunk: chunk }
    }

    /// The source offset of the next unparsed byte.
    fn offset(&self) -> u64 {
        self.next - (self.end - self.start) as u64
    }

    /// Moves to `offset` (a record boundary) at `line`, dropping what was read.
    fn seek(&mut self, offset: u64, line: usize) {
        (self.start, self.valid, self.end, self.bad, self.next, self.eof, self.line) =
            (0, 0, 0, false, offset, false, line);
        self.chunk = self.base_chunk;
    }

    /// The next record: parsed from the window, which is refilled (and grown, up to
    /// [`MAX_ROW`]) while the record runs past it.
    fn record<S: ReadAt + ?Sized>(
        &mut self,
        src: &S,
        layout: &Layout,
        blank_rows: bool,
        keep: bool,
        out: &mut Vec<String>,
    ) -> Result<Option<Record>, CsvError> {
        loop {
            // Checked once as it was read, not again for each record: checking the rest of the
            // window per record would cost a window per row.
            debug_assert!(self.start == self.valid || (self.buf[self.start] as i8) >= -0x40, "a char boundary");
            // SAFETY: `fill` checked `buf[..valid]` as UTF-8 (each read from the previous
            // `valid`, itself the end of a whole character), and `start` is a char boundary of it:
            // 0, or where a record or a run of blank lines parsed from that text ended.
            let text = unsafe { std::str::from_utf8_unchecked(&self.buf[self.start..self.valid]) };
            let mut p = Parser {
                text,
                delim: &layout.delimiter,
                delim_char: layout.delim_char,
                quoted: layout.quoted,
                blank_rows,
                eof: self.eof && self.valid == self.end,
                pos: 0,
                line: self.line,
                mark: (0, self.line),
            };
            match p.next_record(keep, out) {
                Ok(r) => {
                    self.start += p.pos;
                    self.line = p.line;
                    self.chunk = self.base_chunk;
                    return Ok(r);
                }
                Err(Halt::Bad(e)) => return Err(e),
                Err(Halt::More) => {
                    self.start += p.mark.0;
                    self.line = p.mark.1;
                    if self.bad || (self.eof && self.valid < self.end) {
                        return Err(self.utf8_error());
                    }
                    self.fill(src)?;
                }
            }
        }
    }

    /// Reads more of the source after what the window holds.
    fn fill<S: ReadAt + ?Sized>(&mut self, src: &S) -> Result<(), CsvError> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            (self.valid, self.end) = (self.valid - self.start, self.end - self.start);
            self.start = 0;
        }
        if self.end >= MAX_ROW {
            return Err(CsvError::at(
                self.line,
                format!("a row longer than {} MiB (a quote never closed, or no line breaks?)", MAX_ROW >> 20),
            ));
        }
        let want = (self.end + self.chunk).min(MAX_ROW + 4);
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let n = loop {
            match src.read_at(&mut self.buf[self.end..want], self.next) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(CsvError::at(self.line, format!("cannot read: {e}"))),
            }
        };
        // Doubled, so that a long record is parsed again only a few times as the window grows.
        self.chunk = (self.chunk * 2).min(MAX_ROW);
        self.eof = n == 0;
        self.end += n;
        self.next += n as u64;
        match std::str::from_utf8(&self.buf[self.valid..self.end]) {
            Ok(_) => self.valid = self.end,
            Err(e) => {
                self.valid += e.valid_up_to();
                self.bad = e.error_len().is_some();
            }
        }
        Ok(())
    }

    fn utf8_error(&self) -> CsvError {
        let line = self.line + self.buf[self.start..self.valid].iter().filter(|&&b| b == b'\n').count();
        let bad = self.buf.get(self.valid).copied().unwrap_or(0);
        CsvError::at(line, format!("invalid UTF-8 (byte 0x{bad:02x}); data files must be UTF-8"))
    }
}

/// Reads the header (or skips the first line) and checks and counts every row, through a
/// window of [`CHUNK`] bytes: nothing of the file stays in memory.
pub(super) fn scan<S: ReadAt + ?Sized>(src: &S, opts: &CsvOptions) -> Result<Scanned, CsvError> {
    scan_with(src, opts, CHUNK)
}

/// [`scan`] reading `chunk` bytes at a time.
pub(super) fn scan_with<S: ReadAt + ?Sized>(src: &S, opts: &CsvOptions, chunk: usize) -> Result<Scanned, CsvError> {
    check_delimiter(opts)?;
    let layout = Layout::new(opts);
    // One byte past a BOM tells whether anything follows it.
    let mut head = [0u8; 4];
    let got = read_full(src, &mut head)?;
    let skip = if head.starts_with(&[0xef, 0xbb, 0xbf]) { 3 } else { 0 };
    let empty = got == skip;
    let mut w = Window::at(Vec::new(), skip as u64, 1, chunk);
    // A header read from the file is the first non-blank line; the line skip_first_line skips
    // is the first line, blank or not (JMeter reads it with readLine).
    let header_blank = opts.ragged && opts.names.is_some();
    let mut fields = Vec::new();
    // Said when no data rows follow, so the user learns why there are none.
    let (names, why_empty) = match &opts.names {
        None => {
            let Some(r) = w.record(src, &layout, header_blank, true, &mut fields)? else {
                return Err(CsvError::general(empty_file_message(empty)));
            };
            let names: Vec<String> = fields.iter().map(|f| f.trim().to_string()).collect();
            validate_names(&names, Some(r.line), opts.ragged)?;
            (names, format!("no data rows: the file has only a header line (line {})", r.line))
        }
        Some(given) => {
            if given.is_empty() {
                return Err(CsvError::general("no variable names given"));
            }
            // Trimmed like header names, so a plan's "user, pass" split on ',' still works.
            let names: Vec<String> = given.iter().map(|n| n.trim().to_string()).collect();
            validate_names(&names, None, opts.ragged)?;
            let mut why_empty = empty_file_message(empty);
            if opts.skip_first_line {
                // The skipped line is a header nobody asked for: its width is deliberately not checked.
                let Some(r) = w.record(src, &layout, header_blank, false, &mut fields)? else {
                    return Err(CsvError::general(why_empty));
                };
                why_empty = format!(
                    "no data rows: the file has only its first line (line {}), which skip_first_line ignores",
                    r.line
                );
            }
            (names, why_empty)
        }
    };
    let (start, start_line) = (w.offset(), w.line);
    let mut rows = 0u64;
    while let Some(r) = w.record(src, &layout, opts.ragged, false, &mut fields)? {
        if r.width != names.len() && !opts.ragged {
            let noun = if r.width == 1 { "field" } else { "fields" };
            return Err(CsvError::at(
                r.line,
                format!("{} {noun}, expected {} ({})", r.width, names.len(), names.join(", ")),
            ));
        }
        rows += 1;
    }
    if rows == 0 {
        return Err(CsvError::general(why_empty));
    }
    Ok(Scanned { layout, names, start, start_line, rows })
}

/// Reads up to `buf.len()` bytes from the start of `src`.
fn read_full<S: ReadAt + ?Sized>(src: &S, buf: &mut [u8]) -> Result<usize, CsvError> {
    let mut got = 0;
    while got < buf.len() {
        match src.read_at(&mut buf[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CsvError::general(format!("cannot read: {e}"))),
        }
    }
    Ok(got)
}

/// Every data row of a scanned source, in memory.
pub(super) fn collect<S: ReadAt + ?Sized>(src: &S, s: &Scanned) -> Result<CsvData, CsvError> {
    collect_with(src, s, CHUNK)
}

/// [`collect`] reading `chunk` bytes at a time.
pub(super) fn collect_with<S: ReadAt + ?Sized>(src: &S, s: &Scanned, chunk: usize) -> Result<CsvData, CsvError> {
    let mut w = Window::at(Vec::new(), s.start, s.start_line, chunk);
    let (mut rows, mut row_lines) = (Vec::new(), Vec::new());
    let mut fields = Vec::new();
    while let Some(r) = w.record(src, &s.layout, s.layout.ragged, true, &mut fields)? {
        if s.layout.ragged {
            fields.truncate(s.names.len());
        }
        rows.push(std::mem::take(&mut fields));
        row_lines.push(r.line);
    }
    Ok(CsvData { names: s.names.clone(), rows, row_lines })
}

/// A data file of a plan: open, checked, and read while the test runs, never held whole.
#[derive(Debug)]
pub(crate) struct DataFile {
    path: PathBuf,
    file: File,
    scanned: Scanned,
}

/// Opens a data file for reading. The one place data files are opened, so that a rule on which
/// files a plan may read applies to all of them.
/// `path` is resolved ([`crate::confine::PlanDir::named`]): no link is followed, and only a
/// regular file is opened (a FIFO would block the load for ever).
pub(crate) fn open_file(path: &Path) -> std::io::Result<File> {
    crate::confine::open(path, crate::confine::Access::Read)
}

impl DataFile {
    /// Opens and checks the file at `path`: its header, every row's width (unless `ragged`),
    /// UTF-8. An error names the line.
    pub(crate) fn open(path: &Path, opts: &CsvOptions) -> Result<DataFile, CsvError> {
        let file = open_file(path).map_err(|e| CsvError::general(format!("cannot read {}: {e}", path.display())))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(CsvError::general(format!("cannot read {}: it is a directory", path.display())));
        }
        let scanned = scan(&file, opts)?;
        Ok(DataFile { path: path.to_path_buf(), file, scanned })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The variable names: the plan's, or the file's header.
    pub(crate) fn names(&self) -> &[String] {
        &self.scanned.names
    }

    /// How many data rows the file had when the plan loaded.
    pub(crate) fn rows(&self) -> u64 {
        self.scanned.rows
    }

    /// Whether `other` reads the same rows from the same file in the same way.
    pub(crate) fn same_reading(&self, other: &DataFile) -> bool {
        self.path == other.path
            && self.scanned.layout == other.scanned.layout
            && self.scanned.start == other.scanned.start
            && self.scanned.names == other.scanned.names
    }

    /// Every row in memory (tests and tools; a run takes rows with [`RowReader`] or [`Cursor`]).
    pub(crate) fn collect(&self) -> Result<CsvData, CsvError> {
        collect(&self.file, &self.scanned)
    }

    /// A reader of the rows from the first, for users who share one.
    pub(crate) fn reader(&self) -> RowReader {
        RowReader {
            window: Window::at(Vec::new(), self.scanned.start, self.scanned.start_line, CHUNK),
            row: 0,
            fields: Vec::new(),
        }
    }

    /// The next row at a user's own cursor, which it moves on, handed to `f`: the first row
    /// from the cursor on that `owns` (a part of a split run reads only its own); `None` at the
    /// end of the file (or when it can no longer be read). The cursor stays at the end until
    /// reset.
    pub(crate) fn take_at<R>(
        &self,
        cursor: &mut Cursor,
        owns: impl Fn(u64) -> bool,
        f: impl FnOnce(&[String]) -> R,
    ) -> Option<R> {
        thread_local! {
            // One window and row per worker thread, reused: a user holds only its cursor, and
            // taking a row allocates nothing once the strings are as long as its values.
            static SCRATCH: RefCell<(Vec<u8>, Vec<String>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        if cursor.offset == Cursor::ENDED {
            return None;
        }
        SCRATCH.with(|scratch| {
            let (buf, fields) = scratch.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default();
            let mut r = RowReader {
                window: Window::at(buf, self.scanned.start + cursor.offset, self.scanned.start_line, USER_CHUNK),
                row: cursor.row,
                fields,
            };
            let got = r.next(self, owns).map(f);
            // At the end, or at a row that could not be read, the window may stand anywhere in
            // what it read, not at a row's start: the end is kept as such (as the shared
            // reader's), so a later take does not parse from the middle of a row.
            cursor.offset = if got.is_some() { r.window.offset() - self.scanned.start } else { Cursor::ENDED };
            cursor.row = r.row;
            let (mut buf, mut fields) = (r.window.buf, r.fields);
            if buf.len() > 4 * CHUNK || fields.iter().map(String::capacity).sum::<usize>() > 4 * CHUNK {
                // A long row once is not kept for good.
                (buf, fields) = (Vec::new(), Vec::new());
            }
            if let Ok(mut b) = scratch.try_borrow_mut() {
                *b = (buf, fields);
            }
            got
        })
    }
}

/// Where a user is in a data file it reads on its own (JMeter's sharing mode "current thread"):
/// the next row's offset from the first, and how many rows came before it in this pass. The
/// default is the first row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cursor {
    offset: u64,
    row: u64,
}

impl Cursor {
    /// The offset of a cursor past its end (or past a row that could not be read), until reset.
    const ENDED: u64 = u64::MAX;
}

/// A shared reader of a file's rows (JMeter's FileServer reader of a file and alias): rows are
/// parsed as they are taken, from a window of [`CHUNK`] bytes. The caller holds it under a lock,
/// so that each row of a pass goes to exactly one taker.
#[derive(Debug)]
pub(crate) struct RowReader {
    window: Window,
    /// Rows of this pass read so far, owned or not.
    row: u64,
    /// The last row taken; its strings are reused for the next.
    fields: Vec<String>,
}

impl std::fmt::Debug for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Window").field("offset", &self.offset()).field("line", &self.line).finish()
    }
}

impl RowReader {
    /// The next row that `owns` (a part of a split run reads only its own); `None` at the end
    /// of the pass, and after it until [`Self::rewind`]. A row that cannot be read now (the
    /// file changed since the plan loaded) ends the pass.
    pub(crate) fn next(&mut self, file: &DataFile, owns: impl Fn(u64) -> bool) -> Option<&[String]> {
        let s = &file.scanned;
        loop {
            let k = self.row;
            let keep = owns(k);
            match self.window.record(&file.file, &s.layout, s.layout.ragged, keep, &mut self.fields) {
                Ok(Some(_)) => {
                    self.row += 1;
                    if keep {
                        if s.layout.ragged {
                            self.fields.truncate(s.names.len());
                        }
                        return Some(&self.fields);
                    }
                }
                Ok(None) | Err(_) => {
                    // Stays at the end: a later take without a rewind is the end again.
                    self.window.eof = true;
                    self.window.start = self.window.end;
                    self.window.valid = self.window.end;
                    self.window.bad = false;
                    return None;
                }
            }
        }
    }

    /// Back to the first row (JMeter's recycle on end of file).
    pub(crate) fn rewind(&mut self, file: &DataFile) {
        self.window.seek(file.scanned.start, file.scanned.start_line);
        self.row = 0;
    }
}
