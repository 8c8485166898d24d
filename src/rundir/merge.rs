//! Several run directories read as one: runs made side by side (load generators on several
//! machines, or several processes on one) reported together, exactly — their interval logs'
//! histograms and counters add up, whatever `summary.json` says.
//!
//! The logs are read at once, in time: each run's intervals are placed by its start time
//! (`meta.json`), and the intervals of all runs that start in the same second of that common
//! clock make one interval of the merged run, so its charts line the runs up. `Merger` does
//! it as intervals arrive, whether read from logs ([`read_many`]) or streamed by agents to
//! their controller ([`LiveMerge`]): one way to merge, so a run on agents reads as the `merge`
//! of its agents' directories.

use super::reader::{
    add_to_tally, logged, read_meta, read_run_with, Grain, IntervalLine, LoggedInterval, Run, Shared, Tiers,
};
use super::{Error, LogFormat, MergedPart, RunMeta, ScenarioMeta, Status, Summary, SUMMARY};
use crate::plan::LabelId;
use crate::record::{Interval, LabelStats, ScenarioCounts, Tally};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// One run being merged: its intervals not merged yet (their times on the common clock), where
/// its scenarios start in the merged list, and what it has added so far.
#[derive(Default)]
struct Part {
    queue: VecDeque<(IntervalLine, LoggedInterval)>,
    offset_us: u64,
    first_scenario: usize,
    /// It will send no more.
    ended: bool,
    samples: u64,
    errors: u64,
    connections: u64,
    /// Lines added so far.
    lines: u64,
}

/// Runs merged second by second of a common clock as their intervals arrive: in order within a
/// run, in any order between runs. A second is merged once every run that has not ended has
/// sent an interval that starts after it, so each second is merged once, whole; the totals
/// count every interval from its arrival.
struct Merger {
    parts: Vec<Part>,
    tally: Tally,
    scenario_count: usize,
    checks: Vec<String>,
    /// The last second merged: an interval that comes later for it or an earlier one (see
    /// [`Merger::pop`]'s `patience`) goes into the next.
    merged: Option<u64>,
    /// The length of a merged interval, µs: a second, or a roll-up's (a long run read whole).
    grain_us: u64,
}

impl Merger {
    /// For runs whose scenarios start at `first_scenarios[i]` in a list of `scenario_count`.
    fn new(first_scenarios: &[usize], labels: usize, scenario_count: usize, checks: &[String], grain: Grain) -> Merger {
        Merger {
            grain_us: grain.0.clamp(1, u64::MAX / 1_000_000) * 1_000_000,
            parts: first_scenarios.iter().map(|f| Part { first_scenario: *f, ..Part::default() }).collect(),
            tally: Tally::new(labels, scenario_count),
            scenario_count,
            checks: checks.to_vec(),
            merged: None,
        }
    }

    /// Adds run `i`'s next interval (times since the run's own start).
    fn push(&mut self, i: usize, line: IntervalLine, mut iv: LoggedInterval) {
        let p = &mut self.parts[i];
        // Sample times are µs since the run's own start: on the common clock, the throughput's
        // span runs from the first run's first start to the last end.
        iv.start_us = iv.start_us.saturating_add(p.offset_us);
        iv.end_us = iv.end_us.saturating_add(p.offset_us);
        for s in iv.labels.iter_mut().map(|(_, s)| s).chain([&mut iv.total]) {
            if s.samples > 0 {
                s.first_start_us = s.first_start_us.saturating_add(p.offset_us);
                s.last_end_us = s.last_end_us.saturating_add(p.offset_us);
            }
        }
        add_to_tally(&mut self.tally, &iv, &line, p.first_scenario);
        p.samples += iv.total.samples;
        p.errors += iv.total.errors;
        p.connections += iv.total.connections_opened;
        p.queue.push_back((line, iv));
    }

    fn end(&mut self, i: usize) {
        self.parts[i].ended = true;
    }

    /// The second (or grain) of the common clock an interval (already on it) starts in.
    fn second(&self, iv: &LoggedInterval) -> u64 {
        iv.start_us / self.grain_us
    }

    /// The earliest second not merged yet.
    fn earliest(&self) -> Option<u64> {
        self.parts.iter().filter_map(|p| p.queue.front().map(|(_, iv)| self.second(iv))).min()
    }

    /// A run that must send more (or end) before the next second can be merged.
    fn waits_on(&self) -> Option<usize> {
        let earliest = self.earliest();
        self.parts.iter().position(|p| {
            !p.ended && p.queue.back().is_none_or(|(_, iv)| earliest.is_some_and(|s| self.second(iv) <= s))
        })
    }

