//! `stampede report RUN...`: a run directory (finished or interrupted) or a JMeter results file
//! (or several of either, reported as one), as Markdown, a self-contained HTML page, JSON, CSV
//! or JUnit XML.

use crate::error::{exit, Error};
use crate::plan::threshold::{self, Threshold};
use crate::report::{self, RunData, SourceKind};
use crate::rundir;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
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

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run directory (as written by `stampede run --out DIR`), or a JMeter results file
    /// (JTL/CSV with JMeter's default columns, with or without its header line). Several run
    /// directories, or several results files, are reported as one run: exactly, from the runs'
    /// histograms or from the files' rows.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A pass/fail goal judged with the run's own, `[LABEL:] METRIC OP VALUE` (e.g. `p95<300ms`);
    /// exits 1 when one fails (repeatable).
    #[arg(long = "threshold", value_name = "GOAL", value_parser = threshold::parse)]
    pub thresholds: Vec<Threshold>,
    /// After the whole, a table for each run given (`--by run`), for each part of a merged run
    /// (`--by agent`: each agent of a run on agents, each part given to `merge`), or for each
    /// group of those parts (`--by group`: as `agent --group`/`run --group` named them).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<By>,
    /// With several runs: after the whole, a table for this group of them,
    /// `NAME=RUN,RUN...` (e.g. `AWS=part-1,part-2`), each group's runs read as one (repeatable).
    #[arg(long = "group", value_name = "NAME=RUN,...", value_parser = parse_group)]
    pub groups: Vec<(String, Vec<PathBuf>)>,
    /// Only the seconds from this time since the run's start on (e.g. `--from 5m` leaves the
    /// warm-up out): the numbers and charts of that window, from the interval log.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg)]
    pub from: Option<std::time::Duration>,
    /// Only the seconds before this time since the run's start (with or without --from).
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg)]
    pub to: Option<std::time::Duration>,
    /// After the whole, tables over time: the Total and each label, a row per window of this
    /// length (e.g. `--every 1h` for a soak), from the interval log.
    #[arg(long, value_name = "DURATION", value_parser = super::parse_duration_arg, conflicts_with = "windows")]
    pub every: Option<std::time::Duration>,
    /// As --every, with at most this many equal windows (whole seconds each; whole minutes on a
    /// run longer than the hour of seconds it keeps) over the run or
    /// the --from/--to window.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub windows: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// A table per run given.
    Run,
    /// A table per part of a merged run (each agent's).
    Agent,
    /// A table per group of parts (`agent --group`), each group's parts read as one.
    Group,
}

fn parse_group(s: &str) -> Result<(String, Vec<PathBuf>), String> {
    let (name, runs) = s.split_once('=').ok_or_else(|| format!("`{s}` is not NAME=RUN,RUN..."))?;
    let runs: Vec<PathBuf> = runs.split(',').map(str::trim).filter(|r| !r.is_empty()).map(PathBuf::from).collect();
    if name.trim().is_empty() || runs.is_empty() {
        return Err(format!("`{s}` is not NAME=RUN,RUN..."));
    }
    Ok((name.trim().to_string(), runs))
}

/// The groups of runs `--by` and `--group` ask for, each read as one: (title, its run).
fn group_tables(a: &ReportArgs) -> Result<Vec<(String, RunData)>, Error> {
    let given: Vec<PathBuf> = a.runs.iter().map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone())).collect();
    for (name, runs) in &a.groups {
        for r in runs {
            if !given.contains(&std::fs::canonicalize(r).unwrap_or_else(|_| r.clone())) {
                return Err(Error::Usage(format!(
                    "--group {name}: {} is not one of the runs reported: give it as a RUN too",
                    r.display()
                )));
            }
        }
    }
    let mut groups: Vec<(String, Vec<PathBuf>)> = a.groups.clone();
    match a.by {
        Some(By::Run) => groups.extend(a.runs.iter().map(|r| (r.display().to_string(), vec![r.clone()]))),
        Some(by @ (By::Agent | By::Group)) => groups.extend(parts_by(&a.runs, by)?),
        None => {}
    }
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    if a.format != Format::Md {
        return Err(Error::Usage("--by and --group apply to the Markdown report (--format md)".into()));
    }
    let mut out = Vec::new();
    for (name, runs) in groups {
        let title =
            if runs.len() == 1 || a.by == Some(By::Agent) { name } else { format!("{name} ({} runs)", runs.len()) };
        out.push((title, load_all(&runs)?));
    }
    Ok(out)
}

