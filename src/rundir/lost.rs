//! The agents a run on agents lost (`lost.json`, version [`VERSION`]): which part, when, what
//! it had reported, and an estimate of what it sent after that, so a report never presents a
//! run missing a part's last seconds as whole; and how `stampede merge` with a lost agent's own
//! run directory makes its figures exact again ([`expand`], [`reconcile`]).
//!
//! ```json
//! {"version": 1, "agents": [{"part": "2/3", "agent": "10.0.0.2:7070", "dir": "agents/2-b",
//!   "why": "connection closed after 7.1 s", "lost_at": "2026-...Z", "lost_at_s": 7.1,
//!   "last_interval_end_s": 6.0, "last_interval_at": "2026-...Z", "reported_samples": 20901,
//!   "rate_rps": 3480.2, "rate_over_s": 5.0, "run_end_s": 30.0,
//!   "estimate": {"until_lost": 3828, "until_run_end": 83525}, "reconciled": null}]}
//! ```
//!
//! Times in seconds are on the run's clock (from its start, as its intervals); the estimate is
//! the agent's mean rate over its last [`RATE_SECONDS`] reported intervals times the time from
//! the end of its last one to when it was lost (`until_lost`: it stopped then — a process
//! killed or crashed, whose connection ended; an agent that hears its connection end stops its
//! load at once) or to the run's end (`until_run_end`: it went on, cut off from the controller).
//! It is an estimate, not a bound: it assumes the agent kept its last seconds' rate.

use super::{Error, MergedPart};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The file of a run directory that lists the agents the run lost.
pub(crate) const LOST: &str = "lost.json";
/// The version of [`Lost`] this stampede writes and reads.
pub(crate) const VERSION: u32 = 1;
/// How many of a lost agent's last intervals its rate is taken over.
pub(crate) const RATE_SECONDS: usize = 5;

/// `lost.json`: every agent the run lost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Lost {
    pub version: u32,
    pub agents: Vec<LostAgent>,
}

/// One agent lost before its part finished.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct LostAgent {
    /// Its part of the plan, `i/N`.
    pub part: String,
    /// Its address, as the controller reached it.
    pub agent: String,
    /// The run's copy of what it sent (`agents/I-HOST`).
    pub dir: String,
    pub why: String,
    /// When the controller lost it: RFC 3339, and seconds from the run's start.
    pub lost_at: String,
    pub lost_at_s: f64,
    /// The end of the last interval it reported (absent: it reported none).
    pub last_interval_end_s: Option<f64>,
    pub last_interval_at: Option<String>,
    /// Requests (samples) in the intervals it reported: all of its that the figures hold.
    pub reported_samples: u64,
    /// Its rate over its last reported intervals, and over how many seconds.
    pub rate_rps: f64,
    pub rate_over_s: f64,
    /// The end of the run (its last interval of any agent), seconds from its start.
    pub run_end_s: f64,
    pub estimate: Estimate,
    /// Set by `stampede merge` with the agent's own run directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconciled: Option<Reconciled>,
}

/// Requests the lost agent sent after its last reported interval, estimated (see the module).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Estimate {
    /// If it stopped when it was lost (killed, crashed: its connection ended).
    pub until_lost: u64,
    /// If it went on to the run's end (cut off from its controller).
    pub until_run_end: u64,
}

/// A lost part's figures taken from the agent's own run directory instead of the run's copy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Reconciled {
    /// The agent's own run directory, as given to `merge`.
    pub dir: String,
    /// Its samples, and how many more that is than the run's copy held.
    pub samples: u64,
    pub added: u64,
    /// It finished (it has its summary): its part is whole, the figures exact.
    pub complete: bool,
    /// The end of its last interval, seconds on the merged run's clock: a run killed keeps
    /// every second up to there, and nothing of the one it was in.
    pub until_s: f64,
}

