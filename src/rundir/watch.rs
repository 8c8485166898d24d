//! `watch.jsonl`: what `run --watch` sampled of the system under test, one line per source per
//! sample, appended and flushed as the run goes (a killed run keeps what was sampled), and its
//! summary for reports, read in one streaming pass with bounded memory per metric.
//!
//! ```text
//! {"t_s":2.001,"source":"pid:4242","state":"ok","gauges":{"cpu_cores":0.998,"rss_bytes":1.2e7,…}}
//! {"t_s":3.001,"source":"pid:4242","state":"gone","reason":"process 4242 exited"}
//! {"t_s":3.002,"source":"scrape:http://127.0.0.1:9113/metrics","state":"error","reason":"connect: …"}
//! ```
//!
//! `t_s` is seconds from when the load began (after a `--start-at` wait: its end), to the µs,
//! each line stamped when its own source's reading finished; the baseline, read just before the
//! load began, is at 0 (a baseline that took past the load's start is stamped when it finished,
//! never 0). A run's end that a slow source would hold up writes, instead of the last sample, an
//! `error` line per source saying it is missing. A source that
//! failed has no values on that line, never zeros. Gauges are values at the time; counters are
//! the raw cumulative values read, so a report makes rates and totals from consecutive lines.

use super::Error;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The file in a run directory.
pub(crate) const WATCH: &str = "watch.jsonl";

/// How a source answered one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    Ok,
    /// The source could not be read (refused, timed out, not the format, no such series).
    Error,
    /// The process watched is no more (exited, or no process has the name).
    Gone,
}

/// One line of `watch.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct WatchLine {
    pub t_s: f64,
    pub source: String,
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub gauges: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, f64>,
    /// Series of this sample left out past the first [`MAX_SERIES`] (a `scrape:` of a big
    /// exporter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
}

/// The most series a source keeps of one sample: a node exporter's thousands would write
/// 100 KB a second to the log, for figures no report shows.
pub(crate) const MAX_SERIES: usize = 500;

/// Appends lines to `watch.jsonl`, each batch flushed to the OS.
pub(crate) struct WatchWriter {
    path: PathBuf,
    file: BufWriter<File>,
}

impl WatchWriter {
    /// Creates `watch.jsonl` in the run directory `dir`.
    pub(crate) fn create(dir: &Path) -> Result<WatchWriter, Error> {
        let path = dir.join(WATCH);
        let file = File::create(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        Ok(WatchWriter { path, file: BufWriter::new(file) })
    }

    /// Appends one sample's lines and flushes them, so a killed run keeps them. Values that are
    /// not finite (NaN, ±Inf: JSON has no such numbers) are left out of the line.
    pub(crate) fn append(&mut self, lines: &[WatchLine]) -> Result<(), Error> {
        let io = |source| Error::Io { path: self.path.clone(), source };
        for line in lines {
            let mut line = line.clone();
            line.gauges.retain(|_, v| v.is_finite());
            line.counters.retain(|_, v| v.is_finite());
            let text = serde_json::to_string(&line).expect("a watch line serialises");
            writeln!(self.file, "{text}").map_err(io)?;
        }
        self.file.flush().map_err(io)
    }

    /// Flushes and syncs the file at the end of the run.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        let io = |source| Error::Io { path: self.path.clone(), source };
        self.file.flush().map_err(io)?;
        self.file.get_ref().sync_data().map_err(io)
    }
}

/// What a report shows of the watched sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct WatchSummary {
    pub sources: Vec<SourceSummary>,
    /// A line that did not read (`watch.jsonl:LINE: why`): the sources are summed up to the
    /// line before it. For the user's terminal, not the report: the run's results stand.
    #[serde(skip)]
    pub warning: Option<String>,
}

/// One source over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SourceSummary {
    pub source: String,
    /// Lines read of it: samples taken, whatever their state.
    pub samples: u64,
    /// Samples that failed (state `error`).
    pub errors: u64,
    /// The first failure, and the last (when there were more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<Event>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<Event>,
    /// When the process was first found gone, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gone: Option<Event>,
    /// The last sample found it gone (it did not come back).
    #[serde(default)]
    pub gone_at_end: bool,
    /// The most series a sample had past the [`MAX_SERIES`] kept (they were dropped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_series: Option<u64>,
    pub metrics: Vec<MetricSummary>,
}

/// A time (seconds from when the load began) and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Event {
    pub t_s: f64,
    pub reason: String,
}

