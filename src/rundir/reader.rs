//! Reads a run directory back: its meta, and its summary — from `summary.json` when the run
//! finished, else rebuilt from the interval log (tolerating a last line cut off by a crash).

pub(super) use super::log::IntervalLine;
use super::log::LineError;
use super::{Error, RunMeta, Summary, INTERVALS, META, SUMMARY};
use crate::record::{LabelStats, Tally};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// A run directory as read: its facts and its numbers.
pub struct Run {
    /// The run's facts (`meta.json`).
    pub meta: RunMeta,
    /// The run's numbers (`summary.json`, or the sum of its interval log when it has none).
    pub summary: Summary,
}

/// A run's meta and summary, from the coarsest lines of its log when it has no summary.
pub fn read_run(dir: &Path) -> Result<Run, Error> {
    read_run_with(dir, Grain::COARSEST, |_| {})
}

/// The longest interval a reader of a run directory wants, in seconds: it gets the lines of the
/// coarsest roll-up no longer than this (see [`super::LogFormat`]), and finer lines only past
/// where those end (a killed run's last minutes and seconds). `Grain(1)`: every second the
/// directory keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Grain(pub u64);

impl Default for Grain {
    fn default() -> Grain {
        Grain::SECOND
    }
}

impl Grain {
    pub(crate) const SECOND: Grain = Grain(1);
    pub(crate) const COARSEST: Grain = Grain(u64::MAX);
}

/// One interval of the log, as read back: label stats by index into the run's label list
/// (labels not in `meta.json` are appended to it, in the order met).
pub(crate) struct LoggedInterval {
    pub start_us: u64,
    pub end_us: u64,
    pub labels: Vec<(usize, LabelStats)>,
    pub total: LabelStats,
    pub active_users: u64,
    /// The last interval of the log.
    pub last: bool,
}

/// Reads a run and shows `visit` every interval of its log at `grain`, in order (reports chart
/// them). The summary is `summary.json` when the run finished, else the sum of the intervals.
pub(crate) fn read_run_with(dir: &Path, grain: Grain, mut visit: impl FnMut(&LoggedInterval)) -> Result<Run, Error> {
    let mut meta = read_meta(dir)?;
    let summary_path = dir.join(SUMMARY);
    let finished: Option<Summary> = if summary_path.exists() { Some(read_json(&summary_path)?) } else { None };
    let recorded = finished.as_ref().map(|s| s.total.samples);
    let mut shared = Shared::new(&meta.labels);
    let mut tally = Tally::new(meta.labels.len(), meta.scenarios.len());
    // The tiers are cross-checked beside the read (another scan of the files, on another core).
    let (read, damage) = std::thread::scope(|scope| -> Result<_, Error> {
        let check = std::thread::Builder::new().spawn_scoped(scope, || super::damage::check(dir, &meta, recorded)).ok();
        let mut log = Tiers::open(dir, &meta, grain, &meta.checks, finished.is_some())?;
        let mut read = 0u64;
        // One interval is held back until the next arrives, to tell the last one.
        let mut held: Option<LoggedInterval> = None;
        while let Some((line, iv)) = log.next(&mut shared)? {
            read = read.saturating_add(iv.total.samples);
            // A run that was killed has no summary: it is the sum of its intervals.
            if finished.is_none() {
                add_to_tally(&mut tally, &iv, &line, 0);
            }
            if let Some(h) = held.replace(iv) {
                visit(&h);
            }
        }
        if let Some(mut h) = held {
            h.last = true;
            visit(&h);
        }
        let damage = match check.map(|c| c.join()) {
            Some(Ok(d)) => d,
            _ => super::damage::check(dir, &meta, recorded),
        };
        Ok((read, damage))
    })?;
    let mut summary = match finished {
        Some(s) => s,
        None => Summary::from_tally(&tally, &shared.labels, &meta.checks, &meta.scenarios, false),
    };
    summary.damage = damage.iter().map(|d| d.warning(read, recorded)).collect();
    meta.labels = shared.labels;
    Ok(Run { meta, summary })
}