/// A lost agent's requests after its last reported interval until `until_us`, estimated at
/// `rate_rps` (see the module); 0 when it reported nothing, or `until_us` is not later.
pub(crate) fn estimate(rate_rps: f64, last_end_us: u64, until_us: u64) -> u64 {
    let s = until_us.saturating_sub(last_end_us) as f64 / 1e6;
    (rate_rps * s).round() as u64
}

/// The rate (requests/s) and its span (s) of the intervals `recent` (start µs, end µs,
/// samples), in time order: their samples over the time from the first's start to the last's
/// end.
pub(crate) fn rate(recent: &[(u64, u64, u64)]) -> (f64, f64) {
    let (Some(first), Some(last)) = (recent.first(), recent.last()) else { return (0.0, 0.0) };
    let span = last.1.saturating_sub(first.0) as f64 / 1e6;
    let samples: u64 = recent.iter().map(|r| r.2).sum();
    if span <= 0.0 {
        return (0.0, 0.0);
    }
    (samples as f64 / span, span)
}

/// What the controller knows of each agent's stream, to account for one it loses: its last
/// intervals (on the run's clock), its samples, and when it was lost and why. Fed once per
/// agent interval, never per request.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    parts: Vec<Track>,
}

#[derive(Debug, Default)]
struct Track {
    recent: VecDeque<(u64, u64, u64)>,
    samples: u64,
    lost: Option<(String, OffsetDateTime)>,
    /// Its last interval and summary came: lost after that, its figures are whole.
    ended: bool,
}

impl Tracker {
    pub(crate) fn new(parts: usize) -> Tracker {
        Tracker { parts: (0..parts).map(|_| Track::default()).collect() }
    }

    /// Part `i` sent an interval of `samples` from `start_us` to `end_us` (the run's clock).
    pub(crate) fn line(&mut self, i: usize, start_us: u64, end_us: u64, samples: u64) {
        let Some(t) = self.parts.get_mut(i) else { return };
        if t.recent.len() == RATE_SECONDS {
            t.recent.pop_front();
        }
        t.recent.push_back((start_us, end_us, samples));
        t.samples += samples;
    }

    /// Part `i` was lost at `at`, for `why` (the first loss said counts), unless it had ended:
    /// an agent lost while it sends its results rows, after its summary, has its figures whole.
    pub(crate) fn lost(&mut self, i: usize, why: &str, at: OffsetDateTime) {
        if let Some(t) = self.parts.get_mut(i).filter(|t| !t.ended) {
            t.lost.get_or_insert((why.to_string(), at));
        }
    }

    /// Part `i` sends no more intervals: it finished, or (after [`Tracker::lost`]) it was lost.
    pub(crate) fn ended(&mut self, i: usize) {
        if let Some(t) = self.parts.get_mut(i) {
            t.ended = true;
        }
    }

    /// How many parts were lost so far.
    pub(crate) fn lost_count(&self) -> usize {
        self.parts.iter().filter(|t| t.lost.is_some()).count()
    }

    /// The record of the parts lost (`None`: none was), on the clock that starts at `origin`,
    /// the run ending at `end_us`; `name(i)` gives part i's agent address and directory.
    pub(crate) fn record(
        &self,
        origin: Option<OffsetDateTime>,
        end_us: u64,
        name: impl Fn(usize) -> (String, String),
    ) -> Option<Lost> {
        let n = self.parts.len();
        let at = |us: u64| {
            origin.map(|o| (o + time::Duration::microseconds(us as i64)).format(&Rfc3339).unwrap_or_default())
        };
        let agents: Vec<LostAgent> = self
            .parts
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let (why, when) = t.lost.as_ref()?;
                let lost_us = origin.map_or(0, |o| u64::try_from((*when - o).whole_microseconds()).unwrap_or(0));
                let recent: Vec<(u64, u64, u64)> = t.recent.iter().copied().collect();
                let last_end = recent.last().map(|r| r.1);
                let (rate_rps, rate_over_s) = rate(&recent);
                let from = last_end.unwrap_or(lost_us);
                let end_us = end_us.max(lost_us);
                let (agent, dir) = name(i);
                Some(LostAgent {
                    part: format!("{}/{n}", i + 1),
                    agent,
                    dir,
                    why: why.clone(),
                    lost_at: when.format(&Rfc3339).unwrap_or_default(),
                    lost_at_s: lost_us as f64 / 1e6,
                    last_interval_end_s: last_end.map(|us| us as f64 / 1e6),
                    last_interval_at: last_end.and_then(at),
                    reported_samples: t.samples,
                    rate_rps,
                    rate_over_s,
                    run_end_s: end_us as f64 / 1e6,
                    estimate: Estimate {
                        until_lost: estimate(rate_rps, from, lost_us),
                        until_run_end: estimate(rate_rps, from, end_us),
                    },
                    reconciled: None,
                })
            })
            .collect();
        (!agents.is_empty()).then_some(Lost { version: VERSION, agents })
    }
}

