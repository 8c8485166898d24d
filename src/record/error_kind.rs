//! Why a sample failed. Transport failures are told apart because each points to a different
//! problem in the system under test (a refused connection is not a keep-alive race).

use std::fmt;

/// Why a sample failed: a transport error, an HTTP status, or a failed check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// Nothing listens on the port (ECONNREFUSED).
    Refused,
    /// The peer reset the connection (ECONNRESET, EPIPE) on a fresh connection.
    Reset,
    /// A kept-alive connection that had already served a response was reset or closed before
    /// the next response began: the classic idle-timeout race between client and server.
    ResetOnReuse,
    /// The server closed the connection before a complete response.
    Closed,
    /// No complete response within the response timeout.
    Timeout,
    /// The connection could not be opened within the connect timeout.
    ConnectTimeout,
    /// The host name does not resolve.
    Dns,
    /// The TLS handshake failed (certificate, protocol).
    Tls,
    /// The response is larger than the plan's `max_response_size`.
    TooLarge,
    /// The response is not valid HTTP/1.x.
    Protocol,
    /// Any other I/O failure.
    Io,
    /// The request's URL, made from run-time values, is not a valid http(s) URL.
    BadUrl,
    /// The request was on the wire when the run abandoned it (the graceful stop ran out, a
    /// second interrupt): the server may have seen it, so it counts, failed.
    Aborted,
    /// The generator ran out of file descriptors (EMFILE/ENFILE) opening a connection: a
    /// limit of the load generator (`ulimit -n`), not a failure of the server.
    GeneratorFds,
    /// An HTTP status >= 400 (`http_503`), or one outside 100–599, which no HTTP server may
    /// send (`protocol_status_700`, `protocol_status_000`).
    Status(u16),
    /// A check (or a required extraction) failed; the number indexes the plan's check
    /// messages, so failures are counted per message.
    Check(u16),
}

const TRANSPORT: [ErrorKind; 14] = [
    ErrorKind::Refused,
    ErrorKind::Reset,
    ErrorKind::ResetOnReuse,
    ErrorKind::Closed,
    ErrorKind::Timeout,
    ErrorKind::ConnectTimeout,
    ErrorKind::Dns,
    ErrorKind::Tls,
    ErrorKind::TooLarge,
    ErrorKind::Protocol,
    ErrorKind::Io,
    ErrorKind::BadUrl,
    ErrorKind::Aborted,
    ErrorKind::GeneratorFds,
];
/// How JMeter writes a sample that failed on an exception: `Non HTTP response code: <class>`,
/// `Non HTTP response message: <message>` (HTTPSamplerBase.errorResult). A check message of
/// the form `plan::sampler::http::non_http` writes stands for such a sample.
const NON_HTTP_CODE: &str = "Non HTTP response code: ";
const NON_HTTP_MESSAGE: &str = ", Non HTTP response message: ";

/// The response code and message JMeter writes for a check message that stands for a sample
/// failed on an exception (`Non HTTP response code: <class>, Non HTTP response message: <message>`).
pub(crate) fn split_non_http(check: &str) -> Option<(String, String)> {
    let rest = check.strip_prefix(NON_HTTP_CODE)?;
    let (class, message) = rest.split_once(NON_HTTP_MESSAGE)?;
    Some((format!("{NON_HTTP_CODE}{class}"), format!("Non HTTP response message: {message}")))
}

/// What starts the name of a failed check's kind.
pub(crate) const CHECK_PREFIX: &str = "check: ";
const STATUS_FIRST: u16 = 400;
const STATUS_LAST: u16 = 599;
/// What starts the name of a status no HTTP server may send (outside 100–599).
const BAD_STATUS_PREFIX: &str = "protocol_status_";
/// Slots: transport kinds, then each status 400..=599. Any other status is counted apart.
pub(crate) const SLOTS: usize = TRANSPORT.len() + (STATUS_LAST - STATUS_FIRST + 1) as usize;