/// Adds an interval to a tally; the line's scenarios are the tally's from `first_scenario` on.
pub(super) fn add_to_tally(tally: &mut Tally, iv: &LoggedInterval, line: &IntervalLine, first_scenario: usize) {
    for (i, s) in &iv.labels {
        *tally.label_mut(*i) += s;
    }
    tally.total += &iv.total;
    for (a, b) in tally.scenarios.iter_mut().skip(first_scenario).zip(line.scenarios()) {
        a.add(&b);
    }
    // Dispatch lateness has no errors, so no check names; a record that does not read is only
    // a fact lost, not the run's numbers.
    if let Ok(late) = line.lateness(line.iterations.len(), &[]) {
        for (a, b) in tally.lateness.iter_mut().skip(first_scenario).zip(&late) {
            *a += b;
        }
    }
}

/// A run directory's `meta.json`.
pub(crate) fn read_meta(dir: &Path) -> Result<RunMeta, Error> {
    let meta_path = dir.join(META);
    if !meta_path.exists() {
        return Err(Error::NotARun(dir.to_path_buf()));
    }
    let meta: RunMeta = read_json(&meta_path)?;
    if let Some(problem) = meta.log.as_ref().and_then(|l| l.problem()) {
        return Err(Error::Format { path: meta_path, line: 1, message: format!("log: {problem}") });
    }
    Ok(meta)
}

pub(super) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| Error::Format {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })
}

/// The longest line read: a run's lines are kilobytes (megabytes with thousands of labels).
const MAX_LINE: usize = 64 << 20;
/// Distinct labels in one log, far beyond any plan's.
const MAX_LABELS: usize = 1_000_000;

/// Everything the log's lines add up (samples, times, bytes, iterations, users, interval
/// lengths), summed with a check: every sum a report makes of some of them (per label, per
/// chart point, the Total) is then within u64's range, however corrupt the log.
#[derive(Default)]
struct Sums([u64; 15]);

impl Sums {
    fn add_stats(&mut self, s: &LabelStats) -> Result<(), LineError> {
        let values = [
            s.samples,
            s.errors,
            s.sum_elapsed_us,
            s.sum_ttfb_us,
            s.sum_connect_us,
            s.bytes_sent,
            s.bytes_received,
            s.connections_opened,
        ];
        values.iter().enumerate().try_for_each(|(slot, v)| self.add(slot, &[*v]))?;
        if let Some(u) = s.upstream.as_deref() {
            self.add(12, &[u.sum_us])?;
            self.add(13, &[u.sum_overhead_us])?;
            self.add(14, &[u.sum_elapsed_us])?;
        }
        Ok(())
    }

    fn add_line(&mut self, line: &IntervalLine) -> Result<(), LineError> {
        if line.start_us > line.end_us {
            return Err(LineError::StartsAfterEnd { start: line.start_us, end: line.end_us });
        }
        self.add(8, &line.iterations)?;
        self.add(9, &line.dropped)?;
        self.add(10, &line.active_users)?;
        self.add(11, &[line.end_us - line.start_us])
    }

    /// Adds every value to one slot: any sum of some of them is then below the slot's.
    fn add(&mut self, slot: usize, values: &[u64]) -> Result<(), LineError> {
        for v in values {
            self.0[slot] = self.0[slot].checked_add(*v).ok_or(LineError::Overflow)?;
        }
        Ok(())
    }
}

/// What the logs read so far share: the label list (labels not in `meta.json` appended in the
/// order met) and the checked sums of everything in them.
pub(super) struct Shared {
    pub labels: Vec<String>,
    index: HashMap<String, usize>,
    sums: Sums,
}

impl Shared {
    pub(super) fn new(labels: &[String]) -> Shared {
        Shared {
            labels: labels.to_vec(),
            index: labels.iter().enumerate().map(|(i, l)| (l.clone(), i)).collect(),
            sums: Sums::default(),
        }
    }

    fn label(&mut self, name: &str) -> Result<usize, LineError> {
        if let Some(i) = self.index.get(name) {
            return Ok(*i);
        }
        if self.labels.len() >= MAX_LABELS {
            return Err(LineError::TooManyLabels(MAX_LABELS));
        }
        self.labels.push(name.to_string());
        self.index.insert(name.to_string(), self.labels.len() - 1);
        Ok(self.labels.len() - 1)
    }
}

