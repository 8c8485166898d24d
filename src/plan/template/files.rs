//! JMeter's functions that read files or ask the machine: `__FileToString`, `__StringFromFile`,
//! `__CSVRead`, `__machineName`, `__machineIP`, and the plan's directory through the idiom
//! `${__BeanShell(FileServer.getFileServer().getBaseDir())}`.
//!
//! A relative file name is read from the plan's directory, as JMeter's FileServer resolves
//! `__CSVRead`'s (JMeter 5.6.3 reads `__FileToString`'s and `__StringFromFile`'s from its working
//! directory, which is the plan's when JMeter is started beside it). A file named by constant
//! text is opened (`__FileToString`: read) once when the plan loads; one named at run time is
//! named when the function runs, as JMeter evaluates it: `__FileToString` reads it at each
//! call, `__StringFromFile` at its first call and again at each end of the file, `__CSVRead`
//! at the first call naming each file (a file that cannot be read then is tried again at the
//! next call). Such a read at run time is made off the async worker.
//!
//! A name the plan writes inside its directory must stay inside once its links are followed
//! (a refusal is a load error); a name it writes outside is its author's choice. A name made at
//! run time reaches only what resolves under the plan's directory (else `**ERR**`), as a
//! script's paths do: see [`crate::confine`].

use super::{Scope, Symbols, Template, TemplateError, VarId, VarTable};
use crate::confine::PlanDir;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What JMeter's file functions return for a file they cannot read.
const ERR: &str = "**ERR**";

#[derive(Debug, Clone, PartialEq)]
pub(super) enum FileFn {
    /// `__FileToString` of a file read when the plan loaded (or `**ERR**`).
    Text(String),
    /// `__FileToString` of a file named at run time: only under the plan's directory.
    ReadEach { path: Template, dir: PlanDir, latin1: bool },
    /// `__StringFromFile`: the next line, shared by all users, from the first again after the
    /// last; `None` when the file cannot be read.
    Lines { lines: Option<Arc<SharedLines>> },
    /// `__CSVRead(file,column|next)`: a column of the user's current row (the next row of the
    /// file, shared by all users, taken when the user has none); `next` drops the current row.
    /// The user's row is its line, kept in `row` (empty: none).
    Csv { lines: Option<Arc<SharedLines>>, column: Template, row: VarId },
    /// `__StringFromFile` of a file named at run time: one reader for every user of this call,
    /// as JMeter shares the function's instance (StringFromFile.openFile).
    LinesAt { path: Template, dir: PlanDir, state: Arc<LinesAt> },
    /// `__CSVRead` of a file named at run time: the file's rows are the ones every
    /// `__CSVRead` of that name shares (FileWrapper's containers are keyed by the name); the
    /// user's row is kept under [`row_name`] of it.
    CsvAt { path: Template, dir: PlanDir, column: Template, files: CsvFiles },
}

/// Every file `__CSVRead` has opened, by the name it was called with: shared by all users and
/// every call of the plan, as JMeter's FileWrapper keeps one container per name.
#[derive(Debug, Clone, Default)]
pub(crate) struct CsvFiles(Arc<std::sync::Mutex<std::collections::HashMap<String, Arc<SharedLines>>>>);