/// Whether an HTTP status is one a server may send (RFC 9110 §15: three digits, 1xx to 5xx).
pub(crate) fn valid_status(status: u16) -> bool {
    (100..=599).contains(&status)
}

impl ErrorKind {
    /// A dense index, so counting an error is an array increment.
    /// `None` for the kinds counted outside the fixed slots: checks, and statuses outside
    /// 400..=599.
    pub fn slot(self) -> Option<usize> {
        match self {
            ErrorKind::Status(s) if (STATUS_FIRST..=STATUS_LAST).contains(&s) => {
                Some(TRANSPORT.len() + (s - STATUS_FIRST) as usize)
            }
            ErrorKind::Status(_) | ErrorKind::Check(_) => None,
            k => TRANSPORT.iter().position(|t| *t == k),
        }
    }

    /// The name used in summaries and reports: `refused`, `reset_on_reuse`, `http_503`...;
    /// a failed check is named by its message, `check: <message>`, from `checks`.
    pub fn name_with(self, checks: &[String]) -> String {
        match self {
            ErrorKind::Check(id) => match checks.get(id as usize) {
                Some(m) => format!("{CHECK_PREFIX}{m}"),
                None => format!("{CHECK_PREFIX}#{id}"),
            },
            k => k.name(),
        }
    }

    /// Reads a name written by [`ErrorKind::name_with`] back.
    pub(crate) fn from_name_with(name: &str, checks: &[String]) -> Option<ErrorKind> {
        if let Some(msg) = name.strip_prefix(CHECK_PREFIX) {
            return checks.iter().position(|m| m == msg).map(|i| ErrorKind::Check(i as u16));
        }
        ErrorKind::from_name(name)
    }