/// Writes `lost` into the run directory `dir`.
pub(crate) fn write(dir: &Path, lost: &Lost) -> Result<(), Error> {
    super::writer::write_json(&dir.join(LOST), lost)
}

/// The run directory's record of lost agents, if it has one. A record of a later version is
/// refused by name: read as this one, it could say the figures are whole when they are not.
pub(crate) fn read(dir: &Path) -> Result<Option<Lost>, Error> {
    let path = dir.join(LOST);
    if !path.exists() {
        return Ok(None);
    }
    let value: serde_json::Value = super::reader::read_json(&path)?;
    let version = value.get("version").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if version != u64::from(VERSION) {
        return Err(Error::Format {
            path,
            line: 1,
            message: format!("version {version} is not one this stampede reads ({VERSION}): a newer one wrote it"),
        });
    }
    serde_json::from_value(value).map(Some).map_err(|e| Error::Format { path, line: 1, message: e.to_string() })
}

/// The directories `merge` reads for `dirs` when one is a run on agents (its parts kept in it,
/// listed in its `meta.json`) and the others are parts of the same plan (an agent's own run
/// directory): that run's parts, each given part in place of the run's copy of the same
/// segment; and the run's record of lost agents, to [`reconcile`] once merged. `None`: not such
/// a merge (the runs are merged as given).
pub(crate) fn expand(dirs: &[&Path]) -> Result<Option<Expanded>, Error> {
    let metas = dirs.iter().map(|d| super::reader::read_meta(d)).collect::<Result<Vec<_>, _>>()?;
    let on_agents = |m: &super::RunMeta| !m.parts.is_empty() && m.parts.iter().all(|p| p.agent.is_some());
    let Some(r) = metas.iter().position(on_agents) else { return Ok(None) };
    let segment = |m: &super::RunMeta| m.part.as_ref().and_then(|p| p.segment.clone());
    if metas.iter().enumerate().any(|(k, m)| k != r && segment(m).is_none()) {
        return Ok(None);
    }
    let run = dirs[r];
    let mut parts: Vec<(Option<String>, PathBuf)> =
        metas[r].parts.iter().map(|p| (p.part.as_ref().and_then(|m| m.segment.clone()), run.join(&p.dir))).collect();
    for (k, m) in metas.iter().enumerate().filter(|(k, _)| *k != r) {
        match parts.iter_mut().find(|(s, _)| *s == segment(m)) {
            Some(p) => p.1 = dirs[k].to_path_buf(),
            // A part lost before it said anything has no copy in the run.
            None => parts.push((segment(m), dirs[k].to_path_buf())),
        }
    }
    let copies = parts.iter().filter(|(_, d)| d.starts_with(run)).map(|(_, d)| d.display().to_string()).collect();
    Ok(Some(Expanded { dirs: parts.into_iter().map(|(_, d)| d).collect(), copies, lost: read(run)? }))
}

