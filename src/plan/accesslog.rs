//! JMeter's Access Log Sampler (`AccessLogSampler`): each sample takes the next entry of a web
//! server's access log (common log format, `"GET /path?query HTTP/1.1"`) and sends it as an
//! HTTP request to the sampler's server. What an entry gives is what JMeter's `TCLogParser`
//! reads of a line ([`parse_log`]); how entries are handed out is its parsers' rule:
//!
//! - `TCLogParser`: each thread reads the file from its start, one entry a sample. Past the
//!   last one the sample fails ("No entries found") and, without a filter, the thread stops;
//!   with one, its Cookie Manager is cleared and the next sample starts the file again.
//! - `SharedTCLogParser` and `OrderPreservingLogParser`: one position for all threads (JMeter's
//!   `FileServer`, which starts the file again at its end), so each entry goes to one thread.
//!
//! The sample's label is its URL (JMeter's `HTTPSamplerBase.toString`).

use super::sampler::http::CheckId;
use super::LabelId;
use super::VarId;
use std::sync::Arc;

/// An Access Log Sampler's log and how its request takes an entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AccessLog {
    pub source: Source,
    /// One position for every user (the shared parsers), else one per user.
    pub shared: bool,
    /// A filter class is set (`LogFilter`): at the end of the log the user goes on from the
    /// start, its cookies cleared, rather than stopping.
    pub filter: bool,
    /// The counter slot of the position: a user's own, or the run's for a shared parser (one
    /// per log file, as JMeter's `FileServer` keys it by name).
    pub slot: u32,
    /// Holds the sample's URL, which its run-time label renders.
    pub url_var: VarId,
    /// The label of a sample that takes no entry (JMeter's error result has none).
    pub unlabelled: LabelId,
    /// "No entries found": the end of the log.
    pub no_entries: CheckId,
}

/// What the sampler reads entries from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    Entries(Arc<[Entry]>),
    /// Every sample fails unsent with this check: no parser (no log file or parser named), or
    /// a log that cannot be read (JMeter's "Problem parsing the log file"). The thread goes on.
    Fails(CheckId),
}

/// One request of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `GET`, `POST` or `HEAD`.
    pub method: &'static str,
    pub path: String,
    /// The query's arguments as written (`HTTPSamplerBase.parseArguments`: not decoded, an
    /// empty name left out); `None`: a name without `=`.
    pub args: Vec<(String, Option<String>)>,
}

/// The entries of a log as JMeter's `TCLogParser` reads it, in order: every line that is not
/// empty is one (JMeter counts a line whatever it holds when no filter drops it). A line
/// without a quoted request is taken whole as the path, as JMeter takes it.
pub(crate) fn parse_log(text: &str) -> Vec<Entry> {
    // The parser's method is kept from one line to the next (its `RMETHOD`): a line that names
    // none is sent with the one before's.
    let mut method: Option<&'static str> = None;
    text.split(['\n', '\r'])
        .filter(|l| !l.is_empty())
        .map(|line| {
            let url = clean_url(line, &mut method);
            let (path, query) = strip_file(url);
            Entry {
                method: method.unwrap_or("GET"),
                path: path.to_string(),
                args: query.map(parse_arguments).unwrap_or_default(),
            }
        })
        .collect()
}

/// `TCLogParser.checkMethod`: the first of GET, POST, HEAD the text contains anywhere.
fn check_method(text: &str, method: &mut Option<&'static str>) -> bool {
    let found = ["GET", "POST", "HEAD"].into_iter().find(|m| text.contains(m));
    if found.is_some() {
        *method = found;
    }
    found.is_some()
}

/// `TCLogParser.cleanURL`: in the first quoted part that names a method, the first word that
/// starts with `/` (a word equal to a method, in any case, sets the method); else the line.
fn clean_url<'a>(entry: &'a str, method: &mut Option<&'static str>) -> &'a str {
    if !(entry.contains('"') && check_method(entry, method)) {
        return entry;
    }
    // StringTokenizer: runs of delimiters are one, no empty tokens.
    for token in entry.split('"').filter(|t| !t.is_empty()) {
        if !check_method(token, method) {
            continue;
        }
        for word in token.split(' ').filter(|t| !t.is_empty()) {
            for m in ["GET", "POST", "HEAD"] {
                if word.eq_ignore_ascii_case(m) {
                    *method = Some(m);
                }
            }
            if word.starts_with('/') {
                return word;
            }
        }
        break;
    }
    entry
}

/// `TCLogParser.stripFile`: the path is the text before the first `?`, the query the text up to
/// the next one (StringTokenizer on `?`).
fn strip_file(url: &str) -> (&str, Option<&str>) {
    if !url.contains('?') {
        return (url, None);
    }
    let mut tokens = url.split('?').filter(|t| !t.is_empty());
    (tokens.next().unwrap_or_default(), tokens.next())
}

