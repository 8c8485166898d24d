//! [`RunWriter`]: creates a run directory and writes it as the run goes: meta and plan first,
//! then one flushed line per interval (and per minute, 10 minutes and hour: the roll-ups of
//! [`super::LogFormat`]), then the summary and the final meta.

use super::log::IntervalLine;
use super::{Error, LogFormat, RunMeta, Summary, INTERVALS, META, PLAN, SUMMARY, TAIL};
use crate::plan::LabelId;
use crate::record::{Interval, LabelStats};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};

/// Writes a run directory as the run goes: `meta.json`, the interval log (crash-safe appends) and,
/// at the end, `summary.json`.
pub struct RunWriter {
    log: LogFiles,
    format: LogFormat,
}

/// The files of an interval log in a layout ([`LogFormat`]): the seconds kept, the tail past
/// them and the roll-ups, as intervals are appended. A run's writer and the controller's copy
/// of an agent's run ([`super::copy::PartCopy`]) both write through it.
pub(super) struct LogFiles {
    dir: PathBuf,
    pub(super) labels: Vec<String>,
    pub(super) checks: Vec<String>,
    log: BufWriter<File>,
    /// Seconds that start from here on go to the tail, not `intervals.jsonl`.
    kept_us: u64,
    /// Opened at the first second past `kept_us`.
    tail: Option<BufWriter<File>>,
    /// Finest first.
    rollups: Vec<Rollup>,
}

/// One roll-up: its file and the sum of the seconds of its current bucket.
struct Rollup {
    width_us: u64,
    path: PathBuf,
    file: BufWriter<File>,
    open: Option<Bucket>,
}

/// The intervals summed so far into bucket `k` of a roll-up.
struct Bucket {
    k: u64,
    start_us: u64,
    end_us: u64,
    labels: BTreeMap<LabelId, LabelStats>,
    total: LabelStats,
    scenarios: Vec<crate::record::ScenarioCounts>,
    lateness: Vec<LabelStats>,
    active_users: Vec<u64>,
}

impl Bucket {
    fn new(k: u64, iv: &Interval) -> Bucket {
        Bucket {
            k,
            start_us: iv.start_us,
            end_us: iv.end_us,
            labels: BTreeMap::new(),
            total: LabelStats::default(),
            scenarios: Vec::new(),
            lateness: Vec::new(),
            active_users: Vec::new(),
        }
    }

    fn add(&mut self, iv: &Interval) {
        self.start_us = self.start_us.min(iv.start_us);
        self.end_us = self.end_us.max(iv.end_us);
        for (id, s) in &iv.labels {
            *self.labels.entry(*id).or_default() += s;
        }
        self.total += &iv.total;
        if self.scenarios.len() < iv.scenarios.len() {
            self.scenarios.resize(iv.scenarios.len(), Default::default());
        }
        for (a, b) in self.scenarios.iter_mut().zip(&iv.scenarios) {
            a.add(b);
        }
        if self.lateness.len() < iv.lateness.len() {
            self.lateness.resize_with(iv.lateness.len(), LabelStats::default);
        }
        for (a, b) in self.lateness.iter_mut().zip(&iv.lateness) {
            *a += b;
        }
        // A gauge, not a count: the users at the end of the bucket's last second.
        self.active_users.clone_from(&iv.active_users);
    }

    fn interval(&self) -> Interval {
        Interval {
            index: self.k,
            start_us: self.start_us,
            end_us: self.end_us,
            labels: self.labels.iter().map(|(id, s)| (*id, s.clone())).collect(),
            new_labels: Vec::new(),
            total: self.total.clone(),
            scenarios: self.scenarios.clone(),
            lateness: self.lateness.clone(),
            active_users: self.active_users.clone(),
            last: false,
        }
    }
}

