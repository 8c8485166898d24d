//! Which response headers tell the upstream's own time ([`TimingHeaders`]), so that a request
//! through a gateway or proxy splits into upstream time and the overhead in front of it
//! (elapsed − upstream). Read from every response as its head is parsed: the plan's own
//! headers first, then the ones gateways send by themselves.

use serde::Serialize;

/// The longest upstream time taken as one: an hour, the range of the histograms it goes into
/// (`record::stats::HISTOGRAM_MAX_US`; a plan names nothing of `record`).
pub(crate) const MAX_UPSTREAM_US: f64 = 3_600_000_000.0;

/// A header (or a `Server-Timing` metric) whose value is the upstream's time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum TimingSource {
    /// A header whose value is a number in `unit`; a comma-separated list (nginx's
    /// `$upstream_response_time` after retries: `0.004, 0.002`) is summed; `-` is no value.
    Header { name: String, unit: TimeUnit },
    /// A metric of W3C `Server-Timing` (`app;dur=12.5`, ms), by name, case-insensitive.
    ServerTiming(String),
}

impl TimingSource {
    /// The response header this source reads.
    fn header_name(&self) -> &str {
        match self {
            TimingSource::Header { name, .. } => name,
            TimingSource::ServerTiming(_) => "server-timing",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TimeUnit {
    Us,
    Ms,
    S,
}

impl TimeUnit {
    fn micros(self, v: f64) -> f64 {
        match self {
            TimeUnit::Us => v,
            TimeUnit::Ms => v * 1e3,
            TimeUnit::S => v * 1e6,
        }
    }
}

/// Where a response's upstream time is read from, in order: the first source with a value
/// gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TimingHeaders {
    sources: Vec<TimingSource>,
    /// Bit `len % 64` set for the length of each name a source reads: every response's head
    /// is checked against it in the one pass over its headers, so a response without a timing
    /// header (nearly all) costs a shift and a test per header, not a pass per source.
    #[serde(skip)]
    name_lengths: u64,
}

/// What gateways send without being asked: Kong's upstream latency and Envoy's upstream
/// service time (whole ms), and a `Server-Timing` metric named `upstream` or `app` (the latter
/// is what stampede's mock sends).
fn builtin() -> Vec<TimingSource> {
    let header = |name: &str| TimingSource::Header { name: name.into(), unit: TimeUnit::Ms };
    vec![
        header("X-Kong-Upstream-Latency"),
        header("x-envoy-upstream-service-time"),
        TimingSource::ServerTiming("upstream".into()),
        TimingSource::ServerTiming("app".into()),
    ]
}

impl Default for TimingHeaders {
    fn default() -> Self {
        TimingHeaders::new(builtin())
    }
}

impl TimingHeaders {
    fn new(sources: Vec<TimingSource>) -> TimingHeaders {
        let name_lengths = sources.iter().fold(0, |m, s| m | 1 << (s.header_name().len() % 64));
        TimingHeaders { sources, name_lengths }
    }

    /// Whether a header of this name may be one [`Self::upstream_us`] reads (its length is
    /// one a source's name has). False means it surely is not: a response none of whose
    /// headers may be one has no upstream time, and `upstream_us` need not look.
    #[inline]
    pub(crate) fn may_name(&self, header: &str) -> bool {
        self.name_lengths & 1 << (header.len() % 64) != 0
    }

    /// The plan's sources (`defaults.timing_headers`, or the JMX property
    /// `stampede.timing_headers`), tried before the built-in ones.
    pub(crate) fn with_plan(plan: Vec<TimingSource>) -> TimingHeaders {
        let mut sources = plan;
        for s in builtin() {
            if !sources.contains(&s) {
                sources.push(s);
            }
        }
        TimingHeaders::new(sources)
    }

    /// Only the built-in sources: the plan named none.
    pub(crate) fn is_builtin(&self) -> bool {
        self.sources == builtin()
    }

    /// The upstream time in µs that these headers tell, if any does.
    pub(crate) fn upstream_us<'h>(&self, headers: impl Iterator<Item = (&'h str, &'h [u8])> + Clone) -> Option<u64> {
        self.sources.iter().find_map(|source| {
            let name = source.header_name();
            let metric = match source {
                TimingSource::Header { .. } => None,
                TimingSource::ServerTiming(m) => Some(m.as_str()),
            };
            headers.clone().filter(|(n, _)| n.eq_ignore_ascii_case(name)).find_map(|(_, v)| {
                let v = std::str::from_utf8(v).ok()?;
                let us = match (source, metric) {
                    (TimingSource::Header { unit, .. }, _) => unit.micros(summed(v)?),
                    (_, Some(m)) => server_timing_dur(v, m)? * 1e3,
                    _ => return None,
                };
                // Past the histograms' range (an hour) a value is a wrong unit or garbage, and
                // would overflow the sums: no value, as one that is not a number.
                (0.0..=MAX_UPSTREAM_US).contains(&us).then(|| us.round() as u64)
            })
        })
    }
}

/// A number, or several separated by commas (or nginx's `:` between upstream groups), summed.
fn summed(v: &str) -> Option<f64> {
    let mut total = 0.0;
    let mut any = false;
    for part in v.split([',', ':']).map(str::trim) {
        if part.is_empty() || part == "-" {
            continue;
        }
        let v = part.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)?;
        total += v;
        any = true;
    }
    any.then_some(total)
}

