//! Reads a run directory back: its meta, and its summary — from `summary.json` when the run
//! finished, else rebuilt from the interval log (tolerating a last line cut off by a crash).

use super::log::IntervalLine;
use super::{Error, RunMeta, Summary, INTERVALS, META, SUMMARY};
use crate::record::Tally;
use std::io::{BufRead, BufReader};
use std::path::Path;

pub struct Run {
    pub meta: RunMeta,
    pub summary: Summary,
}

pub fn read_run(dir: &Path) -> Result<Run, Error> {
    let meta_path = dir.join(META);
    if !meta_path.exists() {
        return Err(Error::NotARun(dir.to_path_buf()));
    }
    let meta: RunMeta = read_json(&meta_path)?;
    let summary_path = dir.join(SUMMARY);
    let summary = if summary_path.exists() { read_json(&summary_path)? } else { rebuild(dir, &meta)? };
    Ok(Run { meta, summary })
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| Error::Format {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })
}

/// Sums the interval log of a run that has no summary (it was killed).
pub fn rebuild(dir: &Path, meta: &RunMeta) -> Result<Summary, Error> {
    let path = dir.join(INTERVALS);
    let mut labels = meta.labels.clone();
    let mut tally = Tally::new(labels.len(), meta.scenarios.len());
    let file = match std::fs::File::open(&path) {
        Ok(f) => Some(f),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(Error::Io { path, source }),
    };
    let lines: Vec<String> = match file {
        Some(f) => BufReader::new(f)
            .lines()
            .collect::<Result<_, _>>()
            .map_err(|source| Error::Io { path: path.clone(), source })?,
        None => Vec::new(),
    };
    for (n, text) in lines.iter().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let line: IntervalLine = match serde_json::from_str(text) {
            Ok(l) => l,
            // Only the last line can be cut off by a crash; anything earlier is corruption.
            Err(_) if n + 1 == lines.len() => break,
            Err(e) => return Err(Error::Format { path, line: n + 1, message: e.to_string() }),
        };
        for l in &line.labels {
            let stats = l.to_stats(&meta.checks).map_err(|message| Error::Format {
                path: path.clone(),
                line: n + 1,
                message,
            })?;
            let idx = match labels.iter().position(|x| *x == l.label) {
                Some(i) => i,
                None => {
                    labels.push(l.label.clone());
                    tally.labels.push(Default::default());
                    labels.len() - 1
                }
            };
            tally.labels[idx] += &stats;
        }
        let format = |message| Error::Format { path: path.clone(), line: n + 1, message };
        match &line.total {
            Some(t) => tally.total += &t.to_stats(&meta.checks).map_err(format)?,
            // Logs written before the Total had its own line have no groups or redirect hops:
            // their Total is the sum of their labels.
            None => {
                for l in &line.labels {
                    tally.total += &l.to_stats(&meta.checks).map_err(format)?;
                }
            }
        }
        for (a, b) in tally.scenarios.iter_mut().zip(line.scenarios()) {
            a.iterations += b.iterations;
            a.dropped += b.dropped;
        }
    }
    Ok(Summary::from_tally(&tally, &labels, &meta.checks, &meta.scenarios, false))
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
        let meta: RunMeta = serde_json::from_value(serde_json::json!({
            "tool": "stampede", "version": "0", "command_line": [], "plan_path": null, "plan_name": "p",
            "host": "h", "started_at": "x", "ended_at": null, "duration_s": null, "status": "running",
            "interval_s": 1.0, "scenarios": [{"name": "s", "model": "closed", "workload": "w"}],
            "labels": labels, "generator": null
        }))
        .unwrap();
        let summary = rebuild(&dir, &meta).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(summary.total.samples, 7);
    }
}