/// `meta` as a run directory of the layout `format` records it.
fn with_log(meta: &RunMeta, format: &LogFormat) -> RunMeta {
    RunMeta { log: Some(format.clone()), ..meta.clone() }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Where a run directory goes. A run never writes into a directory that holds another run.
#[derive(Debug, Clone)]
pub enum Place {
    /// `base`, else `base-2`, `base-3`, ...: the first name no one holds, claimed by creating
    /// it (the default `runs/<timestamp>`, where two runs may start in the same second).
    Unique(PathBuf),
    /// Exactly this directory (`--out`): new or empty, else an error, unless `replace` says
    /// that the run already in it (its run files) goes.
    Exact {
        /// The directory.
        dir: PathBuf,
        /// Whether a run already in it goes.
        replace: bool,
    },
}

/// Names tried after `base` before giving up: far more runs than start in one second.
const MAX_SUFFIX: u32 = 10_000;

impl RunWriter {
    /// Claims the directory `place` says and writes the run's first files. The claim is atomic
    /// (`create_dir`, then `meta.json` created only if absent), so two runs racing for one name
    /// never share a directory: the loser takes the next name, or (`--out`) gets
    /// [`Error::Occupied`].
    pub fn create(place: &Place, meta: &RunMeta, resolved_plan: &str) -> Result<RunWriter, Error> {
        Self::create_with(place, meta, resolved_plan, LogFormat::current())
    }

    /// [`RunWriter::create`] of a run whose log is in the layout `format` (a merge of runs that
    /// keep less than today's: see [`super::merge::layout_for`]).
    pub(crate) fn create_with(
        place: &Place,
        meta: &RunMeta,
        resolved_plan: &str,
        format: LogFormat,
    ) -> Result<RunWriter, Error> {
        let text = serde_json::to_string_pretty(&with_log(meta, &format)).expect("run data always serialises") + "\n";
        let dir = claim(place, text.as_bytes())?;
        let plan = dir.join(PLAN);
        fs::write(&plan, resolved_plan).map_err(io(&plan))?;
        let log = LogFiles::create(&dir, &format, &meta.labels, &meta.checks)?;
        Ok(RunWriter { log, format })
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.log.dir
    }

    /// Appends an interval and flushes it to the OS, so a killed run keeps it: to
    /// `intervals.jsonl` in the run's first [`super::SECONDS_KEPT_S`], else to the tail; and
    /// adds it to the roll-ups, writing each bucket it closes.
    pub fn append(&mut self, iv: &Interval) -> Result<(), Error> {
        self.log.append(iv, None)
    }

    /// Writes `meta` again: the facts known only when the load starts (`started_at` after a
    /// wait for a common start).
    pub(crate) fn restart_meta(&self, meta: &RunMeta) -> Result<(), Error> {
        write_json(&self.log.dir.join(META), &with_log(meta, &self.format))
    }

    /// Writes the roll-ups' last (partial) lines, the summary and the final meta, and syncs the
    /// logs to disk; the tail goes, every second of it being in the roll-ups then.
    pub fn finish(mut self, meta: &RunMeta, summary: &Summary) -> Result<(), Error> {
        self.log.finish()?;
        write_json(&self.log.dir.join(SUMMARY), summary)?;
        write_json(&self.log.dir.join(META), &with_log(meta, &self.format))
    }
}

impl LogFiles {
    /// Creates the log's files in `dir` (which must not hold them yet: a run never writes over
    /// another's log) for a run whose labels and checks at the start are these.
    pub(super) fn create(
        dir: &Path,
        format: &LogFormat,
        labels: &[String],
        checks: &[String],
    ) -> Result<LogFiles, Error> {
        let log_path = dir.join(INTERVALS);
        let log = create_new(&log_path)?;
        let mut rollups = Vec::new();
        for width_s in &format.rollups_s {
            let path = dir.join(super::rollup_file(*width_s));
            let file = BufWriter::new(create_new(&path)?);
            rollups.push(Rollup { width_us: width_s.saturating_mul(1_000_000), path, file, open: None });
        }
        Ok(LogFiles {
            labels: labels.to_vec(),
            checks: checks.to_vec(),
            log: BufWriter::new(log),
            kept_us: format.seconds_kept_s.saturating_mul(1_000_000),
            tail: None,
            rollups,
            dir: dir.to_path_buf(),
        })
    }

    /// [`RunWriter::append`]; `text`, when given, is `iv`'s line as another writer wrote it (an
    /// agent's, streamed): the seconds keep it as it came.
    pub(super) fn append(&mut self, iv: &Interval, text: Option<&str>) -> Result<(), Error> {
        self.labels.extend(iv.new_labels.iter().cloned());
        let mut closed_finest = false;
        for (n, r) in self.rollups.iter_mut().enumerate() {
            let k = iv.start_us / r.width_us;
            // A late interval (never from a run's own clock) joins the open bucket.
            if r.open.as_ref().is_some_and(|b| k > b.k) {
                let bucket = r.open.take().expect("checked");
                write_line(&mut r.file, &r.path, &bucket.interval(), &self.labels, &self.checks)?;
                closed_finest |= n == 0;
            }
            r.open.get_or_insert_with(|| Bucket::new(k, iv)).add(iv);
        }
        // The finest roll-up's line is out: the seconds the tail kept for it may go. A new, empty
        // tail takes the old one's name, so a reader that opened the old one still reads it
        // whole (its seconds then in the line it reads, or in the tail it has).
        if closed_finest && self.tail.is_some() {
            let (path, new) = (self.dir.join(TAIL), self.dir.join("tail.jsonl.new"));
            let file = File::create(&new).map_err(io(&new))?;
            fs::rename(&new, &path).map_err(io(&path))?;
            self.tail = Some(BufWriter::new(file));
        }
        let (to, path) = if iv.start_us < self.kept_us {
            (&mut self.log, self.dir.join(INTERVALS))
        } else {
            let path = self.dir.join(TAIL);
            if self.tail.is_none() {
                self.tail = Some(BufWriter::new(File::create(&path).map_err(io(&path))?));
            }
            (self.tail.as_mut().expect("just made"), path)
        };
        match text {
            Some(text) => write_text(to, &path, text),
            None => write_line(to, &path, iv, &self.labels, &self.checks),
        }
    }

    /// Appends a line that does not read as an interval to the seconds kept, as it came: what
    /// an agent sent is never dropped, and a reader of the log names it (see
    /// [`super::damage`]).
    pub(super) fn append_unread(&mut self, text: &str) -> Result<(), Error> {
        write_text(&mut self.log, &self.dir.join(INTERVALS), text)
    }

    /// Writes the roll-ups' last (partial) lines and syncs the log to disk; the tail goes,
    /// every second of it being in the roll-ups then.
    pub(super) fn finish(&mut self) -> Result<(), Error> {
        let path = self.dir.join(INTERVALS);
        self.log.flush().map_err(io(&path))?;
        self.log.get_ref().sync_data().map_err(io(&path))?;
        for r in &mut self.rollups {
            if let Some(bucket) = r.open.take() {
                write_line(&mut r.file, &r.path, &bucket.interval(), &self.labels, &self.checks)?;
            }
            r.file.get_ref().sync_data().map_err(io(&r.path))?;
        }
        if let Some(tail) = self.tail.take() {
            drop(tail);
            let path = self.dir.join(TAIL);
            fs::remove_file(&path).map_err(io(&path))?;
        }
        Ok(())
    }
}

fn create_new(path: &Path) -> Result<File, Error> {
    fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(io(path))
}

/// Takes the directory `place` names and writes `meta` as its `meta.json`; returns the directory.
fn claim(place: &Place, meta: &[u8]) -> Result<PathBuf, Error> {
    match place {
        Place::Unique(base) => {
            create_parent(base)?;
            for n in 1..=MAX_SUFFIX {
                let dir = if n == 1 { base.clone() } else { suffixed(base, n) };
                match fs::create_dir(&dir) {
                    Ok(()) => {
                        write_new(&dir.join(META), meta)?;
                        return Ok(dir);
                    }
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                    Err(source) => return Err(Error::Io { path: dir, source }),
                }
            }
            Err(Error::Occupied { path: base.clone(), run: true })
        }
        Place::Exact { dir, replace } => {
            create_parent(dir)?;
            match fs::create_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let is_run = dir.join(META).exists();
                    let empty = fs::read_dir(dir).map_err(io(dir))?.next().is_none();
                    if !empty && !replace {
                        return Err(Error::Occupied { path: dir.clone(), run: is_run });
                    }
                    if *replace {
                        // Only the files a run writes: anything else the user keeps there stays.
                        for f in super::run_files() {
                            match fs::remove_file(dir.join(&f)) {
                                Err(e) if e.kind() != ErrorKind::NotFound => return Err(io(&dir.join(&f))(e)),
                                _ => {}
                            }
                        }
                    }
                }
                Err(source) => return Err(Error::Io { path: dir.clone(), source }),
            }
            // A run that claimed the (empty) directory since we looked has its meta.json there.
            match write_new(&dir.join(META), meta) {
                Err(Error::Io { source, .. }) if source.kind() == ErrorKind::AlreadyExists => {
                    Err(Error::Occupied { path: dir.clone(), run: true })
                }
                r => r.map(|()| dir.clone()),
            }
        }
    }
}

