//! [`RunWriter`]: creates a run directory and writes it as the run goes: meta and plan first,
//! then one flushed line per interval, then the summary and the final meta.

use super::log::IntervalLine;
use super::{Error, RunMeta, Summary, INTERVALS, META, PLAN, SUMMARY};
use crate::record::Interval;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct RunWriter {
    dir: PathBuf,
    labels: Vec<String>,
    checks: Vec<String>,
    log: BufWriter<File>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

impl RunWriter {
    /// Creates `dir` (and its parents). Files of an earlier run in the same directory are
    /// replaced.
    pub fn create(dir: &Path, meta: &RunMeta, resolved_plan: &str) -> Result<RunWriter, Error> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        for f in [SUMMARY, INTERVALS] {
            let p = dir.join(f);
            if p.exists() {
                fs::remove_file(&p).map_err(io(&p))?;
            }
        }
        write_json(&dir.join(META), meta)?;
        let plan = dir.join(PLAN);
        fs::write(&plan, resolved_plan).map_err(io(&plan))?;
        let log_path = dir.join(INTERVALS);
        let log = File::create(&log_path).map_err(io(&log_path))?;
        Ok(RunWriter {
            dir: dir.to_path_buf(),
            labels: meta.labels.clone(),
            checks: meta.checks.clone(),
            log: BufWriter::new(log),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends an interval and flushes it to the OS, so a killed run keeps it.
    pub fn append(&mut self, iv: &Interval) -> Result<(), Error> {
        let line = IntervalLine::from_interval(iv, &self.labels, &self.checks);
        let path = self.dir.join(INTERVALS);
        serde_json::to_writer(&mut self.log, &line).map_err(|e| Error::Io { path: path.clone(), source: e.into() })?;
        self.log.write_all(b"\n").map_err(io(&path))?;
        self.log.flush().map_err(io(&path))
    }

    /// Writes the summary and the final meta, and syncs the log to disk.
    pub fn finish(mut self, meta: &RunMeta, summary: &Summary) -> Result<(), Error> {
        let path = self.dir.join(INTERVALS);
        self.log.flush().map_err(io(&path))?;
        self.log.get_ref().sync_data().map_err(io(&path))?;
        write_json(&self.dir.join(SUMMARY), summary)?;
        write_json(&self.dir.join(META), meta)
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(value).expect("run data always serialises");
    fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
    fs::rename(&tmp, path).map_err(io(path))
}