/// Gauge or counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MetricKind {
    Gauge,
    Counter,
}

/// One metric of one source over the run. For a gauge, `avg`/`min`/`max` are of its values;
/// for a counter, of its rate per second between consecutive samples (`avg` is the increase
/// over the time it covers), and `total` is its increase over the run (resets counted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MetricSummary {
    pub name: String,
    pub kind: MetricKind,
    /// Values read.
    pub samples: u64,
    pub avg: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub last: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Over time, at most [`MAX_POINTS`] points of (seconds, value or rate): averages of
    /// equal spans of the run.
    #[serde(skip)]
    pub points: Vec<(f64, f64)>,
}

/// The shortest span between two samples a counter's rate is taken over (seconds).
const MIN_RATE_SPAN_S: f64 = 0.5;

/// The most points of a metric a report keeps for its chart.
pub(crate) const MAX_POINTS: usize = 600;

/// A metric being summed up as the lines go by.
struct Acc {
    kind: MetricKind,
    samples: u64,
    sum: f64,
    n: u64,
    min: f64,
    max: f64,
    last: f64,
    /// Counters: the previous (t, value), the increase so far and the time it covers.
    prev: Option<(f64, f64)>,
    total: f64,
    span_s: f64,
    chart: Downsampled,
    /// Gauges: the baseline's value (read before the load) and the latest value with its line's
    /// number in its source, held back until a later one shows it was not the run's last
    /// sample (read after the load). Neither is a value *during* the load, so neither is in the
    /// average, lowest or highest, unless the run had no other (a run shorter than a sample).
    baseline: Option<(f64, f64)>,
    held: Option<(f64, f64, u64)>,
}

impl Acc {
    fn new(kind: MetricKind) -> Acc {
        Acc {
            kind,
            samples: 0,
            sum: 0.0,
            n: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            last: 0.0,
            prev: None,
            total: 0.0,
            span_s: 0.0,
            chart: Downsampled::default(),
            baseline: None,
            held: None,
        }
    }

    /// A value read at `t`, on the `nth` line of its source (the first is the baseline).
    fn add(&mut self, t: f64, v: f64, nth: u64) {
        self.samples += 1;
        self.last = v;
        let point = match self.kind {
            // The baseline is its source's first line, at 0 (a baseline stamped later was read
            // once the load had begun; a window's first line after 0 is in the load too).
            MetricKind::Gauge if nth == 1 && t == 0.0 => {
                self.baseline = Some((t, v));
                None
            }
            MetricKind::Gauge => {
                if let Some((ht, hv, _)) = self.held.replace((t, v, nth)) {
                    self.point(ht, hv);
                }
                None
            }
            MetricKind::Counter => {
                let rate = self.prev.and_then(|(pt, pv)| {
                    let dt = t - pt;
                    // A counter that went down was reset: it counted `v` since.
                    let inc = if v >= pv { v - pv } else { v };
                    self.total += inc;
                    self.span_s += dt.max(0.0);
                    // The last sample comes just after one on the cadence: a rate over a few
                    // ms is mostly noise (a scrape more or less), so such a span counts in the
                    // total and the average but is no rate of its own.
                    (dt >= MIN_RATE_SPAN_S).then(|| inc / dt)
                });
                self.prev = Some((t, v));
                rate
            }
        };
        if let Some(p) = point {
            self.point(t, p);
        }
    }

    /// A value (a gauge's, or a counter's rate) in the average, extremes and chart.
    fn point(&mut self, t: f64, p: f64) {
        self.sum += p;
        self.n += 1;
        self.min = self.min.min(p);
        self.max = self.max.max(p);
        self.chart.add(t, p);
    }

    /// The metric over the run; `lines` is how many lines its source has, the last of them the
    /// sample taken after the load when `to_end` (the lines read run to the end of the log).
    fn summary(mut self, name: String, lines: u64, to_end: bool) -> MetricSummary {
        if let Some((t, v, nth)) = self.held.take() {
            if nth < lines || !to_end || self.n == 0 {
                if self.n == 0 {
                    if let Some((bt, bv)) = self.baseline {
                        self.point(bt, bv);
                    }
                }
                self.point(t, v);
            }
        } else if let (0, Some((bt, bv))) = (self.n, self.baseline) {
            self.point(bt, bv);
        }
        let some = |x: f64| (self.n > 0).then_some(x);
        let avg = match self.kind {
            MetricKind::Gauge => some(self.sum / self.n.max(1) as f64),
            MetricKind::Counter => (self.span_s > 0.0).then(|| self.total / self.span_s),
        };
        MetricSummary {
            name,
            kind: self.kind,
            samples: self.samples,
            avg,
            min: some(self.min),
            max: some(self.max),
            last: self.last,
            total: (self.kind == MetricKind::Counter).then_some(self.total),
            points: self.chart.finish(),
        }
    }
}