    /// The next second, merged, once every run has sent enough for it; or, with `patience`,
    /// once a run has more intervals than that waiting for a run that lags (the lagging run's
    /// intervals then go into the next second merged when they come: the totals stay exact,
    /// and the log never goes back in time).
    fn pop(&mut self, patience: Option<usize>) -> Option<(LoggedInterval, ScenarioSide)> {
        let earliest = self.earliest()?;
        if self.waits_on().is_some() && !patience.is_some_and(|n| self.parts.iter().any(|p| p.queue.len() > n)) {
            return None;
        }
        let s = self.merged.map_or(earliest, |m| earliest.max(m + 1));
        let mut merged = Merged { side: ScenarioSide::sized(self.scenario_count), ..Default::default() };
        let grain = self.grain_us;
        for p in &mut self.parts {
            // The part's span in this merged interval (its lines are consecutive), at most the
            // grain: late seconds of a part are counted in it, not lengthening it.
            let mut span: Option<(u64, u64)> = None;
            while p.queue.front().is_some_and(|(_, iv)| iv.start_us / grain <= s) {
                let Some((line, iv)) = p.queue.pop_front() else { break };
                span = Some(span.map_or((iv.start_us, iv.end_us), |(a, b)| (a.min(iv.start_us), b.max(iv.end_us))));
                // Users are a gauge: a part's count is its last line's in the merged interval.
                let last = p.queue.front().is_none_or(|(_, next)| next.start_us / grain > s);
                merged.add(&iv, last);
                merged.side.add(&line, p.first_scenario, &self.checks, last);
                if let Some((a, b)) = span {
                    let single = iv.end_us.saturating_sub(iv.start_us);
                    merged.longest_us = merged.longest_us.max(single.max(b.saturating_sub(a).min(grain)));
                }
            }
        }
        self.merged = Some(s);
        let (mut iv, side) = merged.finish();
        // Late intervals of earlier seconds are counted in this one.
        let at = s.saturating_mul(grain);
        if iv.start_us < at {
            iv.end_us = iv.end_us.saturating_add(at - iv.start_us);
            iv.start_us = at;
        }
        Some((iv, side))
    }

    /// The merged run of the runs whose facts are `metas` (each with the directory it is listed
    /// by), its summary the sum of every interval (`complete` when every run finished); its
    /// clock starts at `origin`, else at the first run's start.
    fn finish(
        self,
        runs: &[(usize, String, RunMeta)],
        labels: Vec<String>,
        origin: Option<OffsetDateTime>,
        complete: bool,
    ) -> Run {
        let metas: Vec<RunMeta> = runs.iter().map(|(_, _, m)| m.clone()).collect();
        let one_plan = parts_of_one_plan(&metas);
        let scenarios: Vec<ScenarioMeta> = if one_plan {
            metas[0].scenarios.clone()
        } else {
            metas.iter().flat_map(|m| m.scenarios.iter().cloned()).collect()
        };
        let summary = Summary::from_tally(&self.tally, &labels, &self.checks, &scenarios, complete);
        let mut meta = merged_meta(&metas, origin, labels, self.checks, scenarios);
        meta.parts = runs
            .iter()
            .map(|(i, dir, m)| MergedPart {
                dir: dir.clone(),
                host: m.host.clone(),
                started_at: m.started_at.clone(),
                status: m.status,
                part: m.part.clone(),
                agent: None,
                samples: self.parts[*i].samples,
                errors: self.parts[*i].errors,
                connections: self.parts[*i].connections,
                generator: m.generator,
            })
            .collect();
        if one_plan {
            let names: Vec<String> = metas.iter().filter_map(segment_of).map(|(i, n)| format!("{i}/{n}")).collect();
            meta.plan_name = format!("{} ({} parts: {})", metas[0].plan_name, metas.len(), names.join(", "));
        }
        Run { meta, summary }
    }
}

/// The end of the last interval of the runs in `dirs` read as one (µs on their common clock),
/// from their coarsest lines, one run after the other (streamed: memory stays flat).
pub(crate) fn end_us(dirs: &[&Path]) -> Result<u64, Error> {
    let metas = dirs.iter().map(|d| read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    let mut end = 0u64;
    for (dir, offset) in dirs.iter().zip(offsets(&metas)) {
        read_run_with(dir, Grain::COARSEST, |iv| end = end.max(iv.end_us.saturating_add(offset)))?;
    }
    Ok(end)
}

/// Reads every run in `dirs` as one and shows `visit` the merged intervals in time order. One
/// run is read as [`read_run_with`] reads it (its summary from `summary.json` when it finished).
pub(crate) fn read_runs_with(
    dirs: &[&Path],
    grain: Grain,
    mut visit: impl FnMut(&LoggedInterval),
) -> Result<Run, Error> {
    match dirs {
        [] => Err(Error::NotARun(PathBuf::new())),
        [one] => read_run_with(one, grain, visit),
        _ => read_many(dirs, grain, |iv, _| visit(iv)),
    }
}

/// The scenarios' side of a merged interval, each scenario's numbers added up across the runs
/// that ran it (see [`read_many`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScenarioSide {
    pub counts: Vec<ScenarioCounts>,
    pub lateness: Vec<LabelStats>,
    pub active_users: Vec<u64>,
}