impl PartialEq for CsvFiles {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl CsvFiles {
    fn get(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Arc<SharedLines>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The user's variable holding its current row of `__CSVRead`'s file `name` (`""`: none).
fn row_name(name: &str) -> String {
    format!("__CSVRead row of {name}")
}

/// The state of a `__StringFromFile` named at run time: JMeter opens the file at the first
/// call, naming it then, and again at each end of it; one that cannot be opened gives
/// `**ERR**` from then on (it "avoids re-opening the file repeatedly after an error").
#[derive(Debug, Default)]
pub(crate) struct LinesAt(std::sync::Mutex<LinesState>);

impl PartialEq for LinesAt {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

#[derive(Debug, Default)]
enum LinesState {
    #[default]
    NotYet,
    Failed,
    Open(std::io::BufReader<std::fs::File>),
}

impl FileFn {
    pub(super) fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) -> bool {
        match self {
            FileFn::Text(s) => out.push_str(s),
            FileFn::ReadEach { path, dir, latin1 } => {
                let name = path.render_string(u);
                let text = off_the_worker(|| read_text(&dir.confine(Path::new(&name)).ok()?, *latin1));
                out.push_str(&text.unwrap_or_else(|| ERR.into()));
            }
            FileFn::Lines { lines: None } => out.push_str(ERR),
            FileFn::Lines { lines: Some(lines) } => {
                // An empty file: Java's readLine gives null, which is appended as "null".
                if !lines.next_into(out) {
                    out.push_str("null");
                }
            }
            FileFn::Csv { lines, column, row } => {
                let col = column.render_string(u);
                if col == "next" || col == "next()" {
                    u.set_var(*row, "");
                    return true;
                }
                let Ok(col) = col.parse::<usize>() else { return true };
                if u.var(*row).is_empty() {
                    let mut line = String::new();
                    if lines.as_ref().is_some_and(|l| l.next_into(&mut line)) {
                        u.set_var(*row, &line);
                    }
                }
                // A column beyond the row (or a file without rows) is empty text.
                if let Some(v) = split_line(u.var(*row)).nth(col) {
                    out.push_str(v);
                }
            }
            FileFn::LinesAt { path, dir, state } => state.next_into(path, dir, u, out),
            FileFn::CsvAt { path, dir, column, files } => csv_at(path, dir, column, files, u, out),
        }
        true
    }

    pub(super) fn templates(&self) -> Vec<&Template> {
        match self {
            FileFn::ReadEach { path, .. } | FileFn::LinesAt { path, .. } => vec![path],
            FileFn::Csv { column, .. } => vec![column],
            FileFn::CsvAt { path, column, .. } => vec![path, column],
            _ => Vec::new(),
        }
    }

    pub(super) fn fold(&mut self, vars: &VarTable) {
        match self {
            FileFn::ReadEach { path, .. } | FileFn::LinesAt { path, .. } => path.fold(vars),
            FileFn::Csv { column, .. } => column.fold(vars),
            FileFn::CsvAt { path, column, .. } => {
                path.fold(vars);
                column.fold(vars);
            }
            _ => {}
        }
    }

    pub(super) fn constant(&self) -> Option<String> {
        match self {
            FileFn::Text(s) => Some(s.clone()),
            _ => None,
        }
    }
}

fn arg(message: impl Into<String>) -> TemplateError {
    TemplateError::Argument(message.into())
}

/// Where a relative file name is read from: the plan's directory (else the working directory).
fn base(sym: &Symbols) -> PlanDir {
    PlanDir::new(sym.base_dir.as_deref().unwrap_or(Path::new("")))
}

/// The path to read a file the plan names by: refused when it leads out of the plan's
/// directory through a link.
fn named(sym: &Symbols, what: &str, name: &str) -> Result<PathBuf, TemplateError> {
    base(sym).named(Path::new(name)).map_err(|e| arg(format!("`{what}` cannot read it: {e}")))
}

/// Compiles `__FileToString`, `__StringFromFile` or `__CSVRead` from its first two arguments;
/// returns the function and the index of the argument naming the variable to store in.
pub(super) fn compile(
    name: &str,
    mut args: Vec<Template>,
    sym: &mut Symbols,
) -> Result<(FileFn, Option<usize>), TemplateError> {
    let second = (args.len() > 1).then(|| args.pop()).flatten();
    let path = args.pop().unwrap_or_default();
    match name {
        "FileToString" => {
            let encoding = match &second {
                None => Some(String::new()),
                Some(t) => t.as_const().map(|s| s.trim().to_ascii_uppercase()),
            };
            let latin1 = match encoding.as_deref() {
                Some("" | "UTF-8" | "UTF8" | "US-ASCII" | "ASCII") => false,
                Some("ISO-8859-1" | "ISO8859_1" | "LATIN1") => true,
                _ => {
                    return Err(arg("the file's encoding may be UTF-8, US-ASCII or ISO-8859-1, given as constant text"))
                }
            };
            let f = match path.as_const() {
                Some(p) => {
                    FileFn::Text(read_text(&named(sym, "__FileToString", p)?, latin1).unwrap_or_else(|| ERR.into()))
                }
                None => FileFn::ReadEach { path, dir: base(sym), latin1 },
            };
            Ok((f, Some(2)))
        }
        "StringFromFile" => {
            let Some(p) = path.as_const() else {
                return Ok((FileFn::LinesAt { path, dir: base(sym), state: Arc::default() }, Some(1)));
            };
            let lines = SharedLines::open(&named(sym, "__StringFromFile", p)?, false).map(Arc::new);
            Ok((FileFn::Lines { lines }, Some(1)))
        }
        _ => {
            let column = second.unwrap_or_default();
            let Some(p) = path.as_const().map(str::to_string) else {
                let files = sym.csv_files.clone();
                return Ok((FileFn::CsvAt { path, dir: base(sym), column, files }, None));
            };
            if p.starts_with('*') {
                return Err(arg("`__CSVRead` of an alias (`*name`) is not supported"));
            }
            let (lines, row) = match sym.csv_read.get(&p) {
                Some(known) => known.clone(),
                None => {
                    // Rows end at the first empty line (FileRowColContainer stops there).
                    let lines = SharedLines::open(&named(sym, "__CSVRead", &p)?, true).map(Arc::new);
                    if let Some(l) = &lines {
                        // A call naming it at run time shares its rows.
                        sym.csv_files.get().insert(p.clone(), l.clone());
                    }
                    // The user's state, not a JMeter variable: `""` (no row yet), never unset.
                    let state = row_name(&p);
                    sym.vars.define(&state, String::new());
                    let row = sym.vars.assign(&state);
                    let entry = (lines, row);
                    sym.csv_read.insert(p.clone(), entry.clone());
                    entry
                }
            };
            Ok((FileFn::Csv { lines, column, row }, None))
        }
    }
}

/// `__CSVRead` of a file named at run time (FileWrapper.getColumn and endRow).
fn csv_at<S: Scope + ?Sized>(
    path: &Template,
    dir: &PlanDir,
    column: &Template,
    files: &CsvFiles,
    u: &mut S,
    out: &mut String,
) {
    let name = path.render_string(u);
    let col = column.render_string(u);
    let key = row_name(&name);
    if col == "next" || col == "next()" {
        // JMeter's endRow of a file this user never read only logs.
        if u.var_named(&key).is_some_and(|r| !r.is_empty()) {
            u.set_var_named(&key, "");
        }
        return;
    }
    let Ok(col) = col.parse::<usize>() else { return };
    let row = u.var_named(&key).unwrap_or("");
    if row.is_empty() {
        // An alias is only reached through a file opened under it, which is refused at load.
        if name.starts_with('*') {
            return;
        }
        let known = files.get().get(&name).cloned();
        let lines = match known {
            Some(l) => l,
            // Opened once for all users; one that cannot be opened is tried again at the next
            // call, as FileWrapper stores only a container it could make.
            None => {
                let opened = off_the_worker(|| {
                    let real = dir.confine(Path::new(&name)).ok()?;
                    SharedLines::open(&real, true).map(Arc::new)
                });
                let Some(opened) = opened else { return };
                files.get().entry(name.clone()).or_insert(opened).clone()
            }
        };
        let mut line = String::new();
        if !lines.next_into(&mut line) {
            return;
        }
        u.set_var_named(&key, &line);
    }
    if let Some(v) = u.var_named(&key).and_then(|r| split_line(r).nth(col)) {
        out.push_str(v);
    }
}

impl LinesAt {
    /// StringFromFile.execute: the next line; at the end of the file, the file named again and
    /// its first line.
    fn next_into<S: Scope + ?Sized>(&self, path: &Template, dir: &PlanDir, u: &mut S, out: &mut String) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*state, LinesState::NotYet) {
            *state = open_lines(path, dir, u);
        }
        let LinesState::Open(reader) = &mut *state else {
            out.push_str(ERR);
            return;
        };
        let mut line = Vec::new();
        if read_line(reader, false, &mut line) {
            out.push_str(&String::from_utf8_lossy(&line));
            return;
        }
        *state = open_lines(path, dir, u);
        match &mut *state {
            LinesState::Open(reader) => {
                line.clear();
                if read_line(reader, false, &mut line) {
                    out.push_str(&String::from_utf8_lossy(&line));
                } else {
                    // Java's readLine gives null, which is appended as "null".
                    out.push_str("null");
                }
            }
            _ => out.push_str(ERR),
        }
    }
}

/// Names the file now and opens it (off the async worker): only under the plan's directory.
fn open_lines<S: Scope + ?Sized>(path: &Template, dir: &PlanDir, u: &mut S) -> LinesState {
    let name = path.render_string(u);
    let file = off_the_worker(|| open_file(&dir.confine(Path::new(&name)).ok()?));
    file.map_or(LinesState::Failed, |f| LinesState::Open(std::io::BufReader::new(f)))
}

/// Runs `f`, handing this worker's other tasks to another worker while it does (a
/// multi-threaded runtime), so a long computation or a file read at run time does not stall
/// them.
pub(crate) fn off_the_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Reads the next line into `line` (without its line ending); false at the end of the file
/// (and, with `stop_at_empty`, at an empty line).
fn read_line(r: &mut std::io::BufReader<std::fs::File>, stop_at_empty: bool, line: &mut Vec<u8>) -> bool {
    use std::io::{BufRead, Read};
    // Bounded, so that a file without line breaks is read a piece at a time.
    let limit = crate::plan::csv_data::MAX_ROW as u64;
    let n = r.take(limit).read_until(b'\n', line).unwrap_or(0);
    if line.ends_with(b"\n") {
        line.pop();
        if line.ends_with(b"\r") {
            line.pop();
        }
    }
    n > 0 && !(stop_at_empty && line.is_empty())
}

/// A file every user reads a line at a time, in turn (`__StringFromFile`, `__CSVRead`): one
/// reader under a lock, from the first line again after the last, never held whole (JMeter's
/// StringFromFile reads it so; its `__CSVRead` holds the file, which a big file cannot afford).
/// Its position belongs to the loaded plan, which a run loads afresh (a sweep's steps too).
#[derive(Debug)]
pub(crate) struct SharedLines {
    /// `__CSVRead`: an empty line ends the rows as the end of the file does.
    stop_at_empty: bool,
    reader: std::sync::Mutex<std::io::BufReader<std::fs::File>>,
}

impl PartialEq for SharedLines {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl SharedLines {
    /// `None` when the file cannot be opened.
    fn open(path: &Path, stop_at_empty: bool) -> Option<SharedLines> {
        let file = open_file(path)?;
        Some(SharedLines { stop_at_empty, reader: std::sync::Mutex::new(std::io::BufReader::new(file)) })
    }