/// A run on agents merged with parts of its own (see [`expand`]).
#[derive(Debug)]
pub(crate) struct Expanded {
    /// The directories to merge.
    pub dirs: Vec<PathBuf>,
    /// Those of them that are the run's own copies, as the merge lists them.
    pub copies: Vec<String>,
    pub lost: Option<Lost>,
}

/// Marks each lost agent whose part the merged run took from a directory of its own (one not
/// its copy in the run, `copies` being those copies as the merge listed them), from the merged
/// run's list of `parts` whose clock starts at `started_at`.
pub(crate) fn reconcile(lost: &mut Lost, parts: &[MergedPart], copies: &[String], started_at: &str) {
    let origin = OffsetDateTime::parse(started_at, &Rfc3339).ok();
    for a in &mut lost.agents {
        let own = parts.iter().find(|p| {
            p.part.as_ref().and_then(|m| m.segment.as_deref()) == Some(a.part.as_str()) && !copies.contains(&p.dir)
        });
        let Some(p) = own else { continue };
        let dir = Path::new(&p.dir);
        let end_us = super::merge::end_us(&[dir]).unwrap_or(0);
        let start = OffsetDateTime::parse(&p.started_at, &Rfc3339).ok();
        let offset_s = start.zip(origin).map_or(0.0, |(s, o)| (s - o).as_seconds_f64());
        a.reconciled = Some(Reconciled {
            dir: p.dir.clone(),
            samples: p.samples,
            added: p.samples.saturating_sub(a.reported_samples),
            complete: dir.join(super::SUMMARY).exists(),
            until_s: offset_s + end_us as f64 / 1e6,
        });
    }
}