/// A series kept to at most [`MAX_POINTS`] points: each point the average of a span, the spans
/// doubled (neighbours merged) whenever the points would be more.
#[derive(Default)]
struct Downsampled {
    points: Vec<(f64, f64, u32)>,
    /// Values per point; doubles with each merge.
    per_point: u32,
    open: Option<(f64, f64, u32)>,
}

impl Downsampled {
    fn add(&mut self, t: f64, v: f64) {
        let per = self.per_point.max(1);
        let (st, sv, n) = self.open.get_or_insert((0.0, 0.0, 0));
        *st += t;
        *sv += v;
        *n += 1;
        if *n >= per {
            let p = self.open.take().unwrap_or_default();
            self.points.push(p);
            if self.points.len() > MAX_POINTS {
                self.points = self
                    .points
                    .chunks(2)
                    .map(|c| c.iter().fold((0.0, 0.0, 0), |a, p| (a.0 + p.0, a.1 + p.1, a.2 + p.2)))
                    .collect();
                self.per_point = per * 2;
            }
        }
    }

    fn finish(mut self) -> Vec<(f64, f64)> {
        if let Some(p) = self.open.take() {
            self.points.push(p);
        }
        self.points.iter().filter(|p| p.2 > 0).map(|(t, v, n)| (t / *n as f64, v / *n as f64)).collect()
    }
}

struct SourceAcc {
    samples: u64,
    errors: u64,
    first_error: Option<Event>,
    last_error: Option<Event>,
    gone: Option<Event>,
    gone_at_end: bool,
    metrics: BTreeMap<String, Acc>,
    /// When the source was last read successfully.
    last_ok_t: Option<f64>,
    dropped_series: Option<u64>,
}

/// Reads `watch.jsonl` of the run directory `dir`, if it has one. A last line cut off (a run
/// killed while writing it) is left out; a bad line elsewhere ends the reading there, with a
/// [`WatchSummary::warning`] naming it (one bad line must not cost the run its report).
pub(crate) fn read_summary(dir: &Path) -> Result<Option<WatchSummary>, Error> {
    read_summary_window(dir, None)
}

/// [`read_summary`] of the samples taken in `window` (seconds from when the load began) only.
pub(crate) fn read_summary_window(
    dir: &Path,
    window: Option<std::ops::Range<f64>>,
) -> Result<Option<WatchSummary>, Error> {
    let path = dir.join(WATCH);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Io { path, source }),
    };
    let mut order: Vec<String> = Vec::new();
    let mut by_source: HashMap<String, SourceAcc> = HashMap::new();
    let mut pending: Option<(usize, String)> = None;
    let mut warning = None;
    let mut lines = BufReader::new(file).lines().enumerate();
    loop {
        let next = lines.next();
        if let Some((n, text)) = pending.take() {
            match serde_json::from_str::<WatchLine>(&text) {
                Ok(line) if window.as_ref().is_none_or(|w| w.contains(&line.t_s)) => {
                    add_line(&mut order, &mut by_source, line)
                }
                Ok(_) => {}
                // The last line: a run killed while writing it.
                Err(_) if next.is_none() => {}
                Err(e) => {
                    warning = Some(format!(
                        "{}:{}: {e}; the watched sources are reported up to the line before",
                        path.display(),
                        n + 1
                    ));
                    break;
                }
            }
        }
        match next {
            None => break,
            Some((n, text)) => {
                let text = text.map_err(|source| Error::Io { path: path.clone(), source })?;
                if !text.trim().is_empty() {
                    pending = Some((n, text));
                }
            }
        }
    }
    // A window that ends before the run did (or a reading cut short by a bad line): its last
    // lines were read during the load.
    let to_end = warning.is_none() && window.as_ref().is_none_or(|w| w.end >= u64::MAX as f64 / 1e6);
    let sources = order
        .into_iter()
        .filter_map(|name| {
            let s = by_source.remove(&name)?;
            Some(SourceSummary {
                source: name,
                samples: s.samples,
                errors: s.errors,
                first_error: s.first_error,
                last_error: s.last_error,
                gone: s.gone,
                gone_at_end: s.gone_at_end,
                dropped_series: s.dropped_series,
                metrics: s.metrics.into_iter().map(|(k, a)| a.summary(k, s.samples, to_end)).collect(),
            })
        })
        .collect();
    Ok(Some(WatchSummary { sources, warning }))
}

