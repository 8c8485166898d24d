//! [`PartCopy`]: the controller's copy of an agent's run directory (the run's `agents/I-HOST/`),
//! written from what the agent streams — its facts, its interval lines as its own
//! `intervals.jsonl` has them, its summary — in the layout [`PartCopy::log`]: the same roll-ups
//! a run writes, only coarser, so that a soak of days on many agents keeps small copies.
//!
//! The agent's own run directory keeps its seconds and minutes; the run's merged directory keeps
//! the merged seconds and minutes; the copies keep each part's lines of 10 minutes and of an hour
//! (exact sums of its seconds, histograms added), and the seconds past the last 10-minute line
//! in `tail.jsonl` until the part ends, so a controller that dies, or an agent lost, loses
//! nothing it was sent. Read, merged or reported, a copy gives every figure of the part exactly
//! (samples, errors, bytes, every percentile of the summed histograms, throughput from the
//! first start to the last end); only its charts are per 10 minutes.

use super::log::IntervalLine;
use super::reader::{logged, Shared};
use super::writer::{write_json, LogFiles};
use super::{Error, LogFormat, RunMeta, META, SUMMARY};
use crate::plan::LabelId;
use crate::record::Interval;
use std::path::{Path, PathBuf};

/// The controller's copy of one agent's run, written as the agent streams it.
pub struct PartCopy {
    dir: PathBuf,
    log: LogFiles,
    /// The part's labels as met (the agent's own, by name) and the sums that check its lines.
    shared: Shared,
}

impl PartCopy {
    /// The layout of a copy: a run's ([`LogFormat::current`]) without its seconds (the run's
    /// merged directory has them) or its finest roll-up: lines of 10 minutes and an hour. A copy
    /// per agent of a 60-hour soak is tens of MB, not hundreds (`bench/runs/2026-11-29-s4-rollup`).
    pub fn log() -> LogFormat {
        let run = LogFormat::current();
        let coarser = run.rollups_s.get(1..).filter(|r| !r.is_empty()).unwrap_or(&run.rollups_s);
        LogFormat { version: run.version, seconds_kept_s: 0, rollups_s: coarser.to_vec() }
    }