/// A run directory's log at a [`Grain`]: the lines of its roll-ups no longer than the grain,
/// coarsest first, then of each finer one (and of the seconds) only those that start past
/// where the coarser ones end, so each second is counted once. Below the finest roll-up it is
/// the seconds kept, then that roll-up's lines past them: every grain reads the whole run.
pub(super) struct Tiers {
    sources: Vec<Source>,
    at: usize,
    /// Lines starting before this are in lines already read.
    covered_us: u64,
    /// The end of the buckets read from the current source.
    reached_us: u64,
}

/// One file of a log, with the width of its lines in µs (0: seconds) and where its lines
/// that are read start (the roll-up read after the seconds kept: past them).
struct Source {
    log: Log,
    width_us: u64,
    from_us: u64,
    /// Lines of seconds kept: all start before this, so once the coarser lines cover it, the
    /// file is not read at all.
    before_us: u64,
}

impl Tiers {
    /// `finished`: the run wrote its summary, and so every roll-up's last line before it: the
    /// coarsest one read covers the whole run.
    pub(super) fn open(
        dir: &Path,
        meta: &RunMeta,
        grain: Grain,
        checks: &[String],
        finished: bool,
    ) -> Result<Tiers, Error> {
        let source = |log: Log, width_s: u64| Source {
            log,
            width_us: width_s.saturating_mul(1_000_000),
            from_us: 0,
            before_us: u64::MAX,
        };
        let mut sources = Vec::new();
        let Some(format) = &meta.log else {
            sources.push(source(Log::open(dir, INTERVALS, checks)?, 0));
            return Ok(Tiers { sources, at: 0, covered_us: 0, reached_us: 0 });
        };
        // The tail opened first: a writer replaces it by an empty one when a minute's line is
        // written, so opened after the minutes it could lack that minute in a run still being
        // written; opened before, its seconds are at worst also in a line read later, and
        // skipped there.
        let tail = Log::open(dir, super::TAIL, checks)?;
        let kept_us = format.seconds_kept_s.saturating_mul(1_000_000);
        let mut widths: Vec<u64> = format.rollups_s.iter().copied().filter(|w| *w <= grain.0).collect();
        widths.sort_unstable_by(|a, b| b.cmp(a));
        if let Some(w) = widths.first().filter(|w| finished && dir.join(super::rollup_file(**w)).exists()) {
            sources.push(source(Log::open(dir, &super::rollup_file(*w), checks)?, *w));
            return Ok(Tiers { sources, at: 0, covered_us: 0, reached_us: 0 });
        }
        for w in &widths {
            sources.push(source(Log::open(dir, &super::rollup_file(*w), checks)?, *w));
        }
        sources.push(Source { before_us: kept_us, ..source(Log::open(dir, INTERVALS, checks)?, 0) });
        if widths.is_empty() {
            if let Some(w) = format.rollups_s.iter().min() {
                let log = Log::open(dir, &super::rollup_file(*w), checks)?;
                sources.push(Source { from_us: kept_us, ..source(log, *w) });
            }
        }
        sources.push(source(tail, 0));
        Ok(Tiers { sources, at: 0, covered_us: 0, reached_us: 0 })
    }

    /// The next interval; `None` at the end of the log.
    pub(super) fn next(&mut self, shared: &mut Shared) -> Result<Option<(IntervalLine, LoggedInterval)>, Error> {
        while let Some(src) = self.sources.get_mut(self.at) {
            if self.covered_us < src.before_us {
                if let Some((line, iv)) = src.log.next_from(shared, self.covered_us.max(src.from_us))? {
                    if let Some(k) = line.start_us.checked_div(src.width_us) {
                        self.reached_us = self.reached_us.max(k.saturating_add(1).saturating_mul(src.width_us));
                    }
                    return Ok(Some((line, iv)));
                }
            }
            self.covered_us = self.covered_us.max(self.reached_us);
            self.at += 1;
        }
        Ok(None)
    }
}