    /// The name of a kind that is not a check.
    pub fn name(self) -> String {
        match self {
            ErrorKind::Refused => "refused".into(),
            ErrorKind::Reset => "reset".into(),
            ErrorKind::ResetOnReuse => "reset_on_reuse".into(),
            ErrorKind::Closed => "closed".into(),
            ErrorKind::Timeout => "timeout".into(),
            ErrorKind::ConnectTimeout => "connect_timeout".into(),
            ErrorKind::Dns => "dns".into(),
            ErrorKind::Tls => "tls".into(),
            ErrorKind::TooLarge => "too_large".into(),
            ErrorKind::Protocol => "protocol".into(),
            ErrorKind::Io => "io".into(),
            ErrorKind::BadUrl => "bad_url".into(),
            ErrorKind::Aborted => "aborted".into(),
            ErrorKind::GeneratorFds => "generator_fds".into(),
            ErrorKind::Status(s) if valid_status(s) => format!("http_{s}"),
            ErrorKind::Status(s) => format!("{BAD_STATUS_PREFIX}{s:03}"),
            ErrorKind::Check(id) => format!("{CHECK_PREFIX}#{id}"),
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<ErrorKind> {
        // Any status: logs written before statuses outside 100–599 had a name of their own
        // call them `http_700` too.
        if let Some(code) = name.strip_prefix("http_") {
            return code.parse().ok().map(ErrorKind::Status);
        }
        if let Some(code) = name.strip_prefix(BAD_STATUS_PREFIX) {
            return code.parse().ok().filter(|s| !valid_status(*s)).map(ErrorKind::Status);
        }
        TRANSPORT.iter().copied().find(|k| k.name() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Counts per [`ErrorKind`], in a fixed array: no allocation when an error is counted, except
/// the first time (the array is allocated then, so labels without errors cost nothing; check
/// failures grow a small vector the first time a check fails).
#[derive(Clone, Default)]
pub struct ErrorCounts {
    counts: Option<Box<[u64; SLOTS]>>,
    /// Failures per check id.
    checks: Vec<u64>,
    /// Failures per status outside 400..=599 (each keeps its own kind), sorted by status.
    other_statuses: Vec<(u16, u64)>,
}

/// Equal when they count the same: cleared slots and zero entries are not told apart from none.
impl PartialEq for ErrorCounts {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for ErrorCounts {}

impl fmt::Debug for ErrorCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(k, v)| (k.name(), v))).finish()
    }
}

impl ErrorCounts {
    /// Counts `n` more of `kind`.
    pub fn add(&mut self, kind: ErrorKind, n: u64) {
        if let ErrorKind::Check(id) = kind {
            let i = id as usize;
            if self.checks.len() <= i {
                self.checks.resize(i + 1, 0);
            }
            self.checks[i] += n;
            return;
        }
        match kind.slot() {
            Some(slot) => self.counts.get_or_insert_with(|| Box::new([0; SLOTS]))[slot] += n,
            None => {
                let ErrorKind::Status(s) = kind else { unreachable!("only statuses and checks have no slot") };
                match self.other_statuses.binary_search_by_key(&s, |(k, _)| *k) {
                    Ok(i) => self.other_statuses[i].1 += n,
                    Err(i) => self.other_statuses.insert(i, (s, n)),
                }
            }
        }
    }

    /// The count of `kind`.
    pub fn get(&self, kind: ErrorKind) -> u64 {
        match kind {
            ErrorKind::Check(id) => self.checks.get(id as usize).copied().unwrap_or(0),
            k => match k.slot() {
                Some(slot) => self.counts.as_ref().map_or(0, |c| c[slot]),
                None => {
                    let ErrorKind::Status(s) = k else { return 0 };
                    self.other_statuses.iter().find(|(k, _)| *k == s).map_or(0, |(_, n)| *n)
                }
            },
        }
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &ErrorCounts) {
        if let Some(theirs) = &other.counts {
            let mine = self.counts.get_or_insert_with(|| Box::new([0; SLOTS]));
            for (a, b) in mine.iter_mut().zip(theirs.iter()) {
                *a += *b;
            }
        }
        if self.checks.len() < other.checks.len() {
            self.checks.resize(other.checks.len(), 0);
        }
        for (a, b) in self.checks.iter_mut().zip(&other.checks) {
            *a += *b;
        }
        for &(status, n) in &other.other_statuses {
            self.add(ErrorKind::Status(status), n);
        }
    }

    /// Sets every count to 0, keeping the memory.
    pub fn clear(&mut self) {
        if let Some(c) = &mut self.counts {
            c.fill(0);
        }
        self.checks.fill(0);
        self.other_statuses.iter_mut().for_each(|(_, n)| *n = 0);
    }

    /// Non-zero counts, transport kinds first, then statuses 400..=599 in order, then other
    /// statuses, then checks.
    pub fn iter(&self) -> impl Iterator<Item = (ErrorKind, u64)> + '_ {
        let checks =
            self.checks.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, c)| (ErrorKind::Check(i as u16), *c));
        let others = self.other_statuses.iter().filter(|(_, n)| *n > 0).map(|&(s, n)| (ErrorKind::Status(s), n));
        self.counts
            .iter()
            .flat_map(|c| c.iter())
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| {
                let kind = if i < TRANSPORT.len() {
                    TRANSPORT[i]
                } else {
                    ErrorKind::Status(STATUS_FIRST + (i - TRANSPORT.len()) as u16)
                };
                (kind, *c)
            })
            .chain(others)
            .chain(checks)
    }

    /// The sum of every count.
    pub fn total(&self) -> u64 {
        self.counts.iter().flat_map(|c| c.iter()).sum::<u64>()
            + self.other_statuses.iter().map(|(_, n)| n).sum::<u64>()
            + self.checks.iter().sum::<u64>()
    }

    /// Names and counts for a summary, with check failures named by their messages.
    /// Two checks with one message (their texts differed only by a redacted secret) add up.
    pub fn named(&self, checks: &[String]) -> std::collections::BTreeMap<String, u64> {
        let mut out = std::collections::BTreeMap::new();
        for (k, v) in self.iter() {
            *out.entry(k.name_with(checks)).or_insert(0) += v;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// #13: a sample JMeter fails on an exception reads back as JMeter's code and message.
    #[test]
    fn non_http_reads_back_as_jmeter_writes_it() {
        let m = "Non HTTP response code: java.io.FileNotFoundException, Non HTTP response message: /x, y (No such file or directory)";
        assert_eq!(
            split_non_http(m),
            Some((
                "Non HTTP response code: java.io.FileNotFoundException".to_string(),
                "Non HTTP response message: /x, y (No such file or directory)".to_string()
            ))
        );
        assert_eq!(split_non_http("more than 20 redirects"), None);
    }

    #[test]
    fn names_round_trip() {
        for k in TRANSPORT.iter().copied().chain([404, 503, 999, 0, 99, 600, 700].map(ErrorKind::Status)) {
            assert_eq!(ErrorKind::from_name(&k.name()), Some(k));
        }
        assert_eq!(ErrorKind::Status(0).name(), "protocol_status_000");
        assert_eq!(ErrorKind::Status(700).name(), "protocol_status_700");
        // An old log's name reads back as the same status.
        assert_eq!(ErrorKind::from_name("http_700"), Some(ErrorKind::Status(700)));
    }

    #[test]
    fn slots_are_distinct_and_counts_merge() {
        let mut seen = std::collections::HashSet::new();
        for k in TRANSPORT.iter().copied().chain((400..=599).map(ErrorKind::Status)) {
            assert!(seen.insert(k.slot().expect("a slot")));
        }
        let mut a = ErrorCounts::default();
        a.add(ErrorKind::Status(500), 2);
        a.add(ErrorKind::Refused, 1);
        let mut b = ErrorCounts::default();
        b.add(ErrorKind::Status(500), 3);
        b.add(ErrorKind::Status(700), 1);
        a.merge(&b);
        let got: Vec<_> = a.iter().map(|(k, n)| (k.name(), n)).collect();
        assert_eq!(got, [("refused".into(), 1), ("http_500".into(), 5), ("protocol_status_700".to_string(), 1)]);
        assert_eq!(a.total(), 7);
        // Each status outside the fixed slots keeps its own count (three 600s, three 700s).
        let mut c = ErrorCounts::default();
        for s in [600, 700, 600, 700, 600, 700] {
            let mut one = ErrorCounts::default();
            one.add(ErrorKind::Status(s), 1);
            c.merge(&one);
        }
        assert_eq!(c.get(ErrorKind::Status(600)), 3);
        assert_eq!(c.get(ErrorKind::Status(700)), 3);
        assert_eq!(c.total(), 6);
    }

    #[test]
    fn checks_whose_messages_became_one_add_up() {
        // Two messages that differed only by a secret, redacted to the same text.
        let msgs = vec!["token=*** refused".to_string(), "token=*** refused".to_string()];
        let mut a = ErrorCounts::default();
        a.add(ErrorKind::Check(0), 2);
        a.add(ErrorKind::Check(1), 3);
        assert_eq!(a.named(&msgs)["check: token=*** refused"], 5);
    }

    #[test]
    fn checks_are_counted_per_message() {
        let msgs = vec!["status is 200".to_string(), "body contains OK".to_string()];
        let mut a = ErrorCounts::default();
        a.add(ErrorKind::Check(1), 2);
        let mut b = ErrorCounts::default();
        b.add(ErrorKind::Check(0), 1);
        b.add(ErrorKind::Check(1), 1);
        a.merge(&b);
        assert_eq!(a.get(ErrorKind::Check(1)), 3);
        assert_eq!(a.total(), 4);
        let named = a.named(&msgs);
        assert_eq!(named["check: body contains OK"], 3);
        for name in named.keys() {
            let k = ErrorKind::from_name_with(name, &msgs).unwrap();
            assert_eq!(k.name_with(&msgs), *name);
        }
        a.clear();
        assert_eq!(a.total(), 0);
    }
}