fn create_parent(dir: &Path) -> Result<(), Error> {
    match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => fs::create_dir_all(parent).map_err(io(parent)),
        None => Ok(()),
    }
}

/// `base-n`.
fn suffixed(base: &Path, n: u32) -> PathBuf {
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!("-{n}"));
    base.with_file_name(name)
}

/// Writes `iv` as a line of a log and flushes it to the OS.
fn write_line(
    to: &mut BufWriter<File>,
    path: &Path,
    iv: &Interval,
    labels: &[String],
    checks: &[String],
) -> Result<(), Error> {
    let line = IntervalLine::from_interval(iv, labels, checks);
    serde_json::to_writer(&mut *to, &line).map_err(|e| Error::Io { path: path.to_path_buf(), source: e.into() })?;
    to.write_all(b"\n").map_err(io(path))?;
    to.flush().map_err(io(path))
}

/// Writes `text` as a line of a log and flushes it to the OS.
fn write_text(to: &mut BufWriter<File>, path: &Path, text: &str) -> Result<(), Error> {
    to.write_all(text.trim_end().as_bytes()).map_err(io(path))?;
    to.write_all(b"\n").map_err(io(path))?;
    to.flush().map_err(io(path))
}

/// Writes a file that must not exist yet.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(io(path))?;
    f.write_all(bytes).map_err(io(path))
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub(crate) fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(value).expect("run data always serialises");
    fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
    fs::rename(&tmp, path).map_err(io(path))
}

