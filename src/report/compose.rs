//! A report as `stampede report` asks for it: one run or several read as one (a run directory,
//! a results file, or a sweep's directory), a window of it, its tables over time, its parts
//! or groups of runs in tables of their own, in one of the formats.

use super::{markdown, Cut, RunData, SourceKind, Window};
use crate::rundir;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What was asked does not go together, or a results file does not read: bad input.
    #[error("{0}")]
    Refused(String),
    /// A run directory does not read.
    #[error(transparent)]
    RunDir(#[from] rundir::Error),
}

// The variants' comments are `report --format`'s help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The run's facts, the seed documents' table, errors by kind, thresholds.
    Md,
    /// One self-contained page with charts (no script, style or font fetched from anywhere).
    Html,
    /// The shape of a run's summary.json (`total` and `labels`).
    Json,
    /// A row per label, the Total first.
    Csv,
    /// JUnit XML: one test case per threshold, for CI.
    Junit,
}

/// After the whole, a table for each run given, each part of a merged run, or each group of
/// those parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum By {
    /// A table per run given.
    Run,
    /// A table per part of a merged run (each agent's).
    Agent,
    /// A table per group of parts (`agent --group`), each group's parts read as one.
    Group,
}

/// `report --group NAME=RUN,RUN...`: a group's name and its runs.
pub(crate) fn parse_group(s: &str) -> Result<(String, Vec<PathBuf>), String> {
    let (name, runs) = s.split_once('=').ok_or_else(|| format!("`{s}` is not NAME=RUN,RUN..."))?;
    let runs: Vec<PathBuf> = runs.split(',').map(str::trim).filter(|r| !r.is_empty()).map(PathBuf::from).collect();
    if name.trim().is_empty() || runs.is_empty() {
        return Err(format!("`{s}` is not NAME=RUN,RUN..."));
    }
    Ok((name.trim().to_string(), runs))
}

/// What `stampede report` is asked.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub runs: &'a [PathBuf],
    pub format: Format,
    pub by: Option<By>,
    /// Named groups of `runs`, each read as one, a table each.
    pub groups: &'a [(String, Vec<PathBuf>)],
    pub from: Option<Duration>,
    pub to: Option<Duration>,
    pub every: Option<Duration>,
    pub windows: Option<u32>,
}

/// What a report is made of: a sweep's whole text, or a run with its windows over time.
pub(crate) enum Read {
    Sweep(String),
    Run(Box<Loaded>),
}

pub(crate) struct Loaded {
    pub run: RunData,
    pub windows: Vec<Window>,
    /// Some file of the runs' logs does not hold together: the figures are a lower bound.
    pub damaged: bool,
}