    /// Appends the next line (without its line ending; not UTF-8 is replaced); after the last,
    /// the first. False when the file has no line.
    fn next_into(&self, out: &mut String) -> bool {
        use std::io::Seek;
        let mut r = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        let mut line = Vec::new();
        for pass in 0..2 {
            line.clear();
            if !read_line(&mut r, self.stop_at_empty, &mut line) {
                if pass == 0 && r.rewind().is_ok() {
                    continue;
                }
                return false;
            }
            out.push_str(&String::from_utf8_lossy(&line));
            return true;
        }
        false
    }
}

/// Opens a file a function reads; `None` when it cannot be. The one place these functions open
/// files, so that a rule on which files a plan may read applies to all of them.
fn open_file(path: &Path) -> Option<std::fs::File> {
    // Paths here were resolved by `PlanDir` (no link left in them), so a link in their last
    // part now is one made since: not followed.
    crate::confine::open(path, crate::confine::Access::Read).ok()
}

/// The whole file as text (a path resolved by [`PlanDir`], opened without following a link);
/// `None` when it cannot be read.
fn read_text(path: &Path, latin1: bool) -> Option<String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut open_file(path)?, &mut bytes).ok()?;
    Some(text_of(bytes, latin1))
}

fn text_of(bytes: Vec<u8>, latin1: bool) -> String {
    if latin1 {
        bytes.iter().map(|b| char::from(*b)).collect()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// FileRowColContainer.splitLine: fields between commas, an empty one between two commas and
/// after a trailing comma (`a,,b,` is `a`, ``, `b`, ``).
fn split_line(line: &str) -> std::str::Split<'_, char> {
    line.split(',')
}

/// The machine's name (`InetAddress.getLocalHost().getHostName()`), `localhost` if unknown.
pub(super) fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    match std::str::from_utf8(&buf[..end]) {
        Ok(s) if rc == 0 && !s.is_empty() => s.to_string(),
        _ => "localhost".into(),
    }
}