/// The parts of the merged runs `runs`, a group each (`By::Agent`) or grouped by their group
/// name (`By::Group`), in the order listed; the groups' runs are then read as one.
fn parts_by(runs: &[PathBuf], by: By) -> Result<Vec<(String, Vec<PathBuf>)>, Error> {
    let mut out: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for r in runs {
        let meta = crate::rundir::reader::read_meta(r).map_err(|_| {
            Error::Usage(format!("--by agent and --by group read a merged run directory: {} is not one", r.display()))
        })?;
        if meta.parts.is_empty() {
            return Err(Error::Usage(format!(
                "{} has no parts: --by agent and --by group apply to a run on agents or a `stampede merge`",
                r.display()
            )));
        }
        for p in &meta.parts {
            let dir = r.join(&p.dir);
            let dir = if dir.join(crate::rundir::META).exists() { dir } else { PathBuf::from(&p.dir) };
            let part = p.part.as_ref();
            let title = match by {
                By::Group => format!("Group {}", part.and_then(|m| m.group.as_deref()).unwrap_or("(none)")),
                _ => {
                    let seg = part.and_then(|m| m.segment.as_deref()).map_or(String::new(), |s| format!("Part {s}: "));
                    let at = p.agent.as_ref().map_or(String::new(), |a| format!(" (agent {a})"));
                    format!("{seg}{}{at}", p.host)
                }
            };
            match out.iter_mut().find(|(t, _)| by == By::Group && *t == title) {
                Some((_, dirs)) => dirs.push(dir),
                None => out.push((title, vec![dir])),
            }
        }
    }
    Ok(out)
}

/// `--from`/`--to` as µs since the run's start.
fn window(a: &ReportArgs) -> Result<Option<std::ops::Range<u64>>, Error> {
    if a.from.is_none() && a.to.is_none() {
        return Ok(None);
    }
    let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let (from, to) = (a.from.map_or(0, us), a.to.map_or(u64::MAX, us));
    if from >= to {
        return Err(Error::Usage("--from must come before --to".into()));
    }
    Ok(Some(from..to))
}

/// A sweep's directory: its tables (Markdown), its page (HTML) or its record (JSON); each step is
/// a run directory of its own for the other formats.
fn report_sweep(a: &ReportArgs, dir: &Path) -> Result<u8, Error> {
    let record = crate::sweep::read(dir).map_err(Error::Usage)?;
    let text = match a.format {
        Format::Md => crate::sweep::markdown(&record),
        Format::Json => serde_json::to_string_pretty(&record).expect("a record serialises") + "\n",
        Format::Html => crate::report::sweep_html::document(&[(record.plan_name.clone(), &record)]),
        _ => {
            return Err(Error::Usage(format!(
            "{} is a sweep: it reports as md or json; each of its steps is a run directory that reports in any format",
            dir.display()
        )))
        }
    };
    write(a.output.as_deref(), &text)?;
    Ok(exit::OK)
}

/// Says on stderr that the run's watch log has a bad line (its results are reported all the
/// same, the watched sources up to that line).
pub(super) fn warn_watch(run: &RunData) {
    if let Some(w) = run.summary.watch.as_ref().and_then(|w| w.warning.as_deref()) {
        eprintln!("warning: {w}");
    }
}

/// Says on stderr which files of the runs' logs do not hold together (each with the lower bound
/// counted); true when any does: the command then ends with exit code 3, as for a corrupt
/// interval line, after writing what it could.
pub(super) fn warn_damage(run: &RunData) -> bool {
    for w in &run.summary.damage {
        eprintln!("warning: the run directory is damaged: {w}");
    }
    !run.summary.damage.is_empty()
}

/// Reads a run for a report; a results file that cannot be read is bad input (exit 2), as a bad
/// plan is, while a run directory that cannot be read is a runtime failure.
pub(super) fn load(path: &Path) -> Result<RunData, Error> {
    report::load(path).map_err(|e| match report::source_kind(path) {
        SourceKind::ResultsFile => Error::Usage(e.to_string()),
        SourceKind::RunDir => Error::from(e),
    })
}

/// Reads several run directories, or several results files, as one run.
pub(super) fn load_all(paths: &[PathBuf]) -> Result<RunData, Error> {
    if let [one] = paths {
        return load(one);
    }
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let dirs = refs.iter().filter(|p| report::source_kind(p) == SourceKind::RunDir).count();
    if dirs == refs.len() {
        Ok(report::load_runs(&refs)?)
    } else if dirs == 0 {
        report::imported::load(&refs).map_err(|e| Error::Usage(e.to_string()))
    } else {
        // A run directory's times are µs, a results file's whole ms: one report would mix them.
        Err(Error::Usage("give several run directories or several results files, not both".into()))
    }
}

