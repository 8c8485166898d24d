//! Reads test-data CSV files the way JMeter's "CSV Data Set Config" does: named columns, one row of
//! values per feeder draw. Hand-written rather than built on the `csv` crate because JMeter allows
//! multi-character delimiters (e.g. `||`), which `csv` cannot express.
//!
//! # Memory
//!
//! A data file is never held whole: [`DataFile::open`] reads it once through a bounded buffer
//! (the header, and every row checked and counted, so that a bad row is a load-time error
//! naming its line), then keeps only the open file and where its first data row starts. While
//! the test runs, rows are parsed as users take them: a shared reader ([`RowReader`], one per
//! file and sharing mode, as JMeter's FileServer keeps one per file and alias) with a buffer of
//! [`CHUNK`] bytes, or a user's own [`Cursor`] (two numbers) read at its offset. Memory is thus
//! independent of the file's size; a row itself is bounded by [`MAX_ROW`].

mod reader;

pub(crate) use reader::{Cursor, DataFile, RowReader, MAX_ROW};

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// How to read a data file; mirrors the fields of JMeter's "CSV Data Set Config".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CsvOptions {
    /// Field delimiter; may be several characters (e.g. "||" or "\t" as a real tab). Never empty.
    pub delimiter: String,
    /// JMeter's "Allow quoted data": fields may be wrapped in double quotes; inside them the delimiter and newlines are
    /// literal and "" is one quote.
    pub quoted: bool,
    /// Variable names given explicitly. None: the first non-blank line is the header row giving the names.
    pub names: Option<Vec<String>>,
    /// With explicit names: skip the first line (JMeter's "Ignore first line"). Precisely, the first record: leading
    /// blank lines do not count, and a quoted field spanning lines is skipped whole. Ignored when `names` is None.
    pub skip_first_line: bool,
    /// Rows as JMeter's CSV Data Set reads them: each row keeps its own width (a short row sets
    /// only the variables it has values for; extra fields are dropped) and a blank line is a row
    /// (of no fields when unquoted, as JMeter's split of an empty line; of one empty field when
    /// quoted, as its CSV parser). The header line, when the names come from the file, is still
    /// the first non-blank line. Off: a row of the wrong width is an error and blank lines are
    /// skipped.
    pub ragged: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions { delimiter: ",".to_string(), quoted: true, names: None, skip_first_line: false, ragged: false }
    }
}

/// A parsed data file: every row has exactly `names.len()` fields, or at most that many with
/// [`CsvOptions::ragged`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvData {
    pub names: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// 1-based line on which each row starts (a quoted field may carry a row over several lines).
    pub row_lines: Vec<usize>,
}

/// Why a data file was rejected; `line` is 1-based when the problem is tied to one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvError {
    pub line: Option<usize>,
    pub message: String,
}

impl CsvError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        CsvError { line: Some(line), message: message.into() }
    }

    fn general(message: impl Into<String>) -> Self {
        CsvError { line: None, message: message.into() }
    }
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for CsvError {}

/// Reads and parses the file at `path`, every row in memory; see `parse_csv` for the format.
/// For tests and tools: a plan keeps a `DataFile`, which holds no rows.
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<CsvData, CsvError> {
    let file = DataFile::open(path, opts)?;
    file.collect()
}

/// Parses CSV text: a leading BOM is dropped, lines end with `\n` or `\r\n`, empty lines are skipped
/// (rows with [`CsvOptions::ragged`]).
#[cfg(test)]
pub(crate) fn parse_csv(text: &str, opts: &CsvOptions) -> Result<CsvData, CsvError> {
    parse_bytes(text.as_bytes(), opts)
}

/// `parse_csv` for raw bytes: invalid UTF-8 is reported with the line of the first bad byte.
#[cfg(test)]
fn parse_bytes(bytes: &[u8], opts: &CsvOptions) -> Result<CsvData, CsvError> {
    let scanned = reader::scan(bytes, opts)?;
    reader::collect(bytes, &scanned)
}

fn check_delimiter(opts: &CsvOptions) -> Result<(), CsvError> {
    let d = &opts.delimiter;
    if d.is_empty() {
        return Err(CsvError::general("the delimiter is empty"));
    }
    if d.contains(['\n', '\r']) {
        return Err(CsvError::general("the delimiter must not contain a line break"));
    }
    // With quoting on, a quote in the delimiter would make `"` both open fields and separate them.
    if opts.quoted && d.contains('"') {
        return Err(CsvError::general("the delimiter must not contain '\"' when quoted data is allowed"));
    }
    Ok(())
}