/// The `start_us` of a line as a run writes it (`{"i":N,"start_us":M,...`), read without
/// parsing the line: lines a reader skips cost no parse.
fn start_us_of(text: &str) -> Option<u64> {
    let head = text.get(..text.len().min(64))?;
    let at = head.find("\"start_us\":")? + "\"start_us\":".len();
    let digits = &head[at..];
    let end = digits.find(|c: char| !c.is_ascii_digit())?;
    digits[..end].parse().ok()
}

/// One file of an interval log, streamed line by line (a soak test's log can be gigabytes),
/// tolerating a last line cut off by a crash. Every size a line declares is checked before it
/// is used.
pub(super) struct Log {
    path: PathBuf,
    /// `None` when the run has no log (yet).
    reader: Option<BufReader<std::fs::File>>,
    checks: Vec<String>,
    text: String,
    n: usize,
    /// A line that does not parse is kept until the next one: only the last line may be cut off.
    broken: Option<(usize, String)>,
}

impl Log {
    pub(super) fn open(dir: &Path, file: &str, checks: &[String]) -> Result<Log, Error> {
        let path = dir.join(file);
        let reader = match std::fs::File::open(&path) {
            Ok(f) => Some(BufReader::with_capacity(1 << 20, f)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(Error::Io { path, source }),
        };
        Ok(Log { path, reader, checks: checks.to_vec(), text: String::new(), n: 0, broken: None })
    }

    /// The next interval that starts at `from_us` or later; `None` at the end of the file.
    pub(super) fn next_from(
        &mut self,
        shared: &mut Shared,
        from_us: u64,
    ) -> Result<Option<(IntervalLine, LoggedInterval)>, Error> {
        let Some(reader) = self.reader.as_mut() else { return Ok(None) };
        let line = loop {
            self.text.clear();
            let read = reader
                .take(MAX_LINE as u64 + 1)
                .read_line(&mut self.text)
                .map_err(|source| Error::Io { path: self.path.clone(), source })?;
            if read == 0 {
                return Ok(None);
            }
            self.n += 1;
            if read > MAX_LINE {
                let message = format!("a line longer than {} MiB: not a log a run writes", MAX_LINE >> 20);
                return Err(Error::Format { path: self.path.clone(), line: self.n, message });
            }
            if self.text.trim().is_empty() {
                continue;
            }
            if let Some((line, message)) = self.broken.take() {
                return Err(Error::Format { path: self.path.clone(), line, message });
            }
            if from_us > 0 && start_us_of(&self.text).is_some_and(|s| s < from_us) {
                continue;
            }
            match serde_json::from_str::<IntervalLine>(&self.text) {
                // A line written otherwise than a run writes it (no prefix to skip it by).
                Ok(l) if l.start_us < from_us => continue,
                Ok(l) => break l,
                Err(e) => self.broken = Some((self.n, e.to_string())),
            }
        };
        let iv = logged(&line, shared, &self.checks).map_err(|e| Error::Format {
            path: self.path.clone(),
            line: self.n,
            message: e.to_string(),
        })?;
        Ok(Some((line, iv)))
    }
}

/// A line of a log as an interval, its labels indexed in `shared` (whose sums check it).
pub(super) fn logged(line: &IntervalLine, shared: &mut Shared, checks: &[String]) -> Result<LoggedInterval, LineError> {
    shared.sums.add_line(line)?;
    let mut iv = LoggedInterval {
        start_us: line.start_us,
        end_us: line.end_us,
        labels: Vec::with_capacity(line.labels.len()),
        total: LabelStats::default(),
        active_users: line.active_users.iter().sum(),
        last: false,
    };
    for l in &line.labels {
        let stats = l.to_stats(checks)?;
        shared.sums.add_stats(&stats)?;
        iv.labels.push((shared.label(&l.label)?, stats));
    }
    match &line.total {
        Some(t) => {
            iv.total = t.to_stats(checks)?;
            shared.sums.add_stats(&iv.total)?;
        }
        // Logs written before the Total had its own line have no groups or redirect hops:
        // their Total is the sum of their labels.
        None => {
            for (_, s) in &iv.labels {
                iv.total += s;
            }
        }
    }
    Ok(iv)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::{Interval, LabelStats, Sample};

    fn stats(n: u64) -> LabelStats {
        stats_from(0, n, 1, 10)
    }

    /// A successful sample of label 0 from `start` (µs) lasting `elapsed`.
    pub(in crate::rundir) fn sample_at(start: u64, elapsed: u64) -> Sample {
        Sample {
            label: LabelId(0),
            start_us: start,
            end_us: start + elapsed,
            ttfb_us: 1,
            connect_us: 0,
            bytes_sent: 1,
            bytes_received: 1,
            new_connection: false,
            error: None,
            in_total: true,
            upstream_us: None,
        }
    }

    /// `n` samples of `elapsed_us`, the first starting at `start_us`, one every `step_us`.
    pub(in crate::rundir) fn stats_from(start_us: u64, n: u64, step_us: u64, elapsed_us: u64) -> LabelStats {
        let mut s = LabelStats::default();
        for i in 0..n {
            let start_us = start_us + i * step_us;
            s.record(&sample_at(start_us, elapsed_us));
        }
        s
    }

    /// A run directory in the temp directory holding `lines` as its interval log; removed on drop.
    struct TempDir(std::path::PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn run_dir(labels: &[&str], lines: &[String]) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("stampede-reader-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(INTERVALS), lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        let meta = serde_json::json!({
            "tool": "stampede", "version": "0", "command_line": [], "plan_path": null, "plan_name": "p",
            "host": "h", "started_at": "x", "ended_at": null, "duration_s": null, "status": "running",
            "interval_s": 1.0, "scenarios": [{"name": "s", "model": "closed", "workload": "w"}],
            "labels": labels, "generator": null
        });
        std::fs::write(dir.join(META), meta.to_string()).unwrap();
        TempDir(dir)
    }