/// The machine's address (`InetAddress.getLocalHost().getHostAddress()`: its name resolved,
/// IPv4 first), `127.0.0.1` if the name does not resolve.
pub(super) fn host_ip() -> String {
    use std::net::ToSocketAddrs;
    let addrs: Vec<std::net::IpAddr> =
        (host_name().as_str(), 0).to_socket_addrs().map(|a| a.map(|s| s.ip()).collect()).unwrap_or_default();
    addrs.iter().find(|a| a.is_ipv4()).or(addrs.first()).map_or_else(|| "127.0.0.1".into(), |a| a.to_string())
}

/// The plan's directory when `script` only asks FileServer for it (the idiom
/// `import org.apache.jmeter.services.FileServer; FileServer.getFileServer().getBaseDir();`),
/// with string literals and `File.separator` joined by `+`. `None` for any other script.
pub(super) fn base_dir_script(script: &str, sym: &Symbols) -> Option<String> {
    let dir = sym.base_dir.as_deref()?;
    // A plan named without a directory is in the working directory.
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let base = std::path::absolute(dir).ok()?.to_string_lossy().trim_end_matches("/.").to_string();
    let mut s = script.trim();
    while let Some(rest) = s.strip_prefix("import ") {
        s = rest[rest.find(';')? + 1..].trim_start();
    }
    let s = s.trim().trim_end_matches(';').trim();
    let s = s.strip_prefix("return ").unwrap_or(s);
    let mut out = String::new();
    let mut asked = false;
    for term in split_plus(s)? {
        let compact: String = term.chars().filter(|c| !c.is_whitespace()).collect();
        let call = compact.strip_prefix("org.apache.jmeter.services.").unwrap_or(&compact);
        let call = call.strip_suffix(".toString()").unwrap_or(call);
        if call == "FileServer.getFileServer().getBaseDir()" {
            out.push_str(&base);
            asked = true;
        } else if ["File.separator", "java.io.File.separator", "System.getProperty(\"file.separator\")"].contains(&call)
        {
            out.push('/');
        } else {
            let t = term.trim();
            let lit = t.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
            let lit = lit.or_else(|| t.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')));
            match lit {
                Some(l) if !l.contains(['"', '\'', '\\']) => out.push_str(l),
                _ => return None,
            }
        }
    }
    asked.then_some(out)
}

/// Splits on `+` outside quotes; `None` if a quote is not closed.
fn split_plus(s: &str) -> Option<Vec<&str>> {
    let mut terms = Vec::new();
    let (mut start, mut quote) = (0, None);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '+') => {
                terms.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&s[start..]);
    quote.is_none().then_some(terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_base(dir: &str) -> Symbols {
        Symbols { base_dir: Some(PathBuf::from(dir)), ..Default::default() }
    }

    #[test]
    fn the_base_dir_idiom_and_its_variants() {
        let s = with_base("/plans/shop");
        for script in [
            "import org.apache.jmeter.services.FileServer; FileServer.getFileServer().getBaseDir();",
            "import org.apache.jmeter.services.FileServer;\nFileServer.getFileServer().getBaseDir()",
            "org.apache.jmeter.services.FileServer.getFileServer().getBaseDir()",
            " FileServer.getFileServer( ).getBaseDir() ; ",
            "return FileServer.getFileServer().getBaseDir();",
        ] {
            assert_eq!(base_dir_script(script, &s).as_deref(), Some("/plans/shop"), "{script}");
        }
        assert_eq!(
            base_dir_script("FileServer.getFileServer().getBaseDir() + \"/data/users.csv\"", &s).as_deref(),
            Some("/plans/shop/data/users.csv")
        );
        assert_eq!(
            base_dir_script("FileServer.getFileServer().getBaseDir() + File.separator + 'a+b.csv'", &s).as_deref(),
            Some("/plans/shop/a+b.csv")
        );
        assert_eq!(base_dir_script("vars.get(\"x\")", &s), None);
        assert_eq!(base_dir_script("\"a\" + \"b\"", &s), None, "a script that does not ask for the directory");
        assert_eq!(base_dir_script("FileServer.getFileServer().getBaseDir() + x", &s), None);
        assert_eq!(base_dir_script("FileServer.getFileServer().getBaseDir();", &Symbols::default()), None);
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            base_dir_script("FileServer.getFileServer().getBaseDir()", &with_base("")),
            Some(cwd.display().to_string())
        );
    }

    #[test]
    fn csv_lines_split_like_jmeter() {
        let split = |l| split_line(l).collect::<Vec<_>>();
        assert_eq!(split("a,,b,"), ["a", "", "b", ""]);
        assert_eq!(split(",a"), ["", "a"]);
        assert_eq!(split("x"), ["x"]);
    }
}
