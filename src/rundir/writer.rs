//! [`RunWriter`]: creates a run directory and writes it as the run goes: meta and plan first,
//! then one flushed line per interval, then the summary and the final meta.

use super::log::IntervalLine;
use super::{Error, RunMeta, Summary, INTERVALS, META, PLAN, SUMMARY};
use crate::record::Interval;
use std::fs::{self, File};
use std::io::{BufWriter, ErrorKind, Write};
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

/// Where a run directory goes. A run never writes into a directory that holds another run.
#[derive(Debug, Clone)]
pub enum Place {
    /// `base`, else `base-2`, `base-3`, ...: the first name no one holds, claimed by creating
    /// it (the default `runs/<timestamp>`, where two runs may start in the same second).
    Unique(PathBuf),
    /// Exactly this directory (`--out`): new or empty, else an error, unless `replace` says
    /// that the run already in it (its run files) goes.
    Exact { dir: PathBuf, replace: bool },
}

/// Names tried after `base` before giving up: far more runs than start in one second.
const MAX_SUFFIX: u32 = 10_000;

impl RunWriter {
    /// Claims the directory `place` says and writes the run's first files. The claim is atomic
    /// (`create_dir`, then `meta.json` created only if absent), so two runs racing for one name
    /// never share a directory: the loser takes the next name, or (`--out`) gets
    /// [`Error::Occupied`].
    pub fn create(place: &Place, meta: &RunMeta, resolved_plan: &str) -> Result<RunWriter, Error> {
        let text = serde_json::to_string_pretty(meta).expect("run data always serialises") + "\n";
        let dir = claim(place, text.as_bytes())?;
        let plan = dir.join(PLAN);
        fs::write(&plan, resolved_plan).map_err(io(&plan))?;
        let log_path = dir.join(INTERVALS);
        let log = File::create(&log_path).map_err(io(&log_path))?;
        Ok(RunWriter { labels: meta.labels.clone(), checks: meta.checks.clone(), log: BufWriter::new(log), dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends an interval and flushes it to the OS, so a killed run keeps it.
    pub fn append(&mut self, iv: &Interval) -> Result<(), Error> {
        self.labels.extend(iv.new_labels.iter().cloned());
        let line = IntervalLine::from_interval(iv, &self.labels, &self.checks);
        let path = self.dir.join(INTERVALS);
        serde_json::to_writer(&mut self.log, &line).map_err(|e| Error::Io { path: path.clone(), source: e.into() })?;
        self.log.write_all(b"\n").map_err(io(&path))?;
        self.log.flush().map_err(io(&path))
    }

    /// Writes `meta` again: the facts known only when the load starts (`started_at` after a
    /// wait for a common start).
    pub fn restart_meta(&self, meta: &RunMeta) -> Result<(), Error> {
        write_json(&self.dir.join(META), meta)
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
                        for f in [META, PLAN, INTERVALS, SUMMARY, super::REPORT_HTML] {
                            match fs::remove_file(dir.join(f)) {
                                Err(e) if e.kind() != ErrorKind::NotFound => return Err(io(&dir.join(f))(e)),
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

/// Writes a file that must not exist yet.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(io(path))?;
    f.write_all(bytes).map_err(io(path))
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Error> {
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