    /// One interval of label `a` with 3 samples, as a JSON value to spoil.
    fn good_line() -> serde_json::Value {
        let iv = Interval {
            new_labels: Vec::new(),
            index: 0,
            start_us: 0,
            end_us: 1_000_000,
            labels: vec![(LabelId(0), stats(3))],
            total: stats(3),
            scenarios: vec![Default::default()],
            lateness: vec![Default::default()],
            active_users: vec![1],
            last: true,
        };
        serde_json::to_value(IntervalLine::from_interval(&iv, &["a".to_string()], &[])).unwrap()
    }

    #[test]
    fn a_log_without_total_lines_sums_its_labels() {
        let labels = vec!["a".to_string(), "b".to_string()];
        let iv = Interval {
            new_labels: Vec::new(),
            index: 0,
            start_us: 0,
            end_us: 1_000_000,
            labels: vec![(LabelId(0), stats(3)), (LabelId(1), stats(4))],
            total: stats(7),
            scenarios: vec![Default::default()],
            lateness: vec![Default::default()],
            active_users: vec![0],
            last: true,
        };
        let mut line = IntervalLine::from_interval(&iv, &labels, &[]);
        line.total = None;
        let dir = run_dir(&["a", "b"], &[serde_json::to_string(&line).unwrap()]);
        let mut seen = Vec::new();
        let run = read_run_with(&dir.0, Grain::SECOND, |iv| seen.push((iv.total.samples, iv.last))).unwrap();
        assert_eq!(run.summary.total.samples, 7);
        assert!(!run.summary.complete);
        assert_eq!(seen, [(7, true)]);
    }