/// A lost agent as the tests of its record, its rendering and its reconciling start from: part
/// 2/3, lost at 7.1 s, its last interval ending at 6.0 s, 20,901 requests reported at 3480/s.
#[cfg(test)]
pub(crate) fn example() -> LostAgent {
    LostAgent {
        part: "2/3".into(),
        agent: "127.0.0.1:4001".into(),
        dir: "agents/2-127.0.0.1".into(),
        why: "connection closed after 9.1 s".into(),
        lost_at: "2026-01-01T00:00:07.1Z".into(),
        lost_at_s: 7.1,
        last_interval_end_s: Some(6.0),
        last_interval_at: Some("2026-01-01T00:00:06Z".into()),
        reported_samples: 20_901,
        rate_rps: 3480.0,
        rate_over_s: 5.0,
        run_end_s: 30.0,
        estimate: Estimate { until_lost: 3828, until_run_end: 83_520 },
        reconciled: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_its_last_intervals_samples_over_their_span() {
        assert_eq!(rate(&[]), (0.0, 0.0));
        // 3 s of 100, 200 and 300 requests: 200/s over 3 s.
        let (r, s) = rate(&[(0, 1_000_000, 100), (1_000_000, 2_000_000, 200), (2_000_000, 3_000_000, 300)]);
        assert!((r - 200.0).abs() < 1e-9 && (s - 3.0).abs() < 1e-9, "{r} {s}");
        // A gap between intervals (a second without a line) is time at the rate too.
        let (r, _) = rate(&[(0, 1_000_000, 100), (2_000_000, 3_000_000, 100)]);
        assert!((r - 200.0 / 3.0).abs() < 1e-9, "{r}");
    }

    #[test]
    fn the_estimate_is_the_rate_over_the_time_after_the_last_interval() {
        assert_eq!(estimate(1000.0, 6_000_000, 7_250_000), 1250);
        assert_eq!(estimate(1000.0, 6_000_000, 6_000_000), 0);
        // Lost before the end of its last interval reached the controller's clock: nothing.
        assert_eq!(estimate(1000.0, 6_000_000, 5_000_000), 0);
        assert_eq!(estimate(0.0, 0, 9_000_000), 0);
    }

    #[test]
    fn the_tracker_records_the_lost_part_its_last_seconds_and_both_estimates() {
        let origin = OffsetDateTime::parse("2026-01-01T00:00:00Z", &Rfc3339).unwrap();
        let mut t = Tracker::new(3);
        for s in 0..8u64 {
            // Part 2 sends 100/s for 4 s, then 300/s: its rate is its last 5 s's (260/s).
            let n = if s < 4 { 100 } else { 300 };
            t.line(1, s * 1_000_000, (s + 1) * 1_000_000, n);
            t.line(0, s * 1_000_000, (s + 1) * 1_000_000, 10);
        }
        assert_eq!(t.lost_count(), 0);
        assert!(t.record(Some(origin), 30_000_000, |_| (String::new(), String::new())).is_none());
        t.lost(1, "connection closed after 8.5 s", origin + time::Duration::milliseconds(8_500));
        t.lost(1, "said again", origin + time::Duration::milliseconds(9_000));
        assert_eq!(t.lost_count(), 1);
        let lost = t.record(Some(origin), 30_000_000, |i| (format!("a{i}:1"), format!("agents/{}-h", i + 1))).unwrap();
        assert_eq!(lost.version, VERSION);
        let [a] = lost.agents.as_slice() else { panic!("{lost:?}") };
        assert_eq!((a.part.as_str(), a.agent.as_str(), a.dir.as_str()), ("2/3", "a1:1", "agents/2-h"));
        assert_eq!(a.why, "connection closed after 8.5 s");
        assert_eq!(a.lost_at, "2026-01-01T00:00:08.5Z");
        assert_eq!((a.lost_at_s, a.last_interval_end_s, a.run_end_s), (8.5, Some(8.0), 30.0));
        assert_eq!(a.last_interval_at.as_deref(), Some("2026-01-01T00:00:08Z"));
        assert_eq!(a.reported_samples, 4 * 100 + 4 * 300);
        assert!((a.rate_rps - 260.0).abs() < 1e-9 && (a.rate_over_s - 5.0).abs() < 1e-9, "{a:?}");
        // 0.5 s after its last interval until it was lost; 22 s until the run's end.
        assert_eq!(a.estimate, Estimate { until_lost: 130, until_run_end: 5720 });
        // Written and read back; a later version is refused, named.
        let dir = std::env::temp_dir().join(format!("stampede-lost-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir, &lost).unwrap();
        assert_eq!(read(&dir).unwrap(), Some(lost.clone()));
        let mut later = serde_json::to_value(&lost).unwrap();
        later["version"] = 2.into();
        std::fs::write(dir.join(LOST), later.to_string()).unwrap();
        let e = read(&dir).unwrap_err().to_string();
        assert!(e.contains("lost.json") && e.contains("version 2"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_part_lost_before_its_first_interval_has_no_rate_and_no_estimate() {
        let origin = OffsetDateTime::parse("2026-01-01T00:00:00Z", &Rfc3339).unwrap();
        let mut t = Tracker::new(2);
        t.lost(0, "nothing heard for 5s after 5.0 s", origin + time::Duration::seconds(5));
        let lost = t.record(Some(origin), 10_000_000, |_| (String::new(), String::new())).unwrap();
        let a = &lost.agents[0];
        assert_eq!((a.last_interval_end_s, a.reported_samples, a.rate_rps), (None, 0, 0.0));
        assert_eq!(a.estimate, Estimate { until_lost: 0, until_run_end: 0 });
    }

    #[test]
    fn a_part_lost_after_its_summary_came_is_whole_and_not_recorded() {
        let origin = OffsetDateTime::parse("2026-01-01T00:00:00Z", &Rfc3339).unwrap();
        let mut t = Tracker::new(2);
        t.line(0, 0, 1_000_000, 10);
        t.ended(0);
        t.lost(0, "connection closed after 9.0 s", origin + time::Duration::seconds(9));
        assert_eq!(t.lost_count(), 0);
        assert!(t.record(Some(origin), 10_000_000, |_| (String::new(), String::new())).is_none());
    }
}