impl Request<'_> {
    /// Reads what is to be reported; what is wrong with it but reads all the same goes to
    /// `warn`, as it is found.
    pub(crate) fn read(&self, warn: &mut dyn FnMut(&str)) -> Result<Read, Error> {
        if let [dir] = self.runs {
            if crate::sweep::is_sweep(dir) {
                if self.every.is_some() || self.windows.is_some() || self.from.is_some() || self.to.is_some() {
                    return Err(Error::Refused(
                        "--from, --to, --every and --windows read one run: give a step's directory of the sweep".into(),
                    ));
                }
                return self.sweep(dir).map(Read::Sweep);
            }
        }
        let (run, windows) = match (self.window()?, self.cut()?) {
            (None, None) => (load_all(self.runs)?, Vec::new()),
            (w, cut) => {
                if self.runs.iter().any(|r| super::source_kind(r) != SourceKind::RunDir) {
                    return Err(Error::Refused(
                        "--from, --to, --every and --windows read run directories' interval logs".into(),
                    ));
                }
                let refs: Vec<&Path> = self.runs.iter().map(PathBuf::as_path).collect();
                super::load_runs_cut(&refs, w, cut)?
            }
        };
        let damaged = warn_read(&run, warn);
        self.warn_share(warn);
        if run.summary.labels.iter().any(|l| l.label == crate::record::OVERFLOW_LABEL) {
            warn(&format!(
                "warning: more than {} labels have samples; the samples of the others are counted in the row `{}`",
                crate::record::LABEL_CAP,
                crate::record::OVERFLOW_LABEL
            ));
        }
        Ok(Read::Run(Box::new(Loaded { run, windows, damaged })))
    }

    /// The report's text of `l` (its thresholds judged); `warn` hears that a JUnit report of
    /// no goals has no test case.
    pub(crate) fn render(&self, l: &Loaded, warn: &mut dyn FnMut(&str)) -> Result<String, Error> {
        let groups = self.group_tables()?;
        let (run, cut) = (&l.run, self.cut()?);
        Ok(match self.format {
            Format::Md => self.markdown(l, &groups),
            Format::Html => super::html::document_with(run, &l.windows),
            Format::Json => json(run, cut.map(|_| l.windows.as_slice())),
            Format::Csv if cut.is_some() => super::csv::windows(&l.windows),
            Format::Csv => super::csv::table(&run.summary),
            Format::Junit => {
                if run.summary.thresholds.is_empty() {
                    warn("note: the run has no thresholds (add them to the plan, or --threshold): the JUnit report has no test case");
                }
                super::junit::document(run)
            }
        })
    }

    fn markdown(&self, l: &Loaded, groups: &[(String, RunData)]) -> String {
        let mut text = markdown::document(&l.run);
        for (title, g) in groups {
            text.push_str(&format!("\n## {title}\n\n{}\n", super::table(&g.summary)));
            for (k, v) in super::part_facts(&g.meta) {
                text.push_str(&format!("{k}: {v}\n"));
            }
        }
        if !l.windows.is_empty() {
            let rows: Vec<String> = std::iter::once(l.run.summary.total.label.clone())
                .chain(l.run.summary.labels.iter().map(|l| l.label.clone()))
                .collect();
            text.push_str(&format!(
                "\n## Over time\n{}\nTimes in ms; Received and Sent in KB/s; windows from the run's start.\n",
                markdown::over_time(&l.windows, &rows)
            ));
        }
        text
    }

    /// Several runs that are parts of one plan, not all of them.
    fn warn_share(&self, warn: &mut dyn FnMut(&str)) {
        if self.runs.len() < 2 {
            return;
        }
        let metas: Vec<_> = self.runs.iter().filter_map(|d| rundir::reader::read_meta(d).ok()).collect();
        if let Some(missing) = rundir::merge::missing_parts(&metas) {
            warn(&format!(
                "warning: part {missing} of the plan is missing: these runs are a share of its load, not all of it"
            ));
        }
    }

    /// `--every`/`--windows`.
    fn cut(&self) -> Result<Option<Cut>, Error> {
        Ok(match (self.every, self.windows) {
            (Some(d), _) if d.is_zero() => return Err(Error::Refused("--every must be more than 0".into())),
            (Some(d), _) => Some(Cut::Every(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))),
            (None, Some(n)) => Some(Cut::Windows(n)),
            (None, None) => None,
        })
    }

    /// `--from`/`--to` as µs since the run's start.
    fn window(&self) -> Result<Option<std::ops::Range<u64>>, Error> {
        if self.from.is_none() && self.to.is_none() {
            return Ok(None);
        }
        let us = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let (from, to) = (self.from.map_or(0, us), self.to.map_or(u64::MAX, us));
        if from >= to {
            return Err(Error::Refused("--from must come before --to".into()));
        }
        Ok(Some(from..to))
    }

    /// A sweep's directory: its tables (Markdown), its page (HTML) or its record (JSON); each
    /// step is a run directory of its own for the other formats.
    fn sweep(&self, dir: &Path) -> Result<String, Error> {
        let record = crate::sweep::read(dir).map_err(|e| Error::Refused(e.to_string()))?;
        Ok(match self.format {
            Format::Md => crate::sweep::markdown(&record),
            Format::Json => serde_json::to_string_pretty(&record).expect("a record serialises") + "\n",
            Format::Html => super::sweep_html::document(&[(record.plan_name.clone(), &record)]),
            _ => {
                return Err(Error::Refused(format!(
                "{} is a sweep: it reports as md or json; each of its steps is a run directory that reports in any format",
                dir.display()
            )))
            }
        })
    }

    /// The groups of runs `by` and `groups` ask for, each read as one: (title, its run).
    fn group_tables(&self) -> Result<Vec<(String, RunData)>, Error> {
        let canonical = |r: &PathBuf| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone());
        let given: Vec<PathBuf> = self.runs.iter().map(canonical).collect();
        for (name, runs) in self.groups {
            if let Some(r) = runs.iter().find(|r| !given.contains(&canonical(r))) {
                return Err(Error::Refused(format!(
                    "--group {name}: {} is not one of the runs reported: give it as a RUN too",
                    r.display()
                )));
            }
        }
        let mut groups: Vec<(String, Vec<PathBuf>)> = self.groups.to_vec();
        match self.by {
            Some(By::Run) => groups.extend(self.runs.iter().map(|r| (r.display().to_string(), vec![r.clone()]))),
            Some(by @ (By::Agent | By::Group)) => groups.extend(parts_by(self.runs, by)?),
            None => {}
        }
        if groups.is_empty() {
            return Ok(Vec::new());
        }
        if self.format != Format::Md {
            return Err(Error::Refused("--by and --group apply to the Markdown report (--format md)".into()));
        }
        let mut out = Vec::new();
        for (name, runs) in groups {
            let title = if runs.len() == 1 || self.by == Some(By::Agent) {
                name
            } else {
                format!("{name} ({} runs)", runs.len())
            };
            out.push((title, load_all(&runs)?));
        }
        Ok(out)
    }
}