/// The interval log's lines without its file: what an agent streams to its controller, which
/// appends them to the agent's run directory there (see [`RunWriter::append`]).
pub struct IntervalLines {
    labels: Vec<String>,
    checks: Vec<String>,
}

impl IntervalLines {
    /// The lines of a run with `meta`'s labels and checks.
    pub fn new(meta: &RunMeta) -> IntervalLines {
        IntervalLines { labels: meta.labels.clone(), checks: meta.checks.clone() }
    }

    /// The line `intervals.jsonl` would get for `iv` (without its newline).
    pub fn line(&mut self, iv: &Interval) -> String {
        self.labels.extend(iv.new_labels.iter().cloned());
        serde_json::to_string(&IntervalLine::from_interval(iv, &self.labels, &self.checks))
            .expect("run data always serialises")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{Sample, Tally};
    use crate::rundir::reader::{read_run, read_run_with, Grain};
    use crate::rundir::{rollup_file, Status, SECONDS_KEPT_S};

    /// A run directory in the temp directory; removed on drop.
    pub(crate) struct TempDir(pub PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    pub(crate) fn temp_dir(name: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        TempDir(std::env::temp_dir().join(format!("stampede-{name}-{}-{n}", std::process::id())))
    }

    /// Second `i`'s samples of the one label: their number and times vary with the second, so
    /// every bucket's histogram differs.
    fn second(i: u64) -> LabelStats {
        let mut s = LabelStats::default();
        for k in 0..1 + i % 3 {
            let start_us = i * 1_000_000 + k * 1_000;
            let elapsed = 100 + (i * 7919 + k * 104_729) % 50_000;
            s.record(&Sample {
                label: LabelId(0),
                start_us,
                end_us: start_us + elapsed,
                ttfb_us: elapsed / 2,
                connect_us: 0,
                bytes_sent: 10,
                bytes_received: 100 + k,
                new_connection: false,
                error: (i % 97 == 0).then_some(crate::record::ErrorKind::Io),
                in_total: true,
                upstream_us: None,
            });
        }
        s
    }

    pub(crate) fn meta() -> RunMeta {
        serde_json::from_value(serde_json::json!({
            "tool": "stampede", "version": "0", "command_line": [], "plan_path": null, "plan_name": "p",
            "host": "h", "started_at": "2026-11-25T00:00:00Z", "ended_at": null, "duration_s": null,
            "status": "running", "interval_s": 1.0, "scenarios": [{"name": "s", "model": "closed", "workload": "w"}],
            "labels": ["a"], "generator": null
        }))
        .unwrap()
    }

    /// Writes a run of `seconds` one-second intervals into `dir` (finished when `finish`, else
    /// left as a killed run leaves it) through the run's writer; returns each second's stats,
    /// the witness of what it measured.
    pub(crate) fn long_run(dir: &Path, seconds: u64, finish: bool) -> Vec<LabelStats> {
        let place = Place::Exact { dir: dir.to_path_buf(), replace: false };
        let mut w = RunWriter::create(&place, &meta(), "").unwrap();
        let mut tally = Tally::new(1, 1);
        let mut all = Vec::new();
        for i in 0..seconds {
            let iv = interval(i, seconds);
            let s = iv.total.clone();
            *tally.label_mut(0) += &s;
            tally.total += &s;
            tally.scenarios[0].iterations += s.samples;
            w.append(&iv).unwrap();
            all.push(s);
        }
        if finish {
            let mut m = meta();
            m.status = Status::Completed;
            m.duration_s = Some(seconds as f64);
            let summary = Summary::from_tally(&tally, &["a".to_string()], &[], &m.scenarios, true);
            w.finish(&m, &summary).unwrap();
        }
        all
    }

    /// Second `i` of a run of `seconds` as [`long_run`] writes it.
    pub(crate) fn interval(i: u64, seconds: u64) -> Interval {
        let s = second(i);
        Interval {
            new_labels: Vec::new(),
            index: i,
            start_us: i * 1_000_000,
            end_us: (i + 1) * 1_000_000,
            labels: vec![(LabelId(0), s.clone())],
            total: s.clone(),
            scenarios: vec![crate::record::ScenarioCounts { iterations: s.samples, ..Default::default() }],
            lateness: vec![LabelStats::default()],
            active_users: vec![i % 5],
            last: i + 1 == seconds,
        }
    }

    pub(crate) fn sum(seconds: &[LabelStats]) -> LabelStats {
        let mut t = LabelStats::default();
        for s in seconds {
            t += s;
        }
        t
    }

    /// The figures of a row that must be exactly the witness's.
    pub(crate) fn figures(s: &LabelStats) -> Vec<u64> {
        let mut v = vec![s.samples, s.errors, s.sum_elapsed_us, s.min_us, s.max_us, s.bytes_received, s.sum_ttfb_us];
        v.extend([0.5, 0.9, 0.95, 0.99, 0.999].map(|q| s.quantile_us(q)));
        v.extend([0.5, 0.99].map(|q| s.timing.ttfb_quantile_us_at(q, 1).unwrap_or(u64::MAX)));
        v
    }

    pub(crate) fn lines(dir: &Path, file: &str) -> usize {
        fs::read_to_string(dir.join(file)).map_or(0, |t| t.lines().count())
    }

    /// Every interval read at `grain`, summed, with how many there were.
    pub(crate) fn read_at(dir: &Path, grain: Grain) -> (LabelStats, usize) {
        let (mut total, mut n) = (LabelStats::default(), 0);
        read_run_with(dir, grain, |iv| {
            total += &iv.total;
            n += 1;
        })
        .unwrap();
        (total, n)
    }

    #[test]
    fn a_long_run_keeps_its_first_hour_of_seconds_and_rolls_up_the_rest_exactly() {
        let kept = SECONDS_KEPT_S;
        let dir = temp_dir("long-run");
        let seconds = long_run(&dir.0, kept + 150, true);
        let whole = sum(&seconds);
        assert_eq!(lines(&dir.0, INTERVALS), kept as usize);
        assert!(!dir.0.join(TAIL).exists(), "the tail goes at the end");
        let widths = [(60, kept as usize / 60 + 3), (600, kept as usize / 600 + 1), (3600, 2)];
        for (w, n) in widths {
            assert_eq!(lines(&dir.0, &rollup_file(w)), n, "{w} s lines");
        }
        for (grain, n) in [(Grain(60), kept as usize / 60 + 3), (Grain(600), 7), (Grain(3600), 2), (Grain::COARSEST, 2)]
        {
            let (total, read) = read_at(&dir.0, grain);
            assert_eq!(read, n, "{grain:?}");
            assert_eq!(figures(&total), figures(&whole), "{grain:?}");
        }
        // At a second's grain: the first hour's seconds, then the minutes past them.
        let (total, read) = read_at(&dir.0, Grain::SECOND);
        assert_eq!((read, figures(&total)), (kept as usize + 3, figures(&whole)));
        // A line of a roll-up is the exact sum of its seconds, counts beside the stats too.
        let text = fs::read_to_string(dir.0.join(rollup_file(60))).unwrap();
        let line: IntervalLine = serde_json::from_str(text.lines().nth(61).unwrap()).unwrap();
        let stats = line.labels[0].to_stats(&[]).unwrap();
        assert_eq!(figures(&stats), figures(&sum(&seconds[3660..3720])));
        assert_eq!(line.iterations, [seconds[3660..3720].iter().map(|s| s.samples).sum::<u64>()]);
        assert_eq!(
            (line.start_us, line.end_us, line.active_users.as_slice()),
            (3_660_000_000, 3_720_000_000, &[3719 % 5][..])
        );
    }

    #[test]
    fn a_killed_long_run_loses_nothing_whatever_line_it_died_in() {
        let kept = SECONDS_KEPT_S;
        // Killed 90 s past the kept hour: 30 s of the minute in progress are in the tail only.
        let dir = temp_dir("killed");
        let seconds = long_run(&dir.0, kept + 90, false);
        assert_eq!(lines(&dir.0, TAIL), 30);
        for grain in [Grain::SECOND, Grain(60), Grain(600), Grain::COARSEST] {
            let (total, _) = read_at(&dir.0, grain);
            assert_eq!(figures(&total), figures(&sum(&seconds)), "{grain:?}");
        }
        let t = read_run(&dir.0).unwrap().summary.total;
        let w = sum(&seconds);
        assert_eq!((t.samples, t.errors, t.max_ms), (w.samples, w.errors, w.max_us as f64 / 1000.0));

        // The last second of a minute: the tail holds the whole minute, not yet rolled up.
        let before = temp_dir("killed-before");
        let witness = long_run(&before.0, kept + 120, false);
        assert_eq!(lines(&before.0, TAIL), 60);
        // One second later the minute's line is written and the tail holds the new second only.
        let after = temp_dir("killed-after");
        long_run(&after.0, kept + 121, false);
        assert_eq!(lines(&after.0, TAIL), 1);
        // Killed between writing the minute's line and replacing the tail: both hold the minute
        // (its lines written as another tool would, so no prefix tells where they start).
        let stale = fs::read_to_string(before.0.join(TAIL)).unwrap().replace("\"start_us\":", "\"start_us\": ");
        fs::write(after.0.join(TAIL), stale).unwrap();
        for grain in [Grain::SECOND, Grain(60), Grain(600), Grain::COARSEST] {
            assert_eq!(figures(&read_at(&after.0, grain).0), figures(&sum(&witness)), "{grain:?}");
        }
        // Killed halfway through writing the minute's line: the tail has the minute.
        let path = after.0.join(rollup_file(60));
        let text = fs::read_to_string(&path).unwrap();
        let cut = text.trim_end().rfind('\n').unwrap() + 1 + 500;
        fs::write(&path, &text[..cut]).unwrap();
        for grain in [Grain::SECOND, Grain(60), Grain(600), Grain::COARSEST] {
            assert_eq!(figures(&read_at(&after.0, grain).0), figures(&sum(&witness)), "{grain:?}");
        }
    }

    #[test]
    fn a_layout_this_reader_cannot_trust_is_an_error_naming_meta_json() {
        let dir = temp_dir("layout");
        long_run(&dir.0, 5, true);
        let meta_path = dir.0.join(META);
        let good = fs::read_to_string(&meta_path).unwrap();
        for (log, says) in [
            (serde_json::json!({"version": 3, "seconds_kept_s": 3600, "rollups_s": [60]}), "layout version 3"),
            (serde_json::json!({"version": 2, "seconds_kept_s": 3600, "rollups_s": [0]}), "roll-ups of [0] s"),
            (serde_json::json!({"version": 2, "seconds_kept_s": 3600, "rollups_s": [60, 90]}), "do not nest"),
            (serde_json::json!({"version": 2, "seconds_kept_s": 3630, "rollups_s": [60]}), "do not nest"),
        ] {
            let mut meta: serde_json::Value = serde_json::from_str(&good).unwrap();
            meta["log"] = log;
            fs::write(&meta_path, meta.to_string()).unwrap();
            let e = read_run(&dir.0).err().expect("refused").to_string();
            assert!(e.contains("meta.json:1: log: ") && e.contains(says), "{e}");
        }
    }
}
