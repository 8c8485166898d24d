//! Several run directories read as one: runs made side by side (load generators on several
//! machines, or several processes on one) reported together, exactly — their interval logs'
//! histograms and counters add up, whatever `summary.json` says.
//!
//! The logs are read at once, in time: each run's intervals are placed by its start time
//! (`meta.json`), and the intervals of all runs that start in the same second of that common
//! clock make one interval of the merged run, so its charts line the runs up.

use super::reader::{add_to_tally, read_meta, read_run_with, IntervalLine, Log, LoggedInterval, Run, Shared};
use super::{Error, MergedPart, RunMeta, Status, Summary, SUMMARY};
use crate::record::{LabelStats, ScenarioCounts, Tally};
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
    /// What it has added so far.
    samples: u64,
    errors: u64,
    connections: u64,
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
        [] => Err(Error::NotARun(PathBuf::new())),
        [one] => read_run_with(one, visit),
        _ => read_many(dirs, |iv, _| visit(iv)),
    }
}

/// The scenarios' side of a merged interval, each scenario's numbers added up across the runs
/// that ran it (see [`read_many`]).
#[derive(Debug, Clone, Default)]
pub struct ScenarioSide {
    pub counts: Vec<ScenarioCounts>,
    pub lateness: Vec<LabelStats>,
    pub active_users: Vec<u64>,
}

/// Reads two runs or more as one (see [`read_runs_with`]), showing `visit` each merged interval
/// with its scenarios' side.
pub fn read_many(dirs: &[&Path], mut visit: impl FnMut(&LoggedInterval, &ScenarioSide)) -> Result<Run, Error> {
    if dirs.is_empty() {
        return Err(Error::NotARun(PathBuf::new()));
    }
    let metas = dirs.iter().map(|d| read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    if let Some(why) = cannot_merge(dirs, &metas) {
        return Err(Error::Merge(why));
    }
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
    // Parts of one plan (`run --segment`) run the same scenarios: each scenario's numbers add
    // up across the parts. Other runs keep theirs side by side.
    let one_plan = parts_of_one_plan(&metas);
    for ((dir, meta), start) in dirs.iter().zip(&metas).zip(&starts) {
        let offset_us = match (start, first) {
            (Some(s), Some(f)) => u64::try_from((*s - f).whole_microseconds()).unwrap_or(0),
            _ => 0,
        };
        // Every run's error kinds are named against the merged list of checks.
        let mut log = Log::open(dir, &checks)?;
        let head = log.next(&mut shared)?;
        // Parts of one plan add into its scenarios; other runs keep theirs side by side.
        let first_scenario = if one_plan { 0 } else { scenario_count };
        sources.push(Source { log, head, offset_us, first_scenario, samples: 0, errors: 0, connections: 0 });
        scenario_count = first_scenario + meta.scenarios.len();
    }
    let mut tally = Tally::new(labels.len(), scenario_count);
    let mut held: Option<(LoggedInterval, ScenarioSide)> = None;
    while let Some(second) = sources.iter().filter_map(Source::second).min() {
        let mut merged = Merged { side: ScenarioSide::sized(scenario_count), ..Default::default() };
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
                src.samples += iv.total.samples;
                src.errors += iv.total.errors;
                src.connections += iv.total.connections_opened;
                merged.add(&iv, src.offset_us);
                merged.side.add(&line, src.first_scenario, &checks);
                src.head = src.log.next(&mut shared)?;
            }
        }
        if let Some((h, side)) = held.replace(merged.finish()) {
            visit(&h, &side);
        }
    }
    if let Some((mut h, side)) = held {
        h.last = true;
        visit(&h, &side);
    }
    let scenarios: Vec<_> = if one_plan {
        metas[0].scenarios.clone()
    } else {
        metas.iter().flat_map(|m| m.scenarios.iter().cloned()).collect()
    };
    let complete = dirs.iter().all(|d| d.join(SUMMARY).exists());
    let summary = Summary::from_tally(&tally, &shared.labels, &checks, &scenarios, complete);
    let mut meta = merged_meta(&metas, &starts, shared.labels, checks, scenarios);
    meta.parts = dirs
        .iter()
        .zip(&metas)
        .zip(&sources)
        .map(|((dir, m), src)| MergedPart {
            dir: dir.display().to_string(),
            host: m.host.clone(),
            started_at: m.started_at.clone(),
            status: m.status,
            part: m.part.clone(),
            agent: None,
            samples: src.samples,
            errors: src.errors,
            connections: src.connections,
            generator: m.generator,
        })
        .collect();
    if one_plan {
        let names: Vec<String> = metas.iter().filter_map(segment_of).map(|(i, n)| format!("{i}/{n}")).collect();
        meta.plan_name = format!("{} ({} parts: {})", metas[0].plan_name, metas.len(), names.join(", "));
    }
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
    side: ScenarioSide,
}