/// `HTTPSamplerBase.parseArguments`: `name=value`, `name=` or `name`, split at `&`, kept as
/// written; an argument without a name is dropped.
fn parse_arguments(query: &str) -> Vec<(String, Option<String>)> {
    query
        .split('&')
        .filter_map(|arg| {
            let (name, value) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (arg, None),
            };
            (!name.is_empty()).then(|| (name.to_string(), value))
        })
        .collect()
}

/// The text of a log file: a gzip file is read decompressed by the per-thread parser
/// (`TCLogParser.isGZIP`); the shared parsers read lines as they are (JMeter's `FileServer`).
pub(crate) fn log_text(bytes: &[u8], gunzip: bool) -> std::io::Result<String> {
    if gunzip && bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let decoder = flate2::read::MultiGzDecoder::new(bytes);
        std::io::Read::read_to_end(&mut std::io::Read::take(decoder, MAX_LOG_BYTES + 1), &mut out)?;
        too_big(out.len())?;
        return Ok(String::from_utf8_lossy(&out).into_owned());
    }
    too_big(bytes.len())?;
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The most of a log (decompressed) read when the plan loads: its entries are held in memory
/// (a few times its size), where JMeter streams it; past this a run would exhaust the memory
/// before its first request, so the log is refused, said to be too big, instead.
pub(crate) const MAX_LOG_BYTES: u64 = 1 << 30;

/// An error when `len` bytes of a log are over [`MAX_LOG_BYTES`].
pub(crate) fn too_big(len: usize) -> std::io::Result<()> {
    if len as u64 > MAX_LOG_BYTES {
        return Err(std::io::Error::other(format!(
            "it holds over {} MiB (decompressed), which stampede reads whole when the plan loads: split it",
            MAX_LOG_BYTES >> 20
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: &'static str, path: &str, args: &[(&str, Option<&str>)]) -> Entry {
        let args = args.iter().map(|(n, v)| (n.to_string(), v.map(str::to_string))).collect();
        Entry { method, path: path.into(), args }
    }

    #[test]
    fn a_log_over_the_cap_is_refused_and_a_gzip_is_read_up_to_it() {
        assert!(too_big(MAX_LOG_BYTES as usize).is_ok());
        let e = too_big(MAX_LOG_BYTES as usize + 1).unwrap_err();
        assert!(e.to_string().contains("split it"), "{e}");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"1.2.3.4 - - [x] \"GET /a HTTP/1.1\" 200 1\n").unwrap();
        assert_eq!(log_text(&gz.finish().unwrap(), true).unwrap().lines().count(), 1);
    }

    #[test]
    fn common_log_format_lines_give_method_path_and_the_query_as_written() {
        let log = concat!(
            "127.0.0.1 - - [08/Jan/2003:07:03:54 -0500] \"GET /al/one HTTP/1.1\" 200 1981\n",
            "127.0.0.1 - - [08/Jan/2003:07:03:55 -0500] \"GET /al/two?a=1&b&c=&&d=x%20y+z HTTP/1.1\" 200 10\n",
            "\n",
            "127.0.0.1 - - [x] \"HEAD /al/three?q=GET HTTP/1.0\" 200 0\r\n",
            "127.0.0.1 - - [x] \"post /al/four?p=1&r=a%2Fb HTTP/1.1\" 302 0\n",
        );
        assert_eq!(
            parse_log(log),
            vec![
                entry("GET", "/al/one", &[]),
                entry("GET", "/al/two", &[("a", Some("1")), ("b", None), ("c", Some("")), ("d", Some("x%20y+z"))]),
                // The request names HEAD; its query says GET: the word wins.
                entry("HEAD", "/al/three", &[("q", Some("GET"))]),
                // `post` names no method (`contains` minds case): the line is taken whole, cut at `?`.
                entry(
                    "HEAD",
                    "127.0.0.1 - - [x] \"post /al/four",
                    &[("p", Some("1")), ("r", Some("a%2Fb HTTP/1.1\" 302 0"))]
                ),
            ]
        );
    }

    #[test]
    fn a_line_without_a_request_is_its_own_path_and_keeps_the_method_before() {
        let log = "x \"POST /a?z HTTP/1.1\"\n/plain/path?k=v?ignored\n\"GET nothing-with-a-slash\"\n";
        assert_eq!(
            parse_log(log),
            vec![
                entry("POST", "/a", &[("z", None)]),
                entry("POST", "/plain/path", &[("k", Some("v"))]),
                entry("GET", "\"GET nothing-with-a-slash\"", &[]),
            ]
        );
        // No method before the first line that names one: GET.
        assert_eq!(parse_log("/first")[0].method, "GET");
        assert!(parse_log("\n\r\n\n").is_empty());
    }

    #[test]
    fn a_gzip_log_is_read_decompressed_only_when_asked() {
        let text = "a \"GET /z HTTP/1.1\"\n";
        let gz = crate::plan::gzip(text.as_bytes());
        assert_eq!(log_text(&gz, true).unwrap(), text);
        assert_ne!(log_text(&gz, false).unwrap(), text);
        assert_eq!(log_text(text.as_bytes(), true).unwrap(), text);
    }
}