fn empty_file_message(empty: bool) -> String {
    if empty {
        "no data rows: the file is empty".to_string()
    } else {
        "no data rows: the file has only blank lines".to_string()
    }
}

/// `None` line: the names came from the plan, not the file. `any`: every name is taken as it
/// is, as JMeter's CSV Data Set takes them (`vars.put` of each: an empty name sets a variable no
/// `${}` reads, a repeated one is set by its last column).
fn validate_names(names: &[String], line: Option<usize>, any: bool) -> Result<(), CsvError> {
    if any {
        return Ok(());
    }
    let err = |message: String| CsvError { line, message };
    let place = |i: usize| match line {
        Some(_) => format!("column {} of the header", i + 1),
        None => format!("position {} of the variable names", i + 1),
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(err(format!("empty variable name in {}", place(i))));
        }
        if !is_valid_name(name) {
            return Err(err(format!(
                "invalid variable name \"{name}\" in {}: names start with a letter or '_' and contain only \
                 letters, digits, '_', '.' and '-'",
                place(i)
            )));
        }
        if let Some(first) = seen.insert(name, i) {
            return Err(err(format!("duplicate variable name \"{name}\" in {} (also in {})", place(i), place(first))));
        }
    }
    Ok(())
}

/// `[A-Za-z_][A-Za-z0-9_.-]*`, checked by hand to keep regex out of this module.
fn is_valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    let Some(first) = bytes.next() else { return false };
    (first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Why the parser stopped short of a record.
enum Halt {
    /// The window ends inside the record: read more of the file and parse it again.
    More,
    Bad(CsvError),
}

impl From<CsvError> for Halt {
    fn from(e: CsvError) -> Self {
        Halt::Bad(e)
    }
}

/// One record: the line it starts on and how many fields it has (they are in the caller's
/// vector when kept).
struct Record {
    line: usize,
    width: usize,
}

/// Field `i` of `out`, emptied: the strings of the row before are reused, so that a reader
/// taking row after row allocates only when a value outgrows its string.
fn slot(out: &mut Vec<String>, i: usize) -> &mut String {
    if i == out.len() {
        out.push(String::new());
    }
    let s = &mut out[i];
    s.clear();
    s
}

/// A cursor over a window of the file that yields one record (row of fields) at a time. The
/// window starts on a record and, unless `eof`, may end anywhere: a record it cuts asks for
/// more ([`Halt::More`]), and only a record read whole moves the cursor.
struct Parser<'a> {
    text: &'a str,
    delim: &'a str,
    /// `delim` when it is a single char, for a faster search.
    delim_char: Option<char>,
    quoted: bool,
    /// A blank line is a record (see [`CsvOptions::ragged`]) instead of being skipped.
    blank_rows: bool,
    /// The window ends where the file does.
    eof: bool,
    /// Byte offset of the next unread character; always on a char boundary.
    pos: usize,
    /// 1-based line of `pos`.
    line: usize,
    /// `pos` and `line` after the blank lines before the record asking for more: kept, so that
    /// a run of blank lines is never read twice nor held in the window whole.
    mark: (usize, usize),
}