impl ScenarioSide {
    fn sized(n: usize) -> ScenarioSide {
        ScenarioSide {
            counts: vec![ScenarioCounts::default(); n],
            lateness: (0..n).map(|_| LabelStats::default()).collect(),
            active_users: vec![0; n],
        }
    }

    /// Adds a run's line, its scenarios from `first` on.
    fn add(&mut self, line: &IntervalLine, first: usize, checks: &[String]) {
        for (a, b) in self.counts.iter_mut().skip(first).zip(line.scenarios()) {
            a.add(&b);
        }
        for (a, b) in self.active_users.iter_mut().skip(first).zip(&line.active_users) {
            *a += b;
        }
        // A lateness record that does not read is a fact lost, not the run's numbers.
        if let Ok(late) = line.lateness(line.iterations.len(), checks) {
            for (a, b) in self.lateness.iter_mut().skip(first).zip(&late) {
                *a += b;
            }
        }
    }
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

    fn finish(self) -> (LoggedInterval, ScenarioSide) {
        let start_us = self.start_us.unwrap_or(0);
        let iv = LoggedInterval {
            start_us,
            end_us: start_us.saturating_add(self.longest_us),
            labels: self.labels.into_iter().collect(),
            total: self.total,
            active_users: self.active_users,
            last: false,
        };
        (iv, self.side)
    }
}

/// Whether the runs are parts of one plan: each ran a segment (`run --segment`), of a plan with
/// the same name and scenarios.
fn parts_of_one_plan(metas: &[RunMeta]) -> bool {
    let Some(first) = metas.first() else { return false };
    metas.iter().all(|m| {
        segment_of(m).is_some()
            && m.plan_name == first.plan_name
            && m.scenarios.len() == first.scenarios.len()
            && m.scenarios.iter().zip(&first.scenarios).all(|(a, b)| a.name == b.name && a.model == b.model)
    })
}

/// `I/N` as numbers (1 <= I <= N), however it is spaced or padded.
pub fn segment_numbers(text: &str) -> Option<(u32, u32)> {
    let (i, n) = text.split_once('/')?;
    let (i, n) = (i.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?);
    (i >= 1 && i <= n).then_some((i, n))
}

fn segment_of(m: &RunMeta) -> Option<(u32, u32)> {
    m.part.as_ref()?.segment.as_deref().and_then(segment_numbers)
}

/// Why these runs cannot be read as one: the same directory twice, or parts of one plan that
/// overlap (a segment twice, or segments of different N, whose shares overlap or leave gaps):
/// their load would count twice. `dirs` and `metas` go together.
pub fn cannot_merge(dirs: &[&Path], metas: &[RunMeta]) -> Option<String> {
    let mut seen = Vec::new();
    for d in dirs {
        let at = std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
        if seen.contains(&at) {
            return Some(format!("{} is given twice: its samples would count twice", d.display()));
        }
        seen.push(at);
    }
    if !parts_of_one_plan(metas) {
        return None;
    }
    let parts: Vec<(u32, u32)> = metas.iter().filter_map(segment_of).collect();
    let n = parts[0].1;
    if let Some((i, m)) = parts.iter().find(|(_, m)| *m != n) {
        return Some(format!("parts {}/{n} and {i}/{m} divide the plan differently: their shares overlap", parts[0].0));
    }
    let mut taken = Vec::new();
    for (i, _) in &parts {
        if taken.contains(i) {
            return Some(format!("segment {i}/{n} is given twice: its load would count twice"));
        }
        taken.push(*i);
    }
    None
}