/// Reads two runs or more as one (see [`read_runs_with`]), showing `visit` each merged interval
/// with its scenarios' side.
pub(crate) fn read_many(
    dirs: &[&Path],
    grain: Grain,
    mut visit: impl FnMut(&LoggedInterval, &ScenarioSide),
) -> Result<Run, Error> {
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
    // Parts of one plan (`run --segment`) run the same scenarios: each scenario's numbers add
    // up across the parts. Other runs keep theirs side by side.
    let one_plan = parts_of_one_plan(&metas);
    let mut first_scenarios = Vec::with_capacity(dirs.len());
    let mut scenario_count = 0;
    for meta in &metas {
        let first_scenario = if one_plan { 0 } else { scenario_count };
        first_scenarios.push(first_scenario);
        scenario_count = first_scenario + meta.scenarios.len();
    }
    let mut merger = Merger::new(&first_scenarios, labels.len(), scenario_count, &checks, grain);
    for (p, offset) in merger.parts.iter_mut().zip(offsets(&metas)) {
        p.offset_us = offset;
    }
    let mut shared = Shared::new(&labels);
    // Every run's error kinds are named against the merged list of checks.
    let mut logs = dirs
        .iter()
        .zip(&metas)
        .map(|(d, m)| Tiers::open(d, m, grain, &checks, d.join(SUMMARY).exists()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut held: Option<(LoggedInterval, ScenarioSide)> = None;
    loop {
        if let Some(i) = merger.waits_on() {
            match logs[i].next(&mut shared)? {
                Some((line, iv)) => merger.push(i, line, iv),
                None => merger.end(i),
            }
            continue;
        }
        let Some(merged) = merger.pop(None) else { break };
        if let Some((h, side)) = held.replace(merged) {
            visit(&h, &side);
        }
    }
    if let Some((mut h, side)) = held {
        h.last = true;
        visit(&h, &side);
    }
    // Each run's tiers cross-checked: the merge sums them, so a damaged one is a lower bound.
    let mut damage = Vec::new();
    for ((dir, meta), part) in dirs.iter().zip(&metas).zip(&merger.parts) {
        let path = dir.join(SUMMARY);
        let recorded =
            if path.exists() { Some(super::reader::read_json::<Summary>(&path)?.total.samples) } else { None };
        damage.extend(super::damage::check(dir, meta, recorded).iter().map(|d| d.warning(part.samples, recorded)));
    }
    let runs: Vec<(usize, String, RunMeta)> =
        dirs.iter().zip(metas).enumerate().map(|(i, (d, m))| (i, d.display().to_string(), m)).collect();
    let complete = dirs.iter().all(|d| d.join(SUMMARY).exists());
    let mut run = merger.finish(&runs, shared.labels, None, complete);
    run.summary.damage = damage;
    Ok(run)
}

/// The layout of a run merged from runs of the facts `metas`: today's ([`LogFormat::current`]),
/// keeping no more seconds than the run that keeps fewest and no roll-up finer than the
/// coarsest of their finest, so that each line of the merged run is whole lines of each run
/// (the controller's copies of agents' runs keep 10-minute lines: a merge of them keeps those,
/// not 10-minute lines as minutes). Runs written before roll-ups keep every second.
pub(crate) fn layout_for(metas: &[RunMeta]) -> LogFormat {
    let today = LogFormat::current();
    let logs: Vec<&LogFormat> = metas.iter().filter_map(|m| m.log.as_ref()).collect();
    let Some(finest) = logs.iter().filter_map(|l| l.rollups_s.first().copied()).max() else { return today };
    let mut rollups_s: Vec<u64> = today.rollups_s.iter().copied().filter(|w| *w % finest == 0).collect();
    if rollups_s.first() != Some(&finest) && !today.rollups_s.contains(&finest) {
        rollups_s.insert(0, finest);
    }
    let kept = logs.iter().map(|l| l.seconds_kept_s).min().unwrap_or(today.seconds_kept_s).min(today.seconds_kept_s);
    let format = LogFormat { version: today.version, seconds_kept_s: kept - kept % finest, rollups_s };
    if format.problem().is_some() {
        return today;
    }
    format
}

/// The grain a merge into a run of the layout `format` reads its runs at: every second they
/// keep when it keeps seconds, else its finest roll-up's (a run's seconds and minutes would all
/// be summed into those lines: reading them costs without changing a figure).
pub(crate) fn grain_for(format: &LogFormat) -> Grain {
    match format.rollups_s.first() {
        Some(w) if format.seconds_kept_s == 0 => Grain(*w),
        _ => Grain::SECOND,
    }
}

/// µs from `first` to `start` (0 when either is unknown, or `start` is earlier).
/// Where each run's clock starts on the common one (the earliest start), µs.
fn offsets(metas: &[RunMeta]) -> Vec<u64> {
    let starts: Vec<Option<OffsetDateTime>> =
        metas.iter().map(|m| OffsetDateTime::parse(&m.started_at, &Rfc3339).ok()).collect();
    let first = starts.iter().flatten().min().copied();
    starts.iter().map(|s| offset_us(*s, first)).collect()
}

fn offset_us(start: Option<OffsetDateTime>, first: Option<OffsetDateTime>) -> u64 {
    match (start, first) {
        (Some(s), Some(f)) => u64::try_from((s - f).whole_microseconds()).unwrap_or(0),
        _ => 0,
    }
}

/// A part's line of `intervals.jsonl` that [`LiveMerge::add`] does not take (its caller names
/// the part); nothing of it is counted.
/// Opaque: why a line does not read is the reader's own (`rundir::log`), said in its message.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub(crate) struct LineRefused(Refusal);

#[derive(Debug, thiserror::Error)]
enum Refusal {
    /// Not an interval line.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// An interval a run could not have written (a histogram out of bounds, counts that
    /// disagree, sums past 2^64).
    #[error("{0}")]
    Invalid(#[from] super::log::LineError),
}

/// A merged interval as a run writes it, the `index`-th of its log, with the names of labels
/// its writer has not met yet.
pub(crate) fn as_interval(index: u64, iv: &LoggedInterval, side: &ScenarioSide, new_labels: Vec<String>) -> Interval {
    Interval {
        index,
        start_us: iv.start_us,
        end_us: iv.end_us,
        labels: iv.labels.iter().map(|(i, s)| (LabelId(*i as u32), s.clone())).collect(),
        new_labels,
        total: iv.total.clone(),
        scenarios: side.counts.clone(),
        lateness: side.lateness.clone(),
        active_users: side.active_users.clone(),
        last: iv.last,
    }
}

/// The parts of one plan that agents stream to their controller, merged as their interval lines
/// arrive: the merged intervals to write to the run's own log second by second, and the totals
/// so far (the progress line, the goals that stop the run).
pub(crate) struct LiveMerge {
    merger: Merger,
    shared: Shared,
    scenarios: Vec<ScenarioMeta>,
    /// The common start (the instant the agents were told): second 0 of the merged clock.
    origin: Option<OffsetDateTime>,
    /// Whether each part has sent a line: its place on the clock is fixed then.
    begun: Vec<bool>,
    /// Labels named to the run's writer so far.
    announced: usize,
    index: u64,
    /// The end of the latest interval added, µs on the merged clock.
    pub at_us: u64,
    /// The first part that lagged more than `PATIENCE` intervals behind another.
    pub lagging: Option<usize>,
    /// Each part's last intervals and whether it was lost, to account for a part lost.
    lost: super::lost::Tracker,
}

/// How many intervals of a part a live merge holds while it waits for a part that lags (an
/// agent whose clock is behind, or a stalled one): then it merges without it.
const PATIENCE: usize = 30;

impl LiveMerge {
    /// For `parts` parts of the plan whose run's facts at the start are `meta`.
    pub(crate) fn new(meta: &RunMeta, parts: usize) -> LiveMerge {
        let n = meta.scenarios.len();
        LiveMerge {
            merger: Merger::new(&vec![0; parts], meta.labels.len(), n, &meta.checks, Grain::SECOND),
            shared: Shared::new(&meta.labels),
            scenarios: meta.scenarios.clone(),
            origin: None,
            begun: vec![false; parts],
            announced: meta.labels.len(),
            index: 0,
            at_us: 0,
            lagging: None,
            lost: super::lost::Tracker::new(parts),
        }
    }

    /// Part `i`'s facts: where its clock starts on the merged one, until its first line.
    pub(crate) fn meta(&mut self, i: usize, meta: &RunMeta) {
        if self.begun[i] {
            return;
        }
        let parse = |t: &str| OffsetDateTime::parse(t, &Rfc3339).ok();
        let start = parse(&meta.started_at);
        if self.origin.is_none() {
            self.origin = meta.part.as_ref().and_then(|p| p.start_at.as_deref()).and_then(parse).or(start);
        }
        self.merger.parts[i].offset_us = offset_us(start, self.origin);
    }

    /// Adds part `i`'s next line of `intervals.jsonl`; returns it as the part's own interval
    /// (its clock, its Total, scenario counts and users; its labels left out: per label, the
    /// merge is what is read), for the outputs that show each part.
    pub(crate) fn add(&mut self, i: usize, text: &str) -> Result<Interval, LineRefused> {
        let line: IntervalLine = serde_json::from_str(text).map_err(|e| LineRefused(e.into()))?;
        let iv = logged(&line, &mut self.shared, &self.merger.checks).map_err(|e| LineRefused(e.into()))?;
        self.begun[i] = true;
        let offset = self.merger.parts[i].offset_us;
        self.at_us = self.at_us.max(iv.end_us.saturating_add(offset));
        self.lost.line(i, iv.start_us.saturating_add(offset), iv.end_us.saturating_add(offset), iv.total.samples);
        let mut side = ScenarioSide::sized(self.scenarios.len());
        side.add(&line, 0, &self.merger.checks, true);
        let part = LoggedInterval {
            start_us: iv.start_us,
            end_us: iv.end_us,
            labels: Vec::new(),
            total: iv.total.clone(),
            active_users: iv.active_users,
            last: iv.last,
        };
        let index = self.merger.parts[i].lines;
        self.merger.parts[i].lines += 1;
        self.merger.push(i, line, iv);
        Ok(as_interval(index, &part, &side, Vec::new()))
    }

    /// Part `i` sends no more (it finished, or it is lost).
    pub(crate) fn end(&mut self, i: usize) {
        self.merger.end(i);
        self.lost.ended(i);
    }

    /// Part `i` was lost now, for `why`: what it sent is kept, and the run's record of lost
    /// parts ([`LiveMerge::lost_record`]) says what it may have sent after.
    pub(crate) fn lost(&mut self, i: usize, why: &str) {
        self.lost.lost(i, why, OffsetDateTime::now_utc());
    }

    /// How many parts were lost so far.
    pub(crate) fn lost_count(&self) -> usize {
        self.lost.lost_count()
    }

    /// The record of the parts lost (`None`: none was), the run ending with its latest
    /// interval; `name(i)` gives part i's agent address and directory.
    pub(crate) fn lost_record(&self, name: impl Fn(usize) -> (String, String)) -> Option<super::lost::Lost> {
        self.lost.record(self.origin, self.at_us, name)
    }

    /// The seconds merged since the last call, as the run's log takes them.
    pub(crate) fn ready(&mut self) -> Vec<Interval> {
        let mut out = Vec::new();
        if self.lagging.is_none() {
            self.lagging =
                self.merger.waits_on().filter(|_| self.merger.parts.iter().any(|p| p.queue.len() > PATIENCE));
        }
        while let Some((iv, side)) = self.merger.pop(Some(PATIENCE)) {
            let new_labels = self.shared.labels[self.announced..].to_vec();
            self.announced = self.shared.labels.len();
            out.push(as_interval(self.index, &iv, &side, new_labels));
            self.index += 1;
        }
        out
    }

    /// The Total so far.
    #[cfg(test)]
    pub(crate) fn total(&self) -> &LabelStats {
        &self.merger.tally.total
    }

    /// The merged run, once every part has ended and [`LiveMerge::ready`] has taken every
    /// second: `parts` names the parts that sent their facts, each by its index, directory and
    /// final `meta.json`; `complete` when each wrote its summary.
    pub(crate) fn finish(self, parts: &[(usize, String, RunMeta)], complete: bool) -> Run {
        self.merger.finish(parts, self.shared.labels, self.origin, complete)
    }

    /// The common start, once a part has said it.
    pub(crate) fn origin(&self) -> Option<OffsetDateTime> {
        self.origin
    }
}

/// The intervals of one second (or grain) of the common clock, added up.
#[derive(Default)]
struct Merged {
    start_us: Option<u64>,
    /// The longest part's span in it (at most the grain, or its one longest line): the merged
    /// interval lasts that long, so a chart's rates are per second of the common clock even
    /// when the runs' seconds are offset (not per the span from the earliest start to the
    /// latest end, which would overlap the next second's).
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
    /// Adds a part's line; `users`: the part's last line in the merged interval, whose user
    /// counts are the part's.
    fn add(&mut self, line: &IntervalLine, first: usize, checks: &[String], users: bool) {
        for (a, b) in self.counts.iter_mut().skip(first).zip(line.scenarios()) {
            a.add(&b);
        }
        for (a, b) in self.active_users.iter_mut().skip(first).zip(&line.active_users).filter(|_| users) {
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
    /// Adds an interval already on the common clock.
    fn add(&mut self, iv: &LoggedInterval, users: bool) {
        let start = iv.start_us;
        self.start_us = Some(self.start_us.map_or(start, |s| s.min(start)));
        for (i, s) in &iv.labels {
            *self.labels.entry(*i).or_default() += s;
        }
        self.total += &iv.total;
        if users {
            self.active_users += iv.active_users;
        }
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
pub(crate) fn segment_numbers(text: &str) -> Option<(u32, u32)> {
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
pub(crate) fn cannot_merge(dirs: &[&Path], metas: &[RunMeta]) -> Option<String> {
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
pub(crate) fn missing_parts(metas: &[RunMeta]) -> Option<String> {
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

/// The facts of the runs together: from `origin` (else the first start) to the last end, the plans and hosts
/// named once each, every scenario, status `completed` only when every run completed.
fn merged_meta(
    metas: &[RunMeta],
    origin: Option<OffsetDateTime>,
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
    let starts = metas.iter().filter_map(|m| OffsetDateTime::parse(&m.started_at, &Rfc3339).ok());
    let first = origin.or_else(|| starts.min());
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
        log: None,
        // Parts (agents) watch nothing: `--watch` is a single process's.
        watch: Vec::new(),
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
            log: None,
            watch: Vec::new(),
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

    /// A merge keeps what every run it merges keeps: the controller's copies (no seconds, lines
    /// of 10 minutes and an hour) merge into a run of those lines, never 10-minute lines written
    /// as minutes; runs of today's layout into today's.
    #[test]
    fn a_merged_run_keeps_no_finer_lines_than_its_runs() {
        let with = |log: Option<LogFormat>| RunMeta { log, ..crate::rundir::writer::tests::meta() };
        let today = LogFormat::current();
        let copy = crate::rundir::copy::PartCopy::log();
        assert_eq!(layout_for(&[with(Some(today.clone())), with(None)]), today);
        assert_eq!(layout_for(&[with(None)]), today);
        for runs in [vec![with(Some(copy.clone()))], vec![with(Some(today.clone())), with(Some(copy.clone()))]] {
            assert_eq!(layout_for(&runs), copy);
        }
        assert_eq!((grain_for(&today), grain_for(&copy)), (Grain::SECOND, Grain(600)));
        // Lines no width of today's divides: the merged run's finest line is theirs.
        let odd = LogFormat { version: 2, seconds_kept_s: 8, rollups_s: vec![4, 8] };
        assert_eq!(
            layout_for(&[with(Some(odd))]),
            LogFormat { version: 2, seconds_kept_s: 8, rollups_s: vec![4, 60, 600, 3600] }
        );
    }

    /// Parts streamed line by line in any order between them merge into the seconds and totals
    /// `read_many` makes of their directories; a second waits for every part still running.
    #[test]
    fn a_live_merge_is_the_merge_of_the_parts_directories() {
        let root = std::env::temp_dir().join(format!("stampede-merge-live-{}", std::process::id()));
        let (a, b) = (root.join("a"), root.join("b"));
        let seconds = |counts: &[u64]| -> Vec<LabelStats> {
            counts
                .iter()
                .enumerate()
                .map(|(i, n)| crate::rundir::reader::tests::stats_from(i as u64 * 1_000_000, *n, 1000, 1000 + i as u64))
                .collect()
        };
        // b starts 0.4 s after a (the common start is a's), so its seconds fall in a's.
        write_part(&a, "2026-01-01T00:00:00Z", Some("1/2"), &seconds(&[10, 20, 30]));
        write_part(&b, "2026-01-01T00:00:00.4Z", Some("2/2"), &seconds(&[5, 6, 7, 8]));
        let mut offline = Vec::new();
        let whole = read_many(&[&a, &b], Grain::SECOND, |iv, _| offline.push((iv.start_us, iv.total.samples))).unwrap();
        let metas = [read_meta(&a).unwrap(), read_meta(&b).unwrap()];
        let lines = |d: &Path| -> Vec<String> {
            std::fs::read_to_string(d.join(crate::rundir::INTERVALS)).unwrap().lines().map(String::from).collect()
        };
        let (la, lb) = (lines(&a), lines(&b));
        let _ = std::fs::remove_dir_all(&root);
        let mut meta = metas[0].clone();
        meta.part.as_mut().unwrap().start_at = Some("2026-01-01T00:00:00Z".into());
        let mut live = LiveMerge::new(&meta, 2);
        live.meta(0, &meta);
        live.meta(1, &metas[1]);
        // A line that is not an interval, or one no run writes, is refused with why and
        // counts nothing (#34).
        let e = live.add(0, "{not json").unwrap_err().to_string();
        assert!(e.starts_with("key must be a string at line 1"), "{e}");
        let mut bad: serde_json::Value = serde_json::from_str(&la[0]).unwrap();
        bad["labels"][0]["errors"] = 1_000.into();
        let e = live.add(0, &bad.to_string()).unwrap_err().to_string();
        assert!(e.ends_with("has 1000 errors in 10 samples"), "{e}");
        let mut merged = Vec::new();
        // b is ahead: nothing is merged while a has said nothing.
        for l in &lb[..3] {
            live.add(1, l).unwrap();
        }
        assert!(live.ready().is_empty());
        // a's first second is merged once a has sent its second one.
        live.add(0, &la[0]).unwrap();
        assert!(live.ready().is_empty(), "a may send more of second 0");
        live.add(0, &la[1]).unwrap();
        merged.extend(live.ready());
        assert_eq!(merged.len(), 1);
        live.add(0, &la[2]).unwrap();
        live.add(1, &lb[3]).unwrap();
        merged.extend(live.ready());
        live.end(0);
        live.end(1);
        merged.extend(live.ready());
        assert_eq!(live.total().samples, 86);
        let got: Vec<(u64, u64)> = merged.iter().map(|iv| (iv.start_us, iv.total.samples)).collect();
        assert_eq!(got, offline);
        assert_eq!(merged.iter().map(|iv| iv.index).collect::<Vec<_>>(), [0, 1, 2, 3]);
        let parts = [(0, "a".to_string(), metas[0].clone()), (1, "b".to_string(), metas[1].clone())];
        let run = live.finish(&parts, true);
        assert_eq!(run.summary.total.samples, whole.summary.total.samples);
        let (x, y) = (&run.summary.total, &whole.summary.total);
        assert_eq!((x.p50_ms, x.p90_ms, x.p99_ms, x.max_ms), (y.p50_ms, y.p90_ms, y.p99_ms, y.max_ms));
        assert_eq!(run.meta.started_at, "2026-01-01T00:00:00Z");
        assert_eq!(run.meta.parts.iter().map(|p| p.samples).collect::<Vec<_>>(), [60, 26]);
        assert!(run.meta.plan_name.contains("2 parts: 1/2, 2/2"), "{}", run.meta.plan_name);
    }

    /// A part far behind the others does not hold the live merge up for ever: its seconds come
    /// late into later ones; the log never goes back in time and the totals stay exact.
    #[test]
    fn a_live_merge_goes_on_without_a_part_that_lags() {
        let root = std::env::temp_dir().join(format!("stampede-merge-lag-{}", std::process::id()));
        let counts: Vec<u64> = (1..=45).collect();
        let seconds: Vec<LabelStats> = counts
            .iter()
            .enumerate()
            .map(|(i, n)| crate::rundir::reader::tests::stats_from(i as u64 * 1_000_000, *n, 1000, 1000))
            .collect();
        write_part(&root, "2026-01-01T00:00:00Z", Some("1/2"), &seconds);
        let meta = read_meta(&root).unwrap();
        let lines: Vec<String> =
            std::fs::read_to_string(root.join(crate::rundir::INTERVALS)).unwrap().lines().map(String::from).collect();
        let _ = std::fs::remove_dir_all(&root);
        let mut live = LiveMerge::new(&meta, 2);
        live.meta(0, &meta);
        live.meta(1, &meta);
        let mut merged = Vec::new();
        for l in &lines {
            live.add(0, l).unwrap();
            merged.extend(live.ready());
        }
        assert_eq!(live.lagging, Some(1));
        assert_eq!(merged.len(), lines.len() - PATIENCE);
        // The laggard's first seconds come now: they go into the next second merged.
        for l in &lines[..3] {
            live.add(1, l).unwrap();
        }
        live.end(0);
        live.end(1);
        merged.extend(live.ready());
        let starts: Vec<u64> = merged.iter().map(|iv| iv.start_us).collect();
        assert!(starts.windows(2).all(|w| w[0] + 1_000_000 <= w[1]), "{starts:?}");
        let sum: u64 = merged.iter().map(|iv| iv.total.samples).sum();
        let want: u64 = counts.iter().sum::<u64>() + 1 + 2 + 3;
        assert_eq!((sum, live.total().samples), (want, want));
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
        let run = read_runs_with(&[&a, &b], Grain::SECOND, |iv| {
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

    /// Read at a minute's grain, a run's seconds in a minute are one interval: users are the
    /// last second's (a gauge, not summed over the seconds), the length is the run's span.
    #[test]
    fn runs_read_per_minute_count_their_users_once_and_last_their_span() {
        let root = std::env::temp_dir().join(format!("stampede-merge-grain-{}", std::process::id()));
        let (a, b) = (root.join("a"), root.join("b"));
        write_run(&a, "2026-01-01T00:00:00Z", &[10, 20, 30]);
        write_run(&b, "2026-01-01T00:00:00.5Z", &[5, 6]);
        // As a run of before the roll-ups left it: every second in intervals.jsonl only.
        for dir in [&a, &b] {
            let mut meta = read_meta(dir).unwrap();
            meta.log = None;
            crate::rundir::writer::write_json(&dir.join(crate::rundir::META), &meta).unwrap();
        }
        let mut seen = Vec::new();
        let run = read_many(&[&a, &b], Grain(60), |iv, side| {
            seen.push((iv.start_us, iv.end_us, iv.total.samples, iv.active_users, side.active_users.clone()))
        });
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(run.unwrap().summary.total.samples, 71);
        // One minute: each run's users once (its scenario's 1, so 2 in all), a's three seconds
        // its length.
        assert_eq!(seen, [(0, 3_000_000, 71, 2, vec![1, 1])]);
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
                        upstream_us: None,
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
        let run = read_many(&refs, Grain::SECOND, |iv, side| {
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

    /// `merge` of a run on agents with a lost agent's own run directory: its parts, that one
    /// in place of the run's copy of its segment; the lost agent's record says what it added
    /// and up to when its part is exact.
    #[test]
    fn a_run_on_agents_merged_with_a_lost_agent_s_own_directory_takes_its_part_from_there() {
        use crate::rundir::lost::{self, Lost, LostAgent};
        let root = std::env::temp_dir().join(format!("stampede-merge-lost-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (run, own) = (root.join("run"), root.join("own"));
        let t0 = "2026-01-01T00:00:00Z";
        let ten = |k: u64| -> Vec<LabelStats> {
            (0..k).map(|i| crate::rundir::reader::tests::stats_from(i * 1_000_000, 10, 1000, 1000)).collect()
        };
        // The run's copy of part 2/2 stops after 2 s (what reached the controller); the agent
        // wrote a third second before it died.
        write_part(&run.join("agents/1-a"), t0, Some("1/2"), &ten(3));
        write_part(&run.join("agents/2-b"), t0, Some("2/2"), &ten(2));
        write_part(&own, t0, Some("2/2"), &ten(3));
        let copies = [run.join("agents/1-a"), run.join("agents/2-b")];
        let mut merged = read_many(&[&copies[0], &copies[1]], Grain::SECOND, |_, _| {}).unwrap();
        for (p, name) in merged.meta.parts.iter_mut().zip(["agents/1-a", "agents/2-b"]) {
            p.dir = name.into();
            p.agent = Some(format!("{name}:1"));
        }
        crate::rundir::writer::write_json(&run.join(crate::rundir::META), &merged.meta).unwrap();
        let reported = LostAgent {
            part: "2/2".into(),
            dir: "agents/2-b".into(),
            lost_at: "2026-01-01T00:00:03.5Z".into(),
            lost_at_s: 3.5,
            reported_samples: 20,
            ..lost::example()
        };
        lost::write(&run, &Lost { version: lost::VERSION, agents: vec![reported] }).unwrap();
        // Parts alone are merged as given.
        assert!(lost::expand(&[&copies[0], &own]).unwrap().is_none());
        let e = lost::expand(&[&run, &own]).unwrap().unwrap();
        assert_eq!(e.dirs, vec![copies[0].clone(), own.clone()]);
        assert_eq!(e.copies, vec![copies[0].display().to_string()]);
        let dirs: Vec<&Path> = e.dirs.iter().map(PathBuf::as_path).collect();
        let again = read_many(&dirs, Grain::SECOND, |_, _| {}).unwrap();
        assert_eq!(again.summary.total.samples, 60);
        let mut record = e.lost.unwrap();
        lost::reconcile(&mut record, &again.meta.parts, &e.copies, &again.meta.started_at);
        let r = record.agents[0].reconciled.as_ref().unwrap();
        assert_eq!((r.dir.as_str(), r.samples, r.added, r.complete), (own.to_str().unwrap(), 30, 10, false));
        assert!((r.until_s - 3.0).abs() < 1e-9, "{r:?}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