impl<'a> Parser<'a> {
    /// The next record; `None` at end of input. `keep`: its fields are written to `out` (which
    /// then has exactly them); else only counted, so a row skipped or checked costs nothing.
    fn next_record(&mut self, keep: bool, out: &mut Vec<String>) -> Result<Option<Record>, Halt> {
        if !self.blank_rows {
            self.skip_blank_lines();
        }
        self.mark = (self.pos, self.line);
        if self.pos >= self.text.len() {
            return if self.eof { Ok(None) } else { Err(Halt::More) };
        }
        // A record is looked at only with its first line whole, so that a delimiter, a quote
        // or a line end is never judged from half of it.
        if !self.eof && !self.text.as_bytes()[self.pos..].contains(&b'\n') {
            return Err(Halt::More);
        }
        let start_line = self.line;
        if self.blank_rows {
            let rest = &self.text.as_bytes()[self.pos..];
            if rest.starts_with(b"\n") || rest.starts_with(b"\r\n") || rest == b"\r" {
                self.end_line(self.line_end_from(self.pos));
                // JMeter's CSV parser gives one empty field; splitting an empty line gives none.
                let width = usize::from(self.quoted);
                if keep {
                    out.truncate(width);
                    if width == 1 {
                        slot(out, 0);
                    }
                }
                return Ok(Some(Record { line: start_line, width }));
            }
        }
        let mut width = 0;
        // Cached so a line with many fields is scanned once for its end, not once per field.
        let mut line_end = self.line_end_from(self.pos);
        loop {
            if self.quoted && self.text.as_bytes().get(self.pos) == Some(&b'"') {
                self.quoted_field(keep.then(|| slot(out, width)))?;
                width += 1;
                if self.pos > line_end {
                    // The field ran over line breaks; the record now ends on a later line.
                    line_end = self.line_end_from(self.pos);
                }
                if line_end == self.text.len() && !self.eof {
                    // What follows the closing quote is not all in the window.
                    return Err(Halt::More);
                }
                let rest = &self.text[self.pos..];
                if rest.starts_with(self.delim) {
                    self.pos += self.delim.len();
                    continue;
                }
                if rest.is_empty() || rest.starts_with('\n') || rest == "\r" || rest.starts_with("\r\n") {
                    self.end_line(line_end);
                    break;
                }
                return Err(Halt::Bad(CsvError::at(
                    self.line,
                    format!(
                        "unexpected text after the closing quote of field {width}; a quoted field must be followed by \
                         the delimiter or the end of the line (write \"\" for a quote inside quotes)"
                    ),
                )));
            }
            let line_rest = &self.text[self.pos..line_end];
            // A one-char delimiter searched as a char takes std's memchr path; a &str needle sets up a
            // two-way searcher per call, which dominates on short fields.
            let found = match self.delim_char {
                Some(c) => line_rest.find(c),
                None => line_rest.find(self.delim),
            };
            let field_end = match found {
                Some(i) => self.pos + i,
                None => line_end,
            };
            let mut value_end = field_end;
            if field_end == line_end && value_end > self.pos && self.text.as_bytes()[value_end - 1] == b'\r' {
                // The '\r' of a "\r\n" ending (or of a final "\r") is not data.
                value_end -= 1;
            }
            if keep {
                slot(out, width).push_str(&self.text[self.pos..value_end]);
            }
            width += 1;
            if field_end < line_end {
                self.pos = field_end + self.delim.len();
            } else {
                self.end_line(line_end);
                break;
            }
        }
        if keep {
            out.truncate(width);
        }
        Ok(Some(Record { line: start_line, width }))
    }

    /// Skips lines that are empty or only "\r"; a line of spaces is data (JMeter keeps spaces).
    fn skip_blank_lines(&mut self) {
        loop {
            let rest = &self.text.as_bytes()[self.pos..];
            if rest.starts_with(b"\n") {
                self.pos += 1;
                self.line += 1;
            } else if rest.starts_with(b"\r\n") {
                self.pos += 2;
                self.line += 1;
            } else if rest == b"\r" && self.eof {
                self.pos += 1;
            } else {
                return;
            }
        }
    }

    /// Offset of the '\n' ending the line that contains `from`, or the text length.
    fn line_end_from(&self, from: usize) -> usize {
        // A char pattern lets std use its memchr fast path.
        self.text[from..].find('\n').map_or(self.text.len(), |i| from + i)
    }

    fn end_line(&mut self, line_end: usize) {
        if line_end < self.text.len() {
            self.pos = line_end + 1;
            self.line += 1;
        } else {
            self.pos = self.text.len();
        }
    }

    /// Reads a quoted field starting at the opening quote at `pos`, leaving `pos` just after the
    /// closing quote. The value is written to `value` when given.
    fn quoted_field(&mut self, mut value: Option<&mut String>) -> Result<(), Halt> {
        let open_line = self.line;
        let mut seg_start = self.pos + 1;
        loop {
            let Some(i) = self.text[seg_start..].find('"') else {
                if !self.eof {
                    return Err(Halt::More);
                }
                return Err(Halt::Bad(CsvError::at(
                    open_line,
                    "unterminated quoted field: the opening quote is never closed",
                )));
            };
            let quote = seg_start + i;
            let segment = &self.text[seg_start..quote];
            self.line += segment.bytes().filter(|&b| b == b'\n').count();
            if let Some(v) = value.as_deref_mut() {
                v.push_str(segment);
            }
            if self.text.as_bytes().get(quote + 1) == Some(&b'"') {
                if let Some(v) = value.as_deref_mut() {
                    v.push('"');
                }
                seg_start = quote + 2;
            } else {
                self.pos = quote + 1;
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests;
