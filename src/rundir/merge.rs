//! Several run directories read as one: runs made side by side (load generators on several
//! machines, or several processes on one) reported together, exactly — their interval logs'
//! histograms and counters add up, whatever `summary.json` says.
//!
//! The logs are read at once, in time: each run's intervals are placed by its start time
//! (`meta.json`), and the intervals of all runs that start in the same second of that common
//! clock make one interval of the merged run, so its charts line the runs up.

use super::reader::{add_to_tally, read_meta, read_run_with, IntervalLine, Log, LoggedInterval, Run, Shared};
use super::{Error, RunMeta, Status, Summary, SUMMARY};
use crate::record::{LabelStats, Tally};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// One run being read: its log, the next interval, where its clock starts on the common one,
/// and where its scenarios start in the merged list.
struct Source {
    log: Log,
    head: Option<(IntervalLine, LoggedInterval)>,
    offset_us: u64,
    first_scenario: usize,
}

impl Source {
    /// The second of the common clock the next interval starts in.
    fn second(&self) -> Option<u64> {
        self.head.as_ref().map(|(_, iv)| self.offset_us.saturating_add(iv.start_us) / 1_000_000)
    }
}

/// Reads every run in `dirs` as one and shows `visit` the merged intervals in time order. One
/// run is read as [`read_run_with`] reads it (its summary from `summary.json` when it finished).
pub fn read_runs_with(dirs: &[&Path], mut visit: impl FnMut(&LoggedInterval)) -> Result<Run, Error> {
    match dirs {
        [] => return Err(Error::NotARun(PathBuf::new())),
        [one] => return read_run_with(one, visit),
        _ => {}
    }
    let metas = dirs.iter().map(|d| read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    let mut checks: Vec<String> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    for m in &metas {
        union(&mut checks, &m.checks);
        union(&mut labels, &m.labels);
    }
    let starts: Vec<Option<OffsetDateTime>> =
        metas.iter().map(|m| OffsetDateTime::parse(&m.started_at, &Rfc3339).ok()).collect();
    let first = starts.iter().flatten().min().copied();
    let mut shared = Shared::new(&labels);
    let mut sources = Vec::with_capacity(dirs.len());
    let mut scenario_count = 0;
    for ((dir, meta), start) in dirs.iter().zip(&metas).zip(&starts) {
        let offset_us = match (start, first) {
            (Some(s), Some(f)) => u64::try_from((*s - f).whole_microseconds()).unwrap_or(0),
            _ => 0,
        };
        // Every run's error kinds are named against the merged list of checks.
        let mut log = Log::open(dir, &checks)?;
        let head = log.next(&mut shared)?;
        sources.push(Source { log, head, offset_us, first_scenario: scenario_count });
        scenario_count += meta.scenarios.len();
    }
    let mut tally = Tally::new(labels.len(), scenario_count);
    let mut held: Option<LoggedInterval> = None;
    while let Some(second) = sources.iter().filter_map(Source::second).min() {
        let mut merged = Merged::default();
        for src in &mut sources {
            while src.second() == Some(second) {
                let (line, mut iv) = src.head.take().expect("a head");
                // Sample times are µs since the run's own start: on the common clock, the
                // throughput's span runs from the first run's first start to the last end.
                for s in iv.labels.iter_mut().map(|(_, s)| s).chain([&mut iv.total]) {
                    if s.samples > 0 {
                        s.first_start_us = s.first_start_us.saturating_add(src.offset_us);
                        s.last_end_us = s.last_end_us.saturating_add(src.offset_us);
                    }
                }
                add_to_tally(&mut tally, &iv, &line, src.first_scenario);
                merged.add(&iv, src.offset_us);
                src.head = src.log.next(&mut shared)?;
            }
        }
        if let Some(h) = held.replace(merged.finish()) {
            visit(&h);
        }
    }
    if let Some(mut h) = held {
        h.last = true;
        visit(&h);
    }
    let scenarios: Vec<_> = metas.iter().flat_map(|m| m.scenarios.iter().cloned()).collect();
    let complete = dirs.iter().all(|d| d.join(SUMMARY).exists());
    let summary = Summary::from_tally(&tally, &shared.labels, &checks, &scenarios, complete);
    let meta = merged_meta(&metas, &starts, shared.labels, checks, scenarios);
    Ok(Run { meta, summary })
}

/// The intervals of one second of the common clock, added up.
#[derive(Default)]
struct Merged {
    start_us: Option<u64>,
    /// The longest interval added: the merged one lasts that long, so a chart's rates are per
    /// second of the common clock even when the runs' seconds are offset (not per the span
    /// from the earliest start to the latest end, which would overlap the next second's).
    longest_us: u64,
    labels: BTreeMap<usize, LabelStats>,
    total: LabelStats,
    active_users: u64,
}

impl Merged {
    fn add(&mut self, iv: &LoggedInterval, offset_us: u64) {
        let start = offset_us.saturating_add(iv.start_us);
        self.start_us = Some(self.start_us.map_or(start, |s| s.min(start)));
        self.longest_us = self.longest_us.max(iv.end_us.saturating_sub(iv.start_us));
        for (i, s) in &iv.labels {
            *self.labels.entry(*i).or_default() += s;
        }
        self.total += &iv.total;
        self.active_users += iv.active_users;
    }

    fn finish(self) -> LoggedInterval {
        let start_us = self.start_us.unwrap_or(0);
        LoggedInterval {
            start_us,
            end_us: start_us.saturating_add(self.longest_us),
            labels: self.labels.into_iter().collect(),
            total: self.total,
            active_users: self.active_users,
            last: false,
        }
    }
}

/// Appends the names of `more` not yet in `list`.
fn union(list: &mut Vec<String>, more: &[String]) {
    let mut seen: std::collections::HashSet<String> = list.iter().cloned().collect();
    for m in more {
        if seen.insert(m.clone()) {
            list.push(m.clone());
        }
    }
}

/// The facts of the runs together: from the first start to the last end, the plans and hosts
/// named once each, every scenario, status `completed` only when every run completed.
fn merged_meta(
    metas: &[RunMeta],
    starts: &[Option<OffsetDateTime>],
    labels: Vec<String>,
    checks: Vec<String>,
    scenarios: Vec<super::ScenarioMeta>,
) -> RunMeta {
    let joined = |f: &dyn Fn(&RunMeta) -> String| {
        let mut names: Vec<String> = Vec::new();
        union(&mut names, &metas.iter().map(f).collect::<Vec<_>>());
        names.join(" + ")
    };
    let ends: Vec<Option<OffsetDateTime>> =
        metas.iter().map(|m| m.ended_at.as_deref().and_then(|e| OffsetDateTime::parse(e, &Rfc3339).ok())).collect();
    let first = starts.iter().flatten().min().copied();
    let last = if ends.iter().all(Option::is_some) { ends.iter().flatten().max().copied() } else { None };
    let format = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
    let mut thresholds = Vec::new();
    for m in metas {
        union(&mut thresholds, &m.thresholds);
    }
    let status = [Status::Running, Status::Interrupted]
        .into_iter()
        .find(|s| metas.iter().any(|m| m.status == *s))
        .unwrap_or(Status::Completed);
    RunMeta {
        tool: metas[0].tool.clone(),
        version: joined(&|m| m.version.clone()),
        command_line: Vec::new(),
        plan_path: None,
        plan_name: format!("{} ({} runs)", joined(&|m| m.plan_name.clone()), metas.len()),
        host: joined(&|m| m.host.clone()),
        started_at: first.map_or_else(|| metas[0].started_at.clone(), format),
        ended_at: last.map(format),
        duration_s: first.zip(last).map(|(f, l)| (l - f).as_seconds_f64()),
        status,
        interval_s: metas[0].interval_s,
        scenarios,
        labels,
        checks,
        generator: None,
        thresholds,
        stopped_by: metas.iter().find_map(|m| m.stopped_by.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::Interval;
    use crate::rundir::{Model, Place, RunWriter, ScenarioMeta};

    /// A finished run started at `started_at` with one label `a`: one interval per entry of
    /// `per_second`, each with that many samples of 1 ms.
    fn write_run(dir: &Path, started_at: &str, per_second: &[u64]) {
        let meta = RunMeta {
            tool: "stampede".into(),
            version: "0".into(),
            command_line: Vec::new(),
            plan_path: None,
            plan_name: "p".into(),
            host: "h".into(),
            started_at: started_at.into(),
            ended_at: None,
            duration_s: None,
            status: Status::Completed,
            interval_s: 1.0,
            scenarios: vec![ScenarioMeta { name: "s".into(), model: Model::Closed, workload: "w".into() }],
            labels: vec!["a".into()],
            checks: Vec::new(),
            generator: None,
            thresholds: Vec::new(),
            stopped_by: None,
        };
        let mut w = RunWriter::create(&Place::Exact { dir: dir.to_path_buf(), replace: false }, &meta, "").unwrap();
        for (i, n) in per_second.iter().enumerate() {
            let s = crate::rundir::reader::tests::stats_from(i as u64 * 1_000_000, *n, 1000, 1000);
            let iv = Interval {
                new_labels: Vec::new(),
                index: i as u64,
                start_us: i as u64 * 1_000_000,
                end_us: (i as u64 + 1) * 1_000_000,
                labels: vec![(LabelId(0), s.clone())],
                total: s,
                scenarios: vec![Default::default()],
                lateness: vec![Default::default()],
                active_users: vec![1],
                last: i + 1 == per_second.len(),
            };
            w.append(&iv).unwrap();
        }
    }

    #[test]
    fn runs_are_lined_up_on_one_clock_and_add_up_exactly() {
        let root = std::env::temp_dir().join(format!("stampede-merge-{}", std::process::id()));
        let (a, b) = (root.join("a"), root.join("b"));
        // b starts 2.5 s after a: its first second overlaps a's third.
        write_run(&a, "2026-01-01T00:00:00Z", &[10, 20, 30]);
        write_run(&b, "2026-01-01T00:00:02.5Z", &[5, 6]);
        let mut seen = Vec::new();
        let mut spans = Vec::new();
        let run = read_runs_with(&[&a, &b], |iv| {
            seen.push((iv.start_us, iv.total.samples, iv.last));
            spans.push((iv.start_us, iv.end_us));
        });
        // Merged seconds last a second (the runs' own length), never overlapping the next one:
        // a chart's rates are per second even when the runs' clocks are offset.
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0 && w[0].1 - w[0].0 == 1_000_000, "{spans:?}");
        }
        let _ = std::fs::remove_dir_all(&root);
        let run = run.unwrap();
        assert_eq!(run.summary.total.samples, 71);
        assert_eq!(run.summary.labels.len(), 1);
        // Second 2 holds a's third interval and b's first; b's second is second 3.
        assert_eq!(seen, [(0, 10, false), (1_000_000, 20, false), (2_000_000, 35, false), (3_500_000, 6, true)]);
        // From a's first start to b's last end (its 6th sample, 2.5 s + 1.005 s + 1 ms).
        let span_s = 3.506;
        assert!(
            (run.summary.total.throughput_rps - 71.0 / span_s).abs() < 1e-6,
            "{}",
            run.summary.total.throughput_rps
        );
        assert_eq!((run.meta.plan_name.as_str(), run.meta.scenarios.len()), ("p (2 runs)", 2));
        assert!(!run.summary.complete, "neither run wrote its summary");
    }
}
