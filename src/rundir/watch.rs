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
//! `t_s` is seconds from the first sample, taken just before the load starts. A source that
//! failed has no values on that line, never zeros. Gauges are values at the time; counters are
//! the raw cumulative values read, so a report makes rates and totals from consecutive lines.

use super::Error;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The file in a run directory.
pub const WATCH: &str = "watch.jsonl";

/// How a source answered one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Ok,
    /// The source could not be read (refused, timed out, not the format, no such series).
    Error,
    /// The process watched is no more (exited, or no process has the name).
    Gone,
}

/// One line of `watch.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchLine {
    pub t_s: f64,
    pub source: String,
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub gauges: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, f64>,
}

/// Appends lines to `watch.jsonl`, each batch flushed to the OS.
pub struct WatchWriter {
    path: PathBuf,
    file: BufWriter<File>,
}

impl WatchWriter {
    /// Creates `watch.jsonl` in the run directory `dir`.
    pub fn create(dir: &Path) -> Result<WatchWriter, Error> {
        let path = dir.join(WATCH);
        let file = File::create(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        Ok(WatchWriter { path, file: BufWriter::new(file) })
    }

    /// Appends one sample's lines and flushes them, so a killed run keeps them. Values that are
    /// not finite (NaN, ±Inf: JSON has no such numbers) are left out of the line.
    pub fn append(&mut self, lines: &[WatchLine]) -> Result<(), Error> {
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
    pub fn finish(mut self) -> Result<(), Error> {
        let io = |source| Error::Io { path: self.path.clone(), source };
        self.file.flush().map_err(io)?;
        self.file.get_ref().sync_data().map_err(io)
    }
}

/// What a report shows of the watched sources.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchSummary {
    pub sources: Vec<SourceSummary>,
}

/// One source over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSummary {
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
    pub metrics: Vec<MetricSummary>,
}

/// A time (seconds from the first sample) and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub t_s: f64,
    pub reason: String,
}

/// Gauge or counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricKind {
    Gauge,
    Counter,
}

/// One metric of one source over the run. For a gauge, `avg`/`min`/`max` are of its values;
/// for a counter, of its rate per second between consecutive samples (`avg` is the increase
/// over the time it covers), and `total` is its increase over the run (resets counted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
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
pub const MAX_POINTS: usize = 600;

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
        }
    }

    fn add(&mut self, t: f64, v: f64) {
        self.samples += 1;
        self.last = v;
        let point = match self.kind {
            MetricKind::Gauge => Some(v),
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
            self.sum += p;
            self.n += 1;
            self.min = self.min.min(p);
            self.max = self.max.max(p);
            self.chart.add(t, p);
        }
    }

    fn summary(self, name: String) -> MetricSummary {
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
}

/// Reads `watch.jsonl` of the run directory `dir`, if it has one. A last line cut off (a run
/// killed while writing it) is left out; a bad line elsewhere is an error naming it.
pub fn read_summary(dir: &Path) -> Result<Option<WatchSummary>, Error> {
    read_summary_window(dir, None)
}

/// [`read_summary`] of the samples taken in `window` (seconds from the first sample) only.
pub fn read_summary_window(dir: &Path, window: Option<std::ops::Range<f64>>) -> Result<Option<WatchSummary>, Error> {
    let path = dir.join(WATCH);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Io { path, source }),
    };
    let mut order: Vec<String> = Vec::new();
    let mut by_source: HashMap<String, SourceAcc> = HashMap::new();
    let mut pending: Option<(usize, String)> = None;
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
                Err(e) => return Err(Error::Format { path, line: n + 1, message: e.to_string() }),
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
                metrics: s.metrics.into_iter().map(|(k, a)| a.summary(k)).collect(),
            })
        })
        .collect();
    Ok(Some(WatchSummary { sources }))
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
        }
    });
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
            s.metrics.entry(name.clone()).or_insert_with(|| Acc::new(kind)).add(line.t_s, *v);
        }
    }
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
        }
    }

    fn summarise(lines: &[WatchLine], tail: &str) -> Result<Option<WatchSummary>, Error> {
        let dir = std::env::temp_dir().join(format!("stampede-watch-{}-{}", std::process::id(), lines.len()));
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
        assert_eq!((g.avg, g.max, g.min, g.samples), (Some(3.0), Some(5.0), Some(1.0), 3));
        assert!(src.metrics.iter().all(|m| m.name != "nan"));
    }

    #[test]
    fn a_bad_line_before_the_last_names_its_line() {
        let lines = [line(0.0, State::Ok, &[("g", 1.0)], &[])];
        match summarise(&lines, "garbage\n{\"t_s\":1.0,\"source\":\"s\",\"state\":\"ok\"}\n") {
            Err(Error::Format { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
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