/// The parts of one plan missing from these (`2/3, 3/3`), when some are: the merged run is
/// then a share of the plan's load, not all of it.
pub fn missing_parts(metas: &[RunMeta]) -> Option<String> {
    if !parts_of_one_plan(metas) {
        return None;
    }
    let parts: Vec<(u32, u32)> = metas.iter().filter_map(segment_of).collect();
    let n = parts[0].1;
    if parts.iter().any(|(_, m)| *m != n) {
        return None;
    }
    let missing: Vec<String> =
        (1..=n).filter(|i| !parts.iter().any(|(j, _)| j == i)).take(10).map(|i| format!("{i}/{n}")).collect();
    let more = n as usize - parts.len();
    match missing.len() {
        0 => None,
        k if more > k => Some(format!("{} and {} more", missing.join(", "), more - k)),
        _ => Some(missing.join(", ")),
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
        part: None,
        parts: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::Interval;
    use crate::rundir::{Model, PartMeta, Place, RunWriter, ScenarioMeta};

    /// A finished run started at `started_at` with one label `a`: one interval per entry of
    /// `per_second`, each with that many samples of 1 ms.
    fn write_run(dir: &Path, started_at: &str, per_second: &[u64]) {
        let seconds: Vec<LabelStats> = per_second
            .iter()
            .enumerate()
            .map(|(i, n)| crate::rundir::reader::tests::stats_from(i as u64 * 1_000_000, *n, 1000, 1000))
            .collect();
        write_part(dir, started_at, None, &seconds);
    }

    /// [`write_run`] of a part (`segment`) whose intervals hold `seconds`.
    fn write_part(dir: &Path, started_at: &str, segment: Option<&str>, seconds: &[LabelStats]) {
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
            part: segment.map(|s| PartMeta {
                segment: Some(s.into()),
                start_at: None,
                start_skew_ms: None,
                data_split: false,
                group: None,
            }),
            parts: Vec::new(),
        };
        let mut w = RunWriter::create(&Place::Exact { dir: dir.to_path_buf(), replace: false }, &meta, "").unwrap();
        for (i, s) in seconds.iter().enumerate() {
            let iv = Interval {
                new_labels: Vec::new(),
                index: i as u64,
                start_us: i as u64 * 1_000_000,
                end_us: (i as u64 + 1) * 1_000_000,
                labels: vec![(LabelId(0), s.clone())],
                total: s.clone(),
                scenarios: vec![Default::default()],
                lateness: vec![Default::default()],
                active_users: vec![1],
                last: i + 1 == seconds.len(),
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

    /// Parts of one plan merge into the numbers of one histogram holding every sample: counts,
    /// sums, min, max and every percentile; their scenarios add up as one plan's.
    #[test]
    fn parts_merge_into_one_histogram_of_every_sample() {
        let root = std::env::temp_dir().join(format!("stampede-merge-parts-{}", std::process::id()));
        let mut all = LabelStats::default();
        let mut dirs = Vec::new();
        // Three parts with latencies far apart (1, 7 and 40 ms, spread): a wrong merge moves
        // every upper percentile.
        for (p, base) in [(1u64, 1_000u64), (2, 7_000), (3, 40_000)] {
            let mut seconds = Vec::new();
            for sec in 0..3u64 {
                let mut s = LabelStats::default();
                for k in 0..(50 * p + sec) {
                    let start = sec * 1_000_000 + k * 100;
                    let sample = crate::record::Sample {
                        label: LabelId(0),
                        start_us: start,
                        end_us: start + base + k * 37,
                        ttfb_us: 1,
                        connect_us: 0,
                        bytes_sent: 2,
                        bytes_received: 3,
                        new_connection: false,
                        error: None,
                        in_total: true,
                    };
                    s.record(&sample);
                    all.record(&sample);
                }
                seconds.push(s);
            }
            let dir = root.join(format!("p{p}"));
            write_part(&dir, "2026-01-01T00:00:00Z", Some(&format!("{p}/3")), &seconds);
            dirs.push(dir);
        }
        let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let mut merged = LabelStats::default();
        let run = read_many(&refs, |iv, side| {
            merged += &iv.total;
            assert_eq!(side.active_users, [3], "one scenario, a user in each part");
        });
        let metas: Vec<RunMeta> = refs.iter().map(|d| read_meta(d).unwrap()).collect();
        let _ = std::fs::remove_dir_all(&root);
        let run = run.unwrap();
        assert_eq!((merged.samples, merged.sum_elapsed_us), (all.samples, all.sum_elapsed_us));
        assert_eq!((merged.min_us, merged.max_us, merged.bytes_received), (all.min_us, all.max_us, all.bytes_received));
        for q in [0.5, 0.9, 0.95, 0.99, 0.999] {
            assert_eq!(merged.quantile_us(q), all.quantile_us(q), "q{q}");
        }
        assert_eq!(run.summary.total.samples, all.samples);
        assert_eq!(run.meta.scenarios.len(), 1);
        assert_eq!(run.meta.parts.iter().map(|p| p.samples).sum::<u64>(), all.samples);
        assert!(run.meta.plan_name.contains("3 parts: 1/3, 2/3, 3/3"), "{}", run.meta.plan_name);
        let refs3: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        assert_eq!((cannot_merge(&refs3, &metas), missing_parts(&metas)), (None, None));
        assert_eq!(missing_parts(&metas[..2]).as_deref(), Some("3/3"));
        assert_eq!(missing_parts(&metas[1..]).as_deref(), Some("1/3"));
        let twice = [metas[0].clone(), metas[0].clone()];
        let two_dirs = [Path::new("a"), Path::new("b")];
        assert!(cannot_merge(&two_dirs, &twice).unwrap().contains("1/3 is given twice"));
        let mut halves = metas[0].clone();
        halves.part.as_mut().unwrap().segment = Some("01 / 2".into());
        assert!(cannot_merge(&two_dirs, &[metas[0].clone(), halves]).unwrap().contains("divide the plan differently"));
        assert!(cannot_merge(&[Path::new("a"), Path::new("a")], &metas[..2]).unwrap().contains("a is given twice"));
        assert_eq!(segment_numbers(" 2 / 3"), Some((2, 3)));
        assert_eq!(segment_numbers("4/3"), None);
        assert_eq!(segment_numbers("0/3"), None);
    }
}