pub(super) fn execute(a: ReportArgs) -> Result<u8, Error> {
    if let [dir] = a.runs.as_slice() {
        if crate::sweep::is_sweep(dir) {
            if a.every.is_some() || a.windows.is_some() || a.from.is_some() || a.to.is_some() {
                return Err(Error::Usage(
                    "--from, --to, --every and --windows read one run: give a step's directory of the sweep".into(),
                ));
            }
            return report_sweep(&a, dir);
        }
    }
    let cut = match (a.every, a.windows) {
        (Some(d), _) if d.is_zero() => return Err(Error::Usage("--every must be more than 0".into())),
        (Some(d), _) => Some(report::Cut::Every(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))),
        (None, Some(n)) => Some(report::Cut::Windows(n)),
        (None, None) => None,
    };
    let (mut run, windows) = match (window(&a)?, cut) {
        (None, None) => (load_all(&a.runs)?, Vec::new()),
        (w, cut) => {
            if a.runs.iter().any(|r| report::source_kind(r) != SourceKind::RunDir) {
                return Err(Error::Usage(
                    "--from, --to, --every and --windows read run directories' interval logs".into(),
                ));
            }
            let refs: Vec<&Path> = a.runs.iter().map(PathBuf::as_path).collect();
            report::load_runs_cut(&refs, w, cut)?
        }
    };
    warn_watch(&run);
    let damaged = warn_damage(&run);
    let rows: Vec<String> = std::iter::once(run.summary.total.label.clone())
        .chain(run.summary.labels.iter().map(|l| l.label.clone()))
        .collect();
    if a.runs.len() > 1 {
        let metas: Vec<_> = a.runs.iter().filter_map(|d| crate::rundir::reader::read_meta(d).ok()).collect();
        if let Some(missing) = crate::rundir::merge::missing_parts(&metas) {
            eprintln!(
                "warning: part {missing} of the plan is missing: these runs are a share of its load, not all of it"
            );
        }
    }
    let source = a.runs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    if run.summary.labels.iter().any(|l| l.label == crate::record::OVERFLOW_LABEL) {
        eprintln!(
            "warning: more than {} labels have samples; the samples of the others are counted in the row `{}`",
            crate::record::LABEL_CAP,
            crate::record::OVERFLOW_LABEL
        );
    }
    // The run's thresholds are judged again: a killed run has none judged yet, and the same
    // rule then holds for every source.
    let mut goals: Vec<Threshold> = Vec::new();
    for text in &run.meta.thresholds {
        goals.push(threshold::parse(text).map_err(|e| Error::Usage(format!("{source}: {e}")))?);
    }
    goals.extend(a.thresholds.iter().cloned());
    run.summary.thresholds = crate::run::judge::evaluate(&goals, &run.summary);
    let groups = group_tables(&a)?;
    let text = match a.format {
        Format::Md => {
            let mut text = report::markdown::document(&run);
            for (title, g) in &groups {
                text.push_str(&format!("\n## {title}\n\n{}\n", report::table(&g.summary)));
                for (k, v) in report::part_facts(&g.meta) {
                    text.push_str(&format!("{k}: {v}\n"));
                }
            }
            if !windows.is_empty() {
                text.push_str(&format!(
                    "\n## Over time\n{}\nTimes in ms; Received and Sent in KB/s; windows from the run's start.\n",
                    report::markdown::over_time(&windows, &rows)
                ));
            }
            text
        }
        Format::Html => report::html::document_with(&run, &windows),
        Format::Json if cut.is_some() => {
            let mut v = serde_json::json!({ "summary": run.summary, "windows": windows });
            with_lost(&mut v["summary"], &run);
            serde_json::to_string_pretty(&v).expect("a summary serializes") + "\n"
        }
        Format::Json => {
            // The summary's own field order, as it is written everywhere else (a `Value` would
            // sort its keys), with `lost` after it when the run lost agents.
            #[derive(serde::Serialize)]
            struct WithLost<'a> {
                #[serde(flatten)]
                summary: &'a crate::rundir::Summary,
                #[serde(skip_serializing_if = "Option::is_none")]
                lost: Option<serde_json::Value>,
            }
            let mut lost = serde_json::json!({});
            with_lost(&mut lost, &run);
            let v = WithLost { summary: &run.summary, lost: lost.get("lost").cloned() };
            serde_json::to_string_pretty(&v).expect("a summary serializes") + "\n"
        }
        Format::Csv if cut.is_some() => report::csv::windows(&windows),
        Format::Csv => report::csv::table(&run.summary),
        Format::Junit => {
            if goals.is_empty() {
                eprintln!("note: the run has no thresholds (add them to the plan, or --threshold): the JUnit report has no test case");
            }
            report::junit::document(&run)
        }
    };
    write(a.output.as_deref(), &text)?;
    let failed = run.summary.thresholds.iter().filter(|t| !t.passed).count();
    if failed > 0 {
        eprintln!("{failed} threshold(s) failed");
    }
    Ok(if damaged {
        exit::RUNTIME
    } else if failed > 0 {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    })
}

/// A JSON summary of a run that lost agents gets their record (`lost.json`) under `lost`, and
/// each one's note under `lost.notes`: a script reading the figures sees they are short.
fn with_lost(summary: &mut serde_json::Value, run: &RunData) {
    let (Some(lost), Some(obj)) = (&run.lost, summary.as_object_mut()) else { return };
    let mut v = serde_json::to_value(lost).expect("a record serializes");
    v["notes"] = report::lost::notes(lost).into();
    obj.insert("lost".into(), v);
}

/// Writes a report to a file, or to standard output.
pub(super) fn write(output: Option<&Path>, text: &str) -> Result<(), Error> {
    match output {
        Some(path) => std::fs::write(path, text.as_bytes())
            .map_err(|source| Error::from(rundir::Error::Io { path: path.to_path_buf(), source })),
        None => {
            super::say(text.trim_end_matches('\n'));
            super::say("\n");
            Ok(())
        }
    }
}
