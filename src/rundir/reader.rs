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
            let stats = l.to_stats().map_err(|message| Error::Format { path: path.clone(), line: n + 1, message })?;
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
        for (a, b) in tally.scenarios.iter_mut().zip(line.scenarios()) {
            a.iterations += b.iterations;
            a.dropped += b.dropped;
        }
    }
    Ok(Summary::from_tally(&tally, &labels, &meta.scenarios, false))
}