fn add_line(order: &mut Vec<String>, by_source: &mut HashMap<String, SourceAcc>, line: WatchLine) {
    let s = by_source.entry(line.source.clone()).or_insert_with(|| {
        order.push(line.source.clone());
        SourceAcc {
            samples: 0,
            errors: 0,
            first_error: None,
            last_error: None,
            gone: None,
            gone_at_end: false,
            metrics: BTreeMap::new(),
            last_ok_t: None,
            dropped_series: None,
        }
    });
    if let Some(n) = line.dropped {
        s.dropped_series = Some(s.dropped_series.unwrap_or(0).max(n));
    }
    s.samples += 1;
    let event = || Event { t_s: line.t_s, reason: line.reason.clone().unwrap_or_default() };
    s.gone_at_end = line.state == State::Gone;
    match line.state {
        State::Ok => {}
        State::Error => {
            s.errors += 1;
            if s.first_error.is_none() {
                s.first_error = Some(event());
            } else {
                s.last_error = Some(event());
            }
        }
        State::Gone => {
            if s.gone.is_none() {
                s.gone = Some(event());
            }
        }
    }
    // A counter read after a failed sample still counts from the last value read: it is
    // cumulative, so its increase across the failure is the run's.
    if line.state != State::Ok {
        return;
    }
    for (kind, values) in [(MetricKind::Gauge, &line.gauges), (MetricKind::Counter, &line.counters)] {
        for (name, v) in values {
            let acc = s.metrics.entry(name.clone()).or_insert_with(|| {
                let mut acc = Acc::new(kind);
                // A counter first seen after the source was read without it was created since
                // (client libraries make a labelled series at its first count): it was 0 then,
                // and its first value is an increase of the run's.
                if kind == MetricKind::Counter {
                    acc.prev = s.last_ok_t.map(|t| (t, 0.0));
                }
                acc
            });
            acc.add(line.t_s, *v, s.samples);
        }
    }
    s.last_ok_t = Some(line.t_s);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(t: f64, state: State, gauges: &[(&str, f64)], counters: &[(&str, f64)]) -> WatchLine {
        WatchLine {
            t_s: t,
            source: "s".into(),
            state,
            reason: (state != State::Ok).then(|| "why".to_string()),
            gauges: gauges.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            counters: counters.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            dropped: None,
        }
    }

    fn summarise(lines: &[WatchLine], tail: &str) -> Result<Option<WatchSummary>, Error> {
        // A directory of its own per call: tests run in parallel.
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("stampede-watch-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = WatchWriter::create(&dir).unwrap();
        w.append(lines).unwrap();
        w.finish().unwrap();
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.join(WATCH)).unwrap();
        f.write_all(tail.as_bytes()).unwrap();
        let s = read_summary(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        s
    }

    #[test]
    fn gauges_counters_resets_and_states() {
        let lines = [
            line(0.0, State::Ok, &[("g", 1.0)], &[("c", 100.0)]),
            line(1.0, State::Ok, &[("g", 3.0)], &[("c", 110.0)]),
            line(2.0, State::Error, &[], &[]),
            line(3.0, State::Ok, &[("g", 5.0), ("nan", f64::NAN)], &[("c", 150.0)]),
            // A reset: the counter restarted and counted 4 since.
            line(4.0, State::Ok, &[], &[("c", 4.0)]),
            // Too short a span for a rate: in the total and the average only.
            line(4.1, State::Ok, &[], &[("c", 5.0)]),
            line(5.0, State::Gone, &[], &[]),
        ];
        let lines = &lines;
        let s = summarise(lines, "{\"t_s\":6.0,\"sou").unwrap().unwrap();
        let src = &s.sources[0];
        assert_eq!((src.samples, src.errors), (7, 1));
        assert_eq!(src.first_error, Some(Event { t_s: 2.0, reason: "why".into() }));
        assert_eq!(src.gone.as_ref().map(|g| g.t_s), Some(5.0));
        assert!(src.gone_at_end);
        let c = src.metrics.iter().find(|m| m.name == "c").unwrap();
        // 10 in the first second, 40 over the two around the failure, 4 after the reset, 1 more.
        assert_eq!(c.total, Some(55.0));
        assert_eq!((c.max, c.min), (Some(20.0), Some(4.0)));
        assert!((c.avg.unwrap() - 55.0 / 4.1).abs() < 1e-9);
        let g = src.metrics.iter().find(|m| m.name == "g").unwrap();
        // The baseline (1, before the load) is no value during it.
        assert_eq!((g.avg, g.max, g.min, g.samples), (Some(4.0), Some(5.0), Some(3.0), 3));
        assert!(src.metrics.iter().all(|m| m.name != "nan"));
    }

    #[test]
    fn gauges_during_the_load_only_unless_there_are_no_others() {
        let lines = [
            line(0.0, State::Ok, &[("g", 100.0)], &[]),
            line(1.0, State::Ok, &[("g", 2.0)], &[]),
            line(2.0, State::Ok, &[("g", 4.0)], &[]),
            line(2.05, State::Ok, &[("g", 0.0)], &[]),
        ];
        let s = summarise(&lines, "").unwrap().unwrap();
        let g = &s.sources[0].metrics[0];
        assert_eq!((g.avg, g.min, g.max, g.last, g.samples), (Some(3.0), Some(2.0), Some(4.0), 0.0, 4));
        // A run shorter than a sample: the two ends are all there is.
        let short = summarise(&[lines[0].clone(), lines[3].clone()], "").unwrap().unwrap();
        let g = &short.sources[0].metrics[0];
        assert_eq!((g.avg, g.min, g.max), (Some(50.0), Some(0.0), Some(100.0)));
    }

    #[test]
    fn dropped_series_are_summed_up_as_the_most_of_a_sample() {
        let mut lines = vec![line(0.0, State::Ok, &[("g", 1.0)], &[]), line(1.0, State::Ok, &[("g", 1.0)], &[])];
        lines[0].dropped = Some(20);
        lines[1].dropped = Some(35);
        let s = summarise(&lines, "").unwrap().unwrap();
        assert_eq!(s.sources[0].dropped_series, Some(35));
        let said = crate::report::watch::states(&s.sources[0]).join(" ");
        assert!(said.contains("first 500 series") && said.contains("35 more"), "{said}");
    }

    #[test]
    fn a_counter_first_seen_mid_run_counts_from_zero() {
        let lines = [
            line(0.0, State::Ok, &[], &[("ok", 10.0)]),
            line(1.0, State::Ok, &[], &[("ok", 20.0)]),
            // `requests_total{code="500"}` made at its first count, 37 of them by now.
            line(2.0, State::Ok, &[], &[("ok", 30.0), ("err", 37.0)]),
            line(3.0, State::Ok, &[], &[("ok", 40.0), ("err", 40.0)]),
        ];
        let s = summarise(&lines, "").unwrap().unwrap();
        let err = s.sources[0].metrics.iter().find(|m| m.name == "err").unwrap();
        assert_eq!((err.total, err.max), (Some(40.0), Some(37.0)));
        assert!((err.avg.unwrap() - 20.0).abs() < 1e-9, "40 over the 2 s since the series was not there");
        // A series there from the first sample has no earlier zero.
        let ok = s.sources[0].metrics.iter().find(|m| m.name == "ok").unwrap();
        assert_eq!(ok.total, Some(30.0));
    }

    #[test]
    fn a_bad_line_before_the_last_ends_the_reading_with_a_warning() {
        let lines = [line(0.0, State::Ok, &[("g", 1.0)], &[])];
        let s = summarise(&lines, "garbage\n{\"t_s\":1.0,\"source\":\"s\",\"state\":\"ok\"}\n").unwrap().unwrap();
        let warning = s.warning.unwrap();
        assert!(warning.contains("watch.jsonl:2: "), "{warning}");
        assert_eq!(s.sources[0].samples, 1, "the lines before it are read, none after");
    }

    #[test]
    fn charts_stay_bounded() {
        let mut d = Downsampled::default();
        for i in 0..100_000 {
            d.add(i as f64, 2.0);
        }
        let p = d.finish();
        assert!(p.len() <= MAX_POINTS + 1 && p.len() > MAX_POINTS / 2, "{}", p.len());
        assert!(p.iter().all(|(_, v)| *v == 2.0));
    }
}
