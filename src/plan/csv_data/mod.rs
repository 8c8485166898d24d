//! Reads test-data CSV files the way JMeter's "CSV Data Set Config" does: named columns, one row of
//! values per feeder draw. Hand-written rather than built on the `csv` crate because JMeter allows
//! multi-character delimiters (e.g. `||`), which `csv` cannot express.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// How to read a data file; mirrors the fields of JMeter's "CSV Data Set Config".
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Reads and parses the file at `path`; see [`parse_csv`] for the format.
pub fn read_csv(path: &Path, opts: &CsvOptions) -> Result<CsvData, CsvError> {
    let bytes = std::fs::read(path).map_err(|e| CsvError::general(format!("cannot read {}: {e}", path.display())))?;
    parse_bytes(&bytes, opts)
}

/// Parses CSV text: a leading BOM is dropped, lines end with `\n` or `\r\n`, empty lines are skipped
/// (rows with [`CsvOptions::ragged`]).
pub fn parse_csv(text: &str, opts: &CsvOptions) -> Result<CsvData, CsvError> {
    check_delimiter(opts)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut chars = opts.delimiter.chars();
    let delim_char = match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    };
    // A header read from the file is the first non-blank line; the line skip_first_line skips is
    // the first line, blank or not (JMeter reads it with readLine).
    let blank_rows = opts.ragged && opts.names.is_some();
    let mut parser =
        Parser { text, delim: &opts.delimiter, delim_char, quoted: opts.quoted, blank_rows, pos: 0, line: 1 };

    // Said when no data rows follow, so the user learns why there are none.
    let (names, why_empty) = match &opts.names {
        None => {
            let Some((line, fields)) = parser.next_record()? else {
                return Err(CsvError::general(empty_file_message(text)));
            };
            let names: Vec<String> = fields.iter().map(|f| f.trim().to_string()).collect();
            validate_names(&names, Some(line), opts.ragged)?;
            (names, format!("no data rows: the file has only a header line (line {line})"))
        }
        Some(given) => {
            if given.is_empty() {
                return Err(CsvError::general("no variable names given"));
            }
            // Trimmed like header names, so a plan's "user, pass" split on ',' still works.
            let names: Vec<String> = given.iter().map(|n| n.trim().to_string()).collect();
            validate_names(&names, None, opts.ragged)?;
            let mut why_empty = empty_file_message(text);
            if opts.skip_first_line {
                // The skipped line is a header nobody asked for: its width is deliberately not checked.
                let Some((line, _)) = parser.next_record()? else {
                    return Err(CsvError::general(why_empty));
                };
                why_empty = format!(
                    "no data rows: the file has only its first line (line {line}), which skip_first_line ignores"
                );
            }
            (names, why_empty)
        }
    };

    parser.blank_rows = opts.ragged;
    let mut rows = Vec::new();
    let mut row_lines = Vec::new();
    while let Some((line, mut fields)) = parser.next_record()? {
        if opts.ragged {
            fields.truncate(names.len());
        }
        if fields.len() != names.len() && !opts.ragged {
            let noun = if fields.len() == 1 { "field" } else { "fields" };
            return Err(CsvError::at(
                line,
                format!("{} {noun}, expected {} ({})", fields.len(), names.len(), names.join(", ")),
            ));
        }
        rows.push(fields);
        row_lines.push(line);
    }
    if rows.is_empty() {
        return Err(CsvError::general(why_empty));
    }
    Ok(CsvData { names, rows, row_lines })
}

/// `parse_csv` for raw bytes: invalid UTF-8 is reported with the line of the first bad byte.
fn parse_bytes(bytes: &[u8], opts: &CsvOptions) -> Result<CsvData, CsvError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_csv(text, opts),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let bad = bytes.get(e.valid_up_to()).copied().unwrap_or(0);
            Err(CsvError::at(line, format!("invalid UTF-8 (byte 0x{bad:02x}); data files must be UTF-8")))
        }
    }
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

fn empty_file_message(text: &str) -> String {
    if text.is_empty() {
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

/// A cursor over the text that yields one record (row of fields) at a time.
struct Parser<'a> {
    text: &'a str,
    delim: &'a str,
    /// `delim` when it is a single char, for a faster search.
    delim_char: Option<char>,
    quoted: bool,
    /// A blank line is a record (see [`CsvOptions::ragged`]) instead of being skipped.
    blank_rows: bool,
    /// Byte offset of the next unread character; always on a char boundary.
    pos: usize,
    /// 1-based line of `pos`.
    line: usize,
}

impl<'a> Parser<'a> {
    /// The next record and the line it starts on; `None` at end of input.
    fn next_record(&mut self) -> Result<Option<(usize, Vec<String>)>, CsvError> {
        if !self.blank_rows {
            self.skip_blank_lines();
        }
        if self.pos >= self.text.len() {
            return Ok(None);
        }
        let start_line = self.line;
        if self.blank_rows {
            let rest = &self.text.as_bytes()[self.pos..];
            if rest.starts_with(b"\n") || rest.starts_with(b"\r\n") || rest == b"\r" {
                self.end_line(self.line_end_from(self.pos));
                // JMeter's CSV parser gives one empty field; splitting an empty line gives none.
                let fields = if self.quoted { vec![String::new()] } else { Vec::new() };
                return Ok(Some((start_line, fields)));
            }
        }
        let mut fields = Vec::new();
        // Cached so a line with many fields is scanned once for its end, not once per field.
        let mut line_end = self.line_end_from(self.pos);
        loop {
            if self.quoted && self.text.as_bytes().get(self.pos) == Some(&b'"') {
                fields.push(self.quoted_field()?);
                if self.pos > line_end {
                    // The field ran over line breaks; the record now ends on a later line.
                    line_end = self.line_end_from(self.pos);
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
                return Err(CsvError::at(
                    self.line,
                    format!(
                        "unexpected text after the closing quote of field {}; a quoted field must be followed by the \
                         delimiter or the end of the line (write \"\" for a quote inside quotes)",
                        fields.len()
                    ),
                ));
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
            fields.push(self.text[self.pos..value_end].to_string());
            if field_end < line_end {
                self.pos = field_end + self.delim.len();
            } else {
                self.end_line(line_end);
                break;
            }
        }
        Ok(Some((start_line, fields)))
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
            } else if rest == b"\r" {
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

    /// Reads a quoted field starting at the opening quote at `pos`, leaving `pos` just after the closing quote.
    fn quoted_field(&mut self) -> Result<String, CsvError> {
        let open_line = self.line;
        let mut value = String::new();
        let mut seg_start = self.pos + 1;
        loop {
            let Some(i) = self.text[seg_start..].find('"') else {
                return Err(CsvError::at(open_line, "unterminated quoted field: the opening quote is never closed"));
            };
            let quote = seg_start + i;
            let segment = &self.text[seg_start..quote];
            self.line += segment.bytes().filter(|&b| b == b'\n').count();
            value.push_str(segment);
            if self.text.as_bytes().get(quote + 1) == Some(&b'"') {
                value.push('"');
                seg_start = quote + 2;
            } else {
                self.pos = quote + 1;
                return Ok(value);
            }
        }
    }
}

#[cfg(test)]
mod tests;
