//! Reads a run directory back: its meta, and its summary — from `summary.json` when the run
//! finished, else rebuilt from the interval log (tolerating a last line cut off by a crash).

use super::log::IntervalLine;
use super::{Error, RunMeta, Summary, INTERVALS, META, SUMMARY};
use crate::record::{LabelStats, Tally};
use std::io::{BufRead, BufReader};
use std::path::Path;

pub struct Run {
    pub meta: RunMeta,
    pub summary: Summary,
}

pub fn read_run(dir: &Path) -> Result<Run, Error> {
    read_run_with(dir, |_| {})
}

/// One interval of the log, as read back: label stats by index into the run's label list
/// (labels not in `meta.json` are appended to it, in the order met).
pub struct LoggedInterval {
    pub start_us: u64,
    pub end_us: u64,
    pub labels: Vec<(usize, LabelStats)>,
    pub total: LabelStats,
    pub active_users: u64,
    /// The last interval of the log.
    pub last: bool,
}

/// Reads a run and shows `visit` every interval of its log, in order (reports chart them).
/// The summary is `summary.json` when the run finished, else the sum of the intervals.
pub fn read_run_with(dir: &Path, mut visit: impl FnMut(&LoggedInterval)) -> Result<Run, Error> {
    let mut meta = read_meta(dir)?;
    let summary_path = dir.join(SUMMARY);
    let finished: Option<Summary> = if summary_path.exists() { Some(read_json(&summary_path)?) } else { None };
    let mut labels = meta.labels.clone();
    let mut tally = Tally::new(labels.len(), meta.scenarios.len());
    // One interval is held back until the next arrives, to tell the last one.
    let mut held: Option<LoggedInterval> = None;
    for_each_line(dir, &meta, &mut labels, |line, iv| {
        // A run that was killed has no summary: it is the sum of its intervals.
        if finished.is_none() {
            for (i, s) in &iv.labels {
                *tally.label_mut(*i) += s;
            }
            tally.total += &iv.total;
            for (a, b) in tally.scenarios.iter_mut().zip(line.scenarios()) {
                a.iterations += b.iterations;
                a.dropped += b.dropped;
            }
        }
        if let Some(h) = held.replace(iv) {
            visit(&h);
        }
    })?;
    if let Some(mut h) = held {
        h.last = true;
        visit(&h);
    }
    let summary = match finished {
        Some(s) => s,
        None => Summary::from_tally(&tally, &labels, &meta.checks, &meta.scenarios, false),
    };
    meta.labels = labels;
    Ok(Run { meta, summary })
}

/// A run directory's `meta.json`.
pub fn read_meta(dir: &Path) -> Result<RunMeta, Error> {
    let meta_path = dir.join(META);
    if !meta_path.exists() {
        return Err(Error::NotARun(dir.to_path_buf()));
    }
    read_json(&meta_path)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| Error::Format {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })
}

/// Streams the interval log line by line (a soak test's log can be gigabytes), tolerating a
/// last line cut off by a crash.
fn for_each_line(
    dir: &Path,
    meta: &RunMeta,
    labels: &mut Vec<String>,
    mut f: impl FnMut(&IntervalLine, LoggedInterval),
) -> Result<(), Error> {
    let path = dir.join(INTERVALS);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(Error::Io { path, source }),
    };
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut text = String::new();
    let mut n = 0;
    // A line that does not parse is kept until the next one: only the last line may be cut off.
    let mut broken: Option<(usize, String)> = None;
    loop {
        text.clear();
        let read = reader.read_line(&mut text).map_err(|source| Error::Io { path: path.clone(), source })?;
        if read == 0 {
            break;
        }
        n += 1;
        if text.trim().is_empty() {
            continue;
        }
        if let Some((line, message)) = broken.take() {
            return Err(Error::Format { path, line, message });
        }
        let line: IntervalLine = match serde_json::from_str(&text) {
            Ok(l) => l,
            Err(e) => {
                broken = Some((n, e.to_string()));
                continue;
            }
        };
        let format = |message| Error::Format { path: path.clone(), line: n, message };
        let mut iv = LoggedInterval {
            start_us: line.start_us,
            end_us: line.end_us,
            labels: Vec::with_capacity(line.labels.len()),
            total: LabelStats::default(),
            active_users: line.active_users.iter().sum(),
            last: false,
        };
        for l in &line.labels {
            let stats = l.to_stats(&meta.checks).map_err(format)?;
            let idx = match labels.iter().position(|x| *x == l.label) {
                Some(i) => i,
                None => {
                    labels.push(l.label.clone());
                    labels.len() - 1
                }
            };
            iv.labels.push((idx, stats));
        }
        match &line.total {
            Some(t) => iv.total = t.to_stats(&meta.checks).map_err(format)?,
            // Logs written before the Total had its own line have no groups or redirect hops:
            // their Total is the sum of their labels.
            None => {
                for (_, s) in &iv.labels {
                    iv.total += s;
                }
            }
        }
        f(&line, iv);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::{Interval, LabelStats, Sample};

    fn stats(n: u64) -> LabelStats {
        let mut s = LabelStats::default();
        for i in 0..n {
            s.record(&Sample {
                label: LabelId(0),
                start_us: i,
                end_us: i + 10,
                ttfb_us: 1,
                connect_us: 0,
                bytes_sent: 1,
                bytes_received: 1,
                new_connection: false,
                error: None,
                in_total: true,
            });
        }
        s
    }

    #[test]
    fn a_log_without_total_lines_sums_its_labels() {
        let dir = std::env::temp_dir().join(format!("stampede-reader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let labels = vec!["a".to_string(), "b".to_string()];
        let iv = Interval {
            index: 0,
            start_us: 0,
            end_us: 1_000_000,
            labels: vec![(LabelId(0), stats(3)), (LabelId(1), stats(4))],
            total: stats(7),
            scenarios: vec![Default::default()],
            active_users: vec![0],
            last: true,
        };
        let mut line = IntervalLine::from_interval(&iv, &labels, &[]);
        line.total = None;
        std::fs::write(dir.join(INTERVALS), serde_json::to_string(&line).unwrap() + "\n").unwrap();
        let meta = serde_json::json!({
            "tool": "stampede", "version": "0", "command_line": [], "plan_path": null, "plan_name": "p",
            "host": "h", "started_at": "x", "ended_at": null, "duration_s": null, "status": "running",
            "interval_s": 1.0, "scenarios": [{"name": "s", "model": "closed", "workload": "w"}],
            "labels": labels, "generator": null
        });
        std::fs::write(dir.join(META), meta.to_string()).unwrap();
        let mut seen = Vec::new();
        let run = read_run_with(&dir, |iv| seen.push((iv.total.samples, iv.last)));
        let _ = std::fs::remove_dir_all(&dir);
        let run = run.unwrap();
        assert_eq!(run.summary.total.samples, 7);
        assert!(!run.summary.complete);
        assert_eq!(seen, [(7, true)]);
    }
}