/// The `dur` (ms) of metric `name` in a `Server-Timing` value
/// (`cache;desc="Cache Read";dur=23.2, app;dur=47.2`), per the W3C grammar: metrics separated
/// by commas, parameters by semicolons, quoted strings may hold either.
fn server_timing_dur(v: &str, name: &str) -> Option<f64> {
    split_outside_quotes(v, ',').find_map(|metric| {
        let mut params = split_outside_quotes(metric, ';');
        let metric_name = params.next()?.trim();
        if !metric_name.eq_ignore_ascii_case(name) {
            return None;
        }
        params.find_map(|p| {
            let (k, val) = p.split_once('=')?;
            k.trim().eq_ignore_ascii_case("dur").then(|| val.trim().trim_matches('"').parse::<f64>().ok())?
        })
    })
}

fn split_outside_quotes(s: &str, sep: char) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let s = rest?;
        let mut quoted = false;
        let mut escaped = false;
        for (i, c) in s.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                c if c == sep && !quoted => {
                    rest = Some(&s[i + 1..]);
                    return Some(&s[..i]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(s)
    })
}

/// Reads one source as written in a plan: `NAME` (a header in ms), `NAME:UNIT` (`us`, `ms` or
/// `s`), or `Server-Timing:METRIC`. The error says what is wrong with it.
pub(crate) fn parse_source(text: &str) -> Result<TimingSource, String> {
    let text = text.trim();
    let (name, after) = match text.split_once(':') {
        Some((n, a)) => (n.trim(), Some(a.trim())),
        None => (text, None),
    };
    let token =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token(name) {
        return Err(format!("`{text}` is not a header name (write NAME, NAME:UNIT or Server-Timing:METRIC)"));
    }
    if name.eq_ignore_ascii_case("server-timing") {
        return match after {
            Some(m) if token(m) => Ok(TimingSource::ServerTiming(m.to_string())),
            _ => Err(format!("`{text}`: name the Server-Timing metric, as `Server-Timing:app`")),
        };
    }
    let unit = match after.map(str::to_ascii_lowercase).as_deref() {
        None | Some("ms") => TimeUnit::Ms,
        Some("us") | Some("µs") => TimeUnit::Us,
        Some("s") => TimeUnit::S,
        Some("") => return Err(format!("`{text}`: name a unit after `:` (us, ms or s), or leave out the `:`")),
        Some(u) => return Err(format!("`{text}`: the unit `{u}` is not one of us, ms, s")),
    };
    Ok(TimingSource::Header { name: name.to_string(), unit })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream(t: &TimingHeaders, headers: &[(&str, &str)]) -> Option<u64> {
        t.upstream_us(headers.iter().map(|(n, v)| (*n, v.as_bytes())))
    }

    #[test]
    fn gateways_headers_are_read_without_being_named() {
        let t = TimingHeaders::default();
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "12"), ("X-Kong-Proxy-Latency", "1")]), Some(12_000));
        assert_eq!(upstream(&t, &[("x-envoy-upstream-service-time", "7")]), Some(7_000));
        assert_eq!(upstream(&t, &[("Server-Timing", "db;dur=3, app;dur=47.25;desc=\"a, b\"")]), Some(47_250));
        assert_eq!(
            upstream(&t, &[("server-timing", "cache;desc=\"x;dur=9\";dur=1.5"), ("server-timing", "upstream;dur=2")]),
            Some(2_000)
        );
        assert_eq!(upstream(&t, &[("Content-Type", "text/plain"), ("Server-Timing", "db;dur=3")]), None);
        // A value that is not a time is no time, never zero.
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "soon")]), None);
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "-1")]), None);
        // Past an hour (the histograms' range) is a wrong unit or garbage, and would overflow sums.
        for huge in ["1e300", "99999999999999999999", "3600001"] {
            assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", huge)]), None, "{huge}");
        }
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "3600000")]), Some(3_600_000_000));
        // One bad member spoils a list: never a sum of what is left.
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "5, -3")]), None);
        assert_eq!(upstream(&t, &[("X-Kong-Upstream-Latency", "5, inf")]), None);
    }

    #[test]
    fn the_plans_headers_come_first_with_their_units() {
        let t = TimingHeaders::with_plan(vec![
            parse_source("X-Upstream-Response-Time:s").unwrap(),
            parse_source("Server-Timing:db").unwrap(),
        ]);
        let h = [("X-Kong-Upstream-Latency", "12"), ("X-Upstream-Response-Time", "0.004, 0.002 : 0.001")];
        assert_eq!(upstream(&t, &h), Some(7_000));
        assert_eq!(upstream(&t, &[("Server-Timing", "app;dur=5, db;dur=0.5")]), Some(500));
        assert_eq!(
            upstream(&t, &[("X-Upstream-Response-Time", "-"), ("x-envoy-upstream-service-time", "3")]),
            Some(3_000)
        );
        assert_eq!(t.sources.len(), 6);
    }

    #[test]
    fn only_a_header_named_as_long_as_a_source_may_be_one() {
        let t = TimingHeaders::with_plan(vec![parse_source("X-Upstream-Response-Time:s").unwrap()]);
        for name in
            ["x-upstream-response-time", "X-Kong-Upstream-Latency", "x-envoy-upstream-service-time", "Server-Timing"]
        {
            assert!(t.may_name(name), "{name}");
        }
        // What a plain server sends: no header to read the upstream time from.
        for name in ["Server", "Date", "Content-Type", "Content-Length", "Connection", "Set-Cookie"] {
            assert!(!t.may_name(name), "{name}");
        }
    }

    #[test]
    fn sources_are_read_or_refused_clearly() {
        assert_eq!(parse_source("X-Up:us"), Ok(TimingSource::Header { name: "X-Up".into(), unit: TimeUnit::Us }));
        assert_eq!(parse_source("server-timing:app"), Ok(TimingSource::ServerTiming("app".into())));
        assert!(parse_source("Server-Timing").unwrap_err().contains("name the Server-Timing metric"));
        assert!(parse_source("X-Up:hours").unwrap_err().contains("`hours`"));
        assert!(parse_source("a header").unwrap_err().contains("not a header name"));
        assert!(parse_source("X-Up:").unwrap_err().contains("name a unit after `:`"));
        assert!(parse_source("").is_err());
    }
}