/// The parts of the merged runs `runs`, a group each (`By::Agent`) or grouped by their group
/// name (`By::Group`), in the order listed; the groups' runs are then read as one.
fn parts_by(runs: &[PathBuf], by: By) -> Result<Vec<(String, Vec<PathBuf>)>, Error> {
    let mut out: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for r in runs {
        let meta = rundir::reader::read_meta(r).map_err(|_| {
            Error::Refused(format!("--by agent and --by group read a merged run directory: {} is not one", r.display()))
        })?;
        if meta.parts.is_empty() {
            return Err(Error::Refused(format!(
                "{} has no parts: --by agent and --by group apply to a run on agents or a `stampede merge`",
                r.display()
            )));
        }
        for p in &meta.parts {
            let dir = r.join(&p.dir);
            let dir = if dir.join(rundir::META).exists() { dir } else { PathBuf::from(&p.dir) };
            let title = part_title(p, by);
            match out.iter_mut().find(|(t, _)| by == By::Group && *t == title) {
                Some((_, dirs)) => dirs.push(dir),
                None => out.push((title, vec![dir])),
            }
        }
    }
    Ok(out)
}

fn part_title(p: &rundir::MergedPart, by: By) -> String {
    let part = p.part.as_ref();
    match by {
        By::Group => format!("Group {}", part.and_then(|m| m.group.as_deref()).unwrap_or("(none)")),
        _ => {
            let seg = part.and_then(|m| m.segment.as_deref()).map_or(String::new(), |s| format!("Part {s}: "));
            let at = p.agent.as_ref().map_or(String::new(), |a| format!(" (agent {a})"));
            format!("{seg}{}{at}", p.host)
        }
    }
}

/// A run's summary as JSON (with its `windows` when cut): the summary's own field order, as it
/// is written everywhere else, and the record of the agents it lost under `lost`.
fn json(run: &RunData, windows: Option<&[Window]>) -> String {
    if let Some(windows) = windows {
        let mut v = serde_json::json!({ "summary": run.summary, "windows": windows });
        with_lost(&mut v["summary"], run);
        return serde_json::to_string_pretty(&v).expect("a summary serializes") + "\n";
    }
    // A `Value` would sort the summary's keys.
    #[derive(serde::Serialize)]
    struct WithLost<'a> {
        #[serde(flatten)]
        summary: &'a rundir::Summary,
        #[serde(skip_serializing_if = "Option::is_none")]
        lost: Option<serde_json::Value>,
    }
    let mut lost = serde_json::json!({});
    with_lost(&mut lost, run);
    let v = WithLost { summary: &run.summary, lost: lost.get("lost").cloned() };
    serde_json::to_string_pretty(&v).expect("a summary serializes") + "\n"
}

/// A JSON summary of a run that lost agents gets their record (`lost.json`) under `lost`, and
/// each one's note under `lost.notes`: a script reading the figures sees they are short.
fn with_lost(summary: &mut serde_json::Value, run: &RunData) {
    let (Some(lost), Some(obj)) = (&run.lost, summary.as_object_mut()) else { return };
    let mut v = serde_json::to_value(lost).expect("a record serializes");
    v["notes"] = super::lost::notes(lost).into();
    obj.insert("lost".into(), v);
}

/// Says to `warn` that the run's watch log has a bad line (its results are reported all the
/// same, the watched sources up to that line), and which files of the runs' logs do not hold
/// together (each with the lower bound counted); true when any does: a command then ends with
/// exit code 3, as for a corrupt interval line, after writing what it could.
pub(crate) fn warn_read(run: &RunData, warn: &mut dyn FnMut(&str)) -> bool {
    if let Some(w) = run.summary.watch.as_ref().and_then(|w| w.warning.as_deref()) {
        warn(&format!("warning: {w}"));
    }
    for w in &run.summary.damage {
        warn(&format!("warning: the run directory is damaged: {w}"));
    }
    !run.summary.damage.is_empty()
}