    /// Makes the copy's directory `dir` and its log's files; a directory that holds a log
    /// already is an error (a run never writes over another).
    pub fn create(dir: &Path) -> Result<PartCopy, Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        let log = LogFiles::create(dir, &Self::log(), &[], &[])?;
        Ok(PartCopy { dir: dir.to_path_buf(), log, shared: Shared::new(&[]) })
    }

    /// The directory the copy is written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The part's facts (at its start, when its load begins, at its end): its `meta.json`,
    /// recording the copy's layout. The labels and checks of the first are the log's.
    pub fn meta(&mut self, meta: &RunMeta) -> Result<(), Error> {
        if self.log.labels.is_empty() && self.shared.labels.is_empty() {
            self.shared = Shared::new(&meta.labels);
            self.log.labels.clone_from(&meta.labels);
        }
        if self.log.checks.is_empty() {
            self.log.checks.clone_from(&meta.checks);
        }
        write_json(&self.dir.join(META), &RunMeta { log: Some(Self::log()), ..meta.clone() })
    }

    /// The part's next line of `intervals.jsonl`, as the agent sent it. A line that does not
    /// read as an interval is kept as it came, in the copy's `intervals.jsonl` (where a reader
    /// of the copy names it), and counted nowhere: the live merge does not count it either.
    pub fn line(&mut self, text: &str) -> Result<(), Error> {
        let Some(iv) = self.interval(text) else { return self.log.append_unread(text) };
        self.log.append(&iv, Some(text))
    }

    fn interval(&mut self, text: &str) -> Option<Interval> {
        let line: IntervalLine = serde_json::from_str(text).ok()?;
        let checks = &self.log.checks;
        let logged = logged(&line, &mut self.shared, checks).ok()?;
        let scenarios = line.scenarios();
        let lateness = line.lateness(scenarios.len(), checks).unwrap_or_default();
        Some(Interval {
            index: line.i,
            start_us: line.start_us,
            end_us: line.end_us,
            labels: logged.labels.into_iter().map(|(i, s)| (LabelId(i as u32), s)).collect(),
            new_labels: self.shared.labels.get(self.log.labels.len()..).unwrap_or_default().to_vec(),
            total: logged.total,
            scenarios,
            lateness,
            active_users: line.active_users,
            last: false,
        })
    }

    /// The part's summary: the roll-ups' last lines are written (and the tail goes) before
    /// `summary.json`, which tells a reader that the coarsest lines hold the whole part.
    pub fn summary(&mut self, summary: &serde_json::Value) -> Result<(), Error> {
        self.log.finish()?;
        write_json(&self.dir.join(SUMMARY), summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::LabelStats;
    use crate::rundir::reader::{read_meta, read_run, Grain};
    use crate::rundir::writer::tests::{figures, interval, lines, long_run, read_at, sum, temp_dir, TempDir};
    use crate::rundir::{merge, rollup_file, IntervalLines, PartMeta, Status, Summary, INTERVALS, TAIL};

    /// The part `segment` of a plan that started at `started_at`, as its agent's meta says it.
    fn part_meta(segment: &str, started_at: &str) -> RunMeta {
        let mut m = crate::rundir::writer::tests::meta();
        m.started_at = started_at.into();
        m.part = Some(PartMeta {
            segment: Some(segment.into()),
            start_at: Some("2026-11-25T00:00:00Z".into()),
            start_skew_ms: None,
            data_split: false,
            group: None,
        });
        m
    }

    /// An agent's part of `seconds` seconds written twice, as each side writes it: the agent's
    /// own run directory (its run's writer) and the controller's copy, fed the lines the agent
    /// streams (killed after them when not `finish`). Returns the two directories and each
    /// second's stats.
    fn part(name: &str, meta: &RunMeta, seconds: u64, finish: bool) -> (TempDir, TempDir, Vec<LabelStats>) {
        let own = temp_dir(&format!("{name}-own"));
        let witness = long_run(&own.0, seconds, finish);
        let mut own_meta = read_meta(&own.0).unwrap();
        own_meta.started_at.clone_from(&meta.started_at);
        own_meta.part.clone_from(&meta.part);
        crate::rundir::writer::write_json(&own.0.join(META), &own_meta).unwrap();
        let copy = temp_dir(&format!("{name}-copy"));
        let mut c = PartCopy::create(&copy.0).unwrap();
        c.meta(meta).unwrap();
        let mut stream = IntervalLines::new(meta);
        for i in 0..seconds {
            c.line(&stream.line(&interval(i, seconds))).unwrap();
        }
        if finish {
            let summary = std::fs::read_to_string(own.0.join(SUMMARY)).unwrap();
            c.summary(&serde_json::from_str(&summary).unwrap()).unwrap();
            c.meta(&RunMeta { status: Status::Completed, ..meta.clone() }).unwrap();
        }
        (own, copy, witness)
    }

    #[test]
    fn the_controllers_copy_of_a_part_holds_ten_minute_and_hour_lines_equal_to_the_agents_own() {
        let meta = part_meta("1/2", "2026-11-25T00:00:00Z");
        let (own, copy, witness) = part("copy", &meta, 3_800, true);
        let whole = figures(&sum(&witness));
        // No seconds, no minutes, no tail: the 10-minute and hour lines, as the agent wrote them.
        assert_eq!((lines(&copy.0, INTERVALS), copy.0.join(TAIL).exists()), (0, false));
        assert!(!copy.0.join(rollup_file(60)).exists());
        for (w, n) in [(600, 7), (3600, 2)] {
            let file = rollup_file(w);
            assert_eq!(lines(&copy.0, &file), n, "{file}");
            let (a, b) = (std::fs::read(own.0.join(&file)).unwrap(), std::fs::read(copy.0.join(&file)).unwrap());
            assert!(a == b, "{file} differs from the agent's own");
        }
        assert_eq!(read_meta(&copy.0).unwrap().log, Some(PartCopy::log()));
        // Read at any grain it is the whole part, exactly, and undamaged.
        for grain in [Grain::SECOND, Grain(60), Grain(600), Grain::COARSEST] {
            assert_eq!(figures(&read_at(&copy.0, grain).0), whole, "{grain:?}");
        }
        let run = read_run(&copy.0).unwrap();
        assert!(run.summary.damage.is_empty(), "{:?}", run.summary.damage);
        assert_eq!(run.summary.total.samples, sum(&witness).samples);
    }

    #[test]
    fn a_copy_cut_off_mid_run_keeps_every_second_it_was_sent() {
        // Lost (or the controller killed) 400 s past the first 10-minute line: those seconds
        // are in the tail only, and count.
        let meta = part_meta("1/2", "2026-11-25T00:00:00Z");
        let (_own, copy, witness) = part("cut", &meta, 1_000, false);
        assert_eq!((lines(&copy.0, &rollup_file(600)), lines(&copy.0, TAIL)), (1, 400));
        for grain in [Grain::SECOND, Grain(600), Grain::COARSEST] {
            assert_eq!(figures(&read_at(&copy.0, grain).0), figures(&sum(&witness)), "{grain:?}");
        }
        let run = read_run(&copy.0).unwrap();
        assert!(run.summary.damage.is_empty(), "{:?}", run.summary.damage);
        // A line that does not read is kept as it came, and named by a reader.
        let bad = copy.0.join("bad");
        let mut c = PartCopy::create(&bad).unwrap();
        c.meta(&meta).unwrap();
        c.line("{\"i\":0,\"start_us\":0, not a line").unwrap();
        let none = Summary::from_tally(&crate::record::Tally::new(1, 1), &meta.labels, &[], &meta.scenarios, true);
        c.summary(&serde_json::to_value(none).unwrap()).unwrap();
        assert_eq!(std::fs::read_to_string(bad.join(INTERVALS)).unwrap(), "{\"i\":0,\"start_us\":0, not a line\n");
        let run = read_run(&bad).unwrap();
        assert!(run.summary.damage.iter().any(|d| d.contains("intervals.jsonl: line 1")), "{:?}", run.summary.damage);
    }

    #[test]
    fn a_copy_keeps_a_runs_roll_ups_but_the_finest_and_no_seconds() {
        assert_eq!(PartCopy::log(), LogFormat { version: 2, seconds_kept_s: 0, rollups_s: vec![600, 3600] });
        assert_eq!(PartCopy::log().problem(), None);
    }

    /// Two parts, the second started 0.4 s late and shorter: `merge` of the controller's copies
    /// gives every figure `merge` of the agents' own directories gives, reading 10-minute lines.
    #[test]
    fn merging_the_copies_gives_the_merge_of_the_agents_own_directories() {
        let (a_own, a_copy, a) = part("merge-a", &part_meta("1/2", "2026-11-25T00:00:00Z"), 3_700, true);
        let (b_own, b_copy, b) = part("merge-b", &part_meta("2/2", "2026-11-25T00:00:00.4Z"), 1_300, true);
        let witness = sum(&[sum(&a), sum(&b)]);
        let merged = |dirs: [&Path; 2]| {
            let mut total = LabelStats::default();
            let mut n = 0;
            let run = merge::read_many(&dirs, Grain::SECOND, |iv, _| {
                total += &iv.total;
                n += 1;
            })
            .unwrap();
            (figures(&total), n, run.summary)
        };
        let (own, own_read, own_summary) = merged([&a_own.0, &b_own.0]);
        let (copies, copies_read, copies_summary) = merged([&a_copy.0, &b_copy.0]);
        assert_eq!((&own, &copies), (&figures(&witness), &figures(&witness)));
        // The agents' own: an hour of seconds, then minutes; the copies: 10-minute lines.
        assert_eq!((own_read, copies_read), (3_600 + 2, 7));
        let row = |s: &Summary| {
            let t = &s.total;
            (t.samples, t.errors, t.p50_ms, t.p90_ms, t.p99_ms, t.max_ms, t.throughput_rps)
        };
        assert_eq!(row(&own_summary), row(&copies_summary));
        assert!(copies_summary.damage.is_empty(), "{:?}", copies_summary.damage);
    }
}