    /// HdrHistogram's V2 form with the given header and counts, deflated and wrapped as a
    /// run writes it, in base64.
    fn histogram(counts_len: u32, (low, high, digits): (u64, u64, u32), counts: &[u8]) -> String {
        use base64::Engine as _;
        use std::io::Write as _;
        let mut v2 = Vec::new();
        for w in [0x1c84_9313u32, counts_len, 0, digits] {
            v2.extend_from_slice(&w.to_be_bytes());
        }
        v2.extend_from_slice(&low.to_be_bytes());
        v2.extend_from_slice(&high.to_be_bytes());
        v2.extend_from_slice(&1.0f64.to_be_bytes());
        v2.extend_from_slice(counts);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&v2).unwrap();
        let deflated = z.finish().unwrap();
        let mut out = 0x1c84_9314u32.to_be_bytes().to_vec();
        out.extend_from_slice(&(deflated.len() as u32).to_be_bytes());
        out.extend_from_slice(&deflated);
        base64::engine::general_purpose::STANDARD.encode(out)
    }

    /// How a test spoils a good line.
    type Spoil = Box<dyn Fn(&mut serde_json::Value)>;

    #[test]
    fn a_corrupt_line_is_an_error_naming_the_file_and_line_never_a_panic_or_a_huge_allocation() {
        use base64::Engine as _;
        let ours = (1, crate::record::stats::HISTOGRAM_MAX_US, 3);
        // Each spoils the second of two lines; the message must name intervals.jsonl:2 (a
        // histogram's own fault is told by the decoder, `record::Histogram::decode_v2`).
        let cases: Vec<(&str, Spoil)> = vec![
            // Issue 11: this made `report` panic ("min > max") computing percentiles.
            (
                "has min_us 50 above max_us 10",
                Box::new(|l| {
                    l["labels"][0]["min_us"] = 50.into();
                    l["labels"][0]["max_us"] = 10.into();
                }),
            ),
            ("`a` has 99 samples but its histogram holds 3", Box::new(|l| l["labels"][0]["samples"] = 99.into())),
            ("`Total` has 4 errors in 3 samples", Box::new(|l| l["total"]["errors"] = 4.into())),
            (
                "has 2 errors by kind but 0 errors",
                Box::new(|l| l["labels"][0]["errors_by_kind"] = serde_json::json!({"io": 2})),
            ),
            (
                "starts at 7 µs, after its end at 5 µs",
                Box::new(|l| {
                    l["start_us"] = 7.into();
                    l["end_us"] = 5.into();
                }),
            ),
            // Issue 11: a histogram declaring 2 GiB made `report` allocate 2.1 GB first.
            (
                "histogram of `a`: ",
                Box::new(move |l| {
                    l["labels"][0]["hist"] = histogram(1 << 31, ours, &[]).into();
                }),
            ),
            (
                "histogram of `a`: ",
                Box::new(|l| {
                    let mut b = 0x1c84_9314u32.to_be_bytes().to_vec();
                    b.extend_from_slice(&(1u32 << 31).to_be_bytes());
                    b.extend_from_slice(b"xxxx");
                    l["labels"][0]["hist"] = base64::engine::general_purpose::STANDARD.encode(b).into();
                }),
            ),
            (
                "histogram of `a`: ",
                Box::new(|l| {
                    l["labels"][0]["hist"] = histogram(0, (1, u64::MAX / 4, 5), &[]).into();
                }),
            ),
            (
                "histogram of `a`: ",
                Box::new(move |l| {
                    l["labels"][0]["hist"] = histogram(2 << 20, ours, &vec![0u8; 2 << 20]).into();
                }),
            ),
            ("more than the 2097152 a run writes", Box::new(|l| l["labels"][0]["hist"] = "A".repeat(3 << 20).into())),
            // A count with no negation: refused by the decoder or by the sample count check.
            ("intervals.jsonl:2: ", Box::new(move |l| l["labels"][0]["hist"] = histogram(9, ours, &[0xff; 9]).into())),
            ("histogram of `a`: ", Box::new(|l| l["labels"][0]["hist"] = "AAAA".into())),
            // Sums past u64 would overflow (a panic in a debug build) when the report adds them.
            ("add up past 2^64", Box::new(|l| l["labels"][0]["sum_ttfb_us"] = (u64::MAX - 5).into())),
        ];
        for (says, spoil) in cases {
            let mut bad = good_line();
            spoil(&mut bad);
            let dir = run_dir(&["a"], &[good_line().to_string(), bad.to_string(), good_line().to_string()]);
            let e = match read_run(&dir.0) {
                Ok(_) => panic!("accepted a line where {says}"),
                Err(e) => e.to_string(),
            };
            assert!(e.contains("intervals.jsonl:2: ") && e.contains(says), "want `{says}`, got: {e}");
        }
    }

    #[test]
    fn a_line_longer_than_any_run_writes_is_refused_without_reading_it_all() {
        let dir = run_dir(&["a"], &[good_line().to_string(), " ".repeat(MAX_LINE + 10)]);
        let e = read_run(&dir.0).err().expect("refused").to_string();
        assert!(e.contains("intervals.jsonl:2: a line longer than 64 MiB"), "{e}");
    }
}