/// Reads a run for a report; a results file that cannot be read is bad input, as a bad plan
/// is, while a run directory that cannot be read is a runtime failure.
pub(crate) fn load(path: &Path) -> Result<RunData, Error> {
    super::load(path).map_err(|e| match super::source_kind(path) {
        SourceKind::ResultsFile => Error::Refused(e.to_string()),
        SourceKind::RunDir => Error::from(e),
    })
}

/// Reads several run directories, or several results files, as one run.
pub(crate) fn load_all(paths: &[PathBuf]) -> Result<RunData, Error> {
    if let [one] = paths {
        return load(one);
    }
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let dirs = refs.iter().filter(|p| super::source_kind(p) == SourceKind::RunDir).count();
    if dirs == refs.len() {
        Ok(super::load_runs(&refs)?)
    } else if dirs == 0 {
        super::imported::load(&refs).map_err(|e| Error::Refused(e.to_string()))
    } else {
        // A run directory's times are µs, a results file's whole ms: one report would mix them.
        Err(Error::Refused("give several run directories or several results files, not both".into()))
    }
}

/// How `compare` writes runs side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompareFormat {
    Md(super::compare::Layout),
    /// One self-contained page with the runs' charts overlaid.
    Html,
    Json,
}

/// Runs side by side, or sweeps (all of them, then: a step of a sweep is a run), as `compare`
/// asks: named by `names` (comma-separated, in order) or by their file names; the first the
/// baseline. Returns the text, and whether a run's logs do not hold together (said to `warn`).
pub(crate) fn comparison(
    paths: &[PathBuf],
    names: Option<&str>,
    format: CompareFormat,
    warn: &mut dyn FnMut(&str),
) -> Result<(String, bool), Error> {
    let names = run_names(paths, names)?;
    let sweeps = paths.iter().filter(|r| crate::sweep::is_sweep(r)).count();
    if sweeps == paths.len() {
        return Ok((sweeps_side_by_side(paths, names, format)?, false));
    } else if sweeps > 0 {
        return Err(Error::Refused(
            "compare sweeps with sweeps, or runs with runs (a step of a sweep is a run)".into(),
        ));
    }
    let mut loaded = Vec::new();
    let mut damaged = false;
    for path in paths {
        let run = load(path)?;
        damaged |= warn_read(&run, warn);
        loaded.push(run);
    }
    let runs: Vec<(String, String, &RunData)> =
        names.iter().zip(paths).zip(&loaded).map(|((n, p), r)| (n.clone(), p.display().to_string(), r)).collect();
    let c = super::compare::compare(&runs);
    let text = match format {
        CompareFormat::Md(layout) => super::compare::markdown(&c, layout),
        CompareFormat::Html => super::html::comparison(&c, &loaded.iter().collect::<Vec<_>>()),
        CompareFormat::Json => serde_json::to_string_pretty(&c).expect("a comparison serializes") + "\n",
    };
    Ok((text, damaged))
}

fn run_names(paths: &[PathBuf], given: Option<&str>) -> Result<Vec<String>, Error> {
    let Some(given) = given else {
        let name =
            |p: &PathBuf| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned());
        return Ok(paths.iter().map(name).collect());
    };
    let names: Vec<String> = given.split(',').map(|s| s.trim().to_string()).collect();
    if names.len() != paths.len() || names.iter().any(String::is_empty) {
        return Err(Error::Refused(format!(
            "--names gives {} name(s) for {} runs; give one non-empty name per run, comma-separated",
            names.len(),
            paths.len()
        )));
    }
    Ok(names)
}

/// Sweeps side by side: a column per sweep at each load (Markdown), their charts overlaid
/// (HTML), or their records (JSON).
fn sweeps_side_by_side(paths: &[PathBuf], names: Vec<String>, format: CompareFormat) -> Result<String, Error> {
    let records = paths
        .iter()
        .map(|r| crate::sweep::read(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Refused(e.to_string()))?;
    if records.iter().any(|r| r.load != records[0].load) {
        return Err(Error::Refused("these sweeps vary different loads (users and rates): compare alike sweeps".into()));
    }
    let sweeps: Vec<(String, &crate::sweep::Record)> = names.into_iter().zip(&records).collect();
    Ok(match format {
        CompareFormat::Md(_) => crate::sweep::compare_markdown(&sweeps),
        CompareFormat::Html => super::sweep_html::document(&sweeps),
        CompareFormat::Json => {
            let named: Vec<serde_json::Value> =
                sweeps.iter().map(|(n, r)| serde_json::json!({"name": n, "sweep": r})).collect();
            serde_json::to_string_pretty(&named).expect("records serialise") + "\n"
        }
    })
}
